//! Playing an agent on tasks and collecting trajectories.

use crate::bundle::Bundle;
use crate::sim::{Episode, Settings, SimError, Trajectory};

use super::Agent;

/// Plays one episode of a task and returns its record. An empty
/// `settings.agent` is filled with the agent's name.
pub fn run_episode(
    bundle: &Bundle,
    task_id: &str,
    agent: &mut dyn Agent,
    settings: &Settings,
) -> Result<Trajectory, SimError> {
    let mut episode = Episode::new(bundle);
    play(&mut episode, task_id, agent, settings)
}

/// Plays every task of the bundle (or only `task`) in file order.
pub fn run_tasks(
    bundle: &Bundle,
    task: Option<&str>,
    agent: &mut dyn Agent,
    settings: &Settings,
) -> Result<Vec<Trajectory>, SimError> {
    let mut episode = Episode::new(bundle);
    let ids: Vec<&str> = match task {
        Some(id) => vec![id],
        None => bundle.tasks.iter().map(|t| t.id.as_str()).collect(),
    };
    ids.into_iter()
        .map(|id| play(&mut episode, id, agent, settings))
        .collect()
}

fn play(
    episode: &mut Episode<'_>,
    task_id: &str,
    agent: &mut dyn Agent,
    settings: &Settings,
) -> Result<Trajectory, SimError> {
    let mut settings = settings.clone();
    if settings.agent.is_empty() {
        settings.agent = agent.name();
    }
    let (mut observation, _) = episode.reset(task_id, settings)?;
    if let Some(task) = episode
        .device()
        .bundle
        .tasks
        .iter()
        .find(|t| t.id == task_id)
    {
        agent.reset(task);
    }
    while !episode.is_done() {
        let Some(action) = agent.act(&observation) else {
            break;
        };
        observation = episode.step(&action)?.observation;
    }
    let trajectory = episode.trajectory().cloned().ok_or(SimError::NotReset)?;
    agent.finish(&trajectory);
    Ok(trajectory)
}
