//! SWITCH as its users meet it: the paper's tables (grouped columns, Table
//! 6 of all responses, Table 3 with Average rows and human ratings), the
//! leaderboard's layout (task × modality, Open / Held / Overall), the public
//! release's tree (rows, a separate answers file, families outside the
//! eight) and the submission row. Every expected number is worked out by
//! hand in the comments; the release fixture's rows are tabled in
//! `tests/fixtures/switch_release/README.md`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use knoblab_score::switch::dataset::{GroundTruth, ItemKind, Split};
use knoblab_score::switch::predictions::read_predictions;
use knoblab_score::switch::report::{ModelAccess, ReportOptions, SwitchReport};
use knoblab_score::switch::{
    build_report, build_report_with, render_layout, score_videos_with, InputError, Layout,
    LoadOptions,
};

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures")
        .join(rel)
}

fn close(actual: Option<f64>, expected: f64) {
    let a = actual.unwrap_or_else(|| panic!("expected {expected}, found no value"));
    assert!((a - expected).abs() < 1e-12, "{a} != {expected}");
}

fn release_report(options: &ReportOptions) -> SwitchReport {
    let gt = GroundTruth::load_path(&fixture("switch_release")).unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(fixture("switch_release/pred.jsonl")).unwrap();
    let preds = read_predictions("pred.jsonl", &bytes).unwrap_or_else(|e| panic!("{e}"));
    build_report_with(&gt, "pred.jsonl", &preds, options).unwrap_or_else(|e| panic!("{e}"))
}

/// The release tree's rows (`m*` MCQ, `t*`/`f*` OpenQA) with their files.
fn release_files() -> Vec<(String, Vec<u8>)> {
    [
        "mcq_hf_1500/data.jsonl",
        "vqa_task/data.jsonl",
        "fine_grained_derived_qa_v2_all_latest/data.jsonl",
        "summary.json",
    ]
    .iter()
    .map(|p| {
        (
            format!("release/{p}"),
            std::fs::read(fixture("switch_release").join(p)).unwrap(),
        )
    })
    .collect()
}

#[test]
fn a_release_tree_with_an_unknown_family_and_a_separate_answers_file_is_read() {
    let gt = GroundTruth::load_path(&fixture("switch_release")).unwrap_or_else(|e| panic!("{e}"));
    // 8 MCQ rows + 2 + 2 OpenQA rows; summary.json, media/ and pred.jsonl are not items.
    assert_eq!(gt.count(ItemKind::Mcq), 8);
    assert_eq!(gt.count(ItemKind::OpenQa), 4);
    let item = |id: &str| {
        gt.items
            .iter()
            .find(|i| i.key.id == id)
            .unwrap_or_else(|| panic!("no item {id}"))
    };
    // Families: from the row (m5: outside the eight, kept) or from the folder (f1).
    assert_eq!(item("m5").key.task_family, "recovery_abnormal");
    assert_eq!(
        item("f1").key.task_family,
        "fine_grained_derived_qa_v2_all_latest"
    );
    // Forms: a code (m2 IT, m3 II), inferred from image options (m4), a video (m7).
    let forms: Vec<&str> = ["m2", "m3", "m4", "m7", "f1"]
        .iter()
        .map(|id| item(id).key.form.as_str())
        .collect();
    assert_eq!(
        forms,
        ["img2txt", "img2img", "img2img", "video2txt", "img2txt"]
    );
    // Golds: from answers.jsonl (m2 C, m5 B), an index (m3: 1 is B), `label`
    // (m4 A), an option's text (m6: "Power" is A).
    let gold = |id: &str| serde_json::to_value(&item(id).gold).unwrap()["value"].clone();
    for (id, letter) in [
        ("m2", "C"),
        ("m5", "B"),
        ("m3", "B"),
        ("m4", "A"),
        ("m6", "A"),
    ] {
        assert_eq!(gold(id), Value::String(letter.into()), "{id}");
    }
    assert_eq!(
        item("m6").options.get(&'A').map(String::as_str),
        Some("Power")
    );
    assert_eq!(item("m2").split, Some(Split::Held));
    assert_eq!(item("m1").media, ["media/m1.png"]);
    // A release row is matched by its id as origin_qa_id.
    assert_eq!(item("t1").origin_qa_id.as_deref(), Some("t1"));
}

#[test]
fn an_answers_file_given_apart_is_joined_by_id_and_missing_answers_name_the_fields() {
    let files = release_files();
    // Without answers.jsonl, m2 and m5 (lines 2 and 5) have no answer.
    let err =
        GroundTruth::from_files(files.iter().map(|(p, b)| (p.as_str(), b.as_slice()))).unwrap_err();
    assert_eq!(err.0.len(), 1, "{err}");
    let text = err.to_string();
    assert!(
        text.contains("release/mcq_hf_1500/data.jsonl: 2 rows (lines 2, 5): fields found: form, image, modality, options, question, question_id, split, task_family; missing: an answer: none of answer, label, GT, gt, gold"),
        "{text}"
    );
    assert!(text.contains("no answers file was given"), "{text}");
    assert!(matches!(err.0[0], InputError::MissingFields { .. }));
    // Given apart (as --answers does), under any name.
    let options = LoadOptions {
        answers: vec![(
            "published/key.jsonl".into(),
            std::fs::read(fixture("switch_release/answers.jsonl")).unwrap(),
        )],
        ..LoadOptions::default()
    };
    let gt = GroundTruth::from_files_with(
        files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(gt.items.len(), 12);
    // An answers file naming an id twice is refused with both places.
    let twice = b"{\"id\": \"m2\", \"answer\": \"C\"}\n{\"id\": \"m2\", \"answer\": \"A\"}\n";
    let options = LoadOptions {
        answers: vec![("a.jsonl".into(), twice.to_vec())],
        ..LoadOptions::default()
    };
    let err = GroundTruth::from_files_with(
        files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
        &options,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("item answer m2 appears twice: in a.jsonl:1 and in a.jsonl:2"),
        "{err}"
    );
}

#[test]
fn families_outside_the_eight_are_scored_apart_and_in_overall_only_when_asked() {
    let r = release_report(&ReportOptions::default());
    // In Overall: m1 ✓ m2 ✗ m3 ✓ m4 ✗ m6 ✓ m7 ✓ m8 ✓ = 5/7 (m5 is recovery_abnormal).
    close(r.mcq.overall.accuracy, 5.0 / 7.0);
    assert_eq!(r.mcq.overall.n, 7);
    // State Perception (vqa_state): m1 ✓ m2 ✗ m8 ✓ = 2/3.
    close(
        r.mcq.columns.get("State Perception").unwrap().accuracy,
        2.0 / 3.0,
    );
    // recovery_abnormal: m5 ✓ = 1/1; fine_grained…: f1 EM 1, f2 EM 1 (3 = 3).
    let extra = r.extra_families.get("recovery_abnormal").unwrap();
    close(extra.mcq.accuracy, 1.0);
    assert!(!extra.in_overall);
    let fine = r
        .extra_families
        .get("fine_grained_derived_qa_v2_all_latest")
        .unwrap();
    close(fine.openqa.em, 1.0);
    assert_eq!(fine.openqa.n, 2);
    // OpenQA Overall: t1 (EM 1, F1 1), t2 ("setting the temperature" vs
    // "temperature": EM 0; P 1/2, R 1, F1 2/3): EM 1/2, F1 (1 + 2/3)/2 = 5/6.
    close(r.openqa.em, 0.5);
    close(r.openqa.f1, 5.0 / 6.0);
    // The model from the first line.
    assert_eq!(r.model.name, "tiny-vlm");
    assert_eq!(r.model.access, Some(ModelAccess::OpenWeight));
    assert_eq!(r.model.group, Some("Open-weight models"));

    // Asked: Overall 6/8 (m5 ✓ joins); OpenQA EM (1 + 0 + 1 + 1)/4 = 3/4,
    // F1 (1 + 2/3 + 1 + 1)/4 = 11/12.
    let r = release_report(&ReportOptions {
        include_extra_families: true,
        ..ReportOptions::default()
    });
    close(r.mcq.overall.accuracy, 0.75);
    close(r.openqa.em, 0.75);
    close(r.openqa.f1, 11.0 / 12.0);
    assert!(
        r.extra_families
            .get("recovery_abnormal")
            .unwrap()
            .in_overall
    );
}

#[test]
fn the_leaderboard_layout_pools_the_items_of_both_splits_in_overall() {
    let r = release_report(&ReportOptions::default());
    let b = &r.leaderboard;
    assert!(b.splits_known);
    assert_eq!(b.items_without_split, 0);
    // The leaderboard's eight columns first, then the others present, then All tasks.
    assert_eq!(b.columns[0], "1/ Task-Aware VQA (a) UI State Rec. (IT)");
    assert_eq!(b.columns[7], "5/ Verification (b) Expected State (II)");
    assert_eq!(
        &b.columns[8..],
        [
            "5/ Verification (b) Expected State (VT)",
            "recovery_abnormal (IT)",
            "All tasks"
        ]
    );
    let rows: Vec<&str> = b.mcq.0.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(rows, ["Open", "Held", "Overall"]);
    let cell = |row: &str, col: &str| *b.mcq.get(row).unwrap().get(col).unwrap();
    let ui_state = "1/ Task-Aware VQA (a) UI State Rec. (IT)";
    // Open: m1 ✓ = 1/1. Held: m2 ✗ m8 ✓ = 1/2. Overall pools the three: 2/3
    // (the mean of the rows would be 3/4).
    close(cell("Open", ui_state).accuracy, 1.0);
    close(cell("Held", ui_state).accuracy, 0.5);
    close(cell("Overall", ui_state).accuracy, 2.0 / 3.0);
    assert_eq!(cell("Overall", ui_state).n, 3);
    // 4/ State Transition (II): m3 ✓ (open), m4 ✗ (held): 1, 0, 1/2.
    close(cell("Held", "4/ State Transition (II)").accuracy, 0.0);
    close(cell("Overall", "4/ State Transition (II)").accuracy, 0.5);
    // 3/ Action (IT): only m6 (held) — Open is empty, not 0.
    assert_eq!(cell("Open", "3/ Action (IT)").accuracy, None);
    // All tasks (families in Overall): Open m1 m3 m7 = 3/3; Held m2 ✗ m4 ✗ m6 ✓
    // m8 ✓ = 2/4; Overall 5/7.
    close(cell("Open", "All tasks").accuracy, 1.0);
    close(cell("Held", "All tasks").accuracy, 0.5);
    close(cell("Overall", "All tasks").accuracy, 5.0 / 7.0);
    // OpenQA: Open t1 (1, 1); Held t2 (0, 2/3); Overall EM 1/2, F1 5/6.
    let open = |row: &str| *b.openqa.get(row).unwrap();
    close(open("Held").f1, 2.0 / 3.0);
    close(open("Overall").f1, 5.0 / 6.0);

    // The text and the CLI's layout option show the same cells.
    let text = render_layout(&r, Layout::Leaderboard);
    assert!(
        text.contains(
            "| Overall | 66.7 | – | 100.0 | – | 50.0 | – | – | – | 100.0 | 100.0 | 71.4 |"
        ),
        "{text}"
    );
}

#[test]
fn the_submission_row_has_the_split_results_as_fractions() {
    let r = release_report(&ReportOptions {
        submitted_by: Some("lab".into()),
        submission_time: Some("2026-12-01T09:00:00Z".into()),
        ..ReportOptions::default()
    });
    let doc = serde_json::to_value(&r.submission).unwrap();
    assert_eq!(doc["model_name"], "tiny-vlm");
    assert_eq!(doc["model_access"], "open_weight");
    assert_eq!(doc["submitted_by"], "lab");
    assert_eq!(doc["submission_time"], "2026-12-01T09:00:00Z");
    // mcq_open 3/3, mcq_closed 2/4; openqa_open t1 (1, 1), openqa_closed t2 (0, 2/3).
    assert_eq!(doc["results"]["mcq_open"]["acc"], 1.0);
    assert_eq!(doc["results"]["mcq_closed"]["acc"], 0.5);
    assert_eq!(doc["results"]["openqa_open"]["em"], 1.0);
    assert_eq!(doc["results"]["openqa_closed"]["em"], 0.0);
    close(doc["results"]["openqa_closed"]["f1"].as_f64(), 2.0 / 3.0);
    let keys: Vec<&str> = doc["results"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["mcq_open", "mcq_closed", "openqa_open", "openqa_closed"]
    );
    // The export writes the same row.
    let exported: Value =
        serde_json::from_str(&knoblab_score::export::switch_submission(&r.submission)).unwrap();
    assert_eq!(exported, doc);
}

#[test]
fn splits_come_from_a_field_a_folder_or_an_option() {
    let vqa = |id: u32, split: Option<&str>| {
        let split = split.map_or(String::new(), |s| format!(", \"split\": \"{s}\""));
        format!(
            "{{\"data\": [{{\"id\": {id}, \"GT\": \"A\", \"query\": \"q\\nA. x\\nB. y\"{split}}}]}}"
        )
    };
    let a = vqa(0, None);
    let b = vqa(1, Some("closed"));
    let c = vqa(2, None);
    let files = [
        // The folder `open/` names the split.
        ("root/open/vqa_task/img2txt/vqa.json", a.as_bytes()),
        // The field wins over the option below ("closed" is the held-out split).
        ("root/x/vqa_task/img2img/vqa.json", b.as_bytes()),
        // The option maps this file.
        ("root/x/vqa_task/video2txt/vqa.json", c.as_bytes()),
    ];
    let options = LoadOptions {
        splits: vec![
            LoadOptions::parse_split("held=video2txt/").unwrap(),
            LoadOptions::parse_split("img2img/=open").unwrap(),
        ],
        ..LoadOptions::default()
    };
    let gt = GroundTruth::from_files_with(files, &options).unwrap_or_else(|e| panic!("{e}"));
    let splits: Vec<(String, Option<Split>)> = gt
        .items
        .iter()
        .map(|i| (i.key.form.clone(), i.split))
        .collect();
    assert_eq!(
        splits,
        [
            ("img2img".to_string(), Some(Split::Held)),
            ("img2txt".to_string(), Some(Split::Open)),
            ("video2txt".to_string(), Some(Split::Held)),
        ]
    );
    assert!(LoadOptions::parse_split("train=x/")
        .unwrap_err()
        .to_string()
        .contains("neither side is a split"));
    // A split value that is not one is an error naming the valid ones.
    let bad = vqa(3, Some("train"));
    let err =
        GroundTruth::from_files([("r/vqa_task/img2txt/vqa.json", bad.as_bytes())]).unwrap_err();
    assert!(
        err.to_string()
            .contains("field `split`: expected open, public, dev (the open split)"),
        "{err}"
    );
}

fn fixture_report() -> SwitchReport {
    let gt = GroundTruth::load_path(&fixture("switch/gt")).unwrap();
    let bytes = std::fs::read(fixture("switch/pred.jsonl")).unwrap();
    let preds = read_predictions("pred.jsonl", &bytes).unwrap();
    build_report(&gt, "pred.jsonl", &preds).unwrap()
}

#[test]
fn table6_shares_are_of_all_responses_and_sum_to_one_with_contamination_present() {
    let r = fixture_report();
    let j = r.judge.expect("the predictions carry judge outputs");
    // The 7 OpenQA responses: exact 2 (vqa_state #1, action #0), paraphrase 1
    // (vqa_state #0), partial 1 (recovery #0), contradiction 0, complete miss
    // 0, multiple-choice contamination 1 (final_state #0), no verdict 2
    // (recovery #1 incomplete, verification_action #0 judge failure).
    assert_eq!(j.responses, 7);
    let counts: Vec<(&str, usize)> = j
        .table6_counts
        .0
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        counts,
        [
            ("Overall Correct", 3),
            ("Exact", 2),
            ("Paraphrase", 1),
            ("Partial", 1),
            ("Contradiction", 0),
            ("Complete Miss", 0),
            ("MC contamination", 1),
            ("No verdict", 2)
        ]
    );
    // Overall Correct = Exact + Paraphrase = 2/7 + 1/7 = 3/7.
    close(*j.table6.get("Overall Correct").unwrap(), 3.0 / 7.0);
    close(*j.table6.get("Exact").unwrap(), 2.0 / 7.0);
    close(*j.table6.get("MC contamination").unwrap(), 1.0 / 7.0);
    // Every share but Overall Correct: 2 + 1 + 1 + 0 + 0 + 1 + 2 = 7 of 7.
    let sum: f64 = j.table6.0.iter().skip(1).map(|(_, v)| v.unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-12, "{sum}");
    // KnobLab's own shares stay of the 4 verdicts (exact 2/4): a different number.
    assert_eq!(j.answer_match_share.get("exact"), Some(&Some(0.5)));
    let text = knoblab_score::switch::render_text(&fixture_report());
    assert!(text.contains("Table 6: OpenQA judge diagnostics"), "{text}");
    assert!(
        text.contains("| 42.9 | 28.6 | 14.3 | 14.3 | 0.0 | 0.0 | 14.3 | 28.6 |"),
        "{text}"
    );
    assert!(text.contains("KnobLab's diagnostic: shares of the verdicts only"));
}

#[test]
fn the_paper_groups_its_eight_columns_in_three() {
    let r = fixture_report();
    let groups: Vec<(&str, usize)> = r
        .paper_groups
        .iter()
        .map(|g| (g.name, g.columns.len()))
        .collect();
    assert_eq!(
        groups,
        [
            ("Interface Understanding", 3),
            ("Action & Consequence Reasoning", 3),
            ("Closed-loop Reflection", 2)
        ]
    );
    assert_eq!(
        r.paper_groups[2].columns,
        ["Outcome Verification", "Recovery Reasoning"]
    );
    // The model's access from an option puts its row under the group.
    let gt = GroundTruth::load_path(&fixture("switch/gt")).unwrap();
    let bytes = std::fs::read(fixture("switch/pred.jsonl")).unwrap();
    let preds = read_predictions("pred.jsonl", &bytes).unwrap();
    let r = build_report_with(
        &gt,
        "runs/pred.jsonl",
        &preds,
        &ReportOptions {
            model_access: Some(ModelAccess::ClosedApi),
            ..ReportOptions::default()
        },
    )
    .unwrap();
    // No model named in the file: its name without folders and extension.
    assert_eq!(r.model.name, "pred");
    let text = render_layout(&r, Layout::Paper);
    assert!(
        text.contains("Model: pred (Proprietary / API models)"),
        "{text}"
    );
    assert!(
        text.contains("| group | Interface Understanding |  |  | Action & Consequence Reasoning |  |  | Closed-loop Reflection |  |  |"),
        "{text}"
    );
}

#[test]
fn table3_has_an_average_row_per_input_form_and_a_human_column() {
    let judged = std::fs::read(fixture("switch/video_judge.jsonl")).unwrap();
    let human = std::fs::read(fixture("switch/video_human.jsonl")).unwrap();
    let v = score_videos_with(
        "video_judge.jsonl",
        &judged,
        Some(("video_human.jsonl", &human)),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(v.has_human);
    let forms: Vec<(&str, usize)> = v
        .averages
        .iter()
        .map(|a| (a.input_form.as_str(), a.n))
        .collect();
    // img2video: gen-a's 2 videos and gen-b's 1; video2video: gen-a's 1.
    assert_eq!(forms, [("img2video", 3), ("video2video", 1)]);
    let avg = &v.averages[0];
    // The mean of the two model rows: gen-a (SF 3, CC 4, PC 3, EO 4, overall
    // 3.5) and gen-b (1, 2, 1, 1, 1): SF 2, CC 3, PC 2, EO 2.5, overall 2.25.
    assert_eq!(
        (
            avg.scene_fidelity,
            avg.control_correctness,
            avg.procedure_correctness,
            avg.execution_observability,
            avg.overall_score
        ),
        (2.0, 3.0, 2.0, 2.5, 2.25)
    );
    // Human: gen-a (4 + 3)/2 = 3.5, gen-b 2; their Average (3.5 + 2)/2 = 2.75.
    assert_eq!(v.rows[0].human, Some(3.5));
    assert_eq!(v.rows[2].human, Some(2.0));
    assert_eq!(avg.human, Some(2.75));
    // video2video has no human rating: its cell is empty, not 0.
    assert_eq!(v.rows[1].human, None);
    assert_eq!(v.averages[1].human, None);
    assert_eq!(v.averages[1].overall_score, 5.0);
    let text = render_layout(
        &SwitchReport {
            video: Some(v),
            ..SwitchReport::default()
        },
        Layout::Paper,
    );
    assert!(
        text.contains("| Average | img2video | 3 | 2.00 | 3.00 | 2.00 | 2.50 | 2.25 | 2.75 |"),
        "{text}"
    );
    // Without human judgements there is no human column.
    let v = score_videos_with("video_judge.jsonl", &judged, None).unwrap();
    assert!(!v.has_human);
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
fn cli_layouts_json_and_the_submission() {
    let gt = fixture("switch_release");
    let pred = fixture("switch_release/pred.jsonl");
    let base = [
        "score",
        "switch",
        "--gt",
        gt.to_str().unwrap(),
        "--pred",
        pred.to_str().unwrap(),
    ];
    let (code, out, err) = cli(&[&base[..], &["--layout", "leaderboard"]].concat());
    assert_eq!(code, 0, "{err}");
    // Open: 1/ m1 ✓ 100; 4/ (II) m3 ✓ 100; (VT) m7 ✓; recovery_abnormal m5 ✓; All 3/3.
    assert!(
        out.contains("| Open | 100.0 | – | – | – | 100.0 | – | – | – | 100.0 | 100.0 | 100.0 |"),
        "{out}"
    );
    let (code, out, err) = cli(&[
        &base[..],
        &[
            "--json",
            "--model-access",
            "closed_api",
            "--submitted-by",
            "lab",
            "--submission-time",
            "2026-12-01T09:00:00Z",
            "--include-extra-families",
        ],
    ]
    .concat());
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["submission"]["model_access"], "closed_api");
    assert_eq!(v["submission"]["submission_time"], "2026-12-01T09:00:00Z");
    // With the extra families: mcq_open m1 m3 m5 m7 = 4/4; All tasks Overall 6/8.
    assert_eq!(v["submission"]["results"]["mcq_open"]["acc"], 1.0);
    assert_eq!(
        v["leaderboard"]["mcq"]["Overall"]["All tasks"]["accuracy"],
        0.75
    );
    assert_eq!(v["paper_groups"][0]["name"], "Interface Understanding");
    assert_eq!(v["model"]["group"], "Proprietary / API models");
    // A bad option is refused with what is valid.
    let (code, _, err) = cli(&[&base[..], &["--layout", "wide"]].concat());
    assert_ne!(code, 0);
    assert!(err.contains("expected paper or leaderboard"), "{err}");
}

#[test]
fn the_page_scores_a_dropped_release_folder_in_the_leaderboard_layout() {
    use knoblab_app::job::{run, InputFile, Job, JobOptions, Scorers, SwitchOptions};
    let root = fixture("switch_release");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root.parent().unwrap()).unwrap();
                files.push(InputFile {
                    path: rel.display().to_string(),
                    bytes: std::fs::read(&p).unwrap(),
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let options = JobOptions {
        switch: SwitchOptions {
            layout: Layout::Leaderboard,
            ..SwitchOptions::default()
        },
        ..JobOptions::default()
    };
    let out = run(
        &Job {
            files,
            options,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.reports.len(), 1, "pred.jsonl is the one results file");
    let view = &out.reports[0];
    let r = release_report(&ReportOptions::default());
    let doc = serde_json::to_value(&r).unwrap();
    // Every aggregate cell is the CLI document's number at its pointer.
    let mut compared = 0;
    for t in &view.tables {
        for row in &t.rows {
            for c in row {
                if let (Some(p), Some(v)) = (&c.pointer, c.value) {
                    assert_eq!(doc.pointer(p).and_then(Value::as_f64), Some(v), "{p}");
                    compared += 1;
                }
            }
        }
    }
    // 3 rows × 11 leaderboard columns, less the empty cells, and more tables.
    assert!(compared > 20, "{compared}");
    let board = view
        .tables
        .iter()
        .find(|t| t.id == "switch-leaderboard")
        .expect("the leaderboard table");
    let rows: Vec<&str> = board.rows.iter().map(|r| r[0].text.as_str()).collect();
    assert_eq!(rows, ["Open", "Held", "Overall"]);
    // The page's downloads: the submission row and the layout's rows.
    let labels: Vec<&str> = out.downloads.iter().map(|d| d.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "Submission row (JSON)",
            "leaderboard layout (CSV)",
            "leaderboard layout (Markdown)",
            "leaderboard layout (LaTeX rows)"
        ]
    );
    let sub: Value = serde_json::from_str(&out.downloads[0].text).unwrap();
    assert_eq!(sub["results"], doc["submission"]["results"]);
    // The CSV has a row per split: Overall's All tasks is 5/7.
    let csv = &out.downloads[1].text;
    assert!(csv.contains("tiny-vlm · Held"), "{csv}");
    assert!(
        csv.lines()
            .nth(3)
            .unwrap()
            .ends_with(&(5.0f64 / 7.0).to_string()),
        "{csv}"
    );
}

#[test]
fn an_answers_file_may_be_one_object_or_one_line() {
    let files = release_files();
    let gt_with = |name: &str, bytes: &[u8]| {
        let options = LoadOptions {
            answers: vec![(name.into(), bytes.to_vec())],
            ..LoadOptions::default()
        };
        GroundTruth::from_files_with(
            files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
            &options,
        )
    };
    // One object id → answer: m2 is C, m5 is B.
    let gt = gt_with("key.json", br#"{"m2": "C", "m5": "B"}"#).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(gt.items.len(), 12);
    // One line answering m2 only: m5 (line 5) is still missing, named alone.
    let err = gt_with("key.jsonl", br#"{"id": "m2", "answer": "C"}"#).unwrap_err();
    assert!(err.to_string().contains("1 row (line 5)"), "{err}");
    assert!(
        err.to_string()
            .contains("the answers file has no answer for their ids"),
        "{err}"
    );
}

/// The release fixture's three runs, in the order given: `pred.jsonl`
/// (tiny-vlm, open weight), `api-vlm.jsonl` (closed API) and
/// `mystery-vlm.jsonl` (access not given); their numbers are worked out in
/// `tests/fixtures/switch_runs/README.md`.
fn three_runs() -> Vec<(String, SwitchReport)> {
    let gt = GroundTruth::load_path(&fixture("switch_release")).unwrap_or_else(|e| panic!("{e}"));
    [
        "switch_release/pred.jsonl",
        "switch_runs/api-vlm.jsonl",
        "switch_runs/mystery-vlm.jsonl",
    ]
    .iter()
    .map(|p| {
        let bytes = std::fs::read(fixture(p)).unwrap();
        let preds = read_predictions(p, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let r = build_report(&gt, p, &preds).unwrap_or_else(|e| panic!("{e}"));
        (p.to_string(), r)
    })
    .collect()
}

#[test]
fn a_leaderboard_of_several_runs_lists_them_under_the_papers_access_groups() {
    use knoblab_app::job::{run, InputFile, Job, Scorers};
    use knoblab_score::view::grouped;
    // The page's path: the release folder and the two other runs dropped
    // together; the leaderboard's rows come in the order dropped.
    let root = fixture("switch_release");
    let mut files: Vec<InputFile> = release_files()
        .into_iter()
        .map(|(path, bytes)| InputFile { path, bytes })
        .collect();
    files.push(InputFile {
        path: "release/answers.jsonl".into(),
        bytes: std::fs::read(root.join("answers.jsonl")).unwrap(),
    });
    for p in [
        "switch_release/pred.jsonl",
        "switch_runs/mystery-vlm.jsonl",
        "switch_runs/api-vlm.jsonl",
    ] {
        files.push(InputFile {
            path: p.into(),
            bytes: std::fs::read(fixture(p)).unwrap(),
        });
    }
    let out = run(
        &Job {
            files,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let board = out
        .leaderboards
        .iter()
        .find(|b| b.benchmark == "SWITCH")
        .expect("a SWITCH leaderboard");
    assert_eq!(board.rows.len(), 3);
    let groups = grouped(&board.rows);
    // (heading, models, Overall) per group.
    type Listed<'a> = (Option<&'a str>, Vec<&'a str>, Vec<Option<f64>>);
    let listed: Vec<Listed> = groups
        .iter()
        .map(|g| {
            (
                g.label,
                g.rows.iter().filter_map(|r| r.model.as_deref()).collect(),
                g.rows.iter().map(|r| r.values[0]).collect(),
            )
        })
        .collect();
    // Proprietary first, open weight next, the model of unknown access
    // last, whatever the order dropped; Overall 6/7, 5/7 and 3/7.
    assert_eq!(
        listed,
        [
            (
                Some("Proprietary / API models"),
                vec!["api-vlm"],
                vec![Some(6.0 / 7.0)]
            ),
            (
                Some("Open-weight models"),
                vec!["tiny-vlm"],
                vec![Some(5.0 / 7.0)]
            ),
            (
                Some("Access not given"),
                vec!["mystery-vlm"],
                vec![Some(3.0 / 7.0)]
            ),
        ]
    );
    // A board of one benchmark without access (EPIC, FineState) stays one
    // unlabelled list: no row of another benchmark carries a group.
    let mut plain = board.rows.clone();
    for r in &mut plain {
        r.group = None;
    }
    assert_eq!(grouped(&plain).len(), 1);
    assert_eq!(grouped(&plain)[0].label, None);
}

#[test]
fn the_exports_of_several_runs_keep_the_groups_and_the_fixtures_numbers() {
    use knoblab_app::documents::switch::runs_rows;
    use knoblab_score::export::{csv, latex_rows, markdown, table_latex, table_markdown};
    use knoblab_score::view::switch::runs_table;
    let rows = runs_rows(&three_runs(), Layout::Paper).unwrap();
    // CSV: a group column, fractions at full precision, groups in order.
    let text = csv(&rows);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "file,model,group,Overall,Task Understanding,State Perception,UI Recognition,Action Reasoning,Sequential Action Quantification,State Transition Prediction,Outcome Verification,Recovery Reasoning"
    );
    // api-vlm: SP 3/3, STP 1/2, AR 1/1, OV 1/1; no MCQ item of the others.
    assert_eq!(
        lines[1],
        format!(
            "switch_runs/api-vlm.jsonl,api-vlm,Proprietary / API models,{},,1,,1,,0.5,1,",
            6.0 / 7.0
        )
    );
    assert!(lines[2].starts_with("switch_release/pred.jsonl,tiny-vlm,Open-weight models,"));
    // mystery-vlm: SP 1/3, STP 1/2, AR 1/1, OV 0/1.
    assert_eq!(
        lines[3],
        format!(
            "switch_runs/mystery-vlm.jsonl,mystery-vlm,Access not given,{},,{},,1,,0.5,0,",
            3.0 / 7.0,
            1.0 / 3.0
        )
    );
    // Markdown: a bold heading row per group above its rows.
    let md = markdown(&rows);
    let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s} not in\n{md}"));
    assert!(at("| **Proprietary / API models** |") < at("| api-vlm | 85.7 | – | 100.0 |"));
    assert!(at("| api-vlm |") < at("| **Open-weight models** |"));
    assert!(at("| **Open-weight models** |") < at("| tiny-vlm | 71.4 | – | 66.7 |"));
    assert!(at("| **Access not given** |") < at("| mystery-vlm | 42.9 | – | 33.3 |"));
    // LaTeX rows: the group headings across the 10 columns, as the paper.
    let tex = latex_rows(&rows);
    assert!(tex.starts_with(
        "\\multicolumn{10}{l}{\\textit{Proprietary / API models}} \\\\\napi-vlm & 85.7 & -- & 100.0 & -- & 100.0 & -- & 50.0 & 100.0 & -- \\\\\n"
    ), "{tex}");
    // The whole of Table 1 with a row per model: the column groups over
    // their skills (Interface Understanding over columns 3–5, Action &
    // Consequence Reasoning 6–8, Closed-loop Reflection 9–10).
    let table = runs_table(&rows, Layout::Paper);
    let tex = table_latex(&table);
    assert!(tex.contains(" &  & \\multicolumn{3}{c}{Interface Understanding} & \\multicolumn{3}{c}{Action \\& Consequence Reasoning} & \\multicolumn{2}{c}{Closed-loop Reflection} \\\\\n\\cmidrule(lr){3-5} \\cmidrule(lr){6-8} \\cmidrule(lr){9-10}\n"), "{tex}");
    let header = tex.find("run & Overall & Task Understanding").unwrap();
    let open = tex
        .find("\\multicolumn{10}{l}{\\textit{Open-weight models}} \\\\\ntiny-vlm & 71.4")
        .unwrap();
    assert!(
        tex.find("Interface Understanding").unwrap() < header && header < open,
        "{tex}"
    );
    assert!(tex.ends_with("\\bottomrule\n\\end{tabular}\n\\end{table}\n"));
    assert!(table_markdown(&table).contains("| **Access not given** |"));
}

#[test]
fn cli_exports_the_layouts_tables_and_a_leaderboard_of_several_runs() {
    let gt = fixture("switch_release");
    let pred = fixture("switch_release/pred.jsonl");
    let api = fixture("switch_runs/api-vlm.jsonl");
    let mystery = fixture("switch_runs/mystery-vlm.jsonl");
    let one = [
        "score",
        "switch",
        "--gt",
        gt.to_str().unwrap(),
        "--pred",
        pred.to_str().unwrap(),
    ];
    // One run, the paper's tables as Markdown: Table 1 with tiny-vlm under
    // its group (5/7 = 71.4, State Perception 2/3 = 66.7), Table 2, ….
    let (code, out, err) = cli(&[&one[..], &["--export", "markdown"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("### Table 1 layout: MCQ accuracy by skill\n\n| Model | Overall |"),
        "{out}"
    );
    assert!(out.contains("| **Open-weight models** |"), "{out}");
    assert!(out.contains("| tiny-vlm | 71.4 | – | 66.7 |"), "{out}");
    assert!(out.contains("### Table 2 layout: OpenQA"), "{out}");
    assert!(out.contains("### Families outside the eight"), "{out}");
    // The leaderboard's tables as CSV: fractions at full precision; Open
    // is m1 m3 m7 (and m5 outside the eight) all right.
    let (code, out, err) =
        cli(&[&one[..], &["--layout", "leaderboard", "--export", "csv"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# Leaderboard layout: MCQ accuracy of tiny-vlm\nsplit,1/ Task-Aware VQA (a) UI State Rec. (IT),2/ UI Compr. (IT),"), "{out}");
    assert!(out.contains("\nOpen,1,,,,1,,,,1,1,1\n"), "{out}");
    // LaTeX of the paper's layout: each table a table environment.
    let (code, out, err) = cli(&[&one[..], &["--export", "latex"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "\\begin{table}[t]\n\\centering\n\\caption{Table 1 layout: MCQ accuracy by skill}"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "\\multicolumn{10}{l}{\\textit{Open-weight models}} \\\\\ntiny-vlm & 71.4 & -- & 66.7"
        ),
        "{out}"
    );
    // Several runs: one table, grouped by access whatever the order given.
    let three = [
        &one[..],
        &[
            "--pred",
            mystery.to_str().unwrap(),
            "--pred",
            api.to_str().unwrap(),
        ],
    ]
    .concat();
    let (code, out, err) = cli(&[&three[..], &["--export", "latex"]].concat());
    assert_eq!(code, 0, "{err}");
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s} not in\n{out}"));
    assert!(
        at("{Proprietary / API models}} \\\\\napi-vlm & 85.7")
            < at("{Open-weight models}} \\\\\ntiny-vlm & 71.4")
    );
    assert!(at("tiny-vlm & 71.4") < at("{Access not given}} \\\\\nmystery-vlm & 42.9"));
    let (code, out, err) = cli(&[&three[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(3));
    assert_eq!(v["leaderboard"][0]["model"], "api-vlm");
    assert_eq!(v["leaderboard"][0]["group"], "Proprietary / API models");
    assert_eq!(v["leaderboard"][2]["Overall"], 3.0 / 7.0);
    // A model's name or access cannot be given for several runs; an
    // unknown format is refused with what is valid.
    let (code, _, err) = cli(&[&three[..], &["--model-access", "open_weight"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("name one model, but 3 --pred files"), "{err}");
    let (code, _, err) = cli(&[&one[..], &["--export", "xlsx"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("expected csv, markdown or latex"), "{err}");
}
