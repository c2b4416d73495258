//! What an episode shows: to the agent ([`Observation`]), and to everyone
//! else ([`Info`], diagnostics never shown to the agent), per step ([`Step`]).

use serde::Serialize;

use super::outcome::Outcome;

/// What the image shown is, for whoever renders or sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageRef {
    pub view: String,
    pub width: u32,
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
    pub state: String,
    pub view: String,
    pub dashboard_unlocked: bool,
    pub goal_index: usize,
    pub goals_total: usize,
    pub steps: u32,
    /// Global budget left: B_global − steps.
    pub budget_global: u32,
    pub budget_global_total: u32,
    pub budget_local: u32,
    /// C_opt of the current goal from where it began.
    pub c_opt: Option<u32>,
    /// The outcome of the last step (none after reset).
    pub outcome: Option<Outcome>,
}

/// What one step returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub observation: Observation,
    pub feedback: String,
    /// Every goal was reached.
    pub terminated: bool,
    /// A budget ran out first.
    pub truncated: bool,
    pub info: Info,
}
