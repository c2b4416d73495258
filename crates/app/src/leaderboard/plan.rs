//! A plan given with `--plan FILE` (and Python's `plan=`): the episodes
//! the runs were meant to cover, so that an episode no run played still
//! counts as missing in every row.
//!
//! The file is either a list of episode keys, one per line, as `knoblab
//! eval` records its batch items (`bundle/task#repeat`: each task of each
//! device, `--repeats` times), blank lines ignored; or a trajectory file
//! (JSON Lines) whose records are the plan: the run that covered it, such
//! as the oracle's on the same options.

use std::collections::HashMap;

use knoblab_core::bundle::Bundle;
use knoblab_core::metrics::file::read_trajectory_file;

use super::keys::{kind_by_goals, Planned};
use super::{keys_of, LeaderboardError};

/// What [`read_plan`] refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The bytes are not text.
    #[error("{0}; {PLAN_FORM}")]
    Text(knoblab_core::input::InputError),
    /// No line holds a key.
    #[error("holds no episode; {PLAN_FORM}")]
    Empty,
    /// A line is not an episode key.
    #[error(
        "line {line}: {text:?} is not an episode key bundle/task#repeat (such as kettle-0001/boil#0)"
    )]
    NotKey {
        /// The line, from 1.
        line: usize,
        /// The line's text, trimmed.
        text: String,
    },
}

const PLAN_FORM: &str =
    "a plan lists episode keys bundle/task#repeat, one per line, or is a trajectory file";

/// The plan's keys, in the file's order, each once. `name` is where the
/// bytes came from, for the messages.
pub fn read_plan(name: &str, bytes: &[u8]) -> Result<Vec<String>, LeaderboardError> {
    let fail = |problem: PlanError| LeaderboardError::Plan {
        name: name.to_string(),
        problem,
    };
    let text = knoblab_core::input::text::decode(bytes).map_err(|e| fail(PlanError::Text(e)))?;
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let keys = match first {
        None => return Err(fail(PlanError::Empty)),
        Some(line) if line.starts_with('{') => {
            let file = read_trajectory_file(name, bytes).map_err(LeaderboardError::PlanRun)?;
            keys_of(&file)
        }
        Some(_) => {
            let mut keys = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let key = line.trim();
                if key.is_empty() {
                    continue;
                }
                if split_key(key).is_none() {
                    return Err(fail(PlanError::NotKey {
                        line: i + 1,
                        text: key.to_string(),
                    }));
                }
                keys.push(key.to_string());
            }
            keys
        }
    };
    let mut seen = std::collections::HashSet::new();
    Ok(keys
        .into_iter()
        .filter(|k| seen.insert(k.clone()))
        .collect())
}

/// The episodes of a given plan (keys `bundle/task#repeat`), placed with
/// `bundles` (category and kind; `?` and by goals for a device not given).
pub fn given_plan(keys: &[String], bundles: &[Bundle]) -> Result<Vec<Given>, LeaderboardError> {
    let by_id: HashMap<&str, &Bundle> = bundles
        .iter()
        .map(|b| (b.manifest.id.as_str(), b))
        .collect();
    keys.iter()
        .map(|key| {
            let (bundle_id, task_id) =
                split_key(key).ok_or_else(|| LeaderboardError::PlanKey { key: key.clone() })?;
            let bundle = by_id.get(bundle_id).copied();
            Ok(Given(
                key.clone(),
                Planned {
                    bundle_id: bundle_id.to_string(),
                    task_id: task_id.to_string(),
                    category: bundle
                        .map_or_else(|| "?".to_string(), |b| b.manifest.category.clone()),
                    kind: kind_by_goals(bundle, task_id),
                },
            ))
        })
        .collect()
}

/// A key's device and task: `bundle/task#repeat`.
pub fn split_key(key: &str) -> Option<(&str, &str)> {
    let (episode, repeat) = key.rsplit_once('#')?;
    let (bundle, task) = episode.split_once('/')?;
    (!bundle.is_empty() && !task.is_empty() && repeat.parse::<u32>().is_ok())
        .then_some((bundle, task))
}

/// An episode of a plan given with `--plan`, placed.
#[derive(Debug, Clone)]
pub struct Given(pub(super) String, pub(super) Planned);

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test
    use super::*;

    #[test]
    fn a_list_of_keys_is_read_in_order_once_each_and_a_bad_line_is_named() {
        let keys = read_plan(
            "p.txt",
            b"a-0001/t1#0\n\n a-0001/t2#0 \na-0001/t1#0\nb-0002/x#3\n",
        )
        .unwrap();
        assert_eq!(keys, ["a-0001/t1#0", "a-0001/t2#0", "b-0002/x#3"]);
        let e = read_plan("p.txt", b"a-0001/t1#0\nnot a key\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.txt: line 2") && e.contains("bundle/task#repeat"),
            "{e}"
        );
        let e = read_plan("p.txt", b"a-0001/t1#x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = read_plan("p.txt", b"\n\n").unwrap_err().to_string();
        assert!(e.contains("holds no episode"), "{e}");
        let e = read_plan("p.txt", b"{\"broken\n").unwrap_err().to_string();
        assert!(e.contains("p.txt"), "{e}");
    }
}
