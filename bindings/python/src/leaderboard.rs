//! `knoblab.leaderboard`: the document `knoblab leaderboard --json`
//! prints, computed by [`knoblab_app::leaderboard`] (this file only
//! converts the arguments and the errors).

use std::path::{Path, PathBuf};

use pyo3::prelude::*;

use knoblab_app::leaderboard::plan::read_plan;
use knoblab_app::leaderboard::{from_paths, LeaderboardError, Options};

use crate::errors::{self, Kind, Raised};
use crate::json_text;

fn leaderboard_error(e: LeaderboardError, inputs: &[(Kind, &Path)]) -> PyErr {
    let message = e.to_string();
    let kind = match e {
        LeaderboardError::Score(e) => return errors::document_at(*e, inputs).into(),
        LeaderboardError::NoRuns
        | LeaderboardError::TooManyResamples { .. }
        | LeaderboardError::NoRow { .. }
        | LeaderboardError::OtherLibrary { .. }
        | LeaderboardError::PlanKey { .. } => Kind::Options,
        LeaderboardError::Run { .. } => Kind::Metrics,
        LeaderboardError::Plan { .. } | LeaderboardError::PlanRun(_) => Kind::Results,
        LeaderboardError::Device(_)
        | LeaderboardError::Library { .. }
        | LeaderboardError::LibraryDevice { .. } => Kind::Bundle,
    };
    Raised::new(kind, message).into()
}

/// `knoblab leaderboard --json`: the document JSON. `compare` holds pairs
/// of 0-based rows; `plan` is a plan file (`--plan`).
// Python's keyword arguments, one parameter each.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (trajectories, bundles=None, library=None, seed=0, resamples=1000, compare=Vec::new(), plan=None))]
fn leaderboard_json(
    py: Python<'_>,
    trajectories: Vec<PathBuf>,
    bundles: Option<PathBuf>,
    library: Option<PathBuf>,
    seed: u64,
    resamples: usize,
    compare: Vec<(usize, usize)>,
    plan: Option<PathBuf>,
) -> PyResult<String> {
    let plan = match plan {
        Some(path) => {
            let bytes = knoblab_core::input::fs::read_nonempty(
                &path,
                knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES,
                "a plan: episode keys bundle/task#repeat, one per line, or a trajectory file",
            )
            .map_err(|e| PyErr::from(Raised::new(Kind::Results, format!("plan: {e}")).at(&path)))?;
            Some(
                read_plan(&path.display().to_string(), &bytes)
                    .map_err(|e| leaderboard_error(e, &[(Kind::Results, path.as_path())]))?,
            )
        }
        None => None,
    };
    let options = Options {
        seed,
        resamples,
        compare,
        plan,
    };
    let board = py
        .allow_threads(|| {
            from_paths(
                &trajectories,
                bundles.as_deref(),
                library.as_deref(),
                &options,
            )
        })
        .map_err(|e| {
            let mut inputs: Vec<(Kind, &Path)> = trajectories
                .iter()
                .map(|p| (Kind::Results, p.as_path()))
                .collect();
            inputs.extend(bundles.as_deref().map(|b| (Kind::Bundle, b)));
            leaderboard_error(e, &inputs)
        })?;
    let doc = board
        .to_json()
        .map_err(|e| PyErr::from(errors::other(e.to_string())))?;
    json_text(&doc)
}

/// Adds the leaderboard's function to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(leaderboard_json, m)?)
}
