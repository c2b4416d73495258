//! What comes back from a model API: the reply's text, the reasoning the
//! server sent apart, token usage, and error bodies turned into messages
//! that say what came back. Both flavours of [`super::provider`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::provider::Flavor;

/// Tokens a request used, as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt (pictures included).
    pub input_tokens: u64,
    /// Tokens of the reply.
    pub output_tokens: u64,
}

impl Usage {
    /// Both counts added.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// What a successful reply holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The model's text.
    pub text: String,
    /// Reasoning the server returned apart from the text (a `reasoning`
    /// field, Anthropic's thinking blocks), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default)]
    /// The tokens the server counted.
    pub usage: Usage,
}

/// A reply that is not a usable answer. The message says what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyError {
    /// An HTTP error status, with the message from the error body if any.
    Status {
        /// The status.
        status: u16,
        /// The message of the error body, if it held one.
        message: String,
    },
    /// A 2xx whose body is not the flavour's reply shape.
    Malformed {
        /// What was wrong with the body.
        message: String,
    },
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplyError::Status { status, message } => write!(f, "HTTP {status}: {message}"),
            ReplyError::Malformed { message } => write!(f, "malformed reply: {message}"),
        }
    }
}

impl Flavor {
    /// Reads a reply's status and body.
    ///
    /// ```
    /// use knoblab_eval::vlm::provider::Flavor;
    /// let body = r#"{"choices":[{"message":{"content":"Action: Timed_wait()"}}],
    ///               "usage":{"prompt_tokens":10,"completion_tokens":4}}"#;
    /// let reply = Flavor::OpenAi.parse_reply(200, body).unwrap();
    /// assert_eq!(reply.text, "Action: Timed_wait()");
    /// assert_eq!(reply.usage.output_tokens, 4);
    /// assert!(Flavor::OpenAi.parse_reply(429, r#"{"error":{"message":"slow down"}}"#)
    ///     .unwrap_err().to_string().contains("slow down"));
    /// ```
    #[allow(
        clippy::disallowed_methods,
        reason = "a model's reply body, bounded by the HTTP reader (input::limits::MAX_REPLY_BYTES), not a file"
    )]
    pub fn parse_reply(self, status: u16, body: &str) -> Result<Reply, ReplyError> {
        let json: Option<Value> = serde_json::from_str(body).ok();
        if !(200..300).contains(&status) {
            return Err(ReplyError::Status {
                status,
                message: error_message(json.as_ref(), body),
            });
        }
        let json = json.ok_or_else(|| ReplyError::Malformed {
            message: format!("the body is not JSON: {}", clip(body, 200)),
        })?;
        if let Some(err) = json.get("error").filter(|e| !e.is_null()) {
            return Err(ReplyError::Malformed {
                message: format!(
                    "status {status} but the body is an error: {}",
                    error_message(Some(&json), &err.to_string())
                ),
            });
        }
        match self {
            Flavor::OpenAi => openai_reply(&json),
            Flavor::Anthropic => anthropic_reply(&json),
        }
    }
}

impl Flavor {
    /// Whether a reply's body says the model was cut off by the token
    /// limit (`finish_reason: "length"`, Anthropic's `stop_reason:
    /// "max_tokens"`): its text may be read, but it is not a whole answer,
    /// so it is never cached.
    ///
    /// ```
    /// use knoblab_eval::vlm::provider::Flavor;
    /// assert!(Flavor::OpenAi.truncated(r#"{"choices":[{"finish_reason":"length"}]}"#));
    /// assert!(!Flavor::OpenAi.truncated(r#"{"choices":[{"finish_reason":"stop"}]}"#));
    /// assert!(Flavor::Anthropic.truncated(r#"{"stop_reason":"max_tokens"}"#));
    /// ```
    #[allow(
        clippy::disallowed_methods,
        reason = "a model's reply body, bounded by the HTTP reader (input::limits::MAX_REPLY_BYTES), not a file"
    )]
    pub fn truncated(self, body: &str) -> bool {
        let Ok(json) = serde_json::from_str::<Value>(body) else {
            return false;
        };
        match self {
            Flavor::OpenAi => {
                json.pointer("/choices/0/finish_reason")
                    .and_then(Value::as_str)
                    == Some("length")
            }
            Flavor::Anthropic => {
                json.get("stop_reason").and_then(Value::as_str) == Some("max_tokens")
            }
        }
    }
}

fn openai_reply(json: &Value) -> Result<Reply, ReplyError> {
    let message = json
        .pointer("/choices/0/message")
        .ok_or_else(|| ReplyError::Malformed {
            message: "no choices[0].message in the reply; expected an OpenAI chat completion"
                .into(),
        })?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Some servers return the content as a list of text parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let reasoning = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string);
    if text.trim().is_empty() && reasoning.is_none() {
        return Err(ReplyError::Malformed {
            message: "choices[0].message has no text content".into(),
        });
    }
    Ok(Reply {
        text,
        reasoning,
        usage: Usage {
            input_tokens: count(json, "/usage/prompt_tokens"),
            output_tokens: count(json, "/usage/completion_tokens"),
        },
    })
}

fn anthropic_reply(json: &Value) -> Result<Reply, ReplyError> {
    let blocks = json
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ReplyError::Malformed {
            message: "no content list in the reply; expected an Anthropic message".into(),
        })?;
    let of_type = |ty: &str, field: &str| {
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some(ty))
            .filter_map(|b| b.get(field).and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let text = of_type("text", "text");
    let thinking = of_type("thinking", "thinking");
    if text.trim().is_empty() {
        return Err(ReplyError::Malformed {
            message: "the reply's content has no text block".into(),
        });
    }
    Ok(Reply {
        text,
        reasoning: (!thinking.trim().is_empty()).then_some(thinking),
        usage: Usage {
            input_tokens: count(json, "/usage/input_tokens"),
            output_tokens: count(json, "/usage/output_tokens"),
        },
    })
}

fn count(json: &Value, pointer: &str) -> u64 {
    json.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// The message of an error body (`{"error": {"message": …}}` in both
/// flavours, or `{"error": "…"}`, or `{"message": …}`), else the body itself.
fn error_message(json: Option<&Value>, body: &str) -> String {
    let found = json.and_then(|j| {
        j.pointer("/error/message")
            .or_else(|| j.get("error").filter(|e| e.is_string()))
            .or_else(|| j.get("message"))
            .and_then(Value::as_str)
    });
    match found {
        Some(m) => clip(m, 300),
        None if body.trim().is_empty() => "(empty body)".into(),
        None => clip(body.trim(), 300),
    }
}

/// At most `max` characters, with "…" when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_replies_keep_thinking_apart() {
        let body = r#"{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Action: Timed_wait()"}],
                      "usage":{"input_tokens":7,"output_tokens":3}}"#;
        let reply = Flavor::Anthropic.parse_reply(200, body).unwrap();
        assert_eq!(reply.text, "Action: Timed_wait()");
        assert_eq!(reply.reasoning.as_deref(), Some("hmm"));
        assert_eq!(reply.usage.input_tokens, 7);
    }

    #[test]
    fn malformed_and_error_replies_say_what_came_back() {
        let e = Flavor::OpenAi.parse_reply(200, "<html>").unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
        let e = Flavor::OpenAi
            .parse_reply(200, r#"{"choices":[]}"#)
            .unwrap_err();
        assert!(e.to_string().contains("choices[0]"), "{e}");
        let e = Flavor::Anthropic.parse_reply(500, "").unwrap_err();
        assert_eq!(e.to_string(), "HTTP 500: (empty body)");
    }
}
