//! The few pieces of Python semantics the official code leans on: truthiness
//! of JSON values, `str.strip`, `\d`/`\s` character classes, `float()` on
//! Unicode digits, and the `os.path` string helpers.
//!
//! The character tables were read from CPython 3.11.7 (Unicode 14.0.0), the
//! interpreter that made the fixtures, so the regex classes built here match
//! Python's `re` exactly rather than Rust's newer Unicode tables.

use serde_json::Value;

/// The code points of every Unicode decimal digit zero (category Nd) known to
/// CPython 3.11; each is followed by its digits one to nine.
///
/// Spec §5.3: "The regexes are Python `re` patterns … and use Unicode `\d`".
const DIGIT_ZEROS: [u32; 66] = [
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// Python's `str.isspace()` set, which is also what `\s` matches in a `str`
/// pattern. It differs from Rust's `White_Space` by U+001C–U+001F.
const SPACE_CLASS: &str = r"[\t\n\x0B\x0C\r\x1C-\x1F \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]";

/// A regex character class equal to Python's `\s` (for `str` patterns).
pub fn space_class() -> &'static str {
    SPACE_CLASS
}

/// A regex character class equal to Python 3.11's `\d` (for `str` patterns).
pub fn digit_class() -> String {
    let mut class = String::from("[");
    for zero in DIGIT_ZEROS {
        class.push_str(&format!("\\x{{{:X}}}-\\x{{{:X}}}", zero, zero + 9));
    }
    class.push(']');
    class
}

/// The value of a Unicode decimal digit, as Python's `float()` reads it.
pub fn digit_value(c: char) -> Option<u32> {
    let cp = c as u32;
    DIGIT_ZEROS
        .iter()
        .find(|&&zero| cp >= zero && cp <= zero + 9)
        .map(|&zero| cp - zero)
}

/// Python's `float()` on a string made only of decimal digits and dots (what
/// the coordinate patterns capture). Unicode digits are mapped to ASCII first:
/// spec §5.4, "A Rust port must map Unicode decimal digits to ASCII before
/// parsing, because `f64::from_str` rejects them."
pub fn py_float(text: &str) -> Option<f64> {
    let mut ascii = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '.' {
            ascii.push('.');
        } else {
            let digit = digit_value(c)?;
            ascii.push(char::from_digit(digit, 10)?);
        }
    }
    ascii.parse::<f64>().ok()
}

/// Python's `str.isspace()` and `str.strip()`, shared with EPIC-Bench.
pub use crate::python::{py_isspace as is_py_space, py_strip};

/// Python's truth value of a JSON value as `json.loads` returns it: `None`,
/// `False`, `0`, `0.0`, `""`, `[]` and `{}` are false.
///
/// Spec §6.3: "'Truthy' means not null, not an empty list, not 0 and not an
/// empty string."
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Truthiness of an optional field (`dict.get` returning `None` when absent).
pub fn truthy_opt(value: Option<&Value>) -> bool {
    value.is_some_and(truthy)
}

/// Python's type name for a JSON value, as error messages print it.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `TypeError` for `len()` of a value that has no length.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("object of type '{type_name}' has no len()")]
pub struct NoLen {
    /// Python's name of the value's type (`int`, `NoneType`, …).
    pub type_name: &'static str,
}

/// Python's `len()` of a JSON value, or its `TypeError`.
pub fn py_len(value: &Value) -> Result<usize, NoLen> {
    match value {
        Value::String(s) => Ok(s.chars().count()),
        Value::Array(a) => Ok(a.len()),
        Value::Object(o) => Ok(o.len()),
        other => Err(NoLen {
            type_name: type_name(other),
        }),
    }
}

/// A number Python can compare with a float (`int`, `float`, `bool`).
pub fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

/// `os.path.basename` (POSIX).
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `os.path.join` (POSIX) of two parts.
pub fn join(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_string()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// `os.path.splitext` (POSIX): the extension starts at the last dot of the
/// base name, unless that dot only leads the name.
pub fn splitext(path: &str) -> (&str, &str) {
    let base_start = path.rfind('/').map_or(0, |i| i + 1);
    let base = &path[base_start..];
    let Some(dot) = base.rfind('.') else {
        return (path, "");
    };
    if base[..dot].chars().all(|c| c == '.') {
        return (path, "");
    }
    let split = base_start + dot;
    (&path[..split], &path[split..])
}

/// The file stem of a path: base name without its extension.
pub fn stem(path: &str) -> &str {
    splitext(basename(path)).0
}

/// Python's universal-newline line iteration over a text file: lines end at
/// `\r\n`, `\r` or `\n`.
pub fn universal_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\r', '\n']) {
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
                Some(line)
            }
            None => {
                let line = rest;
                rest = "";
                Some(line)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_reads_unicode_digits() {
        assert_eq!(py_float("０.５"), Some(0.5));
        assert_eq!(py_float(".25"), Some(0.25));
        assert_eq!(py_float("00.5"), Some(0.5));
        assert_eq!(py_float("٣"), Some(3.0));
    }

    #[test]
    fn splitext_matches_posixpath() {
        assert_eq!(splitext("a/b.png"), ("a/b", ".png"));
        assert_eq!(splitext("a/.hidden"), ("a/.hidden", ""));
        assert_eq!(splitext("a.b/c"), ("a.b/c", ""));
        assert_eq!(splitext("x.tar.gz"), ("x.tar", ".gz"));
    }

    #[test]
    fn lines_split_like_python_text_mode() {
        let lines: Vec<_> = universal_lines("a\r\nb\rc\nd").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
    }
}
