//! The documents that `knoblab … --json` prints, computed from paths: the
//! CLI prints them (or their tables) and the Python bindings return them
//! as dicts, so both give one computation's numbers (issue #18).
//!
//! Each entry function reads its files within the core's bounds, calls
//! the scorer or the metrics, and returns a value whose `to_json` is the
//! document. Its errors say which input was at fault ([`DocumentError`]),
//! so an edge can tell the kinds apart by type, never by message text.
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

use thiserror::Error;

use knoblab_core::bundle::LoadError;
use knoblab_core::input::InputError;

/// Which input made a document impossible, with the core's message (which
/// names the file and, where it can, the line, record or field).
#[derive(Debug, Error)]
pub enum DocumentError {
    /// A bundle could not be loaded; every problem found, with where.
    #[error("{0}")]
    Bundle(Box<LoadError>),
    /// A folder of bundles that is missing, unreadable or holds none.
    #[error("{0}")]
    Bundles(String),
    /// A results file (predictions, judge outputs, trajectories) that
    /// cannot be read or is not of the benchmark's format.
    #[error("{0}")]
    Results(String),
    /// A line of a results file that is not of its format, or repeats
    /// another: the core's message, and the file and line it names.
    #[error("{message}")]
    ResultsLine {
        /// The core's message (naming the file and line).
        message: String,
        /// The file, as given.
        path: String,
        /// The line, from 1.
        line: usize,
    },
    /// Ground truth that is missing, unreadable or malformed.
    #[error("{0}")]
    GroundTruth(String),
    /// An option outside its values.
    #[error("{0}")]
    Options(String),
    /// Trajectories that cannot be scored against the bundles given
    /// (another device, another version of it, an unknown task).
    #[error("{0}")]
    Metrics(String),
}

impl From<LoadError> for DocumentError {
    fn from(e: LoadError) -> Self {
        DocumentError::Bundle(Box::new(e))
    }
}

/// A file that could not be read as text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum TextFileError {
    /// The input layer refused the file (its message names the file).
    #[error(transparent)]
    Read(#[from] InputError),
    /// The file's bytes are not UTF-8 text.
    #[error("{file}: {error}")]
    NotText {
        /// The file, control characters escaped.
        file: String,
        /// The input layer's decoding error.
        error: InputError,
    },
}

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
/// only whitespace) is an error saying what it should have held.
pub(crate) fn read_text_bounded(path: &std::path::Path) -> Result<String, TextFileError> {
    let bytes = read_bounded(path)?;
    let text =
        knoblab_core::input::text::decode_owned(bytes).map_err(|error| TextFileError::NotText {
            file: shown(path),
            error,
        })?;
    if text.trim().is_empty() {
        return Err(InputError::Empty {
            what: shown(path),
            expected: "a results file (JSON or JSON Lines)".into(),
        }
        .into());
    }
    Ok(text)
}

/// A file's name for messages, control characters escaped.
pub(crate) fn shown(path: &std::path::Path) -> String {
    knoblab_core::input::text::escape_controls(&path.display().to_string()).into_owned()
}
