//! Python's string semantics that more than one scorer relies on, written
//! once: the official EPIC-Bench and FineState-Bench code both strip text
//! with `str.strip()`, so both scorers call [`py_strip`] here (through
//! `epic::pyvalue` and `finestate::python`, which re-export it).
//!
//! The table was read from CPython 3.11.7 (Unicode 14.0.0), the
//! interpreter that made the fixtures. It is Unicode's `White_Space` plus
//! the four separator controls U+001C–U+001F, which Python counts as space
//! and Rust's [`char::is_whitespace`] does not.

/// Python's `str.isspace()` for one character.
///
/// ```
/// use knoblab_score::python::py_isspace;
/// assert!(py_isspace('\u{1f}') && py_isspace('\u{3000}'));
/// assert!(!py_isspace('\u{200b}'));
/// ```
pub fn py_isspace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\x0B'
            | '\x0C'
            | '\r'
            | '\x1C'..='\x1F'
            | ' '
            | '\u{85}'
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// Python's `str.strip()` with no argument.
///
/// ```
/// use knoblab_score::python::py_strip;
/// assert_eq!(py_strip("\u{1c} a b\u{a0}\n"), "a b");
/// ```
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(py_isspace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_space_is_rust_white_space_plus_the_four_separators() {
        // Every code point of the Basic Multilingual Plane and beyond that
        // Unicode 14 assigns: the two definitions differ only at 1C–1F.
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let separator = ('\u{1c}'..='\u{1f}').contains(&c);
            assert_eq!(
                py_isspace(c),
                c.is_whitespace() || separator,
                "U+{:04X}",
                c as u32
            );
        }
    }
}
