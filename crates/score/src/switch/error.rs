//! What can be wrong with SWITCH inputs (ground truth, predictions, judge and
//! video-judge files). Loading reports every problem it finds, each naming
//! the file, the record (line or item) and what would be valid.

use std::fmt;

use serde::Serialize;
use thiserror::Error;

/// One problem in one input file.
#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InputError {
    /// The file (or one JSON Lines line) is not valid JSON.
    #[error("{file}:{line}:{column}: not valid JSON ({message})")]
    Json {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// The JSON reader's message.
        message: String,
    },
    /// A `.zip` could not be read.
    #[error("{file}: not a readable zip archive ({message})")]
    Zip {
        /// The file.
        file: String,
        /// The zip reader's message.
        message: String,
    },
    /// A file could not be read from disk (native only).
    #[error("{file}: cannot read ({message})")]
    Io {
        /// The file.
        file: String,
        /// The operating system's message.
        message: String,
    },
    /// The top level of a file is not what the format allows.
    #[error("{file}: {message}")]
    Shape {
        /// The file.
        file: String,
        /// What the top level is, and what would be valid.
        message: String,
    },
    /// One field of one record has the wrong shape or is missing.
    #[error("{file}: {record}: field `{field}`: expected {expected}, found {found}")]
    Field {
        /// The file.
        file: String,
        /// The record (`line 3`, `item q7`).
        record: String,
        /// The field.
        field: String,
        /// What would be valid.
        expected: String,
        /// What it holds.
        found: String,
    },
    /// Two ground-truth items share a key.
    #[error("item {key} appears twice: in {first} and in {second}")]
    DuplicateItem {
        /// The item's key.
        key: String,
        /// Where it first appears.
        first: String,
        /// Where it appears again.
        second: String,
    },
    /// Two predictions name the same item.
    #[error("{file}: lines {first} and {second} both predict item {key}; keep one")]
    DuplicatePrediction {
        /// The predictions file.
        file: String,
        /// The item's key.
        key: String,
        /// The first line that predicts it.
        first: usize,
        /// The second.
        second: usize,
    },
    /// Rows of a release file lack fields KnobLab needs.
    #[error("{file}: {records}: fields found: {found}; missing: {missing}")]
    MissingFields {
        /// The release file.
        file: String,
        /// Which rows.
        records: String,
        /// The fields they have.
        found: String,
        /// The fields they lack.
        missing: String,
    },
    /// Not one prediction names an item of the ground truth: a report of
    /// them would be a table of zeros (another split, another release, or
    /// keys written another way).
    #[error("{file}: none of its {count} predictions names an item of the ground truth (line {line}: {key}); expected keys such as {example}: check that the predictions and the ground truth are of one release and split")]
    NoneMatched {
        /// The predictions file.
        file: String,
        /// How many predictions it holds.
        count: usize,
        /// The first prediction's line.
        line: usize,
        /// The first prediction's key.
        key: String,
        /// A key of the ground truth, as an example.
        example: String,
    },
    /// No ground-truth file was found among the inputs.
    #[error("{source_name}: no vqa.json, openqa.json or data.jsonl found; expected <root>/<task_family>/<form>/vqa.json (or openqa.json), the public release's <set>/data.jsonl files (mcq_hf_1500/data.jsonl, <task_family>/data.jsonl), a zip of either tree, or one such file")]
    NoGroundTruth {
        /// The input named (a folder, a zip, a file).
        source_name: String,
    },
}

/// Every problem found in the inputs, in the order found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputErrors(pub Vec<InputError>);

impl fmt::Display for InputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} problem(s) in the SWITCH inputs", self.0.len())?;
        for e in &self.0 {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InputErrors {}

impl From<InputError> for InputErrors {
    fn from(e: InputError) -> Self {
        InputErrors(vec![e])
    }
}

impl InputError {
    /// A field of `record` in `file` that is not what it should be:
    /// `found` described, or `nothing` when the field is absent.
    pub(crate) fn field(
        file: &str,
        record: &str,
        field: &str,
        expected: &str,
        found: Option<&serde_json::Value>,
    ) -> InputError {
        InputError::Field {
            file: file.to_string(),
            record: record.to_string(),
            field: field.to_string(),
            expected: expected.to_string(),
            found: found.map(describe).unwrap_or_else(|| "nothing".into()),
        }
    }
}

/// A JSON syntax error in `file`, with serde's line and column.
pub(crate) fn json_error(
    file: &str,
    line_offset: usize,
    e: &knoblab_core::input::json::ParseError,
) -> InputError {
    InputError::Json {
        file: file.to_string(),
        line: e.line + line_offset,
        column: e.column,
        message: e.to_string(),
    }
}

/// The input layer's JSON error (a duplicate key, an encoding, or
/// `serde_json`'s own) as a SWITCH input error, its line counted from
/// `line_offset` (a JSON Lines line's index).
pub(crate) fn layer_json_error(
    file: &str,
    line_offset: usize,
    e: &knoblab_core::input::json::JsonError,
) -> InputError {
    use knoblab_core::input::{json::JsonError, InputError as Layer};
    match e {
        JsonError::Parse(e) => json_error(file, line_offset, e),
        JsonError::Input(d @ Layer::DuplicateKey { line, column, .. }) => InputError::Json {
            file: file.to_string(),
            line: line + line_offset,
            column: *column,
            message: d.to_string(),
        },
        JsonError::Input(other) => InputError::Io {
            file: file.to_string(),
            message: other.to_string(),
        },
    }
}

/// A short description of a JSON value for "found ..." in messages.
pub(crate) fn describe(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}
