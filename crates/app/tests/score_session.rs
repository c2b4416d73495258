//! A scoring job as the page runs it: dropped fixture files in, report
//! views out, every displayed aggregate equal to the official numbers (or
//! the CLI's JSON) at the cell's pointer.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::path::Path;

use knoblab_app::job::{run, InputFile, Job, JobOptions, Scorers};
use knoblab_score::detect::Format;
use knoblab_score::view::{ReportView, Shape};
use serde_json::Value;

const OFFICIAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/official");
const LOCAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

/// Every file under `dir`, with paths starting at `dir`'s own name (as a
/// dropped folder gives them).
fn folder(dir: &str) -> Vec<InputFile> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<InputFile>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root.parent().unwrap_or(root)).unwrap_or(&p);
                out.push(InputFile {
                    path: rel.to_string_lossy().replace('\\', "/"),
                    bytes: std::fs::read(&p).unwrap_or_default(),
                });
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(dir), Path::new(dir), &mut out);
    out
}

fn file(path: &str, as_name: &str) -> InputFile {
    InputFile {
        path: as_name.into(),
        bytes: std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}")),
    }
}

/// Checks every cell with a pointer against `doc`; returns how many.
fn cells_match(view: &ReportView, doc: &Value) -> usize {
    let mut n = 0;
    for t in &view.tables {
        for row in &t.rows {
            for c in row {
                if let (Some(p), Some(v)) = (&c.pointer, c.value) {
                    let want = doc.pointer(p).and_then(Value::as_f64);
                    assert_eq!(want, Some(v), "{} {p}", t.id);
                    n += 1;
                }
            }
        }
    }
    n
}

#[test]
fn epic_raw_outputs_with_the_dropped_gt_folder_equal_the_official_summary() {
    let mut files = folder(&format!("{OFFICIAL}/epic/dataset/annotation/EPIC_Bench"));
    files.push(file(
        &format!("{OFFICIAL}/epic/raw/Qwen3-VL/probe-q3.jsonl"),
        "Qwen3-VL/probe-q3.jsonl",
    ));
    files.push(file(
        &format!("{OFFICIAL}/epic/raw/Custom/probe-auto.jsonl"),
        "probe-auto.jsonl",
    ));
    let mut stages = Vec::new();
    let job = Job {
        files,
        scorers: Scorers::all(),
        ..Job::default()
    };
    let out = run(&job, &mut |p| stages.push(p.stage.clone()));
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.reports.len(), 2);
    assert_eq!(
        stages.first().map(String::as_str),
        Some("reading ground truth")
    );
    assert_eq!(stages.last().map(String::as_str), Some("done"));
    for (report, official) in out
        .reports
        .iter()
        .zip(["Qwen3-VL/probe-q3", "Custom/probe-auto"])
    {
        let doc: Value = serde_json::from_slice(
            &std::fs::read(format!("{OFFICIAL}/epic/scores/{official}_full.json"))
                .unwrap_or_default(),
        )
        .unwrap_or_default();
        // The corrected summary is not in the official file; compare the official cells.
        let mut n = 0;
        for t in &report.tables {
            for c in t.rows.iter().flatten() {
                if let (Some(p), Some(v)) = (&c.pointer, c.value) {
                    if p.starts_with("/summary") {
                        assert_eq!(
                            doc.pointer(p).and_then(Value::as_f64),
                            Some(v),
                            "{official} {p}"
                        );
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 10, "{official}: only {n} cells compared");
    }
    let q3 = &out.reports[0];
    assert_eq!(q3.detected, "EPIC-Bench raw outputs, 13 samples");
    assert!(
        q3.notes[0].contains("13 of 13 samples found their mask"),
        "{:?}",
        q3.notes
    );
    assert_eq!(q3.items.rows.len(), 13);
    // Every sample's drill-down (scored again when an item is opened, as
    // the page asks its worker) draws its GT mask; path samples their path.
    assert!(q3.items.on_demand);
    let drills: Vec<knoblab_score::view::ItemView> = (0..13)
        .map(|i| {
            knoblab_app::job::epic_item(&job, "Qwen3-VL/probe-q3.jsonl", i)
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    for (row, drill) in q3.items.rows.iter().zip(&drills) {
        assert_eq!(
            (&drill.id, &drill.summary, drill.score),
            (&row.id, &row.summary, row.score)
        );
        assert!(
            drill.details.iter().any(|(k, _)| k == "reply"),
            "{:?}",
            drill.details
        );
    }
    let has = |r: &knoblab_score::view::ItemView, f: fn(&Shape) -> bool| {
        r.overlay.as_ref().is_some_and(|o| o.shapes.iter().any(f))
    };
    assert!(drills
        .iter()
        .all(|r| has(r, |s| matches!(s, Shape::Mask { .. }))));
    let paths = drills
        .iter()
        .filter(|r| has(r, |s| matches!(s, Shape::Path { .. })))
        .count();
    assert_eq!(paths, 2, "FeasiblePath Ego and Exo");
    // The missing mask of tl_cat_003 is named.
    assert!(
        out.reports[1].notes[0].contains("tl_cat_003"),
        "{:?}",
        out.reports[1].notes
    );
    assert_eq!(out.leaderboards.len(), 1);
    assert_eq!(out.leaderboards[0].rows.len(), 2);
}

#[test]
fn epic_without_ground_truth_says_what_to_drop() {
    let files = vec![file(
        &format!("{OFFICIAL}/epic/raw/Custom/probe-auto.jsonl"),
        "probe-auto.jsonl",
    )];
    let out = run(
        &Job {
            files,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert_eq!(out.failures.len(), 1);
    assert!(
        out.failures[0]
            .message
            .contains("Drop the EPIC_Bench folder"),
        "{}",
        out.failures[0].message
    );
}

#[test]
fn finestate_json_lines_with_the_dataset_folder_equal_the_report_json() {
    let mut files = folder(&format!("{OFFICIAL}/finestate/dataset"));
    files.push(file(
        concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/data/samples/finestate/predictions.jsonl"
        ),
        "predictions.jsonl",
    ));
    let options = JobOptions {
        finestate_model: Some("google/gemini-2.5-flash".into()),
        ..JobOptions::default()
    };
    let out = run(
        &Job {
            files: files.clone(),
            options,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let [report] = out.reports.as_slice() else {
        panic!("{} reports", out.reports.len())
    };
    // The official numbers of the same run.
    let expected: Value = serde_json::from_slice(
        &std::fs::read(format!("{OFFICIAL}/finestate/expected_runs_py.json")).unwrap_or_default(),
    )
    .unwrap_or_default();
    let official = expected
        .pointer("/runs/baseline/google~1gemini-2.5-flash")
        .cloned();
    let mut n = 0;
    for c in report.tables[0].rows.iter().flatten() {
        if let (Some(p), Some(v)) = (&c.pointer, c.value) {
            if let Some(official) = &official {
                let platform = p.split('/').nth(1).unwrap_or_default();
                let key = p.rsplit('/').next().unwrap_or_default();
                if let Some(want) = official
                    .pointer(&format!("/{platform}/metrics/{key}"))
                    .and_then(Value::as_f64)
                {
                    assert!((want - v).abs() < 1e-12, "{p}: {v} vs {want}");
                    n += 1;
                }
            }
        }
    }
    // Four rates on each of three platforms.
    assert_eq!(n, 12);
    // Without the model name: a message, not a guess.
    let out = run(
        &Job {
            files,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert!(
        out.failures[0].message.contains("needs the model name"),
        "{:?}",
        out.failures
    );
}

#[test]
fn switch_predictions_with_the_dataset_root_equal_the_cli_json() {
    let mut files = folder(&format!("{LOCAL}/switch/gt"));
    files.push(file(&format!("{LOCAL}/switch/pred.jsonl"), "pred.jsonl"));
    files.push(file(
        &format!("{LOCAL}/switch/video_judge.jsonl"),
        "video_judge.jsonl",
    ));
    let out = run(
        &Job {
            files,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.reports.len(), 2);
    let gt =
        knoblab_score::switch::GroundTruth::load_path(Path::new(&format!("{LOCAL}/switch/gt")))
            .unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(format!("{LOCAL}/switch/pred.jsonl")).unwrap_or_default();
    let preds = knoblab_score::switch::predictions::read_predictions("pred.jsonl", &bytes)
        .unwrap_or_else(|e| panic!("{e}"));
    let report = knoblab_score::switch::build_report(&gt, "pred.jsonl", &preds)
        .unwrap_or_else(|e| panic!("{e}"));
    let doc = serde_json::to_value(&report).unwrap_or_default();
    assert!(cells_match(&out.reports[0], &doc) >= 9);
    assert_eq!(out.reports[0].row.columns[0], "Overall");
}

#[test]
fn garbage_alone_gets_its_detection_message_and_a_chosen_format_wins() {
    let files = vec![InputFile {
        path: "notes.txt".into(),
        bytes: b"hello".to_vec(),
    }];
    let out = run(
        &Job {
            files: files.clone(),
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert!(out.reports.is_empty());
    assert!(
        out.failures[0]
            .message
            .starts_with("notes.txt: not a results file"),
        "{:?}",
        out.failures
    );
    let mut options = JobOptions::default();
    options
        .overrides
        .insert("notes.txt".into(), Format::EpicRaw);
    let out = run(
        &Job {
            files,
            options,
            scorers: Scorers::all(),
            ..Job::default()
        },
        &mut |_| {},
    );
    assert_eq!(
        out.files[0].label,
        "EPIC-Bench raw outputs, 0 samples (chosen)"
    );
    assert!(
        out.failures[0]
            .message
            .contains("not an EPIC-Bench predictions file"),
        "{:?}",
        out.failures
    );
}

/// A dropped EPIC ground-truth file the input layer refuses (a key twice)
/// is named among the failures, scored alone and merged from shards alike,
/// not read as missing without a word (issue #47).
#[test]
fn a_refused_epic_ground_truth_file_is_named_on_the_page() {
    use knoblab_app::job::{epic_shard, run_sharded};
    use knoblab_score::epic::report::Shard;
    let gt = format!("{OFFICIAL}/epic/dataset/annotation");
    let pred = file(
        &format!("{OFFICIAL}/epic/std/Qwen3-VL/probe-q3.jsonl"),
        "Qwen3-VL/probe-q3.jsonl",
    );
    let bad_path =
        "EPIC_Bench/TargetLocalization/BasicAttributes/Color/tl_col_001/tl_col_001_mask_rle.json";
    let mut files = vec![pred];
    let mut stack = vec![Path::new(&gt).to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(&gt).unwrap().display().to_string();
            let mut bytes = std::fs::read(&path).unwrap();
            if rel == bad_path {
                // The same key twice at the top of the object.
                let text = String::from_utf8(bytes).unwrap();
                bytes = text
                    .replacen('{', "{\"image_path_saved\": \"x\", ", 1)
                    .into_bytes();
            }
            files.push(InputFile {
                path: format!("gt/{rel}"),
                bytes,
            });
        }
    }
    let job = Job {
        files,
        scorers: Scorers::all(),
        ..Job::default()
    };
    let named = |failures: &[knoblab_app::job::Failure]| {
        failures
            .iter()
            .any(|f| f.message.contains("tl_col_001_mask_rle.json") && f.message.contains("twice"))
    };
    let alone = run(&job, &mut |_| {});
    assert_eq!(alone.reports.len(), 1, "{:?}", alone.failures);
    assert!(named(&alone.failures), "{:?}", alone.failures);
    let texts: Vec<String> = (0..3)
        .map(|index| serde_json::to_string(&epic_shard(&job, Shard { index, of: 3 })).unwrap())
        .collect();
    let merged = run_sharded(&job, &mut |_| {}, &texts);
    assert!(named(&merged.failures), "{:?}", merged.failures);
    let once = merged
        .failures
        .iter()
        .filter(|f| f.message.contains("tl_col_001"))
        .count();
    assert_eq!(once, 1, "{:?}", merged.failures);
}
