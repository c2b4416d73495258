//! `knoblab metrics` on trajectories written by `knoblab run`, in both
//! output modes, and its clean errors on bad input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

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
