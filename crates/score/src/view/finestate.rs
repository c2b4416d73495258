//! The FineState-Bench report view: the four rates per platform and their
//! plain mean, official and corrected side by side with the counts behind
//! each rate, the breakdowns by family and component type, and every
//! instance with its boxes and points.

use serde_json::Value;

use super::{
    number, pointer, BarGroup, CellView, ChartView, ItemView, ItemsView, LeaderRow, Overlay,
    ReportView, Shape, TableView,
};
use crate::finestate::metrics::{Tally, METRIC_LABELS};
use crate::finestate::report::{GroupScores, InstanceResult, QueryResult, Report};

const MODES: [&str; 2] = ["official", "corrected"];

/// The numerator and denominator behind each rate, in [`METRIC_LABELS`]
/// order, as [`Tally::rates`] divides them.
fn fractions(t: &Tally) -> [(usize, usize); 4] {
    [
        (t.locate_success, t.valid_locate_cases),
        (t.interaction_success, t.valid_interact_cases),
        (t.state_awareness_locate, t.valid_locate_cases),
        (t.state_awareness_interaction, t.valid_interact_cases),
    ]
}

/// A rate cell with its counts ("26.5 (9/34)").
fn rate_with_counts(doc: &Value, parts: &[&str], (k, n): (usize, usize)) -> CellView {
    let mut cell = CellView::rate(doc, pointer(parts));
    if cell.value.is_some() {
        cell.text = format!("{} ({k}/{n})", cell.text);
    }
    cell
}

fn header(first: &str) -> Vec<String> {
    let mut h = vec![first.to_string()];
    h.extend(METRIC_LABELS.iter().map(|(_, label)| label.to_string()));
    h
}

/// One mode's table: a row per platform, then the mean over platforms.
fn rates_table(doc: &Value, report: &Report, mode: &str) -> TableView {
    let mut rows: Vec<Vec<CellView>> = report
        .platforms
        .iter()
        .map(|p| {
            let tally = if mode == "official" {
                &p.official
            } else {
                &p.corrected
            };
            let mut row = vec![CellView::text(p.platform.name())];
            for ((key, _), f) in METRIC_LABELS.iter().zip(fractions(tally)) {
                row.push(rate_with_counts(doc, &[p.platform.name(), mode, key], f));
            }
            row
        })
        .collect();
    let mut mean = vec![CellView::text("mean")];
    mean.extend(
        METRIC_LABELS
            .iter()
            .map(|(key, _)| CellView::rate(doc, pointer(&["mean", mode, key]))),
    );
    rows.push(mean);
    TableView {
        id: format!("finestate-{mode}"),
        span_rows: Vec::new(),
        title: format!(
            "{} mode",
            if mode == "official" {
                "Official"
            } else {
                "Corrected"
            }
        ),
        note: Some(if mode == "official" {
            "The released code's numbers, quirks included: ES-SR@Int always equals SR@Int.".into()
        } else {
            "The point the model clearly gave; ES rates conditioned on a correct locate / interact."
                .into()
        }),
        header: header("platform"),
        rows,
    }
}

/// A breakdown (by family or component type), official numbers.
fn breakdown(
    doc: &Value,
    id: &str,
    title: &str,
    section: &str,
    groups: &[GroupScores],
) -> TableView {
    let rows = groups
        .iter()
        .map(|g| {
            let mut row = vec![CellView::text(format!(
                "{} / {}",
                g.platform.name(),
                g.group
            ))];
            for ((key, _), f) in METRIC_LABELS.iter().zip(fractions(&g.official)) {
                row.push(rate_with_counts(
                    doc,
                    &[section, g.platform.name(), &g.group, "official", key],
                    f,
                ));
            }
            row
        })
        .collect();
    TableView {
        id: id.into(),
        span_rows: Vec::new(),
        title: title.into(),
        note: Some("Official mode.".into()),
        header: header("platform / group"),
        rows,
    }
}

fn chart(doc: &Value) -> ChartView {
    ChartView {
        title: "Mean over platforms".into(),
        series: MODES.map(String::from).to_vec(),
        groups: METRIC_LABELS
            .iter()
            .map(|(key, label)| BarGroup {
                label: label.to_string(),
                values: MODES
                    .iter()
                    .map(|m| number(doc, &["mean", m, key]))
                    .collect(),
            })
            .collect(),
    }
}

/// `[x0, y0, x1, y1]` of a box value, when it is one.
fn rect(v: &Value) -> Option<[f64; 4]> {
    let a = v.as_array()?;
    match a.as_slice() {
        [x0, y0, x1, y1] => Some([x0.as_f64()?, y0.as_f64()?, x1.as_f64()?, y1.as_f64()?]),
        _ => None,
    }
}

fn official_point(q: &QueryResult) -> Option<[f64; 2]> {
    match &q.official {
        crate::finestate::evaluate::QueryOutcome::Scored { point, .. } => *point,
        _ => None,
    }
}

fn describe(q: &QueryResult) -> String {
    serde_json::to_string(q).unwrap_or_default()
}

fn item(r: &InstanceResult) -> ItemView {
    let i = &r.instance;
    let mut shapes: Vec<Shape> = [&i.bbox, &i.now, &i.target]
        .into_iter()
        .filter_map(rect)
        .map(|rect| Shape::Box { rect, gt: true })
        .collect();
    for (q, label) in [(&r.locate, "p0"), (&r.interact, "p1")] {
        if let Some(at) = official_point(q) {
            shapes.push(Shape::Point {
                at,
                gt: false,
                label: label.into(),
            });
        }
    }
    let hits = [r.locate.official.hit(), r.interact.official.hit()];
    let differences: Vec<String> = r
        .locate
        .differences
        .iter()
        .chain(&r.interact.differences)
        .cloned()
        .collect();
    let summary = r
        .evaluation_error
        .clone()
        .or_else(|| differences.first().cloned())
        .unwrap_or_else(|| {
            format!(
                "locate {}, interact {}",
                hit_word(hits[0]),
                hit_word(hits[1])
            )
        });
    ItemView {
        id: i.key.clone(),
        task: i.platform.name().into(),
        score: Some(hits.iter().filter(|h| **h).count() as f64 / 2.0),
        invalid: r.evaluation_error.is_some(),
        summary,
        details: vec![
            ("image".into(), i.image_path.clone()),
            ("component".into(), i.component_type.clone()),
            ("locate".into(), describe(&r.locate)),
            ("interact".into(), describe(&r.interact)),
        ],
        overlay: Some(Overlay {
            image: Some(i.image_path.clone()),
            width: Some(1.0),
            height: Some(1.0),
            shapes,
        }),
    }
}

fn hit_word(hit: bool) -> &'static str {
    if hit {
        "hit"
    } else {
        "missed"
    }
}

/// The view of one FineState-Bench report; `doc` is its CLI JSON document.
pub fn view(file: &str, detected: &str, report: &Report, doc: &Value) -> ReportView {
    let mut notes = vec![format!(
        "Model {}, parser {:?}; {} queries score differently in the two modes (listed per item).",
        report.options.official.model.as_deref().unwrap_or("(none)"),
        report.options.official.parser,
        report.disagreements()
    )];
    if !report.skipped.is_empty() {
        let shown: Vec<String> = report
            .skipped
            .iter()
            .take(5)
            .map(|s| format!("{}: {}", s.source, s.message))
            .collect();
        notes.push(format!(
            "{} annotation records left out: {}",
            report.skipped.len(),
            shown.join("; ")
        ));
    }
    if !report.prediction_problems.is_empty() {
        let shown: Vec<String> = report
            .prediction_problems
            .iter()
            .take(5)
            .map(|p| format!("{}: {}", p.source, p.message))
            .collect();
        notes.push(format!(
            "{} predictions not read: {}",
            report.prediction_problems.len(),
            shown.join("; ")
        ));
    }
    let official = rates_table(doc, report, "official");
    let mut columns = Vec::new();
    let mut values = Vec::new();
    for mode in MODES {
        for (key, label) in METRIC_LABELS {
            columns.push(if mode == "official" {
                label.to_string()
            } else {
                format!("{label} (corr.)")
            });
            values.push(number(doc, &["mean", mode, key]));
        }
    }
    ReportView {
        benchmark: "FineState-Bench".into(),
        file: file.into(),
        detected: detected.into(),
        notes,
        unused: Vec::new(),
        tables: vec![
            official,
            rates_table(doc, report, "corrected"),
            breakdown(
                doc,
                "finestate-family",
                "By interaction family",
                "by_family",
                &report.by_family,
            ),
            breakdown(
                doc,
                "finestate-component",
                "By component type",
                "by_component_type",
                &report.by_component_type,
            ),
        ],
        charts: vec![chart(doc)],
        items: ItemsView {
            tasks: report
                .platforms
                .iter()
                .map(|p| p.platform.name().to_string())
                .collect(),
            rows: report.per_instance.iter().map(item).collect(),
            on_demand: false,
        },
        row: LeaderRow {
            benchmark: "FineState-Bench".into(),
            file: file.into(),
            model: report.options.official.model.clone(),
            columns,
            values,
            plain: Vec::new(),
            group: None,
        },
    }
}
