//! Playing an agent on tasks and collecting trajectories, through the
//! episode driver ([`crate::vlm::driver`]) with no transport: the same
//! episode loop the page and `knoblab eval` drive.

use crate::vlm::batch::BatchItem;
use crate::vlm::driver::{play_offline, DriverConfig, EpisodeDriver};
use knoblab_core::bundle::Bundle;
use knoblab_core::sim::{Episode, Settings, SimError, Trajectory};

use super::Agent;

/// Plays one episode of a task and returns its record. An empty
/// `settings.agent` is filled with the agent's name.
pub fn run_episode(
    bundle: &Bundle,
    task_id: &str,
    agent: &mut dyn Agent,
    settings: &Settings,
) -> Result<Trajectory, SimError> {
    play(Episode::new(bundle), task_id, agent, settings).map(|(t, _)| t)
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
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let (t, e) = play(episode, id, agent, settings)?;
        out.push(t);
        episode = e;
    }
    Ok(out)
}

fn play<'b>(
    episode: Episode<'b>,
    task_id: &str,
    agent: &mut dyn Agent,
    settings: &Settings,
) -> Result<(Trajectory, Episode<'b>), SimError> {
    let item = BatchItem {
        bundle_id: episode.device().bundle.manifest.id.clone(),
        task_id: task_id.to_string(),
        repeat: 0,
    };
    let config = DriverConfig::offline(settings.clone());
    let mut driver = EpisodeDriver::new(episode, &item, Box::new(agent), config)?;
    let record = play_offline(&mut driver)?;
    Ok((record.trajectory, driver.into_episode()))
}
