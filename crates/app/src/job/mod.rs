//! One scoring job as the page runs it (in a Web Worker): a set of dropped
//! files, some results and some ground truth, in; a report view per
//! results file and the leaderboards out. Everything is in memory; the
//! same calls as the CLI's are made on the same bytes, so the numbers are
//! the CLI's.
//!
//! ## How dropped files are sorted
//!
//! Each file is detected ([`knoblab_score::detect`]), or taken as the format the
//! user chose for it. Results files are scored; everything else (masks,
//! annotation files, `vqa.json`, images, the contents of zips) is the
//! ground-truth pool that each benchmark reads what it needs from.
//! Official FineState `result_<i>.json` files of one folder form one run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use knoblab_score::detect::{too_large, Benchmark, Format};
use knoblab_score::epic::{self, report::Shard};
use knoblab_score::limits::MAX_RESULTS_FILE_BYTES;
use knoblab_score::switch;
use knoblab_score::view::{ItemView, LeaderRow, ReportView};

use crate::scoring::ScoreError;

mod benchmarks;
mod error;
mod files;
mod ground;
mod workers;

use benchmarks::{epic_options, score_unit, text_of};
pub use benchmarks::{score_epic, score_finestate, score_trajectories, switch_downloads};
pub use error::{GroundError, ItemError, ZipError};
pub use files::{classify, unzip, BUNDLE_PREFIX};
use files::{pool, units, Pool, Unit};
use ground::Ground;
pub use workers::{
    needs_bundles, worker_count, WarmUpSet, WorkerError, MAX_WORKERS, WARM_UP_ROUNDS, WARM_UP_SCALE,
};

/// A dropped file: its path as dropped (with folders, if a folder was
/// dropped) and its bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InputFile {
    /// The path as dropped (`run/results.jsonl`).
    pub path: String,
    #[serde(with = "serde_bytes_as_vec")]
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

/// Bytes cross the worker boundary as a plain array; kept a module so the
/// field reads as what it is.
mod serde_bytes_as_vec {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        Vec::<u8>::deserialize(d)
    }
}

/// The user's choices that change the numbers. Every field may be left out.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct JobOptions {
    /// EPIC: the model family (forced coordinate mode); by default the
    /// results file's folder name, as the official runner takes it.
    pub epic_family: Option<String>,
    /// FineState: the model name (the official parser keys unit rules on it).
    pub finestate_model: Option<String>,
    /// FineState: `py` (default) or `pyc`.
    pub finestate_parser: Option<String>,
    /// Formats the user chose, by file path, over what detection said.
    pub overrides: BTreeMap<String, Format>,
    /// SWITCH: the layout, the model's metadata, splits and extra families.
    pub switch: SwitchOptions,
}

/// SWITCH's choices, as `knoblab score switch` takes them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SwitchOptions {
    /// The tables shown (`--layout`).
    pub layout: switch::Layout,
    /// The report's options (`--model-name`, `--model-access`,
    /// `--submitted-by`, `--include-extra-families`; the page sets the
    /// submission time when the job starts).
    pub report: switch::ReportOptions,
    /// `SPLIT=PATH_FRAGMENT` entries (`--split`).
    pub splits: Vec<String>,
}

/// A file the page offers for download, made by the core's exports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Download {
    /// The scored file it is of.
    pub file: String,
    /// The button's label.
    pub label: String,
    /// The downloaded file's name.
    pub name: String,
    /// Its media type (`text/csv`).
    pub mime: String,
    /// Its content.
    pub text: String,
}

/// A bundle for trajectory metrics, as files in memory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BundleFiles {
    /// The bundle's name, as the page's library lists it.
    pub name: String,
    /// Its files, by their paths inside the bundle.
    pub files: Vec<InputFile>,
}

/// Everything one job needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Job {
    /// The dropped files, bundle files excepted.
    pub files: Vec<InputFile>,
    /// The user's choices.
    pub options: JobOptions,
    /// Bundles for trajectories (the page's library).
    pub bundles: Vec<BundleFiles>,
    /// The scorers it holds beyond EPIC-Bench's: none by default (a file
    /// of another benchmark is then refused, with why), all of them with
    /// [`Job::from_files`].
    #[serde(skip)]
    pub scorers: Scorers,
}

/// One unit of a job scored by one benchmark's scorer.
type UnitScorer = fn(&Unit<'_>, &Job, &mut Ground<'_>) -> Result<ReportView, ScoreError>;

/// The trajectories' scorer: a unit scored, and the files that are refused
/// beside the first ([`benchmarks::library_refusals`]).
#[derive(Debug, Clone, Copy)]
struct TrajectoryScorer {
    score: UnitScorer,
    refusals: fn(&[Unit<'_>]) -> BTreeMap<String, String>,
}

/// The scorers a job holds beyond EPIC-Bench's, which every job holds: a
/// seam, so that a module that scores EPIC-Bench files need not hold the
/// others' code. The page's scoring workers run a job in a chunk of the
/// page's module that holds EPIC-Bench's scorer alone, and give it another
/// ([`Scorers::with_finestate`] and so on, each in a chunk of its own) only
/// when a dropped file needs it ([`Job::missing_scorers`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Scorers {
    finestate: Option<UnitScorer>,
    switch: Option<UnitScorer>,
    trajectories: Option<TrajectoryScorer>,
}

impl Scorers {
    /// Every scorer: a job made natively ([`Job::from_files`]: tests, the
    /// example) scores as the CLI does.
    pub fn all() -> Scorers {
        Scorers::default()
            .with_finestate()
            .with_switch()
            .with_trajectories()
    }

    /// With FineState-Bench's scorer.
    pub fn with_finestate(self) -> Scorers {
        Scorers {
            finestate: Some(benchmarks::finestate_unit),
            ..self
        }
    }

    /// With SWITCH's scorer.
    pub fn with_switch(self) -> Scorers {
        Scorers {
            switch: Some(benchmarks::switch_unit),
            ..self
        }
    }

    /// With the trajectories' metrics, which make the generated devices a
    /// run was played on with this binary's generator
    /// ([`crate::devices::open_missing_generated`]).
    pub fn with_trajectories(self) -> Scorers {
        Scorers {
            trajectories: Some(TrajectoryScorer {
                score: benchmarks::trajectories_unit,
                refusals: benchmarks::library_refusals,
            }),
            ..self
        }
    }

    /// Whether it holds the scorer of `benchmark`.
    pub fn holds(&self, benchmark: Benchmark) -> bool {
        match benchmark {
            Benchmark::Epic => true,
            Benchmark::FineState => self.finestate.is_some(),
            Benchmark::Switch => self.switch.is_some(),
            Benchmark::Trajectories => self.trajectories.is_some(),
        }
    }
}

/// How far a job is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Steps finished.
    pub done: usize,
    /// Steps in all.
    pub total: usize,
    /// What is being done now (`scoring run.jsonl`).
    pub stage: String,
}

/// What a dropped file was taken to be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file's path as dropped.
    pub path: String,
    /// The format's key, when known.
    pub format: Option<Format>,
    /// "EPIC-Bench raw outputs, 184 samples", or why it is not recognised.
    pub label: String,
    /// What detection found wrong without refusing the file (a cut-off line).
    pub warnings: Vec<String>,
    /// Whether it is scored (a results file) rather than ground truth.
    pub results: bool,
}

/// A results file that could not be scored, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The results file's path.
    pub file: String,
    /// Why it was not scored.
    pub message: String,
}

/// The leaderboard of one benchmark: a row per scored file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The benchmark's name.
    pub benchmark: String,
    /// A row per scored file, in the order scored.
    pub rows: Vec<LeaderRow>,
}

/// The outcome of a job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Every dropped file and what it was taken for.
    pub files: Vec<FileEntry>,
    /// A report per scored results file.
    pub reports: Vec<ReportView>,
    /// The results files that could not be scored.
    pub failures: Vec<Failure>,
    /// A leaderboard per benchmark with scored files.
    pub leaderboards: Vec<Leaderboard>,
    /// Downloads offered beside the reports (SWITCH's submission row and
    /// leaderboard-layout tables).
    pub downloads: Vec<Download>,
    /// How many workers' shards the EPIC-Bench files were merged from
    /// ([`run_sharded`]); 0 when every file was scored whole.
    #[serde(default)]
    pub epic_shards: usize,
}

/// Runs a job, calling `progress` before each step.
pub fn run(job: &Job, progress: &mut dyn FnMut(&Progress)) -> Outcome {
    Merging::new().finish(job, progress)
}

/// One EPIC-Bench results file's shard digest, as a worker sends it to the
/// worker that merges ([`epic_shard`], [`Merging`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpicShardText {
    /// The results file's path.
    pub file: String,
    /// [`epic::wire::digest_to_json`] of the file's shard.
    pub shard: String,
    /// What the intake found (lines skipped, samples given twice), from
    /// the worker of the first shard (the merging worker, which holds it
    /// as [`EpicShard`]); `None` from a helper.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intake: Option<ShardIntake>,
    /// The ground-truth files this worker's shard refused (their text, a
    /// zip entry), on the first file of its list: every worker reads only
    /// its shard's, so each names its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gt_refused: Vec<Failure>,
}

/// What the intake of an EPIC-Bench file found, as the first shard's
/// worker reads it with its shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardIntake {
    /// The warnings for people, one per kind.
    pub warnings: Vec<String>,
    /// Each line skipped and sample repeated, at its line.
    pub unused: Vec<knoblab_core::input::unused::Unused>,
}

/// An EPIC-Bench file merged from every worker's shard, with its intake
/// when a shard brought it.
#[derive(Debug, Default)]
struct EpicMerged {
    merge: epic::shard::Merge,
    intake: Option<ShardIntake>,
}

/// The EPIC-Bench units of a job.
fn epic_units<'a>(units: &'a [Unit<'a>]) -> impl Iterator<Item = &'a Unit<'a>> {
    units
        .iter()
        .filter(|u| u.format.scores() == Some(Benchmark::Epic))
}

/// One EPIC-Bench results file's shard as the worker that scored it holds
/// it ([`epic_shard_digests`]): what [`EpicShardText`] carries, not yet
/// written as text.
#[derive(Debug, Clone, PartialEq)]
pub struct EpicShard {
    /// The results file's path.
    pub file: String,
    /// The file's shard.
    pub digest: epic::shard::ShardDigest,
    /// The intake, from the worker of the first shard.
    pub intake: Option<ShardIntake>,
    /// The ground-truth files the shard refused (on the list's first file).
    pub gt_refused: Vec<Failure>,
}

impl From<EpicShard> for EpicShardText {
    fn from(s: EpicShard) -> EpicShardText {
        EpicShardText {
            file: s.file,
            shard: epic::wire::digest_to_json(&s.digest),
            intake: s.intake,
            gt_refused: s.gt_refused,
        }
    }
}

/// Scores one shard of every EPIC-Bench results file of a job (the page
/// runs one per worker), as the text a helper sends the merging worker:
/// [`epic_shard_digests`], written.
pub fn epic_shard(job: &Job, shard: Shard) -> Vec<EpicShardText> {
    epic_shard_digests(job, shard)
        .into_iter()
        .map(EpicShardText::from)
        .collect()
}

/// Scores one shard of every EPIC-Bench results file of a job, reading
/// only the ground truth of the shard's samples; a file that cannot be
/// scored is left out, and the merging worker then scores it whole, with
/// its message. The merging worker scores its own shard with
/// [`Merging::score_own`] and keeps it as it is; a helper's goes as text
/// ([`epic_shard`]).
pub fn epic_shard_digests(job: &Job, shard: Shard) -> Vec<EpicShard> {
    shard_digests(job, shard).0
}

/// [`epic_shard_digests`], with the failures of opening the job's zips
/// (`None` when the job has no EPIC-Bench file, and no zip was opened).
fn shard_digests(job: &Job, shard: Shard) -> (Vec<EpicShard>, Option<Vec<Failure>>) {
    let entries = classify(&job.files, &job.options.overrides);
    let units = units(&job.files, &entries);
    if epic_units(&units).next().is_none() {
        return (Vec::new(), None);
    }
    let mut failures = Vec::new();
    let pool = pool(&job.files, &entries, &mut failures);
    let mut ground = Ground::new(&pool);
    let mut out = Vec::new();
    for unit in epic_units(&units) {
        let Some(file) = unit.files.first() else {
            continue;
        };
        let Ok(text) = text_of(file) else {
            continue;
        };
        let opts = epic_options(file, &job.options);
        // The first shard's worker, which merges, reports the file's intake,
        // read with its shard: it finishes its shard before a helper does,
        // as it is not writing its digest as text.
        let digest = if shard.index == 0 {
            epic::shard::digest_shard_with_intake(text, ground.epic(), &opts, shard).map(
                |(d, intake)| {
                    let read = ShardIntake {
                        warnings: intake.warnings(),
                        unused: crate::scoring::epic::intake_unused(&file.path, &intake),
                    };
                    (d, Some(read))
                },
            )
        } else {
            epic::shard::digest_shard(text, ground.epic(), &opts, shard).map(|d| (d, None))
        };
        if let Ok((digest, intake)) = digest {
            out.push(EpicShard {
                file: file.path.clone(),
                digest,
                intake,
                gt_refused: Vec::new(),
            });
        }
    }
    if let Some(first) = out.first_mut() {
        first.gt_refused = ground.epic().refused();
    }
    (out, Some(failures))
}

/// The EPIC-Bench shards the merging worker has received, merged per file
/// as each worker's list comes ([`Merging::add`]), then the job run with
/// them ([`Merging::finish`]).
#[derive(Debug, Default)]
pub struct Merging {
    /// How many workers' lists were added.
    lists: usize,
    /// Per results file, its merge so far; `None` once a shard of it could
    /// not be read or merged (the file is then scored whole).
    files: BTreeMap<String, Option<EpicMerged>>,
    /// The failures of opening the job's zips, from the merging worker's
    /// own shard ([`Merging::score_own`]), which opened them.
    own_zip_failures: Option<Vec<Failure>>,
    /// The ground-truth files every worker's shard refused.
    gt_refused: Vec<Failure>,
}

impl Merging {
    /// No shard yet.
    pub fn new() -> Merging {
        Merging::default()
    }

    /// Adds one worker's [`epic_shard`] list (its JSON text). A list that
    /// cannot be read still counts as the worker's: its files then lack a
    /// shard and are scored whole.
    #[allow(
        clippy::disallowed_methods,
        reason = "a shard list the page's own workers wrote, not a user's file"
    )]
    pub fn add(&mut self, text: &str) {
        self.lists += 1;
        let Ok(list) = serde_json::from_str::<Vec<EpicShardText>>(text) else {
            return;
        };
        for s in list {
            let digest = epic::wire::digest_from_json(&s.shard).ok();
            self.gt_refused.extend(s.gt_refused);
            self.add_file(s.file, digest, s.intake);
        }
    }

    /// Scores the merging worker's own `shard` of the job's EPIC-Bench
    /// files ([`epic_shard_digests`]), and adds it as it is (not written as
    /// text and read back). The shard opened the job's zips; what failed to
    /// open is kept, so that [`Merging::finish`], given the same job, need
    /// not open them again when it reads no ground truth.
    pub fn score_own(&mut self, job: &Job, shard: Shard) {
        let (list, zip_failures) = shard_digests(job, shard);
        self.own_zip_failures = zip_failures;
        self.lists += 1;
        for s in list {
            self.gt_refused.extend(s.gt_refused);
            self.add_file(s.file, Some(s.digest), s.intake);
        }
    }

    /// One file's shard from a worker's list; `None` when it could not be
    /// read (the file is then scored whole).
    fn add_file(
        &mut self,
        file: String,
        digest: Option<epic::shard::ShardDigest>,
        intake: Option<ShardIntake>,
    ) {
        let merged = self
            .files
            .entry(file)
            .or_insert_with(|| Some(EpicMerged::default()));
        let added = digest.zip(merged.as_mut()).is_some_and(|(d, m)| {
            if intake.is_some() {
                m.intake = intake;
            }
            m.merge.add(d).is_ok()
        });
        if !added {
            *merged = None;
        }
    }

    /// How many workers' lists were added.
    pub fn workers(&self) -> usize {
        self.lists
    }

    /// The merge of results file `name`, when every worker's list gave a
    /// shard of it (the file is then not scored again).
    fn merged(&self, name: &str) -> Option<&EpicMerged> {
        let m = self.files.get(name)?.as_ref()?;
        (self.lists > 0 && m.merge.shards() == self.lists).then_some(m)
    }

    /// Runs the job, calling `progress` before each step: a file with a
    /// shard from every worker is merged from them (the same numbers as
    /// scoring it whole), any other file is scored here.
    pub fn finish(mut self, job: &Job, progress: &mut dyn FnMut(&Progress)) -> Outcome {
        let mut outcome = Outcome {
            files: classify(&job.files, &job.options.overrides),
            ..Outcome::default()
        };
        for f in &job.files {
            if f.bytes.len() as u64 > MAX_RESULTS_FILE_BYTES {
                outcome.failures.push(Failure {
                    file: f.path.clone(),
                    message: too_large(&f.path, f.bytes.len() as u64).to_string(),
                });
            }
        }
        let units = units(&job.files, &outcome.files);
        let total = units.len() + 1;
        progress(&Progress {
            done: 0,
            total,
            stage: "reading ground truth".into(),
        });
        // A job whose every results file is an EPIC-Bench file merged from
        // shards reads no ground truth here: the zips the merging worker's
        // own shard opened are not opened again, and what failed to open is
        // reported as that shard found it.
        let all_merged = !units.is_empty()
            && units.iter().all(|u| {
                u.format.scores() == Some(Benchmark::Epic) && self.merged(&u.name).is_some()
            });
        let pool = match self.own_zip_failures.take() {
            Some(failures) if all_merged => {
                outcome.failures.extend(failures);
                Pool::default()
            }
            _ => pool(&job.files, &outcome.files, &mut outcome.failures),
        };
        if units.is_empty() {
            outcome.failures.push(Failure {
                file: String::new(),
                message: no_results_message(&outcome.files),
            });
        }
        let mut ground = Ground::new(&pool);
        let mut refused = job
            .scorers
            .trajectories
            .map(|t| (t.refusals)(&units))
            .unwrap_or_default();
        for (i, unit) in units.iter().enumerate() {
            progress(&Progress {
                done: i + 1,
                total,
                stage: format!("scoring {} ({})", unit.name, unit.label),
            });
            if let Some(message) = refused.remove(&unit.name) {
                outcome.failures.push(Failure {
                    file: unit.name.clone(),
                    message,
                });
                continue;
            }
            let merged = match self.merged(&unit.name) {
                Some(_) => self.files.remove(&unit.name).flatten(),
                None => None,
            };
            if let Some(m) = &merged {
                outcome.epic_shards = outcome.epic_shards.max(m.merge.shards());
            }
            match score_unit(unit, job, &mut ground, merged) {
                Ok(v) => outcome.reports.push(v),
                Err(problem) => outcome.failures.push(Failure {
                    file: unit.name.clone(),
                    message: problem.to_string(),
                }),
            }
        }
        outcome.downloads = std::mem::take(&mut ground.downloads);
        // Each refusal once, whichever worker's shard met it.
        for f in ground
            .take_failures()
            .into_iter()
            .chain(std::mem::take(&mut self.gt_refused))
        {
            if !outcome.failures.contains(&f) {
                outcome.failures.push(f);
            }
        }
        outcome.leaderboards = leaderboards(&outcome.reports);
        progress(&Progress {
            done: total,
            total,
            stage: "done".into(),
        });
        outcome
    }
}

/// Runs a job whose EPIC-Bench files were scored in shards: `shards` holds
/// each worker's [`epic_shard`] list as JSON text ([`Merging`]).
pub fn run_sharded(job: &Job, progress: &mut dyn FnMut(&Progress), shards: &[String]) -> Outcome {
    let mut merging = Merging::new();
    for text in shards {
        merging.add(text);
    }
    merging.finish(job, progress)
}

/// The drill-down of item `index` of the EPIC-Bench results file `file`
/// of a job: its details and its shapes over its image, from the sample
/// scored again alone (the page asks the worker for the item a visitor
/// opens; the outcome carries each item's row only).
pub fn epic_item(job: &Job, file: &str, index: usize) -> Result<ItemView, ItemError> {
    let entries = classify(&job.files, &job.options.overrides);
    let units = units(&job.files, &entries);
    let unit = epic_units(&units)
        .find(|u| u.name == file)
        .ok_or_else(|| ItemError::NotEpic {
            file: file.to_string(),
        })?;
    let first = unit
        .files
        .first()
        .ok_or(crate::scoring::ScoreError::Nothing)?;
    let text = text_of(first)?;
    let opts = epic_options(first, &job.options);
    let mut failures = Vec::new();
    let pool = pool(&job.files, &entries, &mut failures);
    let mut ground = Ground::new(&pool);
    let gt = ground.epic();
    let sample = epic::shard::score_sample(text, gt, &opts, index)
        .map_err(|problem| ItemError::Epic {
            file: file.to_string(),
            problem,
        })?
        .ok_or_else(|| ItemError::NoItem {
            file: file.to_string(),
            index,
        })?;
    Ok(knoblab_score::view::epic::evidence(&sample, gt))
}

fn no_results_message(entries: &[FileEntry]) -> String {
    match entries {
        [] => "no file was dropped".into(),
        [one] => one.label.clone(),
        many => format!(
            "none of the {} dropped files is a results file (they are taken as ground truth); drop a results file too, or choose its format",
            many.len()
        ),
    }
}

/// The rows of each benchmark, in the order the reports came (a report
/// with no columns, such as video judgements alone, has no row).
pub fn leaderboards(reports: &[ReportView]) -> Vec<Leaderboard> {
    let mut out: Vec<Leaderboard> = Vec::new();
    for r in reports.iter().filter(|r| !r.row.columns.is_empty()) {
        match out.iter_mut().find(|b| b.benchmark == r.row.benchmark) {
            Some(b) => b.rows.push(r.row.clone()),
            None => out.push(Leaderboard {
                benchmark: r.row.benchmark.clone(),
                rows: vec![r.row.clone()],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests;
