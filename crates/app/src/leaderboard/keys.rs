//! A run's records keyed against the plan: each record's key (the batch
//! item `knoblab eval` records, else `bundle/task#k`), and where each
//! episode belongs (device, category, task kind).

use std::collections::HashMap;

use knoblab_core::bundle::model::TIMED_WAIT;
use knoblab_core::bundle::Bundle;
use knoblab_core::metrics::file::TrajectoryFile;
use knoblab_core::sim::Trajectory;

use super::{RunInput, TaskKind};

/// An episode of the plan: which, and where it belongs.
#[derive(Debug, Clone)]
pub(super) struct Planned {
    pub(super) bundle_id: String,
    pub(super) task_id: String,
    pub(super) category: String,
    pub(super) kind: TaskKind,
}

/// A run's records, keyed: played ones with their row of summands.
#[derive(Debug, Clone)]
pub(super) struct Keyed {
    /// key → (line, index into the run's per-episode metrics).
    pub(super) played: HashMap<String, (usize, usize)>,
    /// key → line.
    pub(super) api_error: HashMap<String, usize>,
    /// Every key in file order, with what the plan needs of it.
    pub(super) order: Vec<(String, Planned)>,
}

/// A task's kind by its record's ideal path ([`TaskKind`]'s decision).
fn kind_of(t: &Trajectory, bundle: Option<&Bundle>) -> TaskKind {
    let timed = bundle.is_some_and(|b| {
        t.ideal_states.windows(2).any(|w| {
            b.ssm
                .states
                .get(&w[0])
                .and_then(|s| s.on.get(TIMED_WAIT))
                .is_some_and(|ts| ts.iter().any(|tr| tr.next_state == w[1]))
        })
    });
    if timed {
        TaskKind::Timed
    } else if t.goals_total > 1 {
        TaskKind::Multi
    } else {
        TaskKind::Single
    }
}

/// A record of a run: line, bundle, task, item, and its index among the
/// played episodes (`None`: an `api_error` record).
type Record<'a> = (usize, &'a str, &'a str, Option<&'a str>, Option<usize>);

/// A file's records, played and `api_error`, in line order, each with its
/// key: the item a record carries, else `bundle/task#k`, k counting that
/// task's records in line order.
fn records(file: &TrajectoryFile) -> Vec<(String, Record<'_>)> {
    let mut records: Vec<Record<'_>> = file
        .episodes
        .iter()
        .enumerate()
        .map(|(i, (line, t))| {
            let item = file.items.get(i).and_then(|x| x.as_deref());
            (
                *line,
                t.bundle_id.as_str(),
                t.task_id.as_str(),
                item,
                Some(i),
            )
        })
        .chain(file.api_error_episodes.iter().map(|a| {
            (
                a.line,
                a.bundle_id.as_str(),
                a.task_id.as_str(),
                a.item.as_deref(),
                None,
            )
        }))
        .collect();
    records.sort_by_key(|r| r.0);
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    records
        .into_iter()
        .map(|r| {
            let (_, bundle_id, task_id, item, _) = r;
            let k = seen.entry((bundle_id, task_id)).or_insert(0);
            let key = item.map_or_else(|| format!("{bundle_id}/{task_id}#{k}"), str::to_string);
            *k += 1;
            (key, r)
        })
        .collect()
}

/// The keys of a file's records, in line order: the plan a run covers.
pub fn keys_of(file: &TrajectoryFile) -> Vec<String> {
    records(file).into_iter().map(|(key, _)| key).collect()
}

/// The kind of a task no record of which was scored: by its goals.
pub(super) fn kind_by_goals(bundle: Option<&Bundle>, task_id: &str) -> TaskKind {
    let goals = bundle
        .and_then(|b| b.task(task_id))
        .map_or(1, |t| t.goals.len());
    if goals > 1 {
        TaskKind::Multi
    } else {
        TaskKind::Single
    }
}

/// The run's records keyed ([`records`]).
pub(super) fn keyed(run: &RunInput, by_id: &HashMap<&str, &Bundle>) -> Keyed {
    let records = records(&run.file);
    let mut out = Keyed {
        played: HashMap::new(),
        api_error: HashMap::new(),
        order: Vec::with_capacity(records.len()),
    };
    for (key, (line, bundle_id, task_id, _, played)) in records {
        let bundle = by_id.get(bundle_id).copied();
        let kind = match played {
            Some(i) => kind_of(&run.file.episodes[i].1, bundle),
            None => kind_by_goals(bundle, task_id),
        };
        let planned = Planned {
            bundle_id: bundle_id.to_string(),
            task_id: task_id.to_string(),
            category: bundle.map_or_else(|| "?".to_string(), |b| b.manifest.category.clone()),
            kind,
        };
        match played {
            Some(i) => {
                out.played.insert(key.clone(), (line, i));
            }
            None => {
                out.api_error.insert(key.clone(), line);
            }
        }
        out.order.push((key, planned));
    }
    out
}
