//! What can go wrong in the model agent's core, as values: every message
//! names what was found and what would be valid (issue #21). The page and
//! the CLI flatten these to text at their edge.

use thiserror::Error;

/// An error of [`crate::vlm`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VlmError {
    /// An API flavour other than `openai` or `anthropic`.
    #[error("unknown API flavour \"{found}\": expected openai or anthropic")]
    UnknownFlavor {
        /// The name given.
        found: String,
    },
    #[error("unknown coordinate convention \"{found}\": expected 0-1000, 0-1 or pixels")]
    /// A coordinate convention other than `0-1000`, `0-1` or `pixels`.
    UnknownCoords {
        /// The name given.
        found: String,
    },
    #[error("unknown history window \"{found}\": expected full or a number of turns")]
    /// A history window that is neither `full` nor a number.
    UnknownHistory {
        /// The text given.
        found: String,
    },
    #[error(
        "unknown perturbation \"{found}\": expected jpeg:Q (1-100), blur:SIGMA (1-20) \
         or patches:PERCENT (1-90)"
    )]
    /// A perturbation of no known form, or out of its range.
    UnknownPerturbation {
        /// The text given.
        found: String,
    },
    #[error("the picture could not be decoded for {perturbation}: {message}")]
    /// The view's picture could not be decoded to perturb it.
    Undecodable {
        /// The perturbation asked for.
        perturbation: String,
        /// The decoder's message.
        message: String,
    },
    #[error("{format} encoding failed: {message}")]
    /// The perturbed picture could not be encoded.
    Encoding {
        /// `JPEG` or `PNG`.
        format: &'static str,
        /// The encoder's message.
        message: String,
    },
    #[error("replay file, line {line}: {message}; expected a trajectory line")]
    /// A line of the replay file is not a trajectory.
    RecordedLine {
        /// The line, from 1.
        line: usize,
        /// What the reader found.
        message: String,
    },
    #[error("the replay file holds no trajectory")]
    /// The replay file holds no trajectory (or a replay was asked for
    /// without one).
    RecordedEmpty,
    #[error("the replay file has no episode of task {task} of {bundle}")]
    /// The replay file has no episode of a task the run plays.
    RecordedNoTask {
        /// The bundle's id.
        bundle: String,
        /// The task's id.
        task: String,
    },
    /// Lines of a records file that are no record, each named `line N: why`.
    #[error("{}", problems.join("; "))]
    RecordLines {
        /// Each bad line, as `line N: why`.
        problems: Vec<String>,
    },
    #[error("no picture of view {view} in {bundle}")]
    /// The bundle has no picture of a view the agent is in.
    NoPicture {
        /// The bundle's id.
        bundle: String,
        /// The view.
        view: String,
    },
}
