//! Rendering a [`Report`]: the JSON document of `knoblab score epic --json`
//! and the tables for people.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Map, Value};

use super::aggregate::Summary;
use super::report::{InputKind, Mismatch, Report};
use super::scorer::{OfficialSample, SampleResult};
use super::taxonomy::{GROUPS, LEAVES};

/// What the corrected mode fixes, as the document lists it.
const FIXES: [&str; 3] = [
    "list-wrapped failure markers honoured",
    "exact start-goal distance for Exo paths (no random sampling)",
    "trailing commas and any fence language tag parsed (raw input)",
];

fn input_kind(k: InputKind) -> &'static str {
    match k {
        InputKind::Raw => "raw",
        InputKind::Std => "std_format",
        InputKind::OfficialScores => "official_scores",
    }
}

/// The per-sample notes, one at a time: quirks, and what the corrected
/// mode changed.
fn notes(report: &Report) -> impl Iterator<Item = Value> + '_ {
    report
        .official
        .samples
        .iter()
        .zip(&report.corrected.samples)
        .filter_map(|(o, c)| {
            let changed =
                (o.score - c.score).abs() > 1e-12 || o.invalid_response != c.invalid_response;
            if o.quirks.is_empty() && !changed {
                return None;
            }
            Some(json!({
                "index": o.index,
                "quirks": o.quirks.iter().map(|q| json!({"code": q.code(), "note": q.describe()})).collect::<Vec<_>>(),
                "official_score": o.score,
                "corrected_score": c.score,
                "corrected_error": c.error,
                "corrected_invalid_response": c.invalid_response,
            }))
        })
}

fn comparison_json(c: &[Mismatch]) -> Value {
    json!({
        "mismatches": c.len(),
        "items": c.iter().map(|m| json!({"index": m.index, "what": m.what})).collect::<Vec<_>>(),
    })
}

/// The JSON document of `knoblab score epic --json`: the official layout
/// (`summary`, `details.by_samples`), a `corrected` object beside them, and
/// KnobLab's own notes under `knoblab`. [`write_json`] writes the same
/// document without building it.
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
            "fixes": FIXES,
        }),
    );
    let mut k = Map::new();
    k.insert("input_kind".into(), json!(input_kind(report.kind)));
    k.insert("ground_truth".into(), json!(report.gt_coverage_message()));
    k.insert(
        "unweighted_group_mean".into(),
        json!(report.official.summary.unweighted_group_mean()),
    );
    k.insert("notes".into(), Value::Array(notes(report).collect()));
    if let Some(c) = &report.comparison {
        k.insert("comparison_with_file".into(), comparison_json(c));
    }
    m.insert("knoblab".into(), Value::Object(k));
    Value::Object(m)
}

/// Only the two summaries of [`to_json`]'s document, at the same places
/// (`/summary`, `/corrected/summary`): what the page's tables read, without
/// building every sample's object.
pub fn summaries_json(report: &Report) -> Value {
    json!({
        "summary": report.official.summary.to_official_json(),
        "corrected": {"summary": report.corrected.summary.to_official_json()},
    })
}

/// A map of one entry.
struct One<'a, T: Serialize>(&'static str, &'a T);

impl<T: Serialize> Serialize for One<'_, T> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut m = ser.serialize_map(Some(1))?;
        m.serialize_entry(self.0, self.1)?;
        m.end()
    }
}

/// A sequence serialised item by item from an iterator, never collected.
struct Items<F>(F);

impl<F, I, T> Serialize for Items<F>
where
    F: Fn() -> I,
    I: Iterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq((self.0)())
    }
}

/// The whole document of [`to_json`], as borrowed parts.
struct Document<'a> {
    report: &'a Report,
    pred_path: &'a str,
    /// Entries added last, in order: what the intake skipped, repeated
    /// or refused (`input`, issue #23; `unused`, issue #47).
    extra: &'a [(&'a str, &'a Value)],
}

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let r = self.report;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("std_response_jsonl", self.pred_path)?;
        if let Some(o) = &r.coord_override {
            m.serialize_entry("coord_override", o)?;
        }
        m.serialize_entry("summary", &r.official.summary.to_official_json())?;
        m.serialize_entry(
            "details",
            &One(
                "by_samples",
                &Items(|| r.official.samples.iter().map(OfficialSample)),
            ),
        )?;
        m.serialize_entry(
            "corrected",
            &json!({
                "summary": r.corrected.summary.to_official_json(),
                "fixes": FIXES,
            }),
        )?;
        m.serialize_entry("knoblab", &Knoblab(r))?;
        for (key, value) in self.extra {
            m.serialize_entry(key, value)?;
        }
        m.end()
    }
}

struct Knoblab<'a>(&'a Report);

impl Serialize for Knoblab<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("input_kind", input_kind(r.kind))?;
        m.serialize_entry("ground_truth", &r.gt_coverage_message())?;
        m.serialize_entry(
            "unweighted_group_mean",
            &r.official.summary.unweighted_group_mean(),
        )?;
        m.serialize_entry("notes", &Items(|| notes(r)))?;
        if let Some(c) = &r.comparison {
            m.serialize_entry("comparison_with_file", &comparison_json(c))?;
        }
        m.end()
    }
}

/// Writes [`to_json`]'s document as pretty JSON (the bytes of
/// `serde_json::to_string_pretty(&to_json(..))`), sample by sample, so the
/// memory it takes is one sample's, not the document's.
pub fn write_json<W: std::io::Write>(
    report: &Report,
    pred_path: &str,
    out: W,
) -> serde_json::Result<()> {
    write_json_with(report, pred_path, &[], out)
}

/// [`write_json`] with `extra` entries last, in order (the bytes of
/// [`to_json`]'s document with them inserted at its end): what the intake
/// of the predictions skipped, repeated or refused.
pub fn write_json_with<W: std::io::Write>(
    report: &Report,
    pred_path: &str,
    extra: &[(&str, &Value)],
    out: W,
) -> serde_json::Result<()> {
    serde_json::to_writer_pretty(
        out,
        &Document {
            report,
            pred_path,
            extra,
        },
    )
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
