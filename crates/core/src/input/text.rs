//! One text decoding rule for every reader: UTF-8, with a leading
//! byte-order mark stripped. UTF-16 and UTF-32 (with or without a mark) are
//! named, not guessed at; invalid UTF-8 is located by line and column.
//! And the one rule for printing text that came from a file:
//! [`escape_controls`].

use std::borrow::Cow;

use super::InputError;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The text of `bytes`: UTF-8 with a leading byte-order mark stripped.
/// Lines that end in a carriage return alone (CR, classic Mac OS) are
/// named ([`InputError::CrLineEndings`]): every reader by lines would see
/// one long line. LF and CR LF are both fine, and a lone CR with nothing
/// but spaces after it on its line (a stray one at the end) is too.
///
/// ```
/// use knoblab_core::input::text::decode;
/// assert_eq!(decode(b"\xEF\xBB\xBF{}").unwrap(), "{}");
/// let err = decode(b"\xFF\xFE{\x00}\x00").unwrap_err().to_string();
/// assert!(err.contains("UTF-16 LE"), "{err}");
/// ```
pub fn decode(bytes: &[u8]) -> Result<&str, InputError> {
    if let Some(encoding) = other_encoding(bytes) {
        return Err(InputError::Encoding {
            encoding: encoding.to_string(),
        });
    }
    let body = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let text = std::str::from_utf8(body).map_err(|e| {
        let offset = e.valid_up_to();
        let (line, column) = line_column(&body[..offset]);
        let bad = &body[offset..body.len().min(offset + e.error_len().unwrap_or(1).max(1))];
        InputError::InvalidUtf8 {
            line,
            column,
            offset: offset + (bytes.len() - body.len()),
            bytes: bad
                .iter()
                .map(|b| format!("0x{b:02X}"))
                .collect::<Vec<_>>()
                .join(" "),
        }
    })?;
    check_line_endings(text)?;
    Ok(text)
}

/// Refuses a text whose lines end in a lone CR: a CR not followed by LF,
/// with more text after it before the next LF. One pass over the bytes.
pub fn check_line_endings(text: &str) -> Result<(), InputError> {
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut lone_cr = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' => {
                line += 1;
                lone_cr = false;
            }
            b'\r' => lone_cr = bytes.get(i + 1) != Some(&b'\n'),
            b' ' | b'\t' => {}
            _ if lone_cr => return Err(InputError::CrLineEndings { line }),
            _ => {}
        }
    }
    Ok(())
}

/// [`decode`], owning the text.
pub fn decode_owned(bytes: Vec<u8>) -> Result<String, InputError> {
    decode(&bytes)?;
    let start = if bytes.starts_with(UTF8_BOM) { 3 } else { 0 };
    let mut bytes = bytes;
    bytes.drain(..start);
    // Checked just above.
    String::from_utf8(bytes).map_err(|e| InputError::Encoding {
        encoding: e.to_string(),
    })
}

/// The name of the encoding when `bytes` are recognisably not UTF-8: a
/// UTF-16 or UTF-32 byte-order mark, or the zero bytes of ASCII text
/// written in UTF-16/UTF-32 without one.
fn other_encoding(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, 0, 0, ..] => Some("UTF-32 LE (byte-order mark FF FE 00 00)"),
        [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32 BE (byte-order mark 00 00 FE FF)"),
        [0xFF, 0xFE, ..] => Some("UTF-16 LE (byte-order mark FF FE)"),
        [0xFE, 0xFF, ..] => Some("UTF-16 BE (byte-order mark FE FF)"),
        [a, 0, 0, 0, ..] if *a != 0 => Some("UTF-32 LE (no byte-order mark)"),
        [0, 0, 0, a, ..] if *a != 0 => Some("UTF-32 BE (no byte-order mark)"),
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 => Some("UTF-16 LE (no byte-order mark)"),
        [0, a, 0, b, ..] if *a != 0 && *b != 0 => Some("UTF-16 BE (no byte-order mark)"),
        _ => None,
    }
}

/// The 1-based line and column (in characters) just after `text`.
fn line_column(valid: &[u8]) -> (usize, usize) {
    // `valid` is the valid UTF-8 prefix.
    let text = std::str::from_utf8(valid).unwrap_or_default();
    let line = text.matches('\n').count() + 1;
    let last = text.rsplit('\n').next().unwrap_or("");
    (line, last.chars().count() + 1)
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let mut cut = offset.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    line_column(&text.as_bytes()[..cut])
}

/// Text from an input with its control characters escaped, for printing
/// on a terminal: a bundle name holding `ESC[2J` must not clear the
/// screen, nor a `\r` or `\n` forge a line. Tabs are kept; every other
/// C0/C1 control and DEL is written as `\u{..}`, as Rust's debug form does.
///
/// ```
/// use knoblab_core::input::text::escape_controls;
/// assert_eq!(escape_controls("kettle"), "kettle");
/// assert_eq!(escape_controls("a\x1b[2Jb\nc"), "a\\u{1b}[2Jb\\u{a}c");
/// ```
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let bad = |c: char| c != '\t' && (c.is_control() || is_bidi_override(c));
    if !text.chars().any(bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if bad(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`escape_controls`] for a multi-line report: each line's text escaped,
/// the line breaks kept.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c != '\t' && c != '\n' && (c.is_control() || is_bidi_override(c)))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&escape_controls(line));
    }
    Cow::Owned(out)
}

/// Bidirectional overrides and isolates, which reorder what a terminal
/// shows (the "Trojan source" characters).
fn is_bidi_override(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bom_is_stripped_and_utf16_is_named() {
        assert_eq!(decode(b"\xEF\xBB\xBF{\"a\":1}").unwrap(), "{\"a\":1}");
        for (bytes, name) in [
            (&b"\xFF\xFE{\x00"[..], "UTF-16 LE"),
            (b"\xFE\xFF\x00{", "UTF-16 BE"),
            (b"\xFF\xFE\x00\x00{\x00\x00\x00", "UTF-32 LE"),
            (b"\x00\x00\xFE\xFF", "UTF-32 BE"),
            (b"{\x00\"\x00", "UTF-16 LE (no byte-order mark)"),
            (b"\x00{\x00\"", "UTF-16 BE (no byte-order mark)"),
        ] {
            let err = decode(bytes).unwrap_err().to_string();
            assert!(err.contains(name), "{err} should name {name}");
        }
    }

    #[test]
    fn lines_ending_in_a_lone_cr_are_named() {
        let err = decode(b"{\"a\": 1}\r{\"a\": 2}\r").unwrap_err();
        assert_eq!(err, InputError::CrLineEndings { line: 1 });
        assert!(err.to_string().contains("carriage return alone"), "{err}");
        let err = decode(b"x\ny\n\xEF\xBB\xBFz\rw").unwrap_err();
        assert_eq!(err, InputError::CrLineEndings { line: 3 });
        // LF, CR LF, and a stray CR at the end of a line are fine.
        decode(b"a\nb\r\nc\r\n").unwrap();
        decode(b"a\r \nb\r").unwrap();
    }

    #[test]
    fn invalid_utf8_is_located() {
        let err = decode(b"{\n  \"name\": \"caf\xE9\"\n}").unwrap_err();
        assert_eq!(
            err,
            InputError::InvalidUtf8 {
                line: 2,
                column: 15,
                offset: 16,
                bytes: "0xE9".into()
            }
        );
        assert_eq!(
            decode_owned(b"\xEF\xBB\xBFok".to_vec()).unwrap(),
            "ok".to_string()
        );
    }

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert_eq!(escape_controls("Kettle – 1.7 l\t"), "Kettle – 1.7 l\t");
        assert_eq!(escape_controls("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(escape_controls("a\u{202E}b"), "a\\u{202e}b");
        assert_eq!(escape_lines("a\x07\nb\r\n"), "a\\u{7}\nb\\u{d}\n");
    }
}
