//! Why scoring refused its inputs, typed: one enum for the CLI, Python and
//! the page (issue #45), each variant holding the error of the layer that
//! found the fault (the input layer's, a scorer's, the metrics'), so an
//! edge tells the kinds apart by type, never by message text. Each message
//! names the file and says what would do; the faces show it word for word.

use thiserror::Error;

use knoblab_core::input::InputError;
use knoblab_score::epic::coords::UnknownMode;
use knoblab_score::epic::report::EpicError;
use knoblab_score::finestate::corrected::ConventionError;
use knoblab_score::finestate::parser::UnknownParser;
use knoblab_score::switch::report::OptionError;
use knoblab_score::switch::InputErrors;

use crate::job::GroundError;

/// Which input was at fault: what the faces sort errors by (Python's
/// exception classes, the CLI's messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A results file (predictions, judge outputs, trajectories).
    Results,
    /// The ground truth (annotations, masks, the dataset's tree).
    GroundTruth,
    /// A device bundle, or the folder that holds them.
    Bundle,
    /// An option outside its values.
    Options,
    /// Trajectories that cannot be scored against the bundles given.
    Metrics,
}

/// Why a results file (or a set of them) was not scored.
#[derive(Debug, Error)]
pub enum ScoreError {
    /// A job was not given the scorer of a benchmark of its files (the
    /// page's scoring workers give each scorer from its own chunk).
    #[error("no {benchmark} scorer in this job (in the page: its code could not be downloaded, the network being off before this browser kept it; reload the page once the network is back)")]
    NoScorer {
        /// The benchmark's name.
        benchmark: &'static str,
    },
    /// The input layer refused a file (its message names the file).
    #[error("{error}")]
    Read {
        /// Which input the file is.
        kind: InputKind,
        /// The input layer's error.
        error: InputError,
    },
    /// A results file's bytes are not text.
    #[error("{path}: {error}")]
    NotText {
        /// The file.
        path: String,
        /// The input layer's decoding error.
        error: InputError,
    },
    /// A folder could not be listed.
    #[error("reading {path}: {error}")]
    Folder {
        /// Which input the folder is.
        kind: InputKind,
        /// The folder.
        path: String,
        /// The operating system's error.
        error: std::io::Error,
    },

    /// EPIC-Bench: `--coord-mode` is not a mode.
    #[error("--coord-mode {0}")]
    CoordMode(UnknownMode),
    /// FineState-Bench: no model name (the official parser keys rules on it).
    #[error(
        "{name}: FineState-Bench needs the model name (the official parser's unit rules depend on it); give --model (on the page, enter it under Options)"
    )]
    FineStateModel {
        /// The results file (or run).
        name: String,
    },
    /// FineState-Bench: the parser build named is not one.
    #[error("--parser: {0}")]
    Parser(UnknownParser),
    /// FineState-Bench: the corrected mode's convention is not one.
    #[error("--convention: {0}")]
    Convention(ConventionError),
    /// FineState-Bench: `--platform` is not a platform.
    #[error("unknown platform `{0}`: expected desktop, web or mobile")]
    Platform(String),
    /// FineState-Bench: a lone annotation file's platform cannot be told.
    #[error("cannot tell the platform of {0}; pass --platform")]
    PlatformUnknown(String),
    /// SWITCH: an option outside its values (a model access, a layout).
    #[error(transparent)]
    SwitchOption(#[from] OptionError),
    /// SWITCH: a split is not `SPLIT=PATH_FRAGMENT`.
    #[error(transparent)]
    Split(#[from] knoblab_score::switch::load::SplitError),
    /// SWITCH: neither predictions with their ground truth nor video outputs.
    #[error(
        "SWITCH needs the ground truth and the predictions together (gt and pred), or the video judge outputs (video), or all three"
    )]
    SwitchInputs,
    /// SWITCH: one model's name or access given for several runs.
    #[error(
        "--model-name and --model-access name one model, but {0} --pred files were given; give each run's model_name and model_access in its predictions"
    )]
    OneModelForRuns(usize),
    /// SWITCH: video outputs given for several runs.
    #[error("--video goes with one --pred, but {0} were given")]
    VideoForRuns(usize),

    /// EPIC-Bench: the ground-truth root is not a folder.
    #[error(
        "--gt {0}: not a folder; give the folder that holds EPIC_Bench/ (or the dataset folder above it)"
    )]
    EpicRoot(String),
    /// EPIC-Bench: none of the ground truth the run names was found.
    #[error(
        "{path}: no ground truth found{} ({coverage}). Drop the EPIC_Bench folder (or its zip) beside the results on the page, or use the shipped sample; to the CLI and Python, give the folder that holds EPIC_Bench/ as the ground truth",
        root.as_deref().map(|r| format!(" under {r}")).unwrap_or_default()
    )]
    NoEpicGroundTruth {
        /// The results file.
        path: String,
        /// What was looked for and found.
        coverage: String,
        /// The folder searched, when the ground truth is a folder.
        root: Option<String>,
    },
    /// FineState-Bench: no annotation record could be used.
    #[error(
        "{name}: no FineState-Bench instance loaded ({skipped} records left out); give the dataset folder (desktop_en/, web_en/, mobile_en/ with their images) or its zip, or take the images as present (--assume-images)"
    )]
    FineStateDataset {
        /// The ground truth (or, on the page, the results file).
        name: String,
        /// How many annotation records were left out.
        skipped: usize,
    },
    /// FineState-Bench: a zip of the dataset could not be opened.
    #[error("{path}: {error}")]
    FineStateZip {
        /// The zip.
        path: String,
        /// The zip reader's error.
        error: knoblab_score::finestate::files::ZipError,
    },
    /// SWITCH: the ground truth was refused or is not there.
    #[error("{path}: the SWITCH ground truth is needed: {problem}. Give the dataset root or the public release's folder (or its zip, or its vqa.json/openqa.json/data.jsonl files)")]
    SwitchGroundTruth {
        /// The predictions file.
        path: String,
        /// Why the ground truth is not there.
        problem: GroundError,
    },
    /// SWITCH: the ground truth (or an answers file) was refused.
    #[error("{0}")]
    SwitchGroundTruthFiles(InputErrors),

    /// EPIC-Bench refused the run.
    #[error("{path}: {problem}")]
    Epic {
        /// The results file.
        path: String,
        /// The scorer's error.
        problem: EpicError,
    },
    /// FineState-Bench's predictions could not be read.
    #[error(transparent)]
    FineStatePredictions(Box<knoblab_score::finestate::predictions::PredictionError>),
    /// FineState-Bench: a results folder without `result_<i>.json` files.
    #[error("{0} holds no result_<i>.json files (nor one <model>_results.json)")]
    NoResultFiles(String),
    /// A SWITCH file (predictions, video judgements) was refused.
    #[error("{0}")]
    Switch(InputErrors),
    /// A trajectory file could not be read.
    #[error(transparent)]
    Trajectories(Box<knoblab_core::metrics::file::TrajectoryFileError>),

    /// A bundle could not be loaded; every problem found, with where.
    #[error(transparent)]
    Bundle(Box<knoblab_core::bundle::LoadError>),
    /// The bundles folder does not exist.
    #[error("the bundles folder {0} does not exist")]
    NoBundlesFolder(String),
    /// The bundles folder holds no bundle.
    #[error("{0} holds no bundle (a folder with a manifest.json, or a .zip)")]
    NoBundles(String),
    /// A generated device the trajectories were played on could not be made.
    #[error("{path}: {problem}")]
    Devices {
        /// The trajectory file.
        path: String,
        /// The library's error.
        problem: Box<crate::devices::OpenError>,
    },

    /// Trajectory files of more than one library version, side by side.
    #[error(transparent)]
    Library(Box<knoblab_core::metrics::MetricsError>),
    /// A trajectory file's episodes could not be scored.
    #[error("{path}: {problem}")]
    Metrics {
        /// The trajectory file.
        path: String,
        /// The metrics' error.
        problem: Box<knoblab_core::metrics::MetricsError>,
    },

    /// A job's unit holds no file (never, for units the job makes).
    #[error("nothing to score")]
    Nothing,
    /// A job's unit is not results of a benchmark this job scores.
    #[error("{name}: not a results file")]
    NotResults {
        /// The unit's name.
        name: String,
    },
    /// A job's dropped ground truth (bundles, the SWITCH tree) was refused.
    #[error(transparent)]
    Ground(#[from] GroundError),
    /// A report could not be written as JSON (never, for the types there are).
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

impl From<knoblab_core::bundle::LoadError> for ScoreError {
    fn from(e: knoblab_core::bundle::LoadError) -> Self {
        ScoreError::Bundle(Box::new(e))
    }
}

impl ScoreError {
    /// Which input was at fault.
    pub fn kind(&self) -> InputKind {
        use ScoreError as E;
        match self {
            E::Read { kind, .. } | E::Folder { kind, .. } => *kind,
            E::NotText { .. }
            | E::Epic { .. }
            | E::FineStatePredictions(_)
            | E::NoResultFiles(_)
            | E::Switch(_)
            | E::Trajectories(_)
            | E::Nothing
            | E::NoScorer { .. }
            | E::NotResults { .. }
            | E::Json(_) => InputKind::Results,
            E::CoordMode(_)
            | E::FineStateModel { .. }
            | E::Parser(_)
            | E::Convention(_)
            | E::Platform(_)
            | E::PlatformUnknown(_)
            | E::SwitchOption(_)
            | E::Split(_)
            | E::SwitchInputs
            | E::OneModelForRuns(_)
            | E::VideoForRuns(_) => InputKind::Options,
            E::EpicRoot(_)
            | E::NoEpicGroundTruth { .. }
            | E::FineStateDataset { .. }
            | E::FineStateZip { .. }
            | E::SwitchGroundTruth { .. }
            | E::SwitchGroundTruthFiles(_)
            | E::Ground(_) => InputKind::GroundTruth,
            E::Bundle(_) | E::NoBundlesFolder(_) | E::NoBundles(_) | E::Devices { .. } => {
                InputKind::Bundle
            }
            E::Library(_) | E::Metrics { .. } => InputKind::Metrics,
        }
    }

    /// The file and line at fault, where the error names a line of a
    /// results file.
    pub fn line(&self) -> Option<(&str, usize)> {
        use knoblab_core::metrics::file::TrajectoryFileError as T;
        match self {
            ScoreError::Trajectories(e) => match e.as_ref() {
                T::Line { file, line, .. }
                | T::Duplicate { file, line, .. }
                | T::SameItem { file, line, .. } => Some((file.as_str(), *line)),
                _ => None,
            },
            _ => None,
        }
    }
}
