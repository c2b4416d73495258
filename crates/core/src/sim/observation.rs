//! What an episode shows: to the agent ([`Observation`]), and to everyone
//! else ([`Info`], diagnostics never shown to the agent), per step ([`Step`]).

use serde::Serialize;

use super::outcome::Outcome;

/// What the image shown is, for whoever renders or sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageRef {
    /// The view it is a picture of.
    pub view: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// What the agent sees at a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    /// The current view's name.
    pub view: String,
    /// The current view's picture.
    pub image: ImageRef,
    /// The views the agent may switch to (a locked dashboard is not listed).
    pub views: Vec<String>,
    /// The feedback of the previous action (none at the start).
    pub feedback: Option<String>,
    /// The current goal's instruction (none once every goal is reached).
    pub instruction: Option<String>,
}

/// Diagnostics, never shown to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Info {
    /// The device's state.
    pub state: String,
    /// The current view.
    pub view: String,
    /// Whether the dashboard is unlocked.
    pub dashboard_unlocked: bool,
    /// The current goal, from 0 (`goals_total` once all are reached).
    pub goal_index: usize,
    /// The task's goals.
    pub goals_total: usize,
    /// Steps taken.
    pub steps: u32,
    /// Global budget left: B_global − steps.
    pub budget_global: u32,
    /// B_global: the episode's whole step budget.
    pub budget_global_total: u32,
    /// Steps left for the current goal (its local budget).
    pub budget_local: u32,
    /// C_opt of the current goal from where it began.
    pub c_opt: Option<u32>,
    /// The outcome of the last step (none after reset).
    pub outcome: Option<Outcome>,
}

/// What one step returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// What the agent sees after the step.
    pub observation: Observation,
    /// What the device did, in words (also in the observation).
    pub feedback: String,
    /// Every goal was reached.
    pub terminated: bool,
    /// A budget ran out first.
    pub truncated: bool,
    /// Diagnostics after the step.
    pub info: Info,
}
