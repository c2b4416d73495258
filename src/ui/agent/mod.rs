//! The browser side of the model agent (issue #10): what the core cannot
//! do because it needs the browser. The agent logic, prompts, parsing,
//! retry decisions and metrics are the core's (`crate::vlm`).
//!
//! - [`runner`]: workers that play a batch's episodes.
//! - [`library`]: loading devices listed in `data/library.json`.

pub mod library;
pub mod runner;
