//! Goals and budgets (`specs/devices.md` section 3).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::bundle::{Bundle, Goal, Task};
use knoblab_core::sim::{Episode, Settings, SimError, Step};

use support::*;

fn push_power(params: &str) -> String {
    format!("Push(coord={}, params=[{params}])", power_front())
}

fn push_lid(params: &str) -> String {
    format!("Push(coord={}, params=[{params}])", lid_front())
}

const NULL: &str = "Push(coord=[10, 10], params=[1])";

fn steps(bundle: &Bundle, task: &str, lambda: u32, actions: &[&str]) -> Vec<Step> {
    let mut e = Episode::new(bundle);
    e.reset(task, Settings::with_lambda(lambda)).expect("reset");
    actions.iter().map(|a| e.step(a).expect("step")).collect()
}

fn task(id: &str, state: &str, view: &str, goals: &[&str]) -> Task {
    Task {
        id: id.to_string(),
        initial_state: Some(state.to_string()),
        initial_view: Some(view.to_string()),
        goals: goals
            .iter()
            .map(|g| Goal {
                state: g.to_string(),
                instruction: format!("Reach {g}."),
            })
            .collect(),
    }
}

#[test]
fn a_goal_is_reached_when_the_device_is_in_its_state_after_a_step() {
    let s = steps(&kettle(), "boil", 5, &[&push_power("1")]);
    assert!(s[0].terminated && !s[0].truncated);
    assert_eq!(s[0].info.goal_index, 1);
    assert_eq!(s[0].observation.instruction, None);
}

#[test]
fn a_goal_passed_through_during_the_immediate_chain_is_reached() {
    let s = steps(
        &kettle(),
        "boil_until_done",
        5,
        &[&push_power("1"), "Timed_wait()"],
    );
    assert!(!s[0].terminated);
    assert_eq!(s[1].info.state, "Standby");
    assert!(s[1].terminated, "BoilingComplete was passed through");
}

#[test]
fn goals_reached_out_of_order_do_not_count() {
    // fill_then_boil: LidOpen, Standby, Boiling. Boiling first counts for nothing.
    let s = steps(&kettle(), "fill_then_boil", 5, &[&push_power("1")]);
    assert_eq!(s[0].info.state, "Boiling");
    assert_eq!(s[0].info.goal_index, 0);
    assert!(!s[0].terminated);
}

#[test]
fn the_next_instruction_appears_when_a_goal_is_reached() {
    let s = steps(
        &kettle(),
        "fill_then_boil",
        5,
        &[&push_lid("1"), &push_lid("0"), &push_power("1")],
    );
    let shown: Vec<Option<&str>> = s
        .iter()
        .map(|s| s.observation.instruction.as_deref())
        .collect();
    assert_eq!(
        shown,
        vec![Some("Close the lid."), Some("Now start heating."), None]
    );
    assert!(s[2].terminated);
}

#[test]
fn one_step_may_reach_several_goals_in_order() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    e.reset_task(
        &task("two", "Boiling", "front", &["BoilingComplete", "Standby"]),
        Settings::default(),
    )
    .unwrap();
    let s = e.step("Timed_wait()").unwrap();
    assert!(s.terminated);
    let t = e.trajectory().unwrap();
    assert_eq!(t.steps[0].goals_reached, vec![0, 1]);
}

#[test]
fn a_goal_already_holding_when_it_begins_is_reached_after_one_step() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    let (_, info) = e
        .reset_task(
            &task("stay", "Standby", "front", &["Standby"]),
            Settings::default(),
        )
        .unwrap();
    assert_eq!(info.c_opt, Some(1));
    assert!(e.step("Switch_view(params=[back])").unwrap().terminated);
}

#[test]
fn the_global_budget_is_lambda_times_the_sum_of_c_opt_along_the_ideal_path() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    for (task, lambda, expected) in [
        ("boil", 5, 5),
        ("fill_then_boil", 5, 15),
        ("boil_until_done", 5, 10),
        ("boil_from_top", 3, 6),
        ("fill_then_boil", 2, 6),
    ] {
        let (_, info) = e.reset(task, Settings::with_lambda(lambda)).unwrap();
        assert_eq!(info.budget_global_total, expected, "{task} λ={lambda}");
        assert_eq!(info.budget_global, expected);
    }
}

#[test]
fn lambda_defaults_to_five() {
    assert_eq!(Settings::default().lambda, 5);
}

#[test]
fn the_local_budget_starts_at_lambda_times_the_first_goals_c_opt() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    let (_, info) = e.reset("fill_then_boil", Settings::with_lambda(4)).unwrap();
    assert_eq!(info.budget_local, 4);
    let (_, info) = e.reset("boil_from_top", Settings::with_lambda(4)).unwrap();
    assert_eq!(info.budget_local, 8);
}

#[test]
fn the_local_budget_rises_to_lambda_times_the_next_c_opt_on_reaching_a_goal() {
    // λ = 3; goals LidOpen then Boiling. Reaching LidOpen from the top view
    // leaves Boiling 3 steps away (close the lid, switch, push): local
    // becomes max(3 - 2, 3 · 3) = 9.
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    e.reset_task(
        &task("t", "Standby", "front", &["LidOpen", "Boiling"]),
        Settings::with_lambda(3),
    )
    .unwrap();
    e.step("Switch_view(params=[top])").unwrap();
    let s = e
        .step(&format!("Push(coord={}, params=[1])", lid_top()))
        .unwrap();
    assert_eq!(s.info.goal_index, 1);
    assert_eq!(s.info.c_opt, Some(3));
    assert_eq!(s.info.budget_local, 9);
    let t = e.trajectory().unwrap();
    assert_eq!(t.steps[1].next_goal_c_opt, Some(3));
    // And it never drops because a goal was reached: max keeps the larger.
    let mut e = Episode::new(&bundle);
    e.reset_task(
        &task("t", "Standby", "top", &["Boiling", "Standby"]),
        Settings::with_lambda(10),
    )
    .unwrap();
    e.step("Switch_view(params=[front])").unwrap();
    let s = e.step(&push_power("1")).unwrap();
    assert_eq!(s.info.goal_index, 1);
    assert_eq!(s.info.budget_local, 20 - 2, "max(18, 10 · 1)");
}

#[test]
fn the_local_budget_running_out_truncates() {
    let s = steps(&kettle(), "fill_then_boil", 2, &[NULL, NULL]);
    assert!(!s[0].truncated);
    assert!(s[1].truncated && !s[1].terminated);
    assert_eq!(s[1].info.budget_local, 0);
    assert_eq!(
        s[1].info.budget_global, 4,
        "the global budget was not the cause"
    );
}

#[test]
fn the_global_budget_running_out_truncates() {
    // Power button only reachable through the dashboard. Goals LidOpen then
    // Boiling: ideal C_opt 1 + 3 (close, unlock, push), λ = 2: B_global = 8.
    // Opening the lid from the top view lifts the local budget to 2 · 4.
    let bundle = kettle_panel_only();
    let mut e = Episode::new(&bundle);
    let (_, info) = e
        .reset_task(
            &task("t", "Standby", "front", &["LidOpen", "Boiling"]),
            Settings::with_lambda(2),
        )
        .unwrap();
    assert_eq!(info.budget_global_total, 8);
    e.step("Switch_view(params=[top])").unwrap();
    let s = e
        .step(&format!("Push(coord={}, params=[1])", lid_top()))
        .unwrap();
    assert_eq!(s.info.budget_local, 8);
    let mut last = s;
    for _ in 0..6 {
        last = e.step(NULL).unwrap();
    }
    assert!(last.truncated);
    assert_eq!(last.info.steps, 8);
    assert_eq!(last.info.budget_global, 0);
    assert_eq!(
        last.info.budget_local, 2,
        "the local budget was not the cause"
    );
}

#[test]
fn reaching_the_last_goal_on_the_last_step_terminates_rather_than_truncates() {
    let s = steps(&kettle(), "boil", 1, &[&push_power("1")]);
    assert!(s[0].terminated && !s[0].truncated);
    assert_eq!(s[0].info.budget_local, 0);
}

#[test]
fn budgets_never_go_below_zero() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    e.reset("boil", Settings::with_lambda(1)).unwrap();
    let s = e.step(NULL).unwrap();
    assert!(s.truncated);
    assert_eq!((s.info.budget_global, s.info.budget_local), (0, 0));
    assert!(matches!(e.step(NULL), Err(SimError::Finished { .. })));
}

#[test]
fn lambda_zero_ends_the_episode_at_reset() {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    e.reset("boil", Settings::with_lambda(0)).unwrap();
    assert!(e.is_done());
    assert!(e.trajectory().unwrap().truncated);
}

#[test]
fn an_unreachable_goal_is_an_error_at_reset() {
    let mut b = kettle();
    for state in b.ssm.states.values_mut() {
        if let Some(ts) = state.on.get_mut("power_button") {
            for t in ts {
                t.bbox.clear();
            }
        }
    }
    let mut e = Episode::new(&b);
    let err = e.reset("boil", Settings::default()).unwrap_err();
    assert!(matches!(err, SimError::Unreachable { .. }), "{err}");
}
