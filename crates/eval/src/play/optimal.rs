//! The optimal path of a task, step by step, for the end-of-episode panel:
//! the oracle's actions (the planner's ideal path) played on an episode, so
//! each step carries the view it was taken in, its point on that view's
//! picture, and the feedback it got; and the path's metrics, to set beside
//! the player's.

use serde::Serialize;

use crate::agents::Oracle;
use knoblab_core::bundle::Bundle;
use knoblab_core::geom::ScaledPoint;
use knoblab_core::metrics::{self, EpisodeMetrics, MetricsError};
use knoblab_core::sim::{Episode, Settings, SimError, Trajectory};

/// One step of the optimal path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimalStep {
    /// The view the action is taken in (whose picture to show).
    pub view: String,
    /// The action text.
    pub action: String,
    /// Where it acts on that picture (none for a wait or a switch by name).
    pub point: Option<ScaledPoint>,
    /// What the device answered.
    pub feedback: String,
    /// The goal current when it was taken (0-based).
    pub goal_index: usize,
}

/// The optimal path of a task and what it scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptimalPath {
    /// The path's steps: the view, the action and where it acts.
    pub steps: Vec<OptimalStep>,
    /// The record of playing the path.
    pub trajectory: Trajectory,
    /// What the path scores (the reference the player's metrics stand beside).
    pub metrics: EpisodeMetrics,
}

/// Why there is no optimal path to show.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptimalError {
    #[error(transparent)]
    /// Playing the path failed.
    Sim(#[from] SimError),
    #[error(transparent)]
    /// Its metrics could not be computed.
    Metrics(#[from] MetricsError),
    /// The planner found no path (validation refuses such a task).
    #[error("task \"{0}\" has no optimal path")]
    NoPath(String),
}

/// Plays the task's optimal path with these settings (λ matters for the
/// budgets only; the oracle never runs out).
pub fn optimal_path(
    bundle: &Bundle,
    task_id: &str,
    mut settings: Settings,
) -> Result<OptimalPath, OptimalError> {
    let task = bundle
        .task(task_id)
        .ok_or_else(|| OptimalError::NoPath(task_id.to_string()))?;
    let actions = Oracle::new(bundle).plan_actions(task);
    if actions.is_empty() {
        return Err(OptimalError::NoPath(task_id.to_string()));
    }
    settings.agent = "oracle".to_string();
    settings.extra.clear();
    let mut episode = Episode::new(bundle);
    episode.reset(task_id, settings)?;
    for action in &actions {
        episode.step(action)?;
    }
    let trajectory = episode.into_trajectory()?;
    let steps = trajectory
        .steps
        .iter()
        .map(|s| OptimalStep {
            view: s.view_before.clone(),
            action: s.action.clone(),
            point: s.parsed.as_ref().and_then(|a| a.coord),
            feedback: s.feedback.clone(),
            goal_index: s.goal_index,
        })
        .collect();
    let metrics = metrics::episode(bundle, &trajectory)?;
    Ok(OptimalPath {
        steps,
        trajectory,
        metrics,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::kettle;

    #[test]
    fn the_optimal_path_of_boil_unlocks_then_pushes_and_scores_perfectly() {
        let bundle = kettle();
        let path = optimal_path(&bundle, "boil", Settings::default()).unwrap();
        assert!(path.trajectory.terminated);
        assert_eq!(
            path.steps.len(),
            path.trajectory.ideal_c_opt.iter().sum::<u32>() as usize
        );
        assert_eq!(path.steps[0].view, "front");
        assert!(path.steps.iter().all(|s| !s.action.is_empty()));
        let last = path.steps.last().unwrap();
        assert!(last.action.starts_with("Push("), "{}", last.action);
        assert!(last.point.is_some());
        assert_eq!(path.metrics.metrics.sr, Some(1.0));
        assert_eq!(path.metrics.metrics.spl, Some(1.0));
        assert_eq!(path.trajectory.settings.agent, "oracle");
    }

    #[test]
    fn an_unknown_task_has_no_path() {
        let bundle = kettle();
        assert!(matches!(
            optimal_path(&bundle, "nope", Settings::default()),
            Err(OptimalError::NoPath(_))
        ));
    }
}
