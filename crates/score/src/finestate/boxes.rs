//! The official box test, `is_point_in_bbox` and `evaluate_location_accuracy`
//! (spec §6.1), over boxes exactly as the annotation JSON holds them.
//!
//! Boxes stay `serde_json::Value`s because Python's behaviour depends on their
//! type: a string value makes the comparison raise, a `bool` compares as 0/1,
//! and a raise drops the whole query from the denominators (spec §6.4).

use serde_json::Value;
use thiserror::Error;

use super::python::{as_number, py_len, truthy, type_name, NoLen};

/// An exception the official box test raises (a Python `TypeError`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoxError {
    /// A comparison reached a value that is not a number: "'<=' not supported
    /// between instances of 'str' and 'float'".
    #[error("'<=' not supported between instances of '{left}' and '{right}'")]
    Compare {
        /// Python's type name of the left operand.
        left: &'static str,
        /// Python's type name of the right operand.
        right: &'static str,
    },
    /// A truthy box that is not a sequence (a number or `true`).
    #[error("{0}")]
    NoLen(NoLen),
}

impl BoxError {
    /// The Python exception class name.
    pub fn exception(&self) -> &'static str {
        "TypeError"
    }
}

/// `value <= x`, where `x` is the point's float coordinate.
fn value_le_point(value: &Value, x: f64) -> Result<bool, BoxError> {
    as_number(value).map(|v| v <= x).ok_or(BoxError::Compare {
        left: type_name(value),
        right: "float",
    })
}

/// `x <= value`.
fn point_le_value(x: f64, value: &Value) -> Result<bool, BoxError> {
    as_number(value).map(|v| x <= v).ok_or(BoxError::Compare {
        left: "float",
        right: type_name(value),
    })
}

/// The four values `xmin, ymin, xmax, ymax = bbox` unpacks from a box of
/// length 4: list items, a string's characters, or a dict's keys.
fn unpack(bbox: &Value) -> Vec<Value> {
    match bbox {
        Value::Array(a) => a.clone(),
        Value::String(s) => s.chars().map(|c| Value::String(c.to_string())).collect(),
        Value::Object(o) => o.keys().map(|k| Value::String(k.clone())).collect(),
        _ => Vec::new(),
    }
}

/// `is_point_in_bbox(point, bbox)`: closed intervals, float64, no tolerance,
/// evaluated as Python's chained comparison `xmin <= x <= xmax and ymin <= y
/// <= ymax`, short-circuiting left to right (spec §6.1). A point of `None`
/// is never inside.
///
/// ```
/// use knoblab_score::finestate::boxes::is_point_in_bbox;
/// use serde_json::json;
/// assert_eq!(is_point_in_bbox(Some([0.5, 0.3]), &json!([0.1, 0.2, 0.5, 0.3])), Ok(true));
/// assert!(is_point_in_bbox(Some([0.3, 0.25]), &json!(["0.1", 0.2, 0.5, 0.3])).is_err());
/// ```
pub fn is_point_in_bbox(point: Option<[f64; 2]>, bbox: &Value) -> Result<bool, BoxError> {
    let Some([x, y]) = point else {
        return Ok(false);
    };
    if !truthy(bbox) {
        return Ok(false);
    }
    if py_len(bbox).map_err(BoxError::NoLen)? != 4 {
        return Ok(false);
    }
    let values = unpack(bbox);
    let [xmin, ymin, xmax, ymax] = values.as_slice() else {
        return Ok(false);
    };
    Ok(value_le_point(xmin, x)?
        && point_le_value(x, xmax)?
        && value_le_point(ymin, y)?
        && point_le_value(y, ymax)?)
}

/// `evaluate_location_accuracy` / `evaluate_state_awareness`: 0 unless the
/// point exists and the box is truthy, then the box test as 0 or 1.
pub fn evaluate_location_accuracy(point: Option<[f64; 2]>, bbox: &Value) -> Result<u8, BoxError> {
    if point.is_none() || !truthy(bbox) {
        return Ok(0);
    }
    Ok(u8::from(is_point_in_bbox(point, bbox)?))
}

/// A plain numeric box `[xmin, ymin, xmax, ymax]`, when the value is one.
pub fn numeric_box(bbox: &Value) -> Option<[f64; 4]> {
    let a = bbox.as_array()?;
    match a.as_slice() {
        [a0, a1, a2, a3] => Some([a0.as_f64()?, a1.as_f64()?, a2.as_f64()?, a3.as_f64()?]),
        _ => None,
    }
}

/// Closed-interval containment on a numeric box (the corrected mode's test).
pub fn contains(bbox: [f64; 4], point: [f64; 2]) -> bool {
    let [xmin, ymin, xmax, ymax] = bbox;
    xmin <= point[0] && point[0] <= xmax && ymin <= point[1] && point[1] <= ymax
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn float_steps_matter() {
        let b = json!([0.1, 0.2, 0.45, 0.3]);
        assert_eq!(
            is_point_in_bbox(Some([0.45000000000000007, 0.25]), &b),
            Ok(false)
        );
        let b = json!([0.1, 0.2, 0.1 + 0.2, 0.3]);
        assert_eq!(is_point_in_bbox(Some([0.3, 0.25]), &b), Ok(true));
    }

    #[test]
    fn null_is_reached_only_after_x_passes() {
        let b = json!([0.4, null, 0.45, 0.28]);
        assert_eq!(is_point_in_bbox(Some([0.3, 0.25]), &b), Ok(false));
        assert!(is_point_in_bbox(Some([0.42, 0.25]), &b).is_err());
    }

    #[test]
    fn number_box_has_no_len() {
        let e = is_point_in_bbox(Some([0.3, 0.25]), &json!(5)).unwrap_err();
        assert_eq!(e.to_string(), "object of type 'int' has no len()");
    }
}
