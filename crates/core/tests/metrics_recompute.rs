//! Recompute, never trust (issue #47): the metrics refuse a record whose
//! counters are within range but false (an optimal length, a goal count,
//! the ideal path's states, a budget), and steps that do not chain, naming
//! the line, the step and the field.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::metrics::{self, MetricsError};
use knoblab_core::sim::{Episode, Settings, Trajectory};

use support::*;

/// `fill_then_boil` on the kettle, solved in four steps where three
/// would do (a miss first): C_opt 1, 1, 1.
fn played() -> Trajectory {
    let bundle = kettle();
    let mut e = Episode::new(&bundle);
    e.reset("fill_then_boil", Settings::default()).unwrap();
    for a in [
        "Push(coord=[10, 10], params=[1])".to_string(),
        format!("Push(coord={}, params=[1])", lid_front()),
        format!("Push(coord={}, params=[0])", lid_front()),
        format!("Push(coord={}, params=[1])", power_front()),
    ] {
        e.step(&a).unwrap();
    }
    let t = e.into_trajectory().unwrap();
    assert!(t.terminated, "the script solves the task");
    t
}

/// The error of scoring `t` as line 7 of a run.
fn refusal(t: &Trajectory) -> MetricsError {
    metrics::run_numbered(&[kettle()], &[(7, t)]).unwrap_err()
}

/// The field a [`MetricsError::Record`] names, and its message.
fn field_of(err: &MetricsError) -> (String, String) {
    match err {
        MetricsError::Record(m) => (m.field.clone(), err.to_string()),
        other => panic!("expected a record mismatch, got {other:?}"),
    }
}

#[test]
fn an_honest_record_is_scored() {
    let t = played();
    let m = metrics::run_numbered(&[kettle()], &[(1, &t)]).unwrap();
    assert_eq!(m.metrics.sr, Some(1.0));
    // L_opt = 3, L_act = 4.
    assert_eq!(m.metrics.spl, Some(0.75));
}

#[test]
fn a_false_optimal_length_is_refused_with_both_values() {
    let mut t = played();
    assert_eq!(t.ideal_c_opt, vec![1, 1, 1]);
    // In range, and it would make SPL 1 (L_opt 4 = L_act).
    t.ideal_c_opt = vec![1, 2, 1];
    let err = refusal(&t);
    let (field, message) = field_of(&err);
    assert_eq!(field, "ideal_c_opt");
    assert!(message.contains("line 7"), "{message}");
    assert!(message.contains("is [1,2,1]"), "{message}");
    assert!(message.contains("played again give [1,1,1]"), "{message}");

    let mut t = played();
    t.first_goal_c_opt = 2;
    assert_eq!(field_of(&refusal(&t)).0, "first_goal_c_opt");

    let mut t = played();
    let i = t
        .steps
        .iter()
        .position(|s| s.next_goal_c_opt.is_some())
        .unwrap();
    t.steps[i].next_goal_c_opt = Some(3);
    assert_eq!(
        field_of(&refusal(&t)).0,
        format!("steps[{i}].next_goal_c_opt")
    );
}

#[test]
fn a_false_goal_count_is_refused() {
    // The episode's count: 2 of 3 goals, in range, with terminated false to match.
    let mut t = played();
    t.goals_reached = 2;
    t.terminated = false;
    assert_eq!(field_of(&refusal(&t)).0, "goals_reached");

    // The goals total and count right, but a goal claimed a step early.
    let mut t = played();
    let i = t
        .steps
        .iter()
        .position(|s| !s.goals_reached.is_empty())
        .unwrap();
    assert!(i > 0);
    t.steps[i - 1].goals_reached = std::mem::take(&mut t.steps[i].goals_reached);
    let (field, message) = field_of(&refusal(&t));
    assert_eq!(
        field,
        format!("steps[{}].goals_reached", i - 1),
        "{message}"
    );

    // The ideal path's states (State-F1) and the budget.
    let mut t = played();
    t.ideal_states.pop();
    assert_eq!(field_of(&refusal(&t)).0, "ideal_states");
    let mut t = played();
    t.budget_global_total += 5;
    assert_eq!(field_of(&refusal(&t)).0, "budget_global_total");
    let mut t = played();
    t.steps[0].outcome = t.steps[1].outcome;
    assert_eq!(field_of(&refusal(&t)).0, "steps[0].outcome");
}

#[test]
fn a_step_that_does_not_chain_is_refused_with_line_and_step() {
    let mut t = played();
    // Step 3 (index 2) claims to start in Boiling; step 2 ended in LidOpen.
    assert_eq!(t.steps[1].state_after, "LidOpen");
    t.steps[2].state_before = "Boiling".into();
    let err = refusal(&t);
    assert!(
        matches!(err, MetricsError::NotChained { step: 3, .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("line 7"), "{message}");
    assert!(message.contains("step 3"), "{message}");
    assert!(
        message.contains("starts in state \"Boiling\", but step 2 ended in state \"LidOpen\""),
        "{message}"
    );

    // The first step must start where the task does.
    let mut t = played();
    t.steps[0].view_before = "top".into();
    let err = refusal(&t);
    assert!(
        matches!(err, MetricsError::NotChained { step: 1, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("the task starts in view \"front\""),
        "{err}"
    );
}

#[test]
fn a_step_after_the_end_is_refused() {
    let mut t = played();
    let mut extra = t.steps.last().unwrap().clone();
    extra.state_before = extra.state_after.clone();
    extra.view_before = extra.view_after.clone();
    extra.goals_reached.clear();
    t.steps.push(extra);
    let err = refusal(&t);
    assert!(
        matches!(err, MetricsError::NotChained { step: 5, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("already ended after step 4"),
        "{err}"
    );
}
