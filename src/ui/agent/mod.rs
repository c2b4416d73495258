//! The browser side of the model agent (issue #10): what the core cannot
//! do because it needs the browser. The agent logic, prompts, parsing,
//! retry decisions and metrics are the core's (`crate::vlm`).
//!
//! - [`net`]: POST with a timeout and abort, GETs of library files, sleep.
//! - [`store`]: batches and finished episodes in IndexedDB.
//! - [`key`]: the API key in localStorage, only when asked to remember.
//! - [`files`]: downloads, a chosen file's text, the Score page hand-off.
//! - [`runner`]: workers that play a batch's episodes.
//! - [`library`]: loading devices listed in `data/library.json`.

pub mod files;
pub mod key;
pub mod library;
pub mod net;
pub mod runner;
pub mod store;
