//! Tests of `formatter` (kept apart so that the module reads as one idea).

use super::*;

fn fmt(resp: &str, image: &str) -> PyValue {
    let rec = PyValue::Dict(vec![
        ("response".into(), PyValue::Str(resp.into())),
        (
            "images".into(),
            PyValue::List(vec![PyValue::Dict(vec![(
                "path".into(),
                PyValue::Str(image.into()),
            )])]),
        ),
    ]);
    format_record(&rec, &FormatOptions::default()).record
}

const TL_IMG: &str = "d/EPIC_Bench/TargetLocalization/BasicAttributes/Color/s/s_image.jpg";
const FP_IMG: &str = "EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Ego/s/s_image.jpg";

#[test]
fn box_shapes() {
    let r = fmt(
        r#"{"number_of_objects": 1, "bounding_boxes": [[[1, 2], [3, 4]], [[5, 6, 7, 8]], [1, 2, 3, 4, 5], {"x": 1}, ["9", true, 1.5, 2.0]]}"#,
        TL_IMG,
    );
    assert_eq!(
        pyjson::dumps(r.get("formatted_response_localization").unwrap()),
        "[[1, 2, 3, 4], [5, 6, 7, 8], [9, 1, 1.5, 2]]"
    );
    assert_eq!(
        pyjson::dumps(r.get("formatted_response_binary").unwrap()),
        r#"["Not Required"]"#
    );
}

#[test]
fn flat_box_gives_empty_list() {
    let r = fmt(
        r#"{"number_of_objects": 1, "bounding_boxes": [1, 2, 3, 4]}"#,
        TL_IMG,
    );
    assert_eq!(
        pyjson::dumps(r.get("formatted_response_localization").unwrap()),
        "[]"
    );
}

#[test]
fn paths_need_three_points() {
    let r = fmt(r#"{"points": [[1, 2], [3, 4]]}"#, FP_IMG);
    assert_eq!(
        pyjson::dumps(r.get("formatted_response_path").unwrap()),
        r#"["No Valid Response"]"#
    );
    assert_eq!(pyjson::dumps(r.get("format_type").unwrap()), r#"["point"]"#);
}

#[test]
fn gt_path_for_visual_matching() {
    let p = vec![
        "x/EPIC_Bench/Navigation/VisualMatching/v/a_image.jpg".to_string(),
        "x/EPIC_Bench/Navigation/VisualMatching/v/a_reference_area_overlay.png".to_string(),
        "x/EPIC_Bench/Navigation/VisualMatching/v/b_image.jpg".to_string(),
    ];
    assert_eq!(
        derive_gt_path(&p, Some("VisualMatching")).as_deref(),
        Some("x/EPIC_Bench/Navigation/VisualMatching/v/a__b_mask_rle.json")
    );
}

#[test]
fn counts_follow_int() {
    let c = |resp: &str| pyjson::dumps(fmt(resp, TL_IMG).get("formatted_response_count").unwrap());
    assert_eq!(c(r#"{"number_of_objects": 1.9}"#), "[1]");
    assert_eq!(c(r#"{"number_of_objects": "2"}"#), "[2]");
    assert_eq!(
        c(r#"{"number_of_objects": "2.0"}"#),
        r#"["No Valid Response"]"#
    );
}
