#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
//! A run scored in shards (as the page's workers score it) and merged in
//! the core gives the very report of the unsharded run, whatever the number
//! of shards and the order they come back in; and the streamed `--json`
//! document is byte for byte the one built as a tree.

use knoblab::score::epic::render::{to_json, write_json};
use knoblab::score::epic::report::{merge_shards, score_shard, score_text_for_output, Shard};
use knoblab::score::epic::synthetic::generate_scaled;
use knoblab::score::epic::{score_text, DirSource, RunOptions};

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/official/epic");

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).expect("a JSON value serialises")
}

fn streamed(report: &knoblab::score::epic::Report, name: &str) -> String {
    let mut out = Vec::new();
    write_json(report, name, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("JSON is UTF-8")
}

#[test]
fn sharded_runs_equal_the_whole_run() {
    // Every task, a few samples each (the benchmark set at 2 %).
    let set = generate_scaled(11, 0.02);
    let opts = RunOptions::default();
    let whole = score_text(&set.raw_jsonl, &set.gt, &opts).expect("scores");
    let reference = pretty(&to_json(&whole, "raw.jsonl"));
    assert!(whole.official.samples.len() >= 23);
    for of in [1, 2, 3, 7] {
        let mut shards: Vec<_> = (0..of)
            .map(|index| score_shard(&set.raw_jsonl, &set.gt, &opts, Shard { index, of }))
            .collect::<Result<_, _>>()
            .expect("scores");
        // Workers finish in any order.
        shards.reverse();
        let sizes: Vec<usize> = shards.iter().map(|s| s.official.len()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), whole.official.samples.len());
        let merged = merge_shards(&set.raw_jsonl, &opts, shards).expect("merges");
        assert_eq!(
            pretty(&to_json(&merged, "raw.jsonl")),
            reference,
            "{of} shards"
        );
        assert_eq!(
            merged.official.summary.overall.mean_score.to_bits(),
            whole.official.summary.overall.mean_score.to_bits()
        );
    }
}

#[test]
fn streamed_document_equals_the_tree() {
    let gt = DirSource::at(std::path::Path::new(&format!("{FIX}/dataset/annotation")));
    for rel in [
        "raw/Custom/probe-auto.jsonl",
        "raw/Qwen3-VL/probe-q3.jsonl",
        "std/Custom/probe-auto.jsonl",
        "scores/Qwen3-VL/probe-q3_full.json",
    ] {
        let text = std::fs::read_to_string(format!("{FIX}/{rel}")).expect("fixture");
        let opts = RunOptions {
            coord_mode: None,
            family: rel.split('/').nth(1).map(str::to_string),
        };
        let report = score_text(&text, &gt, &opts).expect("scores");
        // What the CLI scores: the same document without metric details.
        let lean = score_text_for_output(&text, &gt, &opts).expect("scores");
        assert!(lean
            .official
            .samples
            .iter()
            .all(|s| s.metric_details.is_empty()));
        assert_eq!(streamed(&lean, rel), streamed(&report, rel), "{rel}");
        assert_eq!(
            streamed(&report, rel),
            pretty(&to_json(&report, rel)),
            "{rel}"
        );
    }
    let set = generate_scaled(5, 0.02);
    let report = score_text(&set.raw_jsonl, &set.gt, &RunOptions::default()).expect("scores");
    assert_eq!(
        streamed(&report, "raw.jsonl"),
        pretty(&to_json(&report, "raw.jsonl"))
    );
}

/// The page's path: each worker's `epic_shard` list as JSON text, merged by
/// `run_sharded` into the outcome one worker gives alone.
#[test]
fn page_workers_shards_give_the_single_worker_outcome() {
    use knoblab::score::job::{self, InputFile, Job};
    let set = generate_scaled(3, 0.012);
    let mut files = vec![InputFile {
        path: "Qwen3-VL/raw.jsonl".into(),
        bytes: set.raw_jsonl.clone().into_bytes(),
    }];
    for (path, bytes) in set.gt.files() {
        files.push(InputFile {
            path: format!("gt/{path}"),
            bytes: bytes.to_vec(),
        });
    }
    let job = Job {
        files,
        ..Job::default()
    };
    let alone = job::run(&job, &mut |_| {});
    assert_eq!(alone.reports.len(), 1, "{:?}", alone.failures);
    for of in [1, 2, 3, 7] {
        let texts: Vec<String> = (0..of)
            .map(|index| {
                let list = job::epic_shard(&job, Shard { index, of });
                assert_eq!(list.len(), 1, "one EPIC file, one shard per worker");
                serde_json::to_string(&list).expect("serialises")
            })
            .rev()
            .collect();
        let mut merged = job::run_sharded(&job, &mut |_| {}, &texts);
        // The outcome says how many workers' shards it was merged from.
        assert_eq!(merged.epic_shards, of, "{of} workers");
        merged.epic_shards = 0;
        assert_eq!(merged, alone, "{of} workers");
    }
    // A worker that sent nothing: the file is scored whole, same outcome.
    let partial = vec![
        serde_json::to_string(&job::epic_shard(&job, Shard { index: 0, of: 2 })).unwrap(),
        "[]".to_string(),
    ];
    assert_eq!(job::run_sharded(&job, &mut |_| {}, &partial), alone);
}

#[test]
fn incomplete_shards_are_refused() {
    let set = generate_scaled(2, 0.01);
    let opts = RunOptions::default();
    let one = score_shard(&set.raw_jsonl, &set.gt, &opts, Shard { index: 0, of: 2 }).unwrap();
    let err = merge_shards(&set.raw_jsonl, &opts, vec![one.clone()]).unwrap_err();
    assert!(err.to_string().contains("not each of the file's"), "{err}");
    let twice = merge_shards(&set.raw_jsonl, &opts, vec![one.clone(), one]).unwrap_err();
    assert!(twice.to_string().contains("score it again"), "{twice}");
}
