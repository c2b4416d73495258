#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! `knoblab score epic` end to end on the fixtures: the family comes from
//! the folder name, `--json` carries the official summary and samples.

use std::process::Command;

use serde_json::Value;

const FIX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/official/epic"
);

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .output()
        .expect("knoblab runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn json_summary_equals_the_official_file() {
    let gt = format!("{FIX}/dataset/annotation");
    for (family, model) in [("Qwen3-VL", "probe-q3"), ("Custom", "probe-auto")] {
        let pred = format!("{FIX}/raw/{family}/{model}.jsonl");
        let (ok, stdout, stderr) = run(&["score", "epic", "--gt", &gt, "--pred", &pred, "--json"]);
        assert!(ok, "{stderr}");
        let ours: Value = serde_json::from_str(&stdout).unwrap();
        let file: Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{FIX}/scores/{family}/{model}_full.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(ours["summary"], file["summary"]);
        assert_eq!(
            ours["details"]["by_samples"].as_array().unwrap().len(),
            file["details"]["by_samples"].as_array().unwrap().len()
        );
        assert!(ours["corrected"]["summary"]["overall"].is_object());
    }
}

#[test]
fn table_shows_the_paper_row() {
    let gt = format!("{FIX}/dataset/annotation");
    let pred = format!("{FIX}/std/Custom/probe-auto.jsonl");
    let (ok, stdout, stderr) = run(&["score", "epic", "--gt", &gt, "--pred", &pred]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains(
        "Average      BA     SRA     ECA      GD      FP      VM      AR      CR      PR"
    ));
    assert!(stdout.contains("official     62.89"), "{stdout}");
    assert!(
        stderr.contains("178 of 184 samples found their mask; missing: "),
        "{stderr}"
    );
}

#[test]
fn bad_coord_mode_is_a_message() {
    let (ok, _, stderr) = run(&[
        "score",
        "epic",
        "--gt",
        ".",
        "--pred",
        "x.jsonl",
        "--coord-mode",
        "pixels",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("expected one of auto, normalized_0_1000, absolute, normalized_0_1"),
        "{stderr}"
    );
}

#[test]
fn gt_may_be_given_as_any_folder_of_the_download() {
    let pred = format!("{FIX}/raw/Custom/probe-auto.jsonl");
    let reference = run(&[
        "score",
        "epic",
        "--gt",
        &format!("{FIX}/dataset/annotation"),
        "--pred",
        &pred,
        "--json",
    ]);
    assert!(reference.0, "{}", reference.2);
    for gt in [
        FIX.to_string(),
        format!("{FIX}/dataset"),
        format!("{FIX}/dataset/annotation/EPIC_Bench"),
    ] {
        let (ok, stdout, stderr) = run(&["score", "epic", "--gt", &gt, "--pred", &pred, "--json"]);
        assert!(ok, "{gt}: {stderr}");
        assert_eq!(
            stdout, reference.1,
            "--gt {gt} scores like the annotation folder"
        );
        assert!(
            stderr.contains("178 of 184 samples found their mask"),
            "{stderr}"
        );
    }
}

#[test]
fn a_gt_folder_without_any_mask_is_refused_with_a_short_list() {
    let pred = format!("{FIX}/raw/Custom/probe-auto.jsonl");
    let empty = std::env::temp_dir();
    let (ok, stdout, stderr) = run(&[
        "score",
        "epic",
        "--gt",
        empty.to_str().unwrap(),
        "--pred",
        &pred,
    ]);
    assert!(!ok);
    assert!(stdout.is_empty());
    assert!(stderr.contains("no ground truth found under"), "{stderr}");
    assert!(
        stderr.contains("0 of 184 samples found their mask"),
        "{stderr}"
    );
    assert!(
        stderr.contains("and 57 more"),
        "67 distinct files, 10 named: {stderr}"
    );
    assert!(stderr.contains("holds EPIC_Bench/"), "{stderr}");
}
