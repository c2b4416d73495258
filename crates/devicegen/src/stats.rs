//! `knoblab library stats`: the library's figures beside the paper's
//! (VGEBench Table 2: devices, categories and episodes; Table 7: devices
//! per category; Table 8: the action mix over all transitions).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::generated::GeneratedIndex;

/// The paper's Table 2 totals.
pub const PAPER_DEVICES: usize = 968;
/// Categories in the paper's Table 2.
pub const PAPER_CATEGORIES: usize = 26;
/// Episodes in the paper's Table 2, single- and multi-turn.
pub const PAPER_EPISODES: usize = 14_953;
/// Single-turn episodes in the paper's Table 2.
pub const PAPER_SINGLE: usize = 4_948;
/// Multi-turn episodes in the paper's Table 2.
pub const PAPER_MULTI: usize = 10_005;
/// The paper's Table 8, in percent of all transitions.
pub const PAPER_ACTIONS: [(&str, f64); 6] = [
    ("press", 45.0),
    ("rotate", 28.0),
    ("push", 14.0),
    ("pull", 6.0),
    ("timed_wait", 4.0),
    ("grasp", 3.0),
];
/// How far (percentage points) an action's share may be from the paper's.
pub const ACTION_TOLERANCE: f64 = 5.0;

/// One device as the figures count it.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceFigures {
    /// Its category's name.
    pub category: String,
    /// Its single-turn tasks (one goal).
    pub single: usize,
    /// Its multi-turn tasks (two goals or more).
    pub multi: usize,
    /// Per atomic action, how many of its template's transitions take it.
    pub actions: BTreeMap<String, usize>,
}

/// The library's figures, with the paper's beside them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Devices in all, hand-described and generated.
    pub devices: usize,
    /// Devices described by hand.
    pub hand_described: usize,
    /// Devices generated from the design space.
    pub generated: usize,
    /// Categories with at least one device.
    pub categories: usize,
    /// Tasks of all devices, single- and multi-turn.
    pub episodes: usize,
    /// Single-turn tasks of all devices.
    pub single: usize,
    /// Multi-turn tasks of all devices.
    pub multi: usize,
    /// Devices per category: (ours, the paper's).
    pub per_category: BTreeMap<String, (usize, usize)>,
    /// Transitions of all devices' templates: what the action shares divide.
    pub transitions: usize,
    /// Per action: (our share in percent, the paper's).
    pub actions: Vec<(String, f64, f64)>,
    /// The design space's version (the generated manifest's).
    pub version: String,
    /// The generated manifest's content hash.
    pub hash: String,
    /// The whole library's identity (`data/library-version.json`), when
    /// read: what every trajectory of its devices records.
    pub library: Option<knoblab_core::bundle::LibraryStamp>,
}

impl Stats {
    /// The actions whose share is more than [`ACTION_TOLERANCE`] points
    /// from the paper's.
    pub fn actions_off(&self) -> Vec<&str> {
        self.actions
            .iter()
            .filter(|(_, ours, paper)| (ours - paper).abs() > ACTION_TOLERANCE)
            .map(|(a, ..)| a.as_str())
            .collect()
    }
}

/// The figures of `hand` (the hand-described devices) and the generated
/// ones, against the paper's counts `paper_counts` (Table 7).
pub fn stats(
    hand: &[DeviceFigures],
    generated: &GeneratedIndex,
    paper_counts: &BTreeMap<String, usize>,
) -> Stats {
    let all: Vec<DeviceFigures> = hand
        .iter()
        .cloned()
        .chain(generated.devices.iter().map(|d| DeviceFigures {
            category: d.category.clone(),
            single: d.single,
            multi: d.multi,
            actions: d.actions.clone(),
        }))
        .collect();
    let mut per_category: BTreeMap<String, (usize, usize)> = paper_counts
        .iter()
        .map(|(c, n)| (c.clone(), (0, *n)))
        .collect();
    let mut actions: BTreeMap<String, usize> = BTreeMap::new();
    for d in &all {
        per_category.entry(d.category.clone()).or_insert((0, 0)).0 += 1;
        for (a, n) in &d.actions {
            *actions.entry(a.clone()).or_insert(0) += n;
        }
    }
    let transitions: usize = actions.values().sum();
    let share = |a: &str| {
        if transitions == 0 {
            0.0
        } else {
            100.0 * actions.get(a).copied().unwrap_or(0) as f64 / transitions as f64
        }
    };
    let mut mix: Vec<(String, f64, f64)> = PAPER_ACTIONS
        .iter()
        .map(|(a, p)| (a.to_string(), share(a), *p))
        .collect();
    for a in actions.keys() {
        if !PAPER_ACTIONS.iter().any(|(p, _)| p == a) {
            mix.push((a.clone(), share(a), 0.0));
        }
    }
    let single = all.iter().map(|d| d.single).sum::<usize>();
    let multi = all.iter().map(|d| d.multi).sum::<usize>();
    Stats {
        devices: all.len(),
        hand_described: hand.len(),
        generated: generated.devices.len(),
        categories: per_category.values().filter(|(n, _)| *n > 0).count(),
        episodes: single + multi,
        single,
        multi,
        per_category,
        transitions,
        actions: mix,
        version: generated.version.clone(),
        hash: generated.hash.clone(),
        library: None,
    }
}

/// The figures as a table for people (Markdown, so docs/library.md can show it).
pub fn table(s: &Stats) -> String {
    let mut out = String::new();
    if let Some(library) = &s.library {
        let _ = writeln!(
            out,
            "KnobLab library version {} (content hash {}), recorded by every trajectory of its devices",
            library.version, library.hash
        );
    }
    let _ = writeln!(
        out,
        "{} hand-described + {} generated devices (design space version {}, generated manifest hash {})\n",
        s.hand_described,
        s.generated,
        s.version,
        &s.hash[..s.hash.len().min(16)],
    );
    let _ = writeln!(out, "| Table 2 | KnobLab | paper |\n|---|---:|---:|");
    for (what, ours, paper) in [
        ("devices", s.devices, PAPER_DEVICES),
        ("categories", s.categories, PAPER_CATEGORIES),
        ("episodes", s.episodes, PAPER_EPISODES),
        ("single-turn", s.single, PAPER_SINGLE),
        ("multi-turn", s.multi, PAPER_MULTI),
    ] {
        let _ = writeln!(out, "| {what} | {ours} | {paper} |");
    }
    let _ = writeln!(
        out,
        "\n| Table 8: action | KnobLab % | paper % | difference |\n|---|---:|---:|---:|"
    );
    for (a, ours, paper) in &s.actions {
        let _ = writeln!(
            out,
            "| {a} | {ours:.1} | {paper:.1} | {:+.1} |",
            ours - paper
        );
    }
    let _ = writeln!(out, "\n({} transitions)", s.transitions);
    let _ = writeln!(
        out,
        "\n| Table 7: category | KnobLab | paper |\n|---|---:|---:|"
    );
    let mut rows: Vec<(&String, &(usize, usize))> = s.per_category.iter().collect();
    rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(b.0)));
    for (c, (ours, paper)) in rows {
        let _ = writeln!(out, "| {c} | {ours} | {paper} |");
    }
    out
}

/// A bundle's figures (a hand-described device's, read from its folder).
pub fn figures(bundle: &knoblab_core::bundle::Bundle) -> DeviceFigures {
    let single = bundle.tasks.iter().filter(|t| t.goals.len() == 1).count();
    DeviceFigures {
        category: bundle.manifest.category.clone(),
        single,
        multi: bundle.tasks.len() - single,
        actions: super::generated::action_counts(&bundle.ssm),
    }
}
