//! VGEBench metrics: trajectory files (read from disk or dropped on the
//! page) and the bundles they were played on in, one run per file out,
//! with the episodes not scored.

use serde::Serialize;
use serde_json::Value;

use knoblab_core::bundle::Bundle;
use knoblab_core::input::unused::{Unused, UnusedKind};
use knoblab_core::metrics::file::TrajectoryFile;
use knoblab_core::metrics::{run_numbered, NumberedFile, RunMetrics};
use knoblab_core::sim::Trajectory;

use super::ScoreError;

/// One trajectory file's run.
#[derive(Debug, Clone)]
pub struct RunScored {
    /// The file, as given.
    pub file: String,
    /// Its metrics.
    pub run: RunMetrics,
    /// How many of its episodes ended as `api_error` and are not scored.
    pub api_errors: usize,
    /// Those episodes, each at its line.
    pub unused: Vec<Unused>,
}

/// The runs, in the order of their files.
#[derive(Debug, Clone, Default)]
pub struct MetricsRuns {
    /// Each file's run.
    pub runs: Vec<RunScored>,
}

/// One run in the document: the file it came from, then its metrics.
#[derive(Debug, Serialize)]
struct FileRun<'a> {
    file: &'a str,
    #[serde(flatten)]
    run: &'a RunMetrics,
    unused: &'a [Unused],
}

impl RunScored {
    /// The run in the `--json` document: `file`, the metrics, `unused`.
    pub fn to_json(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(FileRun {
            file: &self.file,
            run: &self.run,
            unused: &self.unused,
        })
    }
}

impl MetricsRuns {
    /// The `--json` document: one object for one file, else a list.
    pub fn to_json(&self) -> Result<Value, serde_json::Error> {
        let mut docs = self
            .runs
            .iter()
            .map(RunScored::to_json)
            .collect::<Result<Vec<_>, _>>()?;
        match docs.len() {
            1 => Ok(docs.remove(0)),
            _ => Ok(Value::Array(docs)),
        }
    }
}

/// The episodes of `file`, numbered by line, as the metrics take them.
fn numbered(file: &TrajectoryFile) -> Vec<(usize, &Trajectory)> {
    file.episodes.iter().map(|(line, t)| (*line, t)).collect()
}

/// Refuses trajectory files of more than one library version side by
/// side (the core's rule, [`knoblab_core::metrics::one_library`]), as a
/// run's own episodes are of one.
pub fn one_library(files: &[(&str, &TrajectoryFile)]) -> Result<(), ScoreError> {
    let numbered: Vec<(&str, Vec<(usize, &Trajectory)>)> =
        files.iter().map(|(name, f)| (*name, numbered(f))).collect();
    let named: Vec<NumberedFile<'_>> = numbered
        .iter()
        .map(|(name, episodes)| (Some(*name), episodes.as_slice()))
        .collect();
    knoblab_core::metrics::one_library(&named)
        .map(|_| ())
        .map_err(|e| ScoreError::Library(Box::new(e)))
}

/// The devices a trajectory file's episodes were played on, one id per
/// episode (`api_error` ones included).
pub fn played_ids(file: &TrajectoryFile) -> impl Iterator<Item = &str> {
    file.episodes
        .iter()
        .map(|(_, t)| t.bundle_id.as_str())
        .chain(file.api_error_episodes.iter().map(|a| a.bundle_id.as_str()))
}

/// Scores the trajectory file `name` against `bundles`; the generated
/// devices it was played on that are not among them are made and added
/// (a generated device has no files to ship).
pub fn score_file(
    name: &str,
    file: &TrajectoryFile,
    bundles: &mut Vec<Bundle>,
) -> Result<RunScored, ScoreError> {
    let made = crate::devices::open_missing_generated(
        file.episodes.iter().map(|(_, t)| t.bundle_id.as_str()),
        bundles,
    )
    .map_err(|problem| ScoreError::Devices {
        path: name.to_string(),
        problem: Box::new(problem),
    })?;
    bundles.extend(made);
    let run = run_numbered(bundles, &numbered(file)).map_err(|problem| ScoreError::Metrics {
        path: name.to_string(),
        problem: Box::new(problem),
    })?;
    let unused = file
        .api_error_episodes
        .iter()
        .map(|r| {
            Unused::new(
                name,
                UnusedKind::NotScored,
                "the episode ended as api_error (the model could not be reached); not scored",
            )
            .at(r.line)
            .named(
                r.item
                    .clone()
                    .unwrap_or_else(|| format!("{}/{}", r.bundle_id, r.task_id)),
            )
        })
        .collect();
    Ok(RunScored {
        file: name.to_string(),
        run,
        api_errors: file.api_errors,
        unused,
    })
}

/// The metrics of each trajectory file against `bundles`: files of one
/// library version only ([`one_library`]), each scored by [`score_file`].
pub fn score_files(
    files: &[(String, TrajectoryFile)],
    mut bundles: Vec<Bundle>,
) -> Result<MetricsRuns, ScoreError> {
    let named: Vec<(&str, &TrajectoryFile)> = files.iter().map(|(n, f)| (n.as_str(), f)).collect();
    one_library(&named)?;
    let runs = files
        .iter()
        .map(|(name, file)| score_file(name, file, &mut bundles))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MetricsRuns { runs })
}
