//! EPIC-Bench scoring with official parity (`specs/epic.md`,
//! `specs/epic-official.md`).
//!
//! ## Overview
//!
//! The official pipeline is raw model text → `format_response.py` →
//! std_format → `epic_eval.evaluate` → `<model>_full.json`. This module
//! reproduces both steps, quirks included ("Official mode"), and scores a
//! corrected mode beside it (failure markers honoured, exact Exo distances,
//! trailing commas and any fence tag parsed). Everything is a pure function
//! over strings and bytes; ground truth comes through [`GroundTruthSource`],
//! so the page feeds dropped files ([`MapSource`]) and the CLI a folder
//! ([`DirSource`]).
//!
//! ## Source code layout
//!
//! - [`pyvalue`], [`pyjson`]: Python's values, `int()`, `float()`,
//!   `repr()`, `json.loads` and `json.dumps`.
//! - [`rle`], [`mask`], [`raster`]: COCO RLE → run-based masks; exact
//!   distances and components; box-union IoU in integer arithmetic.
//! - [`extract`], [`normalize`], [`task_paths`], [`formatter`]: the
//!   official formatter.
//! - [`taxonomy`], [`gt`], [`prediction`], [`coords`]: tasks and keys, GT
//!   lookup, prediction parsers, coordinate systems.
//! - [`localization`], [`count`], [`path`], [`scorer`]: the metrics and the
//!   per-sample result.
//! - [`aggregate`], [`report`], [`render`]: the summary, whole runs, JSON and tables.
//! - [`shard`], [`wire`]: a run scored in shards by the page's workers, and
//!   the digests they send the merging one.
//! - [`synthetic`]: a deterministic benchmark-sized set for benchmarks.
//!
//! ## Entry points for the page and the CLI
//!
//! - [`score_text`]: a predictions file (raw, std_format or an official
//!   `*_full.json`) + GT → [`Report`].
//! - [`render::to_json`], [`render::to_text`]: render a report.
//! - [`formatter::format_jsonl`]: raw → std_format, byte-exact.

pub mod aggregate;
pub mod coords;
pub mod count;
pub mod extract;
pub mod formatter;
pub mod gt;
pub mod intake;
pub mod localization;
pub mod mask;
pub mod normalize;
pub mod path;
pub mod prediction;
pub mod pyjson;
pub mod pyvalue;
pub mod raster;
pub mod render;
pub mod report;
pub mod rle;
pub mod scorer;
pub mod shard;
pub mod synthetic;
pub mod task_paths;
pub mod taxonomy;
pub mod wire;

#[cfg(not(target_arch = "wasm32"))]
pub use gt::DirSource;
pub use gt::{GroundTruthSource, MapSource};
pub use report::{score_text, InputKind, Report, RunOptions};
