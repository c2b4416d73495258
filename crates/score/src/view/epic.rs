//! The EPIC-Bench report view: the paper's Table 2 row (official and
//! corrected side by side), the 23 tasks, the count breakdown of the
//! paper's figure 4, a chart per subcategory, and every sample.

use serde_json::Value;

use super::epic_overlay;
use super::{
    number, pointer, BarGroup, CellView, ChartView, ItemView, ItemsView, LeaderRow, ReportView,
    TableView,
};
use crate::epic::aggregate::count_accuracy_by_target_count;
use crate::epic::gt::{GroundTruthSource, GtCache};
use crate::epic::report::{InputKind, Report};
use crate::epic::scorer::SampleResult;
use crate::epic::shard::SampleEvidence;
use crate::epic::taxonomy::{GROUPS, LEAVES};
use knoblab_core::display::percent;

/// The two modes and where each keeps its summary in the CLI document.
const MODES: [(&str, &[&str]); 2] = [
    ("official", &["summary"]),
    ("corrected", &["corrected", "summary"]),
];

fn at(base: &[&str], rest: &[&str]) -> String {
    let parts: Vec<&str> = base.iter().chain(rest).copied().collect();
    pointer(&parts)
}

/// "Average" and the nine subcategories, in the paper's order.
fn table2(doc: &Value) -> TableView {
    let mut header = vec!["mode".to_string(), "Average".to_string()];
    header.extend(GROUPS.iter().map(|(abbr, _)| abbr.to_string()));
    let rows =
        MODES
            .iter()
            .map(|(mode, base)| {
                let mut row = vec![
                    CellView::text(*mode),
                    CellView::rate(doc, at(base, &["overall", "average_score"])),
                ];
                row.extend(GROUPS.iter().map(|(_, key)| {
                    CellView::rate(doc, at(base, &["by_group", key, "mean_score"]))
                }));
                row
            })
            .collect();
    TableView {
        id: "epic-table2".into(),
        span_rows: Vec::new(),
        title: "Table 2 row".into(),
        note: Some(
            "Average is the sample mean over all samples (overall.average_score), as in the paper; \
             a subcategory with no sample shows –."
                .into(),
        ),
        header,
        rows,
    }
}

/// The 23 tasks: samples, invalid replies, official and corrected means.
fn tasks(doc: &Value) -> TableView {
    let header = [
        "task",
        "subcategory",
        "n",
        "invalid",
        "official",
        "corrected",
    ]
    .map(String::from)
    .to_vec();
    let rows = LEAVES
        .iter()
        .filter(|l| number(doc, &["summary", "by_type", l.type_key, "total_processed"]).is_some())
        .map(|l| {
            let official = ["summary", "by_type", l.type_key];
            vec![
                CellView::text(l.leaf),
                CellView::text(l.abbr),
                CellView::count(doc, at(&official, &["total_processed"])),
                CellView::count(doc, at(&official, &["num_invalid_response"])),
                CellView::rate(doc, at(&official, &["mean_score"])),
                CellView::rate(
                    doc,
                    at(
                        &["corrected", "summary", "by_type", l.type_key],
                        &["mean_score"],
                    ),
                ),
            ]
        })
        .collect();
    TableView {
        id: "epic-tasks".into(),
        span_rows: Vec::new(),
        title: "Tasks".into(),
        note: None,
        header,
        rows,
    }
}

/// Count accuracy by the number of targets (KnobLab's own breakdown, after
/// the paper's figure 4; not in the official output).
fn counts(samples: &[SampleResult]) -> TableView {
    let rows = count_accuracy_by_target_count(samples)
        .into_iter()
        .map(|r| {
            let label = if r.gt_count >= 5 {
                "≥ 5".to_string()
            } else {
                r.gt_count.to_string()
            };
            vec![
                CellView::text(label),
                CellView::text(r.samples.to_string()),
                CellView::text(percent(Some(r.exact_accuracy))),
                CellView::text(percent(Some(r.mean_count_score))),
            ]
        })
        .collect();
    TableView {
        id: "epic-counts".into(),
        span_rows: Vec::new(),
        title: "Count accuracy by number of targets".into(),
        note: Some("Samples that score a count (TL, VM, CR) with both counts known.".into()),
        header: ["targets", "samples", "exact count", "mean count score"]
            .map(String::from)
            .to_vec(),
        rows,
    }
}

fn chart(doc: &Value) -> ChartView {
    ChartView {
        title: "Score per subcategory".into(),
        series: MODES.iter().map(|(m, _)| m.to_string()).collect(),
        groups: GROUPS
            .iter()
            .map(|(abbr, key)| BarGroup {
                label: abbr.to_string(),
                values: MODES
                    .iter()
                    .map(|(_, base)| {
                        let parts: Vec<&str> = base
                            .iter()
                            .copied()
                            .chain(["by_group", key, "mean_score"])
                            .collect();
                        number(doc, &parts)
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The sample's id: its GT file's folder name, or its position.
fn sample_id(s: &SampleResult) -> String {
    s.gt_path
        .as_deref()
        .and_then(|p| p.rsplit('/').nth(1))
        .map_or_else(|| format!("#{}", s.index), str::to_string)
}

/// An item's row: id, task, score and the one line of why.
fn row(s: &SampleResult) -> ItemView {
    let summary = match (&s.error, s.invalid_response) {
        (Some(e), _) => e.clone(),
        (None, true) => "invalid response".into(),
        (None, false) => s.quirks.first().map(|q| q.describe()).unwrap_or_default(),
    };
    ItemView {
        id: sample_id(s),
        task: s
            .leaf
            .map_or_else(|| s.task_type.clone(), |l| l.leaf.to_string()),
        score: Some(s.score),
        invalid: s.invalid_response,
        summary,
        details: Vec::new(),
        overlay: None,
    }
}

/// An item with its drill-down: the reply, what was parsed, the score
/// details, the corrected score, the quirks and the GT file, and its GT
/// masks and predictions over its image. The page asks the worker for it
/// when a visitor opens the item ([`knoblab_app::job::epic_item`]).
pub fn evidence(sample: &SampleEvidence, gt: &dyn GroundTruthSource) -> ItemView {
    let s = &sample.official;
    let mut details = Vec::new();
    if let Some(f) = &sample.formatted {
        details.push(("reply".into(), f.response.clone()));
    }
    details.push((
        "parsed".into(),
        serde_json::to_string(&s.response_details).unwrap_or_default(),
    ));
    details.push((
        "score details".into(),
        serde_json::to_string(&s.score_details).unwrap_or_default(),
    ));
    if let Some(c) = &sample.corrected {
        details.push(("corrected score".into(), format!("{}", c.score)));
    }
    for q in &s.quirks {
        details.push(("quirk".into(), q.describe()));
    }
    if let Some(p) = &s.gt_path {
        let found = if s.gt_found { "found" } else { "missing" };
        details.push(("ground truth".into(), format!("{p} ({found})")));
    }
    let mut cache = GtCache::new(gt);
    ItemView {
        details,
        overlay: epic_overlay::overlay(s, sample.formatted.as_ref().map(|f| &f.record), &mut cache),
        ..row(s)
    }
}

/// The view of one EPIC-Bench report; `doc` is its CLI JSON document.
/// Its items are rows only: each one's drill-down is scored again when a
/// visitor opens it ([`evidence`]).
pub fn view(file: &str, detected: &str, report: &Report, doc: &Value) -> ReportView {
    let mut notes = vec![format!("Ground truth: {}.", report.gt_coverage_message())];
    if let Some(mode) = &report.coord_override {
        notes.push(format!(
            "Coordinates forced to {mode} (the model family's mode)."
        ));
    }
    notes.push(
        "Corrected mode: list-wrapped failure markers honoured, exact start-goal distance for Exo paths, \
         trailing commas and any fence tag parsed."
            .into(),
    );
    if let Some(c) = &report.comparison {
        notes.push(match c.len() {
            0 => "Re-scored: every number equals the official file's.".into(),
            n => format!("Re-scored: {n} numbers differ from the official file's (see the items)."),
        });
    }
    if report.kind == InputKind::Raw {
        if let Some(f) = &report.formatted {
            if !f.skipped_lines.is_empty() {
                notes.push(format!(
                    "{} lines are not JSON and were skipped.",
                    f.skipped_lines.len()
                ));
            }
        }
    }
    let samples = &report.official.samples;
    let mut tasks_seen: Vec<String> = Vec::new();
    let rows: Vec<ItemView> = samples.iter().map(row).collect();
    for r in &rows {
        if !tasks_seen.contains(&r.task) {
            tasks_seen.push(r.task.clone());
        }
    }
    let table2 = table2(doc);
    let leader = LeaderRow {
        benchmark: "EPIC-Bench".into(),
        file: file.into(),
        model: None,
        columns: table2.header[1..].to_vec(),
        values: table2
            .rows
            .first()
            .map(|r| r[1..].iter().map(|c| c.value).collect())
            .unwrap_or_default(),
        plain: Vec::new(),
        group: None,
    };
    ReportView {
        benchmark: "EPIC-Bench".into(),
        file: file.into(),
        detected: detected.into(),
        notes,
        unused: Vec::new(),
        tables: vec![table2, tasks(doc), counts(samples)],
        charts: vec![chart(doc)],
        items: ItemsView {
            tasks: tasks_seen,
            rows,
            on_demand: true,
        },
        row: leader,
    }
}
