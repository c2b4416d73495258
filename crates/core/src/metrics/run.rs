//! A run's metrics: the episodes of one trajectory file, scored against
//! the bundles they were recorded on.

use serde::{Deserialize, Serialize};

use crate::bundle::{Bundle, LibraryStamp};
use crate::sim::{Episode, RenderMode, Trajectory};

use super::episode::{score, EpisodeMetrics};
use super::pool::Summands;
use super::{Counts, EpisodeRef, Metrics, MetricsError, RecordedOn};

/// A run's metrics (the definitions are on [`Metrics`]), with each
/// episode's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// How many episodes the run pools.
    pub episodes: usize,
    #[serde(flatten)]
    /// The run's metrics.
    pub metrics: Metrics,
    /// The totals behind them.
    pub counts: Counts,
    /// Each episode's metrics, in file order.
    pub per_episode: Vec<EpisodeMetrics>,
}

/// Scores a run: the episodes in file order, line `i + 1` for the i-th.
///
/// SR, SSR, SPL and State-F1 are averaged over episodes, VSPS over the
/// episodes that reached a goal; EIR, TIR, EER, PSR, GVPE, Avg Dist and Avg
/// W-Dist are ratios of the run's totals (**Decision (spec silent):** the
/// spec says "averaged" only for the first four and VSPS, and GVPE and PSR
/// are defined over "all" of the run; the others follow them so that a long
/// episode weighs by its actions).
///
/// Every episode is checked against its bundle (by id, then logic hash)
/// before anything is scored; the first that fails is named in the error.
pub fn run(bundles: &[Bundle], trajectories: &[Trajectory]) -> Result<RunMetrics, MetricsError> {
    let numbered: Vec<(usize, &Trajectory)> = trajectories
        .iter()
        .enumerate()
        .map(|(i, t)| (i + 1, t))
        .collect();
    run_numbered(bundles, &numbered)
}

/// [`run`] with each episode's file line given.
pub fn run_numbered(
    bundles: &[Bundle],
    trajectories: &[(usize, &Trajectory)],
) -> Result<RunMetrics, MetricsError> {
    one_render_mode(trajectories)?;
    one_library(&[(None, trajectories)])?;
    // Each bundle compiled and hashed once for the whole run (an episode
    // replays each record on it).
    let mut devices: Vec<Episode<'_>> = bundles.iter().map(Episode::new).collect();
    let mut per_episode = Vec::with_capacity(trajectories.len());
    for &(line, t) in trajectories {
        // Several bundles may share an id (two versions of a device side by
        // side): the one with the trajectory's logic is used; if none has
        // it, the first is, and `score` refuses the trajectory.
        let same_id = |e: &Episode<'_>| e.device().bundle.manifest.id == t.bundle_id;
        let found = devices
            .iter()
            .position(|e| same_id(e) && e.logic_hash() == t.logic_hash)
            .or_else(|| devices.iter().position(same_id));
        let Some(found) = found else {
            let known: Vec<&str> = bundles.iter().map(|b| b.manifest.id.as_str()).collect();
            return Err(MetricsError::UnknownBundle {
                episode: EpisodeRef {
                    bundle_id: t.bundle_id.clone(),
                    task_id: t.task_id.clone(),
                    line: Some(line),
                },
                known: if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                },
            });
        };
        per_episode.push(score(&mut devices[found], t, Some(line))?);
    }
    Ok(aggregate(per_episode))
}

/// The render mode shared by every episode of a run (static for an empty
/// one), or an error naming the first episode of each of two modes: a
/// run never pools static and live pictures.
pub fn one_render_mode(trajectories: &[(usize, &Trajectory)]) -> Result<RenderMode, MetricsError> {
    let reference = |line: usize, t: &Trajectory| {
        Box::new(EpisodeRef {
            bundle_id: t.bundle_id.clone(),
            task_id: t.task_id.clone(),
            line: Some(line),
        })
    };
    let Some(&(first_line, first)) = trajectories.first() else {
        return Ok(RenderMode::Static);
    };
    let mode = first.settings.render;
    match trajectories.iter().find(|(_, t)| t.settings.render != mode) {
        None => Ok(mode),
        Some(&(line, other)) => Err(MetricsError::MixedRender {
            first: reference(first_line, first),
            first_mode: mode,
            other: reference(line, other),
            other_mode: other.settings.render,
        }),
    }
}

/// A trajectory file's episodes as [`one_library`] compares them: the
/// file's name (none for one run alone) and its episodes with their lines.
pub type NumberedFile<'a> = (Option<&'a str>, &'a [(usize, &'a Trajectory)]);

/// The library shared by every episode of `files` (each the file's name,
/// when several are compared, and its numbered episodes), none when no
/// episode records one; or an error naming the first episode and the
/// first of another library, with their files: episodes of two versions
/// of the benchmark never pool into one run, nor sit side by side as
/// runs. A record without the field (a bundle of one's own, or a file
/// from before it was written) is of no library, and so differs from one
/// that records one.
pub fn one_library(files: &[NumberedFile<'_>]) -> Result<Option<LibraryStamp>, MetricsError> {
    let recorded = |file: Option<&str>, line: usize, t: &Trajectory| {
        Box::new(RecordedOn {
            file: file.map(str::to_string),
            episode: EpisodeRef {
                bundle_id: t.bundle_id.clone(),
                task_id: t.task_id.clone(),
                line: Some(line),
            },
            library: t.settings.library.clone(),
        })
    };
    let mut episodes = files
        .iter()
        .flat_map(|(file, ts)| ts.iter().map(move |&(line, t)| (*file, line, t)));
    let Some((first_file, first_line, first)) = episodes.next() else {
        return Ok(None);
    };
    let library = &first.settings.library;
    match episodes.find(|(_, _, t)| t.settings.library != *library) {
        None => Ok(library.clone()),
        Some((file, line, other)) => Err(MetricsError::MixedLibrary {
            first: recorded(first_file, first_line, first),
            other: recorded(file, line, other),
        }),
    }
}

fn aggregate(per_episode: Vec<EpisodeMetrics>) -> RunMetrics {
    let mut c = Counts::default();
    let mut sum = Summands::default();
    for e in &per_episode {
        c.add(&e.counts);
        sum.add(&Summands::of(e), 1.0);
    }
    RunMetrics {
        episodes: per_episode.len(),
        metrics: sum.metrics(),
        counts: c,
        per_episode,
    }
}
