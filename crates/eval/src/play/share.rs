//! Share links: a URL whose hash alone restores an episode, naming the
//! bundle (a library id or a URL), the task, λ when it is not the default,
//! and the actions played.
//!
//! The actions travel as one query value: their texts joined by newlines
//! and encoded as unpadded URL-safe base64, so brackets, commas and spaces
//! survive every copy and paste without a second layer of escaping.
//!
//! ```
//! use knoblab_eval::play::ShareLink;
//! let link = ShareLink {
//!     bundle: "kettle-0001".into(),
//!     task: "boil".into(),
//!     lambda: 5,
//!     actions: vec!["Push(coord=[780, 711], params=[1])".into()],
//! };
//! let query = link.to_query();
//! assert!(query.starts_with("bundle=kettle-0001&task=boil&actions="));
//! let pairs: Vec<(String, String)> = query
//!     .split('&')
//!     .map(|p| p.split_once('=').unwrap())
//!     .map(|(k, v)| (k.to_string(), v.to_string()))
//!     .collect();
//! let get = |k: &str| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
//! let back = ShareLink::from_params(get("bundle"), get("task"), get("lambda"), get("actions"));
//! assert_eq!(back, Ok(link));
//! ```

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use thiserror::Error;

use knoblab_core::sim::DEFAULT_LAMBDA;

/// What a share link names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareLink {
    /// A library device id, or the URL of a bundle (zip or single JSON).
    pub bundle: String,
    /// The task's id.
    pub task: String,
    /// λ ([`DEFAULT_LAMBDA`] when the link gives none).
    pub lambda: u32,
    /// The action texts played, in order.
    pub actions: Vec<String>,
}

/// Why a link's query cannot be read; each says what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShareError {
    #[error("the link names no bundle: it needs bundle=<library id or URL>")]
    /// No `bundle=` in the query.
    NoBundle,
    #[error("the link names no task: it needs task=<task id>")]
    /// No `task=` in the query.
    NoTask,
    #[error("the link's lambda {0:?} is not a whole number from 1 to 1000")]
    /// `lambda=` is not a whole number in range (the text found).
    BadLambda(String),
    #[error("the link's actions are not readable ({0}); they must be URL-safe base64 of the action texts, one per line")]
    /// `actions=` is not base64 of UTF-8 text (the decoder's message).
    BadActions(String),
}

impl ShareLink {
    /// The query string (without `?`), its values percent-encoded.
    pub fn to_query(&self) -> String {
        let mut query = format!(
            "bundle={}&task={}",
            encode_component(&self.bundle),
            encode_component(&self.task)
        );
        if self.lambda != DEFAULT_LAMBDA {
            query.push_str(&format!("&lambda={}", self.lambda));
        }
        if !self.actions.is_empty() {
            query.push_str("&actions=");
            query.push_str(&encode_actions(&self.actions));
        }
        query
    }

    /// Reads the decoded values of a link's `bundle`, `task`, `lambda` and
    /// `actions` parameters.
    pub fn from_params(
        bundle: Option<&str>,
        task: Option<&str>,
        lambda: Option<&str>,
        actions: Option<&str>,
    ) -> Result<ShareLink, ShareError> {
        let bundle = bundle
            .filter(|b| !b.is_empty())
            .ok_or(ShareError::NoBundle)?;
        let task = task.filter(|t| !t.is_empty()).ok_or(ShareError::NoTask)?;
        let lambda = match lambda {
            None => DEFAULT_LAMBDA,
            Some(text) => {
                parse_lambda(text).ok_or_else(|| ShareError::BadLambda(text.to_string()))?
            }
        };
        let actions = match actions {
            None | Some("") => Vec::new(),
            Some(text) => decode_actions(text)?,
        };
        Ok(ShareLink {
            bundle: bundle.to_string(),
            task: task.to_string(),
            lambda,
            actions,
        })
    }
}

/// λ as a person or a link may give it: a whole number from 1 to 1000.
pub fn parse_lambda(text: &str) -> Option<u32> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|l| (1..=1000).contains(l))
}

/// The action texts as one URL-safe value.
pub fn encode_actions(actions: &[String]) -> String {
    URL_SAFE_NO_PAD.encode(actions.join("\n"))
}

/// The action texts back from [`encode_actions`]'s value.
pub fn decode_actions(value: &str) -> Result<Vec<String>, ShareError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(value.trim().trim_end_matches('='))
        .map_err(|e| ShareError::BadActions(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| ShareError::BadActions(e.to_string()))?;
    Ok(text.split('\n').map(str::to_string).collect())
}

/// Percent-encodes everything but the unreserved characters of RFC 3986,
/// so a value reads back unchanged with `decodeURIComponent`.
pub fn encode_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_with_any_characters_round_trip() {
        let actions = vec![
            "Switch_view(coord=[850, 700])".to_string(),
            "Push(coord=[780, 711], params=[1])".to_string(),
            "pressé & ? = #".to_string(),
        ];
        let value = encode_actions(&actions);
        assert!(value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(decode_actions(&value), Ok(actions));
    }

    #[test]
    fn a_url_bundle_is_percent_encoded() {
        let link = ShareLink {
            bundle: "https://example.org/a b/kettle.json?x=1&y=2".into(),
            task: "boil".into(),
            lambda: 3,
            actions: Vec::new(),
        };
        let q = link.to_query();
        assert_eq!(
            q,
            "bundle=https%3A%2F%2Fexample.org%2Fa%20b%2Fkettle.json%3Fx%3D1%26y%3D2&task=boil&lambda=3"
        );
        assert_eq!(q.matches('&').count(), 2);
    }

    #[test]
    fn broken_links_say_what_is_missing() {
        assert_eq!(
            ShareLink::from_params(None, Some("t"), None, None),
            Err(ShareError::NoBundle)
        );
        assert_eq!(
            ShareLink::from_params(Some("b"), Some(""), None, None),
            Err(ShareError::NoTask)
        );
        assert_eq!(
            ShareLink::from_params(Some("b"), Some("t"), Some("0"), None),
            Err(ShareError::BadLambda("0".into()))
        );
        let err = ShareLink::from_params(Some("b"), Some("t"), None, Some("@@@")).unwrap_err();
        assert!(err.to_string().contains("base64"), "{err}");
        let ok = ShareLink::from_params(Some("b"), Some("t"), None, None).unwrap();
        assert_eq!((ok.lambda, ok.actions.len()), (5, 0));
    }
}
