//! When to try a request again, and after how long: 429 and 5xx statuses,
//! timeouts and network failures are retried; a `Retry-After` header (in
//! seconds or as an HTTP date) is honoured, else the wait doubles from a
//! base up to a cap. Pure: the caller passes the clock.

use serde::{Deserialize, Serialize};

use super::provider::{Endpoint, Flavor};
use super::reply::ReplyError;

/// How many times and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    pub retries: u32,
    /// The first backoff wait, in milliseconds.
    pub base_ms: u64,
    /// No wait is longer than this, `Retry-After` included.
    pub cap_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 3,
            base_ms: 1_000,
            cap_ms: 60_000,
        }
    }
}

/// Whether an HTTP status is worth retrying: rate limits and server errors.
pub fn retryable_status(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1 for the first retry), or
    /// `None` when the retries are used up. `retry_after_ms` is what the
    /// server asked for ([`retry_after_ms`]); it wins over the backoff,
    /// both capped.
    ///
    /// ```
    /// use knoblab_eval::vlm::retry::RetryPolicy;
    /// let p = RetryPolicy { retries: 3, base_ms: 500, cap_ms: 3_000 };
    /// assert_eq!(p.wait_ms(1, None), Some(500));
    /// assert_eq!(p.wait_ms(3, None), Some(2_000));
    /// assert_eq!(p.wait_ms(2, Some(10_000)), Some(3_000));
    /// assert_eq!(p.wait_ms(4, None), None);
    /// ```
    pub fn wait_ms(&self, retry: u32, retry_after_ms: Option<u64>) -> Option<u64> {
        if retry == 0 || retry > self.retries {
            return None;
        }
        let backoff = self
            .base_ms
            .saturating_mul(1u64.checked_shl(retry - 1).unwrap_or(u64::MAX));
        Some(retry_after_ms.unwrap_or(backoff).min(self.cap_ms))
    }
}

/// A `Retry-After` value in milliseconds from now: a number of seconds, or
/// an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`) compared with `now_ms`
/// (milliseconds since 1970). A date in the past is 0; anything else
/// unreadable is `None`.
///
/// ```
/// use knoblab_eval::vlm::retry::retry_after_ms;
/// assert_eq!(retry_after_ms("7", 0), Some(7_000));
/// let now = 1_445_412_470_000; // 2015-10-21 07:27:50 UTC
/// assert_eq!(retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(10_000));
/// assert_eq!(retry_after_ms("soon", now), None);
/// ```
pub fn retry_after_ms(value: &str, now_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1_000));
    }
    let at = http_date_ms(value)?;
    Some(at.saturating_sub(now_ms))
}

/// An IMF-fixdate (RFC 9110), the form servers send:
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn http_date_ms(value: &str) -> Option<u64> {
    let rest = value.split_once(',').map_or(value, |(_, r)| r).trim();
    let mut parts = rest.split_whitespace();
    let day: u64 = parts.next()?.parse().ok()?;
    let month = parts.next()?.to_ascii_lowercase();
    let year: u64 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if parts.next()? != "GMT" || h > 23 || m > 59 || s > 60 || !(1..=31).contains(&day) {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month = MONTHS.iter().position(|n| *n == month)? as u64 + 1;
    let days = days_from_civil(year, month, day)?;
    Some(((days * 24 + h) * 60 + m) * 60_000 + s * 1_000)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (the well-known era-based formula); `None` before 1970.
fn days_from_civil(year: u64, month: u64, day: u64) -> Option<u64> {
    let y = if month <= 2 {
        year.checked_sub(1)?
    } else {
        year
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).checked_sub(719_468)
}

/// Why one attempt at a request failed, as the transport saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server answered with an error status, or a body that is no reply.
    Reply {
        /// What the reply was.
        error: ReplyError,
        /// The `Retry-After` header, in milliseconds from now.
        retry_after_ms: Option<u64>,
    },
    /// No answer within the timeout.
    Timeout {
        /// The timeout that ran out, in milliseconds.
        after_ms: u64,
    },
    /// The browser got no response at all: the server is down, the URL is
    /// wrong, or the server refused this page's origin (CORS). Browsers do
    /// not say which.
    Network {
        /// The browser's message.
        message: String,
    },
    /// A native client got no usable answer: the connection failed or was
    /// cut (a reply ended mid-body), with the client's own words.
    Transport {
        /// The client's message.
        message: String,
    },
}

impl Failure {
    /// Whether trying again may help: 429 and 5xx, timeouts and network
    /// failures; not other statuses or malformed replies.
    pub fn retryable(&self) -> bool {
        match self {
            Failure::Reply {
                error: ReplyError::Status { status, .. },
                ..
            } => retryable_status(*status),
            Failure::Reply { .. } => false,
            Failure::Timeout { .. } | Failure::Network { .. } | Failure::Transport { .. } => true,
        }
    }

    /// What happened, for the step's card and the record, with the fix
    /// for common servers when the browser could not get through.
    pub fn describe(&self, endpoint: &Endpoint) -> String {
        match self {
            Failure::Reply { error, .. } => error.to_string(),
            Failure::Timeout { after_ms } => format!(
                "no answer from {} within {} s (the timeout setting)",
                endpoint.url(),
                after_ms / 1_000
            ),
            Failure::Transport { message } => {
                format!("no usable answer from {}: {message}", endpoint.url())
            }
            Failure::Network { message } => {
                let mut text = format!(
                    "the browser could not reach {} ({message}). Either the server is down or \
                     the address is wrong, or it refused this page's origin (CORS). Fixes: \
                     Ollama: set OLLAMA_ORIGINS to this page's origin (or *) and restart it; \
                     vLLM: --allowed-origins; llama.cpp server: --cors-origins; LM Studio: \
                     enable CORS in the server settings.",
                    endpoint.url()
                );
                if endpoint.flavor == Flavor::OpenAi && endpoint.base_url.contains("anthropic.com")
                {
                    text.push_str(
                        " Anthropic's own API answers browsers only in its messages form: \
                         choose the Anthropic API.",
                    );
                }
                if endpoint.is_local() {
                    text.push_str(
                        " This is a local address: Chrome asks permission for local network \
                         access, which only a secure (https or localhost) page can get.",
                    );
                }
                text
            }
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` after `failure`, or `None` to
    /// give up (not retryable, or retries used up).
    pub fn after(&self, retry: u32, failure: &Failure) -> Option<u64> {
        if !failure.retryable() {
            return None;
        }
        let asked = match failure {
            Failure::Reply { retry_after_ms, .. } => *retry_after_ms,
            _ => None,
        };
        self.wait_ms(retry, asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_worth_retrying() {
        for s in [429, 500, 502, 503, 504] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [200, 400, 401, 403, 404, 413] {
            assert!(!retryable_status(s), "{s}");
        }
    }

    #[test]
    fn http_dates_read_as_unix_time() {
        assert_eq!(http_date_ms("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777_000)
        );
        assert_eq!(
            http_date_ms("Tue, 29 Feb 2000 12:00:00 GMT"),
            Some(951_825_600_000)
        );
        assert_eq!(http_date_ms("Sun, 06 Nov 1994 08:49:37 CET"), None);
        assert_eq!(http_date_ms("Sun, 06 Foo 1994 08:49:37 GMT"), None);
    }

    fn endpoint(base_url: &str) -> Endpoint {
        Endpoint {
            flavor: Flavor::OpenAi,
            base_url: base_url.into(),
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 10,
        }
    }

    #[test]
    fn failures_say_whether_to_retry_and_what_to_fix() {
        let p = RetryPolicy::default();
        let limited = Failure::Reply {
            error: ReplyError::Status {
                status: 429,
                message: "slow".into(),
            },
            retry_after_ms: Some(7_000),
        };
        assert_eq!(p.after(1, &limited), Some(7_000));
        assert_eq!(p.after(4, &limited), None);
        let denied = Failure::Reply {
            error: ReplyError::Status {
                status: 401,
                message: "bad key".into(),
            },
            retry_after_ms: None,
        };
        assert_eq!(p.after(1, &denied), None);
        let malformed = Failure::Reply {
            error: ReplyError::Malformed {
                message: "x".into(),
            },
            retry_after_ms: None,
        };
        assert_eq!(p.after(1, &malformed), None);
        let timeout = Failure::Timeout { after_ms: 60_000 };
        assert_eq!(p.after(2, &timeout), Some(2_000));
        let cors = Failure::Network {
            message: "Failed to fetch".into(),
        };
        let text = cors.describe(&endpoint("http://localhost:11434/v1"));
        assert!(text.contains("OLLAMA_ORIGINS"), "{text}");
        assert!(text.contains("local network"), "{text}");
        let text = cors.describe(&endpoint("https://api.example.com/v1"));
        assert!(!text.contains("local network"), "{text}");
        assert!(!text.contains("Anthropic"), "{text}");
        let text = cors.describe(&endpoint("https://api.anthropic.com/v1"));
        assert!(text.contains("choose the Anthropic API"), "{text}");
        assert!(timeout
            .describe(&endpoint("https://x/v1"))
            .contains("within 60 s"));
    }

    #[test]
    fn a_past_date_means_no_wait() {
        assert_eq!(
            retry_after_ms("Sun, 06 Nov 1994 08:49:37 GMT", 900_000_000_000),
            Some(0)
        );
    }

    #[test]
    fn backoff_doubles_and_never_overflows() {
        let p = RetryPolicy {
            retries: 80,
            base_ms: 1_000,
            cap_ms: 60_000,
        };
        assert_eq!(p.wait_ms(2, None), Some(2_000));
        assert_eq!(p.wait_ms(7, None), Some(60_000));
        assert_eq!(p.wait_ms(80, None), Some(60_000));
        assert_eq!(p.wait_ms(0, None), None);
    }
}
