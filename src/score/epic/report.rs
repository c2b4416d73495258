//! A whole scoring run: input detection (raw, std_format, official
//! `*_full.json`), official and corrected scoring side by side, GT coverage,
//! and the JSON and table renderings the CLI and the page show.

use serde_json::Value;
use thiserror::Error;

use super::aggregate::Summary;
use super::extract::Dialect;
use super::formatter::{format_jsonl, FormatOptions, FormatOutput};
use super::gt::{GroundTruthSource, GtCache};
use super::pyjson;
use super::pyvalue::PyValue;
use super::scorer::{score_record, Quirk, SampleResult, ScoreOptions};
use super::taxonomy::family_coord_mode;

/// What kind of predictions file this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Raw model outputs (`{"response", "images"}` per line).
    Raw,
    /// std_format JSONL (or a JSON array of std records).
    Std,
    /// An official `*_full.json` score file: re-scored and compared.
    OfficialScores,
}

/// Why a predictions file cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EpicError {
    /// Nothing but whitespace.
    #[error("the predictions file is empty")]
    Empty,
    /// No line is a JSON object the scorer knows.
    #[error("not an EPIC-Bench predictions file: expected raw JSONL with \"response\", std_format JSONL with \"formatted_response_*\" fields, or an official *_full.json; found {found}")]
    Unrecognised { found: String },
}

/// Options of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--coord-mode`; wins over the family's mode.
    pub coord_mode: Option<String>,
    /// The model family (the std file's parent folder name).
    pub family: Option<String>,
}

impl RunOptions {
    /// The coordinate override the official batch runner would apply.
    pub fn coord_override(&self) -> Option<String> {
        self.coord_mode.clone().or_else(|| {
            self.family
                .as_deref()
                .and_then(family_coord_mode)
                .map(str::to_string)
        })
    }
}

/// One scoring pass (official or corrected).
#[derive(Debug, Clone)]
pub struct Run {
    pub samples: Vec<SampleResult>,
    pub summary: Summary,
}

/// A difference between a re-score and the numbers in an official file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub index: Option<usize>,
    pub what: String,
}

/// The report of one predictions file.
#[derive(Debug, Clone)]
pub struct Report {
    pub kind: InputKind,
    pub coord_override: Option<String>,
    pub official: Run,
    pub corrected: Run,
    /// The formatter's output, for raw input.
    pub formatted: Option<FormatOutput>,
    /// Samples with a GT path, and how many found their file.
    pub gt_expected: usize,
    pub gt_found: usize,
    pub gt_missing: Vec<String>,
    /// For an official score file: where the re-score differs from it.
    pub comparison: Option<Vec<Mismatch>>,
}

impl Report {
    /// "63 of 67 samples found their mask; missing: …".
    pub fn gt_coverage_message(&self) -> String {
        let mut m = format!(
            "{} of {} samples found their mask",
            self.gt_found, self.gt_expected
        );
        // A wrong root misses every file: name a few, count the rest.
        const SHOWN: usize = 10;
        if !self.gt_missing.is_empty() {
            m.push_str("; missing: ");
            let shown: Vec<&str> = self
                .gt_missing
                .iter()
                .take(SHOWN)
                .map(String::as_str)
                .collect();
            m.push_str(&shown.join(", "));
            if self.gt_missing.len() > SHOWN {
                m.push_str(&format!(" and {} more", self.gt_missing.len() - SHOWN));
            }
        }
        m
    }
}

/// Detects the kind of a predictions file.
pub fn detect_input(text: &str) -> Result<InputKind, EpicError> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return Err(EpicError::Empty);
    }
    if t.starts_with('{') {
        if let Ok(v) = pyjson::loads(t) {
            if v.get("summary").is_some() && v.get("details").is_some() {
                return Ok(InputKind::OfficialScores);
            }
        }
    }
    if t.starts_with('[') {
        return Ok(InputKind::Std);
    }
    for line in t.lines().filter(|l| !l.trim().is_empty()) {
        if let Ok(v) = pyjson::loads(line) {
            if v.get("response").is_some() {
                return Ok(InputKind::Raw);
            }
            if v.get("task_category").is_some()
                || v.get("formatted_response_localization").is_some()
            {
                return Ok(InputKind::Std);
            }
        }
    }
    Err(EpicError::Unrecognised {
        found: t.chars().take(80).collect(),
    })
}

/// Reads std records: JSONL, or a JSON array "if the trimmed text starts
/// with `[`. Non-object items and lines that fail to parse are silently
/// skipped."
pub fn read_std(text: &str) -> Vec<PyValue> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.starts_with('[') {
        return match pyjson::loads(t) {
            Ok(PyValue::List(items)) => items
                .into_iter()
                .filter(|v| matches!(v, PyValue::Dict(_)))
                .collect(),
            _ => Vec::new(),
        };
    }
    t.lines()
        .filter_map(|l| pyjson::loads(l).ok())
        .filter(|v| matches!(v, PyValue::Dict(_)))
        .collect()
}

/// Rebuilds std records from an official score file's `details.by_samples`.
fn records_from_scores(v: &PyValue) -> Vec<PyValue> {
    let Some(PyValue::List(samples)) = v.get("details").and_then(|d| d.get("by_samples")) else {
        return Vec::new();
    };
    samples
        .iter()
        .map(|s| {
            let one = |k: &str| PyValue::List(s.get(k).cloned().into_iter().collect());
            let rd = s.get("response_details");
            let rd_get = |k: &str| rd.and_then(|r| r.get(k)).cloned().unwrap_or(PyValue::None);
            let mode = match rd_get("coordinate_system") {
                PyValue::Str(m)
                    if ["absolute", "normalized_0_1", "normalized_0_1000"]
                        .contains(&m.as_str()) =>
                {
                    m
                }
                _ => "auto".to_string(),
            };
            let mut items = vec![
                ("task_category".to_string(), one("task_category")),
                ("task_type".to_string(), one("task_type")),
                (
                    "format_type".to_string(),
                    PyValue::List(vec![rd_get("format_type")]),
                ),
                (
                    "coordinate_system".to_string(),
                    PyValue::List(vec![PyValue::Str(mode)]),
                ),
            ];
            for k in [
                "formatted_response_localization",
                "formatted_response_count",
                "formatted_response_path",
                "formatted_response_binary",
            ] {
                items.push((k.to_string(), rd_get(k)));
            }
            items.push((
                "ground_truth".to_string(),
                s.get("ground_truth")
                    .cloned()
                    .unwrap_or(PyValue::Dict(Vec::new())),
            ));
            PyValue::Dict(items)
        })
        .collect()
}

fn run(records: &[PyValue], cache: &mut GtCache, opts: &ScoreOptions) -> Run {
    let samples: Vec<SampleResult> = records
        .iter()
        .enumerate()
        .map(|(i, r)| score_record(i, r, cache, opts))
        .collect();
    let summary = Summary::new(&samples);
    Run { samples, summary }
}

/// Scores a predictions file against ground truth.
pub fn score_text(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
) -> Result<Report, EpicError> {
    let kind = detect_input(text)?;
    let coord_override = opts.coord_override();
    let (official_records, corrected_records, formatted, scores_file) = match kind {
        InputKind::Raw => {
            let off = format_jsonl(text, &FormatOptions::default());
            let cor = format_jsonl(
                text,
                &FormatOptions {
                    dialect: Dialect::Corrected,
                    ..FormatOptions::default()
                },
            );
            let a: Vec<PyValue> = off.records.iter().map(|f| f.record.clone()).collect();
            let b: Vec<PyValue> = cor.records.iter().map(|f| f.record.clone()).collect();
            (a, b, Some(off), None)
        }
        InputKind::Std => {
            let r = read_std(text);
            (r.clone(), r, None, None)
        }
        InputKind::OfficialScores => {
            let v = pyjson::loads(text.trim_start_matches('\u{feff}').trim()).map_err(|e| {
                EpicError::Unrecognised {
                    found: e.to_string(),
                }
            })?;
            let r = records_from_scores(&v);
            (r.clone(), r, None, Some(v))
        }
    };
    // An official score file carries its own override.
    let coord_override = coord_override.or_else(|| {
        scores_file
            .as_ref()
            .and_then(|v| v.get("coord_override"))
            .and_then(PyValue::as_str)
            .map(str::to_string)
    });
    // One GT cache for both passes: each file is read and parsed once.
    let mut cache = GtCache::new(gt);
    let official = run(
        &official_records,
        &mut cache,
        &ScoreOptions {
            coord_override: coord_override.clone(),
            corrected: false,
        },
    );
    let corrected = run(
        &corrected_records,
        &mut cache,
        &ScoreOptions {
            coord_override: coord_override.clone(),
            corrected: true,
        },
    );
    let mut official = official;
    if let Some(f) = &formatted {
        for (s, rec) in official.samples.iter_mut().zip(&f.records) {
            if let Some(why) = rec.failure {
                s.quirks.insert(0, Quirk::FormatterRejected(why.describe()));
            }
        }
    }
    let with_path: Vec<&SampleResult> = official
        .samples
        .iter()
        .filter(|s| s.gt_path.is_some())
        .collect();
    let mut gt_missing: Vec<String> = with_path
        .iter()
        .filter(|s| !s.gt_found)
        .filter_map(|s| s.gt_path.clone())
        .collect();
    gt_missing.dedup();
    let comparison = scores_file
        .as_ref()
        .map(|v| compare_with_official(v, &official));
    Ok(Report {
        kind,
        coord_override,
        gt_expected: with_path.len(),
        gt_found: with_path.iter().filter(|s| s.gt_found).count(),
        gt_missing,
        official,
        corrected,
        formatted,
        comparison,
    })
}

/// Compares a re-score with an official file's numbers (|Δ| ≤ 1e-9 for
/// numbers, exact for strings and flags).
pub fn compare_with_official(file: &PyValue, run: &Run) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let ours = run.summary.to_official_json();
    let theirs = file
        .get("summary")
        .map(PyValue::to_json)
        .unwrap_or(Value::Null);
    diff_json("summary", &theirs, &ours, None, &mut out);
    if let Some(PyValue::List(samples)) = file.get("details").and_then(|d| d.get("by_samples")) {
        if samples.len() != run.samples.len() {
            out.push(Mismatch {
                index: None,
                what: format!(
                    "{} samples in the file, {} re-scored",
                    samples.len(),
                    run.samples.len()
                ),
            });
        }
        for (s, r) in samples.iter().zip(&run.samples) {
            let theirs = s.to_json();
            let ours = r.to_official_json();
            for k in ["score", "score_details", "error", "invalid_response"] {
                diff_json(k, &theirs[k], &ours[k], Some(r.index), &mut out);
            }
        }
    }
    out
}

/// Records every difference between two JSON values (numbers within 1e-9).
pub fn diff_json(path: &str, a: &Value, b: &Value, index: Option<usize>, out: &mut Vec<Mismatch>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            // NaN never compares close, so it is reported.
            let close = (x - y).abs() <= 1e-9;
            if !close {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: official {x:?}, ours {y:?}"),
                });
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            if kx != ky {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: keys official {kx:?}, ours {ky:?}"),
                });
            }
            for (k, v) in x {
                if let Some(w) = y.get(k) {
                    diff_json(&format!("{path}.{k}"), v, w, index, out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: length official {}, ours {}", x.len(), y.len()),
                });
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff_json(&format!("{path}[{i}]"), v, w, index, out);
            }
        }
        _ => {
            if a != b {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: official {a}, ours {b}"),
                });
            }
        }
    }
}
