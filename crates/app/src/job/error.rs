//! What can go wrong reading a job's dropped ground truth and opening an
//! item, typed (a unit's scoring fails with [`crate::scoring::ScoreError`],
//! as the CLI's does): each message names the file and says what would do.

use thiserror::Error;

use knoblab_core::input::InputError;
use knoblab_score::epic::report::EpicError;
use knoblab_score::switch::InputErrors;

/// Why a part of a job's ground truth could not be read; kept with the
/// job, so every unit that needs it is told the same.
#[derive(Debug, Clone, Error)]
pub enum GroundError {
    /// A split option is not `SPLIT=PATH_FRAGMENT`.
    #[error(transparent)]
    Split(#[from] knoblab_score::switch::load::SplitError),
    /// The SWITCH ground truth was refused.
    #[error("{0}")]
    Switch(InputErrors),
    /// The SWITCH ground truth was asked for before it was read (never).
    #[error("the SWITCH ground truth was not read")]
    SwitchNotRead,
    /// A dropped bundle was refused by the loader.
    #[error("bundle {name}: {problem}")]
    Bundle {
        /// The bundle's name.
        name: String,
        /// The loader's report.
        problem: Box<knoblab_core::bundle::LoadError>,
    },
}

/// Why a dropped zip could not be unpacked.
#[derive(Debug, Clone, Error)]
pub enum ZipError {
    /// Its central directory could not be read within the bounds.
    #[error("{path}: not a readable zip ({problem})")]
    Open {
        /// The zip.
        path: String,
        /// The input layer's error.
        problem: InputError,
    },
    /// An entry could not be read within the bounds.
    #[error("{path}: {problem}; unpack it and drop the folder's parts, or use the knoblab CLI")]
    Entries {
        /// The zip.
        path: String,
        /// The input layer's error.
        problem: InputError,
    },
}

/// Why an EPIC-Bench item's drill-down could not be made.
#[derive(Debug, Error)]
pub enum ItemError {
    /// The file is not one of the job's EPIC-Bench results files.
    #[error("{file}: not an EPIC-Bench results file of this job")]
    NotEpic {
        /// The file asked for.
        file: String,
    },
    /// The unit could not be read.
    #[error(transparent)]
    Unit(#[from] crate::scoring::ScoreError),
    /// The scorer refused the run.
    #[error("{file}: {problem}")]
    Epic {
        /// The results file.
        file: String,
        /// The scorer's error.
        problem: EpicError,
    },
    /// The run has no such item.
    #[error("{file}: it has no item {index}")]
    NoItem {
        /// The results file.
        file: String,
        /// The item asked for.
        index: usize,
    },
}
