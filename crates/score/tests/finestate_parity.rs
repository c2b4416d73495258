#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! Parity with the official FineState-Bench code: every fixture made by
//! running it (`shared/fixtures/finestate/`), read as it is. Each test
//! collects every mismatch and asserts the list is empty.

use std::collections::HashMap;

use knoblab_score::finestate::boxes::{evaluate_location_accuracy, is_point_in_bbox};
use knoblab_score::finestate::evaluate::{
    evaluate_query, evaluation_error, OfficialOptions, QueryKind, QueryOutcome, Reply,
};
use knoblab_score::finestate::files::DiskFiles;
use knoblab_score::finestate::loader::{load_dataset, ImagePolicy, Instance, Platform};
use knoblab_score::finestate::parser::{parse_reply, parse_value, ParserBuild};
use knoblab_score::finestate::predictions::{Prediction, PredictionFormat, PredictionSet};
use knoblab_score::finestate::prompt::{build_prompt, PromptKind};
use knoblab_score::finestate::report::{score, ScoreOptions};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const FIXTURES: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/official/finestate"
);

fn fixture(name: &str) -> Value {
    let path = format!("{FIXTURES}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn assert_none(what: &str, checked: usize, mismatches: &[String]) {
    assert!(checked > 0, "{what}: nothing was compared");
    assert!(
        mismatches.is_empty(),
        "{what}: {} of {checked} comparisons differ from the official code:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    eprintln!("{what}: {checked} comparisons, all equal");
}

fn point_of(v: &Value) -> Option<[f64; 2]> {
    let a = v.as_array()?;
    Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?])
}

fn parsed_json(p: &knoblab_score::finestate::parser::ParsedReply) -> Value {
    json!({
        "coordinates": p.coordinates,
        "success": p.success,
        "error": p.error,
        "description": p.description,
        "reasoning": p.reasoning,
    })
}

#[test]
fn every_parse_case_matches_both_builds() {
    let cases = fixture("parse_cases.json");
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for case in cases["cases"].as_array().into_iter().flatten() {
        let response = case["response"].as_str().unwrap_or_default();
        let model = case["model_name"].as_str();
        for (key, build) in [("py", ParserBuild::Py), ("pyc", ParserBuild::Pyc)] {
            let got = parsed_json(&parse_reply(response, model, build));
            checked += 1;
            if got != case[key] {
                mismatches.push(format!(
                    "[{key}] {response:?} / {model:?}: expected {}, got {got}",
                    case[key]
                ));
            }
        }
    }
    assert_none("parse_cases.json", checked, &mismatches);
}

#[test]
fn non_string_replies_match() {
    let cases = fixture("parse_cases.json");
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for case in cases["non_string_inputs_py"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let got = parse_value(&case["input"], None, ParserBuild::Py);
        let expected = &case["output"];
        checked += 1;
        let ok = point_of(&expected["coordinates"]) == got.coordinates
            && expected["success"].as_bool() == Some(got.success)
            && expected
                .get("error")
                .is_none_or(|e| e.as_str() == got.error.as_deref());
        if !ok {
            mismatches.push(format!(
                "{}: expected {expected}, got {got:?}",
                case["input"]
            ));
        }
    }
    assert_none("non_string_inputs_py", checked, &mismatches);
}

#[test]
fn every_point_in_box_case_matches() {
    let cases = fixture("point_in_box_cases.json");
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for case in cases["cases"].as_array().into_iter().flatten() {
        let point = point_of(&case["point"]);
        let bbox = &case["bbox"];
        let inside = match is_point_in_bbox(point, bbox) {
            Ok(b) => json!(b),
            Err(e) => json!(format!("raises {}", e.exception())),
        };
        let accuracy = match evaluate_location_accuracy(point, bbox) {
            Ok(a) => json!(a),
            Err(e) => json!(format!("raises {}", e.exception())),
        };
        checked += 2;
        if inside != case["is_point_in_bbox"] {
            mismatches.push(format!("is_point_in_bbox {case}: got {inside}"));
        }
        if accuracy != case["evaluate_location_accuracy"] {
            mismatches.push(format!("evaluate_location_accuracy {case}: got {accuracy}"));
        }
    }
    assert_none("point_in_box_cases.json", checked, &mismatches);
}

fn single_case_instance(name: &str, boxes: &Value) -> Instance {
    let (l, n, t) = (boxes["L"].clone(), boxes["N"].clone(), boxes["T"].clone());
    let strings = json!(["0.1", "0.2", "0.5", "0.3"]);
    let (bbox, now, target) = match name {
        "all_boxes" => (l, n, t),
        "no_now" => (l, Value::Null, t),
        "no_target" => (l, n, Value::Null),
        "empty_bbox" => (json!([]), n, t),
        "no_processing_details" => (Value::Null, Value::Null, Value::Null),
        "string_bbox" => (strings, n, t),
        other => panic!("unknown processing_details case {other}"),
    };
    Instance {
        platform: Platform::Web,
        index: 0,
        image_field: "x.png".into(),
        image_path: "x.png".into(),
        key: "x".into(),
        family: None,
        component_type: "slider".into(),
        locate: json!("locate it"),
        interact: json!("set it"),
        bbox,
        now,
        target,
        source: "case".into(),
    }
}

fn result_of(outcome: &QueryOutcome, hit_key: &str) -> Value {
    match outcome {
        QueryOutcome::Scored {
            point,
            hit,
            state_awareness,
            ..
        } => json!({"predicted_coords": point, hit_key: hit, "state_awareness": state_awareness}),
        _ => Value::Null,
    }
}

#[test]
fn every_single_evaluation_case_matches() {
    let cases = fixture("single_evaluation_cases.json");
    let boxes = &cases["boxes"];
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for case in cases["cases"].as_array().into_iter().flatten() {
        let name = case["processing_details"].as_str().unwrap_or_default();
        let instance = single_case_instance(name, boxes);
        let reply = Reply::Text(case["response"].as_str().unwrap_or_default().to_string());
        let options = OfficialOptions {
            model: None,
            parser: ParserBuild::Py,
            vda: case["use_component_detector"].as_bool().unwrap_or(false),
        };
        // One `run_single_evaluation` call carries both queries: the first
        // exception voids both results.
        let locate = evaluate_query(&instance, QueryKind::Locate, Some(&reply), &options);
        let interact = evaluate_query(&instance, QueryKind::Interact, Some(&reply), &options);
        let error = match (&locate, &interact) {
            (QueryOutcome::Raised(r), _) | (_, QueryOutcome::Raised(r)) => Some(r.message()),
            _ => None,
        };
        let (l, i) = if error.is_some() {
            (Value::Null, Value::Null)
        } else {
            (
                result_of(&locate, "accuracy"),
                result_of(&interact, "target_accuracy"),
            )
        };
        let got = json!({"error": error, "locate": l, "interact": i});
        let expected =
            json!({"error": case["error"], "locate": case["locate"], "interact": case["interact"]});
        checked += 1;
        if got != expected {
            mismatches.push(format!(
                "{name} / {} / detector {}: expected {expected}, got {got}",
                case["response"], options.vda
            ));
        }
    }
    assert_none("single_evaluation_cases.json", checked, &mismatches);
}

fn dataset() -> knoblab_score::finestate::loader::Dataset {
    let files = DiskFiles::new(format!("{FIXTURES}/dataset"));
    load_dataset(&files, ImagePolicy::Check)
}

/// The scripted replies, as JSON Lines predictions keyed by file stem.
fn scripted_predictions() -> PredictionSet {
    let preds = fixture("predictions.json");
    let predictions = preds["predictions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| Prediction {
            platform: p["platform"].as_str().and_then(Platform::parse),
            image: p["key"].as_str().unwrap_or_default().to_string(),
            locate: p["locate"].as_str().map(|s| Reply::Text(s.to_string())),
            interact: p["interact"].as_str().map(|s| Reply::Text(s.to_string())),
            source: "predictions.json".into(),
            hinted: None,
            model: None,
        })
        .collect();
    PredictionSet {
        format: PredictionFormat::JsonLines,
        predictions,
        problems: Vec::new(),
    }
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| numbers_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| numbers_equal(v, w)))
        }
        _ => a == b,
    }
}

fn check_runs(file: &str, build: ParserBuild) {
    let expected = fixture(file);
    let data = dataset();
    let predictions = scripted_predictions();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    let runs = expected["runs"].as_object().cloned().unwrap_or_default();
    for (condition, models) in &runs {
        for (model, platforms) in models.as_object().into_iter().flatten() {
            let options = ScoreOptions {
                official: OfficialOptions {
                    model: Some(model.clone()),
                    parser: build,
                    vda: condition == "vda_scripted",
                },
                convention: Default::default(),
            };
            let report = score(&data, &predictions, &options);
            for (platform_name, run) in platforms.as_object().into_iter().flatten() {
                let label = format!("{condition} / {model} / {platform_name}");
                let Some(platform) = Platform::parse(platform_name) else {
                    mismatches.push(format!("{label}: unknown platform"));
                    continue;
                };
                let got = report
                    .platform(platform)
                    .map(|p| serde_json::to_value(p.official.official()).unwrap_or_default());
                for (metric, value) in run["metrics"].as_object().into_iter().flatten() {
                    checked += 1;
                    let g = got
                        .as_ref()
                        .and_then(|g| g.get(metric))
                        .cloned()
                        .unwrap_or_default();
                    if !numbers_equal(&g, value) {
                        mismatches.push(format!("{label}: {metric} expected {value}, got {g}"));
                    }
                }
                let ours: HashMap<&str, _> = report
                    .per_instance
                    .iter()
                    .filter(|r| r.instance.platform == platform)
                    .map(|r| (r.instance.key.as_str(), r))
                    .collect();
                let theirs = run["per_instance"].as_array().cloned().unwrap_or_default();
                checked += 1;
                if ours.len() != theirs.len() {
                    mismatches.push(format!(
                        "{label}: {} result objects expected, {} produced",
                        theirs.len(),
                        ours.len()
                    ));
                }
                for obj in &theirs {
                    let key = obj["key"].as_str().unwrap_or_default();
                    let Some(r) = ours.get(key) else {
                        mismatches.push(format!("{label}: no result for {key}"));
                        continue;
                    };
                    checked += 1;
                    let got = json!({
                        "locate_results": r.locate_results(),
                        "interact_results": r.interact_results(),
                        "evaluation_error": r.evaluation_error,
                        "component_type": r.instance.component_type,
                        "family": r.instance.family,
                    });
                    let want = json!({
                        "locate_results": obj["locate_results"],
                        "interact_results": obj["interact_results"],
                        "evaluation_error": obj.get("evaluation_error").cloned().unwrap_or(Value::Null),
                        "component_type": obj["component_type"],
                        "family": obj["family"],
                    });
                    if !numbers_equal(&got, &want) {
                        mismatches.push(format!("{label} / {key}: expected {want}, got {got}"));
                    }
                    // Web and mobile indices follow line order, as officially.
                    if platform != Platform::Desktop {
                        checked += 1;
                        if obj["result_index"].as_u64() != Some(r.instance.index as u64) {
                            mismatches.push(format!(
                                "{label} / {key}: result_index {} expected, {} produced",
                                obj["result_index"], r.instance.index
                            ));
                        }
                    }
                }
            }
        }
    }
    assert_none(file, checked, &mismatches);
}

#[test]
fn every_metric_and_result_of_the_py_runs_matches() {
    check_runs("expected_runs_py.json", ParserBuild::Py);
}

#[test]
fn every_metric_and_result_of_the_pyc_runs_matches() {
    check_runs("expected_runs_pyc.json", ParserBuild::Pyc);
}

#[test]
fn every_vda_prompt_matches_byte_for_byte() {
    let hints = fixture("vda_prompt_hints.json");
    let data = dataset();
    let by_key: HashMap<(Platform, &str), &Instance> = data
        .instances
        .iter()
        .map(|i| ((i.platform, i.key.as_str()), i))
        .collect();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for call in hints["calls"].as_array().into_iter().flatten() {
        let platform = call["platform"].as_str().and_then(Platform::parse);
        let key = call["key"].as_str().unwrap_or_default();
        let Some(instance) = platform.and_then(|p| by_key.get(&(p, key))) else {
            mismatches.push(format!("no instance for {call}"));
            continue;
        };
        let (kind, instruction) = match call["kind"].as_str() {
            Some("locate") => (PromptKind::Locate, &instance.locate),
            _ => (PromptKind::Interact, &instance.interact),
        };
        checked += 1;
        match build_prompt(instruction, kind, Some(&instance.bbox)) {
            Ok(prompt) => {
                let sha = format!("{:x}", Sha256::digest(prompt.as_bytes()));
                let has = prompt.contains("COMPONENT INFORMATION:");
                if sha != call["prompt_sha256"].as_str().unwrap_or_default()
                    || Some(has) != call["prompt_has_component_information"].as_bool()
                {
                    mismatches.push(format!(
                        "{key} {:?}: prompt differs:\n{prompt}",
                        call["kind"]
                    ));
                }
                if let Some(text) = call["hint_bbox_text"].as_str() {
                    if !prompt.contains(&format!("- Bounding Box: [{text}]")) {
                        mismatches.push(format!("{key}: bbox text {text} not in prompt"));
                    }
                }
            }
            Err(e) => mismatches.push(format!(
                "{key}: prompt raised {e}, but the official call was made"
            )),
        }
    }
    assert_none("vda_prompt_hints.json", checked, &mismatches);
}

#[test]
fn the_example_result_file_reads_back() {
    let example = fixture("example_official_result_file.json");
    let p = knoblab_score::finestate::predictions::from_result_object(
        &example["content"],
        "result_0.json",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.image, "desktop_en/ANumericRange240/d004_knob.png");
    assert_eq!(p.hinted, Some(true));
    let data = dataset();
    let instance = data
        .instances
        .iter()
        .find(|i| i.image_path == p.image)
        .unwrap_or_else(|| panic!("instance of {}", p.image));
    let options = OfficialOptions {
        model: Some("google/gemini-2.5-flash".into()),
        parser: ParserBuild::Py,
        vda: true,
    };
    let l = evaluate_query(instance, QueryKind::Locate, p.locate.as_ref(), &options);
    let i = evaluate_query(instance, QueryKind::Interact, p.interact.as_ref(), &options);
    assert_eq!(evaluation_error(&l, &i), None);
    let ip = &example["content"]["interaction_prediction"];
    assert_eq!(
        result_of(&l, "accuracy")["accuracy"],
        ip["locate_results"]["accuracy"]
    );
    assert_eq!(
        result_of(&i, "target_accuracy")["target_accuracy"],
        ip["interact_results"]["target_accuracy"]
    );
}
