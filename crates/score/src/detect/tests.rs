//! Tests of `detect` (kept apart so that the module reads as one idea).

use super::*;

#[test]
fn a_raw_line_that_names_a_task_family_is_switch_not_epic() {
    let line = br#"{"task_family": "vqa_task", "form": "img2txt", "id": 0, "response": "B"}"#;
    assert_eq!(
        detect("p.jsonl", line).map(|d| d.format),
        Ok(Format::SwitchPredictions)
    );
}

#[test]
fn the_public_release_files_are_switch_ground_truth() {
    let row = br#"{"id": "q1", "task_family": "recovery_abnormal", "question": "Which?", "options": ["a", "b"]}"#;
    for name in [
        "mcq_hf_1500/data.jsonl",
        "recovery_abnormal/data.jsonl",
        "answers.jsonl",
    ] {
        let d = detect(name, row).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (d.format, d.items),
            (Format::SwitchGroundTruth, 1),
            "{name}"
        );
    }
    assert_eq!(
        detect("rows.jsonl", row).map(|d| d.format),
        Ok(Format::SwitchGroundTruth)
    );
    // Predictions for release rows name them by question_id.
    let pred = br#"{"question_id": "m1", "response": "Answer: A"}"#;
    assert_eq!(
        detect("pred.jsonl", pred).map(|d| d.format),
        Ok(Format::SwitchPredictions)
    );
}

#[test]
fn a_cut_off_last_line_is_a_warning_with_its_number() {
    let mut text = String::new();
    for i in 0..30 {
        text.push_str(&format!("{{\"response\": \"{i}\", \"images\": []}}\n"));
    }
    text.push_str("{\"response\": \"cut");
    let d = detect("raw.jsonl", text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((d.format, d.items), (Format::EpicRaw, 31));
    assert_eq!(d.warnings, ["line 31 is not JSON (a truncated file?)"]);
}

#[test]
fn every_format_key_reads_back() {
    for f in Format::ALL {
        assert_eq!(Format::from_key(f.key()), Some(f));
    }
    assert_eq!(Format::results().count(), 9);
}

#[test]
fn an_empty_file_is_empty_whatever_its_name() {
    for name in ["view.png", "data.zip", "vqa.json", "run.jsonl"] {
        assert_eq!(
            detect(name, b"").unwrap_err().to_string(),
            format!("{name}: the file is empty")
        );
    }
}

#[test]
fn a_file_over_the_limit_is_refused_by_size_before_parsing() {
    assert!(check_size("big.jsonl", MAX_RESULTS_FILE_BYTES).is_ok());
    let message = check_size("big.jsonl", 1024 * 1024 * 1024)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("big.jsonl: the file takes 1024 MiB; at most 256 MiB is read"),
        "{message}"
    );
}
