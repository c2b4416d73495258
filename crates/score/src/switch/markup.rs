//! Finding the marked-up answer in a model's reply: JSON objects, the
//! answer field models use, and LaTeX `\boxed{}`. Shared by MCQ extraction,
//! OpenQA answer reading and judge-reply parsing, so each reads replies the
//! same way.

use std::sync::LazyLock;

use crate::pattern::Regex;
use serde_json::{Map, Value};

/// Compiles one of the crate's built-in patterns.
pub(crate) fn regex(pattern: &str) -> Regex {
    // Only constant patterns of this crate reach here, each exercised by the tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad built-in pattern {pattern}: {e}"))
}

/// Every JSON object in a reply (the whole reply, fenced blocks, or any
/// `{…}` inside prose), in order of appearance.
pub(crate) fn json_objects(text: &str) -> Vec<Map<String, Value>> {
    let mut found = Vec::new();
    let mut next_free = 0;
    for (start, _) in text.match_indices('{').take(64) {
        if start < next_free {
            continue;
        }
        let Some(rest) = text.get(start..) else {
            continue;
        };
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(Value::Object(map))) = stream.next() {
            next_free = start + stream.byte_offset();
            found.push(map);
        }
    }
    found
}

/// The answer field of a JSON object, under the names models use.
pub(crate) fn answer_field(map: &Map<String, Value>) -> Option<&Value> {
    const KEYS: [&str; 6] = [
        "answer",
        "final_answer",
        "answers",
        "choice",
        "choices",
        "prediction",
    ];
    map.iter()
        .find(|(k, _)| KEYS.contains(&k.to_ascii_lowercase().as_str()))
        .map(|(_, v)| v)
}

static BOXED: LazyLock<Regex> = LazyLock::new(|| regex(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}"));
static LATEX_TEXT: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}"));

/// The content of the last `\boxed{…}`, with `\text{…}` unwrapped.
pub(crate) fn last_boxed(text: &str) -> Option<String> {
    let content = BOXED
        .captures_iter(text)
        .last()?
        .get(1)?
        .as_str()
        .to_string();
    Some(LATEX_TEXT.replace_all(&content, "$1").trim().to_string())
}
