//! The core, compiled to WebAssembly and run in headless Chromium: the same
//! answers as natively, on the same fixtures. The page will call exactly
//! these functions, so a difference between the two builds (a regex's
//! Unicode tables, float formatting, a `std::fs` call) shows up here first.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(target_arch = "wasm32")]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use base64::Engine as _;
use knoblab_core::sim::Settings;
use knoblab_eval::agents::{run_tasks, Oracle};
use knoblab_score::epic::{render::to_json, score_text, MapSource, RunOptions};
use knoblab_score::finestate::parser::{parse_reply, ParserBuild};
use serde_json::{json, Value};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fixture of `tests/fixtures/official/` (the official runs), compiled in.
macro_rules! official {
    ($path:literal) => {
        include_str!(concat!("fixtures/official/", $path))
    };
}

/// The kettle test bundle in its single-file form, as a page would receive
/// it from a URL: the small files under their keys, each view a `data:` URL.
fn kettle_single_json() -> Vec<u8> {
    let png = |bytes: &[u8]| {
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    };
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let mut views = parse(include_str!("fixtures/kettle/views.json"));
    let images: [(&str, &[u8]); 6] = [
        ("back", include_bytes!("fixtures/kettle/views/back.png")),
        ("bottom", include_bytes!("fixtures/kettle/views/bottom.png")),
        ("front", include_bytes!("fixtures/kettle/views/front.png")),
        ("right", include_bytes!("fixtures/kettle/views/right.png")),
        ("top", include_bytes!("fixtures/kettle/views/top.png")),
        (
            "front_top",
            include_bytes!("fixtures/kettle/views/front_top.png"),
        ),
    ];
    for (view, bytes) in images {
        views[view]["file"] = json!(png(bytes));
    }
    let bundle = json!({
        "manifest": parse(include_str!("fixtures/kettle/manifest.json")),
        "ssm": parse(include_str!("fixtures/kettle/ssm.json")),
        "views": views,
        "tasks": parse(include_str!("fixtures/kettle/tasks.json")),
    });
    serde_json::to_vec(&bundle).unwrap()
}

#[wasm_bindgen_test]
fn a_bundle_loads_and_the_oracle_solves_every_task_in_the_browser() {
    let bundle = knoblab_core::bundle::load_bytes("kettle.json", &kettle_single_json()).unwrap();
    assert_eq!(bundle.manifest.id, "kettle-0001");
    assert_eq!(bundle.views["front"].image.width, 1209);
    assert_eq!(bundle.views["front"].image.height, 1369);
    let mut oracle = Oracle::new(&bundle);
    let trajectories = run_tasks(&bundle, None, &mut oracle, &Settings::with_lambda(5)).unwrap();
    assert_eq!(trajectories.len(), 3);
    for t in &trajectories {
        assert!(t.terminated && !t.truncated, "{}", t.task_id);
        assert_eq!(t.goals_reached, t.goals_total);
        assert_eq!(t.logic_hash, knoblab_core::bundle::logic_hash(&bundle));
    }
    // Metrics from the same trajectories: the oracle is perfect.
    let run = knoblab_core::metrics::run(std::slice::from_ref(&bundle), &trajectories).unwrap();
    let doc = serde_json::to_value(&run).unwrap();
    for key in ["sr", "ssr", "spl", "psr", "state_f1"] {
        assert_eq!(doc[key], json!(1.0), "{key}");
    }
}

#[wasm_bindgen_test]
fn a_broken_bundle_gets_its_problems_listed_not_a_panic() {
    let err = knoblab_core::bundle::load_bytes("broken.json", b"{\"manifest\": {\"format\": 3}}")
        .unwrap_err();
    assert!(!err.diagnostics.is_empty());
    let text = err.to_string();
    assert!(text.contains("broken.json"), "{text}");
}

#[wasm_bindgen_test]
fn epic_scores_equal_the_official_file_in_the_browser() {
    let mut gt = MapSource::new();
    let files: [(&str, &str); 11] = [
        ("Manipulation/AffordanceRegion/ar_001/ar_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Manipulation/AffordanceRegion/ar_001/ar_001_mask_rle.json")),
        ("Manipulation/ContactRelationship/ContactRelationship_TypeTwo/cr2_001/cr2_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Manipulation/ContactRelationship/ContactRelationship_TypeTwo/cr2_001/cr2_001_mask_rle.json")),
        ("Manipulation/PlacementRegion/pr_001/pr_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Manipulation/PlacementRegion/pr_001/pr_001_mask_rle.json")),
        ("Navigation/FeasiblePath/FeasiblePath_Ego/fpe_001/fpe_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Ego/fpe_001/fpe_001_mask_rle.json")),
        ("Navigation/FeasiblePath/FeasiblePath_Exo/fpx_001/fpx_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Exo/fpx_001/fpx_001_mask_rle.json")),
        ("Navigation/GroundDetection/gd_003/gd_003_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Navigation/GroundDetection/gd_003/gd_003_mask_rle.json")),
        ("Navigation/VisualMatching/vm_001/vm_001a__vm_001b_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/Navigation/VisualMatching/vm_001/vm_001a__vm_001b_mask_rle.json")),
        ("TargetLocalization/BasicAttributes/Category/tl_cat_001/tl_cat_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/TargetLocalization/BasicAttributes/Category/tl_cat_001/tl_cat_001_mask_rle.json")),
        ("TargetLocalization/BasicAttributes/Color/tl_col_001/tl_col_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/TargetLocalization/BasicAttributes/Color/tl_col_001/tl_col_001_mask_rle.json")),
        ("TargetLocalization/EmbodiedCompositionalAttributes/PartWholeHuman/tl_pwh_001/tl_pwh_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/TargetLocalization/EmbodiedCompositionalAttributes/PartWholeHuman/tl_pwh_001/tl_pwh_001_mask_rle.json")),
        ("TargetLocalization/SpatialRelatedAttributes/SpatialRelationHuman/tl_spah_001/tl_spah_001_mask_rle.json", official!("epic/dataset/annotation/EPIC_Bench/TargetLocalization/SpatialRelatedAttributes/SpatialRelationHuman/tl_spah_001/tl_spah_001_mask_rle.json")),
    ];
    for (path, text) in files {
        gt.insert(&format!("EPIC_Bench/{path}"), text.as_bytes().to_vec());
    }
    let options = RunOptions {
        coord_mode: None,
        family: Some("Qwen3-VL".into()),
    };
    let report = score_text(official!("epic/raw/Qwen3-VL/probe-q3.jsonl"), &gt, &options).unwrap();
    assert_eq!((report.gt_found, report.gt_expected), (13, 13));
    let ours = to_json(&report, "probe-q3.jsonl");
    let official: Value =
        serde_json::from_str(official!("epic/scores/Qwen3-VL/probe-q3_full.json")).unwrap();
    assert_eq!(ours["summary"], official["summary"]);
    let (ours, official) = (
        ours["details"]["by_samples"].as_array().unwrap(),
        official["details"]["by_samples"].as_array().unwrap(),
    );
    assert_eq!(ours.len(), 13);
    for (a, b) in ours.iter().zip(official) {
        for key in ["score", "score_details", "error", "invalid_response"] {
            assert_eq!(a[key], b[key], "{key} of {}", b["sample_id"]);
        }
    }
}

#[wasm_bindgen_test]
fn the_finestate_parser_matches_every_official_case_in_the_browser() {
    let cases: Value = serde_json::from_str(official!("finestate/parse_cases.json")).unwrap();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for case in cases["cases"].as_array().unwrap() {
        let response = case["response"].as_str().unwrap_or_default();
        let model = case["model_name"].as_str();
        for (key, build) in [("py", ParserBuild::Py), ("pyc", ParserBuild::Pyc)] {
            let p = parse_reply(response, model, build);
            let got = json!({
                "coordinates": p.coordinates,
                "success": p.success,
                "error": p.error,
                "description": p.description,
                "reasoning": p.reasoning,
            });
            checked += 1;
            if got != case[key] {
                mismatches.push(format!("[{key}] {response:?} / {model:?}: got {got}"));
            }
        }
    }
    assert_eq!(checked, 2 * cases["cases"].as_array().unwrap().len());
    assert!(
        mismatches.is_empty(),
        "{} of {checked}:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// A file of the SWITCH fixture tree, under its path in the tree.
macro_rules! switch_gt {
    ($($path:literal),* $(,)?) => {
        [$(($path, include_bytes!(concat!("fixtures/switch/gt/", $path)).as_slice())),*]
    };
}

#[wasm_bindgen_test]
fn switch_scores_the_hand_built_fixture_in_the_browser() {
    let gt = switch_gt![
        "dataset_manifest.json",
        "form_matrix.json",
        "action/img2txt/openqa.json",
        "action/img2txt/vqa.json",
        "final_state/img2txt/openqa.json",
        "final_state/img2video/vqa.json",
        "recovery/img2txt/openqa.json",
        "recovery/video2img/vqa.json",
        "ui_grounding/img2txt/vqa.json",
        "verification_action/img2img/vqa.json",
        "verification_action/img2txt/openqa.json",
        "verification_state/video2video/vqa.json",
        "vqa_state/video2txt/openqa.json",
        "vqa_state/video2txt/vqa.json",
        "vqa_task/img2txt/vqa.json",
    ];
    let report = knoblab_score::switch::score_files(
        gt,
        "pred.jsonl",
        include_bytes!("fixtures/switch/pred.jsonl"),
    )
    .unwrap();
    // The hand-computed figures of tests/switch_scoring.rs: 8 of 13 MCQ
    // items right; Task Understanding 3 of 4.
    assert_eq!((report.mcq.overall.correct, report.mcq.overall.n), (8, 13));
    let tu = report.mcq.columns.get("Task Understanding").unwrap();
    assert_eq!(tu.n, 4);
    assert!((tu.accuracy.unwrap() - 0.75).abs() < 1e-12);
}

/// In the browser the library's version file is not compiled in: the page
/// gives it (`stamp::provide`) before a device opens. A file that is not
/// one is refused, naming the file and what it should hold, and sets
/// nothing; the real file makes a library device's episode record its
/// library; a later file does not replace the first.
#[wasm_bindgen_test]
fn the_library_version_is_given_by_the_page_and_a_bad_file_is_refused() {
    use knoblab_core::bundle::{library_of, stamp};
    assert!(
        stamp::shipped().is_none(),
        "no other test of this binary gives the file"
    );
    for bad in [
        &b"{"[..],
        br#"{"format": "something-else/1", "version": 1, "hash": "", "devices": {}}"#,
    ] {
        let message = stamp::provide(bad).unwrap_err().to_string();
        assert!(message.starts_with("library-version.json: "), "{message}");
        assert!(message.contains("knoblab-library-version/1"), "{message}");
    }
    assert!(stamp::shipped().is_none(), "a refused file set nothing");

    let file = include_bytes!("../data/library-version.json");
    let given = stamp::provide(file).unwrap();
    let (id, logic) = given.devices.iter().next().unwrap();
    assert_eq!(library_of(id, logic), Some(given.stamp()));
    assert_eq!(library_of(id, "0000"), None);
    let again = stamp::provide(
        br#"{"format": "knoblab-library-version/1", "version": 99, "hash": "x", "devices": {}}"#,
    );
    assert_eq!(
        again.unwrap().version,
        given.version,
        "the first file given stays"
    );
}
