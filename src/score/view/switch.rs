//! The SWITCH report view: the paper's eight skill columns and Overall,
//! accuracy per form and scenario, OpenQA exact match and F1, the judge's
//! diagnostics when present, generated-video means, and every item.

use serde_json::Value;

use super::{
    number, pointer, BarGroup, CellView, ChartView, ItemView, ItemsView, LeaderRow, ReportView,
    TableView,
};
use crate::score::switch::dataset::Skill;
use crate::score::switch::report::{ItemResult, SwitchReport};

/// A one-row table of accuracy cells under `base`: Overall first (when
/// `overall` names it), then each column.
fn accuracy_row(
    doc: &Value,
    base: &[&str],
    overall: Option<&str>,
    columns: &[String],
) -> (Vec<String>, Vec<CellView>) {
    let mut header = Vec::new();
    let mut row = Vec::new();
    if let Some(key) = overall {
        header.push("Overall".to_string());
        let parts: Vec<&str> = base.iter().copied().chain([key, "accuracy"]).collect();
        row.push(CellView::rate(doc, pointer(&parts)));
    }
    for c in columns {
        header.push(c.clone());
        let parts: Vec<&str> = base
            .iter()
            .copied()
            .chain([c.as_str(), "accuracy"])
            .collect();
        row.push(CellView::rate(doc, pointer(&parts)));
    }
    (header, row)
}

fn one_row_table(
    id: &str,
    title: &str,
    note: Option<&str>,
    (header, row): (Vec<String>, Vec<CellView>),
) -> TableView {
    TableView {
        id: id.into(),
        title: title.into(),
        note: note.map(str::to_string),
        header,
        rows: vec![row],
    }
}

fn names<T>(columns: &crate::score::switch::report::Columns<T>) -> Vec<String> {
    columns.0.iter().map(|(k, _)| k.clone()).collect()
}

fn openqa(doc: &Value, report: &SwitchReport) -> TableView {
    let mut header = vec!["".to_string(), "All".to_string()];
    header.extend(names(&report.openqa.columns));
    let rows = ["em", "f1"]
        .iter()
        .map(|metric| {
            let mut row = vec![
                CellView::text(metric.to_uppercase()),
                CellView::rate(doc, pointer(&["openqa", metric])),
            ];
            row.extend(
                report
                    .openqa
                    .columns
                    .0
                    .iter()
                    .map(|(c, _)| CellView::rate(doc, pointer(&["openqa", c, metric]))),
            );
            row
        })
        .collect();
    TableView {
        id: "switch-openqa".into(),
        title: "OpenQA (offline: exact match and token F1)".into(),
        note: None,
        header,
        rows,
    }
}

fn judge(doc: &Value, report: &SwitchReport) -> Option<TableView> {
    let j = report.judge.as_ref()?;
    let mut header = vec!["Accuracy".to_string()];
    let mut row = vec![CellView::rate(doc, pointer(&["judge", "accuracy"]))];
    for (k, _) in &j.answer_match_share.0 {
        header.push(k.clone());
        row.push(CellView::rate(
            doc,
            pointer(&["judge", "answer_match_share", k]),
        ));
    }
    header.push("judge failures".into());
    row.push(CellView::count(doc, pointer(&["judge", "judge_failures"])));
    Some(TableView {
        id: "switch-judge".into(),
        title: "OpenQA judge: accuracy and diagnostics".into(),
        note: Some("Shares of the verdicts, in the paper's diagnostic order.".into()),
        header,
        rows: vec![row],
    })
}

fn video(doc: &Value, report: &SwitchReport) -> Option<TableView> {
    let v = report.video.as_ref()?;
    let keys = [
        "scene_fidelity",
        "control_correctness",
        "procedure_correctness",
        "execution_observability",
        "overall_score",
    ];
    let mut header = vec![
        "model".to_string(),
        "input form".to_string(),
        "n".to_string(),
    ];
    header.extend(keys.iter().map(|k| k.replace('_', " ")));
    let rows = v
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let i = i.to_string();
            let mut row = vec![
                CellView::text(r.model.clone()),
                CellView::text(r.input_form.clone()),
                CellView::count(doc, pointer(&["video", "rows", &i, "n"])),
            ];
            row.extend(
                keys.iter()
                    .map(|k| CellView::count(doc, pointer(&["video", "rows", &i, k]))),
            );
            row
        })
        .collect();
    Some(TableView {
        id: "switch-video".into(),
        title: "Generated videos: judge means (1–5)".into(),
        note: None,
        header,
        rows,
    })
}

/// The short header of a skill column (the text tables' abbreviation).
fn short_name(column: &str) -> String {
    Skill::ALL
        .iter()
        .find(|s| s.column_name() == column)
        .map_or(column, |s| s.short_name())
        .to_string()
}

fn item(r: &ItemResult) -> ItemView {
    let mut details = Vec::new();
    if let Some(w) = &r.written {
        details.push(("written".into(), w.clone()));
    }
    for (label, part) in [
        (
            "mcq",
            r.mcq.as_ref().and_then(|m| serde_json::to_string(m).ok()),
        ),
        (
            "openqa",
            r.openqa
                .as_ref()
                .and_then(|o| serde_json::to_string(o).ok()),
        ),
        (
            "judge",
            r.judge.as_ref().and_then(|j| serde_json::to_string(j).ok()),
        ),
    ] {
        if let Some(text) = part {
            details.push((label.into(), text));
        }
    }
    let (score, invalid, summary) = match (&r.mcq, &r.openqa) {
        (Some(m), _) => (
            Some(if m.correct { 1.0 } else { 0.0 }),
            m.failure.is_some() || r.line.is_none(),
            match (&m.picked, r.line) {
                (_, None) => "no prediction".to_string(),
                (Some(p), _) => format!("picked {p}, gold {}", m.gold),
                (None, _) => "no answer could be extracted".to_string(),
            },
        ),
        (None, Some(o)) => (
            Some(o.f1),
            r.line.is_none(),
            format!("EM {}, F1 {:.2}", o.em, o.f1),
        ),
        (None, None) => (None, true, "no prediction".to_string()),
    };
    ItemView {
        id: r.item.clone(),
        task: r.skill.unwrap_or("(no skill)").to_string(),
        score,
        invalid,
        summary,
        details,
        overlay: None,
    }
}

/// The view of one SWITCH report; `doc` is its CLI JSON document.
pub fn view(file: &str, detected: &str, report: &SwitchReport, doc: &Value) -> ReportView {
    let columns = names(&report.mcq.columns);
    let main = one_row_table(
        "switch-skills",
        "MCQ accuracy by skill",
        Some("Overall is over all items (item-weighted); an empty column shows –."),
        accuracy_row(doc, &["mcq"], Some("overall"), &columns),
    );
    let row = LeaderRow {
        benchmark: "SWITCH".into(),
        file: file.into(),
        model: None,
        columns: main.header.clone(),
        values: main
            .rows
            .first()
            .map(|r| r.iter().map(|c| c.value).collect())
            .unwrap_or_default(),
        plain: Vec::new(),
    };
    let mut notes = Vec::new();
    if !report.missing.is_empty() {
        notes.push(format!(
            "{} items have no prediction and score 0: {}",
            report.missing.len(),
            report
                .missing
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !report.unmatched.is_empty() {
        notes.push(format!(
            "{} predictions name no item of the ground truth.",
            report.unmatched.len()
        ));
    }
    if !report.parse_failures.is_empty() {
        notes.push(format!(
            "{} MCQ answers could not be extracted (scored wrong).",
            report.parse_failures.len()
        ));
    }
    // A file of video judgements alone has only the video table.
    let has_items = !report.per_item.is_empty();
    let row = if has_items {
        row
    } else {
        LeaderRow {
            columns: Vec::new(),
            values: Vec::new(),
            ..row
        }
    };
    let mut tables = vec![
        main,
        one_row_table(
            "switch-forms",
            "MCQ accuracy by form",
            None,
            accuracy_row(doc, &["by_form"], None, &names(&report.by_form)),
        ),
        one_row_table(
            "switch-scenarios",
            "MCQ accuracy by scenario",
            None,
            accuracy_row(doc, &["by_scenario"], None, &names(&report.by_scenario)),
        ),
        openqa(doc, report),
    ];
    if !has_items {
        tables.clear();
    }
    tables.extend(judge(doc, report));
    tables.extend(video(doc, report));
    let chart = ChartView {
        title: "MCQ accuracy by skill".into(),
        series: vec!["accuracy".into()],
        groups: columns
            .iter()
            .map(|c| BarGroup {
                label: short_name(c),
                values: vec![number(doc, &["mcq", c, "accuracy"])],
            })
            .collect(),
    };
    let mut skills: Vec<String> = Vec::new();
    for r in &report.per_item {
        let s = r.skill.unwrap_or("(no skill)").to_string();
        if !skills.contains(&s) {
            skills.push(s);
        }
    }
    ReportView {
        benchmark: "SWITCH".into(),
        file: file.into(),
        detected: detected.into(),
        notes,
        tables,
        charts: if has_items { vec![chart] } else { Vec::new() },
        items: ItemsView {
            tasks: skills,
            rows: report.per_item.iter().map(item).collect(),
        },
        row,
    }
}
