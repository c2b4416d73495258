//! Linear work at a moderate size (issue #47): the goal distances of a
//! ring of 20,000 states, an ideal path of 5,000 steps, and the checks of
//! one state with 20,000 components and 20,000 tasks all finish, with the
//! right answers. How long the full sizes take (100,000 states; 40,000
//! components and tasks) is measured in docs/performance.md, not here.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::bundle::{validate_bundle, Goal, StateMachine, Task};
use knoblab_core::sim::{Device, Episode, GoalDistance, Settings};

/// A ring of `n` states `S0 → S1 → … → S0`, one push of the power button
/// each, on the kettle's front view.
fn ring(n: usize) -> StateMachine {
    let mut states = serde_json::Map::new();
    for i in 0..n {
        states.insert(
            format!("S{i}"),
            serde_json::json!({"description": "", "on": {"power_button": [{
                "next_state": format!("S{}", (i + 1) % n),
                "transition_description": "",
                "bbox": [{"coordinate": [852, 955, 184, 76, 1209, 1369], "view": "front"}],
                "atomic_action": "push", "parameter": ["1"]
            }]}}),
        );
    }
    serde_json::from_value(
        serde_json::json!({"name": "Ring", "path": "ring", "initial_state": "S0", "states": states}),
    )
    .unwrap()
}

fn task(id: &str, goal: &str, instruction: &str) -> Task {
    Task {
        id: id.into(),
        initial_state: None,
        initial_view: None,
        goals: vec![Goal {
            state: goal.into(),
            instruction: instruction.into(),
        }],
    }
}

#[test]
fn goal_distances_and_the_ideal_path_on_a_long_ring() {
    let n = 20_000;
    let mut bundle = support::kettle();
    bundle.ssm = ring(n);
    bundle.tasks = vec![task("far", "S5000", "Go on.")];
    let device = Device::new(&bundle);
    let goal = device.state("S0").unwrap();
    let d = GoalDistance::new(&device, goal);
    for i in [0, 1, 2, 4_999, 10_000, 19_999] {
        let s = device.state(&format!("S{i}")).unwrap();
        assert_eq!(d.of(s), Some(((n - i) % n) as u32), "S{i}");
    }
    let mut episode = Episode::new(&bundle);
    episode.reset("far", Settings::default()).unwrap();
    let t = episode.trajectory().unwrap();
    assert_eq!(t.ideal_c_opt, vec![5_000]);
    assert_eq!(t.ideal_states.len(), 5_001);
    assert_eq!(t.ideal_states[5_000], "S5000");
}

#[test]
fn one_state_with_many_components_and_tasks_is_checked() {
    let n = 20_000;
    let mut bundle = support::kettle();
    let mut on = serde_json::Map::new();
    for i in 0..n {
        on.insert(
            format!("dial_{i}"),
            serde_json::json!([{
                "next_state": "Start", "transition_description": "",
                "bbox": [{"coordinate": [852, 955, 184, 76, 1209, 1369], "view": "front"}],
                "atomic_action": "push", "parameter": ["1"]
            }]),
        );
    }
    bundle.ssm = serde_json::from_value(serde_json::json!({
        "name": "Wide", "path": "wide", "initial_state": "Start",
        "states": {"Start": {"description": "", "on": on}}
    }))
    .unwrap();
    bundle.tasks = (0..n)
        .map(|i| task(&format!("t{i}"), "Start", "Leave it as it is."))
        .collect();
    // Two instructions name a component, one in each spelling.
    bundle.tasks[7].goals[0].instruction = "Turn DIAL_12 a little.".into();
    bundle.tasks[9].goals[0].instruction = "Turn dial 19999, then dial 5.".into();
    let named: Vec<String> = validate_bundle(&bundle)
        .into_iter()
        .filter(|d| d.message.contains("names the internal component"))
        .map(|d| format!("{}: {}", d.location, d.message))
        .collect();
    // `dial_12` also contains `dial_1`; `dial 19999` contains `dial 1`,
    // `dial 19`, `dial 199` and `dial 1999`: a name inside an instruction
    // is found wherever it is, as before.
    let components = |task: usize| -> Vec<&str> {
        named
            .iter()
            .filter(|m| m.contains(&format!("tasks[{task}]")))
            .map(|m| m.split('"').nth(1).unwrap())
            .collect()
    };
    assert_eq!(components(7), ["dial_1", "dial_12"]);
    assert_eq!(
        components(9),
        [
            "dial_1",
            "dial_19",
            "dial_199",
            "dial_1999",
            "dial_19999",
            "dial_5"
        ]
    );
    assert_eq!(named.len(), 8, "{named:?}");
}
