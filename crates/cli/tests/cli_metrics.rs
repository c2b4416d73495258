//! `knoblab metrics` on trajectories written by `knoblab run`, in both
//! output modes, and its clean errors on bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::path::PathBuf;
use std::process::{Command, Output};

const KETTLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");

fn knoblab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .output()
        .expect("the knoblab binary runs")
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("knoblab-metrics-{}-{name}", std::process::id()))
}

/// Writes the trajectories of an agent on the kettle fixture.
fn run_agent(agent: &str, name: &str) -> PathBuf {
    let out = temp(name);
    let o = knoblab(&[
        "run",
        KETTLE,
        "--agent",
        agent,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn stdout(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn metrics_of_oracle_and_random_runs_as_tables_and_json() {
    let oracle = run_agent("oracle", "oracle.jsonl");
    let random = run_agent("random:7", "random.jsonl");
    let (o, r) = (oracle.to_str().unwrap(), random.to_str().unwrap());

    // Tables, two runs side by side; the bundles folder holds several bundles.
    let table = stdout(&knoblab(&["metrics", o, r, "--bundles", FIXTURES]));
    for part in [
        "SR",
        "State-F1",
        "Avg W-Dist",
        "Invalid Coord",
        "Switch View PN",
        "NP",
    ] {
        assert!(table.contains(part), "{part} missing:\n{table}");
    }
    let oracle_row = table.lines().find(|l| l.starts_with(o)).unwrap();
    assert!(oracle_row.contains("100.0"), "{oracle_row}");
    let random_row = table.lines().find(|l| l.starts_with(r)).unwrap();
    assert!(random_row.contains('–'), "VSPS undefined: {random_row}");

    // JSON for one file (and the bundles option naming one bundle).
    let one: serde_json::Value = serde_json::from_str(&stdout(&knoblab(&[
        "metrics",
        o,
        "--bundles",
        KETTLE,
        "--json",
    ])))
    .unwrap();
    for key in ["sr", "ssr", "spl", "psr", "state_f1"] {
        assert_eq!(one[key], 1.0, "{key}: {one}");
    }
    assert_eq!(one["file"], o);
    assert_eq!(one["episodes"], 3);
    assert_eq!(one["per_episode"][0]["task_id"], "boil");

    // JSON for two files: a list of runs; the random run is reproducible.
    let two = stdout(&knoblab(&[
        "metrics",
        o,
        r,
        "--bundles",
        FIXTURES,
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&two).unwrap();
    assert_eq!(v[1]["file"], r);
    assert!(v[1]["vsps"].is_null());
    let random_again = run_agent("random:7", "random-again.jsonl");
    let again = stdout(&knoblab(&[
        "metrics",
        random_again.to_str().unwrap(),
        "--bundles",
        FIXTURES,
        "--json",
    ]));
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    let mut first = v[1].clone();
    first["file"] = again["file"].clone();
    assert_eq!(first, again);

    for p in [oracle, random, random_again] {
        let _ = std::fs::remove_file(p);
    }
}

#[test]
fn bad_input_names_the_file_and_line_and_exits_2() {
    let oracle = run_agent("oracle", "bad.jsonl");
    let text = std::fs::read_to_string(&oracle).unwrap();
    let path = oracle.to_str().unwrap();

    // A malformed second line.
    let first = text.lines().next().unwrap();
    std::fs::write(&oracle, format!("{first}\n{{not json\n")).unwrap();
    let o = knoblab(&["metrics", path, "--bundles", KETTLE]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{path}:2")), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // A trajectory recorded on other logic: refused, the episode named.
    let changed = text.replacen("\"logic_hash\":\"", "\"logic_hash\":\"0", 1);
    std::fs::write(&oracle, changed).unwrap();
    let o = knoblab(&["metrics", path, "--bundles", KETTLE]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for part in ["kettle", "task boil", "line 1", "logic hash"] {
        assert!(err.contains(part), "{part}: {err}");
    }

    // A missing file.
    let o = knoblab(&["metrics", "/nonexistent/t.jsonl", "--bundles", KETTLE]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/t.jsonl"));

    // A bundles folder that does not exist.
    let o = knoblab(&["metrics", path, "--bundles", "/nonexistent/bundles"]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_file(&oracle);
}

/// Recompute, never trust (#47): a counter in range but false, and a step
/// that does not start where the one before it ended, are refused with the
/// file, the line, the step or field, and exit 2.
#[test]
fn false_counters_and_unchained_steps_are_refused() {
    let oracle = run_agent("oracle", "tampered.jsonl");
    let text = std::fs::read_to_string(&oracle).unwrap();
    let path = oracle.to_str().unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The second episode: its optimal length one more (SPL would rise).
    let honest = lines[1].clone();
    let c = lines[1]["ideal_c_opt"][0].as_u64().unwrap();
    lines[1]["ideal_c_opt"][0] = (c + 1).into();
    let write = |lines: &[serde_json::Value]| {
        let body: String = lines.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&oracle, body).unwrap();
    };
    write(&lines);
    let o = knoblab(&["metrics", path, "--bundles", KETTLE]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for part in [path, "line 2", "`ideal_c_opt`", "played again give"] {
        assert!(err.contains(part), "{part}: {err}");
    }

    // An episode of two steps or more whose second step starts elsewhere.
    lines[1] = honest;
    let (i, steps) = lines
        .iter()
        .enumerate()
        .find_map(|(i, v)| {
            let steps = v["steps"].as_array()?;
            (steps.len() >= 2).then_some((i, steps.len()))
        })
        .expect("the oracle plays a task of two steps or more");
    assert!(steps >= 2);
    let other = if lines[i]["steps"][0]["state_after"] == "Standby" {
        "Boiling"
    } else {
        "Standby"
    };
    lines[i]["steps"][1]["state_before"] = other.into();
    write(&lines);
    let o = knoblab(&["metrics", path, "--bundles", KETTLE, "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    for part in [
        path.to_string(),
        format!("line {}", i + 1),
        "step 2".to_string(),
        format!("starts in state \"{other}\", but step 1 ended"),
    ] {
        assert!(err.contains(&part), "{part}: {err}");
    }
    let _ = std::fs::remove_file(&oracle);
}
