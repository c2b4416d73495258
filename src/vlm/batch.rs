//! A batch: which episodes to run, which are still to do after a reload,
//! and how far along it is (progress, ETA, tokens, cost).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::record::{EpisodeRecord, EpisodeStatus};
use super::reply::Usage;

/// One episode of a batch: a task of a bundle, and which repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchItem {
    pub bundle_id: String,
    pub task_id: String,
    /// 0 for the first run of this task.
    pub repeat: u32,
}

impl BatchItem {
    /// A key naming the item within its batch, kept in its record.
    ///
    /// ```
    /// use knoblab::vlm::batch::BatchItem;
    /// let i = BatchItem { bundle_id: "kettle-0001".into(), task_id: "boil".into(), repeat: 2 };
    /// assert_eq!(i.key(), "kettle-0001/boil#2");
    /// ```
    pub fn key(&self) -> String {
        format!("{}/{}#{}", self.bundle_id, self.task_id, self.repeat)
    }
}

/// The items of a batch: each chosen task of each chosen bundle (in the
/// order given), `repeats` times, repeats of a task together.
pub fn plan(tasks: &[(String, Vec<String>)], repeats: u32) -> Vec<BatchItem> {
    let mut out = Vec::new();
    for (bundle_id, task_ids) in tasks {
        for task_id in task_ids {
            for repeat in 0..repeats.max(1) {
                out.push(BatchItem {
                    bundle_id: bundle_id.clone(),
                    task_id: task_id.clone(),
                    repeat,
                });
            }
        }
    }
    out
}

/// The items not yet finished: those without a record. A resumed batch
/// runs exactly these, so every item ends with one record.
pub fn remaining(items: &[BatchItem], done: &[EpisodeRecord]) -> Vec<BatchItem> {
    let finished: BTreeSet<&str> = done.iter().map(|r| r.item.as_str()).collect();
    items
        .iter()
        .filter(|i| !finished.contains(i.key().as_str()))
        .cloned()
        .collect()
}

/// How far a batch is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub api_errors: usize,
    pub usage: Usage,
    pub cost: Option<f64>,
    /// Estimated time left, once an episode has finished in this session.
    pub eta_ms: Option<u64>,
}

impl Progress {
    /// The progress of `records` out of `total` items. The ETA assumes the
    /// items left take as long as those finished in this session took:
    /// `finished_here` episodes in `elapsed_ms`, `concurrency` at a time
    /// (already reflected in the elapsed time).
    pub fn new(
        records: &[EpisodeRecord],
        total: usize,
        finished_here: usize,
        elapsed_ms: u64,
        cost: impl Fn(Usage) -> Option<f64>,
    ) -> Progress {
        let mut usage = Usage::default();
        for r in records {
            usage.add(r.usage);
        }
        let done = records.len().min(total);
        let left = (total - done) as u64;
        let eta_ms = (finished_here > 0).then(|| elapsed_ms / finished_here as u64 * left);
        Progress {
            done,
            total,
            api_errors: records
                .iter()
                .filter(|r| r.status == EpisodeStatus::ApiError)
                .count(),
            usage,
            cost: cost(usage),
            eta_ms,
        }
    }

    /// Done as a fraction in [0, 1] (1 for an empty batch).
    pub fn fraction(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        }
    }
}

/// A duration for people: `42 s`, `3 min 05 s`, `2 h 07 min`.
///
/// ```
/// use knoblab::vlm::batch::human_duration;
/// assert_eq!(human_duration(42_000), "42 s");
/// assert_eq!(human_duration(185_000), "3 min 05 s");
/// assert_eq!(human_duration(7_620_000), "2 h 07 min");
/// ```
pub fn human_duration(ms: u64) -> String {
    let s = ms / 1_000;
    match s {
        0..=59 => format!("{s} s"),
        60..=3_599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3_600, s % 3_600 / 60),
    }
}
