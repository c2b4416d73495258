//! What can go wrong in the model agent's core, as values: every message
//! names what was found and what would be valid (issue #21). The page and
//! the CLI flatten these to text at their edge.

use thiserror::Error;

/// An error of [`crate::vlm`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VlmError {
    #[error("unknown API flavour \"{found}\": expected openai or anthropic")]
    UnknownFlavor { found: String },
    #[error("unknown coordinate convention \"{found}\": expected 0-1000, 0-1 or pixels")]
    UnknownCoords { found: String },
    #[error("unknown history window \"{found}\": expected full or a number of turns")]
    UnknownHistory { found: String },
    #[error(
        "unknown perturbation \"{found}\": expected jpeg:Q (1-100), blur:SIGMA (1-20) \
         or patches:PERCENT (1-90)"
    )]
    UnknownPerturbation { found: String },
    #[error("the picture could not be decoded for {perturbation}: {message}")]
    Undecodable {
        perturbation: String,
        message: String,
    },
    #[error("{format} encoding failed: {message}")]
    Encoding {
        format: &'static str,
        message: String,
    },
    #[error("replay file, line {line}: {message}; expected a trajectory line")]
    RecordedLine { line: usize, message: String },
    #[error("the replay file holds no trajectory")]
    RecordedEmpty,
    #[error("the replay file has no episode of task {task} of {bundle}")]
    RecordedNoTask { bundle: String, task: String },
    /// Lines of a records file that are no record, each named `line N: why`.
    #[error("{}", problems.join("; "))]
    RecordLines { problems: Vec<String> },
    #[error("no picture of view {view} in {bundle}")]
    NoPicture { bundle: String, view: String },
}
