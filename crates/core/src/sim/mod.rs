//! One episode of a device (`specs/devices.md` sections 2, 3 and 5).
//!
//! - [`action`]: reading an action from a model's reply.
//! - [`boxes`]: where each component is in each view.
//! - [`device`]: a bundle compiled for stepping.
//! - [`matching`]: which transition an action fires.
//! - [`rules`]: the dynamics of one step, in the spec's order of rules.
//! - [`outcome`]: what a step turned out to be, and the words for it.
//! - [`planner`]: C_opt and optimal paths.
//! - [`distance`]: transition distance to a goal, and its target components.
//! - [`episode`]: `reset` / `step`, goals and budgets.
//! - [`render`]: the picture shown, static or drawn for the state (live).
//! - [`observation`]: what the agent sees, and the diagnostics it does not.
//! - [`owned`]: an episode that owns its bundle (for a signal, a Python object).
//! - [`trajectory`]: the record and JSON Lines.
//! - [`recheck`](mod@recheck): running a record's actions again on its bundle,
//!   to check that it reproduces.
//!
//! ```
//! # fn demo(bundle: &knoblab_core::bundle::Bundle) -> Result<(), knoblab_core::sim::SimError> {
//! use knoblab_core::sim::{Episode, Settings};
//! let mut episode = Episode::new(bundle);
//! let (observation, _info) = episode.reset("boil", Settings::default())?;
//! let step = episode.step("Action: Push(coord=[780, 711], params=[1])")?;
//! println!("{} -> {}", observation.view, step.feedback);
//! # Ok(()) }
//! ```

pub mod action;
pub mod boxes;
pub mod device;
pub mod distance;
pub mod episode;
pub mod matching;
pub mod observation;
pub mod outcome;
pub mod owned;
pub mod planner;
pub mod recheck;
pub mod render;
pub mod rules;
pub mod trajectory;

pub use action::{parse_action, Action, ActionKind, ParseError};
pub use boxes::{ComponentBox, ComponentBoxIndex};
pub use device::{Device, Node};
pub use distance::GoalDistance;
pub use episode::{Episode, SimError};
pub use observation::{ImageRef, Info, Observation, Step};
pub use outcome::Outcome;
pub use owned::OwnedEpisode;
pub use planner::{ideal_path, plan, Cost, Move, Plan, PlanError};
pub use recheck::{recheck, RecheckError};
pub use render::{RenderError, RenderMode, Renderer};
pub use trajectory::{Settings, StepRecord, Trajectory, DEFAULT_LAMBDA};
