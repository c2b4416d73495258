//! Recompute, never trust (issue #47): a recorded episode's steps must
//! chain, and its every counter must be what its actions give when played
//! again on the bundle.
//!
//! Two checks, in order, before anything is scored:
//!
//! 1. [`check_chain`]: the first step starts where the task starts (state
//!    and view), and each later step starts in the state and view the step
//!    before it ended in. A step that does not is refused naming the step
//!    (from 1) and both states.
//! 2. [`replay`]: the actions are played again on a fresh episode of the
//!    task, with the record's λ, and every field the metrics or the budgets
//!    read is compared with the record: per episode the goals, the budget,
//!    the ideal path's C_opt values (L_opt, SPL), its states (State-F1) and
//!    the first goal's C_opt (PSR); per step the states and views, the
//!    states passed, the outcome, the component hit, the dashboard lock,
//!    the goal index, the goals reached, the next goal's C_opt and the
//!    budgets left. The first difference is refused naming the field, what
//!    the record says and what the replay gives. Only the feedback text is
//!    not compared: it is words for the agent, no metric reads it, and its
//!    wording may improve without the device changing.
//!
//! **Decision:** a false counter is refused, not corrected. A record whose
//! counters its own actions do not give was written by something other
//! than the simulator (edited, or recorded by a broken tool); scoring its
//! replay instead would hide that, and the first difference is the useful
//! thing to say. The metrics are computed from the replayed record, which
//! is then equal to the recorded one in every field they read.

use serde::Serialize;

use crate::bundle::Task;
use crate::sim::{Episode, SimError, StepRecord, Trajectory};

use super::{EpisodeRef, MetricsError, RecordMismatch};

/// Refuses a record whose steps do not chain: step 1 must start in the
/// task's initial state and view, step n in the state and view step n − 1
/// ended in.
pub fn check_chain(
    task_start: (&str, &str),
    t: &Trajectory,
    here: &EpisodeRef,
) -> Result<(), MetricsError> {
    let (mut state, mut view) = task_start;
    let mut from = "the task starts".to_string();
    for (i, s) in t.steps.iter().enumerate() {
        let n = i + 1;
        let (what, recorded, expected) = if s.state_before != state {
            ("state", &s.state_before, state)
        } else if s.view_before != view {
            ("view", &s.view_before, view)
        } else {
            (state, view) = (&s.state_after, &s.view_after);
            from = format!("step {n} ended");
            continue;
        };
        return Err(MetricsError::NotChained {
            episode: here.clone(),
            step: n,
            what: format!(
                "the step starts in {what} {}, but {from} in {what} {}; each step must start where the one before it ended",
                shown(recorded),
                shown(expected)
            ),
        });
    }
    Ok(())
}

/// Plays the record's actions again on `episode` (a fresh episode of the
/// task, with the record's settings) and returns the replayed record, or
/// refuses the first field the record has wrong.
pub fn replay(
    episode: &mut Episode<'_>,
    task: &Task,
    t: &Trajectory,
    here: &EpisodeRef,
) -> Result<Trajectory, MetricsError> {
    let sim = |step: usize, e: SimError| MetricsError::Inconsistent {
        episode: here.clone(),
        step,
        what: format!("played again, {e}"),
    };
    episode
        .reset_task(task, t.settings.clone())
        .map_err(|e| sim(0, e))?;
    for (i, s) in t.steps.iter().enumerate() {
        if episode.is_done() {
            return Err(MetricsError::NotChained {
                episode: here.clone(),
                step: i + 1,
                what: format!(
                    "the episode had already ended after step {i} ({}); no step follows the end of an episode",
                    if episode.trajectory().is_some_and(|r| r.terminated) {
                        "every goal was reached"
                    } else {
                        "a budget ran out"
                    }
                ),
            });
        }
        episode.step(&s.action).map_err(|e| sim(i + 1, e))?;
    }
    let again = episode
        .trajectory()
        .cloned()
        .ok_or_else(|| sim(0, SimError::NotReset))?;
    compare(t, &again).map_err(|(field, recorded, recomputed)| {
        MetricsError::Record(Box::new(RecordMismatch {
            episode: here.clone(),
            field,
            recorded,
            recomputed: format!("its actions played again give {recomputed}"),
        }))
    })?;
    Ok(again)
}

/// A difference: the field (as named in the file), the recorded value and
/// the replayed one, both as JSON.
type Difference = (String, String, String);

/// The first field the metrics read on which `recorded` and `replayed`
/// differ.
fn compare(recorded: &Trajectory, replayed: &Trajectory) -> Result<(), Difference> {
    same("goals_total", &recorded.goals_total, &replayed.goals_total)?;
    same(
        "budget_global_total",
        &recorded.budget_global_total,
        &replayed.budget_global_total,
    )?;
    same("ideal_c_opt", &recorded.ideal_c_opt, &replayed.ideal_c_opt)?;
    same(
        "first_goal_c_opt",
        &recorded.first_goal_c_opt,
        &replayed.first_goal_c_opt,
    )?;
    same(
        "ideal_states",
        &recorded.ideal_states,
        &replayed.ideal_states,
    )?;
    for (i, (r, p)) in recorded.steps.iter().zip(&replayed.steps).enumerate() {
        compare_step(i, r, p)?;
    }
    same(
        "goals_reached",
        &recorded.goals_reached,
        &replayed.goals_reached,
    )?;
    same("terminated", &recorded.terminated, &replayed.terminated)?;
    same("truncated", &recorded.truncated, &replayed.truncated)
}

fn compare_step(i: usize, r: &StepRecord, p: &StepRecord) -> Result<(), Difference> {
    let f = |name: &str| format!("steps[{i}].{name}");
    same(&f("parsed"), &r.parsed, &p.parsed)?;
    same(&f("outcome"), &r.outcome, &p.outcome)?;
    same(&f("state_before"), &r.state_before, &p.state_before)?;
    same(&f("passed"), &r.passed, &p.passed)?;
    same(&f("state_after"), &r.state_after, &p.state_after)?;
    same(&f("view_before"), &r.view_before, &p.view_before)?;
    same(&f("view_after"), &r.view_after, &p.view_after)?;
    same(&f("component"), &r.component, &p.component)?;
    same(
        &f("unlocked_before"),
        &r.unlocked_before,
        &p.unlocked_before,
    )?;
    same(&f("unlocked_after"), &r.unlocked_after, &p.unlocked_after)?;
    same(&f("goal_index"), &r.goal_index, &p.goal_index)?;
    same(&f("goals_reached"), &r.goals_reached, &p.goals_reached)?;
    same(
        &f("next_goal_c_opt"),
        &r.next_goal_c_opt,
        &p.next_goal_c_opt,
    )?;
    same(&f("budget_global"), &r.budget_global, &p.budget_global)?;
    same(&f("budget_local"), &r.budget_local, &p.budget_local)
}

fn same<T: PartialEq + Serialize>(
    field: &str,
    recorded: &T,
    replayed: &T,
) -> Result<(), Difference> {
    if recorded == replayed {
        return Ok(());
    }
    let json = |v: &T| {
        let text = serde_json::to_string(v).unwrap_or_else(|_| "?".into());
        crate::input::text::escape_controls(&text).into_owned()
    };
    Err((field.to_string(), json(recorded), json(replayed)))
}

fn shown(name: &str) -> String {
    format!("\"{}\"", crate::input::text::escape_controls(name))
}
