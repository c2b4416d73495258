//! Tests of `gt` (kept apart so that the module reads as one idea).

use super::*;

#[test]
fn keys_from_epic_bench_on() {
    assert_eq!(
        candidate_keys("/home/x/dataset/annotation/EPIC_Bench/Navigation/a.json"),
        vec![
            "EPIC_Bench/Navigation/a.json".to_string(),
            "/home/x/dataset/annotation/EPIC_Bench/Navigation/a.json".to_string()
        ]
    );
    assert_eq!(candidate_keys("a.json"), vec!["a.json".to_string()]);
}

#[test]
fn a_plain_suffix_is_the_suffix() {
    for p in [
        "EPIC_Bench/a/b.json",
        "/x/EPIC_Bench/a.json",
        "x\\EPIC_Bench\\a.json",
        "x/EPIC_Benchy/EPIC_Bench/a.json",
        "x//EPIC_Bench/a.json",
        "EPIC_Bench//a.json",
        "a.json",
        "xEPIC_Bench/a",
        "x/EPIC_Bench",
    ] {
        if let Some(s) = plain_epic_suffix(p) {
            assert_eq!(Some(s.to_string()), epic_suffix(p), "{p}");
        }
    }
    assert_eq!(
        plain_epic_suffix("/x/EPIC_Bench/a.json"),
        Some("EPIC_Bench/a.json")
    );
}

#[test]
fn counts_and_flags() {
    let s = |t: &str| PyValue::Str(t.into());
    assert_eq!(parse_count(Some(&s("3"))), Ok(Some(3)));
    assert_eq!(parse_count(Some(&s("2.7"))), Ok(Some(2)));
    assert_eq!(parse_count(Some(&s("x"))), Ok(None));
    assert!(parse_count(Some(&s("inf"))).is_err());
    assert!(parse_flag(&[Some(&s(" True "))]));
    assert!(!parse_flag(&[None, Some(&PyValue::None)]));
    assert_eq!(
        parse_feasibility(&[Some(&s("maybe")), Some(&PyValue::Bool(false))]),
        Some(false)
    );
}
