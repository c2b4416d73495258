//! SWITCH end to end on the hand-built fixture `tests/fixtures/switch/`:
//! a ground-truth tree in the dataset's layout (every task family and form,
//! single choice, multi-select, text, numeric and structured answers) and a
//! predictions file that exercises every extraction rule, failures, a
//! missing item, an unknown item and saved judge outputs. Every expected
//! number below was computed by hand from the fixture, with the arithmetic
//! in the comment.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use knoblab_score::switch::extract::Rule;
use knoblab_score::switch::predictions::read_predictions;
use knoblab_score::switch::report::SwitchReport;
use knoblab_score::switch::{build_report, score_files, GroundTruth, InputError};
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/switch")
        .join(rel)
}

fn fixture_report() -> SwitchReport {
    let gt = GroundTruth::load_path(&fixture("gt")).expect("the fixture tree loads");
    let bytes = std::fs::read(fixture("pred.jsonl")).expect("fixture predictions");
    let preds = read_predictions("pred.jsonl", &bytes).expect("predictions parse");
    build_report(&gt, "pred.jsonl", &preds).expect("scores")
}

/// Floating-point results are sums of at most 13 fractions; 1e-12 absorbs
/// the rounding of those few operations.
#[track_caller]
fn close(actual: Option<f64>, expected: f64) {
    let a = actual.expect("a value, not an empty cell");
    assert!((a - expected).abs() < 1e-12, "{a} != {expected}");
}

#[test]
fn mcq_skill_columns_and_overall() {
    let r = fixture_report();
    let col = |name: &str| *r.mcq.columns.get(name).expect("column");
    // Task Understanding: vqa_task #0 ✓ (answer phrase B), #1 ✓ (boxed A),
    // #2 ✓ ("A and C" = {A,C}), #3 ✗ (no prediction) → 3/4.
    close(col("Task Understanding").accuracy, 3.0 / 4.0);
    assert_eq!(col("Task Understanding").n, 4);
    // State Perception: #0 ✓ ("**C**."), #1 ✗ ({B,C} ≠ {B,D}) → 1/2.
    close(col("State Perception").accuracy, 1.0 / 2.0);
    // UI Recognition: "d" → D ✓ → 1/1.
    close(col("UI Recognition").accuracy, 1.0);
    // Action Reasoning: action #0 "A, B" for single choice → parse failure → 0/1.
    close(col("Action Reasoning").accuracy, 0.0);
    // Sequential Action Quantification: action #1 (qa_type action_count),
    // "Three times" = option C's text ✓ → 1/1.
    close(col("Sequential Action Quantification").accuracy, 1.0);
    // State Transition Prediction: video options, "I cannot tell" → failure → 0/1.
    close(col("State Transition Prediction").accuracy, 0.0);
    // Outcome Verification: verification_state "A. The door…" ✓ and
    // verification_action "…D is correct." ✓ → 2/2.
    close(col("Outcome Verification").accuracy, 1.0);
    assert_eq!(col("Outcome Verification").n, 2);
    // Recovery Reasoning: {A,B} ≠ {A,B,E} → 0/1.
    close(col("Recovery Reasoning").accuracy, 0.0);
    // Overall, item-weighted: 3+1+1+0+1+0+2+0 = 8 correct of 4+2+1+1+1+1+2+1 = 13.
    // (The mean of the columns would be (75+50+100+0+100+0+100+0)/8 = 53.125 %.)
    close(r.mcq.overall.accuracy, 8.0 / 13.0);
    assert_eq!((r.mcq.overall.correct, r.mcq.overall.n), (8, 13));
}

#[test]
fn multi_select_partial_score() {
    let r = fixture_report();
    // vqa_task #2: {A,C} vs {A,C}: (2 − 0)/2 = 1.
    // vqa_state #1: {B,C} vs {B,D}: (1 − 1)/2 = 0.
    // recovery #0: {A,B} vs {A,B,E}: (2 − 0)/3 = 2/3.
    // Mean (1 + 0 + 2/3)/3 = 5/9; exact 1 of 3.
    close(r.multi_select_partial.mean, 5.0 / 9.0);
    close(r.multi_select_partial.exact_accuracy, 1.0 / 3.0);
    assert_eq!(r.multi_select_partial.n, 3);
}

#[test]
fn by_form_and_by_scenario() {
    let r = fixture_report();
    let form = |f: &str| *r.by_form.get(f).expect("form");
    // img2txt: vqa_task 3/4 + ui_grounding 1/1 + action 1/2 = 5/7.
    assert_eq!((form("img2txt").correct, form("img2txt").n), (5, 7));
    assert_eq!((form("video2txt").correct, form("video2txt").n), (1, 2));
    assert_eq!((form("img2video").correct, form("img2video").n), (0, 1));
    assert_eq!((form("video2video").correct, form("video2video").n), (1, 1));
    assert_eq!((form("img2img").correct, form("img2img").n), (1, 1));
    assert_eq!((form("video2img").correct, form("video2img").n), (0, 1));
    let sc = |s: &str| *r.by_scenario.get(s).expect("scenario");
    // kitchen_appliance: vqa_task #0 ✓, #1 ✓, ui_grounding ✓, final_state ✗ → 3/4.
    assert_eq!(
        (sc("kitchen_appliance").correct, sc("kitchen_appliance").n),
        (3, 4)
    );
    // elevator: vqa_task #2 ✓, #3 ✗, vqa_state #0 ✓, #1 ✗, verification_state ✓ → 3/5.
    assert_eq!((sc("elevator").correct, sc("elevator").n), (3, 5));
    // wall_switch: action #0 ✗, #1 ✓, recovery ✗ → 1/3.
    assert_eq!((sc("wall_switch").correct, sc("wall_switch").n), (1, 3));
    // verification_action has no scenario_family.
    assert_eq!((sc("(none)").correct, sc("(none)").n), (1, 1));
}

#[test]
fn openqa_exact_match_and_f1() {
    let r = fixture_report();
    let col = |name: &str| *r.openqa.columns.get(name).expect("column");
    // vqa_state #0: "Answer: the green light is on" → "green light is on".
    //   vs GT "indicator light turns green": common {green, light} = 2, P = R = 2/4, F1 = 1/2.
    //   vs alias "green light on": common 3, P = 3/4, R = 3/3, F1 = 2·(3/4)/(7/4) = 6/7.
    //   EM 0, F1 6/7.
    // vqa_state #1: given "Elevator door opens." = GT after normalisation: EM 1, F1 1.
    //   Column: EM (0+1)/2 = 1/2, F1 (6/7 + 1)/2 = 13/14.
    close(col("State Perception").em, 0.5);
    close(col("State Perception").f1, 13.0 / 14.0);
    // action #0 (counting): "three times" vs GT 3 → one number, equal: EM 1, F1 1.
    close(col("Sequential Action Quantification").em, 1.0);
    // final_state #0: "B" vs "B": EM 1, F1 1.
    close(col("State Transition Prediction").f1, 1.0);
    // verification_action #0: "No. The fan did not start." → [no fan did not start]
    //   vs [no fan is still off]: common {no, fan} = 2, P = R = 2/5, F1 = 2/5; EM 0.
    close(col("Outcome Verification").em, 0.0);
    close(col("Outcome Verification").f1, 0.4);
    // recovery #0, field by field: wrong_action 1/1; post_wrong_signal "a long beep"
    //   vs "error beep": [long beep] vs [error beep], F1 1/2, EM 0; fix_steps equal;
    //   post_fix_signal equal. EM 0 (not every field), F1 (1 + 1/2 + 1 + 1)/4 = 7/8.
    // recovery #1: "I think it is locked." has no fields: EM 0, F1 0 (and a parse failure).
    //   Column: EM 0, F1 (7/8 + 0)/2 = 7/16.
    close(col("Recovery Reasoning").em, 0.0);
    close(col("Recovery Reasoning").f1, 7.0 / 16.0);
    // Columns without OpenQA items are empty, not 0.
    assert_eq!(col("Task Understanding").em, None);
    assert_eq!(col("UI Recognition").n, 0);
    // Overall over 7 items: EM (0+1+1+1+0+0+0)/7 = 3/7;
    // F1 (6/7 + 1 + 1 + 1 + 2/5 + 7/8 + 0)/7.
    close(r.openqa.em, 3.0 / 7.0);
    close(
        r.openqa.f1,
        (6.0 / 7.0 + 1.0 + 1.0 + 1.0 + 0.4 + 0.875) / 7.0,
    );
    assert_eq!(r.openqa.n, 7);
}

#[test]
fn judge_accuracy_and_diagnostics_from_saved_outputs() {
    let r = fixture_report();
    let j = r.judge.expect("the predictions carry judge outputs");
    // Verdicts: vqa_state #0 (1, paraphrase, after prose), vqa_state #1 (1, exact,
    // on the retry), action #0 (1, exact, saved as an object), recovery #0 (0, partial).
    // final_state #0 asks for A/B/C/D without options → contamination, scored 0.
    // recovery #1 (one reply missing brief_reason, no retry) → incomplete;
    // verification_action #0 (no JSON, then score 2) → judge failure.
    // Accuracy: 3 ones over 4 verdicts + 1 contamination zero = 3/5.
    close(j.accuracy, 3.0 / 5.0);
    assert_eq!(j.scored, 5);
    assert_eq!(j.contamination_zero, 1);
    assert_eq!(j.judge_failures, 1);
    assert_eq!(j.incomplete, 1);
    assert_eq!(j.not_judged, 0);
    assert_eq!(j.essential_missing, 1);
    let counts: Vec<(&str, usize)> = j
        .answer_match
        .0
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        counts,
        [
            ("exact", 2),
            ("paraphrase", 1),
            ("partial", 1),
            ("contradiction", 0),
            ("complete_miss", 0)
        ]
    );
    // Shares over the 4 verdicts: exact 2/4, paraphrase 1/4, partial 1/4.
    assert_eq!(j.answer_match_share.get("exact"), Some(&Some(0.5)));
    assert_eq!(j.answer_match_share.get("partial"), Some(&Some(0.25)));
    assert_eq!(j.answer_match_share.get("contradiction"), Some(&Some(0.0)));
    // Per column: the failure leaves Outcome Verification empty, not 0.
    assert_eq!(
        j.columns.get("Outcome Verification").unwrap().accuracy,
        None
    );
    close(j.columns.get("State Perception").unwrap().accuracy, 1.0);
    close(
        j.columns
            .get("State Transition Prediction")
            .unwrap()
            .accuracy,
        0.0,
    );
}

#[test]
fn parse_failures_missing_and_unmatched_are_listed() {
    let r = fixture_report();
    let failures: Vec<(&str, usize)> = r
        .parse_failures
        .iter()
        .map(|f| (f.item.as_str(), f.line))
        .collect();
    assert_eq!(
        failures,
        [
            ("action/img2txt/vqa#0", 7),
            ("final_state/img2video/vqa#0", 9),
            ("recovery/img2txt/openqa#1", 18),
        ]
    );
    assert_eq!(r.parse_failures[0].written, "A, B");
    assert_eq!(r.missing, ["vqa_task/img2txt/vqa#3"]);
    assert_eq!(r.unmatched.len(), 1);
    assert_eq!(r.unmatched[0].line, 13);
}

#[test]
fn per_item_records_the_rule_that_found_each_answer() {
    let r = fixture_report();
    let rule = |item: &str| {
        r.per_item
            .iter()
            .find(|i| i.item == item)
            .and_then(|i| i.mcq.as_ref())
            .and_then(|m| m.rule)
    };
    assert_eq!(rule("vqa_task/img2txt/vqa#0"), Some(Rule::AnswerPhrase));
    assert_eq!(rule("vqa_task/img2txt/vqa#1"), Some(Rule::Boxed));
    assert_eq!(rule("vqa_task/img2txt/vqa#2"), Some(Rule::Bare));
    assert_eq!(rule("vqa_state/video2txt/vqa#1"), Some(Rule::Json));
    assert_eq!(rule("action/img2txt/vqa#1"), Some(Rule::OptionText));
    assert_eq!(
        rule("verification_state/video2video/vqa#0"),
        Some(Rule::Leading)
    );
    assert_eq!(rule("action/img2txt/vqa#0"), None);
    assert_eq!(r.per_item.len(), 13 + 7);
}

#[test]
fn a_zip_of_the_root_scores_the_same_as_the_folder() {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut buf);
        let options = zip::write::SimpleFileOptions::default();
        for entry in walk(&fixture("gt")) {
            let rel = entry
                .strip_prefix(fixture("gt"))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            zip.start_file(format!("switch/{rel}"), options).unwrap();
            zip.write_all(&std::fs::read(&entry).unwrap()).unwrap();
        }
        zip.finish().unwrap();
    }
    let zipped = buf.into_inner();
    let pred = std::fs::read(fixture("pred.jsonl")).unwrap();
    let from_zip = score_files([("switch.zip", zipped.as_slice())], "pred.jsonl", &pred).unwrap();
    let from_folder = fixture_report();
    assert_eq!(from_zip.mcq, from_folder.mcq);
    assert_eq!(from_zip.openqa, from_folder.openqa);
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn a_single_vqa_file_scores_alone_and_empty_columns_show_as_none() {
    let vqa = std::fs::read(fixture("gt/vqa_state/video2txt/vqa.json")).unwrap();
    let pred = br#"{"task_family":"vqa_state","form":"video2txt","id":0,"response":"Answer: C"}
{"task_family":"vqa_state","form":"video2txt","id":1,"answer":["D","B"]}"#;
    let r = score_files(
        [("vqa_state/video2txt/vqa.json", vqa.as_slice())],
        "p.jsonl",
        pred,
    )
    .unwrap();
    close(r.mcq.overall.accuracy, 1.0);
    assert_eq!(
        r.mcq.columns.get("Task Understanding").unwrap().accuracy,
        None
    );
    let text = knoblab_score::switch::render_text(&r);
    assert!(text.contains("| MCQ acc (%) | – | 100.0 | – |"), "{text}");
}

#[test]
fn a_key_shared_by_vqa_and_openqa_needs_a_kind() {
    let gt = GroundTruth::load_path(&fixture("gt")).unwrap();
    let preds = read_predictions(
        "p.jsonl",
        br#"{"task_family":"vqa_state","form":"video2txt","id":0,"response":"C"}"#,
    )
    .unwrap();
    let err = build_report(&gt, "p.jsonl", &preds).unwrap_err();
    assert!(
        matches!(&err.0[0], InputError::Field { field, .. } if field == "kind"),
        "{err}"
    );
    let message = err.to_string();
    assert!(message.contains("p.jsonl: line 1"), "{message}");
}

#[test]
fn two_predictions_for_one_item_are_an_error_naming_both_lines() {
    let gt = GroundTruth::load_path(&fixture("gt")).unwrap();
    let preds = read_predictions(
        "p.jsonl",
        b"{\"origin_qa_id\":\"sw-0001\",\"response\":\"B\"}\n\n{\"origin_qa_id\":\"sw-0001\",\"response\":\"C\"}\n",
    )
    .unwrap();
    let err = build_report(&gt, "p.jsonl", &preds).unwrap_err();
    assert_eq!(
        err.0,
        [InputError::DuplicatePrediction {
            file: "p.jsonl".into(),
            key: "vqa_task/img2txt/vqa#0".into(),
            first: 1,
            second: 3
        }]
    );
}

#[test]
fn malformed_inputs_name_the_file_the_line_and_what_is_valid() {
    // A predictions line that is not JSON, one without a key, one without content.
    let err = read_predictions(
        "p.jsonl",
        b"{\"origin_qa_id\": \"x\", \"response\": \"A\"}\n{oops\n{\"response\": \"A\"}\n{\"origin_qa_id\": \"y\"}\n",
    )
    .unwrap_err();
    assert_eq!(err.0.len(), 3, "{err}");
    assert!(
        matches!(&err.0[0], InputError::Json { line: 2, .. }),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("p.jsonl: line 3: field `task_family/form/id`: expected `origin_qa_id`"),
        "{text}"
    );
    assert!(
        text.contains("p.jsonl: line 4: field `response/answer`"),
        "{text}"
    );

    // Ground truth: a bad GT for a choice item, a missing id. A family
    // outside the eight ("cooking") is kept under its own name (issue #24),
    // not refused; only a file with no family anywhere is.
    let vqa = br#"{"data": [
        {"id": 0, "GT": "Z1", "output_schema": {"type": "choice"}},
        {"id": 1, "GT": "A", "task_family": "cooking"},
        {"GT": ["A", "B"], "output_schema": {"type": "multi_select"}}
    ]}"#;
    let err = GroundTruth::from_files([("root/vqa_task/img2txt/vqa.json", &vqa[..])]).unwrap_err();
    let text = err.to_string();
    assert_eq!(err.0.len(), 2, "{text}");
    assert!(text.contains("root/vqa_task/img2txt/vqa.json: item 0 (id 0): field `GT`: expected one letter A–D (A–E where the item has option_e), found \"Z1\""), "{text}");
    assert!(!text.contains("cooking"), "{text}");
    assert!(text.contains("item 2: field `id`"), "{text}");
    let lone = br#"{"data": [{"id": 1, "GT": "A"}]}"#;
    let err = GroundTruth::from_files([("vqa.json", &lone[..])]).unwrap_err();
    assert!(
        err.to_string().contains(
            "item 0 (id 1): field `task_family`: expected a family name (one of vqa_task"
        ),
        "{err}"
    );

    // Not JSON at all, and the wrong top level.
    let err = GroundTruth::from_files([("a/vqa_task/img2txt/vqa.json", &b"{\"data\": [1,"[..])])
        .unwrap_err();
    assert!(
        matches!(&err.0[0], InputError::Json { line: 1, .. }),
        "{err}"
    );
    let err = GroundTruth::from_files([("a/vqa_task/img2txt/vqa.json", &b"{\"items\": []}"[..])])
        .unwrap_err();
    assert!(
        err.to_string().contains("expected {\"data\": [item, ...]}"),
        "{err}"
    );
    // Nothing to score.
    let err = GroundTruth::from_files([("a/readme.txt", &b""[..])]).unwrap_err();
    assert!(matches!(&err.0[0], InputError::NoGroundTruth { .. }));
    // A broken zip.
    let err = GroundTruth::from_bytes("gt.zip", b"PK\x03\x04garbage").unwrap_err();
    assert!(matches!(&err.0[0], InputError::Zip { .. }), "{err}");
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .output()
        .expect("the CLI runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_json_has_the_documented_shape() {
    let gt = fixture("gt");
    let pred = fixture("pred.jsonl");
    let video = fixture("video_judge.jsonl");
    let (code, out, err) = cli(&[
        "score",
        "switch",
        "--gt",
        gt.to_str().unwrap(),
        "--pred",
        pred.to_str().unwrap(),
        "--video",
        video.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("one JSON document");
    for key in [
        "mcq",
        "multi_select_partial",
        "by_form",
        "by_scenario",
        "openqa",
        "parse_failures",
        "per_item",
        "judge",
        "video",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["mcq"]["overall"]["n"], 13);
    assert_eq!(v["mcq"]["Recovery Reasoning"]["accuracy"], 0.0);
    assert_eq!(v["openqa"]["Task Understanding"]["em"], Value::Null);
    assert_eq!(v["parse_failures"][0]["written"], "A, B");
    // `overall`, then the eight columns in the paper's order.
    let keys: Vec<&str> = v["mcq"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys[0], "overall");
    assert_eq!(keys[1], "Task Understanding");
    assert_eq!(keys[8], "Recovery Reasoning");
    assert_eq!(v["mcq"]["Task Understanding"]["accuracy"], 0.75);
    // 2·(2/5)·(2/5)/(4/5) in floating point; see openqa_exact_match_and_f1.
    close(v["openqa"]["Outcome Verification"]["f1"].as_f64(), 0.4);
}

#[test]
fn cli_table_and_errors() {
    let gt = fixture("gt");
    let pred = fixture("pred.jsonl");
    let (code, out, _) = cli(&[
        "score",
        "switch",
        "--gt",
        gt.to_str().unwrap(),
        "--pred",
        pred.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "| MCQ acc (%) | 75.0 | 50.0 | 100.0 | 0.0 | 100.0 | 0.0 | 100.0 | 0.0 | 61.5 |"
        ),
        "{out}"
    );
    assert!(out.contains("Parse failures: 3"), "{out}");
    let (code, _, err) = cli(&[
        "score",
        "switch",
        "--gt",
        gt.to_str().unwrap(),
        "--pred",
        "/nonexistent/pred.jsonl",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/pred.jsonl"), "{err}");
}

#[test]
fn judge_cases_list_what_the_page_must_send() {
    let gt = GroundTruth::load_path(&fixture("gt")).unwrap();
    let bytes = std::fs::read(fixture("pred.jsonl")).unwrap();
    let preds = read_predictions("pred.jsonl", &bytes).unwrap();
    let pending = knoblab_score::switch::judge_cases(&gt, "pred.jsonl", &preds).unwrap();
    let items: Vec<&str> = pending.iter().map(|p| p.item.as_str()).collect();
    // Seven OpenQA items are predicted; final_state #0 is multiple choice
    // without options, scored 0 without asking.
    assert_eq!(
        items,
        [
            "action/img2txt/openqa#0",
            "recovery/img2txt/openqa#0",
            "recovery/img2txt/openqa#1",
            "verification_action/img2txt/openqa#0",
            "vqa_state/video2txt/openqa#0",
            "vqa_state/video2txt/openqa#1",
        ]
    );
    // A given answer is what the judge grades.
    assert_eq!(pending[5].case.prediction, "Elevator door opens.");
}

#[test]
fn a_vqa_item_with_a_short_answer_schema_is_scored_as_an_open_answer() {
    let vqa = br#"{"data": [{"id": 0, "GT": "green light", "output_schema": {"type": "structured_short_answer"}}]}"#;
    let pred = br#"{"task_family":"vqa_state","form":"img2txt","id":0,"response":"Answer: the green light"}"#;
    let r = score_files(
        [("r/vqa_state/img2txt/vqa.json", &vqa[..])],
        "p.jsonl",
        pred,
    )
    .unwrap();
    assert_eq!(r.mcq.overall.n, 0);
    assert_eq!((r.openqa.n, r.openqa.em), (1, Some(1.0)));
}

#[test]
fn gold_letters_outside_a_to_e_are_refused() {
    let vqa = br#"{"data": [{"id": 0, "GT": "Z", "output_schema": {"type": "choice"}}]}"#;
    let err = GroundTruth::from_files([("r/vqa_state/img2txt/vqa.json", &vqa[..])]).unwrap_err();
    assert!(
        err.to_string()
            .contains("field `GT`: expected one letter A–D"),
        "{err}"
    );
}

#[test]
fn a_lone_dropped_file_without_folders_matches_by_family_and_id() {
    let vqa = br#"{"data": [{"id": 4, "GT": ["A", "D"], "task_family": "recovery",
        "output_schema": {"type": "multi_select"}}]}"#;
    let pred = br#"{"task_family": "recovery", "form": "video2img", "id": 4, "response": "AD"}"#;
    let r = score_files([("vqa.json", &vqa[..])], "p.jsonl", pred).unwrap();
    assert_eq!(r.mcq.overall.correct, 1);
    assert!(r.unmatched.is_empty());
    assert_eq!(r.per_item[0].form, "(unknown form)");
}

#[test]
fn the_text_table_reads_as_the_paper() {
    let report = fixture_report();
    insta::assert_snapshot!(knoblab_score::switch::render_text(&report));
}

/// Predictions of which not one names an item of the ground truth (issue
/// #47): an error naming the file, the first key and a key that would
/// match, not a table of zeros with exit 0. One matching line is enough to
/// score (the others are listed as unmatched, as before).
#[test]
fn predictions_that_match_no_item_are_refused() {
    let gt = GroundTruth::load_path(&fixture("gt")).expect("the fixture tree loads");
    let lines = "{\"task_family\": \"other_task\", \"form\": \"img2txt\", \"id\": 0, \"kind\": \"mcq\", \"response\": \"(A)\"}\n\
                 {\"task_family\": \"other_task\", \"form\": \"img2txt\", \"id\": 1, \"kind\": \"mcq\", \"response\": \"(B)\"}\n";
    let preds = read_predictions("other.jsonl", lines.as_bytes()).expect("predictions parse");
    let err = build_report(&gt, "other.jsonl", &preds).unwrap_err();
    assert!(
        err.0.iter().any(|e| matches!(
            e,
            InputError::NoneMatched {
                count: 2,
                line: 1,
                ..
            }
        )),
        "{err}"
    );

    let dir = std::env::temp_dir().join(format!("knoblab-switch-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pred = dir.join("other.jsonl");
    std::fs::write(&pred, lines).unwrap();
    let gt_arg = fixture("gt").display().to_string();
    let pred_arg = pred.display().to_string();
    let (code, stdout, stderr) = cli(&["score", "switch", "--gt", &gt_arg, "--pred", &pred_arg]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("none of its 2 predictions names an item of the ground truth"),
        "{stderr}"
    );
    assert!(stderr.contains("expected keys such as"), "{stderr}");

    // One line that matches: scored, the other listed as unmatched.
    let mut good = std::fs::read_to_string(fixture("pred.jsonl")).unwrap();
    good = good.lines().next().unwrap().to_string() + "\n" + lines.lines().next().unwrap() + "\n";
    std::fs::write(&pred, good).unwrap();
    let (code, stdout, stderr) = cli(&["score", "switch", "--gt", &gt_arg, "--pred", &pred_arg]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "{stdout}{stderr}");
}
