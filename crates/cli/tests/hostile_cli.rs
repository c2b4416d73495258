//! Hostile files given to the `knoblab` binary (issue #12), run as a user
//! runs it: each is refused with an exit status and a message on stderr (or
//! the validation report) that says what was wrong and the bound, without
//! reading more than the bound. The core's own tests are
//! `tests/bundle_hostile.rs` and `tests/hostile_results.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::path::{Path, PathBuf};
use std::process::Command;

use knoblab_core::bundle::load_path;
use support::bomb::zip_bomb;
use support::png::png_header;

#[path = "../../../tests/support/mod.rs"]
mod support;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
const OFFICIAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/official");

/// Runs `knoblab` and returns its exit code, stdout and stderr.
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

/// A fresh folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile_cli")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, bytes: &[u8]) -> String {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
    path.display().to_string()
}

/// A 1 GiB file that takes no disk: `set_len` on an empty file makes it
/// sparse, so reading it all would cost a GiB of memory and a second or
/// two; refusing it by its size costs nothing.
fn one_gib_file(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    path.display().to_string()
}

const TOO_BIG: &str =
    "the file takes 1024 MiB; at most 256 MiB is read (a results or data file larger than that \
     is refused before reading)";

#[test]
fn a_1_gib_results_file_is_refused_by_its_size_by_every_scorer() {
    let dir = scratch("one_gib");
    let big = one_gib_file(&dir, "big.jsonl");
    let expected = format!("knoblab: {big}: {TOO_BIG}\n");
    let epic_gt = format!("{OFFICIAL}/epic/dataset/annotation");
    let switch_gt = format!("{FIXTURES}/switch/gt");
    let switch_pred = format!("{FIXTURES}/switch/pred.jsonl");
    let fs_gt = format!("{OFFICIAL}/finestate/dataset");
    let kettle = format!("{FIXTURES}/kettle");
    for args in [
        vec!["score", "epic", "--gt", &epic_gt, "--pred", &big],
        vec!["score", "switch", "--gt", &switch_gt, "--pred", &big],
        vec!["score", "switch", "--video", &big],
        vec!["score", "switch", "--gt", &big, "--pred", &switch_pred],
        vec![
            "score",
            "finestate",
            "--gt",
            &fs_gt,
            "--pred",
            &big,
            "--model",
            "m",
        ],
        vec![
            "score",
            "finestate",
            "--gt",
            &big,
            "--pred",
            &big,
            "--model",
            "m",
        ],
        vec!["metrics", &big, "--bundles", &kettle],
    ] {
        let (code, _, stderr) = knoblab(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        if args.contains(&"--gt")
            && args[args.iter().position(|a| *a == "--gt").unwrap() + 1] == big
        {
            // The ground truth is read first, and named the same way.
            assert!(stderr.contains(TOO_BIG), "{args:?}: {stderr}");
        } else {
            assert_eq!(stderr, expected, "{args:?}");
        }
    }
}

#[test]
fn a_bundle_zip_bomb_is_refused_at_the_per_file_cap() {
    let dir = scratch("bundle_bomb");
    let bomb = write(&dir.join("bomb.zip"), &zip_bomb("manifest.json", 33));
    let (code, stdout, _) = knoblab(&["validate", &bomb]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "manifest.json: zip entry `manifest.json` declares 33 MiB once decompressed; at most \
             32 MiB is read per file"
        ),
        "{stdout}"
    );
}

#[test]
fn a_ground_truth_zip_bomb_is_refused_by_its_declared_size() {
    let dir = scratch("gt_bomb");
    let switch = write(
        &dir.join("switch.zip"),
        &zip_bomb("root/vqa_task/img2txt/vqa.json", 257),
    );
    let pred = format!("{FIXTURES}/switch/pred.jsonl");
    let (code, _, stderr) = knoblab(&["score", "switch", "--gt", &switch, "--pred", &pred]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "zip entry `root/vqa_task/img2txt/vqa.json` declares 257 MiB once decompressed; at \
             most 256 MiB is read per file"
        ),
        "{stderr}"
    );
    let finestate = write(&dir.join("fs.zip"), &zip_bomb("web_en/web.jsonl", 257));
    let (code, _, stderr) = knoblab(&[
        "score",
        "finestate",
        "--gt",
        &finestate,
        "--pred",
        &pred,
        "--model",
        "m",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("zip entry `web_en/web.jsonl` declares 257 MiB"),
        "{stderr}"
    );
}

#[test]
fn a_png_declaring_100000_by_100000_pixels_is_refused_from_its_header() {
    let dir = scratch("huge_png");
    let lamp = Path::new(FIXTURES).join("lamp");
    for entry in std::fs::read_dir(&lamp).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            write(
                &dir.join(path.file_name().unwrap()),
                &std::fs::read(&path).unwrap(),
            );
        }
    }
    let views = load_path(&lamp).unwrap().views;
    for (name, view) in &views {
        let bytes = if name == "front" {
            png_header(100_000, 100_000)
        } else {
            view.image.bytes.to_vec()
        };
        write(&dir.join(&view.spec.file), &bytes);
    }
    let (code, stdout, _) = knoblab(&["validate", &dir.display().to_string()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "views.json, field front.file: `views/front.png`: the image header declares \
             100000×100000 = 10000000000 pixels; at most 40000000 (40 megapixels) can be decoded \
             safely"
        ),
        "{stdout}"
    );
}

#[test]
fn json_nested_100000_deep_is_refused_with_its_position() {
    let dir = scratch("deep");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let bundle = write(&dir.join("deep.json"), deep.as_bytes());
    let (code, stdout, _) = knoblab(&["validate", &bundle]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("deep.json:1:128: not valid JSON: recursion limit exceeded"),
        "{stdout}"
    );

    let pred = write(&dir.join("pred.jsonl"), deep.as_bytes());
    let gt = format!("{FIXTURES}/switch/gt");
    let (code, _, stderr) = knoblab(&["score", "switch", "--gt", &gt, "--pred", &pred]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("recursion limit exceeded"), "{stderr}");

    let kettle = format!("{FIXTURES}/kettle");
    let (code, _, stderr) = knoblab(&["metrics", &pred, "--bundles", &kettle]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("{pred}:1: not a trajectory line")),
        "{stderr}"
    );
}

#[test]
fn an_rle_past_its_declared_size_fails_its_sample_only() {
    let dir = scratch("rle");
    let sample = "EPIC_Bench/TargetLocalization/BasicAttributes/Category/tl_cat_001";
    write(
        &dir.join(format!("{sample}/tl_cat_001_mask_rle.json")),
        br#"{"text_annotation": {"count_target_instance": 1},
            "mask_annotation": {"masklet_target": [{"size": [2, 2], "counts": [1, 5, 1000000]}]}}"#,
    );
    let line = format!(
        r#"{{"task_category": ["TargetLocalization"], "task_type": ["Category"], "format_type": ["bbox"], "coordinate_system": ["auto"], "formatted_response_localization": [[1, 1, 2, 2]], "formatted_response_count": [1], "formatted_response_path": ["Not Required"], "formatted_response_binary": ["Not Required"], "images": ["dataset/annotation/{sample}/tl_cat_001_image.jpg"], "ground_truth": {{"gt_json_path": ["dataset/annotation/{sample}/tl_cat_001_mask_rle.json"]}}}}"#
    );
    let pred = write(&dir.join("Custom/std.jsonl"), line.as_bytes());
    let gt = dir.display().to_string();
    let (code, stdout, stderr) =
        knoblab(&["score", "epic", "--gt", &gt, "--pred", &pred, "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let samples = report["details"]["by_samples"].as_array().unwrap();
    assert_eq!(samples.len(), 1, "{stdout}");
    assert_eq!(
        samples[0]["error"], "Failed to decode GT mask or GT mask is missing",
        "{}",
        samples[0]
    );
}

#[test]
fn a_bundle_whose_immediate_transitions_loop_is_refused() {
    let cycle = format!("{FIXTURES}/broken/immediate_cycle");
    let (code, stdout, _) = knoblab(&["validate", &cycle]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "immediate transitions form a cycle: Bright → Flash → Bright; the chain that follows \
             a step would never end"
        ),
        "{stdout}"
    );
    let dir = scratch("cycle_run");
    let out = dir.join("out.jsonl").display().to_string();
    let (code, _, stderr) = knoblab(&["run", &cycle, "--agent", "oracle", "--out", &out]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("immediate transitions form a cycle"),
        "{stderr}"
    );
    assert!(!Path::new(&out).exists());
}
