//! `knoblab run`: bad input gets a message and exit code 2, never a panic.
#![cfg(not(target_arch = "wasm32"))]

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
