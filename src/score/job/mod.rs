//! One scoring job as the page runs it (in a Web Worker): a set of dropped
//! files, some results and some ground truth, in; a report view per
//! results file and the leaderboards out. Everything is in memory; the
//! same calls as the CLI's are made on the same bytes, so the numbers are
//! the CLI's.
//!
//! ## How dropped files are sorted
//!
//! Each file is detected ([`super::detect`]), or taken as the format the
//! user chose for it. Results files are scored; everything else (masks,
//! annotation files, `vqa.json`, images, the contents of zips) is the
//! ground-truth pool that each benchmark reads what it needs from.
//! Official FineState `result_<i>.json` files of one folder form one run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::detect::{detect, too_large, Benchmark, Format};
use super::epic::{self, report::Shard, MapSource, RunOptions};
use super::finestate::{
    evaluate::OfficialOptions,
    files::MemFiles,
    loader::{load_dataset, ImagePolicy},
    parser::ParserBuild,
    predictions::{read_predictions, read_result_files, PredictionSet},
    report::{score, ScoreOptions},
};
use super::limits::MAX_RESULTS_FILE_BYTES;
use super::switch::{self, predictions as switch_predictions, GroundTruth};
use super::view::{self, LeaderRow, ReportView};
use crate::bundle::{load_files, Bundle};
use crate::input::zip::{BoundedZip, ZipLimits};
use crate::sim::Trajectory;

/// A dropped file: its path as dropped (with folders, if a folder was
/// dropped) and its bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InputFile {
    pub path: String,
    #[serde(with = "serde_bytes_as_vec")]
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
    pub mime: String,
    pub text: String,
}

/// A bundle for trajectory metrics, as files in memory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BundleFiles {
    pub name: String,
    pub files: Vec<InputFile>,
}

/// Everything one job needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Job {
    pub files: Vec<InputFile>,
    pub options: JobOptions,
    /// Bundles for trajectories (the page's library).
    pub bundles: Vec<BundleFiles>,
}

/// How far a job is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub stage: String,
}

/// What a dropped file was taken to be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    pub path: String,
    /// The format's key, when known.
    pub format: Option<Format>,
    /// "EPIC-Bench raw outputs, 184 samples", or why it is not recognised.
    pub label: String,
    pub warnings: Vec<String>,
    pub results: bool,
}

/// A results file that could not be scored, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub file: String,
    pub message: String,
}

/// The leaderboard of one benchmark: a row per scored file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    pub benchmark: String,
    pub rows: Vec<LeaderRow>,
}

/// The outcome of a job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub files: Vec<FileEntry>,
    pub reports: Vec<ReportView>,
    pub failures: Vec<Failure>,
    pub leaderboards: Vec<Leaderboard>,
    /// Downloads offered beside the reports (SWITCH's submission row and
    /// leaderboard-layout tables).
    pub downloads: Vec<Download>,
}

/// Sorts the dropped files into results and the ground-truth pool.
pub fn classify(files: &[InputFile], overrides: &BTreeMap<String, Format>) -> Vec<FileEntry> {
    files
        .iter()
        .map(|f| {
            let found = detect(&f.path, &f.bytes);
            let (format, label, warnings) = match (overrides.get(&f.path), found) {
                (Some(o), found) => {
                    let items = found.as_ref().map_or(0, |d| d.items);
                    let label = super::detect::Detected {
                        format: *o,
                        items,
                        warnings: Vec::new(),
                    }
                    .label();
                    (Some(*o), format!("{label} (chosen)"), Vec::new())
                }
                (None, Ok(d)) => (Some(d.format), d.label(), d.warnings),
                (None, Err(e)) => (None, e, Vec::new()),
            };
            FileEntry {
                path: f.path.clone(),
                results: format.and_then(Format::scores).is_some(),
                format,
                label,
                warnings,
            }
        })
        .collect()
}

/// The ground-truth pool: every file that is not a results file, zips
/// unpacked (entries under the zip's path).
fn pool(
    files: &[InputFile],
    entries: &[FileEntry],
    failures: &mut Vec<Failure>,
) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (f, e) in files.iter().zip(entries) {
        if e.results {
            continue;
        }
        if e.format == Some(Format::Zip) {
            match unzip(&f.path, &f.bytes) {
                Ok(entries) => out.extend(entries),
                Err(message) => failures.push(Failure {
                    file: f.path.clone(),
                    message,
                }),
            }
        } else {
            out.push((f.path.clone(), f.bytes.clone()));
        }
    }
    out
}

/// The entries of a zip, with the zip's folder before their paths.
pub fn unzip(path: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut archive = BoundedZip::open(bytes, ZipLimits::RESULTS)
        .map_err(|e| format!("{path}: not a readable zip ({e})"))?;
    let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let entries = archive.entries(|_| true).map_err(|e| {
        format!("{path}: {e}; unpack it and drop the folder's parts, or use the knoblab CLI")
    })?;
    let out = entries
        .into_iter()
        .map(|(name, data)| {
            let full = if folder.is_empty() {
                name
            } else {
                format!("{folder}/{name}")
            };
            (full, data)
        })
        .collect::<Vec<_>>();
    Ok(out)
}

/// The folder a path sits in ("" at the top).
fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The file name of a path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A unit of scoring: one results file, or the `result_<i>.json` files
/// of one folder.
struct Unit<'a> {
    name: String,
    format: Format,
    label: String,
    files: Vec<&'a InputFile>,
}

fn units<'a>(files: &'a [InputFile], entries: &[FileEntry]) -> Vec<Unit<'a>> {
    let mut out: Vec<Unit<'a>> = Vec::new();
    for (f, e) in files.iter().zip(entries) {
        let Some(format) = e.format.filter(|_| e.results) else {
            continue;
        };
        if format == Format::FineStateResultFile {
            let name = format!("{}/", folder_of(&f.path));
            if let Some(u) = out.iter_mut().find(|u| u.name == name) {
                u.files.push(f);
                u.label = format!("FineState-Bench result files, {} instances", u.files.len());
                continue;
            }
            out.push(Unit {
                name,
                format,
                label: "FineState-Bench result files, 1 instance".into(),
                files: vec![f],
            });
            continue;
        }
        out.push(Unit {
            name: f.path.clone(),
            format,
            label: e.label.clone(),
            files: vec![f],
        });
    }
    out
}

/// Runs a job, calling `progress` before each step.
pub fn run(job: &Job, progress: &mut dyn FnMut(&Progress)) -> Outcome {
    run_sharded(job, progress, &[])
}

/// One EPIC-Bench results file's shard, as a helper worker sends it to the
/// worker that merges ([`epic_shard`], [`run_sharded`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpicShardText {
    pub file: String,
    /// [`epic::wire::shard_to_json`] of the file's shard.
    pub shard: String,
}

/// The EPIC-Bench units of a job.
fn epic_units<'a>(units: &'a [Unit<'a>]) -> impl Iterator<Item = &'a Unit<'a>> {
    units
        .iter()
        .filter(|u| u.format.scores() == Some(Benchmark::Epic))
}

/// Scores one shard of every EPIC-Bench results file of a job (the page
/// runs one per worker); a file that cannot be scored is left out, and the
/// merging worker then scores it whole, with its message.
pub fn epic_shard(job: &Job, shard: Shard) -> Vec<EpicShardText> {
    let entries = classify(&job.files, &job.options.overrides);
    let units = units(&job.files, &entries);
    if epic_units(&units).next().is_none() {
        return Vec::new();
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
        if let Ok(r) = epic::report::score_shard(text, ground.epic(), &opts, shard) {
            out.push(EpicShardText {
                file: file.path.clone(),
                shard: epic::wire::shard_to_json(&r),
            });
        }
    }
    out
}

/// Runs a job whose EPIC-Bench files were scored in shards: `shards` holds
/// each worker's [`epic_shard`] list as JSON text. A file with a shard from
/// every worker is merged from them ([`epic::report::merge_shards`]: the
/// same numbers as scoring it whole); any other file is scored here.
pub fn run_sharded(job: &Job, progress: &mut dyn FnMut(&Progress), shards: &[String]) -> Outcome {
    let mut by_file: BTreeMap<String, Vec<epic::report::ShardResult>> = BTreeMap::new();
    for text in shards {
        let Ok(list) = serde_json::from_str::<Vec<EpicShardText>>(text) else {
            continue;
        };
        for s in list {
            if let Ok(r) = epic::wire::shard_from_json(&s.shard) {
                by_file.entry(s.file).or_default().push(r);
            }
        }
    }
    by_file.retain(|_, v| v.len() == shards.len());
    let mut outcome = Outcome {
        files: classify(&job.files, &job.options.overrides),
        ..Outcome::default()
    };
    for f in &job.files {
        if f.bytes.len() as u64 > MAX_RESULTS_FILE_BYTES {
            outcome.failures.push(Failure {
                file: f.path.clone(),
                message: too_large(&f.path, f.bytes.len() as u64),
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
    let pool = pool(&job.files, &outcome.files, &mut outcome.failures);
    if units.is_empty() {
        outcome.failures.push(Failure {
            file: String::new(),
            message: no_results_message(&outcome.files),
        });
    }
    let mut ground = Ground::new(&pool);
    for (i, unit) in units.iter().enumerate() {
        progress(&Progress {
            done: i + 1,
            total,
            stage: format!("scoring {} ({})", unit.name, unit.label),
        });
        let epic_shards = by_file.remove(&unit.name);
        match score_unit(unit, &job.options, &job.bundles, &mut ground, epic_shards) {
            Ok(v) => outcome.reports.push(v),
            Err(message) => outcome.failures.push(Failure {
                file: unit.name.clone(),
                message,
            }),
        }
    }
    outcome.downloads = std::mem::take(&mut ground.downloads);
    outcome.leaderboards = leaderboards(&outcome.reports);
    progress(&Progress {
        done: total,
        total,
        stage: "done".into(),
    });
    outcome
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

/// The ground-truth pool, read once per benchmark when first needed.
struct Ground<'a> {
    pool: &'a [(String, Vec<u8>)],
    epic: Option<MapSource>,
    finestate: Option<MemFiles>,
    switch: Option<Result<GroundTruth, String>>,
    bundles: Option<Result<Vec<Bundle>, String>>,
    downloads: Vec<Download>,
}

impl<'a> Ground<'a> {
    fn new(pool: &'a [(String, Vec<u8>)]) -> Self {
        Ground {
            pool,
            epic: None,
            finestate: None,
            switch: None,
            bundles: None,
            downloads: Vec::new(),
        }
    }

    fn epic(&mut self) -> &MapSource {
        self.epic.get_or_insert_with(|| {
            let mut m = MapSource::new();
            for (p, b) in self
                .pool
                .iter()
                .filter(|(p, _)| p.ends_with("_mask_rle.json"))
            {
                m.insert(p, b.clone());
            }
            m
        })
    }

    fn finestate(&mut self) -> &MemFiles {
        self.finestate.get_or_insert_with(|| {
            let mut m = MemFiles::new();
            for (p, b) in self.pool {
                m.insert(p, b.clone());
            }
            m.rooted()
        })
    }

    fn switch(&mut self, options: &SwitchOptions) -> Result<&GroundTruth, String> {
        let pool = self.pool;
        self.switch
            .get_or_insert_with(|| {
                let mut load = switch::LoadOptions::default();
                for s in &options.splits {
                    load.splits.push(switch::LoadOptions::parse_split(s)?);
                }
                GroundTruth::from_files_with(
                    pool.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
                    &load,
                )
                .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn bundles(&mut self, given: &[BundleFiles]) -> Result<&[Bundle], String> {
        self.bundles
            .get_or_insert_with(|| {
                given
                    .iter()
                    .map(|b| {
                        let files = b
                            .files
                            .iter()
                            .map(|f| (f.path.clone(), f.bytes.clone()))
                            .collect();
                        load_files(&b.name, files).map_err(|e| format!("bundle {}: {e}", b.name))
                    })
                    .collect()
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }
}

fn text_of(file: &InputFile) -> Result<&str, String> {
    crate::input::text::decode(&file.bytes).map_err(|e| format!("{}: {e}", file.path))
}

fn score_unit(
    unit: &Unit,
    options: &JobOptions,
    bundles: &[BundleFiles],
    ground: &mut Ground,
    epic_shards: Option<Vec<epic::report::ShardResult>>,
) -> Result<ReportView, String> {
    let first = unit.files.first().ok_or("nothing to score")?;
    match unit.format.scores() {
        Some(Benchmark::Epic) => {
            score_epic(first, &unit.label, options, ground.epic(), epic_shards)
        }
        Some(Benchmark::FineState) => {
            let preds = if unit.format == Format::FineStateResultFile {
                let files: Vec<(String, Vec<u8>)> = unit
                    .files
                    .iter()
                    .map(|f| (file_name(&f.path).to_string(), f.bytes.clone()))
                    .collect();
                read_result_files(&files)
            } else {
                read_predictions(&first.path, &first.bytes).map_err(|e| e.to_string())?
            };
            score_finestate(&unit.name, &unit.label, options, &preds, ground.finestate())
        }
        Some(Benchmark::Switch) => {
            score_switch(first, &unit.label, unit.format, &options.switch, ground)
        }
        Some(Benchmark::Trajectories) => {
            let bundles = ground.bundles(bundles)?;
            score_trajectories(first, &unit.label, bundles)
        }
        None => Err(format!("{}: not a results file", unit.name)),
    }
}

/// The EPIC-Bench run options of a results file.
fn epic_options(file: &InputFile, options: &JobOptions) -> RunOptions {
    let family = options
        .epic_family
        .clone()
        .filter(|f| !f.is_empty())
        .or_else(|| {
            let dir = folder_of(&file.path);
            (!dir.is_empty()).then(|| file_name(dir).to_string())
        });
    RunOptions {
        coord_mode: None,
        family,
    }
}

/// Scores EPIC-Bench predictions as `knoblab score epic` does, or merges
/// the shards other workers scored of them.
pub fn score_epic(
    file: &InputFile,
    label: &str,
    options: &JobOptions,
    gt: &MapSource,
    shards: Option<Vec<epic::report::ShardResult>>,
) -> Result<ReportView, String> {
    let text = text_of(file)?;
    let opts = epic_options(file, options);
    let report = match shards {
        Some(shards) => epic::report::merge_shards(text, &opts, shards),
        None => epic::score_text(text, gt, &opts),
    }
    .map_err(|e| format!("{}: {e}", file.path))?;
    if report.gt_expected > 0 && report.gt_found == 0 {
        return Err(format!(
            "{}: no ground truth found ({}). Drop the EPIC_Bench folder (or its zip) beside the results, or use the shipped sample",
            file.path,
            report.gt_coverage_message()
        ));
    }
    // The view's tables read only the summaries of the CLI's document.
    let doc = epic::render::summaries_json(&report);
    let mut shown = view::epic::view(&file.path, label, &report, &doc, gt);
    // Nothing dropped silently (issue #23): the lines skipped and the
    // samples given twice, as `knoblab score epic` reports them.
    shown.notes.extend(epic::intake::intake(text).warnings());
    Ok(shown)
}

/// Scores FineState-Bench predictions as `knoblab score finestate` does.
pub fn score_finestate(
    name: &str,
    label: &str,
    options: &JobOptions,
    preds: &PredictionSet,
    files: &MemFiles,
) -> Result<ReportView, String> {
    let model = options
        .finestate_model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| format!("{name}: FineState-Bench needs the model name (the official parser's unit rules depend on it); enter it under Options"))?;
    let parser: ParserBuild = options
        .finestate_parser
        .as_deref()
        .unwrap_or("py")
        .parse()
        .map_err(|e: String| e)?;
    let data = load_dataset(files, ImagePolicy::Check);
    if data.instances.is_empty() {
        return Err(format!(
            "{name}: no FineState-Bench annotation found among the dropped files ({} records left out); drop the dataset folder (desktop_en/, web_en/, mobile_en/ with their images) or its zip",
            data.skipped.len()
        ));
    }
    let options = ScoreOptions {
        official: OfficialOptions {
            model: Some(model),
            parser,
            vda: preds.hinted().unwrap_or(false),
        },
        convention: Default::default(),
    };
    let report = score(&data, preds, &options);
    let doc = report.to_json(None);
    let mut shown = view::finestate::view(name, label, &report, &doc);
    shown.notes.extend(report.gap_notes());
    Ok(shown)
}

/// Scores SWITCH predictions (or video judgements) as `knoblab score switch` does.
fn score_switch(
    file: &InputFile,
    label: &str,
    format: Format,
    options: &SwitchOptions,
    ground: &mut Ground,
) -> Result<ReportView, String> {
    let report = if format == Format::SwitchVideoJudge {
        switch::SwitchReport {
            video: Some(switch::score_videos(&file.path, &file.bytes).map_err(|e| e.to_string())?),
            ..Default::default()
        }
    } else {
        let gt = ground.switch(options).map_err(|e| {
            format!("{}: the SWITCH ground truth is needed: {e}. Drop the dataset root or the public release's folder (or its zip, or its vqa.json/openqa.json/data.jsonl files)", file.path)
        })?;
        let preds = switch_predictions::read_predictions(&file.path, &file.bytes)
            .map_err(|e| e.to_string())?;
        switch::build_report_with(gt, &file.path, &preds, &options.report)
            .map_err(|e| e.to_string())?
    };
    let doc = serde_json::to_value(&report).map_err(|e| e.to_string())?;
    if !report.per_item.is_empty() {
        ground
            .downloads
            .extend(switch_downloads(&file.path, &report, &doc, options.layout));
    }
    Ok(view::switch::view_in(
        &file.path,
        label,
        &report,
        &doc,
        options.layout,
    ))
}

/// The downloads of a SWITCH report: the submission row (JSON), and the
/// layout's rows as CSV, Markdown and LaTeX.
pub fn switch_downloads(
    file: &str,
    report: &switch::SwitchReport,
    doc: &Value,
    layout: switch::Layout,
) -> Vec<Download> {
    let slug: String = report
        .model
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let rows = view::switch::layout_rows(file, report, doc, layout);
    let which = match layout {
        switch::Layout::Paper => "paper",
        switch::Layout::Leaderboard => "leaderboard",
    };
    let mut out = vec![Download {
        file: file.into(),
        label: "Submission row (JSON)".into(),
        name: format!("switch-submission-{slug}.json"),
        mime: "application/json".into(),
        text: super::export::switch_submission(&report.submission),
    }];
    for (label, ext, mime, text) in [
        ("CSV", "csv", "text/csv", super::export::csv(&rows)),
        (
            "Markdown",
            "md",
            "text/markdown",
            super::export::markdown(&rows),
        ),
        (
            "LaTeX rows",
            "tex",
            "application/x-tex",
            super::export::latex_rows(&rows),
        ),
    ] {
        out.push(Download {
            file: file.into(),
            label: format!("{which} layout ({label})"),
            name: format!("switch-{which}-{slug}.{ext}"),
            mime: mime.into(),
            text,
        });
    }
    out
}

/// Scores trajectories as `knoblab metrics` does for one file.
pub fn score_trajectories(
    file: &InputFile,
    label: &str,
    bundles: &[Bundle],
) -> Result<ReportView, String> {
    let read = crate::metrics::file::read_trajectory_file(&file.path, &file.bytes)
        .map_err(|e| e.to_string())?;
    let trajectories = &read.episodes;
    let numbered: Vec<(usize, &Trajectory)> = trajectories.iter().map(|(l, t)| (*l, t)).collect();
    let run = crate::metrics::run_numbered(bundles, &numbered)
        .map_err(|e| format!("{}: {e}", file.path))?;
    let mut doc = serde_json::to_value(&run).map_err(|e| e.to_string())?;
    if let Value::Object(m) = &mut doc {
        m.insert("file".into(), Value::String(file.path.clone()));
    }
    let agent = trajectories
        .first()
        .map(|(_, t)| {
            t.settings
                .model
                .clone()
                .unwrap_or_else(|| t.settings.agent.clone())
        })
        .unwrap_or_default();
    let mut shown = view::trajectories::view(&file.path, label, &run, &doc, &agent);
    if read.api_errors > 0 {
        shown.notes.push(format!(
            "{}: {} episodes ended as api_error and are not scored",
            file.path, read.api_errors
        ));
    }
    Ok(shown)
}
