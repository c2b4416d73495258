//! Tests of `rle` (kept apart so that the module reads as one idea).

use super::*;
use crate::epic::pyjson::loads;

#[test]
fn uncompressed_counts_are_column_major() {
    // 3×2 image: pixels (col 0: rows 0..3), (col 1: rows 0..3).
    let v = loads(r#"{"size": [3, 2], "counts": [1, 3, 2]}"#).unwrap();
    let m = decode_instance(&v).unwrap();
    assert_eq!(m.area(), 3);
    assert!(!m.contains(0, 0));
    assert!(m.contains(1, 0) && m.contains(2, 0) && m.contains(0, 1));
    assert!(!m.contains(1, 1));
}

#[test]
fn compressed_round_values() {
    // "0" is 0; small values are one character each up to 15.
    assert_eq!(counts_from_string("").unwrap(), Vec::<i64>::new());
    assert_eq!(counts_from_string("12").unwrap(), vec![1, 2]);
    // 4th value is a delta against the 2nd: 1, 2, 3, (2 + 1) = 3.
    assert_eq!(counts_from_string("1231").unwrap(), vec![1, 2, 3, 3]);
}

#[test]
fn encode_round_trips() {
    let v = loads(r#"{"size": [5, 4], "counts": [2, 3, 4, 1, 0, 6]}"#).unwrap();
    let m = decode_instance(&v).unwrap();
    let s = encode(&m);
    let back = PyValue::Dict(vec![
        (
            "size".into(),
            PyValue::List(vec![PyValue::Int(5), PyValue::Int(4)]),
        ),
        ("counts".into(), PyValue::Str(s)),
    ]);
    assert_eq!(decode_instance(&back).unwrap(), m);
}

#[test]
fn past_declared_size_is_an_error() {
    let v = loads(r#"{"size": [2, 2], "counts": [1, 5]}"#).unwrap();
    let e = decode_instance(&v).unwrap_err();
    assert!(e.to_string().contains("only 4"), "{e}");
}

#[test]
fn absurd_size_is_an_error() {
    let v = loads(r#"{"size": [100000, 100000], "counts": "0"}"#).unwrap();
    assert!(matches!(
        decode_instance(&v),
        Err(RleError::TooLarge { .. })
    ));
}

#[test]
fn union_drops_other_sizes() {
    let v = loads(
        r#"[{"size": [2, 2], "counts": [0, 1]}, {"size": [3, 3], "counts": [0, 9]},
            {"size": [2, 2], "counts": [3, 1]}, "junk"]"#,
    )
    .unwrap();
    let u = decode_union(&v);
    let m = u.mask.unwrap();
    assert_eq!(m.area(), 2);
    assert_eq!(u.dropped_other_size, 1);
    assert_eq!(u.failed.len(), 1);
}

#[test]
fn garbage_strings_do_not_panic() {
    for s in [
        "\u{ff}\u{ff}\u{ff}",
        "ooooooooooooooooooooooo",
        "~~~~~~~~",
        "!!",
    ] {
        let _ = counts_from_string(s);
        let v = PyValue::Dict(vec![
            (
                "size".into(),
                PyValue::List(vec![PyValue::Int(10), PyValue::Int(10)]),
            ),
            ("counts".into(), PyValue::Str(s.into())),
        ]);
        let _ = decode_instance(&v);
    }
}
