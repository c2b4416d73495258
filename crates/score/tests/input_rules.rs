//! The input layer's rules in every benchmark reader (issue #47): a key
//! twice in one object, UTF-16 and a byte-order mark, lines ending in a
//! lone CR, a FIFO in a ground-truth folder, and image paths that leave the
//! dataset folder, each named (or refused) the same way in the EPIC,
//! FineState and SWITCH readers.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use knoblab_score::epic::gt::MapSource;
use knoblab_score::epic::report::{score_text, RunOptions};
use knoblab_score::epic::synthetic::generate_scaled;
use knoblab_score::epic::GroundTruthSource as _;
use knoblab_score::finestate::dataset::SkipReason;
use knoblab_score::finestate::files::{DiskFiles, MemFiles};
use knoblab_score::finestate::loader::{load_dataset, ImagePolicy, Platform};
use knoblab_score::finestate::predictions::read_predictions;
use knoblab_score::switch::{predictions, GroundTruth};

fn utf16le(text: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out
}

/// `text` (a JSON object) with its first key given again, first.
fn with_duplicate_key(text: &str) -> (String, String) {
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let key = v.as_object().unwrap().keys().next().unwrap().clone();
    let open = text.find('{').unwrap();
    let doubled = format!("{{\"{key}\": null, {}", &text[open + 1..]);
    (doubled, key)
}

/// The synthetic EPIC set with its first GT file replaced by `bytes`.
fn epic_with_first_gt(bytes: impl Fn(&str) -> Vec<u8>) -> (MapSource, String, String) {
    let set = generate_scaled(7, 0.05);
    let (first, _) = set.gt.files().min_by_key(|(k, _)| k.to_string()).unwrap();
    let first = first.to_string();
    let mut gt = MapSource::new();
    for (k, b) in set.gt.files() {
        if k == first {
            gt.insert(k, bytes(std::str::from_utf8(b).unwrap()));
        } else {
            gt.insert(k, b.to_vec());
        }
    }
    (gt, set.raw_jsonl, first)
}

#[test]
fn epic_ground_truth_by_the_layers_rules() {
    let set = generate_scaled(7, 0.05);
    let clean = score_text(&set.raw_jsonl, &set.gt, &RunOptions::default()).unwrap();
    assert!(set.gt.refused().is_empty());

    // A byte-order mark is stripped: the file reads as without it.
    let (gt, raw, _) = epic_with_first_gt(|t| [&b"\xEF\xBB\xBF"[..], t.as_bytes()].concat());
    let report = score_text(&raw, &gt, &RunOptions::default()).unwrap();
    assert!(gt.refused().is_empty(), "{:?}", gt.refused());
    assert_eq!(report.gt_found, clean.gt_found);
    let scores = |r: &knoblab_score::epic::report::Report| {
        r.official
            .samples
            .iter()
            .map(|s| s.score)
            .collect::<Vec<f64>>()
    };
    assert_eq!(scores(&report), scores(&clean));

    // UTF-16 is named, not read as nothing without a word.
    let (gt, raw, first) = epic_with_first_gt(utf16le);
    score_text(&raw, &gt, &RunOptions::default()).unwrap();
    let refused = gt.refused();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].starts_with(&first), "{refused:?}");
    assert!(refused[0].contains("UTF-16 LE"), "{refused:?}");

    // A key twice in one object is refused with both positions.
    let (gt, raw, first) = epic_with_first_gt(|t| with_duplicate_key(t).0.into_bytes());
    let report = score_text(&raw, &gt, &RunOptions::default()).unwrap();
    let refused = gt.refused();
    assert_eq!(refused.len(), 1, "{refused:?}");
    let key = with_duplicate_key(
        std::str::from_utf8(set.gt.files().find(|(k, _)| *k == first).unwrap().1).unwrap(),
    )
    .1;
    assert!(
        refused[0].contains(&format!(
            "the key \"{key}\" appears twice in one object, at line 1, column 2"
        )),
        "{refused:?}"
    );
    assert!(report.gt_found < clean.gt_found);

    // Lines ending in a lone CR are named.
    let (gt, raw, _) =
        epic_with_first_gt(|t| format!("{}\r", t.replacen(", ", ",\r", 2)).into_bytes());
    score_text(&raw, &gt, &RunOptions::default()).unwrap();
    assert!(
        gt.refused()[0].contains("carriage return alone"),
        "{:?}",
        gt.refused()
    );
}

const FINESTATE_PREDICTION: &str =
    r#"{"image": "web_en/a.png", "p0": [0.5, 0.5], "p1": [0.5, 0.5]}"#;

#[test]
fn finestate_predictions_by_the_layers_rules() {
    let line = FINESTATE_PREDICTION;
    read_predictions("p.jsonl", line.as_bytes()).unwrap();
    // Twice the same key in one record: refused with both positions.
    let doubled = line.replacen("{\"image\"", "{\"image\": \"web_en/b.png\", \"image\"", 1);
    let err = read_predictions("p.jsonl", doubled.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("`p.jsonl`: the key \"image\" appears twice"),
        "{err}"
    );
    assert!(
        err.contains("line 1, column 2 and at line 1, column 27"),
        "{err}"
    );
    // A BOM is stripped; UTF-16 and lone-CR lines are named.
    let bom = [&b"\xEF\xBB\xBF"[..], line.as_bytes()].concat();
    assert_eq!(
        read_predictions("p.jsonl", &bom).unwrap(),
        read_predictions("p.jsonl", line.as_bytes()).unwrap()
    );
    let err = read_predictions("p.jsonl", &utf16le(line))
        .unwrap_err()
        .to_string();
    assert!(err.contains("UTF-16 LE"), "{err}");
    let cr = format!("{line}\r{line}\r");
    let err = read_predictions("p.jsonl", cr.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("carriage return alone"), "{err}");
}

const SWITCH_PREDICTION: &str = r#"{"question_id": "q1", "answer": "A"}"#;

#[test]
fn switch_predictions_and_ground_truth_by_the_layers_rules() {
    predictions::read_predictions("pred.jsonl", SWITCH_PREDICTION.as_bytes()).unwrap();
    let doubled = SWITCH_PREDICTION.replacen("{", "{\"answer\": \"B\", ", 1);
    let err = predictions::read_predictions("pred.jsonl", doubled.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("pred.jsonl:1:"), "{err}");
    assert!(err.contains("the key \"answer\" appears twice"), "{err}");
    // A BOM reads as without it; UTF-16 and lone CRs are named, as in
    // every other reader.
    let bom = [&b"\xEF\xBB\xBF"[..], SWITCH_PREDICTION.as_bytes()].concat();
    assert_eq!(
        predictions::read_predictions("pred.jsonl", &bom).unwrap(),
        predictions::read_predictions("pred.jsonl", SWITCH_PREDICTION.as_bytes()).unwrap()
    );
    let err = predictions::read_predictions("pred.jsonl", &utf16le(SWITCH_PREDICTION))
        .unwrap_err()
        .to_string();
    assert!(err.contains("UTF-16 LE"), "{err}");
    let cr = format!("{SWITCH_PREDICTION}\r{SWITCH_PREDICTION}");
    let err = predictions::read_predictions("pred.jsonl", cr.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("carriage return alone"), "{err}");

    // The ground truth's own files: the same rules.
    let gt = r#"{"data": [{"id": "1", "id": "2"}]}"#;
    let err = GroundTruth::from_bytes("vqa.json", gt.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("vqa.json:1:") && err.contains("the key \"id\" appears twice"),
        "{err}"
    );
    let err = GroundTruth::from_bytes("vqa.json", &utf16le(r#"{"data": []}"#))
        .unwrap_err()
        .to_string();
    assert!(err.contains("UTF-16 LE"), "{err}");
}

fn web_record(image: &str) -> String {
    format!(
        r#"{{"image": "{image}", "component": {{"type": "button", "instructions": {{"locate": "x", "interact": "y"}}}}, "processing_details": {{"bbox": [0, 0, 10, 10]}}}}"#
    )
}

#[test]
fn finestate_ground_truth_by_the_layers_rules() {
    // Image paths that leave the dataset folder are refused and named.
    let mut files = MemFiles::new();
    files.insert("web_en/a.png", Vec::new());
    let lines = [
        web_record("web_en/a.png"),
        web_record("/etc/passwd"),
        web_record("web_en/../../secret.png"),
        web_record("web_en/a.png").replacen("{", "{\"image\": \"x\", ", 1),
    ];
    files.insert("web_en/web.jsonl", lines.join("\n").into_bytes());
    let data = load_dataset(&files, ImagePolicy::Check);
    assert_eq!(data.instances.len(), 1);
    let reasons: Vec<String> = data.skipped.iter().map(|s| s.reason.to_string()).collect();
    assert!(
        reasons[0].starts_with("image path refused: the path `/etc/passwd` is absolute"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].starts_with(
            "image path refused: the path `web_en/../../secret.png` leaves its folder"
        ),
        "{reasons:?}"
    );
    assert!(
        reasons[2].contains("the key \"image\" appears twice"),
        "{reasons:?}"
    );

    // A FIFO among the annotation files is named, never opened.
    let dir = std::env::temp_dir().join(format!("knoblab-fifo-gt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("web_en")).unwrap();
    std::fs::write(dir.join("web_en/a.png"), b"").unwrap();
    std::fs::write(dir.join("web_en/web.jsonl"), web_record("web_en/a.png")).unwrap();
    let fifo = dir.join("web_en/more.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let data = load_dataset(&DiskFiles::new(&dir), ImagePolicy::Check);
        assert_eq!(data.platform(Platform::Web).count(), 1);
        let named = data
            .skipped
            .iter()
            .find(|s| s.source == "web_en/more.jsonl")
            .expect("the FIFO is named among the skipped");
        assert!(
            matches!(&named.reason, SkipReason::FileUnreadable { cause } if cause.contains("a FIFO (named pipe), not a regular file")),
            "{:?}",
            named.reason
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
