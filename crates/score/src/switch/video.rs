//! Generated-video judging: aggregate a file of judge outputs.
//!
//! > Accept a file of judge outputs (one JSON object per video, with the
//! > four dimensions `scene_fidelity`, `control_correctness`,
//! > `procedure_correctness`, `execution_observability`, each `{score 1–5,
//! > reason}`, plus `overall_score`, `confidence`, `major_errors`, and the
//! > model and input form) and report the means per model and input form, in
//! > the layout of the paper's table.
//!
//! Input: JSON Lines or a JSON array. The model is `model`; the input form is
//! `input_form` or `form`. **Decision:** `overall_score` must be a number
//! from 1 to 5 like the dimensions; `confidence` is averaged when it is a
//! number and otherwise kept out of the mean; a dimension may be given as a
//! bare number instead of `{score, reason}`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::{InputError, InputErrors};
use super::fields::json_records;
use super::mcq::Mean;

/// The four dimensions, in the paper's column order.
pub const DIMENSIONS: [&str; 4] = [
    "scene_fidelity",
    "control_correctness",
    "procedure_correctness",
    "execution_observability",
];

/// One judged video.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VideoJudgement {
    /// The judgement's line, from 1.
    pub line: usize,
    /// The video model judged.
    pub model: String,
    /// The input form the video was generated from.
    pub input_form: String,
    /// Scores of [`DIMENSIONS`], in order.
    pub dimensions: [f64; 4],
    /// The judge's overall score.
    pub overall_score: f64,
    /// The judge's confidence, when given.
    pub confidence: Option<f64>,
    /// The major errors the judge named.
    pub major_errors: Vec<String>,
    /// A human rating of the same video (1–5), when given (`human_score`).
    pub human: Option<f64>,
}

/// One row of the table: a model on an input form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VideoRow {
    /// The video model.
    pub model: String,
    /// The input form.
    pub input_form: String,
    /// Videos judged.
    pub n: usize,
    /// Mean scene fidelity.
    pub scene_fidelity: f64,
    /// Mean control correctness.
    pub control_correctness: f64,
    /// Mean procedure correctness.
    pub procedure_correctness: f64,
    /// Mean execution observability.
    pub execution_observability: f64,
    /// Mean overall score.
    pub overall_score: f64,
    /// Mean confidence, over the videos that give one.
    pub confidence: Option<f64>,
    /// Videos with at least one major error.
    pub with_major_errors: usize,
    /// The mean human rating (1–5), when human judgements are given.
    pub human: Option<f64>,
    /// How many videos have a human rating.
    pub human_n: usize,
}

/// The video-judge table: one row per (model, input form), sorted, and the
/// paper's Average row per input form.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VideoReport {
    /// One row per (model, input form), sorted.
    pub rows: Vec<VideoRow>,
    /// One row per input form, `model` = "Average": the mean of that
    /// form's model rows (each model counts once, as a table's average row
    /// does), `n` their videos in all; `human` the mean of the rows that
    /// have one.
    pub averages: Vec<VideoRow>,
    /// Whether any human judgement was given (the table then shows a
    /// human-evaluation column).
    pub has_human: bool,
}

/// A human rating of one generated video.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HumanJudgement {
    /// The rating's line, from 1.
    pub line: usize,
    /// The video model.
    pub model: String,
    /// The input form.
    pub input_form: String,
    /// The rating, 1–5.
    pub score: f64,
}

/// Reads human ratings: JSON Lines (or a JSON array) of `{"model",
/// "input_form" (or "form"), "human_score" (or "score"): 1–5}`.
pub fn read_human_judgements(file: &str, bytes: &[u8]) -> Result<Vec<HumanJudgement>, InputErrors> {
    let (records, mut errors) = json_records(file, bytes);
    let mut out = Vec::new();
    for (line, value) in records {
        let record = format!("line {line}");
        let error = |field: &str, expected: &str, found: Option<&Value>| {
            InputError::field(file, &record, field, expected, found)
        };
        let Value::Object(obj) = &value else {
            errors.push(error("(line)", "a JSON object", Some(&value)));
            continue;
        };
        let string = |f: &str| obj.get(f).and_then(Value::as_str).map(str::to_string);
        let model = string("model");
        let form = string("input_form").or_else(|| string("form"));
        let score = score_of(obj, "human_score").or_else(|| score_of(obj, "score"));
        match (model, form, score) {
            (Some(model), Some(input_form), Some(score)) => out.push(HumanJudgement {
                line,
                model,
                input_form,
                score,
            }),
            (model, form, score) => {
                if model.is_none() {
                    errors.push(error("model", "the judged model's name", obj.get("model")));
                }
                if form.is_none() {
                    errors.push(error(
                        "input_form",
                        "the input form, e.g. img2video",
                        obj.get("input_form"),
                    ));
                }
                if score.is_none() {
                    errors.push(error(
                        "human_score",
                        "a number from 1 to 5",
                        obj.get("human_score").or_else(|| obj.get("score")),
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(InputErrors(errors))
    }
}

/// Reads video-judge outputs, reporting every malformed line.
pub fn read_video_judgements(file: &str, bytes: &[u8]) -> Result<Vec<VideoJudgement>, InputErrors> {
    let (records, mut errors) = json_records(file, bytes);
    let mut out = Vec::new();
    for (line, value) in records {
        match parse_judgement(file, line, &value) {
            Ok(j) => out.push(j),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(InputErrors(errors))
    }
}

fn parse_judgement(
    file: &str,
    line: usize,
    value: &Value,
) -> Result<VideoJudgement, Vec<InputError>> {
    let record = format!("line {line}");
    let error = |field: &str, expected: &str, found: Option<&Value>| {
        InputError::field(file, &record, field, expected, found)
    };
    let Value::Object(obj) = value else {
        return Err(vec![error("(line)", "a JSON object", Some(value))]);
    };
    let mut errors = Vec::new();
    let string = |field: &str| obj.get(field).and_then(Value::as_str).map(str::to_string);
    let model = string("model");
    if model.is_none() {
        errors.push(error("model", "the judged model's name", obj.get("model")));
    }
    let input_form = string("input_form").or_else(|| string("form"));
    if input_form.is_none() {
        errors.push(error(
            "input_form",
            "the input form, e.g. img2video",
            obj.get("input_form"),
        ));
    }
    let mut dimensions = [0.0; 4];
    for (slot, name) in dimensions.iter_mut().zip(DIMENSIONS) {
        match score_of(obj, name) {
            Some(s) => *slot = s,
            None => errors.push(error(
                name,
                "{\"score\": 1–5, \"reason\": \"…\"}",
                obj.get(name),
            )),
        }
    }
    let overall = score_of(obj, "overall_score");
    if overall.is_none() {
        errors.push(error(
            "overall_score",
            "a number from 1 to 5",
            obj.get("overall_score"),
        ));
    }
    let major_errors = match obj.get("major_errors") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|e| {
                e.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| e.to_string())
            })
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.clone()],
        _ => Vec::new(),
    };
    let (Some(model), Some(input_form), Some(overall_score), true) =
        (model, input_form, overall, errors.is_empty())
    else {
        return Err(errors);
    };
    Ok(VideoJudgement {
        line,
        model,
        input_form,
        dimensions,
        overall_score,
        confidence: obj.get("confidence").and_then(Value::as_f64),
        major_errors,
        human: score_of(obj, "human_score"),
    })
}

/// A score 1–5 from `{score, reason}` or a bare number.
fn score_of(obj: &Map<String, Value>, field: &str) -> Option<f64> {
    let v = match obj.get(field)? {
        Value::Object(o) => o.get("score")?.as_f64()?,
        other => other.as_f64()?,
    };
    (1.0..=5.0).contains(&v).then_some(v)
}

/// Means per (model, input form).
///
/// ```
/// use knoblab_score::switch::video::{read_video_judgements, aggregate_videos};
/// let line = br#"{"model":"m","input_form":"img2video","scene_fidelity":{"score":4,"reason":""},"control_correctness":{"score":2,"reason":""},"procedure_correctness":{"score":3,"reason":""},"execution_observability":{"score":5,"reason":""},"overall_score":3,"confidence":0.8,"major_errors":[]}"#;
/// let report = aggregate_videos(&read_video_judgements("v.jsonl", line).unwrap());
/// assert_eq!(report.rows[0].scene_fidelity, 4.0);
/// ```
pub fn aggregate_videos(judgements: &[VideoJudgement]) -> VideoReport {
    aggregate_videos_with(judgements, &[])
}

/// [`aggregate_videos`] with human ratings given apart (each joins its
/// model and input form's row, beside any `human_score` on the judgements).
pub fn aggregate_videos_with(
    judgements: &[VideoJudgement],
    human: &[HumanJudgement],
) -> VideoReport {
    #[derive(Default)]
    struct Acc {
        dims: [Mean; 4],
        overall: Mean,
        confidence: Mean,
        with_errors: usize,
        human: Mean,
    }
    let mut groups: BTreeMap<(String, String), Acc> = BTreeMap::new();
    for j in judgements {
        let acc = groups
            .entry((j.model.clone(), j.input_form.clone()))
            .or_default();
        for (m, v) in acc.dims.iter_mut().zip(j.dimensions) {
            m.add(v);
        }
        acc.overall.add(j.overall_score);
        if let Some(c) = j.confidence {
            acc.confidence.add(c);
        }
        if !j.major_errors.is_empty() {
            acc.with_errors += 1;
        }
        if let Some(h) = j.human {
            acc.human.add(h);
        }
    }
    for h in human {
        groups
            .entry((h.model.clone(), h.input_form.clone()))
            .or_default()
            .human
            .add(h.score);
    }
    let rows: Vec<VideoRow> = groups
        .into_iter()
        .map(|((model, input_form), acc)| {
            let mean = |m: &Mean| m.value().unwrap_or(0.0);
            VideoRow {
                model,
                input_form,
                n: acc.overall.n,
                scene_fidelity: mean(&acc.dims[0]),
                control_correctness: mean(&acc.dims[1]),
                procedure_correctness: mean(&acc.dims[2]),
                execution_observability: mean(&acc.dims[3]),
                overall_score: mean(&acc.overall),
                confidence: acc.confidence.value(),
                with_major_errors: acc.with_errors,
                human: acc.human.value(),
                human_n: acc.human.n,
            }
        })
        .collect();
    let has_human = rows.iter().any(|r| r.human.is_some());
    let averages = average_rows(&rows);
    VideoReport {
        rows,
        averages,
        has_human,
    }
}

/// The Average row of each input form: the mean of its judged model rows.
fn average_rows(rows: &[VideoRow]) -> Vec<VideoRow> {
    let mut forms: Vec<&str> = rows.iter().map(|r| r.input_form.as_str()).collect();
    forms.sort_unstable();
    forms.dedup();
    forms
        .into_iter()
        .filter_map(|form| {
            let of_form: Vec<&VideoRow> = rows
                .iter()
                .filter(|r| r.input_form == form && r.n > 0)
                .collect();
            if of_form.is_empty() {
                return None;
            }
            let mean = |f: fn(&VideoRow) -> f64| {
                of_form.iter().map(|r| f(r)).sum::<f64>() / of_form.len() as f64
            };
            let mut human = Mean::default();
            let mut confidence = Mean::default();
            for r in &of_form {
                if let Some(h) = r.human {
                    human.add(h);
                }
                if let Some(c) = r.confidence {
                    confidence.add(c);
                }
            }
            Some(VideoRow {
                model: "Average".into(),
                input_form: form.to_string(),
                n: of_form.iter().map(|r| r.n).sum(),
                scene_fidelity: mean(|r| r.scene_fidelity),
                control_correctness: mean(|r| r.control_correctness),
                procedure_correctness: mean(|r| r.procedure_correctness),
                execution_observability: mean(|r| r.execution_observability),
                overall_score: mean(|r| r.overall_score),
                confidence: confidence.value(),
                with_major_errors: of_form.iter().map(|r| r.with_major_errors).sum(),
                human: human.value(),
                human_n: of_form.iter().map(|r| r.human_n).sum(),
            })
        })
        .collect()
}
