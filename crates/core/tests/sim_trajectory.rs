//! Trajectories (`specs/devices.md` section 5): names, JSON Lines, recheck.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

#[path = "../../../tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;

use knoblab_core::sim::{recheck, Episode, Outcome, RecheckError, Settings, Trajectory};

use support::*;

/// A script on kettle-panel's `fill_then_boil` that produces every outcome.
fn every_outcome_script() -> Vec<String> {
    vec![
        "Let me look. Action: Press(coord=[50, 50]".to_string(), // notification
        "Push(coord=[10, 10], params=[1])".to_string(),          // null
        "Timed_wait()".to_string(),                              // invalid_wait
        format!("Press(coord={}, params=[0])", lid_front()),     // hint
        format!("Switch_view(coord={})", power_front()),         // unlock
        "Switch_view(params=[front])".to_string(),               // view_switch
        format!("Push(coord={}, params=[1])", lid_front()),      // transition: LidOpen
        format!("Push(coord={}, params=[1])", power_front()),    // dangerous: Error -> Standby
        format!("Push(coord={}, params=[1])", lid_front()),      // LidOpen again
        format!("Push(coord={}, params=[0])", lid_front()),      // Standby
        format!("Push(coord={}, params=[1])", power_front()),    // Boiling
    ]
}

fn play(actions: &[String]) -> Trajectory {
    let bundle = kettle_panel();
    let mut e = Episode::new(&bundle);
    let mut settings = Settings::with_lambda(50);
    settings.agent = "script:test".to_string();
    e.reset("fill_then_boil", settings).unwrap();
    for a in actions {
        e.step(a).unwrap();
    }
    e.into_trajectory().unwrap()
}

#[test]
fn a_scripted_episode_produces_every_outcome_kind() {
    let t = play(&every_outcome_script());
    let outcomes: Vec<Outcome> = t.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        vec![
            Outcome::Notification,
            Outcome::Null,
            Outcome::InvalidWait,
            Outcome::Hint,
            Outcome::Unlock,
            Outcome::ViewSwitch,
            Outcome::Transition,
            Outcome::Dangerous,
            Outcome::Transition,
            Outcome::Transition,
            Outcome::Transition,
        ]
    );
    let kinds: BTreeSet<&str> = outcomes.iter().map(|o| o.as_str()).collect();
    assert_eq!(kinds.len(), 8);
    assert!(t.terminated && !t.truncated);
    assert_eq!(t.goals_reached, 3);
}

#[test]
fn trajectory_lines_use_the_published_names_in_a_stable_order() {
    let t = play(&every_outcome_script());
    let line = t.to_json_line().unwrap();
    assert!(!line.contains('\n'));
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        &keys[..9],
        [
            "bundle_id",
            "logic_hash",
            "task_id",
            "settings",
            "steps",
            "goals_reached",
            "goals_total",
            "terminated",
            "truncated"
        ]
    );
    let step = &v["steps"][7];
    let keys: Vec<&str> = step
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        &keys[..14],
        [
            "action",
            "parsed",
            "outcome",
            "state_before",
            "state_after",
            "passed",
            "view_before",
            "view_after",
            "feedback",
            "goal_index",
            "budget_global",
            "budget_local",
            "component",
            "unlocked_before"
        ]
    );
    assert_eq!(step["outcome"], "dangerous");
    assert_eq!(step["passed"], serde_json::json!(["Error"]));
    assert_eq!(v["steps"][0]["parsed"], serde_json::Value::Null);
    assert_eq!(v["settings"]["lambda"], 50);
    assert_eq!(v["settings"]["agent"], "script:test");
    assert_eq!(v["bundle_id"], "kettle-panel-0001");
}

#[test]
fn a_trajectory_round_trips_through_its_json_line() {
    let t = play(&every_outcome_script());
    let line = t.to_json_line().unwrap();
    let back = Trajectory::from_json_line(&line).unwrap();
    assert_eq!(back, t);
    assert_eq!(back.to_json_line().unwrap(), line);
}

#[test]
fn settings_keep_keys_they_do_not_know() {
    let mut s = Settings::default();
    s.extra
        .insert("temperature".to_string(), serde_json::json!(0.2));
    s.model = Some("m".to_string());
    let text = serde_json::to_string(&s).unwrap();
    assert_eq!(
        text,
        r#"{"lambda":5,"agent":"","render":"static","model":"m","temperature":0.2}"#
    );
    let back: Settings = serde_json::from_str(&text).unwrap();
    assert_eq!(back, s);
}

#[test]
fn rechecking_a_trajectory_reproduces_it_byte_for_byte() {
    let t = play(&every_outcome_script());
    let bundle = kettle_panel();
    let again = recheck(&bundle, &t).unwrap();
    assert_eq!(again.to_json_line().unwrap(), t.to_json_line().unwrap());
}

#[test]
fn recheck_refuses_a_trajectory_of_another_bundle() {
    let t = play(&every_outcome_script());
    let err = recheck(&kettle(), &t).unwrap_err();
    assert!(matches!(err, RecheckError::OtherBundle { .. }), "{err}");
}

#[test]
fn recheck_refuses_a_trajectory_whose_logic_hash_differs() {
    let mut t = play(&every_outcome_script());
    t.logic_hash = "something else".to_string();
    let err = recheck(&kettle_panel(), &t).unwrap_err();
    assert!(matches!(err, RecheckError::ChangedLogic { .. }), "{err}");
}

#[test]
fn the_ideal_path_is_recorded_for_the_metrics() {
    let t = play(&[]);
    assert_eq!(t.ideal_c_opt, vec![1, 1, 2]);
    assert_eq!(t.budget_global_total, 50 * 4);
    assert_eq!(t.first_goal_c_opt, 1);
    assert_eq!(t.ideal_states, vec!["Standby", "LidOpen", "Boiling"]);
}
