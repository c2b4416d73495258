//! `knoblab score switch --submission FILE`: the SWITCH leaderboard's
//! results file (four tracks, with the model's access), and the tracks the
//! predictions do not cover named on stderr and in `--json`.

#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const GT: &str = "../../tests/fixtures/switch_release";
const PRED: &str = "../../tests/fixtures/switch_release/pred.jsonl";

fn knoblab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .output()
        .expect("knoblab runs")
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-sw-sub-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_submission_file_holds_the_four_tracks_and_the_models_access() {
    let dir = temp("full");
    let file = dir.join("submission.json");
    let out = knoblab(&[
        "score",
        "switch",
        "--gt",
        GT,
        "--pred",
        PRED,
        "--submitted-by",
        "lab",
        "--submission",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // The file is the document's submission row, as the leaderboard takes it.
    assert_eq!(written, doc["submission"]);
    assert_eq!(written["model_access"], "open_weight");
    assert_eq!(written["submitted_by"], "lab");
    let results = written["results"].as_object().unwrap();
    assert_eq!(
        results.keys().collect::<Vec<_>>(),
        ["mcq_open", "mcq_closed", "openqa_open", "openqa_closed"]
    );
    assert!(results["mcq_open"]["acc"].is_number());
    assert!(
        results["openqa_closed"]["em"].is_number() && results["openqa_closed"]["f1"].is_number()
    );
    // Every track is covered by the fixture's predictions: nothing named.
    let tracks = doc["submission_tracks"].as_array().unwrap();
    assert_eq!(tracks.len(), 4);
    assert!(tracks
        .iter()
        .all(|t| t["covered"] == true && t["predicted"].as_u64() > Some(0)));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("SWITCH submission: track"));
}

#[test]
fn tracks_the_predictions_do_not_cover_are_named() {
    let dir = temp("mcq-only");
    // The multiple-choice answers alone: no open question is answered.
    let text = std::fs::read_to_string(PRED).unwrap();
    let mcq: Vec<&str> = text.lines().filter(|l| l.contains("\"m")).collect();
    assert_eq!(mcq.len(), 8);
    let pred = dir.join("mcq.jsonl");
    std::fs::write(&pred, mcq.join("\n") + "\n").unwrap();
    let file = dir.join("submission.json");
    let out = knoblab(&[
        "score",
        "switch",
        "--gt",
        GT,
        "--pred",
        pred.to_str().unwrap(),
        "--submission",
        file.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "SWITCH submission: track openqa_open, openqa_closed: none of its 1 items has a prediction"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("mcq_"), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let covered: Vec<(String, bool)> = doc["submission_tracks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["track"].as_str().unwrap().to_string(),
                t["covered"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        covered,
        [
            ("mcq_open".to_string(), true),
            ("mcq_closed".to_string(), true),
            ("openqa_open".to_string(), false),
            ("openqa_closed".to_string(), false)
        ]
    );
    // The file is still written: the unanswered items score 0, as the report says.
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["results"]["openqa_open"]["em"], 0.0);
}

#[test]
fn one_submission_is_one_run() {
    let dir = temp("two");
    let out = knoblab(&[
        "score",
        "switch",
        "--gt",
        GT,
        "--pred",
        PRED,
        "--pred",
        "../../tests/fixtures/switch_runs/api-vlm.jsonl",
        "--submission",
        dir.join("s.json").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("give one --pred"));
}
