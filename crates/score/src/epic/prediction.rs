//! std_format prediction fields as the scorer reads them (§5): sentinels,
//! and the lenient box, point, count and binary parsers.

use super::pyvalue::{float_to_int, py_float, py_float_from_str, py_strip, PyError, PyValue};

/// The error recorded when a metric part stops on a "No Valid Response"
/// sentinel (the official message).
pub const ERR_NVR: &str = "No Valid Response";

/// What a prediction field is before parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sentinel {
    /// A bare "Not Required": the metric scores 0 with no error.
    NotRequired,
    /// A bare "No Valid Response" (or null, or one of its spellings): 0 with
    /// error `No Valid Response`.
    NoValidResponse,
}

impl Sentinel {
    /// The error a metric part records when it stops on this sentinel
    /// (it scores 0 either way).
    pub fn error(self) -> Option<&'static str> {
        match self {
            Sentinel::NotRequired => None,
            Sentinel::NoValidResponse => Some(ERR_NVR),
        }
    }
}

fn sentinel_of_str(s: &str) -> Option<Sentinel> {
    let t = py_strip(s).to_lowercase();
    if t == "not required" {
        Some(Sentinel::NotRequired)
    } else if matches!(
        t.as_str(),
        "no valid response" | "no_valid_response" | "invalid response" | "no response" | ""
    ) {
        Some(Sentinel::NoValidResponse)
    } else {
        None
    }
}

/// "Sentinel detection looks only at **bare strings and null**" — and
/// "**QUIRK (important):** the formatter always wraps sentinels in a list
/// ... and a list is **never** recognised as a sentinel." With
/// `honour_wrapped` (corrected mode) a one-element list holding a sentinel
/// string counts too.
pub fn sentinel(v: Option<&PyValue>, honour_wrapped: bool) -> Option<Sentinel> {
    match v {
        None | Some(PyValue::None) => Some(Sentinel::NoValidResponse),
        Some(PyValue::Str(s)) => sentinel_of_str(s),
        Some(PyValue::List(items)) if honour_wrapped && items.len() == 1 => match &items[0] {
            PyValue::Str(s) => sentinel_of_str(s),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the field is a list-wrapped sentinel (official mode parses it as
/// data; the report notes it).
pub fn is_wrapped_sentinel(v: Option<&PyValue>) -> Option<Sentinel> {
    match v {
        Some(PyValue::List(items)) if items.len() == 1 => match &items[0] {
            PyValue::Str(s) => sentinel_of_str(s),
            _ => None,
        },
        _ => None,
    }
}

fn firsts<const N: usize>(v: &PyValue) -> Vec<[f64; N]> {
    let Some(items) = v.as_list() else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|it| {
            let l = it.as_list()?;
            if l.len() < N {
                return None;
            }
            let mut out = [0.0; N];
            for (slot, x) in out.iter_mut().zip(l) {
                *slot = py_float(x).ok()?;
            }
            Some(out)
        })
        .collect()
}

/// Boxes: "Every item that is a list of length ≥ 4 contributes `float()` of
/// its first 4 values. Items whose `float()` fails are skipped."
pub fn parse_boxes(v: &PyValue) -> Vec<[f64; 4]> {
    firsts::<4>(v)
}

/// Points: the same with items of length ≥ 2.
pub fn parse_points(v: &PyValue) -> Vec<[f64; 2]> {
    firsts::<2>(v)
}

/// Count: element 0 of a non-empty list; bool → int; number → `int()`;
/// string → digits, or `int(float(s))`. A NaN count gives `None`; an
/// infinite one raises OverflowError (§5 QUIRK, §11).
pub fn parse_count(v: &PyValue) -> Result<Option<i128>, PyError> {
    let x = match v {
        PyValue::List(items) => match items.first() {
            Some(x) => x,
            None => return Ok(None),
        },
        other => other,
    };
    let from_float = |f: f64| match float_to_int(f) {
        Ok(i) => Ok(Some(i)),
        Err(e @ PyError::Overflow(_)) => Err(e),
        Err(_) => Ok(None),
    };
    match x {
        PyValue::Bool(b) => Ok(Some(i128::from(*b))),
        PyValue::Int(i) => Ok(Some(*i)),
        PyValue::Float(f) => from_float(*f),
        PyValue::Str(s) => {
            let t = py_strip(s);
            if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
                return Ok(t.parse().ok());
            }
            match py_float_from_str(s) {
                Ok(f) => from_float(f),
                Err(_) => Ok(None),
            }
        }
        _ => Ok(None),
    }
}

/// Binary: element 0 of a non-empty list; bool; number ≠ 0; "true"/"yes"/"1"
/// or "false"/"no"/"0"; anything else `None`.
pub fn parse_binary(v: &PyValue) -> Option<bool> {
    let x = match v {
        PyValue::List(items) => items.first()?,
        other => other,
    };
    match x {
        PyValue::Bool(b) => Some(*b),
        PyValue::Int(i) => Some(*i != 0),
        PyValue::Float(f) => Some(*f != 0.0),
        PyValue::Str(s) => match py_strip(s).to_lowercase().as_str() {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::epic::pyjson::loads;

    #[test]
    fn wrapped_sentinels_are_data_officially() {
        let w = loads(r#"["No Valid Response"]"#).unwrap();
        assert_eq!(sentinel(Some(&w), false), None);
        assert_eq!(sentinel(Some(&w), true), Some(Sentinel::NoValidResponse));
        assert_eq!(parse_boxes(&w), Vec::<[f64; 4]>::new());
        assert_eq!(parse_count(&w), Ok(None));
        let bare = PyValue::Str(" Not Required ".into());
        assert_eq!(sentinel(Some(&bare), false), Some(Sentinel::NotRequired));
    }

    #[test]
    fn lenient_boxes() {
        let v =
            loads(r#"[[1, 2, 3, 4, 5, 6], ["10", 20, 30, 40], [1, 2], [null, 1, 2, 3]]"#).unwrap();
        assert_eq!(
            parse_boxes(&v),
            vec![[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]]
        );
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count(&loads("[\"-1\"]").unwrap()), Ok(Some(-1)));
        assert_eq!(parse_count(&loads("[NaN]").unwrap()), Ok(None));
        assert!(parse_count(&loads("[Infinity]").unwrap()).is_err());
        assert_eq!(parse_binary(&loads("[\"maybe\"]").unwrap()), None);
    }
}
