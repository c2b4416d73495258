//! The official reply parser, `parse_model_response(response, model_name)`,
//! pattern for pattern (spec §5), in both builds: the released `.py` (12
//! patterns) and the shipped `.pyc` (13 patterns).
//!
//! Python `re` and Rust `regex` agree here because every coordinate pattern
//! is free of look-around and back-references and both engines are
//! leftmost-first (spec §5.7). Two classes are spelled out instead of `\d`
//! and `\s` so that they hold exactly the characters Python 3.11 accepts
//! (see [`super::python`]). The description and reasoning patterns use
//! look-ahead; they are matched by hand below, with the same results.

use std::sync::OnceLock;

use crate::pattern::Regex;
use serde::Serialize;
use serde_json::Value;

use super::python::{digit_class, py_float, py_strip, space_class};

/// Which build of the official parser to reproduce.
///
/// Spec §5.6: "Match `.py` by default and keep a switch for `.pyc`."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParserBuild {
    /// The released `LLM_eval.py`: 12 patterns.
    #[default]
    Py,
    /// The cached `LLM_eval.cpython-3*.pyc`: 13 patterns, the extra one
    /// (`"coordinate": [X, Y]`) at index 3.
    Pyc,
}

/// A parser build's name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown parser build `{0}`: expected py or pyc")]
pub struct UnknownParser(pub String);

impl std::str::FromStr for ParserBuild {
    type Err = UnknownParser;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "py" => Ok(Self::Py),
            "pyc" => Ok(Self::Pyc),
            other => Err(UnknownParser(other.to_string())),
        }
    }
}

/// How a point was obtained from a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParseRule {
    /// Coordinate pattern `index` of the build matched and was accepted.
    Pattern {
        /// Its position in the build's list, from 0.
        index: usize,
    },
    /// The text fallback for `OS-Atlas-Pro-7B` / `Qwen2.5-VL-3B-UI-R1` names
    /// (spec §5.5).
    TextFallback,
    /// A non-string reply that was a dict: returned as is (spec §5.1).
    PassThrough,
    /// Nothing accepted.
    None,
}

/// What `parse_model_response` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedReply {
    /// The normalised (x, y), or `None` on failure.
    pub coordinates: Option<[f64; 2]>,
    /// The reply's description field, as the official parser returns it.
    pub description: String,
    /// Its reasoning field, likewise.
    pub reasoning: String,
    /// Whether the parser reports success.
    pub success: bool,
    /// The parser's error message, when it reports one.
    pub error: Option<String>,
    /// Not an official field: which rule produced the point.
    pub rule: ParseRule,
}

impl ParsedReply {
    fn failure(error: String) -> Self {
        Self {
            coordinates: None,
            description: String::new(),
            reasoning: String::new(),
            success: false,
            error: Some(error),
            rule: ParseRule::None,
        }
    }
}

/// The `N` sub-pattern: `\d*\.?\d+`.
fn number(d: &str) -> String {
    format!(r"{d}*\.?{d}+")
}

/// The released 12 patterns, in order, with Python's `\d`/`\s` spelled out.
fn py_patterns() -> Vec<String> {
    let d = digit_class();
    let s = space_class();
    let n = number(&d);
    vec![
        format!(r"<point>\[\[({d}+){s}*,{s}*({d}+)\]\]</point>"),
        format!(r#"<points{s}+x1="({d}+)"{s}+y1="({d}+)""#),
        // Python's `\>` is a plain `>`; in Rust regex it is a word boundary.
        format!(r"<\|box_start\|>\[\[({n}),{s}*({n}),{s}*{n},{s}*{n}\]\]<\|box_end\|>"),
        format!(r"Interaction{s}+Coordinates[：:]{s}*\[({n}){s}*,{s}*({n})\]"),
        format!(r"2\.{s}*Interaction{s}+Coordinates[：:]{s}*\[({n}){s}*,?{s}*({n})?\]?"),
        format!(r"2\.{s}*Interaction{s}+Coordinates[：:]{s}*\[({n})"),
        format!(r"\[({n}){s}*,{s}*({n})\]"),
        format!(r"\(({n}){s}*,{s}*({n})\)"),
        format!(r"坐标[：:]{s}*\[?({n}){s}*,{s}*({n})\]?"),
        format!(r"Coordinates[：:]{s}*\[?({n}){s}*,{s}*({n})\]?"),
        format!(r"\(({d}+),{s}*({d}+)\)"),
        format!(r"({n}){s}*,{s}*({n})"),
    ]
}

/// The `.pyc` list: the released one with `"coordinate":\s*\[(\d+),\s*(\d+)\]`
/// inserted at index 3 (spec §5.6).
fn pyc_patterns() -> Vec<String> {
    let d = digit_class();
    let s = space_class();
    let mut patterns = py_patterns();
    patterns.insert(3, format!(r#""coordinate":{s}*\[({d}+),{s}*({d}+)\]"#));
    patterns
}

struct Compiled {
    py: Vec<Regex>,
    pyc: Vec<Regex>,
    description: Regex,
    description_numbered: Regex,
    reasoning: Regex,
    reasoning_numbered: Regex,
    locations: Vec<Regex>,
}

fn compile(pattern: &str) -> Regex {
    // The patterns are constants of this file; a failure is a bug caught by
    // every test, not an input error.
    #[allow(clippy::expect_used)]
    Regex::new(pattern).expect("constant pattern compiles")
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let s = space_class();
        // Python `\w` in a str pattern: alphanumerics (`str.isalnum`) and `_`.
        let w = r"[\p{L}\p{N}_]";
        Compiled {
            py: py_patterns().iter().map(|p| compile(p)).collect(),
            pyc: pyc_patterns().iter().map(|p| compile(p)).collect(),
            description: compile(&format!(r"(?:Component Description|组件描述)[：:]{s}*")),
            description_numbered: compile(&format!(r"1\.{s}*")),
            reasoning: compile(&format!(r"(?:Reasoning|判断依据)[：:]{s}*")),
            reasoning_numbered: compile(&format!(r"3\.{s}*")),
            locations: [
                format!(r"(?i)located at the ({w}+){s}*({w}+)"),
                format!(r"(?i)at the ({w}+){s}*({w}+)"),
                format!(r"(?i)in the ({w}+){s}*({w}+)"),
            ]
            .iter()
            .map(|p| compile(p))
            .collect(),
        }
    })
}

/// The released pattern strings of a build, for display.
pub fn pattern_count(build: ParserBuild) -> usize {
    match build {
        ParserBuild::Py => 12,
        ParserBuild::Pyc => 13,
    }
}

fn has(model: Option<&str>, needle: &str) -> bool {
    model.is_some_and(|m| m.contains(needle))
}

/// Spec §5.2: the line clean-ups keyed on the model name.
fn preprocess(response: &str, model: Option<&str>) -> String {
    let mut text = response.to_string();
    if has(model, "OS-Atlas-Pro-7B") {
        let mut seen: Vec<&str> = Vec::new();
        let mut lines: Vec<&str> = Vec::new();
        for line in text.split('\n').map(py_strip) {
            if line.starts_with("actions:") {
                if !seen.contains(&line) {
                    seen.push(line);
                    lines.push(line);
                }
            } else {
                lines.push(line);
            }
        }
        text = lines.join("\n");
    }
    if has(model, "Qwen2.5-VL-3B-UI-R1") {
        let mut lines: Vec<&str> = Vec::new();
        for line in text.split('\n').map(py_strip) {
            if !line.is_empty() && !lines.contains(&line) {
                lines.push(line);
            }
        }
        text = lines.join("\n");
    }
    text
}

/// Applies the index-keyed normalisation of spec §5.3 (and §5.6 for `.pyc`,
/// where the same indices fall on other patterns).
fn normalise(index: usize, last: usize, mut x: f64, mut y: f64, model: Option<&str>) -> (f64, f64) {
    match index {
        // "If max(x, y) > 1024, divide both by 1920; otherwise divide both by
        // 1024 (always divided)."
        0 => {
            let div = if x.max(y) > 1024.0 { 1920.0 } else { 1024.0 };
            x /= div;
            y /= div;
        }
        1 if x > 1.0 || y > 1.0 => {
            if has(model, "Jedi") && has(model, "1080p") {
                x /= 1920.0;
                y /= 1080.0;
            } else {
                x /= 1024.0;
                y /= 1024.0;
            }
        }
        3 if x > 1.0 || y > 1.0 => {
            if has(model, "InfiGUI") && x.max(y) > 1080.0 {
                x /= 1920.0;
                y /= 1920.0;
            } else {
                x /= 1920.0;
                y /= 1080.0;
            }
        }
        // Step A: "divide both by 1000 unconditionally" for UGround/Qwen2-VL.
        11 => {
            if has(model, "OS-Atlas") {
                if x > 1.0 || y > 1.0 {
                    x /= 1000.0;
                    y /= 1000.0;
                }
            } else if has(model, "UGround") || has(model, "Qwen2-VL") {
                x /= 1000.0;
                y /= 1000.0;
            } else if has(model, "Qwen2.5-VL-3B-UI-R1") && (x > 1.0 || y > 1.0) {
                x /= 1024.0;
                y /= 1024.0;
            }
        }
        _ => {}
    }
    // Step B, "the last pattern" rule, applied after step A (Q5: "double
    // division").
    if index == last && (x > 1.0 || y > 1.0) {
        let div = if has(model, "OS-Atlas") || has(model, "UGround") || has(model, "Qwen2-VL") {
            1000.0
        } else {
            1024.0
        };
        x /= div;
        y /= div;
    }
    (x, y)
}

/// The official parser on a reply text. Never panics.
///
/// `model` is the configured model key; `None` stands for Python's `None`
/// (no name). All name rules are case-sensitive substring tests (spec §5).
pub fn parse_reply(response: &str, model: Option<&str>, build: ParserBuild) -> ParsedReply {
    let c = compiled();
    let text = preprocess(response, model);
    let patterns = match build {
        ParserBuild::Py => &c.py,
        ParserBuild::Pyc => &c.pyc,
    };
    let last = patterns.len() - 1;
    let mut out = ParsedReply {
        coordinates: None,
        description: String::new(),
        reasoning: String::new(),
        success: false,
        error: None,
        rule: ParseRule::None,
    };
    // Spec §5.4: only the first (leftmost) match of each pattern is tried.
    for (index, pattern) in patterns.iter().enumerate() {
        let Some(caps) = pattern.captures(&text) else {
            continue;
        };
        let Some(x) = caps.get(1).and_then(|m| py_float(m.as_str())) else {
            continue;
        };
        // "If group 2 is absent or does not exist, go to the next pattern."
        let Some(y) = caps.get(2).and_then(|m| py_float(m.as_str())) else {
            continue;
        };
        let (x, y) = normalise(index, last, x, y, model);
        if (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y) {
            out.coordinates = Some([x, y]);
            out.success = true;
            out.rule = ParseRule::Pattern { index };
            break;
        }
    }
    out.description = first_line_capture(&text, &c.description, false)
        .or_else(|| first_line_capture(&text, &c.description_numbered, true))
        .map(|s| py_strip(s).to_string())
        .unwrap_or_default();
    out.reasoning = first_line_capture(&text, &c.reasoning, false)
        .or_else(|| first_line_capture(&text, &c.reasoning_numbered, false))
        .map(|s| py_strip(s).to_string())
        .unwrap_or_default();

    if out.coordinates.is_none()
        && (has(model, "OS-Atlas-Pro-7B") || has(model, "Qwen2.5-VL-3B-UI-R1"))
    {
        text_fallback(&text, &mut out, &c.locations);
    }
    if out.coordinates.is_none() {
        out.error = Some("No valid coordinates found in response".to_string());
    }
    out
}

/// The official parser on a reply that is not a string (spec §5.1): a dict
/// with `error` gives no point, any other dict is returned unchanged, any
/// other value is an error.
pub fn parse_value(response: &Value, model: Option<&str>, build: ParserBuild) -> ParsedReply {
    match response {
        Value::String(s) => parse_reply(s, model, build),
        Value::Object(map) => {
            if let Some(err) = map.get("error") {
                let message = match err {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                return ParsedReply::failure(message);
            }
            let coordinates = map.get("coordinates").and_then(|v| {
                let a = v.as_array()?;
                match a.as_slice() {
                    [x, y] => Some([x.as_f64()?, y.as_f64()?]),
                    _ => None,
                }
            });
            ParsedReply {
                coordinates,
                description: String::new(),
                reasoning: String::new(),
                success: map.get("success").and_then(Value::as_bool).unwrap_or(false),
                error: None,
                rule: ParseRule::PassThrough,
            }
        }
        other => ParsedReply::failure(format!(
            "Unexpected response type: <class '{}'>",
            super::python::type_name(other)
        )),
    }
}

/// Matches `prefix(.+?)(?=\n|$)` (or `(?=\n|2\.|\Z)` when `stop_at_two`) the
/// way Python does, where `prefix` is a literal label and a greedy `\s*` that
/// may give characters back. Returns the captured group.
fn first_line_capture<'t>(text: &'t str, prefix: &Regex, stop_at_two: bool) -> Option<&'t str> {
    let mut from = 0;
    while let Some(m) = prefix.find_at(text, from) {
        let label_end = start_of_trailing_space(text, m.start(), m.end());
        let mut end = m.end();
        loop {
            if let Some(first) = text[end..].chars().next() {
                if first != '\n' {
                    let mut stop = end + first.len_utf8();
                    while stop < text.len() {
                        let rest = &text[stop..];
                        if rest.starts_with('\n') || (stop_at_two && rest.starts_with("2.")) {
                            break;
                        }
                        stop += rest.chars().next().map_or(1, char::len_utf8);
                    }
                    return Some(&text[end..stop]);
                }
            }
            // The greedy `\s*` gives back one character and `.+?` retries.
            match text[label_end..end].chars().next_back() {
                Some(last) => end -= last.len_utf8(),
                None => break,
            }
        }
        from = m.start() + text[m.start()..].chars().next().map_or(1, char::len_utf8);
        if from > text.len() {
            break;
        }
    }
    None
}

/// Where the `\s*` of a prefix match starts: the labels end in `:`, `：` or
/// `.`, never in white space.
fn start_of_trailing_space(text: &str, start: usize, end: usize) -> usize {
    let trimmed = text[start..end].trim_end_matches(super::python::is_py_space);
    start + trimmed.len()
}

/// Spec §5.5: position words to a coarse point.
fn text_fallback(text: &str, out: &mut ParsedReply, patterns: &[Regex]) {
    for pattern in patterns {
        let Some(caps) = pattern.captures(text) else {
            continue;
        };
        let (Some(a), Some(b)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        let pos1 = a.as_str().to_lowercase();
        let pos2 = b.as_str().to_lowercase();
        let (mut x, mut y) = (0.5, 0.5);
        if pos1.contains("upper") || pos1.contains("top") {
            y = 0.25;
        } else if pos1.contains("lower") || pos1.contains("bottom") {
            y = 0.75;
        }
        if pos2.contains("left") {
            x = 0.25;
        } else if pos2.contains("right") {
            x = 0.75;
        }
        if pos2.contains("upper") || pos2.contains("top") {
            y = 0.25;
        } else if pos2.contains("lower") || pos2.contains("bottom") {
            y = 0.75;
        }
        out.coordinates = Some([x, y]);
        out.success = true;
        out.rule = ParseRule::TextFallback;
        out.description = format!("Estimated from location description: {pos1} {pos2}");
        out.reasoning = "Coordinates estimated from textual location description".to_string();
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_beats_position() {
        let r = parse_reply(
            "I first considered [0.9, 0.9]. Then: 2. Interaction Coordinates: [0.2, 0.3]",
            None,
            ParserBuild::Py,
        );
        assert_eq!(r.coordinates, Some([0.2, 0.3]));
    }

    #[test]
    fn uground_decimals_shrink_in_py_only() {
        let py = parse_reply("0.25, 0.75", Some("UGround-V1-7B"), ParserBuild::Py);
        assert_eq!(py.coordinates, Some([0.25 / 1000.0, 0.75 / 1000.0]));
        let pyc = parse_reply("0.25, 0.75", Some("UGround-V1-7B"), ParserBuild::Pyc);
        assert_eq!(pyc.coordinates, Some([0.25, 0.75]));
    }

    #[test]
    fn center_splits_into_two_words() {
        let r = parse_reply(
            "It is in the center.",
            Some("OS-Atlas-Pro-7B"),
            ParserBuild::Py,
        );
        assert_eq!(r.coordinates, Some([0.5, 0.5]));
        assert_eq!(
            r.description,
            "Estimated from location description: cente r"
        );
    }
}
