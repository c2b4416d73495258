//! `knoblab validate` and `knoblab derive`, run as a user runs them.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
/// The appendix kettle's UCSM; its published SSM is the kettle bundle's.
const KETTLE_UCSM: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/vgebench-kettle/ucsm.json"
);
const KETTLE_SSM: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/tests/fixtures/kettle/ssm.json"
);

fn knoblab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(args)
        .current_dir(FIXTURES)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn validate_says_ok_with_a_summary_and_exits_0() {
    let (code, stdout, _) = knoblab(&["validate", "kettle", "kettle-panel"]);
    assert_eq!(code, 0, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with(
        "kettle: ok: kettle-0001 (ElectricKettle), 5 states, 9 transitions, 6 views, 3 tasks, logic "
    ));
    assert!(lines[1].starts_with("kettle-panel: ok: kettle-panel-0001"));
}

/// Every command reads device names by one rule (issue #45): a generated
/// device's id is a device for `validate` as it is for `run`.
#[test]
fn validate_and_run_take_a_generated_devices_id() {
    let (code, stdout, stderr) = knoblab(&["validate", "lamp-g0003"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.starts_with("lamp-g0003: ok: lamp-g0003 (Lamp),"),
        "{stdout}"
    );
    let out =
        std::env::temp_dir().join(format!("knoblab-validate-run-{}.jsonl", std::process::id()));
    let out_arg = out.display().to_string();
    let (code, _, stderr) = knoblab(&["run", "lamp-g0003", "--agent", "oracle", "--out", &out_arg]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{stderr}");
    // Neither a path nor a generated id: the loader names it.
    let (code, stdout, _) = knoblab(&["validate", "lamp-x9999"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("lamp-x9999: cannot open it"), "{stdout}");
}

#[test]
fn validate_lists_problems_and_exits_1_on_errors() {
    let (code, stdout, _) = knoblab(&["validate", "kettle", "broken/many_problems"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("cli_validate_many_problems", stdout);
}

#[test]
fn validate_warnings_do_not_fail() {
    let (code, stdout, _) = knoblab(&["validate", "broken/unreachable_state"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("ok: lamp-0001"), "{stdout}");
    assert!(
        stdout.contains("  warning: ssm.json, state Broken:"),
        "{stdout}"
    );
}

#[test]
fn validate_json_is_one_document() {
    let (code, stdout, _) = knoblab(&["validate", "--json", "lamp", "broken/wrong_format"]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc[0]["ok"], true);
    assert_eq!(doc[0]["summary"]["states"], 4);
    assert_eq!(doc[0]["summary"]["logic_hash"].as_str().unwrap().len(), 64);
    assert_eq!(doc[1]["ok"], false);
    assert_eq!(doc[1]["diagnostics"][0]["severity"], "error");
    assert_eq!(doc[1]["diagnostics"][0]["location"]["field"], "format");
}

#[test]
fn derive_prints_the_published_kettle_logic() {
    let ucsm = KETTLE_UCSM;
    let (code, stdout, stderr) = knoblab(&[
        "derive",
        ucsm,
        "--components",
        "power_button,lid_release_button",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let ssm: knoblab_core::bundle::StateMachine = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        ssm.states.keys().collect::<Vec<_>>(),
        ["Boiling", "BoilingComplete", "Error", "LidOpen", "Standby"]
    );
}

#[test]
fn derive_writes_out_and_refuses_unknown_components() {
    let ucsm = KETTLE_UCSM;
    let out = std::env::temp_dir().join(format!("knoblab-derive-{}.json", std::process::id()));
    let out_s = out.to_string_lossy().to_string();
    let (code, stdout, _) = knoblab(&[
        "derive",
        ucsm,
        "--components",
        "power_button",
        "--out",
        &out_s,
    ]);
    assert_eq!((code, stdout.as_str()), (0, ""));
    let written = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!(written.contains("\"initial_state\": \"Standby\""));

    let (code, _, stderr) = knoblab(&["derive", ucsm, "--components", "kettle_spout"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("the template has no component \"kettle_spout\""),
        "{stderr}"
    );
}

#[test]
fn derive_with_parts_writes_the_whole_published_ssm() {
    let ucsm = KETTLE_UCSM;
    let (code, stdout, stderr) = knoblab(&["derive", ucsm, "--parts", "kettle-parts.json"]);
    assert_eq!(code, 0, "{stderr}");
    let derived: knoblab_core::bundle::StateMachine = serde_json::from_str(&stdout).unwrap();
    let published = std::fs::read_to_string(KETTLE_SSM).unwrap();
    let mut published: knoblab_core::bundle::StateMachine =
        serde_json::from_str(&published).unwrap();
    published.path = None;
    assert_eq!(derived, published);
}
