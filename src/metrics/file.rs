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

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use thiserror::Error;

use crate::input::limits::{MAX_EPISODE_STEPS, MAX_SAMPLES_PER_FILE};
use crate::input::InputError;
use crate::sim::Trajectory;

/// Why a trajectory file cannot be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TrajectoryFileError {
    /// The bytes are not UTF-8 text.
    #[error("{file}: {error}")]
    Text { file: String, error: InputError },
    /// No episode in the file.
    #[error("{file} holds no episode; expected one trajectory per line (JSON Lines, as `knoblab run` writes)")]
    Empty { file: String },
    /// A line is not a trajectory.
    #[error("{file}:{line}: not a trajectory line: {message}")]
    Line {
        file: String,
        line: usize,
        message: String,
    },
    /// A line repeats an earlier one.
    #[error("{file}:{line}: a copy of line {first} (bundle {bundle}, task {task}); each episode may appear once in a run, or it would be counted twice")]
    Duplicate {
        file: String,
        line: usize,
        first: usize,
        bundle: String,
        task: String,
    },
    /// Too many episodes, or an episode with too many steps.
    #[error("{file}: {error}")]
    TooMany { file: String, error: InputError },
}

/// The episodes of a trajectory file with their 1-based line numbers.
///
/// ```
/// use knoblab::metrics::file::read_trajectory_file;
/// let err = read_trajectory_file("run.jsonl", b"\n \n").unwrap_err();
/// assert!(err.to_string().contains("holds no episode"));
/// ```
pub fn read_trajectory_file(
    file: &str,
    bytes: &[u8],
) -> Result<Vec<(usize, Trajectory)>, TrajectoryFileError> {
    let name = crate::input::text::escape_controls(file).into_owned();
    let text = crate::input::text::decode(bytes).map_err(|error| TrajectoryFileError::Text {
        file: name.clone(),
        error,
    })?;
    let mut out: Vec<(usize, Trajectory)> = Vec::new();
    // Hash of a line's record → indices into `out` with that hash.
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if out.len() >= MAX_SAMPLES_PER_FILE {
            return Err(TrajectoryFileError::TooMany {
                file: name,
                error: InputError::TooMany {
                    what: "episodes in one trajectory file".into(),
                    found: (out.len() + 1) as u64,
                    cap: MAX_SAMPLES_PER_FILE as u64,
                    why: "input::limits::MAX_SAMPLES_PER_FILE",
                },
            });
        }
        let t: Trajectory =
            crate::input::json::from_text(line).map_err(|e| TrajectoryFileError::Line {
                file: name.clone(),
                line: n,
                message: e.to_string(),
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
    }
    if out.is_empty() {
        return Err(TrajectoryFileError::Empty { file: name });
    }
    Ok(out)
}
