//! One broken bundle per validation rule (`tests/fixtures/broken/<rule>/`,
//! each the valid `lamp` bundle with one thing wrong), its diagnostics
//! snapshotted. Every problem is reported with its location, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

#[path = "../../../tests/support/mod.rs"]
mod support;

use support::zip_of;

use knoblab_core::bundle::{check_path, Checked};

fn fixture(rel: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures")
        .join(rel)
}

/// What `knoblab validate` would list, one problem a line.
fn report(checked: &Checked) -> String {
    checked
        .diagnostics
        .iter()
        .map(|d| format!("{d}\n"))
        .collect()
}

fn check_rule(rule: &str) -> Checked {
    let checked = check_path(&fixture(&format!("broken/{rule}")));
    insta::assert_snapshot!(rule, report(&checked));
    checked
}

/// A rule whose fixture must be refused.
macro_rules! error_rule {
    ($($rule:ident),* $(,)?) => {$(
        #[test]
        fn $rule() {
            let checked = check_rule(stringify!($rule));
            assert!(checked.has_errors(), "{} should be refused", stringify!($rule));
            assert!(checked.bundle.is_none());
        }
    )*};
}

/// A rule that only warns: the bundle still loads.
macro_rules! warning_rule {
    ($($rule:ident),* $(,)?) => {$(
        #[test]
        fn $rule() {
            let checked = check_rule(stringify!($rule));
            assert!(!checked.has_errors(), "{} should only warn", stringify!($rule));
            assert!(!checked.diagnostics.is_empty());
            assert!(checked.bundle.is_some());
        }
    )*};
}

error_rule!(
    malformed_json,
    schema_mismatch,
    missing_file,
    wrong_format,
    unknown_initial_state,
    unknown_initial_view,
    unknown_next_state,
    immediate_cycle,
    ambiguous_immediate,
    box_outside_image,
    box_on_view_without_image,
    physical_transition_without_box,
    physical_transition_without_action,
    unknown_action,
    goal_state_unknown,
    goal_unreachable,
    task_initial_state_unknown,
    task_initial_view_unknown,
    task_without_goals,
    duplicate_task_id,
    dashboard_without_parent,
    dashboard_parent_unknown,
    dashboard_region_outside_parent,
    image_missing,
    image_not_image,
    image_too_large,
    image_path_outside_bundle,
    many_problems,
);

warning_rule!(
    unreachable_state,
    error_state_without_reset,
    instruction_names_component,
    box_image_size_mismatch,
    ambiguous_transitions,
    stuck_state,
);

/// Every rule listed above has a fixture, and every fixture a test here.
#[test]
fn every_broken_fixture_has_a_test() {
    let source = include_str!("bundle_rules.rs");
    for entry in std::fs::read_dir(fixture("broken")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            source.contains(&format!("    {name},")),
            "tests/fixtures/broken/{name} has no test in bundle_rules.rs"
        );
    }
}

#[test]
fn the_valid_fixtures_have_no_problem_at_all() {
    for name in ["lamp", "kettle", "kettle-panel"] {
        let checked = check_path(&fixture(name));
        assert_eq!(report(&checked), "", "{name}");
        assert!(checked.bundle.is_some(), "{name}");
    }
}

#[test]
fn many_problems_are_all_reported_at_once_with_their_files() {
    let checked = check_path(&fixture("broken/many_problems"));
    let files: Vec<&str> = checked
        .diagnostics
        .iter()
        .map(|d| d.location.file.as_str())
        .collect();
    assert_eq!(
        files,
        [
            "manifest.json",
            "ssm.json",
            "ssm.json",
            "ssm.json",
            "views.json",
            "tasks.json"
        ]
    );
}

#[test]
fn malformed_json_carries_line_and_column() {
    let checked = check_path(&fixture("broken/malformed_json"));
    let location = &checked.diagnostics[0].location;
    assert_eq!(location.file, "ssm.json");
    assert_eq!((location.line, location.column), (Some(4), Some(3)));
}

#[test]
fn a_path_that_is_no_bundle_is_a_diagnostic() {
    let checked = check_path(&fixture("no/such/bundle"));
    assert!(checked.has_errors());
    let text = report(&checked);
    assert!(text.contains("expected a bundle folder"), "{text}");
}

#[test]
fn the_same_broken_bundle_as_a_zip_reports_the_same_problems() {
    // The rules do not depend on the form the bundle came in.
    let dir = fixture("broken/many_problems");
    let zip = zip_of(&dir, "", zip::CompressionMethod::Deflated);
    let from_zip = knoblab_core::bundle::check_bytes("many_problems.zip", &zip);
    assert_eq!(from_zip.diagnostics, check_path(&dir).diagnostics);
}
