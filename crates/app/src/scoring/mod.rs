//! The one scoring entry point (issue #45): a benchmark's results and
//! ground truth in, its typed report out, with the lines and items that
//! were not used (issue #47). The CLI and Python reach it through
//! [`crate::documents`] (which reads the files from paths, within the
//! input layer's bounds), the page's worker through [`crate::job`] (which
//! takes them from dropped files and zips in memory); neither applies a
//! rule of its own. What each benchmark checks before and after its
//! scorer (options read by their one parser, ground truth found for no
//! sample, an empty dataset, an unknown model, runs of two library
//! versions) lives here once.
//!
//! - [`epic`]: EPIC-Bench predictions against the RLE masks.
//! - [`finestate`]: FineState-Bench results, official and corrected.
//! - [`switch`]: SWITCH predictions and generated-video judge outputs.
//! - [`metrics`](mod@metrics): VGEBench metrics of trajectory files.

pub mod epic;
mod error;
pub mod finestate;
pub mod metrics;
pub mod switch;

pub use error::{InputKind, ScoreError};
pub use knoblab_core::input::unused::{summary, Unused, UnusedKind};

/// The `unused` entry of a `--json` document: the list, in file order
/// within each kind.
pub fn unused_json(unused: &[Unused]) -> serde_json::Value {
    serde_json::to_value(unused).unwrap_or_else(|_| serde_json::Value::Array(Vec::new()))
}
