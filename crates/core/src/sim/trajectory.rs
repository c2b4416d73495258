//! The record of an episode (`specs/devices.md` section 5): JSON Lines, one
//! episode a line, with the field names other tools read. Fields are
//! written in declaration order (serde) and maps are ordered, so a file is
//! byte-stable; running its actions again ([`super::recheck`](mod@super::recheck))
//! reproduces it byte for byte.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::action::Action;
use super::outcome::Outcome;
use super::render::RenderMode;

/// The budget multiplier λ when none is given.
pub const DEFAULT_LAMBDA: u32 = 5;

/// Everything a run used, written into each episode line. The simulator
/// reads only `lambda`; the rest documents the run. Unknown keys are kept
/// (in `extra`), so files from later versions read back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Budget multiplier λ (default 5).
    pub lambda: u32,
    /// Which agent played: `oracle`, `random:7`, `script:moves.txt`, a model…
    #[serde(default)]
    pub agent: String,
    /// How the views were drawn: `static` (the paper's, the default) or
    /// `live` ([`super::render`]). Always written; a file from before the
    /// field existed reads as `static`. Metrics refuse to pool both.
    #[serde(default)]
    pub render: RenderMode,
    /// The library the device belongs to, by version and content hash
    /// ([`crate::bundle::library_of`]): written for an episode on a device
    /// of the library, absent for a bundle of one's own (and in files from
    /// before the field existed). Metrics refuse to pool or compare
    /// episodes of different libraries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<crate::bundle::LibraryStamp>,
    /// The model's name, for a model agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The API base URL, never the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// How many past steps the agent was shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<u32>,
    /// The image perturbation applied, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturbation: Option<String>,
    /// The seed of a random agent or of sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The version of the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_version: Option<String>,
    /// Anything else, in key order.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            lambda: DEFAULT_LAMBDA,
            agent: String::new(),
            render: RenderMode::Static,
            library: None,
            model: None,
            endpoint: None,
            history: None,
            perturbation: None,
            seed: None,
            prompt_version: None,
            extra: BTreeMap::new(),
        }
    }
}

impl Settings {
    /// Default settings with another λ.
    pub fn with_lambda(lambda: u32) -> Settings {
        Settings {
            lambda,
            ..Settings::default()
        }
    }
}

/// One step of an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The action text as the agent gave it.
    pub action: String,
    /// What the parser read, or null when it could not.
    pub parsed: Option<Action>,
    /// What kind of result the step was.
    pub outcome: Outcome,
    /// The state before the action.
    pub state_before: String,
    /// The state after it (and after any immediate chain).
    pub state_after: String,
    /// The states entered during the step before `state_after` (the target
    /// of the fired transition when an immediate chain followed, and the
    /// chain's intermediate states).
    pub passed: Vec<String>,
    /// The view before the action.
    pub view_before: String,
    /// The view after it.
    pub view_after: String,
    /// What the agent was told.
    pub feedback: String,
    /// The goal current when the action was taken (0-based).
    pub goal_index: usize,
    /// Global budget left after the step: B_global − steps taken.
    pub budget_global: u32,
    /// Local budget left after the step.
    pub budget_local: u32,
    /// For the metrics: the component whose box won at the action's point
    /// (physical actions that reached matching), else null.
    pub component: Option<String>,
    /// For the metrics: whether the dashboard was unlocked before the step.
    pub unlocked_before: bool,
    /// For the metrics: whether the dashboard was unlocked after the step.
    pub unlocked_after: bool,
    /// For the metrics: the goals (0-based) reached at this step.
    pub goals_reached: Vec<usize>,
    /// For the metrics (PSR): when a goal was reached and another begins,
    /// its C_opt from where it begins.
    pub next_goal_c_opt: Option<u32>,
}

/// One episode: one line of a trajectory file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// The bundle's id.
    pub bundle_id: String,
    /// The bundle's logic hash when recorded (a recheck or the metrics refuse another).
    pub logic_hash: String,
    /// The task played.
    pub task_id: String,
    /// The run's settings (agent, λ, model, seed, …).
    pub settings: Settings,
    /// Every step, in order.
    pub steps: Vec<StepRecord>,
    /// Goals reached.
    pub goals_reached: usize,
    /// The task's goals.
    pub goals_total: usize,
    /// Every goal was reached.
    pub terminated: bool,
    /// A budget ran out first.
    pub truncated: bool,
    /// For the metrics: B_global = λ · Σ C_opt along the ideal path.
    pub budget_global_total: u32,
    /// For the metrics (SPL): C_opt of each goal along the ideal path from
    /// the task's initial state and view; L_opt is their sum.
    pub ideal_c_opt: Vec<u32>,
    /// For the metrics (State-F1): the states on the ideal path, the
    /// initial one first, in order of first visit.
    pub ideal_states: Vec<String>,
    /// For the metrics (PSR): C_opt of the first goal from the task's start
    /// (later goals: `next_goal_c_opt` on the step that began them).
    pub first_goal_c_opt: u32,
}

impl Trajectory {
    /// The episode as one JSON line (no trailing newline).
    pub fn to_json_line(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// Reads one line of a trajectory file, through the input layer (a
    /// key twice in one object is refused).
    pub fn from_json_line(line: &str) -> Result<Trajectory, crate::input::json::JsonError> {
        crate::input::json::from_text(line)
    }

    /// Episodes as a JSON Lines file: one line each, each ending in `\n`.
    pub fn to_json_lines(trajectories: &[Trajectory]) -> Result<String, serde_json::Error> {
        let mut out = String::new();
        for t in trajectories {
            out.push_str(&t.to_json_line()?);
            out.push('\n');
        }
        Ok(out)
    }

    /// The action texts, in order.
    pub fn actions(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().map(|s| s.action.as_str())
    }
}
