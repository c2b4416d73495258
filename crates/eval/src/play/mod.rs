//! The player's core: what the play page, the embed mode and the page API
//! need beyond one [`knoblab_core::sim::Episode`], kept here so that they are
//! tested natively and the UI only presents them.
//!
//! - [`session`]: an episode that owns its bundle (for a signal or a
//!   script), with undo for practice.
//! - [`controls`]: the action bar: tools, their parameters in words, the
//!   point, the action text they make, and what each key does.
//! - [`optimal`]: the optimal path, step by step, with the view and the
//!   point of each step, and its metrics.
//! - [`share`]: share links whose URL alone restores an episode.
//! - [`baseline`]: a human-baseline run: a chosen set of tasks, each
//!   finished episode recorded exactly once, saved as JSON.
//! - [`catalogue`]: the library page's categories with counts, search and
//!   pages of cards.
//! - [`views`]: the view tabs: which views exist, which are look-only,
//!   which is locked.

pub mod baseline;
pub mod catalogue;
pub mod controls;
pub mod optimal;
pub mod session;
pub mod share;
pub mod views;

pub use baseline::{BaselineError, BaselineRun, BASELINE_FORMAT};
pub use controls::{Draft, DraftError, KeyCommand, ParamChoice, ParamSlot, Tool};
pub use optimal::{optimal_path, OptimalPath, OptimalStep};
pub use session::{Mode, Session};
pub use share::{ShareError, ShareLink};
pub use views::{view_tabs, ViewTab};
