//! What can go wrong scoring one unit of a job, typed: each message
//! names the file and says what would do, word for word as the page and
//! the CLI show it (they flatten these to text at their edge).

use thiserror::Error;

use knoblab_core::input::InputError;
use knoblab_score::epic::report::EpicError;
use knoblab_score::switch::InputErrors;

/// Why a unit of a job (a results file with what it needs) was not scored.
#[derive(Debug, Error)]
pub enum UnitError {
    /// The unit holds no file.
    #[error("nothing to score")]
    Nothing,
    /// The unit's files are not results of a benchmark this job scores.
    #[error("{name}: not a results file")]
    NotResults {
        /// The unit's name.
        name: String,
    },
    /// A results file is not text.
    #[error("{path}: {problem}")]
    Text {
        /// The file.
        path: String,
        /// The input layer's error.
        problem: InputError,
    },
    /// EPIC-Bench refused the run.
    #[error("{path}: {problem}")]
    Epic {
        /// The results file.
        path: String,
        /// The scorer's error.
        problem: EpicError,
    },
    /// EPIC-Bench found none of the ground truth the run names.
    #[error(
        "{path}: no ground truth found ({coverage}). Drop the EPIC_Bench folder (or its zip) beside the results, or use the shipped sample"
    )]
    NoEpicGroundTruth {
        /// The results file.
        path: String,
        /// What was looked for and found.
        coverage: String,
    },
    /// FineState-Bench's predictions could not be read.
    #[error(transparent)]
    FineStatePredictions(Box<knoblab_score::finestate::predictions::PredictionError>),
    /// FineState-Bench was given no model name.
    #[error(
        "{name}: FineState-Bench needs the model name (the official parser's unit rules depend on it); enter it under Options"
    )]
    FineStateModel {
        /// The unit's name.
        name: String,
    },
    /// The FineState-Bench parser build named is not one.
    #[error("{0}")]
    FineStateParser(String),
    /// No FineState-Bench annotation was among the dropped files.
    #[error(
        "{name}: no FineState-Bench annotation found among the dropped files ({skipped} records left out); drop the dataset folder (desktop_en/, web_en/, mobile_en/ with their images) or its zip"
    )]
    FineStateDataset {
        /// The unit's name.
        name: String,
        /// How many annotation records were left out.
        skipped: usize,
    },
    /// A SWITCH file (predictions, video judgements) was refused.
    #[error("{0}")]
    Switch(InputErrors),
    /// SWITCH predictions were given without their ground truth.
    #[error(
        "{path}: the SWITCH ground truth is needed: {problem}. Drop the dataset root or the public release's folder (or its zip, or its vqa.json/openqa.json/data.jsonl files)"
    )]
    SwitchGroundTruth {
        /// The predictions file.
        path: String,
        /// Why the ground truth is not there.
        problem: GroundError,
    },
    /// A trajectory file could not be read.
    #[error(transparent)]
    Trajectories(Box<knoblab_core::metrics::file::TrajectoryFileError>),
    /// A trajectory file's episodes could not be scored.
    #[error("{path}: {problem}")]
    Metrics {
        /// The trajectory file.
        path: String,
        /// The metrics' error.
        problem: Box<knoblab_core::metrics::MetricsError>,
    },
    /// A generated device the trajectories were played on could not be made.
    #[error("{path}: {problem}")]
    Devices {
        /// The trajectory file.
        path: String,
        /// The library's error.
        problem: Box<crate::devices::OpenError>,
    },
    /// The dropped bundles could not be loaded.
    #[error(transparent)]
    Ground(#[from] GroundError),
    /// A report could not be written as JSON (never, for the types there are).
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

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
    Unit(#[from] UnitError),
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
