//! Results-file detection on every fixture format, on ground-truth files,
//! and on garbage (which gets a message naming the file, never a panic).
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use knoblab_score::detect::{detect, Format};
use knoblab_score::limits::MAX_RESULTS_FILE_BYTES;
use proptest::prelude::*;

const OFFICIAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/official");
const LOCAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn detected(path: &str) -> (Format, usize, String) {
    let d = detect(path, &read(path)).unwrap_or_else(|e| panic!("{e}"));
    assert!(d.warnings.is_empty(), "{path}: {:?}", d.warnings);
    (d.format, d.items, d.label())
}

#[test]
fn epic_raw_std_and_score_files_with_their_sample_counts() {
    let (f, n, label) = detected(&format!("{OFFICIAL}/epic/raw/Custom/probe-auto.jsonl"));
    assert_eq!((f, n), (Format::EpicRaw, 184));
    assert_eq!(label, "EPIC-Bench raw outputs, 184 samples");
    let (f, n, _) = detected(&format!("{OFFICIAL}/epic/std/Qwen3-VL/probe-q3.jsonl"));
    assert_eq!((f, n), (Format::EpicStd, 13));
    let (f, n, _) = detected(&format!(
        "{OFFICIAL}/epic/scores/Custom/probe-auto_full.json"
    ));
    assert_eq!((f, n), (Format::EpicScores, 184));
    let gt = format!("{OFFICIAL}/epic/dataset/annotation/EPIC_Bench/Navigation/GroundDetection/gd_003/gd_003_mask_rle.json");
    assert_eq!(detected(&gt).0, Format::EpicGroundTruth);
}

#[test]
fn finestate_results_result_files_lines_and_annotations() {
    // The official result file's content, as result_0.json and as a list.
    let example: serde_json::Value = serde_json::from_slice(&read(&format!(
        "{OFFICIAL}/finestate/example_official_result_file.json"
    )))
    .unwrap_or_default();
    let one = serde_json::to_vec(&example["content"]).unwrap_or_default();
    let d = detect("result_0.json", &one).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.format, d.items), (Format::FineStateResultFile, 1));
    let list = serde_json::to_vec(&vec![example["content"].clone(); 3]).unwrap_or_default();
    let d = detect("gemini_results.json", &list).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.format, d.items), (Format::FineStateResults, 3));

    let lines = read(concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/data/samples/finestate/predictions.jsonl"
    ));
    let d = detect("predictions.jsonl", &lines).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.format, d.items), (Format::FineStateLines, 100));

    let (f, n, _) = detected(&format!(
        "{OFFICIAL}/finestate/dataset/web_en/web_cases.jsonl"
    ));
    assert_eq!((f, n), (Format::FineStateAnnotations, 32));
}

#[test]
fn switch_predictions_video_judgements_and_ground_truth() {
    let (f, n, label) = detected(&format!("{LOCAL}/switch/pred.jsonl"));
    assert_eq!(f, Format::SwitchPredictions);
    assert_eq!(label, format!("SWITCH predictions, {n} items"));
    let (f, n, _) = detected(&format!("{LOCAL}/switch/video_judge.jsonl"));
    assert_eq!((f, n), (Format::SwitchVideoJudge, 4));
    let (f, n, _) = detected(&format!("{LOCAL}/switch/gt/vqa_task/img2txt/vqa.json"));
    assert_eq!(f, Format::SwitchGroundTruth);
    assert!(n > 0);
}

#[test]
fn knoblab_trajectories() {
    let line = serde_json::json!({"bundle_id": "kettle-0001", "logic_hash": "ab", "task_id": "t", "steps": []});
    let text = format!("{line}\n{line}\n");
    let d = detect("run.jsonl", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.format, d.items), (Format::Trajectories, 2));
    assert_eq!(d.label(), "KnobLab trajectories, 2 episodes");
}

#[test]
fn zips_and_images_by_their_bytes() {
    assert_eq!(
        detect("gt.zip", b"PK\x03\x04rest").map(|d| d.format),
        Ok(Format::Zip)
    );
    assert_eq!(
        detect("a.bin", b"\x89PNG\r\n").map(|d| d.format),
        Ok(Format::Image)
    );
}

#[test]
fn garbage_gets_a_message_that_names_the_file_and_the_valid_formats() {
    for (name, bytes) in [
        ("notes.txt", &b"just some words\nand more"[..]),
        ("empty.jsonl", b"   \n\n"),
        ("binary.dat", b"\x00\xff\xfe\x01"),
        ("number.json", b"42"),
        ("other.json", br#"{"hello": 1}"#),
        ("list.json", br#"[1, 2, 3]"#),
        ("cut.jsonl", br#"{"response": "#),
    ] {
        let err = detect(name, bytes).expect_err(name).to_string();
        assert!(err.starts_with(name), "{err}");
        if name != "empty.jsonl" {
            assert!(err.contains("expected EPIC-Bench"), "{err}");
        }
    }
}

#[test]
fn the_size_limit_is_checked_before_anything_is_read() {
    // A file of the limit plus one byte: refused by size, whatever it holds.
    let big = vec![b' '; (MAX_RESULTS_FILE_BYTES + 1) as usize];
    let err = detect("big.jsonl", &big)
        .expect_err("over the limit")
        .to_string();
    assert!(err.contains("at most 256 MiB is read"), "{err}");
}

proptest! {
    #[test]
    fn detection_never_panics(name in ".{0,20}", bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = detect(&name, &bytes);
    }

    #[test]
    fn detection_never_panics_on_json_like_text(text in r#"[\[\]{}",:a-z0-9 \n]{0,200}"#) {
        let _ = detect("x.jsonl", text.as_bytes());
    }
}
