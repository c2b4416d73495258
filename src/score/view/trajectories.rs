//! The view of a KnobLab trajectory file: the VGEBench main table (the
//! columns of `knoblab metrics`) and every episode. A run whose settings
//! name the human agent is labelled as the human baseline.

use serde_json::Value;

use super::{
    pointer, BarGroup, CellView, ChartView, ItemView, ItemsView, LeaderRow, ReportView, TableView,
};
use crate::display::number as plain;
use crate::metrics::RunMetrics;

/// The main table's columns: (JSON key, label, is a rate).
const COLUMNS: [(&str, &str, bool); 12] = [
    ("sr", "SR", true),
    ("ssr", "SSR", true),
    ("spl", "SPL", true),
    ("state_f1", "State-F1", true),
    ("eir", "EIR", true),
    ("tir", "TIR", true),
    ("vsps", "VSPS↓", false),
    ("gvpe", "GVPE↓", false),
    ("eer", "EER", true),
    ("psr", "PSR", true),
    ("avg_dist", "Avg Dist↓", false),
    ("avg_w_dist", "Avg W-Dist↓", false),
];

fn cell(doc: &Value, key: &str, rate: bool) -> CellView {
    let mut c = CellView::rate(doc, pointer(&[key]));
    if !rate {
        c.text = plain(c.value);
    }
    c
}

/// The view of one run; `doc` is its `knoblab metrics --json` document,
/// `agent` the run's agent or model name.
pub fn view(file: &str, detected: &str, run: &RunMetrics, doc: &Value, agent: &str) -> ReportView {
    let mut header = vec!["run".to_string(), "episodes".to_string()];
    header.extend(COLUMNS.iter().map(|(_, l, _)| l.to_string()));
    let mut row = vec![
        CellView::text(agent),
        CellView::count(doc, pointer(&["episodes"])),
    ];
    row.extend(COLUMNS.iter().map(|(k, _, rate)| cell(doc, k, *rate)));
    let rows = run
        .per_episode
        .iter()
        .map(|e| ItemView {
            id: format!("{} / {}", e.bundle_id, e.task_id),
            task: e.task_id.clone(),
            score: e.metrics.sr,
            invalid: false,
            summary: format!(
                "SR {}, SPL {}",
                crate::display::percent(e.metrics.sr),
                crate::display::percent(e.metrics.spl)
            ),
            details: vec![(
                "metrics".into(),
                serde_json::to_string(&e.metrics).unwrap_or_default(),
            )],
            overlay: None,
        })
        .collect::<Vec<_>>();
    let mut tasks: Vec<String> = Vec::new();
    for r in &rows {
        if !tasks.contains(&r.task) {
            tasks.push(r.task.clone());
        }
    }
    let rates: Vec<&(&str, &str, bool)> = COLUMNS.iter().filter(|c| c.2).collect();
    ReportView {
        benchmark: "KnobLab trajectories".into(),
        file: file.into(),
        detected: detected.into(),
        notes: vec![format!("Agent: {agent}. Rates in %, VSPS, GVPE and distances on the 0–1000 scale; ↓ lower is better.")],
        tables: vec![TableView {
            id: "trajectories-main".into(),
            span_rows: Vec::new(),
            title: "VGEBench main results".into(),
            note: None,
            header,
            rows: vec![row],
        }],
        charts: vec![ChartView {
            title: "Rates".into(),
            series: vec![agent.to_string()],
            groups: rates
                .iter()
                .map(|(k, l, _)| BarGroup {
                    label: l.to_string(),
                    values: vec![doc.get(k).and_then(Value::as_f64)],
                })
                .collect(),
        }],
        items: ItemsView { tasks, rows },
        row: LeaderRow {
            benchmark: "KnobLab trajectories".into(),
            file: file.into(),
            model: Some(agent.to_string()),
            columns: COLUMNS.iter().map(|(_, l, _)| l.to_string()).collect(),
            values: COLUMNS.iter().map(|(k, _, _)| doc.get(k).and_then(Value::as_f64)).collect(),
            plain: (0..COLUMNS.len()).filter(|i| !COLUMNS[*i].2).collect(),
            group: None,
        },
    }
}
