//! From a model's reply text to a parsed JSON object, the official way
//! (`format_response.py`, §4.3 steps 1–4): think blocks, fenced blocks,
//! brace scanning, Python literals, tuples, then `json.loads`.

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::pattern::Regex;

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

/// Where `needle` first occurs in `hay`, as `str::find` with a `&str`
/// gives it: each place of its first byte (`memchr`) is compared with the
/// rest. The standard library sets its searcher up anew for every call,
/// which on a reply of a few hundred bytes cost more than the search
/// itself (10-25 ms of a Score worker's half of the synthetic set). The
/// needles here are the reader's keys and marks, a few bytes each, so a
/// place costs at most that many comparisons. A needle's first byte
/// starts a character, so the place found is a character boundary.
fn find(hay: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|h| memchr::memchr(first, h)) {
        let at = from + i;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Whether `needle` occurs in `hay` ([`find`]).
fn has(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
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
    let text = prepare(text)?;
    read_candidate(&text, keys, dialect)
}

/// What a reply gives in the official dialect, and in the corrected one
/// where it may read differently: `None` when it reads the same, because
/// the reply has no fence (the dialects' fence rules differ only on
/// "```") and no comma before a closing bracket (the only other change of
/// the corrected dialect drops such commas). The same results as
/// [`extract_object`] with each dialect (`tests/epic_props.rs`,
/// `both_dialects_read_as_each`), with the reply prepared and, mostly,
/// read once.
#[allow(clippy::type_complexity)] // one result per dialect
pub fn extract_object_both(
    text: &str,
    keys: &KeySpec,
) -> (
    Result<Vec<(String, PyValue)>, Failure>,
    Option<Result<Vec<(String, PyValue)>, Failure>>,
) {
    let text = match prepare(text) {
        Ok(t) => t,
        Err(e) => return (Err(e), None),
    };
    let official = read_candidate(&text, keys, Dialect::Official);
    let may_differ = has(&text, "```") || comma_before_close(&text);
    let corrected = may_differ.then(|| read_candidate(&text, keys, Dialect::Corrected));
    (official, corrected)
}

/// Steps 1–2: the trimmed reply, think blocks removed.
fn prepare(text: &str) -> Result<Cow<'_, str>, Failure> {
    // Step 1: "If the response ... is empty after trimming → NVR."
    let text = py_strip(text);
    if text.is_empty() {
        return Err(Failure::Empty);
    }
    // Step 2: think blocks, only "if the exact lowercase text `<think>` occurs".
    if has(text, "<think>") {
        if !has(text, "</think>") {
            return Err(Failure::UnclosedThink);
        }
        static THINK: OnceLock<Regex> = OnceLock::new();
        let stripped = re(&THINK, r"(?s)<think>.*?</think>").replace_all(text, "");
        return Ok(Cow::Owned(py_strip(&stripped).to_string()));
    }
    Ok(Cow::Borrowed(text))
}

/// Steps 3–4 on a prepared reply.
fn read_candidate(
    text: &str,
    keys: &KeySpec,
    dialect: Dialect,
) -> Result<Vec<(String, PyValue)>, Failure> {
    let candidate = choose_candidate(text, keys, dialect)?;
    let json = to_json_text(candidate, keys.list_key, dialect);
    match pyjson::loads(&json) {
        Ok(PyValue::Dict(items)) => Ok(items),
        Ok(_) => Err(Failure::NotAnObject),
        Err(_) => Err(Failure::BadJson),
    }
}

/// Whether a comma is followed, after whitespace only, by `]` or `}`
/// anywhere in the text (inside quotes or not): where the corrected
/// dialect may drop a comma.
fn comma_before_close(text: &str) -> bool {
    text.match_indices(',').any(|(i, _)| {
        matches!(
            text[i + 1..].chars().find(|c| !c.is_whitespace()),
            Some(']' | '}')
        )
    })
}

/// Step 3: fenced blocks first, then the brace scan.
fn choose_candidate<'t>(
    text: &'t str,
    keys: &KeySpec,
    dialect: Dialect,
) -> Result<&'t str, Failure> {
    // The regexes are built only once a reply has a fence: each new worker
    // builds them again, which cost more than reading many replies.
    static FENCE: OnceLock<Regex> = OnceLock::new();
    static FENCE_ANY: OnceLock<Regex> = OnceLock::new();
    let blocks: Vec<&str> = if has(text, "```") {
        let fence = match dialect {
            Dialect::Official => re(&FENCE, r"(?s)```(?:json|python)?\s*\n?(.*?)\n?```"),
            Dialect::Corrected => re(&FENCE_ANY, r"(?s)```(?:[A-Za-z0-9_+-]+)?\s*\n?(.*?)\n?```"),
        };
        fence
            .captures_iter(text)
            .filter_map(|c| c.get(1).map(|m| py_strip(m.as_str())))
            .collect()
    } else {
        Vec::new()
    };
    if !keys.must_have.is_empty() {
        if let Some(b) = blocks
            .iter()
            .find(|b| keys.must_have.iter().all(|k| has(b, k)))
        {
            return Ok(b);
        }
    }
    if !keys.any_of.is_empty() {
        if let Some(b) = blocks
            .iter()
            .find(|b| keys.any_of.iter().any(|k| has(b, k)))
        {
            return Ok(b);
        }
    }
    // Brace scan: the first key of (must-have, any-of) that occurs, at its
    // first occurrence; the last '{' before it; balance braces from there.
    let pos = keys
        .must_have
        .iter()
        .chain(keys.any_of.iter())
        .find_map(|k| find(text, k))
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
    let has_all = keys.must_have.iter().all(|k| has(span, k));
    let has_any = keys.any_of.iter().any(|k| has(span, k));
    if (keys.must_have.is_empty() || !has_all) && !has_any {
        return Err(Failure::KeysMissing);
    }
    Ok(span)
}

/// Step 4 a–c: Python literals and quotes to JSON, tuples to lists inside
/// the list key's value. The corrected dialect also drops trailing commas.
///
/// Read character by character as Python does, but copied in stretches:
/// only quotes, backslashes, the first letters of `True`/`False`/`None`
/// and (corrected) commas stop the copy, all ASCII, so a stretch always
/// ends on a character boundary.
fn to_json_text(candidate: &str, list_key: &str, dialect: Dialect) -> String {
    let src: Cow<str> = if has(candidate, "\\'") {
        Cow::Owned(candidate.replace("\\'", "'"))
    } else {
        Cow::Borrowed(candidate)
    };
    let s: &str = &src;
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len() + 8);
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            if c == b'\\' {
                // The backslash and the character after it, as they are.
                out.push('\\');
                i += 1;
                if let Some(next) = s[i..].chars().next() {
                    out.push(next);
                    i += next.len_utf8();
                }
            } else if c == q {
                out.push('"');
                quote = None;
                i += 1;
            } else if c == b'"' {
                out.push_str("\\\"");
                i += 1;
            } else {
                let run = b[i..]
                    .iter()
                    .position(|&x| x == b'\\' || x == q || x == b'"')
                    .map_or(b.len(), |k| i + k);
                out.push_str(&s[i..run]);
                i = run;
            }
            continue;
        }
        match c {
            b'\'' | b'"' => {
                quote = Some(c);
                out.push('"');
                i += 1;
                continue;
            }
            b'T' | b'F' | b'N' => {
                let mut replaced = false;
                for (py, js) in [("True", "true"), ("False", "false"), ("None", "null")] {
                    let n = py.len();
                    if s[i..].starts_with(py)
                        && !s[i + n..].chars().next().is_some_and(char::is_alphanumeric)
                    {
                        out.push_str(js);
                        i += n;
                        replaced = true;
                        break;
                    }
                }
                if !replaced {
                    out.push(char::from(c));
                    i += 1;
                }
                continue;
            }
            b',' if dialect == Dialect::Corrected => {
                let next = s[i + 1..].chars().find(|c| !c.is_whitespace());
                if !matches!(next, Some(']' | '}')) {
                    out.push(',');
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        let run = b[i..]
            .iter()
            .position(|&x| {
                matches!(x, b'\'' | b'"' | b'T' | b'F' | b'N')
                    || (x == b',' && dialect == Dialect::Corrected)
            })
            .map_or(b.len(), |k| i + k);
        out.push_str(&s[i..run]);
        i = run;
    }
    tuples_to_lists(out, list_key)
}

/// "Only inside the value of `"bounding_boxes"` (or `"points"` for paths):
/// match the regex `("KEY"\s*:\s*\[)(.*?)(\]\s*[,}])` ... and, in group 2,
/// replace every `( … )` with `[ … ]`."
fn tuples_to_lists(text: String, key: &str) -> String {
    if !text.contains('(') {
        return text;
    }
    // Built only for a candidate with a parenthesis (see `choose_candidate`).
    static PAREN: OnceLock<Regex> = OnceLock::new();
    let paren = re(&PAREN, r"\(([^()]*)\)");
    static BOXES: OnceLock<Regex> = OnceLock::new();
    static POINTS: OnceLock<Regex> = OnceLock::new();
    let value_re = match key {
        "points" => re(&POINTS, r#"(?s)("points"\s*:\s*\[)(.*?)(\]\s*[,}])"#),
        _ => re(&BOXES, r#"(?s)("bounding_boxes"\s*:\s*\[)(.*?)(\]\s*[,}])"#),
    };
    value_re
        .replace_all(&text, |c: &crate::pattern::Captures<'_>| {
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

    proptest::proptest! {
        /// The reader's search finds what `str::find` finds, over an
        /// alphabet small enough for near misses, with multi-byte letters.
        #[test]
        fn find_is_str_find(hay in "[ab`{é€]{0,40}", needle in "[ab`{é€]{0,4}") {
            proptest::prop_assert_eq!(find(&hay, &needle), hay.find(needle.as_str()));
            proptest::prop_assert_eq!(has(&hay, &needle), hay.contains(needle.as_str()));
        }
    }

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
