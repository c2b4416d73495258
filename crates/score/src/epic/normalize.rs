//! The formatter's value normalisation (§4.3 steps 5–7): numbers, boxes,
//! points and placement feasibility as `format_response.py` writes them.

use super::pyvalue::{py_float, py_strip, PyValue};

/// A normalised number: "written back as an int if it is integral and
/// `|v| < 1e15`, otherwise as a float".
pub fn number(v: &PyValue) -> Option<PyValue> {
    let f = py_float(v).ok()?;
    if !f.is_finite() {
        return None;
    }
    Some(if f.fract() == 0.0 && f.abs() < 1e15 {
        PyValue::Int(f as i128)
    } else {
        PyValue::Float(f)
    })
}

fn numbers(items: &[PyValue], n: usize) -> Option<Vec<PyValue>> {
    items.iter().take(n).map(number).collect()
}

/// The first `n` numbers of a nested list that has at least `n` items.
fn nested_numbers(item: &PyValue, n: usize) -> Option<Vec<PyValue>> {
    let list = item.as_list()?;
    if list.len() < n {
        return None;
    }
    numbers(list, n)
}

/// Box normalisation (§4.3 step 6): a list of exactly 4 numbers;
/// `[[x1,y1,…],[x2,y2,…]]`; or `[[x1,y1,x2,y2,…]]`. Anything else is dropped.
pub fn normalize_boxes(v: &PyValue) -> Vec<PyValue> {
    let Some(items) = v.as_list() else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let it = item.as_list()?;
            let flat = match it.len() {
                4 => numbers(it, 4)?,
                2 => {
                    let mut v = nested_numbers(&it[0], 2)?;
                    v.extend(nested_numbers(&it[1], 2)?);
                    v
                }
                1 => nested_numbers(&it[0], 4)?,
                _ => return None,
            };
            Some(PyValue::List(flat))
        })
        .collect()
}

/// Point normalisation (§4.3 step 7): "a pair of exactly 2 numbers, or
/// `[[x,y,…]]`".
pub fn normalize_points(v: &PyValue) -> Vec<PyValue> {
    let Some(items) = v.as_list() else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let it = item.as_list()?;
            let flat = match it.len() {
                2 => numbers(it, 2)?,
                1 => nested_numbers(&it[0], 2)?,
                _ => return None,
            };
            Some(PyValue::List(flat))
        })
        .collect()
}

/// PR feasibility: "a bool is kept as is. Otherwise the value is
/// `str(v).strip().lower() in {"true","1","yes"}`."
pub fn feasibility(v: &PyValue) -> bool {
    match v {
        PyValue::Bool(b) => *b,
        other => matches!(
            py_strip(&other.py_str()).to_lowercase().as_str(),
            "true" | "1" | "yes"
        ),
    }
}
