//! A leaderboard of runs (`knoblab leaderboard`, the page's Leaderboard
//! view, `knoblab.leaderboard`): one row per trajectory file, each
//! VGEBench metric with a 95% interval from a seeded bootstrap over
//! episodes stratified by device, drill-downs by device category and by
//! task kind, honest denominators against a plan of episodes, and paired
//! comparisons ([`compare`]). The document and its schema are described
//! in `docs/leaderboard.md`.
//!
//! Every metric value is [`knoblab_core::metrics`]'s: a row's values are
//! the [`knoblab_core::metrics::RunMetrics`] `knoblab metrics` prints for the file, and every
//! resample (and drill-down) is pooled by [`Summands`], the rows
//! [`knoblab_core::metrics::run`] pools. Nothing here defines a metric.
//!
//! - [`bootstrap`]: the seeded generator, the stratified resampling and
//!   the percentile interval.
//! - [`compare`]: the paired comparison of two rows.
//! - [`export`]: Markdown, CSV and LaTeX.
//! - [`publish`]: the board with its runs' traces, as one file the page
//!   reopens.
//! - [`plan`]: a plan given (`--plan`): the episodes the runs were meant
//!   to cover.
//! - `keys` and `rows`: each record's key and place in the plan; the rows.
//! - `error`: [`LeaderboardError`], every refusal typed.
//! - [`build`] (here): the rows, from read trajectory files and bundles;
//!   [`from_paths`] reads them natively.

pub mod bootstrap;
pub mod compare;
mod error;
pub mod export;
mod keys;
pub mod plan;
pub mod publish;
mod rows;

pub use keys::keys_of;
pub use plan::{given_plan, split_key, Given};
pub use rows::{prepare, Prepared};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use knoblab_core::bundle::{Bundle, LibraryStamp};
use knoblab_core::metrics::file::TrajectoryFile;
use knoblab_core::metrics::pool::Summands;

pub use compare::{compare, Comparison};
pub use error::LeaderboardError;

/// The format tag of the document.
pub const FORMAT: &str = "knoblab-leaderboard/1";
/// Resamples when none are asked for.
pub const DEFAULT_RESAMPLES: usize = 1000;
/// The most resamples asked of one leaderboard.
pub const MAX_RESAMPLES: usize = 100_000;

/// How to build a leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// Seeds every bootstrap.
    pub seed: u64,
    /// Bootstrap resamples (0: no intervals).
    pub resamples: usize,
    /// Pairs of rows (0-based) to compare.
    pub compare: Vec<(usize, usize)>,
    /// The episodes the runs were meant to cover (keys
    /// `bundle/task#repeat`, [`plan::read_plan`]); none: the union of the
    /// runs' episodes.
    #[serde(default)]
    pub plan: Option<Vec<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 0,
            resamples: DEFAULT_RESAMPLES,
            compare: Vec::new(),
            plan: None,
        }
    }
}

/// One trajectory file, read, with the name it goes by.
#[derive(Debug, Clone)]
pub struct RunInput {
    /// The file's name as given.
    pub name: String,
    /// Its episodes.
    pub file: TrajectoryFile,
}

/// A number with its 95% bootstrap interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The value (`knoblab metrics`'s), `None` when undefined.
    pub value: Option<f64>,
    /// The 2.5th percentile of the resamples (`None`: no resample, or
    /// undefined in every one).
    pub ci_low: Option<f64>,
    /// The 97.5th percentile.
    pub ci_high: Option<f64>,
    /// The episodes the value is computed over.
    pub n: usize,
    /// Episodes of the plan that this value does not cover (missing from
    /// the file, or ended as `api_error`).
    pub missing: usize,
}

/// How a run stands against the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Every planned episode was played and scored.
    Complete,
    /// Some planned episodes are missing or ended as `api_error`.
    Partial,
    /// Recorded on another library version than the plan's: shown with
    /// its own numbers, never compared with the others.
    OtherLibrary,
}

/// What a run covers of the plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Episodes in the plan (for another library's run: its own).
    pub plan: usize,
    /// Episodes played and scored.
    pub played: usize,
    /// Episodes recorded as `api_error` (not scored).
    pub api_error: usize,
    /// Planned episodes with no record in the file.
    pub missing: usize,
}

/// The task kind of an episode, for the drill-down.
/// **Decision (spec silent):** exclusive, in this order: `timed` when the
/// task's ideal path takes a `timed_wait` transition (two consecutive
/// states of the record's `ideal_states` joined by one), else `multi`
/// with two goals or more, else `single`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// One goal.
    Single,
    /// Two goals or more.
    Multi,
    /// The ideal path waits on a timer.
    Timed,
}

impl TaskKind {
    /// The key in the document.
    pub fn key(self) -> &'static str {
        match self {
            TaskKind::Single => "single",
            TaskKind::Multi => "multi",
            TaskKind::Timed => "timed",
        }
    }
}

/// How an episode of the plan stands in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpisodeState {
    /// Played and scored.
    Played,
    /// Recorded as `api_error`.
    ApiError,
    /// No record in the file.
    Missing,
}

/// One episode of a row: the evidence behind its numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeEntry {
    /// Its identity in the plan: the batch item `knoblab eval` records, or
    /// `bundle/task#k` (the k-th record of that task in the file, from 0).
    pub key: String,
    /// The device.
    pub bundle_id: String,
    /// The task.
    pub task_id: String,
    /// The device's category.
    pub category: String,
    /// The task's kind.
    pub kind: TaskKind,
    /// How it stands in this run.
    pub state: EpisodeState,
    /// Its line in the file, when it has a record.
    pub line: Option<usize>,
    /// Its SR (1 or 0), when played.
    pub sr: Option<f64>,
    /// Its SSR, when played.
    pub ssr: Option<f64>,
    /// Its SPL, when played.
    pub spl: Option<f64>,
    /// Steps taken, when played.
    pub steps: Option<u64>,
}

/// A drill-down cell: the row's episodes of one category or task kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// What the group covers of the plan.
    pub coverage: Coverage,
    /// Each metric ([`knoblab_core::metrics::columns::COLUMNS`]'s keys).
    pub metrics: BTreeMap<String, Estimate>,
}

/// One run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The trajectory file as given.
    pub file: String,
    /// The model, else the agent (`oracle`, `random:7`).
    pub model: String,
    /// The system prompt's version, when recorded.
    pub prompt_version: Option<String>,
    /// The library the run was recorded on (none: bundles of one's own).
    pub library: Option<LibraryStamp>,
    /// λ.
    pub lambda: u32,
    /// The settings whose values differ between the rows (the first
    /// episode's), by key.
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Complete, partial, or of another library.
    pub status: RunStatus,
    /// What the run covers of the plan.
    pub coverage: Coverage,
    /// Each metric under its `knoblab metrics --json` key.
    pub metrics: BTreeMap<String, Estimate>,
    /// Each error class's share of the failed steps.
    pub errors: BTreeMap<String, Estimate>,
    /// Failed steps by error class, as `knoblab metrics --json` counts them.
    pub error_counts: BTreeMap<String, u64>,
    /// SR over the plan: missing and `api_error` episodes as failures.
    pub sr_plan: Estimate,
    /// SSR over the plan, the same way.
    pub ssr_plan: Estimate,
    /// Drill-down by device category.
    pub by_category: BTreeMap<String, Group>,
    /// Drill-down by task kind (`single`, `multi`, `timed`).
    pub by_kind: BTreeMap<String, Group>,
    /// Why a run of another library has no numbers (it could not be
    /// scored with the bundles given).
    pub error: Option<String>,
    /// Every episode of the plan (for another library's run: its own),
    /// in key order.
    pub episodes: Vec<EpisodeEntry>,
}

/// The plan the rows are measured against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Its episodes: the union of every run's of the plan's library.
    pub episodes: usize,
    /// Its devices.
    pub devices: usize,
    /// The library (the one most runs were recorded on; the first run's
    /// on a tie).
    pub library: Option<LibraryStamp>,
    /// The episodes of the plan given (`--plan`), none when the plan is
    /// the runs' union.
    #[serde(default)]
    pub given: Option<usize>,
    /// Episodes played outside the given plan, added to it.
    #[serde(default)]
    pub outside_given: usize,
}

/// The leaderboard document (`knoblab leaderboard --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// [`FORMAT`].
    pub format: String,
    /// The bootstrap's seed.
    pub seed: u64,
    /// Its resamples.
    pub resamples: usize,
    /// The intervals' level (0.95).
    pub confidence: f64,
    /// What a resample keeps fixed: `device`.
    pub stratified_by: String,
    /// The plan.
    pub plan: Plan,
    /// The runs, in the order given.
    pub runs: Vec<Row>,
    /// The comparisons asked for.
    pub comparisons: Vec<Comparison>,
}

/// Builds the leaderboard of `runs` against `bundles` (every device the
/// runs played; [`with_generated`] adds the generated ones).
pub fn build(
    runs: &[RunInput],
    bundles: &[Bundle],
    options: &Options,
) -> Result<Leaderboard, LeaderboardError> {
    check(options)?;
    let prepared = runs.iter().map(|r| rows::prepare(r, bundles)).collect();
    let given = match &options.plan {
        Some(keys) => given_plan(keys, bundles)?,
        None => Vec::new(),
    };
    finish(prepared, &given, options)
}

fn check(options: &Options) -> Result<(), LeaderboardError> {
    if options.resamples > MAX_RESAMPLES {
        return Err(LeaderboardError::TooManyResamples {
            asked: options.resamples,
        });
    }
    Ok(())
}

/// The board of prepared runs, with the comparisons asked for.
fn finish(
    prepared: Vec<Prepared>,
    given: &[Given],
    options: &Options,
) -> Result<Leaderboard, LeaderboardError> {
    if prepared.is_empty() {
        return Err(LeaderboardError::NoRuns);
    }
    let mut board = rows::assemble(prepared, given, options)?;
    for &(a, b) in &options.compare {
        board.comparisons.push(compare(&board, a, b, options)?);
    }
    Ok(board)
}

/// `bundles` with the generated devices the runs played and `bundles`
/// lacks, made now (what scoring reads of them).
pub fn with_generated(
    runs: &[RunInput],
    bundles: Vec<Bundle>,
) -> Result<Vec<Bundle>, LeaderboardError> {
    with_generated_ids(runs.iter().flat_map(played_ids), bundles)
}

/// The devices a run played (an id per episode, `api_error` ones included).
pub fn played_ids(run: &RunInput) -> impl Iterator<Item = &str> {
    crate::scoring::metrics::played_ids(&run.file)
}

/// `bundles` with the generated devices among `ids` that it lacks.
fn with_generated_ids<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    mut bundles: Vec<Bundle>,
) -> Result<Vec<Bundle>, LeaderboardError> {
    let made = crate::devices::open_missing_generated(ids, &bundles)
        .map_err(|e| LeaderboardError::Device(Box::new(e)))?;
    bundles.extend(made);
    Ok(bundles)
}

/// `bundles` with the generated devices of the plan's episodes.
fn with_plan_devices(
    options: &Options,
    bundles: Vec<Bundle>,
) -> Result<Vec<Bundle>, LeaderboardError> {
    let ids = options
        .plan
        .iter()
        .flatten()
        .filter_map(|k| split_key(k).map(|(b, _)| b));
    with_generated_ids(ids, bundles)
}

/// The leaderboard of trajectory files on disk, against the bundles of
/// `bundles` (a folder of them or one), then the devices of the library
/// index `library` that the runs played and `bundles` lacks, then the
/// generated devices (made now).
#[cfg(not(target_arch = "wasm32"))]
pub fn from_paths(
    paths: &[std::path::PathBuf],
    bundles: Option<&std::path::Path>,
    library: Option<&std::path::Path>,
    options: &Options,
) -> Result<Leaderboard, LeaderboardError> {
    from_paths_with(paths, bundles, library, options, false).map(|p| p.leaderboard)
}

/// [`from_paths`] with every run's traces kept: the file `knoblab
/// leaderboard --publish` writes.
#[cfg(not(target_arch = "wasm32"))]
pub fn published_from_paths(
    paths: &[std::path::PathBuf],
    bundles: Option<&std::path::Path>,
    library: Option<&std::path::Path>,
    options: &Options,
) -> Result<publish::Published, LeaderboardError> {
    from_paths_with(paths, bundles, library, options, true)
}

/// The leaderboard of runs prepared one at a time ([`prepare`]: each
/// file read, scored and dropped before the next, as the page does):
/// `bundles` are the devices they played and those of a given plan
/// ([`Options::plan`]); the plan's generated devices are made now.
pub fn from_prepared(
    prepared: Vec<Prepared>,
    bundles: Vec<Bundle>,
    options: &Options,
) -> Result<Leaderboard, LeaderboardError> {
    check(options)?;
    let given = match &options.plan {
        Some(keys) => given_plan(keys, &with_plan_devices(options, bundles)?)?,
        None => Vec::new(),
    };
    finish(prepared, &given, options)
}

#[cfg(not(target_arch = "wasm32"))]
fn from_paths_with(
    paths: &[std::path::PathBuf],
    bundles: Option<&std::path::Path>,
    library: Option<&std::path::Path>,
    options: &Options,
    keep_traces: bool,
) -> Result<publish::Published, LeaderboardError> {
    check(options)?;
    let mut bundles = match bundles {
        Some(dir) => crate::documents::metrics::load_bundles(dir)
            .map_err(|e| LeaderboardError::Score(Box::new(e)))?,
        None => Vec::new(),
    };
    // One file at a time: read, add the devices it needs, score, drop.
    let mut prepared = Vec::with_capacity(paths.len());
    let mut traces = Vec::new();
    for p in paths {
        let run = RunInput {
            name: p.display().to_string(),
            file: crate::documents::metrics::read_trajectories(p)
                .map_err(|e| LeaderboardError::Score(Box::new(e)))?,
        };
        let one = std::slice::from_ref(&run);
        if let Some(index) = library {
            let ids = one[0]
                .file
                .episodes
                .iter()
                .map(|(_, t)| t.bundle_id.as_str());
            let more = library_devices(ids, &bundles, index)?;
            bundles.extend(more);
        }
        bundles = with_generated(one, bundles)?;
        prepared.push(prepare(&run, &bundles));
        if keep_traces {
            traces.push(publish::traces_of(&run));
        }
    }
    // The devices of a given plan that no run played, to place its episodes.
    if let (Some(keys), Some(index)) = (&options.plan, library) {
        let ids = keys.iter().filter_map(|k| split_key(k).map(|(b, _)| b));
        let more = library_devices(ids, &bundles, index)?;
        bundles.extend(more);
    }
    from_prepared(prepared, bundles, options).map(|board| publish::Published::new(board, traces))
}

/// The hand-described devices of the library at `index` among `ids`
/// that `given` lacks.
#[cfg(not(target_arch = "wasm32"))]
fn library_devices<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    given: &[Bundle],
    index: &std::path::Path,
) -> Result<Vec<Bundle>, LeaderboardError> {
    let mut wanted: Vec<&str> = ids
        .into_iter()
        .filter(|id| !given.iter().any(|b| b.manifest.id == *id))
        .filter(|id| crate::devices::generated_entry(id).is_none())
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let shown = || index.display().to_string();
    let library = crate::devices::read_library(index).map_err(|e| LeaderboardError::Library {
        index: shown(),
        problem: Box::new(e),
    })?;
    let root = index.parent().unwrap_or(std::path::Path::new("."));
    let mut out = Vec::new();
    for entry in library
        .devices
        .iter()
        .filter(|e| wanted.contains(&e.id.as_str()))
    {
        let bundle = crate::devices::open_entry_in(root, entry)
            .into_result()
            .map_err(|e| LeaderboardError::LibraryDevice {
                index: shown(),
                problem: Box::new(e),
            })?;
        out.push(bundle);
    }
    Ok(out)
}

impl Leaderboard {
    /// The `--json` document.
    pub fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    /// The row of a file name as given, or of a 1-based row number.
    pub fn find_row(&self, name: &str) -> Option<usize> {
        self.runs.iter().position(|r| r.file == name).or_else(|| {
            name.parse::<usize>()
                .ok()
                .filter(|&i| i >= 1 && i <= self.runs.len())
                .map(|i| i - 1)
        })
    }
}

/// The rows of several [`Summands`] pooled: what a drill-down shows.
fn pooled<'a>(rows: impl IntoIterator<Item = &'a Summands>) -> Summands {
    let mut sum = Summands::default();
    for r in rows {
        sum.add(r, 1.0);
    }
    sum
}
