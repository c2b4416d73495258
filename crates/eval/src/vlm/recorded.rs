//! A model's answers read back from a file (the source `replay` of the CLI
//! and the page): a model agent's requests are answered from a recorded
//! trajectory file instead of a model, so the page can be shown, and a
//! batch tested, with no key and no network. For each task it plays back the
//! recorded episodes of that task in file order (the n-th repeat gets the
//! n-th recording, wrapping round); each turn answers with the recorded
//! reply when the file holds the model's turns, else with
//! `Action: <recorded action>`. When a recording runs out the agent stops.

use super::error::VlmError;
use std::sync::Arc;

use crate::agents::{Agent, Move};
use knoblab_core::bundle::{Bundle, Task, ViewImage};
use knoblab_core::sim::{Observation, Trajectory};

use super::model_agent::{ModelAgent, Turn};
use super::perturb::EncodedImage;
use super::record::EpisodeRecord;
use super::reply::{Reply, Usage};
use super::settings::AgentSettings;

/// One recorded episode: its task and the replies to give, in order.
#[derive(Debug, Clone, PartialEq)]
struct Recording {
    bundle_id: String,
    task_id: String,
    replies: Vec<String>,
}

/// Recorded episodes to answer from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordedAnswers {
    recordings: Vec<Recording>,
}

impl RecordedAnswers {
    /// Reads a JSON Lines file of trajectories or batch records; a bad line
    /// is named with its number.
    pub fn parse(text: &str) -> Result<RecordedAnswers, VlmError> {
        let mut recordings = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let trajectory =
                Trajectory::from_json_line(line).map_err(|e| VlmError::RecordedLine {
                    line: i + 1,
                    message: e.to_string(),
                })?;
            // A batch record also holds the model's raw replies.
            let turns = knoblab_core::input::json::from_text::<EpisodeRecord>(line)
                .map(|r| r.turns)
                .unwrap_or_default();
            let replies = if turns.len() == trajectory.steps.len()
                && turns.iter().all(|t| t.reply.is_some())
            {
                turns.into_iter().filter_map(|t| t.reply).collect()
            } else {
                trajectory
                    .steps
                    .iter()
                    .map(|s| format!("Action: {}", s.action))
                    .collect()
            };
            recordings.push(Recording {
                bundle_id: trajectory.bundle_id,
                task_id: trajectory.task_id,
                replies,
            });
        }
        if recordings.is_empty() {
            return Err(VlmError::RecordedEmpty);
        }
        Ok(RecordedAnswers { recordings })
    }

    /// How many episodes the file holds.
    pub fn len(&self) -> usize {
        self.recordings.len()
    }

    /// Whether the file holds none (never true for a parsed file).
    pub fn is_empty(&self) -> bool {
        self.recordings.is_empty()
    }

    /// The (bundle, task) pairs recorded, in file order, without repeats.
    pub fn tasks(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for r in &self.recordings {
            let pair = (r.bundle_id.clone(), r.task_id.clone());
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
        out
    }

    /// The reply to turn `turn` (0-based) of repeat `repeat` of a task;
    /// `Ok(None)` when that recording has no more turns, an error when the
    /// file has no episode of the task.
    pub fn answer(
        &self,
        bundle_id: &str,
        task_id: &str,
        repeat: u32,
        turn: usize,
    ) -> Result<Option<Reply>, VlmError> {
        let of_task: Vec<&Recording> = self
            .recordings
            .iter()
            .filter(|r| r.bundle_id == bundle_id && r.task_id == task_id)
            .collect();
        if of_task.is_empty() {
            return Err(VlmError::RecordedNoTask {
                bundle: bundle_id.to_string(),
                task: task_id.to_string(),
            });
        }
        let recording = of_task[repeat as usize % of_task.len()];
        Ok(recording.replies.get(turn).map(|text| Reply {
            text: text.clone(),
            reasoning: None,
            usage: Usage::default(),
        }))
    }
}

/// A model agent whose replies come from a [`RecordedAnswers`]: an [`Agent`] like
/// any other. Each turn goes through the model agent as a request would
/// (prompt, perturbation, request building), and is answered from the
/// file instead of a server, so the driver never has to send anything.
#[derive(Debug, Clone)]
pub struct RecordedAgent {
    model: ModelAgent,
    answers: Arc<RecordedAnswers>,
    bundle_id: String,
    views: Vec<(String, ViewImage)>,
    task_id: String,
    repeat: u32,
}

impl RecordedAgent {
    /// Plays the recorded answers back on `bundle`, with these settings.
    pub fn new(
        bundle: &Bundle,
        answers: impl Into<Arc<RecordedAnswers>>,
        settings: AgentSettings,
    ) -> RecordedAgent {
        RecordedAgent {
            model: ModelAgent::new(settings),
            answers: answers.into(),
            bundle_id: bundle.manifest.id.clone(),
            views: bundle
                .views
                .iter()
                .map(|(name, v)| (name.clone(), v.image.clone()))
                .collect(),
            task_id: String::new(),
            repeat: 0,
        }
    }

    /// Which repeat of the task the next reset starts.
    pub fn set_repeat(&mut self, repeat: u32) {
        self.repeat = repeat;
    }

    /// The model agent inside, with its turns.
    pub fn model(&self) -> &ModelAgent {
        &self.model
    }
}

impl Agent for RecordedAgent {
    fn name(&self) -> String {
        "replay".into()
    }

    fn reset(&mut self, task: &Task) {
        self.task_id = task.id.clone();
        self.model.restart(self.repeat);
    }

    fn act(&mut self, observation: &Observation) -> Option<String> {
        let image = self
            .views
            .iter()
            .find(|(name, _)| *name == observation.view)
            .map(|(_, image)| image.clone());
        match self.next(observation, image.as_ref()) {
            Move::Act(action) => Some(action),
            _ => None,
        }
    }

    fn next(&mut self, observation: &Observation, image: Option<&ViewImage>) -> Move {
        let turn = self.model.turns().len();
        match Agent::next(&mut self.model, observation, image) {
            Move::Ask(_) => {}
            other => return other,
        }
        match self
            .answers
            .answer(&self.bundle_id, &self.task_id, self.repeat, turn)
        {
            Ok(Some(reply)) => self.model.answer(reply, 1, 0),
            Ok(None) => Move::Stop,
            Err(e) => {
                self.model.fail(e.to_string(), 1, 0);
                Move::Fail
            }
        }
    }

    fn turns(&self) -> &[Turn] {
        self.model.turns()
    }

    fn take_shown(&mut self) -> Option<EncodedImage> {
        self.model.take_shown()
    }
}
