//! Agents that need no model and the runner (`specs/devices.md` section 7).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/mod.rs"]
mod support;

use knoblab_core::sim::{ActionKind, Outcome, Settings, Trajectory};
use knoblab_eval::agents::{
    run_episode, run_tasks, Agent, AgentSpec, Oracle, RandomAgent, ScriptAgent,
};

use support::*;

/// Every goal of the trajectory was reached in exactly its C_opt steps,
/// measured from where the goal began.
pub fn assert_every_goal_in_exactly_c_opt(t: &Trajectory) {
    assert!(t.terminated && !t.truncated, "{}: not solved", t.task_id);
    assert_eq!(t.goals_reached, t.goals_total);
    let mut c_opt = t.first_goal_c_opt;
    let mut began = 0;
    for (i, s) in t.steps.iter().enumerate() {
        if !s.goals_reached.is_empty() {
            assert_eq!(
                (i + 1 - began) as u32,
                c_opt,
                "{}: goal {:?}",
                t.task_id,
                s.goals_reached
            );
            began = i + 1;
            c_opt = s.next_goal_c_opt.unwrap_or(0);
        }
    }
    let l_opt: u32 = t.ideal_c_opt.iter().sum();
    assert_eq!(t.steps.len() as u32, l_opt, "{}: SPL < 1", t.task_id);
    assert!(t.steps.iter().all(|s| s.outcome != Outcome::Dangerous));
}

#[test]
fn the_oracle_solves_every_task_of_every_test_bundle_in_exactly_c_opt_steps() {
    for bundle in all_bundles() {
        for lambda in [1, 5] {
            let mut oracle = Oracle::new(&bundle);
            let ts = run_tasks(&bundle, None, &mut oracle, &Settings::with_lambda(lambda)).unwrap();
            assert_eq!(ts.len(), bundle.tasks.len());
            for t in &ts {
                assert_eq!(t.settings.agent, "oracle");
                assert_every_goal_in_exactly_c_opt(t);
            }
        }
    }
}

#[test]
fn the_oracle_uses_switches_and_unlocks_when_needed() {
    let bundle = kettle_panel_only();
    let mut oracle = Oracle::new(&bundle);
    let t = run_episode(
        &bundle,
        "boil_from_top",
        &mut oracle,
        &Settings::with_lambda(1),
    )
    .unwrap();
    let outcomes: Vec<Outcome> = t.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        vec![Outcome::ViewSwitch, Outcome::Unlock, Outcome::Transition]
    );
}

#[test]
fn the_random_agent_is_reproducible_from_its_seed() {
    let bundle = kettle_panel();
    let run = |seed| {
        let mut agent = RandomAgent::new(seed);
        run_episode(
            &bundle,
            "fill_then_boil",
            &mut agent,
            &Settings::with_lambda(20),
        )
        .unwrap()
        .to_json_line()
        .unwrap()
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

#[test]
fn the_random_agent_draws_every_action_kind_and_valid_text() {
    let mut agent = RandomAgent::new(1);
    let views = vec!["front".to_string(), "back".to_string()];
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..500 {
        let a = agent.draw(&views);
        seen.insert(a.kind);
        assert_eq!(knoblab_core::sim::parse_action(&a.to_string()), Ok(a));
    }
    assert_eq!(seen.len(), ActionKind::ALL.len());
}

#[test]
fn the_random_agent_ends_within_the_global_budget() {
    for bundle in all_bundles() {
        let mut agent = RandomAgent::new(3);
        for t in run_tasks(&bundle, None, &mut agent, &Settings::default()).unwrap() {
            assert!(t.terminated || t.truncated);
            assert!(t.steps.len() as u32 <= t.budget_global_total);
            assert_eq!(t.settings.agent, "random:3");
        }
    }
}

#[test]
fn the_script_agent_plays_its_lines_and_stops_when_they_run_out() {
    let bundle = kettle();
    let text = format!(
        "# open, then close\n\nPush(coord={lid}, params=[1])\n  Push(coord={lid}, params=[0])  \n",
        lid = lid_front()
    );
    let mut agent = ScriptAgent::from_text("script:t", &text);
    let t = run_episode(&bundle, "fill_then_boil", &mut agent, &Settings::default()).unwrap();
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.goals_reached, 2);
    assert!(!t.terminated && !t.truncated, "stopped by the agent");
    // Reset starts the script again.
    let t2 = run_episode(&bundle, "fill_then_boil", &mut agent, &Settings::default()).unwrap();
    assert_eq!(t2, t);
}

#[test]
fn running_without_a_task_runs_every_task_in_file_order() {
    let bundle = kettle();
    let mut agent = Oracle::new(&bundle);
    let ids: Vec<String> = run_tasks(&bundle, None, &mut agent, &Settings::default())
        .unwrap()
        .into_iter()
        .map(|t| t.task_id)
        .collect();
    let expected: Vec<String> = bundle.tasks.iter().map(|t| t.id.clone()).collect();
    assert_eq!(ids, expected);
    let one = run_tasks(&bundle, Some("boil"), &mut agent, &Settings::default()).unwrap();
    assert_eq!(one.len(), 1);
    assert!(run_tasks(&bundle, Some("nope"), &mut agent, &Settings::default()).is_err());
}

#[test]
fn the_agent_spec_reads_the_command_line_forms() {
    assert_eq!(AgentSpec::parse("oracle"), Ok(AgentSpec::Oracle));
    assert_eq!(
        AgentSpec::parse("random"),
        Ok(AgentSpec::Random { seed: 0 })
    );
    assert_eq!(
        AgentSpec::parse("random:42"),
        Ok(AgentSpec::Random { seed: 42 })
    );
    assert_eq!(
        AgentSpec::parse("script:moves.txt"),
        Ok(AgentSpec::Script {
            path: "moves.txt".to_string()
        })
    );
    assert!(AgentSpec::parse("random:x").is_err());
    assert!(AgentSpec::parse("script:").is_err());
    assert!(AgentSpec::parse("gpt").is_err());
}

#[test]
fn an_agent_is_told_when_the_episode_ends() {
    struct Counting {
        inner: ScriptAgent,
        finished: usize,
    }
    impl Agent for Counting {
        fn name(&self) -> String {
            self.inner.name()
        }
        fn reset(&mut self, task: &knoblab_core::bundle::Task) {
            self.inner.reset(task);
        }
        fn act(&mut self, o: &knoblab_core::sim::Observation) -> Option<String> {
            self.inner.act(o)
        }
        fn finish(&mut self, _t: &Trajectory) {
            self.finished += 1;
        }
    }
    let bundle = kettle();
    let mut agent = Counting {
        inner: ScriptAgent::new("s", vec!["Timed_wait()".to_string()]),
        finished: 0,
    };
    run_tasks(&bundle, None, &mut agent, &Settings::default()).unwrap();
    assert_eq!(agent.finished, bundle.tasks.len());
}
