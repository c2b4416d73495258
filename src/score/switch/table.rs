//! The report as text tables for people: skills as columns and Overall, as
//! in the paper, then the parse failures.

use std::fmt::Write;

use super::dataset::Skill;
use super::report::{Cell, SwitchReport};
// > An empty column shows "–", not 0.
use crate::display::percent;

fn row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

fn rule(out: &mut String, n: usize) {
    row(out, &vec!["---".to_string(); n]);
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

/// Renders the report as Markdown-style tables.
pub fn render_text(report: &SwitchReport) -> String {
    let mut out = String::new();
    if report.per_item.is_empty() {
        if let Some(v) = &report.video {
            video_table(&mut out, v);
            return out;
        }
    }
    let _ = writeln!(out, "SWITCH ({})", report.extractor_version);
    let h = headers();
    row(&mut out, &h);
    rule(&mut out, h.len());

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

    if let Some(j) = &report.judge {
        let _ = writeln!(out, "\nJudge diagnostics ({})", j.prompt_version);
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
    out
}

fn video_table(out: &mut String, v: &super::video::VideoReport) {
    let _ = writeln!(out, "\nGenerated-video judge (means, 1–5)");
    let head = [
        "model",
        "input form",
        "n",
        "SF",
        "CC",
        "PC",
        "EO",
        "Overall",
    ];
    row(out, &head.map(String::from));
    rule(out, head.len());
    for r in &v.rows {
        row(
            out,
            &[
                r.model.clone(),
                r.input_form.clone(),
                r.n.to_string(),
                format!("{:.2}", r.scene_fidelity),
                format!("{:.2}", r.control_correctness),
                format!("{:.2}", r.procedure_correctness),
                format!("{:.2}", r.execution_observability),
                format!("{:.2}", r.overall_score),
            ],
        );
    }
}
