//! # knoblab-app
//!
//! ## Overview
//!
//! The application layer: what the faces (the `knoblab` CLI, the web page,
//! the Python package) call, so that none of them writes the application
//! again. It joins the layers below: the core, the scorers, the device
//! generator and the episodes.
//!
//! ## Source code layout
//!
//! - [`devices`]: the one resolver of device names: a library id
//!   (hand-made or generated), a folder, a zip or a bundle file.
//! - [`documents`] (native): the documents `knoblab … --json` prints,
//!   computed from paths (the CLI and the Python bindings call them).
//! - [`leaderboard`]: runs side by side with bootstrap intervals,
//!   honest denominators and paired comparisons.
//! - [`scoring`]: the one scoring entry point (results and ground truth in,
//!   a typed report and what was not used out), behind `documents` and `job`.
//! - [`job`]: one scoring of dropped files, as the page's workers run it.
//! - [`run`] (native): a run's episodes on threads with an HTTP client,
//!   resumable, behind `knoblab eval` and `knoblab.evaluate`.

pub mod devices;
#[cfg(not(target_arch = "wasm32"))]
pub mod documents;
pub mod job;
pub mod leaderboard;
#[cfg(not(target_arch = "wasm32"))]
pub mod run;
pub mod scoring;
