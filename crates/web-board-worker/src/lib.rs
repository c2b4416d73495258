//! # knoblab-board-worker
//!
//! The module that the Leaderboard page's worker (`www/board-worker.js`)
//! loads: a wasm32 binary of its own, so that the page's module holds none
//! of the leaderboard's computation and the library's generator it needs
//! (issue #46). The Score page's workers run the page's own module instead,
//! whose scorers are chunks (the page's `src/worker`).
//!
//! - [`board`]: the Leaderboard page's: its runs read and ranked, two
//!   rows compared.

#[cfg(target_arch = "wasm32")]
pub mod board;
