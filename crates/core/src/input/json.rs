//! JSON as every reader takes it: decoded by [`super::text::decode`],
//! checked for duplicate keys, then parsed by `serde_json` (whose recursion
//! limit, [`super::limits::MAX_JSON_DEPTH`], stays on).
//!
//! `serde_json` keeps the last of two equal keys without a word (two
//! `"On"` states would merge into one); [`check_unique_keys`] refuses them
//! first, with both positions, in one linear pass.

use std::collections::HashMap;

use serde::de::DeserializeOwned;

use super::text::position;
use super::InputError;

/// Why a JSON document was refused: the input rule broken, or `serde_json`'s
/// own error (syntax or shape), with its line and column. Clone and
/// comparable, so the errors of every reader can keep it whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// The text broke an input rule (its encoding, a duplicate key).
    Input(InputError),
    /// The JSON is malformed or of the wrong shape.
    Parse(ParseError),
}

/// `serde_json`'s error as what it says and where. Its text is the one
/// foreign message here (the parser's, naming what it found), kept as
/// text because `serde_json::Error` can be neither cloned nor compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The line, from 1 (0 when the parser gives none).
    pub line: usize,
    /// The column, from 1 (0 when the parser gives none).
    pub column: usize,
    /// What kind of error.
    pub kind: ParseKind,
    message: String,
}

/// The kinds of [`ParseError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseKind {
    /// Not JSON.
    Syntax,
    /// JSON of another shape than the one expected.
    Data,
    /// The text ends in the middle of a value.
    Eof,
    /// The reader failed.
    Io,
}

impl From<serde_json::Error> for ParseError {
    fn from(e: serde_json::Error) -> Self {
        use serde_json::error::Category;
        ParseError {
            line: e.line(),
            column: e.column(),
            kind: match e.classify() {
                Category::Syntax => ParseKind::Syntax,
                Category::Data => ParseKind::Data,
                Category::Eof => ParseKind::Eof,
                Category::Io => ParseKind::Io,
            },
            message: e.to_string(),
        }
    }
}

impl ParseError {
    /// The parser's message, as `serde_json` words it (with " at line L
    /// column C" when it gives a position).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Input(e) => std::fmt::Display::fmt(e, f),
            JsonError::Parse(e) => std::fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for JsonError {}

impl From<InputError> for JsonError {
    fn from(e: InputError) -> Self {
        JsonError::Input(e)
    }
}

/// Parses `bytes` as one JSON document into `T`: decoded (BOM stripped,
/// other encodings named), duplicate keys refused, then `serde_json`.
///
/// ```
/// use knoblab_core::input::json::from_bytes;
/// let v: serde_json::Value = from_bytes(b"\xEF\xBB\xBF{\"a\": 1}").unwrap();
/// assert_eq!(v["a"], 1);
/// let err = from_bytes::<serde_json::Value>(b"{\"On\": 1,\n \"On\": 2}").unwrap_err();
/// assert!(err.to_string().contains("line 1, column 2 and at line 2, column 2"), "{err}");
/// ```
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, JsonError> {
    from_text(super::text::decode(bytes)?)
}

/// [`from_bytes`] for text already decoded.
pub fn from_text<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    check_unique_keys(text)?;
    #[allow(
        clippy::disallowed_methods,
        reason = "the input layer's one JSON parse, after the text rule and the key check"
    )]
    serde_json::from_str(text).map_err(|e| JsonError::Parse(e.into()))
}

/// Refuses a JSON text in which one object has the same key twice, naming
/// the key and both positions (1-based line and column in characters).
/// One pass, memory linear in the keys; text that is not valid JSON is left
/// to the parser to report (this only looks at keys).
pub fn check_unique_keys(text: &str) -> Result<(), InputError> {
    enum Frame<'a> {
        Object {
            keys: HashMap<std::borrow::Cow<'a, str>, usize>,
            expect_key: bool,
        },
        Array,
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => stack.push(Frame::Object {
                keys: HashMap::new(),
                expect_key: true,
            }),
            b'[' => stack.push(Frame::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Object { expect_key, .. }) = stack.last_mut() {
                    *expect_key = true;
                }
            }
            b'"' => {
                let start = i;
                let mut escaped = false;
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => {
                            escaped = true;
                            i += 1;
                        }
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
                if i >= bytes.len() {
                    // An unterminated string: the parser says where.
                    return Ok(());
                }
                if let Some(Frame::Object { keys, expect_key }) = stack.last_mut() {
                    if *expect_key {
                        *expect_key = false;
                        let raw = &text[start..=i];
                        let key: std::borrow::Cow<'_, str> = if escaped {
                            #[allow(
                                clippy::disallowed_methods,
                                reason = "decodes one escaped key string inside the layer"
                            )]
                            let decoded = serde_json::from_str::<String>(raw);
                            match decoded {
                                Ok(k) => k.into(),
                                Err(_) => raw.into(),
                            }
                        } else {
                            raw[1..raw.len() - 1].into()
                        };
                        if let Some(&first) = keys.get(&key) {
                            let (first_line, first_column) = position(text, first);
                            let (line, column) = position(text, start);
                            return Err(InputError::DuplicateKey {
                                key: super::text::escape_controls(&key).into_owned(),
                                first_line,
                                first_column,
                                line,
                                column,
                            });
                        }
                        keys.insert(key, start);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_with_both_positions() {
        let text = "{\"states\": {\n  \"On\": {},\n  \"Off\": {},\n  \"On\": {\"x\": 1}\n}}";
        assert_eq!(
            check_unique_keys(text).unwrap_err(),
            InputError::DuplicateKey {
                key: "On".into(),
                first_line: 2,
                first_column: 3,
                line: 4,
                column: 3,
            }
        );
    }

    #[test]
    fn equal_keys_in_different_objects_and_values_are_fine() {
        check_unique_keys(r#"[{"a": "a"}, {"a": ["a", "a"]}, {"b": {"a": 1}, "a": "b,\"a\""}]"#)
            .unwrap();
        check_unique_keys("").unwrap();
        check_unique_keys("{\"a\": 1, \"a").unwrap();
    }

    #[test]
    fn escaped_spellings_of_one_key_are_one_key() {
        let err = check_unique_keys(r#"{"On": 1, "\u004fn": 2}"#).unwrap_err();
        assert!(matches!(err, InputError::DuplicateKey { ref key, .. } if key == "On"));
    }

    #[test]
    fn a_long_document_is_checked_in_one_pass() {
        let mut text = String::from("{");
        for i in 0..200_000 {
            text.push_str(&format!("\"k{i}\": [{i}, {{\"k\": {i}}}],"));
        }
        text.push_str("\"k7\": 0}");
        let err = check_unique_keys(&text).unwrap_err();
        assert!(matches!(err, InputError::DuplicateKey { ref key, .. } if key == "k7"));
    }
}
