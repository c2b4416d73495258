//! Invariants of the simulator, checked on generated inputs (`proptest`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use proptest::prelude::*;

use knoblab_core::sim::{parse_action, recheck, Episode, Settings};
use knoblab_eval::agents::{run_tasks, Oracle};

use support::*;

/// Action texts near the real forms: every verb (and a wrong one), points
/// on and off the scale, parameters, views, noise around them.
fn action_text() -> impl Strategy<Value = String> {
    let verb = prop_oneof![
        Just("Press"),
        Just("Push"),
        Just("pull"),
        Just("ROTATE"),
        Just("Grasp"),
        Just("Timed_wait"),
        Just("Switch_view"),
        Just("Click"),
    ];
    let coord = (-5i64..1010, -5i64..1010);
    let params = prop::collection::vec(
        prop_oneof![
            Just("0".to_string()),
            Just("1".to_string()),
            Just("1.0".to_string()),
            Just("*".to_string()),
            Just("'right'".to_string()),
            Just("dashboard".to_string()),
            Just("top".to_string()),
            Just("front".to_string())
        ],
        0..3,
    );
    let shaped =
        (verb, prop::option::of(coord), params, any::<bool>()).prop_map(|(v, c, p, marker)| {
            let mut args = Vec::new();
            if let Some((x, y)) = c {
                args.push(format!("coord=[{x}, {y}]"));
            }
            if !p.is_empty() {
                args.push(format!("params=[{}]", p.join(", ")));
            }
            let call = format!("{v}({})", args.join(", "));
            if marker {
                format!("Thought: hm.\nAction: {call}.")
            } else {
                call
            }
        });
    prop_oneof![4 => shaped, 1 => any::<String>()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics_the_parser(text in any::<String>()) {
        let _ = parse_action(&text);
    }

    #[test]
    fn arbitrary_text_never_panics_a_step(text in any::<String>()) {
        let bundle = kettle_panel();
        let mut e = Episode::new(&bundle);
        e.reset("fill_then_boil", Settings::default()).unwrap();
        prop_assert!(e.step(&text).is_ok());
    }

    #[test]
    fn budgets_never_go_below_zero_and_episodes_end_within_the_global_budget(
        actions in prop::collection::vec(action_text(), 1..60),
        lambda in 1u32..4,
        task in 0usize..7,
    ) {
        let bundle = kettle_panel();
        let mut e = Episode::new(&bundle);
        let id = bundle.tasks[task].id.clone();
        let (_, info) = e.reset(&id, Settings::with_lambda(lambda)).unwrap();
        let total = info.budget_global_total;
        for a in &actions {
            if e.is_done() {
                break;
            }
            let s = e.step(a).unwrap();
            prop_assert_eq!(s.info.budget_global, total.saturating_sub(s.info.steps));
            prop_assert!(s.info.steps <= total);
            if s.info.budget_local == 0 || s.info.budget_global == 0 {
                prop_assert!(s.terminated || s.truncated);
            }
            prop_assert!(!(s.terminated && s.truncated));
        }
        let t = e.trajectory().unwrap();
        prop_assert!(t.steps.len() as u32 <= total);
    }

    #[test]
    fn recheck_is_byte_identical(
        actions in prop::collection::vec(action_text(), 0..40),
        task in 0usize..7,
    ) {
        let bundle = kettle_panel();
        let mut e = Episode::new(&bundle);
        let id = bundle.tasks[task].id.clone();
        e.reset(&id, Settings::with_lambda(10)).unwrap();
        for a in &actions {
            if e.is_done() {
                break;
            }
            e.step(a).unwrap();
        }
        let t = e.into_trajectory().unwrap();
        let again = recheck(&bundle, &t).unwrap();
        prop_assert_eq!(again.to_json_line().unwrap(), t.to_json_line().unwrap());
    }

    #[test]
    fn the_oracle_solves_every_task_within_budget_for_any_lambda(lambda in 1u32..12) {
        for bundle in all_bundles() {
            let mut oracle = Oracle::new(&bundle);
            for t in run_tasks(&bundle, None, &mut oracle, &Settings::with_lambda(lambda)).unwrap() {
                prop_assert!(t.terminated && !t.truncated, "{}", t.task_id);
                prop_assert_eq!(t.steps.len() as u32, t.ideal_c_opt.iter().sum::<u32>());
            }
        }
    }
}
