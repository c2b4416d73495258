//! Requests to the two API flavours a model is reached by: OpenAI-compatible
//! chat completions (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama, LM
//! Studio, Gemini's compatible endpoint) and Anthropic's messages API.
//! Building a request is pure; the browser sends the [`HttpRequest`] and
//! hands status and body to [`super::reply`].
//!
//! **Headers** (`notes-users-and-apis.md`): a request carries only the key
//! header (`Authorization: Bearer …`, or Anthropic's `x-api-key`) and
//! `Content-Type`; Anthropic adds `anthropic-version`, which its API
//! requires on every request, and `anthropic-dangerous-direct-browser-access:
//! true`, its opt-in for calls from a browser. Any other header (SDK
//! telemetry, beta flags) makes the CORS preflight fail at Gemini,
//! OpenRouter and Fireworks. An empty key sends no key header at all, for
//! local servers that need none.

use super::error::VlmError;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Which API a base URL speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flavor {
    /// `POST {base}/chat/completions`.
    OpenAi,
    /// `POST {base}/messages`.
    Anthropic,
}

impl Flavor {
    /// The name used in settings and files.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::OpenAi => "openai",
            Flavor::Anthropic => "anthropic",
        }
    }

    /// Reads `openai` or `anthropic` (any case).
    pub fn parse(text: &str) -> Result<Flavor, VlmError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Flavor::OpenAi),
            "anthropic" => Ok(Flavor::Anthropic),
            other => Err(VlmError::UnknownFlavor {
                found: other.to_string(),
            }),
        }
    }
}

/// The `anthropic-version` this module's request and reply shapes follow.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (the episode's side: instructions, feedback, pictures).
    User,
    /// The model.
    Assistant,
}

/// A piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image as base64 (no `data:` prefix) with its media type.
    Image {
        /// `image/png` or `image/jpeg`.
        media_type: String,
        /// The bytes, base64-encoded.
        base64: String,
    },
}

/// One message of the conversation after the system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub role: Role,
    /// What it says, in order.
    pub parts: Vec<Part>,
}

/// Where and how to call a model; the key is passed separately and never
/// stored here, so this value can go into files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    /// Which API's request and reply shapes.
    pub flavor: Flavor,
    /// The API base, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The model's name, as the API knows it.
    pub model: String,
    /// The sampling temperature.
    pub temperature: f64,
    /// The most tokens a reply may take.
    pub max_tokens: u32,
}

/// An HTTP request ready to send: always `POST` with a JSON body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HttpRequest {
    /// The full URL (base and path).
    pub url: String,
    /// Header names in lower case, in the order sent.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: String,
}

impl Endpoint {
    /// The URL requests go to: the base without trailing `/`, then the
    /// flavour's path.
    pub fn url(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        match self.flavor {
            Flavor::OpenAi => format!("{base}/chat/completions"),
            Flavor::Anthropic => format!("{base}/messages"),
        }
    }

    /// Whether the base URL names this machine or a private network, where
    /// Chrome asks the user's permission (Local Network Access) and the
    /// server's CORS settings usually need a change.
    pub fn is_local(&self) -> bool {
        let rest = self.base_url.trim();
        let rest = rest.split_once("://").map_or(rest, |(_, r)| r);
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let host = if host.starts_with('[') {
            host.split(']').next().unwrap_or("").trim_start_matches('[')
        } else {
            host.split(':').next().unwrap_or("")
        };
        host == "localhost"
            || host.ends_with(".local")
            || host == "::1"
            || host.starts_with("127.")
            || host.starts_with("10.")
            || host.starts_with("192.168.")
            || (host.starts_with("172.")
                && host
                    .split('.')
                    .nth(1)
                    .and_then(|o| o.parse::<u8>().ok())
                    .is_some_and(|o| (16..=31).contains(&o)))
    }

    /// The request for one turn: the system prompt, then the messages.
    /// `key` goes into the key header only (none when empty).
    pub fn request(&self, key: &str, system: &str, messages: &[Message]) -> HttpRequest {
        let mut request = self.request_without_key(system, messages);
        self.authorize(&mut request, key);
        request
    }

    /// The request for one turn with no key header yet: what a model agent
    /// prepares; the episode driver adds the key ([`Endpoint::authorize`])
    /// when it hands the request to the transport, so no agent holds it.
    pub fn request_without_key(&self, system: &str, messages: &[Message]) -> HttpRequest {
        let mut headers = Vec::new();
        let body = match self.flavor {
            Flavor::OpenAi => self.openai_body(system, messages),
            Flavor::Anthropic => {
                headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
                headers.push((
                    "anthropic-dangerous-direct-browser-access".into(),
                    "true".into(),
                ));
                self.anthropic_body(system, messages)
            }
        };
        headers.push(("content-type".into(), "application/json".into()));
        HttpRequest {
            url: self.url(),
            headers,
            body: body.to_string(),
        }
    }

    /// Puts `key` into the request's key header, first of its headers
    /// (`Authorization: Bearer …`, or Anthropic's `x-api-key`); an empty
    /// key adds none.
    pub fn authorize(&self, request: &mut HttpRequest, key: &str) {
        let key = key.trim();
        if key.is_empty() {
            return;
        }
        let header = match self.flavor {
            Flavor::OpenAi => ("authorization".to_string(), format!("Bearer {key}")),
            Flavor::Anthropic => ("x-api-key".to_string(), key.to_string()),
        };
        request.headers.insert(0, header);
    }

    fn openai_body(&self, system: &str, messages: &[Message]) -> Value {
        let mut out = vec![json!({"role": "system", "content": system})];
        for m in messages {
            let content: Vec<Value> = m
                .parts
                .iter()
                .map(|p| match p {
                    Part::Text { text } => json!({"type": "text", "text": text}),
                    Part::Image { media_type, base64 } => json!({"type": "image_url",
                        "image_url": {"url": format!("data:{media_type};base64,{base64}")}}),
                })
                .collect();
            // An assistant's reply goes back as plain text, which every
            // compatible server accepts.
            let content = match (m.role, content.as_slice()) {
                (Role::Assistant, _) => Value::String(text_of(&m.parts)),
                _ => Value::Array(content),
            };
            out.push(json!({"role": role_name(m.role), "content": content}));
        }
        json!({"model": self.model, "messages": out, "temperature": self.temperature,
               "max_tokens": self.max_tokens, "stream": false})
    }

    fn anthropic_body(&self, system: &str, messages: &[Message]) -> Value {
        let out: Vec<Value> = messages
            .iter()
            .map(|m| {
                let content: Vec<Value> = m
                    .parts
                    .iter()
                    .map(|p| match p {
                        Part::Text { text } => json!({"type": "text", "text": text}),
                        Part::Image { media_type, base64 } => json!({"type": "image",
                            "source": {"type": "base64", "media_type": media_type, "data": base64}}),
                    })
                    .collect();
                json!({"role": role_name(m.role), "content": content})
            })
            .collect();
        json!({"model": self.model, "max_tokens": self.max_tokens,
               "temperature": self.temperature, "system": system, "messages": out})
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn text_of(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            Part::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
mod tests {
    use super::*;

    fn endpoint(flavor: Flavor) -> Endpoint {
        Endpoint {
            flavor,
            base_url: "https://api.example.com/v1/".into(),
            model: "m".into(),
            temperature: 0.0,
            max_tokens: 300,
        }
    }

    fn turn() -> Vec<Message> {
        vec![Message {
            role: Role::User,
            parts: vec![
                Part::Text { text: "hi".into() },
                Part::Image {
                    media_type: "image/png".into(),
                    base64: "AAAA".into(),
                },
            ],
        }]
    }

    #[test]
    fn openai_requests_carry_only_the_key_and_content_type() {
        let r = endpoint(Flavor::OpenAi).request("sk-1", "sys", &turn());
        assert_eq!(r.url, "https://api.example.com/v1/chat/completions");
        assert_eq!(
            r.headers,
            vec![
                ("authorization".to_string(), "Bearer sk-1".to_string()),
                ("content-type".to_string(), "application/json".to_string()),
            ]
        );
        let body: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(
            body["messages"][1]["content"][1]["image_url"]["url"],
            "data:image/png;base64,AAAA"
        );
        assert_eq!(body["stream"], false);
    }

    #[test]
    fn anthropic_requests_opt_in_to_browser_access() {
        let r = endpoint(Flavor::Anthropic).request("k", "sys", &turn());
        assert_eq!(r.url, "https://api.example.com/v1/messages");
        let names: Vec<&str> = r.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "x-api-key",
                "anthropic-version",
                "anthropic-dangerous-direct-browser-access",
                "content-type"
            ]
        );
        let body: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(body["system"], "sys");
        assert_eq!(body["messages"][0]["content"][1]["source"]["data"], "AAAA");
    }

    #[test]
    fn an_empty_key_sends_no_key_header() {
        let r = endpoint(Flavor::OpenAi).request("  ", "sys", &turn());
        assert_eq!(r.headers.len(), 1);
        assert!(!r.body.contains("Bearer"));
    }

    #[test]
    fn local_hosts_are_recognised() {
        let mut e = endpoint(Flavor::OpenAi);
        for (url, local) in [
            ("http://localhost:11434/v1", true),
            ("http://127.0.0.1:8000/v1", true),
            ("http://192.168.1.4/v1", true),
            ("http://172.20.0.2/v1", true),
            ("http://[::1]:8080/v1", true),
            ("https://api.openai.com/v1", false),
            ("https://172.40.0.1/v1", false),
        ] {
            e.base_url = url.into();
            assert_eq!(e.is_local(), local, "{url}");
        }
    }
}
