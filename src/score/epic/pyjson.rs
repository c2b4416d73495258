//! Python's `json.loads` and `json.dumps(ensure_ascii=False)`, as the
//! official formatter and scorer use them.
//!
//! `json.loads` differs from strict JSON in ways the spec relies on: "Python's
//! parser also accepts `NaN`, `Infinity` and `-Infinity`" while "trailing
//! commas are rejected" (§4.3 step 4d); ints and floats stay distinct, and a
//! duplicated key keeps its first position with the last value.

use super::pyvalue::{float_repr, PyValue};
use thiserror::Error;

/// Why a text is not a JSON document for Python.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid JSON at byte {offset}: {reason}")]
pub struct JsonError {
    /// Byte offset in the text where parsing failed.
    pub offset: usize,
    /// What was wrong there.
    pub reason: &'static str,
}

/// Nesting deeper than this is refused instead of risking the stack
/// (Python's own limit is about 1000 as well).
const MAX_DEPTH: usize = 512;

/// Parses one JSON document with `json.loads` semantics (strict strings,
/// `NaN`/`Infinity` literals, whitespace only `[ \t\n\r]`).
pub fn loads(text: &str) -> Result<PyValue, JsonError> {
    let mut p = Parser {
        b: text.as_bytes(),
        s: text,
        i: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.b.len() {
        return Err(p.err("extra data"));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, reason: &'static str) -> JsonError {
        JsonError {
            offset: self.i,
            reason,
        }
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.b[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<PyValue, JsonError> {
        let Some(&c) = self.b.get(self.i) else {
            return Err(self.err("expecting value"));
        };
        match c {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string().map(PyValue::Str),
            b'n' if self.eat("null") => Ok(PyValue::None),
            b't' if self.eat("true") => Ok(PyValue::Bool(true)),
            b'f' if self.eat("false") => Ok(PyValue::Bool(false)),
            b'N' if self.eat("NaN") => Ok(PyValue::Float(f64::NAN)),
            b'I' if self.eat("Infinity") => Ok(PyValue::Float(f64::INFINITY)),
            b'-' if self.eat("-Infinity") => Ok(PyValue::Float(f64::NEG_INFINITY)),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.err("expecting value")),
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        Ok(())
    }

    fn object(&mut self) -> Result<PyValue, JsonError> {
        self.enter()?;
        self.i += 1;
        let mut items: Vec<(String, PyValue)> = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(PyValue::Dict(items));
        }
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                return Err(self.err("expecting property name enclosed in double quotes"));
            }
            let key = self.string()?;
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return Err(self.err("expecting ':' delimiter"));
            }
            self.i += 1;
            self.ws();
            let v = self.value()?;
            PyValue::dict_insert(&mut items, key, v);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(PyValue::Dict(items));
                }
                _ => return Err(self.err("expecting ',' delimiter")),
            }
        }
    }

    fn array(&mut self) -> Result<PyValue, JsonError> {
        self.enter()?;
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(PyValue::List(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(PyValue::List(items));
                }
                _ => return Err(self.err("expecting ',' delimiter")),
            }
        }
    }

    fn number(&mut self) -> Result<PyValue, JsonError> {
        let start = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
            }
            _ => return Err(self.err("expecting value")),
        }
        let mut is_float = false;
        if self.b.get(self.i) == Some(&b'.')
            && self.b.get(self.i + 1).is_some_and(u8::is_ascii_digit)
        {
            is_float = true;
            self.i += 1;
            while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                is_float = true;
                while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
            } else {
                self.i = save;
            }
        }
        let text = &self.s[start..self.i];
        if !is_float {
            if let Ok(v) = text.parse::<i128>() {
                return Ok(PyValue::Int(v));
            }
        }
        text.parse::<f64>()
            .map(PyValue::Float)
            .map_err(|_| self.err("bad number"))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        // Fast path: no escape before the closing quote (keys, most RLE
        // counts) is one exact allocation; otherwise the raw length up to
        // the next quote is a good first capacity, so the pushes below do
        // not regrow the string character by character.
        let rest = &self.b[self.i..];
        let stop = rest
            .iter()
            .position(|&c| matches!(c, b'"' | b'\\' | 0..=0x1f))
            .unwrap_or(rest.len());
        if rest.get(stop) == Some(&b'"') {
            let out = self.s[self.i..self.i + stop].to_string();
            self.i += stop + 1;
            return Ok(out);
        }
        let mut out = String::with_capacity(stop + 16);
        loop {
            let start = self.i;
            while self.i < self.b.len() && !matches!(self.b[self.i], b'"' | b'\\' | 0..=0x1f) {
                self.i += 1;
            }
            out.push_str(&self.s[start..self.i]);
            match self.b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(&e) = self.b.get(self.i) else {
                        return Err(self.err("unterminated string"));
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi)
                                && self.b[self.i..].starts_with(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                } else {
                                    self.i = save;
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            // A lone surrogate cannot live in a Rust string.
                            out.push(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.err("invalid \\escape")),
                    }
                }
                Some(_) => return Err(self.err("invalid control character")),
                None => return Err(self.err("unterminated string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("invalid \\uXXXX escape"))?;
        self.i += 4;
        Ok(h)
    }
}

impl PyValue {
    /// Python's `str(v)` for the scalar cases the formatter uses; a list
    /// or a dict is written as `json.dumps` writes it (so this lives with
    /// `dumps`, and the value type needs nothing from here).
    pub fn py_str(&self) -> String {
        match self {
            PyValue::None => "None".into(),
            PyValue::Bool(true) => "True".into(),
            PyValue::Bool(false) => "False".into(),
            PyValue::Int(i) => i.to_string(),
            PyValue::Float(f) => float_repr(*f),
            PyValue::Str(s) => s.clone(),
            other => dumps(other),
        }
    }
}

/// `json.dumps(v, ensure_ascii=False)` with the default separators
/// (`", "` and `": "`), floats as `repr`, non-finite as `NaN`/`Infinity`.
pub fn dumps(v: &PyValue) -> String {
    let mut out = String::new();
    dump_into(v, &mut out);
    out
}

fn dump_into(v: &PyValue, out: &mut String) {
    match v {
        PyValue::None => out.push_str("null"),
        PyValue::Bool(true) => out.push_str("true"),
        PyValue::Bool(false) => out.push_str("false"),
        PyValue::Int(i) => out.push_str(&i.to_string()),
        PyValue::Float(f) => {
            if f.is_nan() {
                out.push_str("NaN");
            } else if f.is_infinite() {
                out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" });
            } else {
                out.push_str(&float_repr(*f));
            }
        }
        PyValue::Str(s) => dump_str(s, out),
        PyValue::List(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                dump_into(item, out);
            }
            out.push(']');
        }
        PyValue::Dict(items) => {
            out.push('{');
            for (k, (key, item)) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                dump_str(key, out);
                out.push_str(": ");
                dump_into(item, out);
            }
            out.push('}');
        }
    }
}

fn dump_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_literals_and_types() {
        let v = loads(r#"{"a": NaN, "b": -Infinity, "c": 1, "d": 1.0, "a": 2}"#).unwrap();
        assert_eq!(dumps(&v), r#"{"a": 2, "b": -Infinity, "c": 1, "d": 1.0}"#);
    }

    #[test]
    fn trailing_comma_and_leading_zero_are_errors() {
        assert!(loads(r#"{"a": 1,}"#).is_err());
        assert!(loads("[1, 2,]").is_err());
        assert!(loads("01").is_err());
        assert!(loads("1.").is_err());
    }

    #[test]
    fn strings_escape_like_python() {
        let v = loads(r#""é\u00e9\n\"""#).unwrap();
        assert_eq!(dumps(&v), "\"éé\\n\\\"\"");
        assert!(loads("\"a\tb\"").is_err());
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(10_000);
        assert!(loads(&deep).is_err());
    }
}
