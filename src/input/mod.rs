//! The one input layer: every file KnobLab reads from a user, a URL or a
//! model goes through here, in the page and the CLI alike (issue #23).
//!
//! - [`fs`] (native only): open only regular files (a FIFO, a device or a
//!   folder is named and refused, never opened for reading), read within a
//!   cap, write through a temporary file renamed into place, and tell
//!   whether an output is one of the inputs.
//! - [`path`]: a path written inside a file (a bundle's `views/front.png`,
//!   EPIC's `gt_json_path`) is resolved under its root: no absolute path, no
//!   `..` escape. [`fs::OnceReader`] reads each distinct file at most once.
//! - [`text`]: one decoding rule: UTF-8, a byte-order mark stripped; UTF-16
//!   and UTF-32 named; invalid UTF-8 located by line and column. And
//!   [`text::escape_controls`] for printing text that came from a file.
//! - [`json`]: duplicate keys in an object are refused with both positions
//!   (`serde_json` silently keeps the last).
//! - [`zip`]: the one bounded zip reader (entries, bytes per entry, bytes in
//!   all).
//! - [`limits`]: every size and count cap, each with the reason for its value.
//!
//! Errors are [`InputError`], one typed enum whose messages carry the values
//! (what was found, what the bound is); callers add the file's name.

#[cfg(not(target_arch = "wasm32"))]
pub mod fs;
pub mod json;
pub mod limits;
pub mod path;
pub mod text;
pub mod zip;

use thiserror::Error;

/// Why an input was refused. Each variant's message says what was found and
/// what would be accepted; the caller names the file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// The path names something that is not a regular file.
    #[error("{path} is {kind}, not a regular file; give a file (a FIFO or a device could block or never end)")]
    NotRegular { path: String, kind: &'static str },
    /// The file could not be opened or read.
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// The input is larger than its cap.
    #[error("{what}: the file takes {found}; at most {cap} is read (a results or data file larger than that is refused before reading)")]
    TooLarge {
        what: String,
        found: String,
        cap: String,
    },
    /// The input has no content.
    #[error("{what} is empty; expected {expected}")]
    Empty { what: String, expected: String },
    /// The text is in another encoding than UTF-8.
    #[error("the text is {encoding}; save it as UTF-8")]
    Encoding { encoding: String },
    /// The bytes are not valid UTF-8.
    #[error("the text is not valid UTF-8 at line {line}, column {column} (byte {offset}: {bytes}); save it as UTF-8")]
    InvalidUtf8 {
        line: usize,
        column: usize,
        offset: usize,
        bytes: String,
    },
    /// A JSON object has the same key twice.
    #[error("the key \"{key}\" appears twice in one object, at line {first_line}, column {first_column} and at line {line}, column {column}; a key may appear once (which one would count is not defined)")]
    DuplicateKey {
        key: String,
        first_line: usize,
        first_column: usize,
        line: usize,
        column: usize,
    },
    /// A path written inside a file is absolute or leaves its root.
    #[error("the path `{path}` {reason}")]
    Path { path: String, reason: &'static str },
    /// A zip archive could not be read or exceeds a bound.
    #[error("{0}")]
    Zip(String),
    /// A count exceeds its cap.
    #[error("{what}: {found} found; at most {cap} are accepted ({why})")]
    TooMany {
        what: String,
        found: u64,
        cap: u64,
        why: &'static str,
    },
}

impl InputError {
    /// The same error with `name: ` in front of its message, for callers
    /// that flatten to text.
    pub fn named(&self, name: &str) -> String {
        format!("{name}: {self}")
    }
}
