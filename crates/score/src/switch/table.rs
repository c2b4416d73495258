//! The report as text tables for people, in either layout
//! ([`Layout`]): the paper's (skills as grouped columns and Overall, Table
//! 6, Table 3) or the leaderboard's (task × modality columns, a row per
//! split); then the parse failures.

use std::fmt::Write;

use super::dataset::{Skill, SKILL_GROUPS};
use super::report::{Cell, Layout, SwitchReport};
// > An empty column shows "–", not 0.
use knoblab_core::display::percent;

fn row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

fn rule(out: &mut String, n: usize) {
    row(out, &vec!["---".to_string(); n]);
}

/// The paper's group row above [`headers`]: each group's name over its
/// first column.
fn group_headers() -> Vec<String> {
    let mut h = vec!["group".to_string()];
    let mut last = "";
    for s in Skill::ALL {
        let g = s.group();
        h.push(if g == last {
            String::new()
        } else {
            g.to_string()
        });
        last = g;
    }
    h.push(String::new());
    let _ = SKILL_GROUPS;
    h
}

fn headers() -> Vec<String> {
    let mut h = vec![String::new()];
    h.extend(Skill::ALL.iter().map(|s| s.column_name().to_string()));
    h.push("Overall".to_string());
    h
}

fn small_table(out: &mut String, title: &str, cells: &[(String, Cell)]) {
    if cells.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}");
    row(out, &["".into(), "acc (%)".into(), "n".into()]);
    rule(out, 3);
    for (name, c) in cells {
        row(out, &[name.clone(), percent(c.accuracy), c.n.to_string()]);
    }
}

/// Renders the report in a layout.
pub fn render_layout(report: &SwitchReport, layout: Layout) -> String {
    match layout {
        Layout::Paper => render_text(report),
        Layout::Leaderboard => render_leaderboard(report),
    }
}

fn model_line(out: &mut String, report: &SwitchReport) {
    let group = report
        .model
        .group
        .map_or("model access not given".to_string(), str::to_string);
    let _ = writeln!(out, "Model: {} ({group})", report.model.name);
}

/// Renders the report as Markdown-style tables in the paper's layout.
pub fn render_text(report: &SwitchReport) -> String {
    let mut out = String::new();
    if report.per_item.is_empty() {
        if let Some(v) = &report.video {
            video_table(&mut out, v);
            return out;
        }
    }
    let _ = writeln!(out, "SWITCH ({})", report.extractor_version);
    model_line(&mut out, report);
    let g = group_headers();
    row(&mut out, &g);
    rule(&mut out, g.len());
    let h = headers();
    row(&mut out, &h);

    let mut acc = vec!["MCQ acc (%)".to_string()];
    let mut n = vec!["MCQ n".to_string()];
    for (_, c) in &report.mcq.columns.0 {
        acc.push(percent(c.accuracy));
        n.push(c.n.to_string());
    }
    acc.push(percent(report.mcq.overall.accuracy));
    n.push(report.mcq.overall.n.to_string());
    row(&mut out, &acc);
    row(&mut out, &n);

    let mut em = vec!["OpenQA EM (%)".to_string()];
    let mut f1 = vec!["OpenQA F1 (%)".to_string()];
    let mut on = vec!["OpenQA n".to_string()];
    for (_, c) in &report.openqa.columns.0 {
        em.push(percent(c.em));
        f1.push(percent(c.f1));
        on.push(c.n.to_string());
    }
    em.push(percent(report.openqa.em));
    f1.push(percent(report.openqa.f1));
    on.push(report.openqa.n.to_string());
    row(&mut out, &em);
    row(&mut out, &f1);
    row(&mut out, &on);

    if let Some(j) = &report.judge {
        let mut ja = vec!["Judge acc (%)".to_string()];
        for (_, c) in &j.columns.0 {
            ja.push(percent(c.accuracy));
        }
        ja.push(percent(j.accuracy));
        row(&mut out, &ja);
    }

    let p = &report.multi_select_partial;
    let _ = writeln!(
        out,
        "\nMulti-select: exact {}%, partial {}% (n = {})",
        percent(p.exact_accuracy),
        percent(p.mean),
        p.n
    );
    small_table(&mut out, "MCQ by form", &report.by_form.0);
    small_table(&mut out, "MCQ by scenario", &report.by_scenario.0);
    extra_families(&mut out, report);

    if let Some(j) = &report.judge {
        let _ = writeln!(
            out,
            "\nTable 6: OpenQA judge diagnostics ({}; % of all {} responses)",
            j.prompt_version, j.responses
        );
        let names: Vec<String> = j.table6.0.iter().map(|(k, _)| k.clone()).collect();
        row(&mut out, &names);
        rule(&mut out, names.len());
        row(
            &mut out,
            &j.table6
                .0
                .iter()
                .map(|(_, v)| percent(*v))
                .collect::<Vec<_>>(),
        );
        let _ = writeln!(
            out,
            "\nKnobLab's diagnostic: shares of the verdicts only (not the paper's Table 6)"
        );
        row(&mut out, &["answer_match".into(), "n".into(), "%".into()]);
        rule(&mut out, 3);
        for ((name, count), (_, share)) in j.answer_match.0.iter().zip(&j.answer_match_share.0) {
            row(
                &mut out,
                &[name.clone(), count.to_string(), percent(*share)],
            );
        }
        let _ = writeln!(
            out,
            "essential_missing {}, wrong_extra_info {}, too_vague {}, format_issue {}; \
             multiple-choice contamination: {} scored 0, {} judged with options; \
             judge failures {}, incomplete {}, not judged {}, inconsistent verdicts {}",
            j.essential_missing,
            j.wrong_extra_info,
            j.too_vague,
            j.format_issue,
            j.contamination_zero,
            j.contamination_flagged,
            j.judge_failures,
            j.incomplete,
            j.not_judged,
            j.inconsistent
        );
    }

    if let Some(v) = &report.video {
        video_table(&mut out, v);
    }
    footer(&mut out, report);
    out
}

fn extra_families(out: &mut String, report: &SwitchReport) {
    if report.extra_families.0.is_empty() {
        return;
    }
    let counted = report.extra_families.0.iter().any(|(_, c)| c.in_overall);
    let _ = writeln!(
        out,
        "\nFamilies outside the eight ({} Overall)",
        if counted { "counted in" } else { "not in" }
    );
    row(
        out,
        &[
            "family".into(),
            "MCQ acc (%)".into(),
            "MCQ n".into(),
            "OpenQA EM (%)".into(),
            "OpenQA F1 (%)".into(),
            "OpenQA n".into(),
        ],
    );
    rule(out, 6);
    for (name, c) in &report.extra_families.0 {
        row(
            out,
            &[
                name.clone(),
                percent(c.mcq.accuracy),
                c.mcq.n.to_string(),
                percent(c.openqa.em),
                percent(c.openqa.f1),
                c.openqa.n.to_string(),
            ],
        );
    }
}

/// Renders the report as Markdown-style tables in the leaderboard's layout.
pub fn render_leaderboard(report: &SwitchReport) -> String {
    let mut out = String::new();
    if report.per_item.is_empty() {
        if let Some(v) = &report.video {
            video_table(&mut out, v);
            return out;
        }
    }
    let b = &report.leaderboard;
    let _ = writeln!(
        out,
        "SWITCH leaderboard layout ({})",
        report.extractor_version
    );
    model_line(&mut out, report);
    let _ = writeln!(out, "\nMCQ accuracy (%)");
    let mut h = vec!["split".to_string()];
    h.extend(b.columns.iter().cloned());
    row(&mut out, &h);
    rule(&mut out, h.len());
    for (split, cells) in &b.mcq.0 {
        let mut r = vec![split.clone()];
        r.extend(cells.0.iter().map(|(_, c)| percent(c.accuracy)));
        row(&mut out, &r);
    }
    let _ = writeln!(out, "\nOpenQA (all tasks)");
    row(
        &mut out,
        &["split".into(), "EM (%)".into(), "F1 (%)".into(), "n".into()],
    );
    rule(&mut out, 4);
    for (split, c) in &b.openqa.0 {
        row(
            &mut out,
            &[split.clone(), percent(c.em), percent(c.f1), c.n.to_string()],
        );
    }
    if !b.splits_known {
        let _ = writeln!(
            out,
            "\nNo item carries a split: give a split field, a folder named open/held, or --split."
        );
    } else if b.items_without_split > 0 {
        let _ = writeln!(
            out,
            "\n{} items carry no split: they count in Overall only.",
            b.items_without_split
        );
    }
    extra_families(&mut out, report);
    if let Some(v) = &report.video {
        video_table(&mut out, v);
    }
    footer(&mut out, report);
    out
}

fn footer(out: &mut String, report: &SwitchReport) {
    let _ = writeln!(out, "\nParse failures: {}", report.parse_failures.len());
    for f in &report.parse_failures {
        let shown: String = f
            .written
            .chars()
            .take(80)
            .collect::<String>()
            .replace('\n', " ");
        let more = if f.written.chars().count() > 80 {
            "…"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {} (line {}): {} — wrote {:?}{}",
            f.item, f.line, f.message, shown, more
        );
    }
    if !report.missing.is_empty() {
        let _ = writeln!(
            out,
            "Items without a prediction (scored 0): {}",
            report.missing.len()
        );
    }
    if !report.unmatched.is_empty() {
        let _ = writeln!(
            out,
            "Predictions naming no item (ignored): {}",
            report.unmatched.len()
        );
        for u in &report.unmatched {
            let _ = writeln!(out, "  line {}: {}", u.line, u.key);
        }
    }
}

fn video_table(out: &mut String, v: &super::video::VideoReport) {
    let _ = writeln!(
        out,
        "\nTable 3: generated videos (VLM judge means, 1–5{})",
        if v.has_human {
            "; Human: mean human rating"
        } else {
            ""
        }
    );
    let mut head: Vec<String> = [
        "model",
        "input form",
        "n",
        "SF",
        "CC",
        "PC",
        "EO",
        "Overall",
    ]
    .map(String::from)
    .to_vec();
    if v.has_human {
        head.push("Human".into());
    }
    row(out, &head);
    rule(out, head.len());
    let line = |out: &mut String, r: &super::video::VideoRow| {
        let mut cells = vec![
            r.model.clone(),
            r.input_form.clone(),
            r.n.to_string(),
            format!("{:.2}", r.scene_fidelity),
            format!("{:.2}", r.control_correctness),
            format!("{:.2}", r.procedure_correctness),
            format!("{:.2}", r.execution_observability),
            format!("{:.2}", r.overall_score),
        ];
        if v.has_human {
            cells.push(r.human.map_or("–".into(), |h| format!("{h:.2}")));
        }
        row(out, &cells);
    };
    for avg in &v.averages {
        for r in v.rows.iter().filter(|r| r.input_form == avg.input_form) {
            line(out, r);
        }
        line(out, avg);
    }
}
