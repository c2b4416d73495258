//! The published leaderboard: one file that holds the `knoblab-leaderboard/1`
//! document and, for every episode a run recorded, what the page needs to
//! play it again in the trace viewer (the device, the task, λ and the
//! actions: a share link's contents). `knoblab leaderboard --publish FILE`
//! writes it, the page's Leaderboard view saves it, and the same static
//! page reopens it (dropped, or by `#/leaderboard?src=URL`), so a project
//! page publishes results and trajectories together, without a server.
//!
//! The document inside is the one `--json` prints, unchanged; the traces
//! are keyed by row and by the record's line, which the document's
//! episode lists already give.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use knoblab_core::input::json::{JsonError, ParseError};
use knoblab_core::input::InputError;
use knoblab_core::metrics::file::{read_trajectory_file, TrajectoryFileError};

use super::{Leaderboard, RunInput, FORMAT};

/// The format tag of a published leaderboard.
pub const PUBLISHED_FORMAT: &str = "knoblab-leaderboard-published/1";

/// What replays one recorded episode: a share link's contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The record's line in its file, from 1 (the document's `line`).
    pub line: usize,
    /// The device (a library id).
    pub bundle_id: String,
    /// The task.
    pub task_id: String,
    /// λ the episode was played with.
    pub lambda: u32,
    /// The action texts, in order, as the agent gave them.
    pub actions: Vec<String>,
}

/// Why a dropped or fetched file is neither a leaderboard nor a run; each
/// message names the file (`name`) and says what would be valid.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PublishError {
    /// Its bytes are not text by the input layer's rule.
    #[error("{name}: {error}; a leaderboard is a JSON file")]
    Text {
        /// The file.
        name: String,
        /// The rule it broke.
        error: InputError,
    },
    /// Not a JSON document.
    #[error("{name}: not a JSON document ({error}); a leaderboard is the JSON file that `knoblab leaderboard --publish` or the page's Save writes")]
    NotJson {
        /// The file.
        name: String,
        /// What the parser said.
        error: JsonError,
    },
    /// A document of a leaderboard format that does not follow its schema.
    #[error("{name}: a {format} {what} that does not follow its schema ({error}); docs/leaderboard.md describes it")]
    Schema {
        /// The file.
        name: String,
        /// Its format tag.
        format: &'static str,
        /// "file" (a published leaderboard) or "document" (`--json`).
        what: &'static str,
        /// Where and how it departs from the schema.
        error: ParseError,
    },
    /// A JSON document of another format.
    #[error("{name}: its format is {format:?}; a leaderboard file says \"{PUBLISHED_FORMAT}\" (the page's Save, `knoblab leaderboard --publish`) or \"{FORMAT}\" (`--json`)")]
    Format {
        /// The file.
        name: String,
        /// The format it names.
        format: String,
    },
    /// Traces that are not one list per row.
    #[error("{name}: {traces} lists of traces for {rows} rows; there must be one per row")]
    Traces {
        /// The file.
        name: String,
        /// The lists of traces.
        traces: usize,
        /// The rows.
        rows: usize,
    },
    /// Not a leaderboard, and not a trajectory file either.
    #[error(
        "{0} (a run is a trajectory file, JSON Lines, as `knoblab eval` or the Agent page writes)"
    )]
    NotRun(Box<TrajectoryFileError>),
}

/// A leaderboard with the traces of its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Published {
    /// [`PUBLISHED_FORMAT`].
    pub format: String,
    /// The `knoblab leaderboard --json` document.
    pub leaderboard: Leaderboard,
    /// For each row (same order), its played episodes' traces, by line.
    /// Empty for a document opened without them (a plain `--json` file).
    pub traces: Vec<Vec<Trace>>,
}

/// The traces of a run's played episodes, in file order (`api_error`
/// records have no actions worth replaying: the model never answered).
pub fn traces_of(run: &RunInput) -> Vec<Trace> {
    run.file
        .episodes
        .iter()
        .map(|(line, t)| Trace {
            line: *line,
            bundle_id: t.bundle_id.clone(),
            task_id: t.task_id.clone(),
            lambda: t.settings.lambda,
            actions: t.steps.iter().map(|s| s.action.clone()).collect(),
        })
        .collect()
}

impl Published {
    /// A leaderboard with its runs' traces.
    pub fn new(leaderboard: Leaderboard, traces: Vec<Vec<Trace>>) -> Published {
        Published {
            format: PUBLISHED_FORMAT.to_string(),
            leaderboard,
            traces,
        }
    }

    /// The trace of row `row`'s record at `line`.
    pub fn trace(&self, row: usize, line: usize) -> Option<&Trace> {
        let traces = self.traces.get(row)?;
        traces
            .binary_search_by_key(&line, |t| t.line)
            .ok()
            .and_then(|i| traces.get(i))
    }

    /// The JSON text of the file (compact: a board of many episodes is large).
    pub fn to_text(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// Reads a published leaderboard, or a plain `knoblab leaderboard
    /// --json` document (then without traces). `name` is where the bytes
    /// came from, for the message.
    pub fn read(name: &str, bytes: &[u8]) -> Result<Published, PublishError> {
        let text =
            knoblab_core::input::text::decode(bytes).map_err(|error| PublishError::Text {
                name: name.to_string(),
                error,
            })?;
        // Straight into the types when the file is what it should be (no
        // intermediate tree: a board of 160,000 episodes is ~90 MB); the
        // tree below only words the message of a file that is not.
        if let Ok(mut p) = knoblab_core::input::json::from_text::<Published>(text) {
            if p.format == PUBLISHED_FORMAT
                && p.leaderboard.format == FORMAT
                && (p.traces.is_empty() || p.traces.len() == p.leaderboard.runs.len())
            {
                for t in &mut p.traces {
                    t.sort_by_key(|t| t.line);
                }
                return Ok(p);
            }
        }
        let value: serde_json::Value =
            knoblab_core::input::json::from_text(text).map_err(|error| PublishError::NotJson {
                name: name.to_string(),
                error,
            })?;
        let schema = |format, what| {
            move |e: serde_json::Error| PublishError::Schema {
                name: name.to_string(),
                format,
                what,
                error: e.into(),
            }
        };
        let format = value.get("format").and_then(|f| f.as_str()).unwrap_or("");
        let mut published = match format {
            PUBLISHED_FORMAT => serde_json::from_value::<Published>(value)
                .map_err(schema(PUBLISHED_FORMAT, "file"))?,
            FORMAT => Published::new(
                serde_json::from_value::<Leaderboard>(value).map_err(schema(FORMAT, "document"))?,
                Vec::new(),
            ),
            other => {
                return Err(PublishError::Format {
                    name: name.to_string(),
                    format: other.to_string(),
                })
            }
        };
        if !published.traces.is_empty()
            && published.traces.len() != published.leaderboard.runs.len()
        {
            return Err(PublishError::Traces {
                name: name.to_string(),
                traces: published.traces.len(),
                rows: published.leaderboard.runs.len(),
            });
        }
        for t in &mut published.traces {
            t.sort_by_key(|t| t.line);
        }
        Ok(published)
    }
}

/// What the page's leaderboard worker answers a build with
/// (the page module's `knoblab_board_build`, read by the page): the
/// board (none when no file could be read as a run or a leaderboard)
/// without its traces, which stay in the worker (asked for a list of
/// episodes at a time, and for the saved file: they are most of a big
/// board's bytes), whether it has them, the files that were refused (each
/// message names its file) and the names of those read as runs (the page
/// keeps them for the next drop).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Built {
    /// The leaderboard, its `traces` left empty.
    pub board: Option<Published>,
    /// Whether the board has traces (in the worker).
    pub traced: bool,
    /// Files not taken, each with why.
    pub refused: Vec<String>,
    /// The files read as runs.
    pub runs: Vec<String>,
}

/// A dropped file, read: a run, or a leaderboard already made.
#[derive(Debug)]
pub enum Dropped {
    /// A trajectory file (JSON Lines).
    Run(RunInput),
    /// A published leaderboard or a `--json` document.
    Board(Box<Published>),
}

/// Reads a dropped file: a JSON document with a `format` is a leaderboard
/// ([`Published::read`]); anything else must be a trajectory file. The
/// message names the file and says what would be valid.
///
/// Told apart by the first line alone (the file is parsed once): a
/// trajectory file's first line is a whole record without `format`; a
/// leaderboard is one line with `format` (the saved file) or a document
/// over several lines (`--json`), whose first line is not a whole value.
pub fn read_dropped(name: &str, bytes: &[u8]) -> Result<Dropped, PublishError> {
    let first = bytes
        .split(|b| *b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default();
    if first.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        match knoblab_core::input::json::from_bytes::<serde_json::Value>(first) {
            Ok(v) if v.get("format").is_some() => {
                return Published::read(name, bytes).map(|p| Dropped::Board(Box::new(p)));
            }
            Ok(_) => {}
            // Not a whole line: a document over several lines, if anything
            // (else the trajectory reader says what is wrong with line 1).
            Err(_) => {
                if let Ok(p) = Published::read(name, bytes) {
                    return Ok(Dropped::Board(Box::new(p)));
                }
            }
        }
    }
    read_trajectory_file(name, bytes)
        .map(|file| {
            Dropped::Run(RunInput {
                name: name.to_string(),
                file,
            })
        })
        .map_err(|e| PublishError::NotRun(Box::new(e)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test
    use super::*;

    #[test]
    fn files_that_are_neither_a_run_nor_a_board_are_refused_with_what_would_be_valid() {
        let e = read_dropped("notes.txt", b"hello").unwrap_err().to_string();
        assert!(e.starts_with("notes.txt"), "{e}");
        assert!(e.contains("trajectory file"), "{e}");
        let e = read_dropped("x.json", br#"{"format": "something/9"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"something/9\"") && e.contains(PUBLISHED_FORMAT),
            "{e}"
        );
        let e = read_dropped(
            "x.json",
            br#"{"format": "knoblab-leaderboard-published/1", "leaderboard": 3}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("does not follow its schema"), "{e}");
        let e = Published::read("y.json", b"\xff\xfe")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("UTF-16") && e.contains("save it as UTF-8"),
            "{e}"
        );
        // A document over several lines that breaks off: said of its line 1.
        let e = read_dropped("z.json", b"{\n  \"format\": \"knoblab-leaderboard/1\",\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("z.json:1"), "{e}");
    }
}
