//! Python values as the official code sees them after `json.loads`, and the
//! Python conversions (`int()`, `float()`, `repr(float)`) whose exact
//! behaviour decides official scores.
//!
//! The formatter and the scorer are Python; "`int("2.0")` fails",
//! "`float("100")` succeeds", "`int(inf)` raises OverflowError" are all
//! facts the spec relies on (`epic-official.md` §4.3, §5, §11).

use std::fmt::Write as _;

/// A JSON value with Python's distinctions: ints and floats are different
/// types, dicts keep insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    /// JSON `null`, Python's `None`.
    None,
    /// `true` or `false`.
    Bool(bool),
    /// An int. Python ints are unbounded; ints beyond `i128` are read as
    /// floats (a documented deviation that no real file reaches).
    Int(i128),
    /// A float, including `NaN` and the infinities.
    Float(f64),
    /// A string.
    Str(String),
    /// A list (JSON array).
    List(Vec<PyValue>),
    /// A dict (JSON object), keys in insertion order.
    Dict(Vec<(String, PyValue)>),
}

/// Which Python exception a conversion raised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PyError {
    /// `ValueError: <message>`.
    Value(String),
    /// `TypeError: <message>`.
    Type(String),
    /// `OverflowError: <message>`.
    Overflow(String),
}

impl PyError {
    /// The evaluator's error string for an exception: `"<Type>: <message>"`.
    pub fn to_official_string(&self) -> String {
        match self {
            PyError::Value(m) => format!("ValueError: {m}"),
            PyError::Type(m) => format!("TypeError: {m}"),
            PyError::Overflow(m) => format!("OverflowError: {m}"),
        }
    }
}

impl PyValue {
    /// `d.get(key)` on a dict; `None` for other types or a missing key.
    pub fn get(&self, key: &str) -> Option<&PyValue> {
        match self {
            PyValue::Dict(items) => items.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// True when the value is JSON `null` (Python's `None`).
    pub fn is_none(&self) -> bool {
        matches!(self, PyValue::None)
    }

    /// The items of a list; `None` for other types.
    pub fn as_list(&self) -> Option<&[PyValue]> {
        match self {
            PyValue::List(v) => Some(v),
            _ => None,
        }
    }

    /// The text of a string; `None` for other types.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The official `_first`: element 0 of a non-empty list, `None` for an
    /// empty list, the value itself otherwise.
    pub fn first(&self) -> Option<&PyValue> {
        match self {
            PyValue::List(v) => v.first(),
            other => Some(other),
        }
    }

    /// Inserts like a Python dict: an existing key keeps its position.
    pub fn dict_insert(items: &mut Vec<(String, PyValue)>, key: String, value: PyValue) {
        if let Some(slot) = items.iter_mut().find(|(k, _)| *k == key) {
            slot.1 = value;
        } else {
            items.push((key, value));
        }
    }

    /// Converts to a `serde_json::Value` for reports. Non-finite floats
    /// become the strings `"inf"`, `"-inf"`, `"nan"`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            PyValue::None => Value::Null,
            PyValue::Bool(b) => Value::Bool(*b),
            PyValue::Int(i) => match i64::try_from(*i) {
                Ok(v) => Value::from(v),
                Err(_) => Value::from(*i as f64),
            },
            PyValue::Float(f) => float_to_json(*f),
            PyValue::Str(s) => Value::String(s.clone()),
            PyValue::List(v) => Value::Array(v.iter().map(PyValue::to_json).collect()),
            PyValue::Dict(items) => Value::Object(
                items
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// A float for a report: finite values as numbers, others as strings.
pub fn float_to_json(f: f64) -> serde_json::Value {
    match serde_json::Number::from_f64(f) {
        Some(n) => serde_json::Value::Number(n),
        None if f.is_nan() => serde_json::Value::String("nan".into()),
        None if f > 0.0 => serde_json::Value::String("inf".into()),
        None => serde_json::Value::String("-inf".into()),
    }
}

/// Python's `str.isspace()` and `str.strip()`, shared with FineState.
pub use crate::python::{py_isspace, py_strip};

/// Python's `float(x)`.
pub fn py_float(v: &PyValue) -> Result<f64, PyError> {
    match v {
        PyValue::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        PyValue::Int(i) => Ok(*i as f64),
        PyValue::Float(f) => Ok(*f),
        PyValue::Str(s) => py_float_from_str(s),
        _ => Err(PyError::Type(
            "float() argument must be a string or a real number".into(),
        )),
    }
}

/// Python's `float(str)`: surrounding whitespace, `inf`/`nan` words and
/// underscores between digits are accepted.
pub fn py_float_from_str(s: &str) -> Result<f64, PyError> {
    let bad = || PyError::Value(format!("could not convert string to float: '{s}'"));
    let t = py_strip(s);
    if t.is_empty() {
        return Err(bad());
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Ok(sign * f64::INFINITY);
    }
    if lower == "nan" {
        return Ok(f64::NAN);
    }
    let cleaned = remove_digit_underscores(body).ok_or_else(bad)?;
    let ok_chars = cleaned
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !ok_chars || !cleaned.bytes().any(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    cleaned.parse::<f64>().map(|v| sign * v).map_err(|_| bad())
}

/// Removes underscores that sit between two ASCII digits; `None` if any
/// underscore is misplaced (Python then rejects the literal).
fn remove_digit_underscores(s: &str) -> Option<String> {
    if !s.contains('_') {
        return Some(s.to_string());
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let ok =
                i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit();
            if !ok {
                return None;
            }
        } else {
            out.push(c as char);
        }
    }
    Some(out)
}

/// Python's `int(x)` for the value types JSON can hold.
pub fn py_int(v: &PyValue) -> Result<i128, PyError> {
    match v {
        PyValue::Bool(b) => Ok(i128::from(*b)),
        PyValue::Int(i) => Ok(*i),
        PyValue::Float(f) => float_to_int(*f),
        PyValue::Str(s) => py_int_from_str(s),
        PyValue::None => Err(PyError::Type(
            "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'"
                .into(),
        )),
        PyValue::List(_) => Err(PyError::Type(
            "int() argument must be a string, a bytes-like object or a real number, not 'list'"
                .into(),
        )),
        PyValue::Dict(_) => Err(PyError::Type(
            "int() argument must be a string, a bytes-like object or a real number, not 'dict'"
                .into(),
        )),
    }
}

/// `int(f)` for a float: truncation toward zero; NaN and infinities raise.
pub fn float_to_int(f: f64) -> Result<i128, PyError> {
    if f.is_nan() {
        return Err(PyError::Value("cannot convert float NaN to integer".into()));
    }
    if f.is_infinite() {
        return Err(PyError::Overflow(
            "cannot convert float infinity to integer".into(),
        ));
    }
    let t = f.trunc();
    if t.abs() >= 1.7e38 {
        // Beyond i128: Python would give a big int; no scoring rule can use it.
        return Err(PyError::Overflow("int too large for this port".into()));
    }
    Ok(t as i128)
}

/// Python's `int(str)`: optional sign, decimal digits, underscores between
/// digits, surrounding whitespace. `"2.0"` and `"one"` fail.
pub fn py_int_from_str(s: &str) -> Result<i128, PyError> {
    let bad = || PyError::Value(format!("invalid literal for int() with base 10: '{s}'"));
    let t = py_strip(s);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let cleaned = remove_digit_underscores(body).ok_or_else(bad)?;
    if cleaned.is_empty() || !cleaned.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let v: i128 = cleaned.parse().map_err(|_| bad())?;
    Ok(if neg { -v } else { v })
}

/// Python's `round(x)` on a float: half to even, as an integer.
pub fn py_round(x: f64) -> f64 {
    x.round_ties_even()
}

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation
/// for decimal exponents in [-4, 16), scientific (`1e+16`, `1e-05`) outside.
///
/// ```
/// use knoblab_score::epic::pyvalue::float_repr;
/// assert_eq!(float_repr(1.0), "1.0");
/// assert_eq!(float_repr(0.3125), "0.3125");
/// assert_eq!(float_repr(1e16), "1e+16");
/// assert_eq!(float_repr(1e-5), "1e-05");
/// assert_eq!(float_repr(123456789012345.6), "123456789012345.6");
/// ```
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde±x.
    let sci = format!("{:e}", f);
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                out.push_str(&digits);
                for _ in 0..(int_len - n) {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len as usize]);
                out.push('.');
                out.push_str(&digits[int_len as usize..]);
            }
        } else {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_conversions_follow_python() {
        assert_eq!(py_int(&PyValue::Float(1.9)), Ok(1));
        assert_eq!(py_int(&PyValue::Float(-1.9)), Ok(-1));
        assert_eq!(py_int(&PyValue::Str(" 2 ".into())), Ok(2));
        assert!(py_int(&PyValue::Str("2.0".into())).is_err());
        assert!(py_int(&PyValue::Str("one".into())).is_err());
        assert_eq!(py_int(&PyValue::Bool(true)), Ok(1));
        assert!(matches!(
            py_int(&PyValue::Float(f64::INFINITY)),
            Err(PyError::Overflow(_))
        ));
    }

    #[test]
    fn float_conversions_follow_python() {
        assert_eq!(py_float(&PyValue::Str("100".into())), Ok(100.0));
        assert_eq!(py_float(&PyValue::Str(" 1_000.5 ".into())), Ok(1000.5));
        assert!(py_float(&PyValue::Str("1__0".into())).is_err());
        assert!(py_float(&PyValue::Str("abc".into())).is_err());
        assert!(py_float(&PyValue::Str("nan".into())).unwrap().is_nan());
        assert!(py_float(&PyValue::None).is_err());
    }

    #[test]
    fn repr_matches_python() {
        assert_eq!(float_repr(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(-2.5e-7), "-2.5e-07");
        assert_eq!(float_repr(1.5e300), "1.5e+300");
    }
}
