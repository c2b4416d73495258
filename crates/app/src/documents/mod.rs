//! The documents that `knoblab … --json` prints, computed from paths: the
//! CLI prints them (or their tables) and the Python bindings return them
//! as dicts, so both give one computation's numbers (issue #18).
//!
//! Each entry function reads its files within the core's bounds, calls
//! the one scoring entry point ([`crate::scoring`], which the page's
//! worker calls too) and returns a value whose `to_json` is the document.
//! Its errors are [`ScoreError`]s, which say which input was at fault
//! ([`ScoreError::kind`]), so an edge can tell the kinds apart by type,
//! never by message text.
//!
//! - [`epic`]: `knoblab score epic`.
//! - [`finestate`]: `knoblab score finestate`.
//! - [`switch`]: `knoblab score switch`.
//! - [`metrics`](mod@metrics): `knoblab metrics`.
//! - [`library`]: the devices and tasks of a library index.

pub mod epic;
pub mod finestate;
pub mod library;
pub mod metrics;
pub mod switch;

use knoblab_core::input::InputError;

use crate::scoring::{InputKind, ScoreError};

/// A file's bytes through the input layer ([`knoblab_core::input::fs`]): a
/// regular file only (a FIFO or a device is named and refused, never
/// opened), within [`knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES`]; the
/// error names the file (control characters escaped).
pub(crate) fn read_bounded(path: &std::path::Path) -> Result<Vec<u8>, InputError> {
    knoblab_core::input::fs::read_regular(path, knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES)
}

/// [`read_bounded`], and an empty file (or only whitespace) is an error
/// saying what it should have held (`expected`).
pub(crate) fn read_nonempty_bounded(
    path: &std::path::Path,
    expected: &str,
) -> Result<Vec<u8>, InputError> {
    knoblab_core::input::fs::read_nonempty(
        path,
        knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES,
        expected,
    )
}

/// A file's text within the bound, decoded by the input layer's one rule
/// (BOM stripped, UTF-16 named, invalid UTF-8 located); an empty file (or
/// only whitespace) is an error saying what it should have held. `kind`
/// is which input the file is, for the error.
pub(crate) fn read_text_bounded(
    path: &std::path::Path,
    kind: InputKind,
) -> Result<String, ScoreError> {
    let bytes = read_bounded(path).map_err(|error| ScoreError::Read { kind, error })?;
    let text =
        knoblab_core::input::text::decode_owned(bytes).map_err(|error| ScoreError::NotText {
            path: shown(path),
            error,
        })?;
    if text.trim().is_empty() {
        return Err(ScoreError::Read {
            kind,
            error: InputError::Empty {
                what: shown(path),
                expected: "a results file (JSON or JSON Lines)".into(),
            },
        });
    }
    Ok(text)
}

/// [`read_bounded`], its error as [`ScoreError`] for the input `kind`.
pub(crate) fn read_input(path: &std::path::Path, kind: InputKind) -> Result<Vec<u8>, ScoreError> {
    read_bounded(path).map_err(|error| ScoreError::Read { kind, error })
}

/// [`read_nonempty_bounded`], its error as [`ScoreError`] for the input `kind`.
pub(crate) fn read_nonempty_input(
    path: &std::path::Path,
    kind: InputKind,
    expected: &str,
) -> Result<Vec<u8>, ScoreError> {
    read_nonempty_bounded(path, expected).map_err(|error| ScoreError::Read { kind, error })
}

/// A file's name for messages, control characters escaped.
pub(crate) fn shown(path: &std::path::Path) -> String {
    knoblab_core::input::text::escape_controls(&path.display().to_string()).into_owned()
}
