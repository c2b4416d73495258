//! The rules of one step (`specs/devices.md` section 2), each checked on the
//! kettle or a variant of it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::bundle::{Bundle, Task, ViewBox};
use knoblab_core::sim::outcome::feedback;
use knoblab_core::sim::{Episode, Outcome, Settings, SimError, StepRecord};

use support::*;

/// Resets the task and plays the actions; returns the records.
fn play(bundle: &Bundle, task: &str, actions: &[&str]) -> Vec<StepRecord> {
    let mut e = Episode::new(bundle);
    e.reset(task, Settings::with_lambda(50)).expect("reset");
    for a in actions {
        e.step(a).expect("step");
    }
    e.into_trajectory().expect("trajectory").steps
}

fn last(bundle: &Bundle, task: &str, actions: &[&str]) -> StepRecord {
    play(bundle, task, actions)
        .pop()
        .expect("one step at least")
}

fn push_power(params: &str) -> String {
    format!("Push(coord={}, params=[{params}])", power_front())
}

// 1. Format.

#[test]
fn unreadable_text_is_a_notification_that_shows_the_expected_form() {
    let s = last(&kettle(), "boil", &["I think I should boil the water"]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(
        s.feedback.starts_with("System notification:"),
        "{}",
        s.feedback
    );
    assert!(
        s.feedback.contains("Press(coord=[x, y], params=[...])"),
        "{}",
        s.feedback
    );
    assert_eq!(s.parsed, None);
    assert_eq!(
        (s.state_before.as_str(), s.state_after.as_str()),
        ("Standby", "Standby")
    );
}

#[test]
fn a_verb_that_is_not_an_action_is_a_notification() {
    let s = last(&kettle(), "boil", &["Action: Click(coord=[781, 725])"]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(
        s.feedback.contains("\"Click\" is not an action"),
        "{}",
        s.feedback
    );
}

#[test]
fn coordinates_outside_the_scale_are_a_notification() {
    let s = last(&kettle(), "boil", &["Push(coord=[1001, 725], params=[1])"]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(s.feedback.contains("outside 0–1000"), "{}", s.feedback);
}

#[test]
fn missing_coordinates_are_a_notification() {
    let s = last(&kettle(), "boil", &["Push(params=[1])"]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(s.feedback.contains("needs a coordinate"), "{}", s.feedback);
}

// 2. View rules.

#[test]
fn a_physical_action_in_an_axonometric_view_is_refused() {
    let s = last(&kettle(), "boil_from_angle", &[&push_power("1")]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(s.feedback.contains("orthographic"), "{}", s.feedback);
    assert_eq!(s.state_after, "Standby");
    assert_eq!(s.view_after, "front_top");
}

#[test]
fn a_switch_to_a_missing_view_is_refused() {
    let s = last(&kettle(), "boil", &["Switch_view(params=[left])"]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(s.feedback.contains("no view \"left\""), "{}", s.feedback);
    assert_eq!(s.view_after, "front");
}

#[test]
fn a_switch_to_the_locked_dashboard_is_refused() {
    let s = last(
        &kettle_panel(),
        "boil",
        &["Switch_view(params=[dashboard])"],
    );
    assert_eq!(s.outcome, Outcome::Notification);
    assert_eq!(s.view_after, "front");
    assert!(!s.unlocked_after);
}

#[test]
fn a_switch_by_name_moves_to_the_view_in_any_case() {
    let s = last(&kettle(), "boil", &["switch_view(params=['Right'])"]);
    assert_eq!(s.outcome, Outcome::ViewSwitch);
    assert_eq!(s.view_after, "right");
    assert_eq!(s.feedback, "You are now looking at the right view.");
}

// 3. Dashboard.

#[test]
fn active_unlock_moves_to_the_dashboard_and_lists_it() {
    let bundle = kettle_panel();
    let mut e = Episode::new(&bundle);
    let (obs, _) = e.reset("boil", Settings::default()).unwrap();
    assert!(!obs.views.contains(&"dashboard".to_string()));
    let step = e
        .step(&format!("Switch_view(coord={})", power_front()))
        .unwrap();
    assert_eq!(step.info.outcome, Some(Outcome::Unlock));
    assert_eq!(step.observation.view, "dashboard");
    assert!(step.observation.views.contains(&"dashboard".to_string()));
    assert!(step.info.dashboard_unlocked);
}

#[test]
fn passive_unlock_aborts_the_action_and_unlocks() {
    let p = push_power("1");
    let steps = play(&kettle_panel(), "boil", &[&p, &p]);
    assert_eq!(steps[0].outcome, Outcome::Unlock);
    assert_eq!(steps[0].state_after, "Standby");
    assert_eq!(steps[0].view_after, "front");
    assert!(!steps[0].unlocked_before && steps[0].unlocked_after);
    assert!(
        steps[0].feedback.contains("can now be seen up close"),
        "{}",
        steps[0].feedback
    );
    // Once unlocked, the same action reaches the button.
    assert_eq!(steps[1].outcome, Outcome::Transition);
    assert_eq!(steps[1].state_after, "Boiling");
}

#[test]
fn a_switch_with_a_point_outside_the_region_is_refused() {
    let s = last(&kettle_panel(), "boil", &["Switch_view(coord=[100, 100])"]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert_eq!(s.view_after, "front");
    assert!(!s.unlocked_after);
}

#[test]
fn once_unlocked_the_dashboard_is_an_ordinary_view() {
    let p = push_power("1");
    let steps = play(
        &kettle_panel(),
        "boil",
        &[
            &p,
            "Switch_view(params=[dashboard])",
            "Push(coord=[500, 500], params=[1])",
        ],
    );
    assert_eq!(steps[1].outcome, Outcome::ViewSwitch);
    assert_eq!(steps[1].view_after, "dashboard");
    assert_eq!(steps[2].outcome, Outcome::Transition);
    assert_eq!(steps[2].state_after, "Boiling");
}

// 4. Matching.

#[test]
fn matching_type_and_params_fire_the_transition_with_both_descriptions() {
    let s = last(&kettle(), "boil", &[&push_power("1")]);
    assert_eq!(s.outcome, Outcome::Transition);
    assert_eq!(s.state_after, "Boiling");
    assert_eq!(s.component.as_deref(), Some("power_button"));
    assert_eq!(
        s.feedback,
        "Start the electric kettle; begin heating. Heating or boiling water."
    );
}

#[test]
fn a_wrong_action_type_gives_the_operational_hint() {
    let s = last(
        &kettle(),
        "boil",
        &[&format!("Press(coord={}, params=[1])", power_front())],
    );
    assert_eq!(s.outcome, Outcome::Hint);
    assert_eq!(s.feedback, "This part seems operable, but not in this way.");
    assert_eq!(s.state_after, "Standby");
}

#[test]
fn wrong_params_give_the_same_hint() {
    let s = last(&kettle(), "boil", &[&push_power("0")]);
    assert_eq!(s.outcome, Outcome::Hint);
    assert_eq!(s.feedback, feedback::HINT);
}

#[test]
fn fewer_params_than_needed_do_not_match() {
    let s = last(
        &kettle(),
        "boil",
        &[&format!("Push(coord={})", power_front())],
    );
    assert_eq!(s.outcome, Outcome::Hint);
}

#[test]
fn numeric_params_compare_as_numbers_and_quotes_are_read() {
    for p in ["1.0", "'1'", "\"1\"", " 1 "] {
        let s = last(&kettle(), "boil", &[&push_power(p)]);
        assert_eq!(s.outcome, Outcome::Transition, "params {p}");
    }
}

fn with_transition_params(params: Option<Vec<&str>>) -> Bundle {
    let mut b = kettle();
    if let Some(t) = b
        .ssm
        .states
        .get_mut("Standby")
        .and_then(|s| s.on.get_mut("power_button"))
    {
        t[0].parameter = params.map(|v| v.into_iter().map(str::to_string).collect());
    }
    b
}

#[test]
fn a_star_accepts_anything_at_its_position() {
    let b = with_transition_params(Some(vec!["*"]));
    assert_eq!(
        last(&b, "boil", &[&push_power("7")]).outcome,
        Outcome::Transition
    );
    assert_eq!(
        last(&b, "boil", &[&push_power("up")]).outcome,
        Outcome::Transition
    );
    // A star still needs a parameter to be given.
    assert_eq!(
        last(&b, "boil", &[&format!("Push(coord={})", power_front())]).outcome,
        Outcome::Hint
    );
}

#[test]
fn an_empty_parameter_list_accepts_any_params() {
    let b = with_transition_params(Some(vec![]));
    assert_eq!(
        last(&b, "boil", &[&push_power("3, 4")]).outcome,
        Outcome::Transition
    );
    assert_eq!(
        last(&b, "boil", &[&format!("Push(coord={})", power_front())]).outcome,
        Outcome::Transition
    );
}

#[test]
fn smallest_box_wins() {
    // A large lid-button box over the whole lower front, power button inside it.
    let mut b = kettle();
    for state in b.ssm.states.values_mut() {
        if let Some(ts) = state.on.get_mut("lid_release_button") {
            for t in ts {
                t.bbox.push(ViewBox {
                    coordinate: [600.0, 800.0, 600.0, 500.0, 1209.0, 1369.0],
                    view: "front".to_string(),
                });
            }
        }
    }
    let s = last(&b, "boil", &[&push_power("1")]);
    assert_eq!(s.component.as_deref(), Some("power_button"));
    assert_eq!(s.state_after, "Boiling");
    // Inside the large box only: the lid button.
    let s = last(&b, "boil", &["Push(coord=[550, 900], params=[1])"]);
    assert_eq!(s.component.as_deref(), Some("lid_release_button"));
    assert_eq!(s.state_after, "LidOpen");
}

#[test]
fn boxes_scale_to_the_real_image_size() {
    let mut b = kettle();
    if let Some(front) = b.views.get_mut("front") {
        front.image.width *= 2;
        front.image.height *= 2;
    }
    // The same 0–1000 point names the same place on a bigger picture.
    assert_eq!(last(&b, "boil", &[&push_power("1")]).state_after, "Boiling");
}

#[test]
fn centre_origin_boxes_are_read_as_centres() {
    let mut b = kettle();
    b.manifest.bbox_origin = knoblab_core::bundle::model::BboxOrigin::Center;
    // With x, y read as the centre, the power box's top-left corner is now a
    // centre: [852, 955] in 1209×1369 is [705, 698] on the scale.
    assert_eq!(
        last(&b, "boil", &["Push(coord=[705, 698], params=[1])"]).state_after,
        "Boiling"
    );
    // And the published box's centre misses it.
    assert_eq!(last(&b, "boil", &[&push_power("1")]).outcome, Outcome::Null);
}

// 5. Null.

#[test]
fn a_point_on_no_component_is_null() {
    let s = last(&kettle(), "boil", &["Push(coord=[10, 10], params=[1])"]);
    assert_eq!(s.outcome, Outcome::Null);
    assert_eq!(s.feedback, "Nothing happened.");
    assert_eq!(s.component, None);
}

#[test]
fn a_component_with_no_transition_in_this_state_is_null() {
    let mut b = kettle();
    if let Some(s) = b.ssm.states.get_mut("Boiling") {
        s.on.remove("lid_release_button");
    }
    let s = last(
        &b,
        "stop_heating",
        &[&format!("Push(coord={}, params=[1])", lid_front())],
    );
    assert_eq!(s.outcome, Outcome::Null);
    assert_eq!(s.component.as_deref(), Some("lid_release_button"));
}

// 6. Timed wait.

#[test]
fn timed_wait_fires_the_timed_wait_transition_and_its_immediate_chain() {
    let s = last(&kettle(), "stop_heating", &["Timed_wait()"]);
    assert_eq!(s.outcome, Outcome::Transition);
    assert_eq!(s.passed, vec!["BoilingComplete".to_string()]);
    assert_eq!(s.state_after, "Standby");
    assert_eq!(
        s.feedback,
        "Water has boiled. Water has boiled, boiling process completed. \
Pour out the brewed water and return to standby."
    );
}

#[test]
fn waiting_with_nothing_to_wait_for_is_an_invalid_wait() {
    let s = last(&kettle(), "boil", &["Timed_wait()"]);
    assert_eq!(s.outcome, Outcome::InvalidWait);
    assert_eq!(s.feedback, "You waited, but waiting changed nothing.");
    assert_eq!(s.state_after, "Standby");
}

// Firing.

#[test]
fn entering_error_is_dangerous_and_followed_by_the_reset() {
    let s = last(
        &kettle(),
        "stop_heating",
        &[&format!("Push(coord={}, params=[1])", lid_front())],
    );
    assert_eq!(s.outcome, Outcome::Dangerous);
    assert_eq!(s.passed, vec!["Error".to_string()]);
    assert_eq!(s.state_after, "Standby");
    assert!(
        s.feedback
            .starts_with("Warning: that was a dangerous operation."),
        "{}",
        s.feedback
    );
    assert!(s.feedback.contains("automatically reset"), "{}", s.feedback);
}

#[test]
fn a_state_flagged_error_is_dangerous_too() {
    let mut b = kettle();
    if let Some(s) = b.ssm.states.get_mut("LidOpen") {
        s.error = true;
    }
    let s = last(
        &b,
        "boil",
        &[&format!("Push(coord={}, params=[1])", lid_front())],
    );
    assert_eq!(s.outcome, Outcome::Dangerous);
}

#[test]
fn a_cycle_of_immediate_transitions_never_hangs() {
    let mut b = kettle();
    // BoilingComplete -> Standby is immediate; make Standby immediate back.
    let back = b.ssm.states["BoilingComplete"].on["immediate"][0].clone();
    let mut to_complete = back.clone();
    to_complete.next_state = "BoilingComplete".to_string();
    if let Some(s) = b.ssm.states.get_mut("Standby") {
        s.on.insert("immediate".to_string(), vec![to_complete]);
    }
    let s = last(&b, "stop_heating", &["Timed_wait()"]);
    assert_eq!(s.outcome, Outcome::Transition);
    assert!(s.passed.len() <= b.ssm.states.len() + 1);
}

// Every action, budgets, misuse.

#[test]
fn every_action_valid_or_not_uses_one_step_of_budget() {
    let steps = play(
        &kettle(),
        "fill_then_boil",
        &[
            "nonsense",
            "Switch_view(params=[top])",
            "Timed_wait()",
            "Push(coord=[10, 10], params=[1])",
        ],
    );
    let globals: Vec<u32> = steps.iter().map(|s| s.budget_global).collect();
    // λ = 50, C_opt = 1 + 1 + 1: B_global = 150, B_local starts at 50.
    assert_eq!(globals, vec![149, 148, 147, 146]);
    let locals: Vec<u32> = steps.iter().map(|s| s.budget_local).collect();
    assert_eq!(locals, vec![49, 48, 47, 46]);
}

#[test]
fn stepping_a_finished_episode_is_an_error() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    e.reset("boil", Settings::default()).unwrap();
    let step = e.step(&push_power("1")).unwrap();
    assert!(step.terminated);
    assert!(matches!(
        e.step("Timed_wait()"),
        Err(SimError::Finished { .. })
    ));
}

#[test]
fn stepping_before_reset_is_an_error() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    assert_eq!(e.step("Timed_wait()").unwrap_err(), SimError::NotReset);
}

#[test]
fn an_unknown_task_is_an_error_that_lists_the_tasks() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    let err = e.reset("fly", Settings::default()).unwrap_err();
    assert!(err.to_string().contains("boil, open_lid"), "{err}");
}

#[test]
fn the_observation_shows_the_view_the_views_the_feedback_and_the_instruction() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    let (obs, info) = e.reset("fill_then_boil", Settings::default()).unwrap();
    assert_eq!(obs.view, "front");
    assert_eq!((obs.image.width, obs.image.height), (1209, 1369));
    assert_eq!(
        obs.views,
        vec!["front", "back", "right", "top", "bottom", "front_top"]
    );
    assert_eq!(obs.feedback, None);
    assert_eq!(
        obs.instruction.as_deref(),
        Some("Open the lid to add water.")
    );
    assert_eq!(info.state, "Standby");
    let step = e
        .step(&format!("Push(coord={}, params=[1])", lid_front()))
        .unwrap();
    assert_eq!(
        step.observation.instruction.as_deref(),
        Some("Close the lid.")
    );
    assert_eq!(
        step.observation.feedback.as_deref(),
        Some(step.feedback.as_str())
    );
    // The agent never sees the state or component names.
    let shown = serde_json::to_string(&step.observation).unwrap();
    assert!(!shown.contains("LidOpen") && !shown.contains("lid_release_button"));
}

#[test]
fn the_simulator_is_deterministic() {
    let actions = [
        "nonsense",
        "Switch_view(params=[top])",
        "Timed_wait()",
        "Push(coord=[777, 72], params=[1])",
        "Switch_view(params=[front])",
        "Push(coord=[777, 72], params=[1])",
    ];
    let run = || {
        let bundle = kettle();
        let mut e = Episode::new(&bundle);
        e.reset("fill_then_boil", Settings::with_lambda(50))
            .unwrap();
        for a in actions {
            e.step(a).unwrap();
        }
        e.into_trajectory().unwrap().to_json_line().unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_task_not_in_the_bundle_can_be_played_on_the_device() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    let task = Task {
        id: "custom".to_string(),
        initial_state: Some("LidOpen".to_string()),
        initial_view: Some("top".to_string()),
        goals: vec![knoblab_core::bundle::Goal {
            state: "Standby".to_string(),
            instruction: "Close the lid.".to_string(),
        }],
    };
    e.reset_task(&task, Settings::default()).unwrap();
    let step = e
        .step(&format!("Push(coord={}, params=[0])", lid_top()))
        .unwrap();
    assert!(step.terminated);
}

#[test]
fn a_switch_to_the_view_already_shown_changes_nothing() {
    let s = last(&kettle(), "boil", &["Switch_view(params=[front])"]);
    assert_eq!(s.outcome, Outcome::ViewSwitch);
    assert_eq!(
        (s.view_before.as_str(), s.view_after.as_str()),
        ("front", "front")
    );
    assert_eq!(s.feedback, "You are already looking at the front view.");
}

#[test]
fn a_switch_with_a_point_from_a_view_that_is_not_the_parent_is_refused() {
    let s = last(
        &kettle_panel(),
        "boil",
        &[
            "Switch_view(params=[back])",
            &format!("Switch_view(coord={})", power_front()),
        ],
    );
    assert_eq!(s.outcome, Outcome::Notification);
    assert_eq!(s.view_after, "back");
    assert!(!s.unlocked_after);
}

#[test]
fn a_switch_into_the_region_once_unlocked_is_an_ordinary_switch() {
    let p = format!("Switch_view(coord={})", power_front());
    let steps = play(
        &kettle_panel(),
        "boil",
        &[&p, "Switch_view(params=[front])", &p],
    );
    assert_eq!(steps[0].outcome, Outcome::Unlock);
    assert_eq!(steps[1].outcome, Outcome::ViewSwitch);
    assert_eq!(steps[2].outcome, Outcome::ViewSwitch);
    assert_eq!(steps[2].view_after, "dashboard");
}

#[test]
fn passive_unlock_happens_whatever_the_physical_action() {
    for verb in ["Press", "Pull", "Rotate", "Grasp"] {
        let s = last(
            &kettle_panel(),
            "boil",
            &[&format!("{verb}(coord={})", power_front())],
        );
        assert_eq!(s.outcome, Outcome::Unlock, "{verb}");
        assert_eq!(s.state_after, "Standby");
    }
}

#[test]
fn the_dashboard_region_only_matters_while_locked_and_only_in_its_parent_view() {
    // The back view has the power button at its own place; the front
    // region's coordinates there are just a point on the back picture.
    let s = last(
        &kettle_panel(),
        "boil",
        &["Switch_view(params=[back])", &push_power("1")],
    );
    assert_ne!(s.outcome, Outcome::Unlock);
    assert!(!s.unlocked_after);
}

#[test]
fn a_physical_action_in_an_axonometric_view_is_refused_before_the_dashboard_rule() {
    // Rule 2 comes before rule 3: nothing unlocks from an axonometric view.
    let s = last(&kettle_panel(), "boil_from_angle", &[&push_power("1")]);
    assert_eq!(s.outcome, Outcome::Notification);
    assert!(!s.unlocked_after);
}
