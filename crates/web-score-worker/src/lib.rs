//! # knoblab-score-worker
//!
//! The module that the Score page's workers (`www/score-worker.js`) load:
//! a wasm32 binary of its own, so that the page's module holds no scorer
//! and a visitor who never scores a file never downloads one (issue #46).
//! Each module of this binary is one page's set of `#[wasm_bindgen]`
//! entries; to give a worker another computation, add a module here (or
//! an entry to one) and call it from the worker's script.
//!
//! - [`job`]: the Score page's job: its files taken in, scored in shards
//!   and merged, an item's drill-down.
//! - [`board`]: the Leaderboard page's: its runs read and ranked, two
//!   rows compared (`www/board-worker.js`).

#[cfg(target_arch = "wasm32")]
pub mod board;
#[cfg(target_arch = "wasm32")]
pub mod job;
