//! Which episodes a batch runs: its items (each chosen task of each chosen
//! bundle, repeated), the repeats field and the task filter as typed. The
//! batch ([`super::batch`]) and the chooser ([`super::selection`]) both
//! plan through [`plan`].

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// One episode of a batch: a task of a bundle, and which repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchItem {
    /// The bundle's id.
    pub bundle_id: String,
    /// The task's id.
    pub task_id: String,
    /// 0 for the first run of this task.
    pub repeat: u32,
}

impl BatchItem {
    /// A key naming the item within its batch, kept in its record.
    ///
    /// ```
    /// use knoblab_eval::vlm::items::BatchItem;
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

/// The most repeats of a task a batch may ask for.
pub const MAX_REPEATS: u32 = 100;

/// The repeats field as typed: a whole number from 1 to [`MAX_REPEATS`].
pub fn parse_repeats(text: &str) -> Result<u32, RepeatsError> {
    text.trim()
        .parse()
        .ok()
        .filter(|r| (1..=MAX_REPEATS).contains(r))
        .ok_or_else(|| RepeatsError {
            found: text.to_string(),
        })
}

/// A repeats field that is not a whole number from 1 to [`MAX_REPEATS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("repeats must be a whole number from 1 to {MAX_REPEATS}")]
pub struct RepeatsError {
    /// What was typed.
    pub found: String,
}

/// The task ids a batch is limited to, as typed: a comma-separated list,
/// blanks ignored; an empty list keeps every task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFilter {
    wanted: BTreeSet<String>,
}

impl TaskFilter {
    /// Reads `"t1, t2"`; spaces around an id are not part of it.
    pub fn parse(text: &str) -> TaskFilter {
        TaskFilter {
            wanted: text
                .split(',')
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect(),
        }
    }

    /// Whether the batch runs this task.
    pub fn keeps(&self, task: &str) -> bool {
        self.wanted.is_empty() || self.wanted.contains(task)
    }
}

impl TaskFilter {
    /// (bundle, task) pairs, such as a replay file's episodes, grouped by
    /// bundle in the order each bundle first appears, keeping the tasks
    /// this filter keeps (the input of [`plan`]).
    pub fn group_by_bundle(
        &self,
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Vec<(String, Vec<String>)> {
        let mut tasks: Vec<(String, Vec<String>)> = Vec::new();
        for (bundle, task) in pairs {
            if self.keeps(&task) {
                match tasks.iter_mut().find(|(b, _)| *b == bundle) {
                    Some((_, ts)) => ts.push(task),
                    None => tasks.push((bundle, vec![task])),
                }
            }
        }
        tasks
    }
}

/// `records` in the order their items are planned in `items` (a record
/// is found by its item's key, [`BatchItem::key`]); records of no planned
/// item come last, in the order given. Episodes finish in any order when
/// several run at once; an export in plan order is the same file whatever
/// the concurrency.
pub fn in_plan_order<'a, T>(
    items: &[BatchItem],
    records: &'a [T],
    key: impl Fn(&T) -> &str,
) -> Vec<&'a T> {
    let position: std::collections::HashMap<String, usize> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (item.key(), i))
        .collect();
    let mut out: Vec<&T> = records.iter().collect();
    out.sort_by_key(|r| position.get(key(r)).copied().unwrap_or(usize::MAX));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_put_in_plan_order_and_unknown_ones_last() {
        let item = |b: &str, t: &str, repeat| BatchItem {
            bundle_id: b.into(),
            task_id: t.into(),
            repeat,
        };
        let items = [item("a", "x", 0), item("a", "y", 0), item("b", "x", 1)];
        let finished = ["b/x#1", "stray/z#0", "a/y#0", "a/x#0", "other/q#0"];
        let ordered: Vec<&&str> = in_plan_order(&items, &finished, |s| s);
        assert_eq!(
            ordered,
            [&"a/x#0", &"a/y#0", &"b/x#1", &"stray/z#0", &"other/q#0"]
        );
    }

    #[test]
    fn repeats_are_a_whole_number_from_one_to_the_cap() {
        assert_eq!(parse_repeats(" 3 "), Ok(3));
        assert_eq!(parse_repeats("100"), Ok(MAX_REPEATS));
        for bad in ["0", "101", "2.5", "", "x", "-1"] {
            let e = parse_repeats(bad).unwrap_err();
            assert_eq!(e.found, bad);
            assert_eq!(
                e.to_string(),
                "repeats must be a whole number from 1 to 100"
            );
        }
    }

    #[test]
    fn the_task_filter_keeps_listed_ids_or_every_task_when_empty() {
        let all = TaskFilter::parse(" , ");
        assert!(all.keeps("anything"));
        let two = TaskFilter::parse("t1, t2 ,,");
        assert!(two.keeps("t1") && two.keeps("t2"));
        assert!(!two.keeps("t3") && !two.keeps(" t1"));
    }

    #[test]
    fn replay_pairs_group_by_bundle_in_first_seen_order() {
        let pairs = [("b", "t1"), ("a", "t2"), ("b", "t3"), ("a", "t9")]
            .map(|(b, t)| (b.to_string(), t.to_string()));
        let keep = TaskFilter::parse("t1,t2,t3");
        assert_eq!(
            keep.group_by_bundle(pairs),
            vec![
                ("b".to_string(), vec!["t1".to_string(), "t3".to_string()]),
                ("a".to_string(), vec!["t2".to_string()]),
            ]
        );
    }
}
