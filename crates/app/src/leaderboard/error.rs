//! [`LeaderboardError`]: why a leaderboard cannot be built.

use thiserror::Error;

use super::{plan, MAX_RESAMPLES};

/// Why a leaderboard cannot be built. Each variant keeps the refusing
/// reader's own error, so a face can tell a missing file from a bad line
/// without reading the message.
#[derive(Debug, Error)]
pub enum LeaderboardError {
    /// No run was given.
    #[error("no run to rank: give one trajectory file (JSON Lines) or more")]
    NoRuns,
    /// A run of the plan's library cannot be scored.
    #[error("{file}: {problem}")]
    Run {
        /// The file.
        file: String,
        /// The metrics' error (it names the episode).
        problem: Box<knoblab_core::metrics::MetricsError>,
    },
    /// More bootstrap resamples than the bound.
    #[error("{asked} resamples asked; at most {MAX_RESAMPLES}")]
    TooManyResamples {
        /// The number asked for.
        asked: usize,
    },
    /// A comparison names a row the board does not have (0-based).
    #[error("no row {} to compare: the leaderboard has {rows} (rows count from 1)", row + 1)]
    NoRow {
        /// The row asked for, from 0.
        row: usize,
        /// The rows the board has.
        rows: usize,
    },
    /// A comparison names a run of another library version.
    #[error(
        "{file} was recorded on another library version than the plan's; \
         runs of different libraries are not compared"
    )]
    OtherLibrary {
        /// The run's file.
        file: String,
    },
    /// A plan names an episode that is not a key.
    #[error(
        "the plan's episode {key:?} is not a key bundle/task#repeat (as `knoblab eval` records its items)"
    )]
    PlanKey {
        /// The text given.
        key: String,
    },
    /// A plan file cannot be read.
    #[error("{name}: {problem}")]
    Plan {
        /// Where its bytes came from.
        name: String,
        /// What is wrong with it.
        problem: plan::PlanError,
    },
    /// A plan given as a trajectory file cannot be read.
    #[error(transparent)]
    PlanRun(knoblab_core::metrics::file::TrajectoryFileError),
    /// A run file or the bundles folder cannot be read (natively).
    #[error(transparent)]
    Score(Box<crate::scoring::ScoreError>),
    /// A device the runs played could not be opened.
    #[error(transparent)]
    Device(Box<crate::devices::OpenError>),
    /// The library index given could not be read.
    #[error("{index}: {problem}")]
    Library {
        /// The index's path.
        index: String,
        /// The resolver's error.
        problem: Box<crate::devices::OpenError>,
    },
    /// A device of the library index was refused by the loader.
    #[error("{index}: {problem}")]
    LibraryDevice {
        /// The index's path.
        index: String,
        /// The loader's report.
        problem: Box<knoblab_core::bundle::LoadError>,
    },
}
