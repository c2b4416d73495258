//! One episode's metrics.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::bundle::Bundle;
use crate::sim::{Episode, GoalDistance, Trajectory};

use super::step::{facts, At};
use super::{ratio, Counts, EpisodeRef, Metrics, MetricsError, NotPooled};

/// One episode's metrics (the definitions are on [`Metrics`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeMetrics {
    /// The episode's task.
    pub task_id: String,
    /// The bundle it was played on.
    pub bundle_id: String,
    /// The line of the trajectory file, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(flatten)]
    /// Its metrics.
    pub metrics: Metrics,
    /// The totals behind them, which a run sums.
    pub counts: Counts,
    /// SPL of this episode (averaged for the run).
    #[serde(skip)]
    pub(crate) spl: f64,
    #[serde(skip)]
    pub(crate) state_f1: f64,
    #[serde(skip)]
    pub(crate) vsps: Option<f64>,
}

/// Scores one episode against its bundle. The trajectory must have been
/// recorded on this bundle: same id and same logic hash, else an error
/// naming the episode.
pub fn episode(bundle: &Bundle, trajectory: &Trajectory) -> Result<EpisodeMetrics, MetricsError> {
    episode_at(bundle, trajectory, None)
}

/// [`episode`], with the file line to name in errors.
pub fn episode_at(
    bundle: &Bundle,
    trajectory: &Trajectory,
    line: Option<usize>,
) -> Result<EpisodeMetrics, MetricsError> {
    let mut episode = Episode::new(bundle);
    score(&mut episode, trajectory, line)
}

/// Scores an episode on a bundle compiled for stepping: the record is
/// checked ([`super::replay`]: its steps chain, its actions played again
/// give its every counter), then the replay is scored.
pub(crate) fn score(
    episode: &mut Episode<'_>,
    recorded: &Trajectory,
    line: Option<usize>,
) -> Result<EpisodeMetrics, MetricsError> {
    let bundle = episode.device().bundle;
    let hash = episode.logic_hash();
    let t = recorded;
    let here = EpisodeRef {
        bundle_id: t.bundle_id.clone(),
        task_id: t.task_id.clone(),
        line,
    };
    if bundle.manifest.id != t.bundle_id {
        return Err(MetricsError::UnknownBundle {
            episode: here,
            known: bundle.manifest.id.clone(),
        });
    }
    if hash != t.logic_hash {
        return Err(MetricsError::ChangedLogic {
            episode: here,
            expected: hash.to_string(),
            found: t.logic_hash.clone(),
        });
    }
    let Some(task) = bundle.task(&t.task_id) else {
        return Err(MetricsError::UnknownTask { episode: here });
    };
    recomputed_goals(t, task.goals.len(), &here)?;
    super::replay::check_chain(episode.device().task_start_names(task), t, &here)?;
    let replayed = super::replay::replay(episode, task, t, &here)?;
    let t = &replayed;
    let device = episode.device();
    let inconsistent = |step: usize, what: String| MetricsError::Inconsistent {
        episode: here.clone(),
        step,
        what,
    };
    let goals = task
        .goals
        .iter()
        .map(|g| {
            device
                .state(&g.state)
                .ok_or_else(|| inconsistent(0, format!("the goal state {} is unknown", g.state)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let reached = t.goals_reached;
    let mut distances: HashMap<usize, GoalDistance> = HashMap::new();

    let mut c = Counts {
        steps: t.steps.len() as u64,
        goals_total: goals.len() as u64,
        goals_reached: reached as u64,
        ..Counts::default()
    };
    let (initial_state, _) = device.task_start_names(task);
    let mut visited: BTreeSet<&str> = BTreeSet::from([initial_state]);
    // PSR: where the current goal began, and its C_opt from there.
    let mut goal_began = 0usize;
    let mut goal_c_opt = Some(t.first_goal_c_opt);
    // VSPS: switches so far, and at the last goal-reaching step.
    let mut switches_before_last_goal = 0u64;
    // W-Dist: the current run of failed attempts (goal, target, k).
    let mut streak: Option<(usize, usize, u64)> = None;

    for (i, s) in t.steps.iter().enumerate() {
        let n = i + 1;
        let state = |name: &str| {
            device
                .state(name)
                .ok_or_else(|| inconsistent(n, format!("the state {name} is unknown")))
        };
        let view = |name: &str| {
            device
                .view(name)
                .ok_or_else(|| inconsistent(n, format!("the view {name} is unknown")))
        };
        let at = At {
            state_before: state(&s.state_before)?,
            state_after: state(&s.state_after)?,
            view_before: view(&s.view_before)?,
            view_after: view(&s.view_after)?,
        };
        let &goal = goals.get(s.goal_index).ok_or_else(|| {
            inconsistent(
                n,
                format!("the goal index {} is out of range", s.goal_index),
            )
        })?;
        let gd = distances
            .entry(goal)
            .or_insert_with(|| GoalDistance::new(device, goal));
        let f = facts(device, gd, &at, s);

        visited.extend(s.passed.iter().map(String::as_str));
        visited.insert(&s.state_after);
        if f.valid {
            c.valid_steps += 1;
        }
        if let Some(e) = f.error {
            *c.errors.entry(e).or_default() += 1;
        }
        if let Some(class) = f.switch {
            c.view_switches += 1;
            *c.switch_classes.entry(class).or_default() += 1;
        }
        if f.has_coord {
            c.coord_actions += 1;
            c.effective_actions += u64::from(f.effective);
            c.target_actions += u64::from(f.on_target);
        }
        if let Some((d, target)) = f.nearest {
            let k = match (f.error.is_some(), streak) {
                (false, _) => {
                    streak = None;
                    1
                }
                (true, Some((g, tg, k))) if g == s.goal_index && tg == target => {
                    streak = Some((g, tg, k + 1));
                    k + 1
                }
                (true, _) => {
                    streak = Some((s.goal_index, target, 1));
                    1
                }
            };
            c.dist_actions += 1;
            c.dist_sum += d;
            c.w_dist_sum += d * k as f64;
        }
        for (j, _) in s.goals_reached.iter().enumerate() {
            let taken = if j == 0 { (n - goal_began) as u64 } else { 0 };
            if j > 0 || goal_c_opt.is_some_and(|opt| taken == u64::from(opt)) {
                c.goals_precise += 1;
            }
        }
        if !s.goals_reached.is_empty() {
            goal_began = n;
            goal_c_opt = s.next_goal_c_opt;
            switches_before_last_goal = c.view_switches;
        }
    }

    let success = !goals.is_empty() && reached >= goals.len();
    let l_opt: u64 = t.ideal_c_opt.iter().map(|&x| u64::from(x)).sum();
    let l_act = c.steps;
    let spl = if success {
        ratio(l_opt as f64, l_opt.max(l_act) as f64).unwrap_or(1.0)
    } else {
        0.0
    };
    let ideal: BTreeSet<&str> = t.ideal_states.iter().map(String::as_str).collect();
    let common = visited.intersection(&ideal).count();
    let state_f1 = ratio(2.0 * common as f64, (visited.len() + ideal.len()) as f64).unwrap_or(0.0);
    let vsps = ratio(switches_before_last_goal as f64, c.goals_reached as f64);

    let metrics = c.metrics(NotPooled {
        sr: Some(if success { 1.0 } else { 0.0 }),
        ssr: Some(ratio(c.goals_reached as f64, c.goals_total as f64).unwrap_or(0.0)),
        spl: Some(spl),
        state_f1: Some(state_f1),
        vsps,
    });
    Ok(EpisodeMetrics {
        task_id: t.task_id.clone(),
        bundle_id: t.bundle_id.clone(),
        line,
        metrics,
        counts: c,
        spl,
        state_f1,
        vsps,
    })
}

/// The goals the steps reach, checked against every counter the record
/// carries: a record with no steps, a goal index out of range or reached
/// twice, or a `goals_reached`, `goals_total` or `terminated` that the
/// steps and the task do not give, is refused naming the field.
fn recomputed_goals(
    t: &Trajectory,
    goals_total: usize,
    here: &EpisodeRef,
) -> Result<usize, MetricsError> {
    let refuse = |field: &str, recorded: String, recomputed: String| {
        MetricsError::Record(Box::new(super::RecordMismatch {
            episode: here.clone(),
            field: field.to_string(),
            recorded,
            recomputed,
        }))
    };
    if t.steps.is_empty() {
        return Err(refuse(
            "steps",
            "empty".into(),
            "an episode has at least one step (a run that never acted is not an episode)".into(),
        ));
    }
    if t.goals_total != goals_total {
        return Err(refuse(
            "goals_total",
            t.goals_total.to_string(),
            format!("the task has {goals_total} goal(s)"),
        ));
    }
    let mut seen = vec![false; goals_total];
    for (i, s) in t.steps.iter().enumerate() {
        for &g in &s.goals_reached {
            let field = format!("steps[{i}].goals_reached");
            match seen.get_mut(g) {
                None => {
                    return Err(refuse(
                        &field,
                        format!("{:?}", s.goals_reached),
                        format!("goal {g} is not a goal of the task (it has {goals_total})"),
                    ))
                }
                Some(true) => {
                    return Err(refuse(
                        &field,
                        format!("{:?}", s.goals_reached),
                        format!("goal {g} was already reached at an earlier step"),
                    ))
                }
                Some(slot) => *slot = true,
            }
        }
    }
    let reached = seen.iter().filter(|&&r| r).count();
    if t.goals_reached != reached {
        return Err(refuse(
            "goals_reached",
            t.goals_reached.to_string(),
            format!("its steps reach {reached} of {goals_total} goal(s)"),
        ));
    }
    let solved = reached >= goals_total;
    if t.terminated != solved {
        return Err(refuse(
            "terminated",
            t.terminated.to_string(),
            format!("its steps reach {reached} of {goals_total} goal(s)"),
        ));
    }
    if t.terminated && t.truncated {
        return Err(refuse(
            "truncated",
            "true".into(),
            "the episode is also marked solved (terminated); it cannot be both".into(),
        ));
    }
    Ok(reached)
}
