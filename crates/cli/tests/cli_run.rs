//! `knoblab run`: bad input gets a message and exit code 2, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::process::Command;

fn knoblab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .output()
        .expect("the knoblab binary runs")
}

#[test]
fn run_on_a_missing_bundle_is_a_clean_error() {
    let out = std::env::temp_dir().join("knoblab-run-missing.jsonl");
    let o = knoblab(&[
        "run",
        "/nonexistent/bundle",
        "--agent",
        "oracle",
        "--out",
        out.to_str().unwrap_or("out.jsonl"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("knoblab:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn run_with_an_unknown_agent_says_which_agents_exist() {
    let o = knoblab(&["run", "b", "--agent", "human", "--out", "x.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("oracle, random, random:SEED or script:FILE"),
        "{err}"
    );
}

#[test]
fn run_writes_oracle_trajectories_that_carry_the_bundle_hash_and_recheck() {
    let bundle_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
    let out = std::env::temp_dir().join(format!("knoblab-run-oracle-{}.jsonl", std::process::id()));
    let o = knoblab(&[
        "run",
        bundle_dir,
        "--agent",
        "oracle",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);

    let bundle = knoblab_core::bundle::load_path(std::path::Path::new(bundle_dir)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), bundle.tasks.len(), "one line per task");
    for line in lines {
        let t = knoblab_core::sim::Trajectory::from_json_line(line).unwrap();
        assert_eq!(t.bundle_id, bundle.manifest.id);
        assert_eq!(t.logic_hash, knoblab_core::bundle::logic_hash(&bundle));
        assert!(t.terminated && !t.truncated, "{}: not solved", t.task_id);
        assert_eq!(t.goals_reached, t.goals_total);
        // Rechecking the written actions gives the same line, byte for byte.
        let again = knoblab_core::sim::recheck(&bundle, &t).unwrap();
        assert_eq!(again.to_json_line().unwrap(), line);
    }
}
