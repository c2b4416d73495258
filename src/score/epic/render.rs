//! Rendering a [`Report`]: the JSON document of `knoblab score epic --json`
//! and the tables for people.

use serde_json::{json, Map, Value};

use super::aggregate::Summary;
use super::report::{InputKind, Report};
use super::scorer::SampleResult;
use super::taxonomy::{GROUPS, LEAVES};

/// The per-sample notes: quirks, and what the corrected mode changed.
fn notes_json(report: &Report) -> Value {
    let mut items = Vec::new();
    for (o, c) in report
        .official
        .samples
        .iter()
        .zip(&report.corrected.samples)
    {
        let changed = (o.score - c.score).abs() > 1e-12 || o.invalid_response != c.invalid_response;
        if o.quirks.is_empty() && !changed {
            continue;
        }
        items.push(json!({
            "index": o.index,
            "quirks": o.quirks.iter().map(|q| json!({"code": q.code(), "note": q.describe()})).collect::<Vec<_>>(),
            "official_score": o.score,
            "corrected_score": c.score,
            "corrected_error": c.error,
            "corrected_invalid_response": c.invalid_response,
        }));
    }
    Value::Array(items)
}

/// The JSON document of `knoblab score epic --json`: the official layout
/// (`summary`, `details.by_samples`), a `corrected` object beside them, and
/// KnobLab's own notes under `knoblab`.
pub fn to_json(report: &Report, pred_path: &str) -> Value {
    let mut m = Map::new();
    m.insert("std_response_jsonl".into(), json!(pred_path));
    if let Some(o) = &report.coord_override {
        m.insert("coord_override".into(), json!(o));
    }
    m.insert("summary".into(), report.official.summary.to_official_json());
    m.insert(
        "details".into(),
        json!({"by_samples": report.official.samples.iter().map(SampleResult::to_official_json).collect::<Vec<_>>()}),
    );
    m.insert(
        "corrected".into(),
        json!({
            "summary": report.corrected.summary.to_official_json(),
            "fixes": [
                "list-wrapped failure markers honoured",
                "exact start-goal distance for Exo paths (no random sampling)",
                "trailing commas and any fence language tag parsed (raw input)",
            ],
        }),
    );
    let mut k = Map::new();
    k.insert(
        "input_kind".into(),
        json!(match report.kind {
            InputKind::Raw => "raw",
            InputKind::Std => "std_format",
            InputKind::OfficialScores => "official_scores",
        }),
    );
    k.insert("ground_truth".into(), json!(report.gt_coverage_message()));
    k.insert(
        "unweighted_group_mean".into(),
        json!(report.official.summary.unweighted_group_mean()),
    );
    k.insert("notes".into(), notes_json(report));
    if let Some(c) = &report.comparison {
        k.insert(
            "comparison_with_file".into(),
            json!({
                "mismatches": c.len(),
                "items": c.iter().map(|m| json!({"index": m.index, "what": m.what})).collect::<Vec<_>>(),
            }),
        );
    }
    m.insert("knoblab".into(), Value::Object(k));
    Value::Object(m)
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:.2}", v * 100.0))
}

/// The tables for people: the paper's Table 2 row (Average = the sample
/// mean, `overall.average_score`), then the 23 tasks.
pub fn to_text(report: &Report) -> String {
    let mut s = String::new();
    let row = |sum: &Summary| -> Vec<String> {
        let mut r = vec![pct(Some(sum.overall.mean_score))];
        for (abbr, _) in GROUPS {
            r.push(pct(sum.group(abbr).map(|b| b.mean_score)));
        }
        r
    };
    s.push_str(&format!(
        "{:<10}{:>8}{}\n",
        "",
        "Average",
        GROUPS
            .iter()
            .map(|(a, _)| format!("{a:>8}"))
            .collect::<String>()
    ));
    for (label, sum) in [
        ("official", &report.official.summary),
        ("corrected", &report.corrected.summary),
    ] {
        s.push_str(&format!(
            "{label:<10}{}\n",
            row(sum)
                .iter()
                .map(|c| format!("{c:>8}"))
                .collect::<String>()
        ));
    }
    s.push_str("(Average is the sample mean over all samples, as in the paper.)\n\n");
    s.push_str(&format!(
        "{:<66}{:>6}{:>9}{:>9}{:>11}\n",
        "task", "n", "invalid", "score", "corrected"
    ));
    for leaf in LEAVES.iter() {
        let o = report
            .official
            .summary
            .by_type
            .iter()
            .find(|(k, _)| *k == leaf.type_key);
        let c = report
            .corrected
            .summary
            .by_type
            .iter()
            .find(|(k, _)| *k == leaf.type_key);
        if let Some((_, b)) = o {
            s.push_str(&format!(
                "{:<66}{:>6}{:>9}{:>9}{:>11}\n",
                leaf.type_key,
                b.total_processed,
                b.num_invalid_response,
                pct(Some(b.mean_score)),
                pct(c.map(|(_, b)| b.mean_score))
            ));
        }
    }
    let o = &report.official.summary.overall;
    s.push_str(&format!(
        "\n{} samples, {} invalid. {}.\n",
        o.total_processed,
        o.num_invalid_response,
        report.gt_coverage_message()
    ));
    let mut tally: Vec<(&str, usize)> = Vec::new();
    for q in report.official.samples.iter().flat_map(|s| &s.quirks) {
        match tally.iter_mut().find(|(c, _)| *c == q.code()) {
            Some(t) => t.1 += 1,
            None => tally.push((q.code(), 1)),
        }
    }
    if !tally.is_empty() {
        s.push_str("Official quirks met (samples): ");
        let parts: Vec<String> = tally.iter().map(|(c, n)| format!("{c} {n}")).collect();
        s.push_str(&parts.join(", "));
        s.push_str(". Per-sample notes: --json, knoblab.notes.\n");
    }
    if let Some(c) = &report.comparison {
        s.push_str(&format!(
            "Re-scored against the file's own numbers: {} mismatch(es).\n",
            c.len()
        ));
        for m in c.iter().take(20) {
            s.push_str(&format!("  sample {:?}: {}\n", m.index, m.what));
        }
    }
    s
}
