//! The view of a KnobLab trajectory file: the VGEBench main table (the
//! columns of `knoblab metrics`) and every episode. A run whose settings
//! name the human agent is labelled as the human baseline.

use serde_json::Value;

use super::{
    pointer, BarGroup, CellView, ChartView, ItemView, ItemsView, LeaderRow, ReportView, TableView,
};
use knoblab_core::display::number as plain;
use knoblab_core::metrics::columns::{Column, COLUMNS};
use knoblab_core::metrics::RunMetrics;

fn cell(doc: &Value, c: &Column) -> CellView {
    let mut cell = CellView::rate(doc, pointer(&[c.key]));
    if !c.is_rate() {
        cell.text = plain(cell.value);
    }
    cell
}

/// The view of one run; `doc` is its `knoblab metrics --json` document,
/// `agent` the run's agent or model name.
pub fn view(file: &str, detected: &str, run: &RunMetrics, doc: &Value, agent: &str) -> ReportView {
    let mut header = vec!["run".to_string(), "episodes".to_string()];
    header.extend(COLUMNS.iter().map(Column::heading));
    let mut row = vec![
        CellView::text(agent),
        CellView::count(doc, pointer(&["episodes"])),
    ];
    row.extend(COLUMNS.iter().map(|c| cell(doc, c)));
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
                knoblab_core::display::percent(e.metrics.sr),
                knoblab_core::display::percent(e.metrics.spl)
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
    let rates: Vec<&Column> = COLUMNS.iter().filter(|c| c.is_rate()).collect();
    ReportView {
        benchmark: "KnobLab trajectories".into(),
        file: file.into(),
        detected: detected.into(),
        notes: vec![format!("Agent: {agent}. Rates in %, VSPS, GVPE and distances on the 0–1000 scale; ↓ lower is better.")],
        unused: Vec::new(),
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
                .map(|c| BarGroup {
                    label: c.heading(),
                    values: vec![doc.get(c.key).and_then(Value::as_f64)],
                })
                .collect(),
        }],
        items: ItemsView {
            tasks,
            rows,
            on_demand: false,
        },
        row: LeaderRow {
            benchmark: "KnobLab trajectories".into(),
            file: file.into(),
            model: Some(agent.to_string()),
            columns: COLUMNS.iter().map(Column::heading).collect(),
            values: COLUMNS
                .iter()
                .map(|c| doc.get(c.key).and_then(Value::as_f64))
                .collect(),
            plain: (0..COLUMNS.len())
                .filter(|i| !COLUMNS[*i].is_rate())
                .collect(),
            group: None,
        },
    }
}
