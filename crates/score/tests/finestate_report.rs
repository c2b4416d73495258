#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! The FineState-Bench report as the CLI and the page receive it: the JSON
//! layout, the VDA delta, skipped records, and the synthetic set.

use knoblab_score::finestate::evaluate::OfficialOptions;
use knoblab_score::finestate::files::{DiskFiles, MemFiles};
use knoblab_score::finestate::loader::{load_dataset, ImagePolicy, Platform};
use knoblab_score::finestate::parser::ParserBuild;
use knoblab_score::finestate::predictions::read_predictions;
use knoblab_score::finestate::report::{score, vda_delta, ScoreOptions};
use knoblab_score::finestate::synthetic::{generate, PAPER_INSTANCES};
use serde_json::Value;

const FIXTURES: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/official/finestate"
);

/// The scripted replies as the JSON Lines the CLI accepts, keyed by stem.
fn predictions_jsonl() -> Vec<u8> {
    let text = std::fs::read_to_string(format!("{FIXTURES}/predictions.json")).unwrap_or_default();
    let preds: Value = serde_json::from_str(&text).unwrap_or_default();
    let mut out = String::new();
    for p in preds["predictions"].as_array().into_iter().flatten() {
        let line = serde_json::json!({
            "platform": p["platform"], "image": p["key"],
            "locate": p["locate"], "interact": p["interact"],
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

fn options(vda: bool) -> ScoreOptions {
    ScoreOptions {
        official: OfficialOptions {
            model: Some("google/gemini-2.5-flash".into()),
            parser: ParserBuild::Py,
            vda,
        },
        convention: Default::default(),
    }
}

#[test]
fn json_has_the_official_keys_per_platform_and_every_section() {
    let data = load_dataset(
        &DiskFiles::new(format!("{FIXTURES}/dataset")),
        ImagePolicy::Check,
    );
    let preds =
        read_predictions("preds.jsonl", &predictions_jsonl()).unwrap_or_else(|e| panic!("{e}"));
    let report = score(&data, &preds, &options(false));
    let doc = report.to_json(None);
    for platform in ["desktop", "web", "mobile"] {
        let keys: Vec<&str> = doc[platform]["official"]
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [
                "total_cases",
                "valid_locate_cases",
                "valid_interact_cases",
                "locate_success_rate",
                "interaction_success_rate",
                "state_awareness_rate_locate",
                "state_awareness_rate_interaction"
            ]
        );
        assert!(doc[platform]["corrected"].is_object());
    }
    for section in [
        "mean",
        "by_family",
        "by_component_type",
        "per_instance",
        "skipped",
    ] {
        assert!(!doc[section].is_null(), "{section} missing");
    }
    assert_eq!(doc["desktop"]["official"]["valid_interact_cases"], 34);
    // The missing images are listed, never silently lost.
    let skipped: Vec<&str> = doc["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["code"].as_str())
        .collect();
    assert_eq!(skipped, ["image_not_found", "image_not_found"]);
}

#[test]
fn vda_hint_drops_the_unformattable_query_and_the_delta_shows_it() {
    let data = load_dataset(
        &DiskFiles::new(format!("{FIXTURES}/dataset")),
        ImagePolicy::Check,
    );
    let preds =
        read_predictions("preds.jsonl", &predictions_jsonl()).unwrap_or_else(|e| panic!("{e}"));
    let base = score(&data, &preds, &options(false));
    let hinted = score(&data, &preds, &options(true));
    let (b, h) = (
        base.platform(Platform::Desktop).map(|p| p.official),
        hinted.platform(Platform::Desktop).map(|p| p.official),
    );
    // Spec §9.1: "the desktop SR@Int moves from 9/34 to 9/33".
    assert_eq!(
        b.map(|t| (t.interaction_success, t.valid_interact_cases)),
        Some((9, 34))
    );
    assert_eq!(
        h.map(|t| (t.interaction_success, t.valid_interact_cases)),
        Some((9, 33))
    );
    let delta = vda_delta(&base, &hinted);
    let desktop = delta.platforms.iter().find(|p| p.0 == Platform::Desktop);
    let d = desktop
        .map(|p| p.1.interaction_success_rate)
        .unwrap_or_default();
    assert!((d - (9.0 / 33.0 - 9.0 / 34.0)).abs() < 1e-15);
}

#[test]
fn the_synthetic_paper_set_scores_end_to_end_from_a_zip_free_memory_set() {
    let set = generate(PAPER_INSTANCES, 1);
    let data = load_dataset(&set.files, ImagePolicy::Check);
    let preds =
        read_predictions("synthetic.jsonl", &set.predictions).unwrap_or_else(|e| panic!("{e}"));
    let report = score(&data, &preds, &options(false));
    let total: usize = report
        .platforms
        .iter()
        .map(|p| p.official.total_cases)
        .sum();
    assert_eq!(total, PAPER_INSTANCES);
    assert!(report.prediction_problems.is_empty());
    let empty = MemFiles::new();
    assert!(load_dataset(&empty, ImagePolicy::Check)
        .instances
        .is_empty());
}

/// The scripted run written as official result objects (responses only).
fn official_results_list(data: &knoblab_score::finestate::loader::Dataset) -> Value {
    let text = std::fs::read_to_string(format!("{FIXTURES}/predictions.json")).unwrap_or_default();
    let preds: Value = serde_json::from_str(&text).unwrap_or_default();
    let mut out = Vec::new();
    for i in &data.instances {
        let Some(p) = preds["predictions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["key"] == i.key.as_str() && p["platform"] == i.platform.name())
        else {
            continue;
        };
        let q = |k: &str| match p[k].as_str() {
            Some(r) => serde_json::json!({"prompt": "", "response": r}),
            None => Value::Null,
        };
        out.push(serde_json::json!({
            "image_path": i.image_path,
            "component_detection": {},
            "interaction_prediction": {"locate_results": q("locate"), "interact_results": q("interact")},
            "ground_truth": {},
            "timestamp": "",
        }));
    }
    Value::Array(out)
}

#[test]
fn official_results_files_score_like_the_json_lines() {
    let data = load_dataset(
        &DiskFiles::new(format!("{FIXTURES}/dataset")),
        ImagePolicy::Check,
    );
    let lines =
        read_predictions("preds.jsonl", &predictions_jsonl()).unwrap_or_else(|e| panic!("{e}"));
    let list = official_results_list(&data);
    let bytes = serde_json::to_vec(&list).unwrap_or_default();
    let results = read_predictions("model_results.json", &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(results.hinted(), Some(false));
    let files: Vec<(String, Vec<u8>)> = list
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(n, v)| {
            (
                format!("result_{n}.json"),
                serde_json::to_vec(v).unwrap_or_default(),
            )
        })
        .collect();
    let folder = knoblab_score::finestate::predictions::read_result_files(&files);
    for model in ["google/gemini-2.5-flash", "UGround-V1-7B"] {
        let mut o = options(false);
        o.official.model = Some(model.into());
        let a = score(&data, &lines, &o);
        let b = score(&data, &results, &o);
        let c = score(&data, &folder, &o);
        assert_eq!(a.platforms, b.platforms);
        assert_eq!(a.platforms, c.platforms);
    }
}

#[test]
fn a_document_of_another_kind_is_refused_with_its_keys_and_the_valid_forms() {
    let bytes = std::fs::read(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/official/finestate/predictions.json"
    ))
    .unwrap();
    let err = read_predictions("predictions.json", &bytes)
        .unwrap_err()
        .to_string();
    assert!(err.contains("keys note, predictions"), "{err}");
    assert!(err.contains("<model>_results.json"), "{err}");
}

#[test]
fn a_file_with_no_readable_line_is_an_error_naming_the_first_problem() {
    let err = read_predictions("bad.jsonl", b"garbage\n{\"x\": 1}\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("2 problems"), "{err}");
    assert!(err.contains("bad.jsonl:1: not JSON"), "{err}");
}
