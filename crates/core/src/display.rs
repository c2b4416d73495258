//! How tables for people show numbers, the same way for every report: a
//! fraction as a percentage with one decimal, a plain number with two, and
//! an undefined value as "–", never 0 (an empty column is not a zero score).

/// A fraction as a percentage with one decimal; "–" when undefined.
///
/// ```
/// use knoblab_core::display::percent;
/// assert_eq!(percent(Some(0.6154)), "61.5");
/// assert_eq!(percent(None), "–");
/// ```
pub fn percent(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{:.1}", v * 100.0))
}

/// A plain number with two decimals; "–" when undefined.
///
/// ```
/// use knoblab_core::display::number;
/// assert_eq!(number(Some(0.2)), "0.20");
/// assert_eq!(number(None), "–");
/// ```
pub fn number(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.2}"))
}
