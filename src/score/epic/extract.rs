//! From a model's reply text to a parsed JSON object, the official way
//! (`format_response.py`, §4.3 steps 1–4): think blocks, fenced blocks,
//! brace scanning, Python literals, tuples, then `json.loads`.

use std::sync::OnceLock;

use regex::Regex;

use super::pyjson;
use super::pyvalue::{py_strip, PyValue};

/// Which parser to imitate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The official formatter, quirks included.
    Official,
    /// The corrected formatter: trailing commas and any fence language tag
    /// (`JSON`, `javascript`, ...) are parsed.
    Corrected,
}

/// The key lists that steer candidate selection for one task.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    /// Keys a candidate should contain all of (a fenced block with all of them wins).
    pub must_have: &'static [&'static str],
    /// Keys a candidate may contain instead; one of them is enough.
    pub any_of: &'static [&'static str],
    /// The key whose list value gets tuples turned into lists
    /// (`bounding_boxes`, or `points` for paths).
    pub list_key: &'static str,
}

/// Why a reply gave no object; all of them become "No Valid Response".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The reply is empty after trimming.
    Empty,
    /// A `<think>` block is never closed.
    UnclosedThink,
    /// None of the expected keys occurs in the reply.
    NoKey,
    /// No `{` precedes the first expected key.
    NoOpeningBrace,
    /// The braces from that `{` never balance.
    UnbalancedBraces,
    /// The candidate has neither all the must-have keys nor any of the others.
    KeysMissing,
    /// The candidate does not parse as JSON.
    BadJson,
    /// The candidate parses, but not to an object.
    NotAnObject,
}

impl Failure {
    /// A short English explanation of the failure, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Failure::Empty => "empty reply",
            Failure::UnclosedThink => "<think> without </think>",
            Failure::NoKey => "no expected key in the reply",
            Failure::NoOpeningBrace => "no '{' before the first expected key",
            Failure::UnbalancedBraces => "braces never balance",
            Failure::KeysMissing => "the JSON candidate lacks the expected keys",
            Failure::BadJson => "the candidate is not valid JSON",
            Failure::NotAnObject => "the JSON is not an object",
        }
    }
}

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).unwrap_or_else(|e| panic!("static regex {pat}: {e}")))
}

/// Extracts the object from a reply.
pub fn extract_object(
    text: &str,
    keys: &KeySpec,
    dialect: Dialect,
) -> Result<Vec<(String, PyValue)>, Failure> {
    // Step 1: "If the response ... is empty after trimming → NVR."
    let mut text = py_strip(text).to_string();
    if text.is_empty() {
        return Err(Failure::Empty);
    }
    // Step 2: think blocks, only "if the exact lowercase text `<think>` occurs".
    if text.contains("<think>") {
        if !text.contains("</think>") {
            return Err(Failure::UnclosedThink);
        }
        static THINK: OnceLock<Regex> = OnceLock::new();
        text = py_strip(&re(&THINK, r"(?s)<think>.*?</think>").replace_all(&text, "")).to_string();
    }
    let candidate = choose_candidate(&text, keys, dialect)?;
    let json = to_json_text(&candidate, keys.list_key, dialect);
    match pyjson::loads(&json) {
        Ok(PyValue::Dict(items)) => Ok(items),
        Ok(_) => Err(Failure::NotAnObject),
        Err(_) => Err(Failure::BadJson),
    }
}

/// Step 3: fenced blocks first, then the brace scan.
fn choose_candidate(text: &str, keys: &KeySpec, dialect: Dialect) -> Result<String, Failure> {
    static FENCE: OnceLock<Regex> = OnceLock::new();
    static FENCE_ANY: OnceLock<Regex> = OnceLock::new();
    let fence = match dialect {
        Dialect::Official => re(&FENCE, r"(?s)```(?:json|python)?\s*\n?(.*?)\n?```"),
        Dialect::Corrected => re(&FENCE_ANY, r"(?s)```(?:[A-Za-z0-9_+-]+)?\s*\n?(.*?)\n?```"),
    };
    let blocks: Vec<String> = fence
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| py_strip(m.as_str()).to_string()))
        .collect();
    if !keys.must_have.is_empty() {
        if let Some(b) = blocks
            .iter()
            .find(|b| keys.must_have.iter().all(|k| b.contains(k)))
        {
            return Ok(b.clone());
        }
    }
    if !keys.any_of.is_empty() {
        if let Some(b) = blocks
            .iter()
            .find(|b| keys.any_of.iter().any(|k| b.contains(k)))
        {
            return Ok(b.clone());
        }
    }
    // Brace scan: the first key of (must-have, any-of) that occurs, at its
    // first occurrence; the last '{' before it; balance braces from there.
    let pos = keys
        .must_have
        .iter()
        .chain(keys.any_of.iter())
        .find_map(|k| text.find(k))
        .ok_or(Failure::NoKey)?;
    let open = text[..pos].rfind('{').ok_or(Failure::NoOpeningBrace)?;
    let mut depth = 0i64;
    let mut end = None;
    for (i, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(i + 1);
                    break;
                }
            }
            _ => {}
        }
    }
    let span = &text[open..end.ok_or(Failure::UnbalancedBraces)?];
    let has_all = keys.must_have.iter().all(|k| span.contains(k));
    let has_any = keys.any_of.iter().any(|k| span.contains(k));
    if (keys.must_have.is_empty() || !has_all) && !has_any {
        return Err(Failure::KeysMissing);
    }
    Ok(span.to_string())
}

/// Step 4 a–c: Python literals and quotes to JSON, tuples to lists inside
/// the list key's value. The corrected dialect also drops trailing commas.
fn to_json_text(candidate: &str, list_key: &str, dialect: Dialect) -> String {
    let src = candidate.replace("\\'", "'");
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' {
                out.push(c);
                if let Some(&n) = chars.get(i + 1) {
                    out.push(n);
                }
                i += 2;
                continue;
            }
            if c == q {
                out.push('"');
                quote = None;
            } else if c == '"' {
                out.push_str("\\\"");
            } else {
                out.push(c);
            }
            i += 1;
            continue;
        }
        if c == '\'' || c == '"' {
            quote = Some(c);
            out.push('"');
            i += 1;
            continue;
        }
        let mut replaced = false;
        for (py, js) in [("True", "true"), ("False", "false"), ("None", "null")] {
            let n = py.len();
            if chars[i..].iter().take(n).copied().eq(py.chars())
                && !chars.get(i + n).is_some_and(|c| c.is_alphanumeric())
            {
                out.push_str(js);
                i += n;
                replaced = true;
                break;
            }
        }
        if replaced {
            continue;
        }
        if dialect == Dialect::Corrected && c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some(']') | Some('}')) {
                i += 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    tuples_to_lists(&out, list_key)
}

/// "Only inside the value of `"bounding_boxes"` (or `"points"` for paths):
/// match the regex `("KEY"\s*:\s*\[)(.*?)(\]\s*[,}])` ... and, in group 2,
/// replace every `( … )` with `[ … ]`."
fn tuples_to_lists(text: &str, key: &str) -> String {
    static PAREN: OnceLock<Regex> = OnceLock::new();
    let paren = re(&PAREN, r"\(([^()]*)\)");
    static BOXES: OnceLock<Regex> = OnceLock::new();
    static POINTS: OnceLock<Regex> = OnceLock::new();
    let value_re = match key {
        "points" => re(&POINTS, r#"(?s)("points"\s*:\s*\[)(.*?)(\]\s*[,}])"#),
        _ => re(&BOXES, r#"(?s)("bounding_boxes"\s*:\s*\[)(.*?)(\]\s*[,}])"#),
    };
    if !text.contains('(') {
        return text.to_string();
    }
    value_re
        .replace_all(text, |c: &regex::Captures| {
            let inner = c.get(2).map_or("", |m| m.as_str());
            format!(
                "{}{}{}",
                c.get(1).map_or("", |m| m.as_str()),
                paren.replace_all(inner, "[$1]"),
                c.get(3).map_or("", |m| m.as_str())
            )
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TL: KeySpec = KeySpec {
        must_have: &["number_of_objects", "bounding_boxes"],
        any_of: &["number_of_objects"],
        list_key: "bounding_boxes",
    };

    fn ok(text: &str) -> bool {
        extract_object(text, &TL, Dialect::Official).is_ok()
    }

    #[test]
    fn python_literals_and_tuples() {
        let o = extract_object(
            "{'number_of_objects': 1, 'bounding_boxes': [(1, 2, 3, 4)], 'ok': True}",
            &TL,
            Dialect::Official,
        )
        .unwrap();
        assert_eq!(o[2].1, PyValue::Bool(true));
        assert_eq!(pyjson::dumps(&o[1].1), "[[1, 2, 3, 4]]");
    }

    #[test]
    fn think_blocks() {
        assert!(ok(
            "<think>{\"number_of_objects\": 3}</think>{\"number_of_objects\": 1}"
        ));
        assert_eq!(
            extract_object("<think>hmm", &TL, Dialect::Official),
            Err(Failure::UnclosedThink)
        );
        // Only a closing tag: not stripped, the key in the reasoning wins.
        assert!(!ok("number_of_objects?</think>{\"number_of_objects\": 1}"));
    }

    #[test]
    fn fences_are_case_sensitive_officially() {
        let t = "```JSON\n{\"number_of_objects\": 1, \"bounding_boxes\": []}\n```";
        assert!(!ok(t));
        assert!(extract_object(t, &TL, Dialect::Corrected).is_ok());
    }

    #[test]
    fn trailing_comma_only_in_corrected() {
        let t = "{\"number_of_objects\": 1, \"bounding_boxes\": [[1, 2, 3, 4],],}";
        assert!(!ok(t));
        assert!(extract_object(t, &TL, Dialect::Corrected).is_ok());
    }

    #[test]
    fn key_in_prose_first_fails() {
        assert_eq!(
            extract_object(
                "number_of_objects = 1. {\"number_of_objects\": 1}",
                &TL,
                Dialect::Official
            ),
            Err(Failure::NoOpeningBrace)
        );
    }
}
