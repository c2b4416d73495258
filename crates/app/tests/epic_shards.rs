#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! A run scored in shards (as the page's workers score it) and merged in
//! the core gives the very report of the unsharded run, whatever the number
//! of shards and the order they come back in; and the streamed `--json`
//! document is byte for byte the one built as a tree.

use knoblab_score::epic::render::{to_json, write_json};
use knoblab_score::epic::report::{merge_shards, score_shard, score_text_for_output, Shard};
use knoblab_score::epic::synthetic::generate_scaled;
use knoblab_score::epic::{score_text, DirSource, RunOptions};

const FIX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/official/epic"
);

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).expect("a JSON value serialises")
}

fn streamed(report: &knoblab_score::epic::Report, name: &str) -> String {
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
    use knoblab_app::job::{self, InputFile, Job};
    let set = generate_scaled(3, 0.012);
    // Lines the readers skip and a record given twice: the intake's
    // warnings, which the first shard's worker reads with its shard.
    let lines: Vec<&str> = set.raw_jsonl.lines().collect();
    let raw = format!(
        "{}\nnot json\n{}\n[1]\n{}\n{{\"a\": 1}} x\n",
        lines[..10].join("\n"),
        lines[10..].join("\n"),
        lines[4]
    );
    let mut files = vec![InputFile {
        path: "Qwen3-VL/raw.jsonl".into(),
        bytes: raw.into_bytes(),
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
    let notes = alone.reports[0].notes.join("\n");
    assert!(notes.contains("3 line(s) skipped"), "{notes}");
    assert!(notes.contains("1 record(s) repeat"), "{notes}");
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

/// What the page shows of a report, and what its summaries and coverage
/// are: every field a shard digest carries, per sample, with the bits of
/// each score.
fn shown(r: &knoblab_score::epic::Report) -> String {
    use knoblab_score::epic::aggregate::count_accuracy_by_target_count;
    let samples = |run: &knoblab_score::epic::report::Run| {
        run.samples
            .iter()
            .map(|s| {
                let count = s.counts.map(|c| {
                    (
                        c.gt,
                        c.pred,
                        s.score_details.get("count_score").map(f64::to_bits),
                    )
                });
                format!(
                    "{} {} {} {:?} {} {} {:?} {:?} {:?} {} {:?}",
                    s.index,
                    s.task_category,
                    s.task_type,
                    s.leaf.map(|l| l.type_key),
                    s.score.to_bits(),
                    s.invalid_response,
                    s.error,
                    s.quirks,
                    s.gt_path,
                    s.gt_found,
                    count
                )
            })
            .collect::<Vec<_>>()
    };
    let counts: Vec<String> = count_accuracy_by_target_count(&r.official.samples)
        .iter()
        .map(|c| format!("{c:?}"))
        .collect();
    format!(
        "{}\n{}\n{}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        pretty(&knoblab_score::epic::render::summaries_json(r)),
        r.gt_coverage_message(),
        r.coord_override.clone().unwrap_or_default(),
        r.formatted.as_ref().map(|f| &f.skipped_lines),
        r.comparison.as_ref().map(|c| c
            .iter()
            .map(|m| (m.index, m.what.clone()))
            .collect::<Vec<_>>()),
        samples(&r.official),
        samples(&r.corrected),
        counts
    )
}

/// The page's path in the core: each worker digests its shard, the digest
/// crosses as JSON, and the merge (digests in any order) gives what the
/// whole run gives, for raw outputs, std records and an official score file.
#[test]
fn shard_digests_merge_into_the_whole_run() {
    use knoblab_score::epic::count::Counts;
    use knoblab_score::epic::shard::{digest_shard, Merge};
    use knoblab_score::epic::wire::{digest_from_json, digest_to_json};
    let set = generate_scaled(11, 0.02);
    let gt = DirSource::at(std::path::Path::new(&format!("{FIX}/dataset/annotation")));
    let fixtures: Vec<(
        String,
        String,
        Box<dyn knoblab_score::epic::GroundTruthSource>,
    )> = vec![
        (
            "raw.jsonl".into(),
            set.raw_jsonl.clone(),
            Box::new(set.gt.clone()),
        ),
        (
            "raw/Custom/probe-auto.jsonl".into(),
            std::fs::read_to_string(format!("{FIX}/raw/Custom/probe-auto.jsonl")).unwrap(),
            Box::new(DirSource::at(std::path::Path::new(&format!(
                "{FIX}/dataset/annotation"
            )))),
        ),
        (
            "std/Custom/probe-auto.jsonl".into(),
            std::fs::read_to_string(format!("{FIX}/std/Custom/probe-auto.jsonl")).unwrap(),
            Box::new(DirSource::at(std::path::Path::new(&format!(
                "{FIX}/dataset/annotation"
            )))),
        ),
        (
            "scores/Qwen3-VL/probe-q3_full.json".into(),
            std::fs::read_to_string(format!("{FIX}/scores/Qwen3-VL/probe-q3_full.json")).unwrap(),
            Box::new(gt),
        ),
    ];
    for (name, text, gt) in &fixtures {
        let opts = RunOptions {
            coord_mode: None,
            family: name
                .split('/')
                .nth(1)
                .filter(|_| name.contains('/'))
                .map(str::to_string),
        };
        let whole = score_text(text, gt.as_ref(), &opts).expect("scores");
        // The typed counts a digest carries are those `metric_details.count`
        // writes, on every sample (absent where it is absent).
        for s in whole
            .official
            .samples
            .iter()
            .chain(&whole.corrected.samples)
        {
            let written = s.metric_details.get("count").map(|c| Counts {
                gt: c["gt_count"].as_i64(),
                pred: c["pred_count"].as_i64(),
            });
            assert_eq!(s.counts, written, "{name}: sample {}", s.index);
        }
        let reference = shown(&whole);
        for of in [1, 2, 3, 7] {
            let mut texts: Vec<String> = (0..of)
                .map(|index| {
                    let d = digest_shard(text, gt.as_ref(), &opts, Shard { index, of })
                        .expect("scores");
                    digest_to_json(&d)
                })
                .collect();
            // Shards come in any order.
            texts.rotate_left(of / 2);
            let mut merge = Merge::new();
            for t in &texts {
                merge
                    .add(digest_from_json(t).expect("reads back"))
                    .expect("merges");
            }
            assert_eq!(merge.shards(), of);
            let merged = merge.finish().expect("every sample once");
            assert_eq!(shown(&merged), reference, "{name}: {of} shards");
        }
    }
}

/// A shard reads the GT files of its own samples and no other, each once.
#[test]
fn a_shard_reads_only_the_ground_truth_of_its_samples() {
    use knoblab_score::epic::gt::held_key;
    use knoblab_score::epic::shard::digest_shard;
    use knoblab_score::epic::GroundTruthSource;
    use std::cell::RefCell;
    struct Counting<'a>(&'a dyn GroundTruthSource, RefCell<Vec<String>>);
    impl GroundTruthSource for Counting<'_> {
        fn read(&self, path: &str) -> Option<Vec<u8>> {
            self.1.borrow_mut().push(path.to_string());
            self.0.read(path)
        }
    }
    let set = generate_scaled(7, 0.02);
    let opts = RunOptions::default();
    let whole = score_text(&set.raw_jsonl, &set.gt, &opts).expect("scores");
    for of in [2, 3] {
        for index in 0..of {
            let counting = Counting(&set.gt, RefCell::new(Vec::new()));
            digest_shard(&set.raw_jsonl, &counting, &opts, Shard { index, of }).expect("scores");
            let mut read = counting.1.into_inner();
            let mut wanted: Vec<String> = whole
                .official
                .samples
                .iter()
                .filter(|s| s.index % of == index)
                .filter_map(|s| s.gt_path.as_deref().map(held_key))
                .collect();
            wanted.dedup();
            assert!(!wanted.is_empty());
            assert_eq!(
                read, wanted,
                "shard {index} of {of}: the files read, in order"
            );
            read.sort();
            read.dedup();
            assert_eq!(read.len(), wanted.len(), "each file read once");
        }
    }
}

/// A shard formats only its own raw records; the others are counted (their
/// lines only checked, not built) but not formatted, and the skipped lines
/// are the file's: each odd line below is read by every shard both ways,
/// as a wanted record and as another shard's.
#[test]
fn a_shard_formats_only_its_own_records() {
    use knoblab_score::epic::formatter::{format_jsonl_each, format_jsonl_picked, FormatOptions};
    let set = generate_scaled(5, 0.01);
    // Records for `json.loads` (NaN, a lone surrogate, spaces around) and
    // lines it refuses or that are not objects (trailing data or comma, a
    // list, a bare string, a brace only, blank with a tab).
    let odd = [
        r#"{"a": NaN}"#,
        "not json",
        r#" {"a": "\ud800"} "#,
        r#"{"a": 1} x"#,
        r#"{"a": 1,}"#,
        "[1]",
        "\t",
        r#""{}""#,
        "{",
        r#"{"a": {"b": [1, -Infinity]}}"#,
    ];
    let mut text = String::new();
    for (n, line) in set.raw_jsonl.lines().enumerate() {
        text.push_str(line);
        text.push('\n');
        if n < 3 * odd.len() {
            text.push_str(odd[n % odd.len()]);
            text.push('\n');
        }
    }
    let opts = [FormatOptions::default()];
    let all = format_jsonl_each(&text, &opts).remove(0);
    assert_eq!(all.skipped_lines.len(), 3 * 6);
    for k in 0..3 {
        let picked = format_jsonl_picked(&text, &opts, |i| i % 3 == k);
        assert_eq!(picked.skipped_lines, all.skipped_lines);
        let records = &picked.records[0];
        assert_eq!(records.len(), all.records.len());
        for (i, (r, a)) in records.iter().zip(&all.records).enumerate() {
            match r {
                Some(r) => {
                    assert_eq!(i % 3, k);
                    assert_eq!(
                        knoblab_score::epic::pyjson::dumps(&r.record),
                        knoblab_score::epic::pyjson::dumps(&a.record)
                    );
                    assert_eq!(r.failure, a.failure);
                }
                None => assert_ne!(i % 3, k),
            }
        }
    }
}

/// The files of a job as dropped: a small synthetic set's raw results
/// and its GT files, loose.
fn dropped_set(seed: u64, scale: f64) -> Vec<knoblab_app::job::InputFile> {
    use knoblab_app::job::InputFile;
    let set = generate_scaled(seed, scale);
    let mut files = vec![InputFile {
        path: "Qwen3-VL/raw.jsonl".into(),
        bytes: set.raw_jsonl.into_bytes(),
    }];
    for (path, bytes) in set.gt.files() {
        files.push(InputFile {
            path: format!("gt/{path}"),
            bytes: bytes.to_vec(),
        });
    }
    files
}

/// The merging worker takes each worker's list as it comes, in any order;
/// a list of another file's shards, or a worker that sent nothing, leaves
/// the file to be scored whole, with the same outcome.
#[test]
fn the_merging_worker_merges_lists_as_they_come() {
    use knoblab_app::job::{self, Job, Merging};
    let job = Job {
        files: dropped_set(4, 0.012),
        ..Job::default()
    };
    let alone = job::run(&job, &mut |_| {});
    assert!(alone.failures.is_empty(), "{:?}", alone.failures);
    let lists: Vec<String> = (0..3)
        .map(|index| serde_json::to_string(&job::epic_shard(&job, Shard { index, of: 3 })).unwrap())
        .collect();
    for order in [[0, 1, 2], [2, 0, 1], [1, 2, 0]] {
        let mut merging = Merging::new();
        for i in order {
            merging.add(&lists[i]);
        }
        assert_eq!(merging.workers(), 3);
        let mut merged = merging.finish(&job, &mut |_| {});
        assert_eq!(merged.epic_shards, 3);
        merged.epic_shards = 0;
        assert_eq!(merged, alone, "{order:?}");
    }
    // The merging worker's own shard, added as it is: its text is the
    // same as the helper's would be, and the outcome the same.
    let own = job::epic_shard_digests(&job, Shard { index: 0, of: 3 });
    let as_text: Vec<job::EpicShardText> = own.iter().cloned().map(Into::into).collect();
    assert_eq!(serde_json::to_string(&as_text).unwrap(), lists[0]);
    let mut merging = Merging::new();
    merging.add(&lists[2]);
    merging.score_own(&job, Shard { index: 0, of: 3 });
    merging.add(&lists[1]);
    assert_eq!(merging.workers(), 3);
    let mut merged = merging.finish(&job, &mut |_| {});
    assert_eq!(merged.epic_shards, 3);
    merged.epic_shards = 0;
    assert_eq!(merged, alone, "own shard added as it is");
    // A shard of another file (here, of the same file scored with other
    // options) is refused: the file is scored whole.
    let other = Job {
        options: knoblab_app::job::JobOptions {
            epic_family: Some("Claude".into()),
            ..Default::default()
        },
        ..job.clone()
    };
    let mut merging = Merging::new();
    merging.add(&lists[0]);
    merging
        .add(&serde_json::to_string(&job::epic_shard(&other, Shard { index: 1, of: 3 })).unwrap());
    merging.add(&lists[2]);
    assert_eq!(merging.finish(&job, &mut |_| {}), alone);
}

/// A job whose results are all merged from shards does not open its zips
/// again after the merging worker's own shard did: what failed to open is
/// reported as the shard found it, the same as scoring the job whole, a
/// broken zip among good ground truth included.
#[test]
fn a_merged_job_reports_what_its_own_shard_could_not_open() {
    use knoblab_app::job::{self, InputFile, Job, Merging};
    let mut files = dropped_set(5, 0.01);
    // A zip's signature, then no central directory.
    files.push(InputFile {
        path: "extra/broken.zip".into(),
        bytes: b"PK\x03\x04 cut off here".to_vec(),
    });
    let job = Job {
        files,
        ..Job::default()
    };
    let alone = job::run(&job, &mut |_| {});
    let broken: Vec<&str> = alone
        .failures
        .iter()
        .filter(|f| f.file == "extra/broken.zip")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(broken.len(), 1, "{:?}", alone.failures);
    assert!(broken[0].contains("broken.zip"), "{}", broken[0]);
    assert_eq!(alone.reports.len(), 1);
    let helper = serde_json::to_string(&job::epic_shard(&job, Shard { index: 1, of: 2 })).unwrap();
    for helper_first in [false, true] {
        let mut merging = Merging::new();
        if helper_first {
            merging.add(&helper);
        }
        merging.score_own(&job, Shard { index: 0, of: 2 });
        if !helper_first {
            merging.add(&helper);
        }
        let mut merged = merging.finish(&job, &mut |_| {});
        assert_eq!(merged.epic_shards, 2);
        merged.epic_shards = 0;
        assert_eq!(merged, alone, "helper first: {helper_first}");
    }
}
