//! An episode that owns its bundle, so a page can hold it in a signal and a
//! script can keep it between calls.
//!
//! A session keeps the bundle behind an [`Arc`] in a
//! [`knoblab_core::sim::OwnedEpisode`], with the actions played so far: a step is
//! one simulator step (issue #21: the player no longer runs the whole
//! episode again from reset on each click). Undo, for practice, starts
//! again with the actions but the last one (the simulator is deterministic).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use knoblab_core::bundle::{Bundle, ViewImage};
use knoblab_core::metrics::{self, EpisodeMetrics, MetricsError};
use knoblab_core::sim::{
    Info, Observation, OwnedEpisode, RenderError, RenderMode, Settings, SimError, Step, Trajectory,
};

/// How a person plays, written into the trajectory's settings (`mode`) so
/// that practice results are never mistaken for a baseline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Free play: no component boxes, no undo.
    #[default]
    Play,
    /// Practice: the component boxes may be revealed and steps undone; the
    /// results are marked "practice".
    Practice,
    /// A human-baseline run: no reveal, no undo, every episode recorded.
    Baseline,
}

impl Mode {
    /// The name written in settings and URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Play => "play",
            Mode::Practice => "practice",
            Mode::Baseline => "baseline",
        }
    }

    /// Reads [`Mode::as_str`]'s names; anything else is free play.
    pub fn parse(text: &str) -> Mode {
        match text {
            "practice" => Mode::Practice,
            "baseline" => Mode::Baseline,
            _ => Mode::Play,
        }
    }

    /// Whether the component boxes may be shown and steps undone.
    pub fn allows_help(self) -> bool {
        self == Mode::Practice
    }

    /// The settings of a person's episode in this mode: agent `human`, the
    /// mode under `mode`, and λ.
    pub fn settings(self, lambda: u32) -> Settings {
        let mut settings = Settings::with_lambda(lambda);
        settings.agent = "human".to_string();
        settings
            .extra
            .insert("mode".to_string(), self.as_str().into());
        settings
    }
}

/// One episode on a bundle it shares: the actions so far, and what the
/// episode shows after them.
#[derive(Debug, Clone)]
pub struct Session {
    episode: OwnedEpisode,
    task_id: String,
    settings: Settings,
    actions: Vec<String>,
    observation: Observation,
    info: Info,
    last: Option<Step>,
    /// The record as the reset left it (no steps): what [`Session::trajectory`]
    /// would show if the episode had none, which cannot happen once a
    /// session exists (its constructor resets the episode, and fails if no
    /// record came of it).
    started: Trajectory,
}

impl Session {
    /// Starts a task of the bundle.
    pub fn start(
        bundle: Arc<Bundle>,
        task_id: &str,
        settings: Settings,
    ) -> Result<Session, SimError> {
        Session::start_with(bundle, task_id, settings, &[])
    }

    /// Starts a task and plays these actions (a share link, a resumed
    /// baseline episode). Fails if the episode ends before the last one.
    /// The settings' `library` is the device's ([`knoblab_core::bundle::library_of`]).
    pub fn start_with(
        bundle: Arc<Bundle>,
        task_id: &str,
        mut settings: Settings,
        actions: &[String],
    ) -> Result<Session, SimError> {
        let mut episode = OwnedEpisode::new(bundle);
        // The library the device belongs to, if any (one rule for every
        // recorder).
        settings.library = knoblab_core::bundle::library_of(
            &episode.bundle().manifest.id,
            episode.episode().logic_hash(),
        );
        let (observation, info) = episode.reset(task_id, settings.clone())?;
        let started = episode.trajectory().cloned().ok_or(SimError::NotReset)?;
        let mut session = Session {
            episode,
            task_id: task_id.to_string(),
            settings,
            actions: Vec::with_capacity(actions.len()),
            observation,
            info,
            last: None,
            started,
        };
        for action in actions {
            session.step(action)?;
        }
        Ok(session)
    }

    /// Plays one action (any text: a mistake is an outcome, not an error).
    /// Errors only when the episode has already ended, and then changes
    /// nothing.
    pub fn step(&mut self, action_text: &str) -> Result<Step, SimError> {
        let step = self.episode.step(action_text)?;
        self.actions.push(action_text.to_string());
        self.observation = step.observation.clone();
        self.info = step.info.clone();
        self.last = Some(step.clone());
        Ok(step)
    }

    /// Takes back the last action (practice). Returns whether there was one.
    pub fn undo(&mut self) -> Result<bool, SimError> {
        let Some((_, earlier)) = self.actions.split_last() else {
            return Ok(false);
        };
        *self = Session::start_with(
            self.bundle().clone(),
            &self.task_id,
            self.settings.clone(),
            earlier,
        )?;
        Ok(true)
    }

    /// The same task from the start.
    pub fn restart(&self) -> Result<Session, SimError> {
        Session::start(self.bundle().clone(), &self.task_id, self.settings.clone())
    }

    /// The bundle the session plays, shared.
    pub fn bundle(&self) -> &Arc<Bundle> {
        self.episode.bundle()
    }

    /// The task being played.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The settings the episode was reset with (λ, mode, render).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The action texts played so far, in order.
    pub fn actions(&self) -> &[String] {
        &self.actions
    }

    /// How the episode's views are drawn (its settings' `render`).
    pub fn render_mode(&self) -> RenderMode {
        self.settings.render
    }

    /// The picture shown now: the current view, drawn for the current
    /// state in live mode ([`knoblab_core::sim::render`]), else the bundle's own.
    pub fn picture(&self) -> Result<ViewImage, RenderError> {
        knoblab_core::sim::render::render(
            self.bundle(),
            &self.info.state,
            &self.observation.view,
            self.settings.render,
        )
    }

    /// What the agent sees now.
    pub fn observation(&self) -> &Observation {
        &self.observation
    }

    /// Diagnostics now (state, budgets, goal index).
    pub fn info(&self) -> &Info {
        &self.info
    }

    /// The record so far.
    pub fn trajectory(&self) -> &Trajectory {
        self.episode.trajectory().unwrap_or(&self.started)
    }

    /// What the last step returned (none before the first).
    pub fn last_step(&self) -> Option<&Step> {
        self.last.as_ref()
    }

    /// Whether every goal was reached or a budget ran out.
    pub fn is_done(&self) -> bool {
        self.episode.is_done()
    }

    /// The episode's metrics, as a model's would be computed.
    pub fn metrics(&self) -> Result<EpisodeMetrics, MetricsError> {
        metrics::episode(self.bundle(), self.trajectory())
    }

    /// The λ-scaled local budget's ceiling for the current goal, for a
    /// meter: λ · C_opt of the goal from where it began, or the budget left
    /// if that is larger (the budget carries over when a goal is reached).
    pub fn local_budget_ceiling(&self) -> u32 {
        let c_opt = self.info.c_opt.unwrap_or(0);
        self.settings
            .lambda
            .saturating_mul(c_opt)
            .max(self.info.budget_local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{run_episode, Oracle, RandomAgent};
    use knoblab_core::sim::Episode;

    fn kettle() -> Arc<Bundle> {
        Arc::new(crate::fixtures::kettle())
    }

    #[test]
    fn a_session_records_the_same_trajectory_as_an_episode() {
        let bundle = kettle();
        let actions = ["Switch_view(params=[top])", "Press(coord=[1, 1])"];
        let mut session = Session::start(bundle.clone(), "boil", Mode::Play.settings(5)).unwrap();
        let mut episode = Episode::new(&bundle);
        episode.reset("boil", Mode::Play.settings(5)).unwrap();
        for a in actions {
            let mine = session.step(a).unwrap();
            assert_eq!(mine, episode.step(a).unwrap());
        }
        assert_eq!(session.trajectory(), episode.trajectory().unwrap());
        assert_eq!(session.actions(), actions);
        assert_eq!(session.trajectory().settings.extra["mode"], "play");
    }

    /// What a session was before it owned its episode: every step played
    /// the actions so far on a fresh episode from reset.
    fn played_from_reset(
        bundle: &Bundle,
        task: &str,
        settings: &Settings,
        actions: &[String],
    ) -> (Observation, Info, Trajectory, Option<Step>) {
        let mut episode = Episode::new(bundle);
        episode.reset(task, settings.clone()).unwrap();
        let mut last = None;
        for a in actions {
            last = Some(episode.step(a).unwrap());
        }
        (
            episode.observation().unwrap(),
            episode.info().unwrap(),
            episode.into_trajectory().unwrap(),
            last,
        )
    }

    /// Issue #21: a session steps its episode instead of playing every
    /// action again from reset; after every step of random and oracle
    /// episodes on every task, it shows exactly what playing from reset shows.
    #[test]
    fn stepping_gives_what_playing_from_reset_gave() {
        let bundle = kettle();
        for task in &bundle.tasks {
            for seed in [None, Some(3), Some(11)] {
                let settings = Mode::Play.settings(2);
                let recorded = match seed {
                    None => run_episode(&bundle, &task.id, &mut Oracle::new(&bundle), &settings),
                    Some(s) => run_episode(&bundle, &task.id, &mut RandomAgent::new(s), &settings),
                }
                .unwrap();
                let actions: Vec<String> = recorded.actions().map(str::to_string).collect();
                let mut session =
                    Session::start(bundle.clone(), &task.id, settings.clone()).unwrap();
                for n in 1..=actions.len() {
                    session.step(&actions[n - 1]).unwrap();
                    let (observation, info, trajectory, last) =
                        played_from_reset(&bundle, &task.id, &settings, &actions[..n]);
                    assert_eq!(session.observation(), &observation, "{} step {n}", task.id);
                    assert_eq!(session.info(), &info, "{} step {n}", task.id);
                    assert_eq!(session.trajectory(), &trajectory, "{} step {n}", task.id);
                    assert_eq!(session.last_step(), last.as_ref(), "{} step {n}", task.id);
                }
                assert_eq!(session.trajectory(), &recorded, "{}", task.id);
                let resumed =
                    Session::start_with(bundle.clone(), &task.id, settings.clone(), &actions)
                        .unwrap();
                assert_eq!(resumed.trajectory(), &recorded, "{}", task.id);
            }
        }
    }

    #[test]
    fn undo_takes_back_one_action_and_stops_at_the_start() {
        let mut session = Session::start(kettle(), "boil", Mode::Practice.settings(5)).unwrap();
        let fresh = session.clone();
        session.step("Switch_view(params=[top])").unwrap();
        assert_eq!(session.observation().view, "top");
        assert!(session.undo().unwrap());
        assert_eq!(session.observation(), fresh.observation());
        assert_eq!(session.trajectory(), fresh.trajectory());
        assert!(!session.undo().unwrap());
    }

    #[test]
    fn stepping_a_finished_session_is_an_error_and_changes_nothing() {
        let bundle = kettle();
        let mut session = Session::start(bundle, "boil", Mode::Play.settings(1)).unwrap();
        while !session.is_done() {
            session.step("Timed_wait()").unwrap();
        }
        let before = session.actions().len();
        assert!(matches!(
            session.step("Timed_wait()"),
            Err(SimError::Finished { .. })
        ));
        assert_eq!(session.actions().len(), before);
        assert!(session.trajectory().truncated);
    }

    #[test]
    fn the_local_meter_ceiling_is_lambda_times_c_opt() {
        let session = Session::start(kettle(), "boil", Mode::Play.settings(5)).unwrap();
        let c_opt = session.info().c_opt.unwrap();
        assert_eq!(session.local_budget_ceiling(), 5 * c_opt);
        assert_eq!(session.info().budget_local, 5 * c_opt);
    }

    #[test]
    fn modes_read_back_and_only_practice_helps() {
        for mode in [Mode::Play, Mode::Practice, Mode::Baseline] {
            assert_eq!(Mode::parse(mode.as_str()), mode);
        }
        assert!(Mode::Practice.allows_help());
        assert!(!Mode::Baseline.allows_help());
        assert_eq!(Mode::parse("anything"), Mode::Play);
    }
}
