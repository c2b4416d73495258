//! A human-baseline run: a chosen set of tasks of one device, played in
//! order with no reveal and no undo, each finished episode recorded with
//! the same trajectory a model's would have, so the same metrics apply.
//!
//! The run is a plain value saved as JSON after every step (the page keeps
//! it in the browser's storage): the actions of the episode under way, and
//! every finished trajectory. Finishing is idempotent, so an episode is
//! recorded exactly once however often the page calls [`BaselineRun::finish`]
//! for it (again after a reload, say).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use knoblab_core::sim::Trajectory;

use super::session::Mode;

/// The `format` of a saved run.
pub const BASELINE_FORMAT: &str = "knoblab-baseline/1";

/// A baseline run in progress or finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineRun {
    /// Always [`BASELINE_FORMAT`]; a reader refuses another.
    pub format: String,
    /// Where the bundle comes from: a library id or a URL.
    pub bundle: String,
    /// The bundle's manifest id.
    pub bundle_id: String,
    /// The tasks, in the order they are played.
    pub tasks: Vec<String>,
    /// The λ of every episode of the run.
    pub lambda: u32,
    /// The finished episodes, in task order.
    pub finished: Vec<Trajectory>,
    /// The actions of the episode under way (the task after the finished ones).
    pub current: Vec<String>,
}

/// A saved run that cannot be used, or a finish that does not fit it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BaselineError {
    #[error("the saved baseline run is not readable ({0}); expected a {BASELINE_FORMAT} document")]
    /// The saved text is not a baseline run (the JSON reader's error).
    Unreadable(knoblab_core::input::json::JsonError),
    #[error("the saved baseline run has format {0:?}; expected {BASELINE_FORMAT:?}")]
    /// The saved run is of another format or version (the one found).
    Format(String),
    #[error("a baseline run needs at least one task")]
    /// A run was asked for with no task.
    NoTasks,
    #[error("the finished episode is of task {found:?}, but the run is at {expected:?}")]
    /// A finished episode of another task than the one the run is at.
    WrongTask {
        /// The task the run is at.
        expected: String,
        /// The finished episode's task.
        found: String,
    },
    #[error("the episode of task {0:?} has not ended: it cannot be recorded yet")]
    /// The episode of this task has not ended yet.
    NotEnded(String),
}

impl BaselineRun {
    /// A new run over these tasks.
    pub fn new(
        bundle: &str,
        bundle_id: &str,
        tasks: Vec<String>,
        lambda: u32,
    ) -> Result<BaselineRun, BaselineError> {
        if tasks.is_empty() {
            return Err(BaselineError::NoTasks);
        }
        Ok(BaselineRun {
            format: BASELINE_FORMAT.to_string(),
            bundle: bundle.to_string(),
            bundle_id: bundle_id.to_string(),
            tasks,
            lambda,
            finished: Vec::new(),
            current: Vec::new(),
        })
    }

    /// Reads a saved run.
    pub fn from_json(text: &str) -> Result<BaselineRun, BaselineError> {
        let run: BaselineRun =
            knoblab_core::input::json::from_text(text).map_err(BaselineError::Unreadable)?;
        if run.format != BASELINE_FORMAT {
            return Err(BaselineError::Format(run.format));
        }
        if run.tasks.is_empty() {
            return Err(BaselineError::NoTasks);
        }
        Ok(run)
    }

    /// The run as saved.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The task under way (none once every task is finished).
    pub fn current_task(&self) -> Option<&str> {
        self.tasks.get(self.finished.len()).map(String::as_str)
    }

    /// Whether every task has its episode.
    pub fn is_complete(&self) -> bool {
        self.finished.len() >= self.tasks.len()
    }

    /// The settings of every episode of the run.
    pub fn settings(&self) -> knoblab_core::sim::Settings {
        Mode::Baseline.settings(self.lambda)
    }

    /// Notes an action of the episode under way (saved with the run, so a
    /// reload resumes it).
    pub fn record_action(&mut self, action: &str) {
        if !self.is_complete() {
            self.current.push(action.to_string());
        }
    }

    /// Records the ended episode of the current task, once: returns
    /// `Ok(true)` when it was recorded now, `Ok(false)` when this very
    /// episode was already the last one recorded.
    pub fn finish(&mut self, trajectory: &Trajectory) -> Result<bool, BaselineError> {
        if self.finished.last() == Some(trajectory) {
            return Ok(false);
        }
        let expected = self.current_task().unwrap_or_default().to_string();
        if trajectory.task_id != expected {
            return Err(BaselineError::WrongTask {
                expected,
                found: trajectory.task_id.clone(),
            });
        }
        if !(trajectory.terminated || trajectory.truncated) {
            return Err(BaselineError::NotEnded(expected));
        }
        self.finished.push(trajectory.clone());
        self.current.clear();
        Ok(true)
    }

    /// The finished episodes as a JSON Lines file.
    pub fn to_json_lines(&self) -> Result<String, serde_json::Error> {
        Trajectory::to_json_lines(&self.finished)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::play::Session;

    fn kettle() -> Arc<knoblab_core::bundle::Bundle> {
        Arc::new(crate::fixtures::kettle())
    }

    fn exhaust(run: &BaselineRun, bundle: &Arc<knoblab_core::bundle::Bundle>) -> Session {
        let task = run.current_task().unwrap();
        let mut session = Session::start(bundle.clone(), task, run.settings()).unwrap();
        while !session.is_done() {
            session.step("Timed_wait()").unwrap();
        }
        session
    }

    #[test]
    fn each_episode_is_recorded_exactly_once_and_survives_a_save() {
        let bundle = kettle();
        let tasks = vec!["boil".to_string(), "open_lid".to_string()];
        let mut run = BaselineRun::new("kettle-panel", "kettle-0001", tasks, 1).unwrap();
        run.record_action("Timed_wait()");
        let first = exhaust(&run, &bundle);
        assert_eq!(run.finish(first.trajectory()), Ok(true));
        assert_eq!(run.finish(first.trajectory()), Ok(false));
        assert!(run.current.is_empty());
        assert_eq!(run.current_task(), Some("open_lid"));

        let mut saved = BaselineRun::from_json(&run.to_json()).unwrap();
        assert_eq!(saved, run);
        assert_eq!(saved.finish(first.trajectory()), Ok(false));
        let second = exhaust(&saved, &bundle);
        assert_eq!(saved.finish(second.trajectory()), Ok(true));
        assert!(saved.is_complete());
        assert_eq!(saved.finished.len(), 2);
        assert_eq!(saved.to_json_lines().unwrap().lines().count(), 2);
        assert_eq!(saved.finished[0].settings.extra["mode"], "baseline");
    }

    #[test]
    fn a_wrong_or_unfinished_episode_is_refused() {
        let bundle = kettle();
        let mut run = BaselineRun::new("k", "kettle-0001", vec!["boil".into()], 5).unwrap();
        let other = Session::start(bundle.clone(), "open_lid", run.settings()).unwrap();
        assert!(matches!(
            run.finish(other.trajectory()),
            Err(BaselineError::WrongTask { .. })
        ));
        let running = Session::start(bundle, "boil", run.settings()).unwrap();
        assert_eq!(
            run.finish(running.trajectory()),
            Err(BaselineError::NotEnded("boil".into()))
        );
        assert!(run.finished.is_empty());
    }

    #[test]
    fn saved_runs_are_checked() {
        assert!(matches!(
            BaselineRun::from_json("{"),
            Err(BaselineError::Unreadable(_))
        ));
        let mut run = BaselineRun::new("k", "k", vec!["t".into()], 5).unwrap();
        run.format = "other/1".into();
        assert_eq!(
            BaselineRun::from_json(&run.to_json()),
            Err(BaselineError::Format("other/1".into()))
        );
        assert_eq!(
            BaselineRun::new("k", "k", Vec::new(), 5),
            Err(BaselineError::NoTasks)
        );
    }
}
