//! What a reader did not use (issue #47): every line or item of an input
//! that was skipped, refused, given twice, matched nothing or was left
//! out of a score, with its file and, where it has one, its line. Readers
//! return these beside their result; the faces show them (the CLI on
//! stderr and in `--json`, the page above its tables, Python in the
//! returned document), so nothing that changes a number is silent.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One line or item of an input that the numbers do not use (or use in
/// a way a person should know: a duplicate whose last copy is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unused {
    /// The file, as given (control characters escaped when shown).
    pub file: String,
    /// Its 1-based line (or, for a JSON array, item), where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What the item is (a sample, an image, a task id), where it has a name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// What happened to it.
    pub kind: UnusedKind,
    /// Why, in words.
    pub reason: String,
}

/// What happened to an item that the numbers do not use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnusedKind {
    /// Read past, as the official reader does (a line that is not JSON).
    Skipped,
    /// Refused by a rule of the input layer (a path out of its root).
    Refused,
    /// A second copy of an item: which copy counts is in `reason`.
    Duplicate,
    /// An item that names nothing in the ground truth or the library.
    Unmatched,
    /// An item of the ground truth (or a plan) with nothing to score it.
    Missing,
    /// Read, but left out of the score (an episode that ended in an API error).
    NotScored,
}

impl UnusedKind {
    /// The kind's name, as the JSON documents spell it.
    pub fn name(self) -> &'static str {
        match self {
            UnusedKind::Skipped => "skipped",
            UnusedKind::Refused => "refused",
            UnusedKind::Duplicate => "duplicate",
            UnusedKind::Unmatched => "unmatched",
            UnusedKind::Missing => "missing",
            UnusedKind::NotScored => "not_scored",
        }
    }
}

impl Unused {
    /// An item of `file` with neither line nor name.
    pub fn new(file: impl Into<String>, kind: UnusedKind, reason: impl Into<String>) -> Unused {
        Unused {
            file: file.into(),
            line: None,
            item: None,
            kind,
            reason: reason.into(),
        }
    }

    /// The same, at a 1-based line.
    pub fn at(mut self, line: usize) -> Unused {
        self.line = Some(line);
        self
    }

    /// The same, naming the item.
    pub fn named(mut self, item: impl Into<String>) -> Unused {
        self.item = Some(item.into());
        self
    }
}

/// `file:line: kind: item: reason`, control characters of the file's
/// name and the item escaped (they came from a file).
impl fmt::Display for Unused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", super::text::escape_controls(&self.file))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.kind.name())?;
        if let Some(item) = &self.item {
            write!(f, ": {}", super::text::escape_controls(item))?;
        }
        write!(f, ": {}", super::text::escape_controls(&self.reason))
    }
}

/// A summary per kind for people (`3 skipped, 1 duplicate`), in the kinds'
/// order; empty when nothing was left unused.
pub fn summary(unused: &[Unused]) -> String {
    let mut counts = std::collections::BTreeMap::<UnusedKind, usize>::new();
    for u in unused {
        *counts.entry(u.kind).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(kind, n)| format!("{n} {}", kind.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_with_where_and_what_escaped() {
        let u = Unused::new("a\x1b.jsonl", UnusedKind::Skipped, "not JSON")
            .at(3)
            .named("x\ny");
        assert_eq!(
            u.to_string(),
            "a\\u{1b}.jsonl:3: skipped: x\\u{a}y: not JSON"
        );
        let v = Unused::new("b.json", UnusedKind::NotScored, "api_error");
        assert_eq!(v.to_string(), "b.json: not_scored: api_error");
    }

    #[test]
    fn json_names_the_kind_and_leaves_out_what_is_absent() {
        let u = Unused::new("f", UnusedKind::Duplicate, "kept the last").at(2);
        let v = serde_json::to_value(&u).unwrap();
        assert_eq!(v["kind"], "duplicate");
        assert_eq!(v["line"], 2);
        assert!(v.get("item").is_none());
        let back: Unused = serde_json::from_value(v).unwrap();
        assert_eq!(back, u);
    }

    #[test]
    fn summary_counts_each_kind() {
        let list = [
            Unused::new("f", UnusedKind::Skipped, "a"),
            Unused::new("f", UnusedKind::Duplicate, "b"),
            Unused::new("f", UnusedKind::Skipped, "c"),
        ];
        assert_eq!(summary(&list), "2 skipped, 1 duplicate");
        assert_eq!(summary(&[]), "");
    }
}
