#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! Parity with the official EPIC-Bench code on the shared fixtures: raw →
//! formatter → `std/`, std → scorer → `scores/*_full.json` and
//! `metric_details/`. Every mismatch is collected, then reported at once.
//! Numbers are compared with |Δ| ≤ 1e-9, strings exactly.

use knoblab_score::epic::formatter::{format_jsonl, FormatOptions};
use knoblab_score::epic::pyjson;
use knoblab_score::epic::report::{diff_json, Mismatch};
use knoblab_score::epic::{score_text, DirSource, RunOptions};
use serde_json::Value;

const FIX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/official/epic"
);
const RUNS: [(&str, &str); 2] = [("Custom", "probe-auto"), ("Qwen3-VL", "probe-q3")];

fn read(rel: &str) -> String {
    std::fs::read_to_string(format!("{FIX}/{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn gt() -> DirSource {
    DirSource::at(std::path::Path::new(&format!("{FIX}/dataset/annotation")))
}

fn report(problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} mismatch(es):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn fmt(m: &Mismatch, file: &str) -> String {
    format!("{file} #{:?}: {}", m.index, m.what)
}

#[test]
fn formatter_reproduces_std_files() {
    let mut problems = Vec::new();
    let mut compared = 0;
    for (family, model) in RUNS {
        let raw = read(&format!("raw/{family}/{model}.jsonl"));
        let std = read(&format!("std/{family}/{model}.jsonl"));
        let out = format_jsonl(&raw, &FormatOptions::default());
        let ours = out.to_jsonl();
        if ours != std {
            problems.push(format!("{family}/{model}: std file not byte-identical"));
        }
        let lines: Vec<&str> = std.lines().collect();
        if lines.len() != out.records.len() {
            problems.push(format!(
                "{family}/{model}: {} std lines, {} formatted",
                lines.len(),
                out.records.len()
            ));
        }
        for (i, (line, rec)) in lines.iter().zip(&out.records).enumerate() {
            let theirs: Value = serde_json::from_str(line).expect("fixture line is JSON");
            let ours = rec.record.to_json();
            let mut ms = Vec::new();
            diff_json("record", &theirs, &ours, Some(i), &mut ms);
            problems.extend(ms.iter().map(|m| fmt(m, &format!("{family}/{model}"))));
            compared += 1;
        }
    }
    report(&problems);
    assert_eq!(compared, 197);
}

fn score_std(family: &str, model: &str) -> knoblab_score::epic::Report {
    let std = read(&format!("std/{family}/{model}.jsonl"));
    let opts = RunOptions {
        coord_mode: None,
        family: Some(family.to_string()),
    };
    score_text(&std, &gt(), &opts).expect("std file scores")
}

#[test]
fn scorer_reproduces_official_score_files() {
    let mut problems = Vec::new();
    let mut fields = 0;
    for (family, model) in RUNS {
        let rep = score_std(family, model);
        let file: Value =
            serde_json::from_str(&read(&format!("scores/{family}/{model}_full.json"))).unwrap();
        let name = format!("{family}/{model}");
        let ours = rep.official.summary.to_official_json();
        let mut ms = Vec::new();
        diff_json("summary", &file["summary"], &ours, None, &mut ms);
        let samples = file["details"]["by_samples"].as_array().unwrap();
        if samples.len() != rep.official.samples.len() {
            problems.push(format!("{name}: sample count differs"));
        }
        for (theirs, s) in samples.iter().zip(&rep.official.samples) {
            let ours = s.to_official_json();
            for (k, v) in theirs.as_object().unwrap() {
                diff_json(k, v, &ours[k], Some(s.index), &mut ms);
                fields += 1;
            }
        }
        problems.extend(ms.iter().map(|m| fmt(m, &name)));
    }
    report(&problems);
    assert!(fields >= 197 * 9, "{fields}");
}

#[test]
fn scorer_reproduces_metric_details() {
    let mut problems = Vec::new();
    for (family, model) in RUNS {
        let rep = score_std(family, model);
        let name = format!("{family}/{model}");
        let text = read(&format!("metric_details/{family}/{model}.jsonl"));
        let mut ms = Vec::new();
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let i = v["index"].as_u64().unwrap() as usize;
            let s = &rep.official.samples[i];
            diff_json(
                "score",
                &v["score"],
                &serde_json::json!(s.score),
                Some(i),
                &mut ms,
            );
            diff_json(
                "metric_details",
                &v["metric_details"],
                &Value::Object(s.metric_details.clone()),
                Some(i),
                &mut ms,
            );
        }
        problems.extend(ms.iter().map(|m| fmt(m, &name)));
    }
    report(&problems);
}

#[test]
fn raw_input_scores_like_std_input() {
    for (family, model) in RUNS {
        let raw = read(&format!("raw/{family}/{model}.jsonl"));
        let opts = RunOptions {
            coord_mode: None,
            family: Some(family.to_string()),
        };
        let a = score_text(&raw, &gt(), &opts).unwrap();
        let b = score_std(family, model);
        assert_eq!(
            a.official.summary.to_official_json(),
            b.official.summary.to_official_json()
        );
    }
}

#[test]
fn official_score_file_is_rescored_without_mismatch() {
    for (family, model) in RUNS {
        let text = read(&format!("scores/{family}/{model}_full.json"));
        let rep = score_text(&text, &gt(), &RunOptions::default()).unwrap();
        let cmp = rep.comparison.expect("a comparison");
        let lines: Vec<String> = cmp.iter().map(|m| fmt(m, model)).collect();
        report(&lines);
    }
}

#[test]
fn missing_gt_is_named() {
    let rep = score_std("Custom", "probe-auto");
    let msg = rep.gt_coverage_message();
    // 2 samples name a file that is not there (tl_cat_003); 4 name files
    // whose mask list is empty although the GT counts instances (the probes
    // gd_005 and fpe_003): issue #47 no longer counts those as found.
    assert!(
        msg.starts_with("178 of 184 samples found their mask; missing: "),
        "{msg}"
    );
    assert!(msg.contains("tl_cat_003_mask_rle.json,"), "{msg}");
    assert!(
        msg.contains("gd_005_mask_rle.json (no masklet_ground)"),
        "{msg}"
    );
    assert!(
        msg.contains("fpe_003_mask_rle.json (no masklet_target_area)"),
        "{msg}"
    );
}

#[test]
fn std_lines_round_trip_through_python_json() {
    let std = read("std/Custom/probe-auto.jsonl");
    for line in std.lines() {
        let v = pyjson::loads(line).unwrap();
        assert_eq!(pyjson::dumps(&v), line);
    }
}

#[test]
fn corrected_mode_fixes_the_plain_bugs_and_notes_quirks() {
    let raw = read("raw/Custom/probe-auto.jsonl");
    let opts = RunOptions {
        coord_mode: None,
        family: Some("Custom".into()),
    };
    let rep = score_text(&raw, &gt(), &opts).unwrap();
    let (off, cor) = (&rep.official.samples, &rep.corrected.samples);
    // uppercase_JSON_fence (14) and trailing_comma_invalid_json (20) parse.
    for i in [14, 20] {
        assert_eq!((off[i].score, cor[i].score), (0.0, 1.0), "sample {i}");
        assert!(off[i]
            .quirks
            .iter()
            .any(|q| q.code() == "formatter_rejected"));
    }
    // garbage_on_empty_gt (108): 1.0 officially, an invalid 0 when the
    // failure marker is honoured.
    assert_eq!(off[108].score, 1.0);
    assert!(!off[108].invalid_response);
    assert_eq!((cor[108].score, cor[108].invalid_response), (0.0, true));
    assert!(off[108]
        .quirks
        .iter()
        .any(|q| q.code() == "wrapped_sentinel_parsed"));
    // box_entirely_outside (25): auto switched to 0-1000.
    assert!(off[25]
        .quirks
        .iter()
        .any(|q| q.code() == "auto_switched_to_0_1000"));
    // tl_cat_003 (79): GT file missing.
    assert!(off[79].quirks.iter().any(|q| q.code() == "missing_gt_file"));
    // Exo regions over 1000 px (138): the official distance is sampled.
    assert!(off[138]
        .quirks
        .iter()
        .any(|q| q.code() == "exo_sampled_distance"));
}

#[test]
fn count_breakdown_covers_counted_samples() {
    use knoblab_score::epic::aggregate::count_accuracy_by_target_count;
    let rep = score_std("Custom", "probe-auto");
    let rows = count_accuracy_by_target_count(&rep.official.samples);
    let n: usize = rows.iter().map(|r| r.samples).sum();
    // 120 samples of this run score a count; 20 lack the predicted or GT count.
    assert_eq!(n, 100);
    assert!(rows.iter().all(|r| (0.0..=1.0).contains(&r.exact_accuracy)));
    assert_eq!(rows[0].gt_count, 0);
}
