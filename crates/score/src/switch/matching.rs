//! Matching predictions to items, and listing what the judge must see.
//!
//! > Items are keyed by (task_family, form, id), or by `origin_qa_id` when
//! > the prediction file carries it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::dataset::{Gold, GroundTruth, UNKNOWN_FORM};
use super::error::{InputError, InputErrors};
use super::judge::JudgeCase;
use super::openqa::value_text;
use super::predictions::{Prediction, PredictionContent, PredictionKey};

/// A prediction that names no item of the ground truth.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    /// The prediction's line, from 1.
    pub line: usize,
    /// The item it names.
    pub key: String,
}

/// Finds the item each prediction names. Errors: a prediction that could be
/// either file's item, and two predictions for one item.
pub(crate) fn match_predictions<'p>(
    gt: &GroundTruth,
    pred_file: &str,
    predictions: &'p [Prediction],
) -> Result<(Vec<Option<&'p Prediction>>, Vec<Unmatched>), InputErrors> {
    let mut by_origin: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut by_position: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
    for (i, item) in gt.items.iter().enumerate() {
        if let Some(o) = &item.origin_qa_id {
            by_origin.entry(o.as_str()).or_default().push(i);
        }
        by_position
            .entry((
                item.key.task_family.as_str(),
                item.key.form.as_str(),
                item.key.id.as_str(),
            ))
            .or_default()
            .push(i);
    }
    let mut assigned: Vec<Option<&Prediction>> = vec![None; gt.items.len()];
    let mut unmatched = Vec::new();
    let mut errors = Vec::new();
    for p in predictions {
        let (candidates, kind) = match &p.key {
            PredictionKey::Origin(o) => (by_origin.get(o.as_str()), None),
            PredictionKey::Position {
                task_family,
                form,
                id,
                kind,
            } => (
                by_position
                    .get(&(task_family.as_str(), form.as_str(), id.as_str()))
                    .or_else(|| {
                        by_position.get(&(task_family.as_str(), UNKNOWN_FORM, id.as_str()))
                    }),
                *kind,
            ),
        };
        let found: Vec<usize> = candidates
            .map(|c| {
                c.iter()
                    .copied()
                    .filter(|i| kind.is_none_or(|k| gt.items[*i].key.kind == k))
                    .collect()
            })
            .unwrap_or_default();
        match found.as_slice() {
            [] => unmatched.push(Unmatched {
                line: p.line,
                key: p.key.to_string(),
            }),
            [i] => match assigned[*i] {
                Some(first) => errors.push(InputError::DuplicatePrediction {
                    file: pred_file.to_string(),
                    key: gt.items[*i].key.to_string(),
                    first: first.line,
                    second: p.line,
                }),
                None => assigned[*i] = Some(p),
            },
            several => errors.push(InputError::Field {
                file: pred_file.to_string(),
                record: format!("line {}", p.line),
                field: "kind".into(),
                expected: "\"kind\": \"mcq\" or \"openqa\" (this key names an item of both vqa.json and openqa.json)".into(),
                found: format!(
                    "{} items: {}",
                    several.len(),
                    several
                        .iter()
                        .map(|i| gt.items[*i].key.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        }
    }
    // Every prediction missed (issue #47): an error, not a table of zeros.
    if errors.is_empty() && !predictions.is_empty() && unmatched.len() == predictions.len() {
        if let (Some(first), Some(item)) = (unmatched.first(), gt.items.first()) {
            errors.push(InputError::NoneMatched {
                file: pred_file.to_string(),
                count: predictions.len(),
                line: first.line,
                key: first.key.clone(),
                example: item.key.to_string(),
            });
        }
    }
    if errors.is_empty() {
        Ok((assigned, unmatched))
    } else {
        Err(InputErrors(errors))
    }
}

/// The prediction text the judge grades.
pub(crate) fn judged_text(p: &Prediction) -> String {
    match &p.content {
        PredictionContent::Response(r) => r.clone(),
        PredictionContent::Answer(a) => value_text(a),
    }
}

/// An OpenQA item waiting for the judge: what the page sends through its
/// API client. The replies it gets go back into the prediction's line as
/// `"judge": {"model", "prompt_version", "attempts": [...]}` (see
/// [`super::predictions::SavedJudge`]), and [`build_report`] scores them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingJudge {
    /// The item's key.
    pub item: String,
    /// The prediction's line.
    pub line: usize,
    /// What the judge is asked.
    pub case: JudgeCase,
}

/// The judge cases of every predicted OpenQA item that must go to the judge
/// (items flagged as multiple choice without options score 0 and are left
/// out), in item order.
pub fn judge_cases(
    gt: &GroundTruth,
    pred_file: &str,
    predictions: &[Prediction],
) -> Result<Vec<PendingJudge>, InputErrors> {
    let (assigned, _) = match_predictions(gt, pred_file, predictions)?;
    let mut pending = Vec::new();
    for (item, p) in gt.items.iter().zip(assigned) {
        let Some(p) = p else { continue };
        if matches!(item.gold, Gold::Choice(_) | Gold::MultiSelect(_)) {
            continue;
        }
        let case = JudgeCase::new(item, &judged_text(p));
        if case.needs_judge() {
            pending.push(PendingJudge {
                item: item.key.to_string(),
                line: p.line,
                case,
            });
        }
    }
    Ok(pending)
}
