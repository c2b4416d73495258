//! `knoblab metrics`'s document: VGEBench metrics of trajectory files, one
//! run per file, against a folder of bundles (or one bundle).

use std::path::{Path, PathBuf};

use knoblab_core::bundle::{load_path, Bundle};

use super::shown;
pub use crate::scoring::metrics::{MetricsRuns, RunScored};
use crate::scoring::{InputKind, ScoreError};

/// The metrics of each trajectory file against the bundles of `bundles`
/// ([`crate::scoring::metrics::score_files`]).
pub fn metrics(trajectories: &[PathBuf], bundles: &Path) -> Result<MetricsRuns, ScoreError> {
    let bundles = load_bundles(bundles)?;
    let files = trajectories
        .iter()
        .map(|path| Ok((path.display().to_string(), read_trajectories(path)?)))
        .collect::<Result<Vec<_>, ScoreError>>()?;
    crate::scoring::metrics::score_files(&files, bundles)
}

/// The bundles of `dir`: `dir` itself when it is a bundle (a folder with a
/// `manifest.json`, a zip or a single JSON file), else every sub-folder
/// with a `manifest.json` and every `.zip` in it, by name.
pub fn load_bundles(dir: &Path) -> Result<Vec<Bundle>, ScoreError> {
    if !dir.exists() {
        return Err(ScoreError::NoBundlesFolder(shown(dir)));
    }
    if dir.is_file() || dir.join("manifest.json").is_file() {
        return Ok(vec![load_path(dir)?]);
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| ScoreError::Folder {
            kind: InputKind::Bundle,
            path: shown(dir),
            error: e,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.join("manifest.json").is_file()
                || (p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("zip")))
        })
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(ScoreError::NoBundles(shown(dir)));
    }
    paths
        .iter()
        .map(|p| load_path(p).map_err(ScoreError::from))
        .collect()
}

pub use knoblab_core::metrics::file::TrajectoryFile;

/// The episodes of a trajectory file with their line numbers, read through
/// the input layer ([`knoblab_core::metrics::file::read_trajectory_file`]): a
/// regular file within the bound, decoded by the one rule, each line's JSON
/// with duplicate keys refused; an empty file, a copy of an episode (the
/// same batch item twice, or an equal line without one) and a record whose
/// counters disagree with its steps are refused. Blank lines are skipped,
/// and so are episodes recorded as `api_error` (counted).
pub fn read_trajectories(path: &Path) -> Result<TrajectoryFile, ScoreError> {
    let bytes = super::read_nonempty_input(
        path,
        InputKind::Results,
        "one trajectory per line (JSON Lines, as `knoblab run` and `knoblab eval` write)",
    )?;
    knoblab_core::metrics::file::read_trajectory_file(&path.display().to_string(), &bytes)
        .map_err(|e| ScoreError::Trajectories(Box::new(e)))
}
