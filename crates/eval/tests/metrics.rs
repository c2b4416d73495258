//! VGEBench metrics (`specs/devices.md` section 6) on small scripted
//! trajectories over the in-code kettle, with the values worked out by hand.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::metrics::{self, EpisodeMetrics, MetricsError};
use knoblab_core::sim::{Outcome, Settings, Trajectory};
use knoblab_eval::agents::{run_episode, run_tasks, Oracle, RandomAgent, ScriptAgent};

use support::*;

/// Values here come from a handful of additions and one square root; 1e-9
/// is far above f64 rounding and far below any difference that matters.
const EPS: f64 = 1e-9;

fn close(found: Option<f64>, expected: f64, what: &str) {
    let f = found.unwrap_or_else(|| panic!("{what}: undefined, expected {expected}"));
    assert!((f - expected).abs() < EPS, "{what}: {f} != {expected}");
}

fn play(task: &str, actions: &[&str]) -> Trajectory {
    let bundle = kettle();
    let mut agent = ScriptAgent::new("script", actions.iter().map(|a| a.to_string()).collect());
    run_episode(&bundle, task, &mut agent, &Settings::default()).unwrap()
}

fn score(t: &Trajectory) -> EpisodeMetrics {
    metrics::episode(&kettle(), t).unwrap()
}

fn errors(m: &EpisodeMetrics, class: &str) -> u64 {
    m.metrics.errors[class]
}

/// The power button's front box `[852, 955, 184, 76]` in a 1209 × 1369
/// image, on the 0–1000 scale: x from 852·1000/1209, y from 955·1000/1369.
fn distance_to_power_front(x: f64, y: f64) -> f64 {
    let x0 = 852.0 * 1000.0 / 1209.0; // 704.71
    let y0 = 955.0 * 1000.0 / 1369.0; // 697.59
    (x0 - x).hypot(y0 - y)
}

/// Task `boil` (Standby → Boiling from the front view, C_opt = 1, L_opt = 1):
/// wrong parameters, wrong action type, a miss, then the right push.
#[test]
fn wrong_params_wrong_type_a_miss_then_success() {
    let p = power_front();
    let t = play(
        "boil",
        &[
            &format!("Push(coord={p}, params=[0])"),
            &format!("Press(coord={p}, params=[1])"),
            "Push(coord=[100, 100], params=[1])",
            &format!("Push(coord={p}, params=[1])"),
        ],
    );
    assert!(t.terminated);
    let m = score(&t);
    let x = &m.metrics;
    close(x.sr, 1.0, "SR");
    close(x.ssr, 1.0, "SSR");
    // S · L_opt / max(L_act, L_opt) = 1 · 1 / max(4, 1)
    close(x.spl, 0.25, "SPL");
    // visited {Standby, Boiling} = ideal {Standby, Boiling}
    close(x.state_f1, 1.0, "State-F1");
    // 4 coordinate actions, 3 on the power button (a target: Standby is 1
    // transition from Boiling, the push leads to 0)
    close(x.eir, 0.75, "EIR");
    close(x.tir, 0.75, "TIR");
    // no switch before the goal: 0 / 1
    close(x.vsps, 0.0, "VSPS");
    close(x.gvpe, 0.0, "GVPE");
    // only the last step changed anything: 1 / 4
    close(x.eer, 0.25, "EER");
    // 4 steps for a goal of C_opt 1
    close(x.psr, 0.0, "PSR");
    // distances 0, 0, d(100, 100), 0 over 4 actions with the target visible;
    // weights 1, 2, 3 (three failed attempts at the power button), then 1
    let d = distance_to_power_front(100.0, 100.0); // hypot(604.71, 597.59) ≈ 850.2
    close(x.avg_dist, d / 4.0, "Avg Dist");
    close(x.avg_w_dist, 3.0 * d / 4.0, "Avg W-Dist");
    assert_eq!(errors(&m, "params_error"), 1);
    assert_eq!(errors(&m, "action_error"), 1);
    assert_eq!(errors(&m, "invalid_coord"), 1);
    assert_eq!(m.counts.failed_steps(), 3);
}

/// Task `boil` with nothing but waiting: no coordinate action, no goal
/// reached (VSPS undefined), truncated when the 5 steps of B_global = 5 · 1
/// are spent.
#[test]
fn only_waiting_no_goal_no_coordinates_truncated() {
    let t = play("boil", &["Timed_wait()"; 9]);
    assert!(t.truncated && !t.terminated);
    assert_eq!(t.steps.len(), 5);
    let m = score(&t);
    let x = &m.metrics;
    close(x.sr, 0.0, "SR");
    close(x.ssr, 0.0, "SSR");
    close(x.spl, 0.0, "SPL");
    // visited {Standby}, ideal {Standby, Boiling}: 2 · 1 / (1 + 2)
    close(x.state_f1, 2.0 / 3.0, "State-F1");
    assert_eq!(x.eir, None, "no coordinate action: EIR undefined");
    assert_eq!(x.tir, None);
    assert_eq!(x.vsps, None, "no goal reached: VSPS undefined, not 0");
    assert_eq!(x.gvpe, None);
    assert_eq!(x.avg_dist, None);
    assert_eq!(x.avg_w_dist, None);
    close(x.eer, 0.0, "EER");
    close(x.psr, 0.0, "PSR");
    assert_eq!(errors(&m, "invalid_waiting"), 5);
    assert_eq!(m.counts.failed_steps(), 5);
    assert_eq!(metrics::number(x.vsps), "–");
    let json = serde_json::to_value(&m).unwrap();
    assert!(json["vsps"].is_null(), "{json}");
}

/// Task `boil_until_done` (Standby → BoilingComplete, whose immediate
/// transition goes straight on to Standby; C_opt = 2: push, wait):
/// 1. switch front → top: the power button (the target) is visible on
///    the front, not the top: PN, a failed switch;
/// 2. switch top → front: NP;
/// 3. push the power button: Boiling (one transition closer);
/// 4. push the lid button while boiling: dangerous (Error, then reset to
///    Standby); in Boiling only waiting moves closer, so the lid is no
///    target: Component Selection;
/// 5. push the power button again: Boiling;
/// 6. wait: Boiling → BoilingComplete → Standby, the goal reached by
///    passing through it.
#[test]
fn switches_a_dangerous_step_and_a_goal_reached_by_pass_through() {
    let p = power_front();
    let lid = lid_front();
    let t = play(
        "boil_until_done",
        &[
            "Switch_view(params=[top])",
            "Switch_view(params=[front])",
            &format!("Push(coord={p}, params=[1])"),
            &format!("Push(coord={lid}, params=[1])"),
            &format!("Push(coord={p}, params=[1])"),
            "Timed_wait()",
        ],
    );
    assert!(t.terminated);
    assert_eq!(t.steps[3].outcome, Outcome::Dangerous);
    assert_eq!(t.steps[5].state_after, "Standby");
    assert_eq!(t.steps[5].goals_reached, vec![0]);
    let m = score(&t);
    let x = &m.metrics;
    close(x.sr, 1.0, "SR");
    // L_opt = 2, L_act = 6
    close(x.spl, 2.0 / 6.0, "SPL");
    // visited {Standby, Boiling, Error, BoilingComplete},
    // ideal {Standby, Boiling, BoilingComplete}: 2 · 3 / (4 + 3)
    close(x.state_f1, 6.0 / 7.0, "State-F1");
    // coordinate actions: steps 3, 4, 5, all on a component; 3 and 5 on the target
    close(x.eir, 1.0, "EIR");
    close(x.tir, 2.0 / 3.0, "TIR");
    // two switches before the goal-reaching step, one goal
    close(x.vsps, 2.0, "VSPS");
    close(x.gvpe, 2.0, "GVPE");
    // every step changed state or view; the dangerous one is invalid: 5 / 6
    close(x.eer, 5.0 / 6.0, "EER");
    // 6 steps for C_opt 2
    close(x.psr, 0.0, "PSR");
    // target visible at steps 3 and 5 (inside: 0); at step 4 no target exists
    close(x.avg_dist, 0.0, "Avg Dist");
    close(x.avg_w_dist, 0.0, "Avg W-Dist");
    assert_eq!(errors(&m, "switch_view_pn"), 1);
    assert_eq!(errors(&m, "component_selection"), 1);
    assert_eq!(m.counts.failed_steps(), 2);
    assert_eq!(m.metrics.view_switches["PN"], 1);
    assert_eq!(m.metrics.view_switches["NP"], 1);
    assert_eq!(m.metrics.view_switches["NN"], 0);
    assert_eq!(m.metrics.view_switches["PP"], 0);
}

/// Task `stop_heating` (Boiling → Standby): pushing the lid button while
/// boiling is dangerous, and the reset lands on Standby, so the simulator
/// counts the goal. The step still fails (Component Selection: a dangerous
/// transition is never a target) and is invalid for EER; it took 1 step for
/// C_opt 1, so PSR counts it.
#[test]
fn a_dangerous_step_whose_reset_reaches_the_goal_is_still_failed() {
    let lid = lid_front();
    let t = play("stop_heating", &[&format!("Push(coord={lid}, params=[1])")]);
    assert_eq!(t.steps[0].outcome, Outcome::Dangerous);
    assert_eq!(t.steps[0].goals_reached, vec![0]);
    let m = score(&t);
    close(m.metrics.sr, 1.0, "SR");
    close(m.metrics.eer, 0.0, "EER");
    close(m.metrics.psr, 1.0, "PSR");
    // visited {Boiling, Error, Standby}, ideal {Boiling, Standby}: 2 · 2 / (3 + 2)
    close(m.metrics.state_f1, 0.8, "State-F1");
    assert_eq!(errors(&m, "component_selection"), 1);
    assert_eq!(m.counts.failed_steps(), 1);
}

/// A refused switch and a switch between two views that both show the
/// target; unreadable text is an Action Error, a coordinate off the scale
/// an Invalid Coord.
#[test]
fn refused_switches_pp_switches_and_unreadable_actions() {
    let t = play(
        "boil",
        &[
            "Switch_view(params=[kitchen])",
            "Switch_view(params=[back])",
            "Click(coord=[5, 5])",
            "Push(coord=[1200, 5], params=[1])",
            "Switch_view(params=[front])",
        ],
    );
    assert!(t.truncated);
    let m = score(&t);
    // 1: refused, the target visible where the agent stays: PN;
    // 2: front → back, the power button on both: PP (a success);
    // 3: invalid verb; 4: coordinate off the scale; 5: back → front: PP
    assert_eq!(errors(&m, "switch_view_pn"), 1);
    assert_eq!(errors(&m, "action_error"), 1);
    assert_eq!(errors(&m, "invalid_coord"), 1);
    assert_eq!(m.counts.failed_steps(), 3);
    assert_eq!(m.metrics.view_switches["PP"], 2);
    assert_eq!(m.metrics.eir, None, "no coordinate was read");
    // switches 2 and 5 changed the view: 2 of 5 steps valid
    close(m.metrics.eer, 2.0 / 5.0, "EER");
}

/// Task `fill_then_boil` (LidOpen, Standby, Boiling), played optimally:
/// every goal in its C_opt steps from where it began.
#[test]
fn psr_counts_each_goal_from_where_it_began() {
    let (p, lid) = (power_front(), lid_front());
    let t = play(
        "fill_then_boil",
        &[
            &format!("Push(coord={lid}, params=[1])"),
            &format!("Push(coord={lid}, params=[0])"),
            "Timed_wait()",
            &format!("Push(coord={p}, params=[1])"),
        ],
    );
    assert!(t.terminated);
    let m = score(&t);
    // goals 1 and 2 took 1 step each (C_opt 1), goal 3 took 2 (C_opt 1): 2 / 3
    close(m.metrics.psr, 2.0 / 3.0, "PSR");
    close(m.metrics.ssr, 1.0, "SSR");
    // L_opt = 3, L_act = 4
    close(m.metrics.spl, 0.75, "SPL");
    assert_eq!(errors(&m, "invalid_waiting"), 1);
}

#[test]
fn a_run_averages_episodes_and_pools_actions() {
    let p = power_front();
    let a = play("boil", &[&format!("Push(coord={p}, params=[1])")]);
    let b = play("boil", &["Timed_wait()"; 5]);
    let r = metrics::run(&[kettle()], &[a, b]).unwrap();
    assert_eq!(r.episodes, 2);
    let x = &r.metrics;
    close(x.sr, 0.5, "SR");
    close(x.ssr, 0.5, "SSR");
    close(x.spl, 0.5, "SPL");
    // (1 + 2/3) / 2
    close(x.state_f1, 5.0 / 6.0, "State-F1");
    // one coordinate action over the run, on the target
    close(x.eir, 1.0, "EIR");
    close(x.tir, 1.0, "TIR");
    // only the first episode reached a goal: VSPS over it alone
    close(x.vsps, 0.0, "VSPS");
    close(x.gvpe, 0.0, "GVPE");
    // 1 valid of 6 steps
    close(x.eer, 1.0 / 6.0, "EER");
    close(x.psr, 0.5, "PSR");
    assert_eq!(x.errors["invalid_waiting"], 5);
    assert_eq!(r.per_episode.len(), 2);
    assert_eq!(r.per_episode[1].line, Some(2));
}

#[test]
fn the_oracle_scores_one_on_every_test_bundle() {
    for bundle in all_bundles() {
        let mut oracle = Oracle::new(&bundle);
        let ts = run_tasks(&bundle, None, &mut oracle, &Settings::default()).unwrap();
        let r = metrics::run(std::slice::from_ref(&bundle), &ts).unwrap();
        let id = &bundle.manifest.id;
        for (name, v) in [
            ("SR", r.metrics.sr),
            ("SSR", r.metrics.ssr),
            ("SPL", r.metrics.spl),
            ("PSR", r.metrics.psr),
            ("State-F1", r.metrics.state_f1),
        ] {
            close(v, 1.0, &format!("{id} {name}"));
        }
        for e in &r.per_episode {
            close(e.metrics.psr, 1.0, &format!("{id} {} PSR", e.task_id));
        }
    }
}

#[test]
fn a_seeded_random_agent_scores_the_same_run_to_run() {
    for bundle in all_bundles() {
        let score = || {
            let mut agent = RandomAgent::new(7);
            let ts = run_tasks(&bundle, None, &mut agent, &Settings::default()).unwrap();
            let r = metrics::run(std::slice::from_ref(&bundle), &ts).unwrap();
            serde_json::to_string(&r).unwrap()
        };
        assert_eq!(score(), score());
    }
}

#[test]
fn a_trajectory_of_changed_logic_is_refused_naming_the_episode() {
    let p = power_front();
    let good = play("boil", &[&format!("Push(coord={p}, params=[1])")]);
    let mut changed = kettle();
    if let Some(s) = changed.ssm.states.get_mut("Boiling") {
        s.description = "Heating, differently".to_string();
    }
    assert_ne!(changed.logic_hash(), kettle().logic_hash());
    let err = metrics::run(&[changed], &[good.clone(), good]).unwrap_err();
    assert!(matches!(err, MetricsError::ChangedLogic { .. }), "{err:?}");
    let msg = err.to_string();
    for part in ["kettle-0001", "task boil", "line 1", "not scored"] {
        assert!(msg.contains(part), "{msg}");
    }
}

#[test]
fn an_unknown_bundle_is_a_clear_error() {
    let p = power_front();
    let t = play("boil", &[&format!("Push(coord={p}, params=[1])")]);
    let err = metrics::run(&[kettle_panel()], &[t]).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, MetricsError::UnknownBundle { .. }));
    assert!(
        msg.contains("kettle-0001") && msg.contains("kettle-panel-0001"),
        "{msg}"
    );
}

#[test]
fn json_has_the_spec_keys() {
    let p = power_front();
    let t = play("boil", &[&format!("Push(coord={p}, params=[1])")]);
    let r = metrics::run(&[kettle()], &[t]).unwrap();
    let v = serde_json::to_value(&r).unwrap();
    for key in [
        "sr",
        "ssr",
        "spl",
        "state_f1",
        "eir",
        "tir",
        "eer",
        "psr",
        "vsps",
        "gvpe",
        "avg_dist",
        "avg_w_dist",
        "episodes",
        "errors",
        "view_switches",
        "per_episode",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["per_episode"][0]["task_id"], "boil");
    assert_eq!(v["errors"].as_object().map(|o| o.len()), Some(7));
}

fn play_on(bundle: &knoblab_core::bundle::Bundle, task: &str, actions: &[&str]) -> Trajectory {
    let mut agent = ScriptAgent::new("script", actions.iter().map(|a| a.to_string()).collect());
    run_episode(bundle, task, &mut agent, &Settings::default()).unwrap()
}

/// `kettle-panel`, task `boil`. The dashboard region
/// `[820, 930, 250, 130]` of the front view has its centre at
/// (945, 995) px = [782, 727] on the scale, on the power button's box.
#[test]
fn active_unlock_is_a_view_switch_passive_unlock_is_no_failure() {
    let bundle = kettle_panel();
    // Active unlock, then the power button on the dashboard (its box
    // [300, 150, 400, 200] of 1000 × 520: centre [500, 481]).
    let t = play_on(
        &bundle,
        "boil",
        &[
            "Switch_view(coord=[782, 727])",
            "Push(coord=[500, 481], params=[1])",
        ],
    );
    assert!(t.terminated);
    assert_eq!(t.steps[0].outcome, Outcome::Unlock);
    let m = metrics::episode(&bundle, &t).unwrap();
    let x = &m.metrics;
    // the target is visible on the front and on the dashboard: PP
    assert_eq!(x.view_switches["PP"], 1);
    assert_eq!(m.counts.failed_steps(), 0);
    // one switch before the goal, one goal
    close(x.vsps, 1.0, "VSPS");
    close(x.gvpe, 1.0, "GVPE");
    // both coordinates on the power button (a target): 2 / 2
    close(x.eir, 1.0, "EIR");
    close(x.tir, 1.0, "TIR");
    // the power button's front box lies inside the locked region, so
    // C_opt = 2 (unlock, push): L_opt 2 = L_act 2, and the goal in C_opt steps
    close(x.spl, 1.0, "SPL");
    close(x.psr, 1.0, "PSR");
    close(x.eer, 1.0, "EER");

    // Passive unlock: a push on the locked region is aborted and unlocks
    // the panel (no view change, no failure); the same push then fires.
    let t = play_on(
        &bundle,
        "boil",
        &[
            "Push(coord=[782, 727], params=[1])",
            "Push(coord=[782, 727], params=[1])",
        ],
    );
    assert!(t.terminated);
    assert_eq!(t.steps[0].outcome, Outcome::Unlock);
    let m = metrics::episode(&bundle, &t).unwrap();
    assert_eq!(m.counts.failed_steps(), 0);
    assert_eq!(m.counts.view_switches, 0);
    close(m.metrics.vsps, 0.0, "VSPS");
    close(m.metrics.eer, 1.0, "EER");
    close(m.metrics.avg_dist, 0.0, "Avg Dist");
}
