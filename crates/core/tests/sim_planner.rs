//! The planner and C_opt (`specs/devices.md` section 3).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::bundle::{Bundle, StateMachine, Task};
use knoblab_core::sim::{ideal_path, plan, Cost, Device, Move, Node};

use support::*;

fn ideal(bundle: &Bundle, task: &str) -> Vec<knoblab_core::sim::Plan> {
    let device = Device::new(bundle);
    let task: &Task = bundle.tasks.iter().find(|t| t.id == task).unwrap();
    let (start, goals) = device.task_start(task).unwrap();
    ideal_path(&device, start, &goals).unwrap()
}

fn costs(bundle: &Bundle, task: &str) -> Vec<(u32, u32)> {
    ideal(bundle, task)
        .iter()
        .map(|p| (p.cost.transitions, p.cost.switches))
        .collect()
}

#[test]
fn c_opt_of_one_transition_from_a_view_that_shows_the_component_is_one() {
    assert_eq!(costs(&kettle(), "boil"), vec![(1, 0)]);
    assert_eq!(costs(&kettle(), "open_lid"), vec![(1, 0)]);
    assert_eq!(costs(&kettle(), "stop_heating"), vec![(1, 0)]);
}

#[test]
fn c_opt_adds_the_view_switches_needed() {
    assert_eq!(costs(&kettle(), "boil_from_top"), vec![(1, 1)]);
}

#[test]
fn an_axonometric_start_needs_a_switch_before_acting() {
    assert_eq!(costs(&kettle(), "boil_from_angle"), vec![(1, 1)]);
}

#[test]
fn timed_wait_costs_one_and_passing_through_the_goal_counts() {
    let bundle = kettle();
    let plans = ideal(&bundle, "boil_until_done");
    assert_eq!(
        plans[0].cost,
        Cost {
            transitions: 2,
            switches: 0
        }
    );
    assert_eq!(plans[0].moves[1], Move::Wait);
    let device = Device::new(&bundle);
    assert_eq!(device.states[plans[0].end.state].name, "Standby");
}

#[test]
fn multi_goal_c_opt_is_taken_along_the_ideal_path() {
    assert_eq!(
        costs(&kettle(), "fill_then_boil"),
        vec![(1, 0), (1, 0), (1, 0)]
    );
    assert_eq!(
        costs(&kettle_panel_only(), "fill_then_boil"),
        vec![(1, 0), (1, 0), (1, 1)]
    );
}

#[test]
fn the_planner_unlocks_the_dashboard_when_it_is_needed() {
    let plans = ideal(&kettle_panel_only(), "boil");
    assert_eq!(plans[0].c_opt(), 2);
    assert!(matches!(plans[0].moves[0], Move::Unlock { .. }));
    assert!(matches!(plans[0].moves[1], Move::Fire { .. }));
}

#[test]
fn the_planner_never_takes_a_dangerous_shortcut() {
    // From LidOpen, Standby is one transition away two ways: closing the
    // lid, or heating with the lid open (Error, then reset to Standby).
    let bundle = kettle();
    let device = Device::new(&bundle);
    let from = Node {
        state: device.state("LidOpen").unwrap(),
        view: device.view("front").unwrap(),
        unlocked: false,
    };
    let p = plan(&device, from, device.state("Standby").unwrap()).unwrap();
    assert_eq!(p.c_opt(), 1);
    let Move::Fire { component, .. } = &p.moves[0] else {
        panic!("expected a firing move, got {:?}", p.moves[0]);
    };
    assert_eq!(device.components[*component], "lid_release_button");
    assert!(!p.entered.contains(&device.state("Error").unwrap()));
}

/// S0 reaches G by `x` (visible only on top) or by `y` twice (on front).
fn fork() -> Bundle {
    let ssm: StateMachine = serde_json::from_value(serde_json::json!({
        "name": "Fork", "initial_state": "S0",
        "states": {
            "S0": {"description": "start", "on": {
                "x": [{"next_state": "G", "transition_description": "x",
                       "bbox": [{"coordinate": [10, 10, 50, 50, 1292, 760], "view": "top"}],
                       "atomic_action": "press", "parameter": ["0"]}],
                "y": [{"next_state": "M", "transition_description": "y",
                       "bbox": [{"coordinate": [10, 10, 50, 50, 1209, 1369], "view": "front"}],
                       "atomic_action": "press", "parameter": ["0"]}]}},
            "M": {"description": "middle", "on": {
                "y": [{"next_state": "G", "transition_description": "y again",
                       "bbox": [{"coordinate": [10, 10, 50, 50, 1209, 1369], "view": "front"}],
                       "atomic_action": "press", "parameter": ["0"]}]}},
            "G": {"description": "goal", "on": {}}
        }
    }))
    .unwrap();
    let mut b = kettle();
    b.ssm = ssm;
    b
}

#[test]
fn the_planner_minimises_transitions_first_then_switches() {
    let bundle = fork();
    let device = Device::new(&bundle);
    let from = Node {
        state: device.state("S0").unwrap(),
        view: device.view("front").unwrap(),
        unlocked: false,
    };
    let p = plan(&device, from, device.state("G").unwrap()).unwrap();
    // (1 transition, 1 switch) beats (2 transitions, 0 switches).
    assert_eq!(
        p.cost,
        Cost {
            transitions: 1,
            switches: 1
        }
    );
    assert!(matches!(p.moves[0], Move::Switch { .. }));
}

#[test]
fn a_goal_that_holds_already_costs_one_step() {
    let bundle = kettle();
    let device = Device::new(&bundle);
    let from = Node {
        state: device.state("Standby").unwrap(),
        view: 0,
        unlocked: false,
    };
    let p = plan(&device, from, from.state).unwrap();
    assert_eq!(p.c_opt(), 1);
    assert_eq!(p.moves, vec![Move::Stay { view: 0 }]);
}

#[test]
fn the_oracle_clicks_the_centre_of_the_components_box() {
    let bundle = kettle();
    let plans = ideal(&bundle, "boil");
    let device = Device::new(&bundle);
    assert_eq!(
        plans[0].moves[0].action(&device).to_string(),
        format!("Push(coord={}, params=[1])", power_front())
    );
}

#[test]
fn the_component_box_index_is_the_union_over_transitions_scaled_to_the_image() {
    let bundle = kettle_panel();
    let index = knoblab_core::sim::ComponentBoxIndex::build(&bundle);
    let front = index.in_view("front");
    // Each component once per view, however many transitions carry the box.
    assert_eq!(front.len(), 2);
    let dash = index.in_view("dashboard");
    assert_eq!(dash.len(), 1);
    assert_eq!(dash[0].component, "power_button");
    assert!(index.in_view("front_top").is_empty());
    assert_eq!(
        index.component_at(
            "front",
            knoblab_core::geom::PixelPoint { x: 944.0, y: 993.0 }
        ),
        Some("power_button")
    );
}
