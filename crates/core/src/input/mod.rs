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
//! - [`unused`]: what a reader did not use (skipped, refused, given twice,
//!   matched nothing), each with its file and line, for the faces to show.
//! - [`options`]: the domain of every number a run is given (λ, repeats,
//!   concurrency, timeout, …), checked by one function for every face.
//!
//! Errors are [`InputError`], one typed enum whose messages carry the values
//! (what was found, what the bound is); callers add the file's name.

#[cfg(not(target_arch = "wasm32"))]
pub mod fs;
pub mod json;
pub mod limits;
pub mod options;
pub mod path;
pub mod text;
pub mod unused;
pub mod zip;

use thiserror::Error;

/// Why an input was refused. Each variant's message says what was found and
/// what would be accepted; the caller names the file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InputError {
    /// The path names something that is not a regular file.
    #[error("{path} is {kind}, not a regular file; give a file (a FIFO or a device could block or never end)")]
    NotRegular {
        /// The path as given, control characters escaped.
        path: String,
        /// What it is instead (`a FIFO`, `a folder`, `a device`).
        kind: &'static str,
    },
    /// The file could not be opened or read.
    #[error("{path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The input is larger than its cap.
    #[error("{what}: the file takes {found}; at most {cap} is read (a results or data file larger than that is refused before reading)")]
    TooLarge {
        /// Which input (a file's name).
        what: String,
        /// Its size, for people.
        found: String,
        /// The cap, for people.
        cap: String,
    },
    /// The input has no content.
    #[error("{what} is empty; expected {expected}")]
    Empty {
        /// Which input.
        what: String,
        /// What it should have held.
        expected: String,
    },
    /// The text is in another encoding than UTF-8.
    #[error("the text is {encoding}; save it as UTF-8")]
    Encoding {
        /// The encoding its byte-order mark names (`UTF-16 LE`).
        encoding: String,
    },
    /// The bytes are not valid UTF-8.
    #[error("the text is not valid UTF-8 at line {line}, column {column} (byte {offset}: {bytes}); save it as UTF-8")]
    InvalidUtf8 {
        /// The line of the first invalid byte, from 1.
        line: usize,
        /// Its column in characters, from 1.
        column: usize,
        /// Its offset in bytes from the start.
        offset: usize,
        /// The offending bytes, in hex.
        bytes: String,
    },
    /// The lines end in a carriage return alone (classic Mac OS), which
    /// line readers would take as one line.
    #[error("the lines end in a carriage return alone (CR, classic Mac OS), first after line {line}; a reader by lines would see one long line: save it with LF or CR LF line endings")]
    CrLineEndings {
        /// The line (from 1, counting LF line breaks) where the first
        /// lone CR ends a line that has more text after it.
        line: usize,
    },
    /// A JSON object has the same key twice.
    #[error("the key \"{key}\" appears twice in one object, at line {first_line}, column {first_column} and at line {line}, column {column}; a key may appear once (which one would count is not defined)")]
    DuplicateKey {
        /// The key that appears twice.
        key: String,
        /// Where it first appears: line, from 1.
        first_line: usize,
        /// Where it first appears: column, from 1.
        first_column: usize,
        /// Where it appears again: line, from 1.
        line: usize,
        /// Where it appears again: column, from 1.
        column: usize,
    },
    /// A path written inside a file is absolute or leaves its root.
    #[error("the path `{path}` {reason}")]
    Path {
        /// The path as written.
        path: String,
        /// What is wrong with it, and what would be valid.
        reason: &'static str,
    },
    /// A zip archive could not be read or exceeds a bound.
    #[error("{0}")]
    Zip(String),
    /// An option's value is outside its domain.
    #[error("{what} = {found} is outside its domain: {expected}")]
    OutOfDomain {
        /// The option (`λ`).
        what: &'static str,
        /// The value given.
        found: String,
        /// What would be valid, and why.
        expected: &'static str,
    },
    /// A count exceeds its cap.
    #[error("{what}: {found} found; at most {cap} are accepted ({why})")]
    TooMany {
        /// What is counted (`zip entries`, `samples`).
        what: String,
        /// How many there are.
        found: u64,
        /// How many are accepted.
        cap: u64,
        /// Why the cap is where it is.
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
