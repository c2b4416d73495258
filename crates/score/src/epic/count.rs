//! The count score (§8) and the placement feasibility score (§9).

use serde_json::{json, Map, Value};

use super::prediction::{parse_binary, parse_count, sentinel};
use super::pyvalue::{PyError, PyValue};

/// The count score's error when the predicted or the GT count is missing.
pub const ERR_COUNT_MISSING: &str = "Missing pred_count or gt_count";
/// The placement score's error when the predicted or the GT answer is missing.
pub const ERR_BINARY_MISSING: &str = "Missing pred_binary or gt_binary";

/// A component result: score, error, details.
#[derive(Debug, Clone)]
pub struct Component {
    /// The score, 0.0 to 1.0.
    pub score: f64,
    /// The official error message, if the component could not be scored.
    pub error: Option<&'static str>,
    /// The official per-component details (GT and predicted values, mode).
    pub details: Map<String, Value>,
}

/// The two counts a count score compared, as its `metric_details.count`
/// writes them (`gt_count`, `pred_count`; `None` is `null`). Kept typed on
/// every scored sample, whatever details are kept: the page's
/// count-accuracy breakdown reads them
/// ([`super::aggregate::count_accuracy_by_target_count`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// The GT count.
    pub gt: Option<i64>,
    /// The predicted count, when one was read.
    pub pred: Option<i64>,
}

/// Scores a count. `exact = precise_count OR count_in_description`; exact:
/// 1 if equal; approximate: "If `gt ≤ 0`: 1.0 if `pred == 0`, else 0.0.
/// Otherwise ... `max(0, 1 - min(1, |gt - pred| / max(1, gt)))`".
///
/// Errors with the Python exception when the predicted count is infinite.
pub fn score_count(
    pred: Option<&PyValue>,
    gt_count: Option<i128>,
    precise: bool,
    in_description: bool,
    honour_wrapped: bool,
) -> Result<Component, PyError> {
    score_count_with(
        pred,
        gt_count,
        precise,
        in_description,
        honour_wrapped,
        true,
    )
    .map(|(c, _)| c)
}

/// [`score_count`], filling in [`Component::details`] only when `details`
/// (a caller that prints the document, which carries none, saves building
/// them); the score and the error are the same either way. With it, the
/// [`Counts`] compared: `None` where the details have no counts (a failure
/// marker stopped the score first).
pub fn score_count_with(
    pred: Option<&PyValue>,
    gt_count: Option<i128>,
    precise: bool,
    in_description: bool,
    honour_wrapped: bool,
    details: bool,
) -> Result<(Component, Option<Counts>), PyError> {
    let mut c = Component {
        score: 0.0,
        error: None,
        details: Map::new(),
    };
    if let Some(stop) = sentinel(pred, honour_wrapped) {
        c.error = stop.error();
        return Ok((c, None));
    }
    let exact = precise || in_description;
    let p = match pred {
        Some(v) => parse_count(v)?,
        None => None,
    };
    let counts = Counts {
        gt: gt_count.map(|g| g as i64),
        pred: p.map(|g| g as i64),
    };
    if details {
        let d = &mut c.details;
        d.insert("precise_count".into(), json!(precise));
        d.insert("count_in_description".into(), json!(in_description));
        d.insert("exact_required".into(), json!(exact));
        d.insert("gt_count".into(), json!(counts.gt));
        d.insert("pred_count".into(), json!(counts.pred));
    }
    let (Some(p), Some(g)) = (p, gt_count) else {
        c.error = Some(ERR_COUNT_MISSING);
        return Ok((c, Some(counts)));
    };
    if details {
        c.details
            .insert("mode".into(), json!(if exact { "exact" } else { "approx" }));
    }
    c.score = if exact {
        if p == g {
            1.0
        } else {
            0.0
        }
    } else if g <= 0 {
        if p == 0 {
            1.0
        } else {
            0.0
        }
    } else {
        let ratio = (g - p).unsigned_abs() as f64 / g.max(1) as f64;
        (1.0 - ratio.min(1.0)).max(0.0)
    };
    Ok((c, Some(counts)))
}

/// Scores placement feasibility: 1 if the parsed prediction equals the GT.
pub fn score_binary(pred: Option<&PyValue>, gt: Option<bool>, honour_wrapped: bool) -> Component {
    let mut c = Component {
        score: 0.0,
        error: None,
        details: Map::new(),
    };
    if let Some(stop) = sentinel(pred, honour_wrapped) {
        c.error = stop.error();
        return c;
    }
    let p = pred.and_then(parse_binary);
    c.details.insert("gt_binary".into(), json!(gt));
    c.details.insert("pred_binary".into(), json!(p));
    match (p, gt) {
        (Some(p), Some(g)) => c.score = if p == g { 1.0 } else { 0.0 },
        _ => c.error = Some(ERR_BINARY_MISSING),
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(pred: i128, gt: i128, exact: bool) -> f64 {
        let v = PyValue::List(vec![PyValue::Int(pred)]);
        score_count(Some(&v), Some(gt), exact, false, false)
            .unwrap()
            .score
    }

    #[test]
    fn approximate_examples_from_the_spec() {
        assert_eq!(count(2, 4, false), 0.5);
        assert_eq!(count(9, 4, false), 0.0);
        assert_eq!(count(-1, 4, false), 0.0);
        assert_eq!(count(4, 5, false), 0.8);
        assert_eq!(count(0, 0, false), 1.0);
        assert_eq!(count(3, 4, true), 0.0);
    }

    #[test]
    fn missing_gt_count_is_an_error() {
        let v = PyValue::List(vec![PyValue::Int(1)]);
        let c = score_count(Some(&v), None, false, false, false).unwrap();
        assert_eq!(c.error, Some(ERR_COUNT_MISSING));
    }
}
