//! One report of what was not used (issue #47), through the `knoblab`
//! binary: every scorer and `knoblab metrics` list, beside their numbers,
//! each line and item they skipped, found twice, could not match or did
//! not score, with its file and line, on stderr and under `unused` in
//! `--json`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic here is a failed test
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");

fn knoblab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-unused-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// The `unused` list of a document, as (kind, line, item) triples.
fn unused(doc: &serde_json::Value) -> Vec<(String, Option<u64>, Option<String>)> {
    doc["unused"]
        .as_array()
        .expect("the document has an `unused` list")
        .iter()
        .map(|u| {
            (
                u["kind"].as_str().unwrap().to_string(),
                u["line"].as_u64(),
                u["item"].as_str().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn epic_names_each_skipped_line_and_each_repeated_sample() {
    let dir = scratch("epic");
    let raw = std::fs::read_to_string(format!(
        "{FIXTURES}/official/epic/raw/Qwen3-VL/probe-q3.jsonl"
    ))
    .unwrap();
    let first = raw.lines().next().unwrap();
    let text = format!("{first}\n{{\"response\": broken\n{first}\n{first}\n");
    let pred = dir.join("Qwen3-VL").join("pred.jsonl");
    std::fs::create_dir_all(pred.parent().unwrap()).unwrap();
    std::fs::write(&pred, text).unwrap();
    let gt = format!("{FIXTURES}/official/epic/dataset/annotation");
    let (code, out, err) = knoblab(&["score", "epic", "--gt", &gt, "--pred", &s(&pred), "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        unused(&doc),
        vec![
            ("skipped".into(), Some(2), None),
            ("duplicate".into(), Some(3), None),
            ("duplicate".into(), Some(4), None),
        ]
    );
    assert!(err.contains("not used: 1 skipped, 2 duplicate"), "{err}");
    assert!(err.contains(&format!("{}:2: skipped", s(&pred))), "{err}");
    // The official numbers still count the repeats, as the official code does.
    assert_eq!(
        doc["summary"]["overall"]["total_processed"], 3,
        "{}",
        doc["summary"]
    );
}

#[test]
fn finestate_names_the_second_prediction_and_the_instances_without_one() {
    let dir = scratch("finestate");
    let example: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{FIXTURES}/official/finestate/example_official_result_file.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let one = example["content"].clone();
    let pred = dir.join("twice.json");
    std::fs::write(
        &pred,
        serde_json::to_string(&vec![one.clone(), one]).unwrap(),
    )
    .unwrap();
    let gt = format!("{FIXTURES}/official/finestate/dataset");
    let args = [
        "score",
        "finestate",
        "--gt",
        &gt,
        "--pred",
        &s(&pred),
        "--model",
        "m",
        "--json",
    ];
    let (code, out, err) = knoblab(&args);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = unused(&doc);
    let duplicates = list.iter().filter(|(k, _, _)| k == "duplicate").count();
    assert_eq!(duplicates, 1, "{list:?}");
    // Every instance of the dataset but the predicted one has none.
    let missing = list.iter().filter(|(k, _, _)| k == "missing").count();
    let instances = doc["per_instance"].as_array().map_or(0, Vec::len);
    let skipped_no_prediction = doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["code"] == "no_prediction")
        .count();
    assert_eq!(missing, skipped_no_prediction, "{list:?}");
    assert!(
        missing > 0 && instances == 1,
        "{missing} missing, {instances} scored"
    );
    assert!(
        err.contains("not used:") && err.contains("1 duplicate"),
        "{err}"
    );
}

#[test]
fn switch_names_predictions_that_match_nothing_and_items_without_one() {
    let dir = scratch("switch");
    let lines: Vec<String> = std::fs::read_to_string(format!("{FIXTURES}/switch/pred.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // The first two items lose their prediction; a prediction of an item
    // that is not in the ground truth is added last.
    let mut kept: Vec<String> = lines[2..].to_vec();
    let mut stray: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    stray["id"] = serde_json::json!(99_999);
    kept.push(stray.to_string());
    let pred = dir.join("pred.jsonl");
    std::fs::write(&pred, kept.join("\n") + "\n").unwrap();
    let gt = format!("{FIXTURES}/switch/gt");
    let (code, out, err) = knoblab(&[
        "score",
        "switch",
        "--gt",
        &gt,
        "--pred",
        &s(&pred),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = unused(&doc);
    // The fixture has a stray of its own; ours is named at its line.
    let unmatched: Vec<_> = list.iter().filter(|(k, _, _)| k == "unmatched").collect();
    assert_eq!(
        unmatched.len(),
        doc["unmatched"].as_array().unwrap().len(),
        "{list:?}"
    );
    assert!(
        unmatched
            .iter()
            .any(|(_, line, item)| *line == Some(kept.len() as u64)
                && item.as_deref().is_some_and(|i| i.ends_with("#99999"))),
        "{list:?}"
    );
    let missing = list.iter().filter(|(k, _, _)| k == "missing").count();
    assert_eq!(missing, doc["missing"].as_array().unwrap().len());
    assert!(missing >= 2, "{list:?}");
    assert!(
        err.contains(&format!("{} unmatched", unmatched.len())),
        "{err}"
    );
}

#[test]
fn metrics_names_each_api_error_episode_at_its_line() {
    let dir = scratch("metrics");
    let out = dir.join("oracle.jsonl");
    let (code, _, err) = knoblab(&["run", KETTLE, "--agent", "oracle", "--out", &s(&out)]);
    assert_eq!(code, 0, "{err}");
    let mut lines: Vec<String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut failed: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    failed["status"] = serde_json::json!("api_error");
    failed["item"] = serde_json::json!("kettle/unreached#0");
    lines.push(failed.to_string());
    let file = dir.join("run.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (code, out, err) = knoblab(&["metrics", &s(&file), "--bundles", KETTLE, "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        unused(&doc),
        vec![(
            "not_scored".into(),
            Some(lines.len() as u64),
            Some("kettle/unreached#0".into())
        )]
    );
    assert_eq!(doc["episodes"], lines.len() as u64 - 1);
    assert!(err.contains("not used: 1 not_scored"), "{err}");
}

/// Copies a folder tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn an_epic_ground_truth_without_its_mask_is_not_counted_as_found() {
    let dir = scratch("epic_mask");
    let official = format!("{FIXTURES}/official/epic");
    let gt = dir.join("annotation");
    copy_tree(Path::new(&format!("{official}/dataset/annotation")), &gt);
    let task = gt.join("EPIC_Bench/TargetLocalization/BasicAttributes");
    // One file loses its mask_annotation, another's mask list is empty.
    let edit = |path: PathBuf, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        f(&mut v);
        std::fs::write(&path, v.to_string()).unwrap();
    };
    edit(
        task.join("Category/tl_cat_001/tl_cat_001_mask_rle.json"),
        &|v| {
            v.as_object_mut().unwrap().remove("mask_annotation");
        },
    );
    edit(
        task.join("Color/tl_col_001/tl_col_001_mask_rle.json"),
        &|v| {
            v["mask_annotation"]["masklet_target"] = serde_json::json!([]);
        },
    );
    let pred = format!("{official}/std/Qwen3-VL/probe-q3.jsonl");
    let (code, out, err) = knoblab(&["score", "epic", "--gt", &s(&gt), "--pred", &pred, "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let missing: Vec<String> = doc["unused"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["kind"] == "missing")
        .map(|u| u["item"].as_str().unwrap().to_string())
        .collect();
    // A sample each (the predictions name tl_cat_001 twice).
    let files: std::collections::BTreeSet<&str> = missing
        .iter()
        .map(|m| m.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["tl_cat_001_mask_rle.json", "tl_col_001_mask_rle.json"],
        "{missing:?}"
    );
    // The coverage no longer counts them as having found their mask.
    let (_, whole, _) = knoblab(&[
        "score",
        "epic",
        "--gt",
        &format!("{official}/dataset/annotation"),
        "--pred",
        &pred,
        "--json",
    ]);
    let whole: serde_json::Value = serde_json::from_str(&whole).unwrap();
    // "N of M samples found their mask…"
    let found = |d: &serde_json::Value| -> u64 {
        let text = d["knoblab"]["ground_truth"].as_str().unwrap();
        text.split(' ').next().unwrap().parse().unwrap()
    };
    assert_eq!(found(&doc) + missing.len() as u64, found(&whole), "{err}");
    assert!(err.contains("(no masklet_target)"), "{err}");
}
