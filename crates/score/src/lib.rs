//! # knoblab-score
//!
//! Benchmark scorers. Each reads a results file and ground truth as the
//! benchmark publishes them and returns a report value that the page draws
//! and the CLI prints.
//!
//! - [`detect`]: what a dropped file is, and the size limit of a results file.
//! - [`epic`]: EPIC-Bench (`specs/epic.md`, `specs/epic-official.md`).
//! - [`finestate`]: FineState-Bench (`specs/finestate.md`,
//!   `specs/finestate-official.md`).
//! - [`switch`]: SWITCH (`specs/switch.md`).
//! - [`python`]: Python's `str.isspace` and `str.strip`, shared by the scorers.
//! - [`view`]: what a report shows, computed once for the page and the CLI.
//! - [`export`]: a report's tables as Markdown, CSV and LaTeX.
//! - [`limits`]: the bounds that keep a hostile results file or dataset zip
//!   from exhausting memory.

pub mod detect;
pub mod epic;
pub mod export;
pub mod finestate;
pub mod limits;
pub mod pattern;
pub mod python;
pub mod switch;
pub mod view;
