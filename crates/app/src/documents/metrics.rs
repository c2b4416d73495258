//! `knoblab metrics`'s document: VGEBench metrics of trajectory files, one
//! run per file, against a folder of bundles (or one bundle).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use knoblab_core::bundle::{load_path, Bundle};
use knoblab_core::metrics::{run_numbered, RunMetrics};
use knoblab_core::sim::Trajectory;

use super::DocumentError;

/// The runs, in the order of their files.
#[derive(Debug, Clone)]
pub struct MetricsRuns {
    /// (the file as given, its run's metrics).
    pub runs: Vec<(String, RunMetrics)>,
    /// (the file as given, how many of its episodes ended as `api_error`
    /// and are not scored), for the files that have any.
    pub api_errors: Vec<(String, usize)>,
}

/// One run in the document: the file it came from, then its metrics.
#[derive(Debug, Serialize)]
struct FileRun<'a> {
    file: &'a str,
    #[serde(flatten)]
    run: &'a RunMetrics,
}

impl MetricsRuns {
    /// The `--json` document: one object for one file, else a list.
    pub fn to_json(&self) -> Result<Value, serde_json::Error> {
        let files: Vec<FileRun<'_>> = self
            .runs
            .iter()
            .map(|(file, run)| FileRun { file, run })
            .collect();
        match files.as_slice() {
            [one] => serde_json::to_value(one),
            many => serde_json::to_value(many),
        }
    }
}

/// The metrics of each trajectory file against the bundles of `bundles`.
pub fn metrics(trajectories: &[PathBuf], bundles: &Path) -> Result<MetricsRuns, DocumentError> {
    let mut bundles = load_bundles(bundles)?;
    let mut runs = Vec::with_capacity(trajectories.len());
    let mut api_errors = Vec::new();
    let files = trajectories
        .iter()
        .map(|path| Ok((path, read_trajectories(path)?)))
        .collect::<Result<Vec<_>, DocumentError>>()?;
    // Runs side by side are of one library, as a run's episodes are.
    let numbered: Vec<(String, Vec<(usize, &Trajectory)>)> = files
        .iter()
        .map(|(path, file)| {
            let episodes = file.episodes.iter().map(|(line, t)| (*line, t)).collect();
            (path.display().to_string(), episodes)
        })
        .collect();
    let named: Vec<knoblab_core::metrics::NumberedFile<'_>> = numbered
        .iter()
        .map(|(name, episodes)| (Some(name.as_str()), episodes.as_slice()))
        .collect();
    knoblab_core::metrics::one_library(&named)
        .map_err(|e| DocumentError::Metrics(e.to_string()))?;
    for ((path, file), (_, numbered)) in files.iter().zip(&numbered) {
        // Generated devices have no folder: the ones played are made now.
        let made = crate::devices::open_missing_generated(
            file.episodes.iter().map(|(_, t)| t.bundle_id.as_str()),
            &bundles,
        )
        .map_err(|e| DocumentError::Bundles(e.to_string()))?;
        bundles.extend(made);
        let run = run_numbered(&bundles, numbered)
            .map_err(|e| DocumentError::Metrics(format!("{}: {e}", path.display())))?;
        if file.api_errors > 0 {
            api_errors.push((path.display().to_string(), file.api_errors));
        }
        runs.push((path.display().to_string(), run));
    }
    Ok(MetricsRuns { runs, api_errors })
}

/// The bundles of `dir`: `dir` itself when it is a bundle (a folder with a
/// `manifest.json`, a zip or a single JSON file), else every sub-folder
/// with a `manifest.json` and every `.zip` in it, by name.
pub fn load_bundles(dir: &Path) -> Result<Vec<Bundle>, DocumentError> {
    if !dir.exists() {
        return Err(DocumentError::Bundles(format!(
            "the bundles folder {} does not exist",
            dir.display()
        )));
    }
    if dir.is_file() || dir.join("manifest.json").is_file() {
        return Ok(vec![load_path(dir)?]);
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| DocumentError::Bundles(format!("reading {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.join("manifest.json").is_file()
                || (p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("zip")))
        })
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(DocumentError::Bundles(format!(
            "{} holds no bundle (a folder with a manifest.json, or a .zip)",
            dir.display()
        )));
    }
    paths
        .iter()
        .map(|p| load_path(p).map_err(DocumentError::from))
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
pub fn read_trajectories(path: &Path) -> Result<TrajectoryFile, DocumentError> {
    let bytes = super::read_nonempty_bounded(
        path,
        "one trajectory per line (JSON Lines, as `knoblab run` and `knoblab eval` write)",
    )
    .map_err(|e| DocumentError::Results(e.to_string()))?;
    knoblab_core::metrics::file::read_trajectory_file(&path.display().to_string(), &bytes).map_err(
        |e| {
            use knoblab_core::metrics::file::TrajectoryFileError as E;
            let message = e.to_string();
            match e {
                E::Line { file, line, .. }
                | E::Duplicate { file, line, .. }
                | E::SameItem { file, line, .. } => DocumentError::ResultsLine {
                    message,
                    path: file,
                    line,
                },
                _ => DocumentError::Results(message),
            }
        },
    )
}
