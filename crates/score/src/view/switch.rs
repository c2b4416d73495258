// Over 600 lines: both SWITCH layouts (the paper's and the leaderboard's) read the same report
// and share their row builders.

//! The SWITCH report view, in either layout ([`Layout`]).
//!
//! - The paper's: the eight skill columns under their three groups and
//!   Overall, with the model's row under its access group (Tables 1 and 2),
//!   accuracy per form and scenario, Table 6 (the judge's diagnostics as
//!   shares of all responses) beside KnobLab's own diagnostic, and Table 3
//!   (generated videos, an Average row per input form, a human column when
//!   given).
//! - The leaderboard's: task × modality columns with a row per split
//!   (Open / Held / Overall), OpenQA per split, the submission row.
//!
//! Both show families outside the eight under their own names, and every
//! item.

use serde_json::Value;

use super::{
    number, pointer, BarGroup, CellView, ChartView, ItemView, ItemsView, LeaderRow, ReportView,
    RowGroup, TableView,
};
use crate::switch::dataset::Skill;
use crate::switch::report::{ItemResult, Layout, SwitchReport};

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
        span_rows: Vec::new(),
        title: title.into(),
        note: note.map(str::to_string),
        header,
        rows: vec![row],
    }
}

fn names<T>(columns: &crate::switch::report::Columns<T>) -> Vec<String> {
    columns.0.iter().map(|(k, _)| k.clone()).collect()
}

/// The paper's group row over `[label, Overall, eight skills]`.
fn group_row(leading: usize) -> Vec<CellView> {
    let mut row: Vec<CellView> = (0..leading).map(|_| CellView::text("")).collect();
    let mut last = "";
    for s in Skill::ALL {
        let g = s.group();
        row.push(CellView::text(if g == last { "" } else { g }));
        last = g;
    }
    row
}

/// The model's access group as a row of its own, when known.
fn access_row(report: &SwitchReport, width: usize) -> Option<Vec<CellView>> {
    let group = report.model.group?;
    let mut row = vec![CellView::text(group)];
    row.extend((1..width).map(|_| CellView::text("")));
    Some(row)
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
        .collect::<Vec<_>>();
    let mut all = vec![group_row(2)];
    all.extend(rows);
    TableView {
        id: "switch-openqa".into(),
        span_rows: vec![0],
        title: "Table 2 layout: OpenQA (offline: exact match and token F1)".into(),
        note: Some(
            "The paper's column groups over the eight skills; All is over all items.".into(),
        ),
        header,
        rows: all,
    }
}

/// The paper's Table 6: shares of all responses.
fn table6(doc: &Value, report: &SwitchReport) -> Option<TableView> {
    let j = report.judge.as_ref()?;
    let mut header = vec!["Model".to_string()];
    let mut row = vec![CellView::text(report.model.name.clone())];
    for (k, _) in &j.table6.0 {
        header.push(k.clone());
        row.push(CellView::rate(doc, pointer(&["judge", "table6", k])));
    }
    header.push("responses".into());
    row.push(CellView::count(doc, pointer(&["judge", "responses"])));
    Some(TableView {
        id: "switch-table6".into(),
        span_rows: Vec::new(),
        title: "Table 6: OpenQA judge diagnostics".into(),
        note: Some(
            "Shares of all OpenQA responses: Exact, Paraphrase, Partial, Contradiction, Complete Miss, multiple-choice contamination (scored 0) and no verdict (judge failures, incomplete, not judged) sum to 100%; Overall Correct = Exact + Paraphrase."
                .into(),
        ),
        header,
        rows: vec![row],
    })
}

/// KnobLab's own diagnostic: the judge's accuracy and shares of verdicts.
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
        span_rows: Vec::new(),
        title: "KnobLab's judge diagnostic: accuracy and shares of verdicts only".into(),
        note: Some("Not the paper's Table 6: these shares leave out contamination zeros and judge failures, so they are of the verdicts alone.".into()),
        header,
        rows: vec![row],
    })
}

fn extra_families(doc: &Value, report: &SwitchReport) -> Option<TableView> {
    if report.extra_families.0.is_empty() {
        return None;
    }
    let counted = report.extra_families.0.iter().any(|(_, c)| c.in_overall);
    let rows = report
        .extra_families
        .0
        .iter()
        .map(|(name, _)| {
            let base = ["extra_families", name.as_str()];
            let at = |parts: &[&str]| {
                let all: Vec<&str> = base.iter().copied().chain(parts.iter().copied()).collect();
                pointer(&all)
            };
            vec![
                CellView::text(name.clone()),
                CellView::rate(doc, at(&["mcq", "accuracy"])),
                CellView::count(doc, at(&["mcq", "n"])),
                CellView::rate(doc, at(&["openqa", "em"])),
                CellView::rate(doc, at(&["openqa", "f1"])),
                CellView::count(doc, at(&["openqa", "n"])),
            ]
        })
        .collect();
    Some(TableView {
        id: "switch-extra-families".into(),
        span_rows: Vec::new(),
        title: "Families outside the eight".into(),
        note: Some(if counted {
            "Scored under their own names and counted in Overall (as asked).".into()
        } else {
            "Scored under their own names; not in Overall (ask to include them).".into()
        }),
        header: [
            "family",
            "MCQ acc",
            "MCQ n",
            "OpenQA EM",
            "OpenQA F1",
            "OpenQA n",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The leaderboard's MCQ table: a row per split, task × modality columns.
fn leaderboard_mcq(doc: &Value, report: &SwitchReport) -> TableView {
    let b = &report.leaderboard;
    let mut header = vec!["split".to_string()];
    header.extend(b.columns.iter().cloned());
    let rows = b
        .mcq
        .0
        .iter()
        .map(|(split, cells)| {
            let mut row = vec![CellView::text(split.clone())];
            row.extend(cells.0.iter().map(|(c, _)| {
                CellView::rate(doc, pointer(&["leaderboard", "mcq", split, c, "accuracy"]))
            }));
            row
        })
        .collect();
    let note = if !b.splits_known {
        "No item carries a split, so there is one row; a split field, a folder named open/held or a split option gives Open / Held / Overall.".to_string()
    } else if b.items_without_split > 0 {
        format!(
            "Overall pools the items of both splits (not the mean of the rows); {} items carry no split and count in Overall only.",
            b.items_without_split
        )
    } else {
        "Overall pools the items of both splits (not the mean of the rows).".to_string()
    };
    TableView {
        id: "switch-leaderboard".into(),
        span_rows: Vec::new(),
        title: format!("Leaderboard layout: MCQ accuracy of {}", report.model.name),
        note: Some(note),
        header,
        rows,
    }
}

fn leaderboard_openqa(doc: &Value, report: &SwitchReport) -> TableView {
    let rows = report
        .leaderboard
        .openqa
        .0
        .iter()
        .map(|(split, _)| {
            let at = |m: &str| pointer(&["leaderboard", "openqa", split, m]);
            vec![
                CellView::text(split.clone()),
                CellView::rate(doc, at("em")),
                CellView::rate(doc, at("f1")),
                CellView::count(doc, at("n")),
            ]
        })
        .collect();
    TableView {
        id: "switch-leaderboard-openqa".into(),
        span_rows: Vec::new(),
        title: "Leaderboard layout: OpenQA (all tasks)".into(),
        note: None,
        header: ["split", "EM", "F1", "n"].map(String::from).to_vec(),
        rows,
    }
}

fn submission(doc: &Value, report: &SwitchReport) -> TableView {
    let sub = &report.submission;
    let at = |parts: &[&str]| {
        let all: Vec<&str> = ["submission", "results"]
            .iter()
            .copied()
            .chain(parts.iter().copied())
            .collect();
        pointer(&all)
    };
    TableView {
        id: "switch-submission".into(),
        span_rows: Vec::new(),
        title: "Leaderboard submission row".into(),
        note: Some(
            "Fractions as percentages; the download gives the row as JSON with fractions.".into(),
        ),
        header: [
            "model_name",
            "model_access",
            "mcq_open acc",
            "mcq_closed acc",
            "openqa_open em",
            "openqa_open f1",
            "openqa_closed em",
            "openqa_closed f1",
        ]
        .map(String::from)
        .to_vec(),
        rows: vec![vec![
            CellView::text(sub.model_name.clone()),
            CellView::text(sub.model_access.map_or("(not given)", |a| a.key())),
            CellView::rate(doc, at(&["mcq_open", "acc"])),
            CellView::rate(doc, at(&["mcq_closed", "acc"])),
            CellView::rate(doc, at(&["openqa_open", "em"])),
            CellView::rate(doc, at(&["openqa_open", "f1"])),
            CellView::rate(doc, at(&["openqa_closed", "em"])),
            CellView::rate(doc, at(&["openqa_closed", "f1"])),
        ]],
    }
}

fn video(doc: &Value, report: &SwitchReport) -> Option<TableView> {
    let v = report.video.as_ref()?;
    let mut keys = vec![
        "scene_fidelity",
        "control_correctness",
        "procedure_correctness",
        "execution_observability",
        "overall_score",
    ];
    if v.has_human {
        keys.push("human");
    }
    let mut header = vec![
        "model".to_string(),
        "input form".to_string(),
        "n".to_string(),
    ];
    header.extend(keys.iter().map(|k| match *k {
        "human" => "human evaluation".to_string(),
        k => k.replace('_', " "),
    }));
    let line = |list: &str, i: usize, model: &str, form: &str| {
        let i = i.to_string();
        let mut row = vec![
            CellView::text(model.to_string()),
            CellView::text(form.to_string()),
            CellView::count(doc, pointer(&["video", list, &i, "n"])),
        ];
        row.extend(
            keys.iter()
                .map(|k| CellView::count(doc, pointer(&["video", list, &i, k]))),
        );
        row
    };
    let mut rows = Vec::new();
    for (ai, avg) in v.averages.iter().enumerate() {
        for (i, r) in v.rows.iter().enumerate() {
            if r.input_form == avg.input_form {
                rows.push(line("rows", i, &r.model, &r.input_form));
            }
        }
        rows.push(line("averages", ai, "Average", &avg.input_form));
    }
    Some(TableView {
        id: "switch-video".into(),
        span_rows: Vec::new(),
        title: "Table 3: generated videos (VLM judge means, 1–5)".into(),
        note: Some(if v.has_human {
            "An Average row per input form (the mean of its model rows); human evaluation is the mean human rating.".into()
        } else {
            "An Average row per input form (the mean of its model rows). No human judgements were given.".into()
        }),
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

/// The filter name of an item: its skill, or its family outside the eight.
fn item_task(r: &ItemResult) -> String {
    r.skill
        .map_or_else(|| r.task_family.clone(), str::to_string)
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
        task: item_task(r),
        score,
        invalid,
        summary,
        details,
        overlay: None,
    }
}

/// The paper's Table 1: MCQ accuracy under the grouped skill columns, the
/// model's row under its access group.
fn skills_table(doc: &Value, report: &SwitchReport) -> TableView {
    let columns = names(&report.mcq.columns);
    let (mut header, cells) = accuracy_row(doc, &["mcq"], Some("overall"), &columns);
    header.insert(0, "Model".into());
    let mut row = vec![CellView::text(report.model.name.clone())];
    row.extend(cells);
    let mut rows = vec![group_row(2)];
    let access = access_row(report, header.len());
    let span_rows = if access.is_some() {
        vec![0, 1]
    } else {
        vec![0]
    };
    rows.extend(access);
    rows.push(row);
    TableView {
        id: "switch-skills".into(),
        span_rows,
        title: "Table 1 layout: MCQ accuracy by skill".into(),
        note: Some("The paper's column groups; Overall is over all items (item-weighted); an empty column shows –.".into()),
        header,
        rows,
    }
}

/// The heading of a model whose access is not given.
pub const ACCESS_NOT_GIVEN: &str = "Access not given";

/// The group a model's rows are listed under on a leaderboard of several
/// files, as the paper's Tables 1 and 2 group theirs.
///
/// **Decision:** proprietary/API models first, then open-weight models (the
/// paper's order, [`ModelAccess`](crate::switch::report::ModelAccess)'s
/// order); a model whose access is not given is listed last under its own
/// heading rather than guessed into either.
pub fn access_group(report: &SwitchReport) -> RowGroup {
    match report.model.access {
        Some(a) => RowGroup {
            order: a as u8,
            label: a.group().to_string(),
        },
        None => RowGroup {
            order: 2,
            label: ACCESS_NOT_GIVEN.to_string(),
        },
    }
}

/// The leaderboard rows of a report in a layout: the paper's one row
/// (Overall and the eight skills), or the leaderboard's row per split
/// (named `model · split`). The exports are made from these.
pub fn layout_rows(
    file: &str,
    report: &SwitchReport,
    doc: &Value,
    layout: Layout,
) -> Vec<LeaderRow> {
    match layout {
        Layout::Paper => {
            let mut columns = vec!["Overall".to_string()];
            columns.extend(names(&report.mcq.columns));
            let values = std::iter::once(number(doc, &["mcq", "overall", "accuracy"]))
                .chain(
                    report
                        .mcq
                        .columns
                        .0
                        .iter()
                        .map(|(c, _)| number(doc, &["mcq", c, "accuracy"])),
                )
                .collect();
            vec![LeaderRow {
                benchmark: "SWITCH".into(),
                file: file.into(),
                model: Some(report.model.name.clone()),
                columns,
                values,
                plain: Vec::new(),
                group: Some(access_group(report)),
            }]
        }
        Layout::Leaderboard => report
            .leaderboard
            .mcq
            .0
            .iter()
            .map(|(split, cells)| LeaderRow {
                benchmark: "SWITCH".into(),
                file: file.into(),
                model: Some(format!("{} · {split}", report.model.name)),
                columns: report.leaderboard.columns.clone(),
                values: cells
                    .0
                    .iter()
                    .map(|(c, _)| number(doc, &["leaderboard", "mcq", split, c, "accuracy"]))
                    .collect(),
                plain: Vec::new(),
                group: Some(access_group(report)),
            })
            .collect(),
    }
}

/// Several SWITCH runs as one table in a layout: their
/// [`layout_rows`] under the access groups of [`access_group`], with the
/// paper's column groups over the skills in the paper's layout (Table 1
/// with a row per model).
pub fn runs_table(rows: &[LeaderRow], layout: Layout) -> TableView {
    match layout {
        Layout::Paper => super::board_table(
            "switch-runs",
            "Table 1 layout: MCQ accuracy by skill, one row per model",
            rows,
            Some(group_row(2)),
        ),
        Layout::Leaderboard => super::board_table(
            "switch-runs",
            "Leaderboard layout: MCQ accuracy, a row per model and split",
            rows,
            None,
        ),
    }
}

/// The view of one SWITCH report in the paper's layout; `doc` is its CLI
/// JSON document.
pub fn view(file: &str, detected: &str, report: &SwitchReport, doc: &Value) -> ReportView {
    view_in(file, detected, report, doc, Layout::Paper)
}

/// The view of one SWITCH report in a layout; `doc` is its CLI JSON document.
pub fn view_in(
    file: &str,
    detected: &str,
    report: &SwitchReport,
    doc: &Value,
    layout: Layout,
) -> ReportView {
    let columns = names(&report.mcq.columns);
    let mut rows = layout_rows(file, report, doc, layout);
    // The leaderboard of several files has one row per file: its Overall.
    let row = rows.pop().unwrap_or(LeaderRow {
        benchmark: "SWITCH".into(),
        file: file.into(),
        model: None,
        columns: Vec::new(),
        values: Vec::new(),
        plain: Vec::new(),
        group: None,
    });
    let row = match layout {
        Layout::Leaderboard => LeaderRow {
            model: Some(report.model.name.clone()),
            ..row
        },
        Layout::Paper => row,
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
    let uncovered = crate::switch::submission::uncovered(&report.submission_tracks);
    if !uncovered.is_empty() && !report.per_item.is_empty() {
        notes.push(format!(
            "The submission's tracks not covered by these predictions: {}.",
            uncovered.join("; ")
        ));
    }
    if report.model.access.is_none() && !report.per_item.is_empty() {
        notes.push("The model's access (open_weight or closed_api) is not given: choose it under Options for the paper's row groups and the submission.".into());
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
    let mut tables = match layout {
        Layout::Paper => {
            let mut t = vec![skills_table(doc, report), openqa(doc, report)];
            t.extend(table6(doc, report));
            t.extend(judge(doc, report));
            t.push(one_row_table(
                "switch-forms",
                "MCQ accuracy by form",
                None,
                accuracy_row(doc, &["by_form"], None, &names(&report.by_form)),
            ));
            t.push(one_row_table(
                "switch-scenarios",
                "MCQ accuracy by scenario",
                None,
                accuracy_row(doc, &["by_scenario"], None, &names(&report.by_scenario)),
            ));
            t
        }
        Layout::Leaderboard => vec![
            leaderboard_mcq(doc, report),
            leaderboard_openqa(doc, report),
            submission(doc, report),
        ],
    };
    tables.extend(extra_families(doc, report));
    if !has_items {
        tables.clear();
    }
    tables.extend(video(doc, report));
    let chart = match layout {
        Layout::Paper => ChartView {
            title: "MCQ accuracy by skill".into(),
            series: vec!["accuracy".into()],
            groups: columns
                .iter()
                .map(|c| BarGroup {
                    label: short_name(c),
                    values: vec![number(doc, &["mcq", c, "accuracy"])],
                })
                .collect(),
        },
        Layout::Leaderboard => {
            let splits: Vec<String> = names(&report.leaderboard.mcq);
            ChartView {
                title: "MCQ accuracy by task and modality".into(),
                series: splits.clone(),
                groups: report
                    .leaderboard
                    .columns
                    .iter()
                    .map(|c| BarGroup {
                        label: c.clone(),
                        values: splits
                            .iter()
                            .map(|s| number(doc, &["leaderboard", "mcq", s, c, "accuracy"]))
                            .collect(),
                    })
                    .collect(),
            }
        }
    };
    let mut skills: Vec<String> = Vec::new();
    for r in &report.per_item {
        let s = item_task(r);
        if !skills.contains(&s) {
            skills.push(s);
        }
    }
    ReportView {
        benchmark: "SWITCH".into(),
        file: file.into(),
        detected: detected.into(),
        notes,
        unused: Vec::new(),
        tables,
        charts: if has_items { vec![chart] } else { Vec::new() },
        items: ItemsView {
            tasks: skills,
            rows: report.per_item.iter().map(item).collect(),
            on_demand: false,
        },
        row,
    }
}
