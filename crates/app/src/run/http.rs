//! The native transport: sends what the episode driver asks for with a
//! blocking `ureq` HTTP client and turns what comes back into the driver's
//! [`Answer`]. It adds no header of its own but `ureq`'s `user-agent`,
//! follows no redirect (a redirect could carry the key elsewhere), and
//! ignores proxy variables, so a request goes to the base URL and nowhere
//! else. Nothing is logged.

use std::time::Duration;

use knoblab_eval::vlm::driver::Answer;
use knoblab_eval::vlm::{Failure, HttpRequest};

/// Replies larger than this are refused (the reason for the value is
/// with [`knoblab_core::input::limits::MAX_REPLY_BYTES`]).
const MAX_BODY: u64 = knoblab_core::input::limits::MAX_REPLY_BYTES;

/// A client for one run: connections are pooled across its threads.
#[derive(Debug, Clone)]
pub struct Client {
    http: ureq::Agent,
}

impl Client {
    /// A client whose requests give up after `timeout_ms` (connecting,
    /// sending and reading the reply together).
    pub fn new(timeout_ms: u64) -> Client {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_millis(timeout_ms.max(1))))
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .user_agent(concat!("knoblab/", env!("CARGO_PKG_VERSION")))
            .build();
        Client {
            http: config.into(),
        }
    }

    /// Sends a request; every outcome is an answer for the driver.
    pub fn send(&self, request: &HttpRequest, timeout_ms: u64) -> Answer {
        let mut builder = self.http.post(&request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let failure = |e: ureq::Error| match e {
            ureq::Error::Timeout(_) => Failure::Timeout {
                after_ms: timeout_ms,
            },
            other => Failure::Transport {
                message: other.to_string(),
            },
        };
        let mut response = match builder.send(request.body.as_str()) {
            Ok(r) => r,
            Err(e) => return Answer::Failure(failure(e)),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        match response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_string()
        {
            Ok(body) => Answer::Response {
                status,
                retry_after,
                body,
            },
            Err(e) => Answer::Failure(failure(e)),
        }
    }
}
