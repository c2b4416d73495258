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
    let mut r = Reader::new(text);
    r.ws();
    let v = r.value()?;
    r.finish()?;
    Ok(v)
}

/// A cursor over one JSON document, for readers that want part of it as
/// values and the rest only checked ([`Reader::skip_value`]): the grammar
/// of [`loads`] in one place, so a reader that skips accepts exactly the
/// documents `loads` accepts.
pub struct Reader<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
    depth: usize,
}

/// A member's key, as [`Reader::next_member`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The byte span of the key's text between its quotes.
    pub span: std::ops::Range<usize>,
    /// Whether the text holds an escape (then [`Reader::key_text`]
    /// decodes it; otherwise the span is the key).
    pub escaped: bool,
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Reader {
            b: text.as_bytes(),
            s: text,
            i: 0,
            depth: 0,
        }
    }

    /// The whole document's text.
    pub fn text(&self) -> &'a str {
        self.s
    }

    /// The byte offset of the cursor.
    pub fn pos(&self) -> usize {
        self.i
    }

    /// The byte at the cursor, if any.
    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn err(&self, reason: &'static str) -> JsonError {
        JsonError {
            offset: self.i,
            reason,
        }
    }

    /// Skips JSON whitespace (`[ \t\n\r]` only, as Python's parser).
    pub fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    /// Ends the document: only whitespace may follow.
    pub fn finish(&mut self) -> Result<(), JsonError> {
        self.ws();
        if self.i != self.b.len() {
            return Err(self.err("extra data"));
        }
        Ok(())
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.b[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    /// Reads the value at the cursor.
    pub fn value(&mut self) -> Result<PyValue, JsonError> {
        self.any::<true>()
    }

    /// Checks the value at the cursor as [`Reader::value`] would read it,
    /// building nothing; gives its byte span.
    pub fn skip_value(&mut self) -> Result<std::ops::Range<usize>, JsonError> {
        let start = self.i;
        self.any::<false>()?;
        Ok(start..self.i)
    }

    /// The value at the cursor; with `BUILD` false only checked (the
    /// result is then `None`).
    fn any<const BUILD: bool>(&mut self) -> Result<PyValue, JsonError> {
        let Some(&c) = self.b.get(self.i) else {
            return Err(self.err("expecting value"));
        };
        match c {
            b'{' => self.object::<BUILD>(),
            b'[' => self.array::<BUILD>(),
            b'"' => self.string::<BUILD>().map(PyValue::Str),
            b'n' if self.eat("null") => Ok(PyValue::None),
            b't' if self.eat("true") => Ok(PyValue::Bool(true)),
            b'f' if self.eat("false") => Ok(PyValue::Bool(false)),
            b'N' if self.eat("NaN") => Ok(PyValue::Float(f64::NAN)),
            b'I' if self.eat("Infinity") => Ok(PyValue::Float(f64::INFINITY)),
            b'-' if self.eat("-Infinity") => Ok(PyValue::Float(f64::NEG_INFINITY)),
            b'-' | b'0'..=b'9' => self.number::<BUILD>(),
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

    /// Steps into the object at the cursor (which must be at its `{`);
    /// [`Reader::next_member`] then gives its members.
    pub fn begin_object(&mut self) -> Result<Members, JsonError> {
        self.enter()?;
        self.i += 1;
        Ok(Members { first: true })
    }

    /// The next member's key of the object `members` walks, the cursor
    /// left at its value (which the caller reads or skips before asking
    /// again); `None` after the object's closing brace.
    pub fn next_member(&mut self, members: &mut Members) -> Result<Option<Key>, JsonError> {
        self.ws();
        if members.first {
            members.first = false;
            if self.b.get(self.i) == Some(&b'}') {
                self.i += 1;
                self.depth -= 1;
                return Ok(None);
            }
        } else {
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(None);
                }
                _ => return Err(self.err("expecting ',' delimiter")),
            }
            self.ws();
        }
        if self.b.get(self.i) != Some(&b'"') {
            return Err(self.err("expecting property name enclosed in double quotes"));
        }
        let start = self.i + 1;
        self.string::<false>()?;
        let span = start..self.i - 1;
        let key = Key {
            escaped: self.b[span.clone()].contains(&b'\\'),
            span,
        };
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return Err(self.err("expecting ':' delimiter"));
        }
        self.i += 1;
        self.ws();
        Ok(Some(key))
    }

    /// A key's text: borrowed from the document unless it holds an escape.
    pub fn key_text(&self, key: &Key) -> std::borrow::Cow<'a, str> {
        let raw = &self.s[key.span.clone()];
        if !key.escaped {
            return std::borrow::Cow::Borrowed(raw);
        }
        let mut r = Reader::new(&self.s[key.span.start - 1..]);
        std::borrow::Cow::Owned(r.string::<true>().unwrap_or_default())
    }

    fn object<const BUILD: bool>(&mut self) -> Result<PyValue, JsonError> {
        let mut members = self.begin_object()?;
        let mut items: Vec<(String, PyValue)> = Vec::new();
        while let Some(key) = self.next_member(&mut members)? {
            let v = self.any::<BUILD>()?;
            if BUILD {
                PyValue::dict_insert(&mut items, self.key_text(&key).into_owned(), v);
            }
        }
        Ok(if BUILD {
            PyValue::Dict(items)
        } else {
            PyValue::None
        })
    }

    fn array<const BUILD: bool>(&mut self) -> Result<PyValue, JsonError> {
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
            let v = self.any::<BUILD>()?;
            if BUILD {
                items.push(v);
            }
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(if BUILD {
                        PyValue::List(items)
                    } else {
                        PyValue::None
                    });
                }
                _ => return Err(self.err("expecting ',' delimiter")),
            }
        }
    }

    fn number<const BUILD: bool>(&mut self) -> Result<PyValue, JsonError> {
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
        if !BUILD {
            // What the grammar above accepted always converts: an int too
            // large for i128 is read as a float, and any such float text
            // parses (to an infinity at worst).
            return Ok(PyValue::None);
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

    /// The string at the cursor; with `BUILD` false only checked (the
    /// result is then empty and nothing is allocated).
    fn string<const BUILD: bool>(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        // Fast path: no escape before the closing quote (keys, most RLE
        // counts) is one exact allocation; otherwise the raw length up to
        // the next quote is a good first capacity, so the pushes below do
        // not regrow the string character by character.
        let rest = &self.b[self.i..];
        let stop = string_stop(rest);
        if rest.get(stop) == Some(&b'"') {
            let out = if BUILD {
                self.s[self.i..self.i + stop].to_string()
            } else {
                String::new()
            };
            self.i += stop + 1;
            return Ok(out);
        }
        let mut out = String::with_capacity(if BUILD { stop + 16 } else { 0 });
        let push = |out: &mut String, c: char| {
            if BUILD {
                out.push(c);
            }
        };
        loop {
            let start = self.i;
            self.i += string_stop(&self.b[self.i..]);
            if BUILD {
                out.push_str(&self.s[start..self.i]);
            }
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
                        b'"' => push(&mut out, '"'),
                        b'\\' => push(&mut out, '\\'),
                        b'/' => push(&mut out, '/'),
                        b'b' => push(&mut out, '\u{8}'),
                        b'f' => push(&mut out, '\u{c}'),
                        b'n' => push(&mut out, '\n'),
                        b'r' => push(&mut out, '\r'),
                        b't' => push(&mut out, '\t'),
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
                            push(&mut out, c.unwrap_or('\u{FFFD}'));
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

/// The offset of the first byte of `b` that ends a plain stretch of a
/// JSON string: a quote, a backslash or a control character (below
/// 0x20); `b.len()` when there is none. Eight bytes are tested at a time
/// (`(x - 0x01…01) & !x & 0x80…80` flags the bytes of `x` that are zero,
/// or with `0x20…20` those below 0x20; a flag can be wrong only above a
/// right one, so the lowest flag is the first such byte): an RLE counts
/// string is most of a GT file.
pub fn string_stop(b: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let quote = w ^ (ONES * u64::from(b'"'));
        let slash = w ^ (ONES * u64::from(b'\\'));
        let hit = ((quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash)
            | (w.wrapping_sub(ONES * 0x20) & !w))
            & HIGH;
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    b[i..]
        .iter()
        .position(|&c| matches!(c, b'"' | b'\\' | 0..=0x1f))
        .map_or(b.len(), |k| i + k)
}

/// Where [`Reader::next_member`] is in an object.
#[derive(Debug)]
pub struct Members {
    first: bool,
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
    fn string_stop_finds_the_first_special_byte() {
        use proptest::prelude::*;
        let bytes = prop::collection::vec(
            prop_oneof![
                4 => 0x20u8..0x80,
                1 => Just(b'"'),
                1 => Just(b'\\'),
                1 => 0u8..0x20,
                1 => 0x80u8..=0xff,
            ],
            0..40,
        );
        proptest!(|(b in bytes)| {
            let slow = b
                .iter()
                .position(|&c| matches!(c, b'"' | b'\\' | 0..=0x1f))
                .unwrap_or(b.len());
            prop_assert_eq!(string_stop(&b), slow);
        });
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(10_000);
        assert!(loads(&deep).is_err());
    }
}
