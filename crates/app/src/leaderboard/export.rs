//! The leaderboard as Markdown, CSV and LaTeX, like the scorers' exports
//! (`knoblab_score::export`): CSV at full precision (fractions in 0–1),
//! Markdown and LaTeX as people read them (rates as percentages, the
//! interval in brackets). The CLI, the page and Python call these.

use knoblab_core::metrics::columns::{Column, Format, COLUMNS};
use knoblab_score::export::{csv_field, latex_escape, md_cell};

use super::{Estimate, Leaderboard, Row, RunStatus};

/// The cell for people: `61.5 [55.0, 68.0]`, `–` when undefined (the
/// page's cells too).
pub fn shown(c: &Column, e: Option<&Estimate>) -> String {
    let Some(e) = e else {
        return "–".to_string();
    };
    let v = c.show_value(e.value);
    match (e.value, e.ci_low, e.ci_high) {
        (Some(_), Some(lo), Some(hi)) => {
            format!(
                "{v} [{}, {}]",
                c.show_value(Some(lo)),
                c.show_value(Some(hi))
            )
        }
        _ => v,
    }
}

/// A row's status as shown: `complete`, `partial`, `other library`.
pub fn status(r: &Row) -> &'static str {
    match r.status {
        RunStatus::Complete => "complete",
        RunStatus::Partial => "partial",
        RunStatus::OtherLibrary => "other library",
    }
}

/// SR over the plan as a percentage with its interval.
fn plan_sr(r: &Row) -> String {
    let sr = &COLUMNS[0];
    shown(sr, Some(&r.sr_plan))
}

/// The headings after the run's own columns.
fn headings() -> Vec<String> {
    COLUMNS.iter().map(Column::heading).collect()
}

/// Markdown: one row per run, each metric `value [low, high]`, then the
/// coverage and SR over the plan.
pub fn markdown(board: &Leaderboard) -> String {
    let mut head = vec![
        "Run".to_string(),
        "Model".to_string(),
        "Status".to_string(),
        "Played / plan".to_string(),
        "api_error".to_string(),
        "Missing".to_string(),
        "SR over plan".to_string(),
    ];
    head.extend(headings());
    let mut out = format!(
        "{} runs, plan of {} episodes on {} devices; 95% intervals from {} bootstrap resamples (seed {}, stratified by {}); rates in %, ↓ lower is better.\n\n",
        board.runs.len(),
        board.plan.episodes,
        board.plan.devices,
        board.resamples,
        board.seed,
        board.stratified_by
    );
    out.push_str(&format!("| {} |\n", head.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    for r in &board.runs {
        let mut cells = vec![
            md_cell(&r.file),
            md_cell(&r.model),
            status(r).to_string(),
            format!("{} / {}", r.coverage.played, r.coverage.plan),
            r.coverage.api_error.to_string(),
            r.coverage.missing.to_string(),
            plan_sr(r),
        ];
        cells.extend(COLUMNS.iter().map(|c| shown(c, r.metrics.get(c.key))));
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// CSV: `file,model,status,plan,played,api_error,missing`, then for SR
/// over the plan and each metric its value, low and high (`sr`,
/// `sr_low`, `sr_high`), fractions at full precision, empty where
/// undefined.
pub fn csv(board: &Leaderboard) -> String {
    let mut head: Vec<String> = [
        "file",
        "model",
        "status",
        "plan",
        "played",
        "api_error",
        "missing",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let keys: Vec<&str> = std::iter::once("sr_plan")
        .chain(COLUMNS.iter().map(|c| c.key))
        .collect();
    for k in &keys {
        head.push(k.to_string());
        head.push(format!("{k}_low"));
        head.push(format!("{k}_high"));
    }
    let mut out = head.join(",");
    out.push('\n');
    let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for r in &board.runs {
        let mut fields = vec![
            csv_field(&r.file),
            csv_field(&r.model),
            status(r).replace(' ', "_"),
            r.coverage.plan.to_string(),
            r.coverage.played.to_string(),
            r.coverage.api_error.to_string(),
            r.coverage.missing.to_string(),
        ];
        for k in &keys {
            let e = if *k == "sr_plan" {
                Some(&r.sr_plan)
            } else {
                r.metrics.get(*k)
            };
            fields.push(num(e.and_then(|e| e.value)));
            fields.push(num(e.and_then(|e| e.ci_low)));
            fields.push(num(e.and_then(|e| e.ci_high)));
        }
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// LaTeX table rows (no preamble, as the scorers' exports): the model,
/// then each metric as `61.5\,{\scriptsize[55.0, 68.0]}`, `--` where
/// undefined; a partial run's name is followed by `$^\dagger$`.
pub fn latex(board: &Leaderboard) -> String {
    let mut out = format!(
        "% Model & {} \\\\ (95% bootstrap intervals, {} resamples, seed {}, stratified by {}; $^\\dagger$ partial run)\n",
        COLUMNS
            .iter()
            .map(|c| latex_escape(&c.heading()))
            .collect::<Vec<_>>()
            .join(" & "),
        board.resamples,
        board.seed,
        board.stratified_by
    );
    for r in &board.runs {
        let mut name = latex_escape(&r.model);
        if r.status != RunStatus::Complete {
            name.push_str("$^\\dagger$");
        }
        let mut cells = vec![name];
        for c in COLUMNS.iter() {
            let e = r.metrics.get(c.key);
            let cell = match e {
                Some(Estimate {
                    value: Some(v),
                    ci_low,
                    ci_high,
                    ..
                }) => {
                    let show = |x: f64| match c.format {
                        Format::Percent => format!("{:.1}", x * 100.0),
                        Format::Number => format!("{x:.2}"),
                    };
                    match (ci_low, ci_high) {
                        (Some(lo), Some(hi)) => format!(
                            "{}\\,{{\\scriptsize[{}, {}]}}",
                            show(*v),
                            show(*lo),
                            show(*hi)
                        ),
                        _ => show(*v),
                    }
                }
                _ => "--".to_string(),
            };
            cells.push(cell);
        }
        out.push_str(&cells.join(" & "));
        out.push_str(" \\\\\n");
    }
    out
}
