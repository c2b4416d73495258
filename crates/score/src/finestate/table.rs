//! The report as text: one table per platform in the paper's layout, official
//! and corrected side by side, then the mean, the breakdowns and what was
//! left out.

use std::fmt::Write;

use super::metrics::{Rates, Tally, METRIC_LABELS};
use super::report::{GroupScores, Report, VdaDelta};

/// The line that says what differs between the two modes.
pub const MODES_NOTE: &str = "Official = the released code, quirks included (ES-SR@Int = SR@Int; signs dropped; units keyed on the model name). Corrected = the point the model clearly gave in the chosen convention; ES counted only on the state box, so ES <= SR.";

fn cell(num: usize, den: usize) -> String {
    let pct = if den == 0 {
        0.0
    } else {
        100.0 * num as f64 / den as f64
    };
    format!("{pct:6.2}% ({num}/{den})")
}

fn cells(t: &Tally) -> [String; 4] {
    [
        cell(t.locate_success, t.valid_locate_cases),
        cell(t.interaction_success, t.valid_interact_cases),
        cell(t.state_awareness_locate, t.valid_locate_cases),
        cell(t.state_awareness_interaction, t.valid_interact_cases),
    ]
}

fn pct(r: f64) -> String {
    format!("{:6.2}%", 100.0 * r)
}

fn signed(r: f64) -> String {
    format!("{:+6.2}", 100.0 * r)
}

fn group_table(out: &mut String, title: &str, rows: &[GroupScores]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title} (official | corrected)");
    let _ = writeln!(
        out,
        "  {:<8} {:<20} {:>5}  {:>8} {:>8} {:>9} {:>9}  | {:>8} {:>8} {:>9} {:>9}",
        "platform",
        "group",
        "n",
        "SR@Loc",
        "SR@Int",
        "ES-SR@Loc",
        "ES-SR@Int",
        "SR@Loc",
        "SR@Int",
        "ES-SR@Loc",
        "ES-SR@Int"
    );
    for row in rows {
        let o = row.official.rates().as_array();
        let c = row.corrected.rates().as_array();
        let _ = writeln!(
            out,
            "  {:<8} {:<20} {:>5}  {:>8} {:>8} {:>9} {:>9}  | {:>8} {:>8} {:>9} {:>9}",
            row.platform.name(),
            row.group,
            row.official.total_cases,
            pct(o[0]),
            pct(o[1]),
            pct(o[2]),
            pct(o[3]),
            pct(c[0]),
            pct(c[1]),
            pct(c[2]),
            pct(c[3]),
        );
    }
}

fn rates_line(
    out: &mut String,
    label: &str,
    official: &Rates,
    corrected: &Rates,
    f: fn(f64) -> String,
) {
    let (o, c) = (official.as_array(), corrected.as_array());
    for (k, (_, name)) in METRIC_LABELS.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {label:<8} {name:<10} {:>20}   {:>20}",
            f(o[k]),
            f(c[k])
        );
    }
}

/// Renders a report (and a VDA delta, if given) as text tables.
pub fn render(report: &Report, delta: Option<&VdaDelta>) -> String {
    let mut out = String::new();
    let o = &report.options;
    let _ = writeln!(
        out,
        "FineState-Bench  model: {}  parser: {}  VDA hint: {}",
        o.official.model.as_deref().unwrap_or("(none)"),
        match o.official.parser {
            super::parser::ParserBuild::Py => "py",
            super::parser::ParserBuild::Pyc => "pyc",
        },
        if o.official.vda { "yes" } else { "no" }
    );
    let _ = writeln!(out, "{MODES_NOTE}");
    for p in &report.platforms {
        let _ = writeln!(
            out,
            "\n{}  ({} instances)\n  {:<10} {:>22}   {:>22}",
            p.platform.name(),
            p.official.total_cases,
            "metric",
            "official",
            "corrected"
        );
        let (oc, cc) = (cells(&p.official), cells(&p.corrected));
        for (k, (_, name)) in METRIC_LABELS.iter().enumerate() {
            let _ = writeln!(out, "  {name:<10} {:>22}   {:>22}", oc[k], cc[k]);
        }
    }
    if report.platforms.len() > 1 {
        let _ = writeln!(out, "\nmean over {} platforms", report.platforms.len());
        rates_line(
            &mut out,
            "mean",
            &report.mean_official,
            &report.mean_corrected,
            pct,
        );
    }
    if let Some(d) = delta {
        let _ = writeln!(out, "\nVDA delta (hinted - baseline, points)");
        for (platform, official, corrected) in &d.platforms {
            rates_line(&mut out, platform.name(), official, corrected, signed);
        }
        rates_line(
            &mut out,
            "mean",
            &d.mean_official,
            &d.mean_corrected,
            signed,
        );
    }
    group_table(&mut out, "by family", &report.by_family);
    group_table(&mut out, "by component type", &report.by_component_type);
    let _ = writeln!(
        out,
        "\n{} queries scored differently by the two modes (see --json per_instance for why).",
        report.disagreements()
    );
    if !report.skipped.is_empty() {
        let _ = writeln!(out, "\nleft out ({}):", report.skipped.len());
        for s in &report.skipped {
            let _ = writeln!(
                out,
                "  {:<7} {}{}: {}",
                s.platform.name(),
                s.source,
                s.image
                    .as_deref()
                    .map(|i| format!(" [{i}]"))
                    .unwrap_or_default(),
                s.message
            );
        }
    }
    if !report.prediction_problems.is_empty() {
        let _ = writeln!(
            out,
            "\nprediction problems ({}):",
            report.prediction_problems.len()
        );
        for p in &report.prediction_problems {
            let _ = writeln!(out, "  {}: {}", p.source, p.message);
        }
    }
    out
}
