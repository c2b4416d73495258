//! Reading a trajectory file (JSON Lines, one episode per line) for the
//! metrics, the same for `knoblab metrics` and the page's Score tab.
//!
//! Through the input layer: the text decoded by the one rule (BOM stripped,
//! UTF-16 named, invalid UTF-8 located), each line's JSON with duplicate
//! keys refused. An empty file is an error; a line that is not a
//! trajectory is an error naming the line (nothing is skipped but blank
//! lines); a line that is a copy of an earlier one is refused with both
//! line numbers, since it would count the same episode twice; more than
//! [`MAX_SAMPLES_PER_FILE`] episodes are refused.
//!
//! **Copies and repeats.** `knoblab eval --repeats N` writes N episodes of
//! one task, which may be identical (a deterministic agent). Each record it
//! writes carries the batch item's key, `item` (`bundle/task#repeat`), so
//! the identity of an episode is its `item` with its trajectory: two lines
//! with the same `item` are one episode given twice (refused, whatever
//! their steps), two lines with different `item`s are repeats (kept even
//! when their steps are the same), and two lines without an `item` (as
//! `knoblab run` writes) are a copy when their trajectories are equal.
//! Records that ended as `api_error` (a request failed for good; they say
//! nothing of the model) are counted and not scored.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::input::limits::{MAX_EPISODE_STEPS, MAX_SAMPLES_PER_FILE};
use crate::input::InputError;
use crate::sim::Trajectory;

/// How an episode of a run ended, as its line records it (`status`):
/// the lowest reader of the field is here, the metrics that keep
/// `api_error` episodes apart; the batch that writes it is in `knoblab-eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpisodeStatus {
    /// The simulator ended it (all goals, a budget) or the agent stopped.
    Finished,
    /// A model request still failed after its retries.
    ApiError,
}

/// Why a trajectory file cannot be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TrajectoryFileError {
    /// The bytes are not UTF-8 text.
    #[error("{file}: {error}")]
    Text {
        /// The file's name.
        file: String,
        /// What the input layer found.
        error: InputError,
    },
    /// No episode in the file.
    #[error("{file} holds no episode to score{}; expected one trajectory per line (JSON Lines, as `knoblab run` and `knoblab eval` write)", api_note(*.api_errors))]
    Empty {
        /// The file's name.
        file: String,
        /// Its lines that were `api_error` episodes, which are not scored.
        api_errors: usize,
    },
    /// A line is not a trajectory.
    #[error("{file}:{line}: not a trajectory line: {error}")]
    Line {
        /// The file's name.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What the reader found.
        error: crate::input::json::JsonError,
    },
    /// A line repeats an earlier one.
    #[error("{file}:{line}: a copy of line {first} (bundle {bundle}, task {task}); each episode may appear once in a run, or it would be counted twice")]
    Duplicate {
        /// The file's name.
        file: String,
        /// The copy's line, from 1.
        line: usize,
        /// The line it copies.
        first: usize,
        /// The episode's bundle id.
        bundle: String,
        /// The episode's task id.
        task: String,
    },
    /// Two lines record the same batch item (the same repeat of a task).
    #[error("{file}:{line}: episode {item} was already recorded at line {first}; each batch item (bundle/task#repeat) may appear once in a run, or it would be counted twice")]
    SameItem {
        /// The file's name.
        file: String,
        /// The second record's line, from 1.
        line: usize,
        /// The first record's line.
        first: usize,
        /// The item, as `bundle/task#repeat`.
        item: String,
    },
    /// Too many episodes, or an episode with too many steps.
    #[error("{file}: {error}")]
    TooMany {
        /// The file's name.
        file: String,
        /// Which cap, and by how much.
        error: InputError,
    },
}

fn api_note(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" (all {n} ended as api_error, which is not scored)")
    }
}

/// A trajectory file's episodes to score.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryFile {
    /// (1-based line number, episode), in file order.
    pub episodes: Vec<(usize, Trajectory)>,
    /// Records that ended as `api_error`, counted and not scored.
    pub api_errors: usize,
    /// The batch item each of `episodes` records (`bundle/task#repeat`,
    /// as `knoblab eval` writes), in the same order; `None` for a record
    /// without one (`knoblab run`).
    pub items: Vec<Option<String>>,
    /// The records that ended as `api_error`: which episodes they were,
    /// so that a leaderboard counts them against its plan.
    pub api_error_episodes: Vec<ApiErrorRecord>,
}

/// An episode recorded as `api_error`: where, and which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorRecord {
    /// Its line, from 1.
    pub line: usize,
    /// The device.
    pub bundle_id: String,
    /// The task.
    pub task_id: String,
    /// The batch item, when the record carries one.
    pub item: Option<String>,
}

/// What the reader needs of a record beyond its trajectory: the batch
/// item `knoblab eval` records, and how the episode ended.
#[derive(serde::Deserialize)]
struct RecordIdentity {
    #[serde(default)]
    item: Option<String>,
    #[serde(default)]
    status: Option<EpisodeStatus>,
}

/// The episodes of a trajectory file with their 1-based line numbers.
///
/// ```
/// use knoblab_core::metrics::file::read_trajectory_file;
/// let err = read_trajectory_file("run.jsonl", b"\n \n").unwrap_err();
/// assert!(err.to_string().contains("holds no episode"));
/// ```
pub fn read_trajectory_file(
    file: &str,
    bytes: &[u8],
) -> Result<TrajectoryFile, TrajectoryFileError> {
    let name = crate::input::text::escape_controls(file).into_owned();
    let text = crate::input::text::decode(bytes).map_err(|error| TrajectoryFileError::Text {
        file: name.clone(),
        error,
    })?;
    let mut out: Vec<(usize, Trajectory)> = Vec::new();
    let mut out_items: Vec<Option<String>> = Vec::new();
    let mut api_error_episodes: Vec<ApiErrorRecord> = Vec::new();
    let mut api_errors = 0;
    // Hash of a line's record → indices into `out` with that hash (lines
    // without an `item`).
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::new();
    // A batch item → the line that recorded it.
    let mut items: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if out.len() + api_errors >= MAX_SAMPLES_PER_FILE {
            return Err(TrajectoryFileError::TooMany {
                file: name,
                error: InputError::TooMany {
                    what: "episodes in one trajectory file".into(),
                    found: (out.len() + api_errors + 1) as u64,
                    cap: MAX_SAMPLES_PER_FILE as u64,
                    why: "input::limits::MAX_SAMPLES_PER_FILE",
                },
            });
        }
        let t: Trajectory =
            crate::input::json::from_text(line).map_err(|e| TrajectoryFileError::Line {
                file: name.clone(),
                line: n,
                error: e,
            })?;
        if t.steps.len() > MAX_EPISODE_STEPS {
            return Err(TrajectoryFileError::TooMany {
                file: name,
                error: InputError::TooMany {
                    what: format!("steps in the episode of line {n}"),
                    found: t.steps.len() as u64,
                    cap: MAX_EPISODE_STEPS as u64,
                    why: "input::limits::MAX_EPISODE_STEPS",
                },
            });
        }
        // The same line parsed for its identity (a trajectory line parsed,
        // so this cannot fail but on a wrong type of `item` or `status`).
        let id: RecordIdentity =
            crate::input::json::from_text(line).map_err(|e| TrajectoryFileError::Line {
                file: name.clone(),
                line: n,
                error: e,
            })?;
        if let Some(item) = id.item {
            if let Some(&first) = items.get(&item) {
                return Err(TrajectoryFileError::SameItem {
                    file: name,
                    line: n,
                    first,
                    item: crate::input::text::escape_controls(&item).into_owned(),
                });
            }
            items.insert(item.clone(), n);
            if id.status == Some(EpisodeStatus::ApiError) {
                api_errors += 1;
                api_error_episodes.push(ApiErrorRecord {
                    line: n,
                    bundle_id: t.bundle_id,
                    task_id: t.task_id,
                    item: Some(item),
                });
            } else {
                out.push((n, t));
                out_items.push(Some(item));
            }
            continue;
        }
        if id.status == Some(EpisodeStatus::ApiError) {
            api_errors += 1;
            api_error_episodes.push(ApiErrorRecord {
                line: n,
                bundle_id: t.bundle_id,
                task_id: t.task_id,
                item: None,
            });
            continue;
        }
        let mut h = DefaultHasher::new();
        // The parsed record, so that spacing and key order do not hide a copy.
        serde_json::to_string(&t).unwrap_or_default().hash(&mut h);
        let same = seen.entry(h.finish()).or_default();
        if let Some(&j) = same.iter().find(|&&j| out[j].1 == t) {
            return Err(TrajectoryFileError::Duplicate {
                file: name,
                line: n,
                first: out[j].0,
                bundle: crate::input::text::escape_controls(&t.bundle_id).into_owned(),
                task: crate::input::text::escape_controls(&t.task_id).into_owned(),
            });
        }
        same.push(out.len());
        out.push((n, t));
        out_items.push(None);
    }
    if out.is_empty() {
        return Err(TrajectoryFileError::Empty {
            file: name,
            api_errors,
        });
    }
    Ok(TrajectoryFile {
        episodes: out,
        api_errors,
        items: out_items,
        api_error_episodes,
    })
}
