// Over 600 lines: a scoring run's stages (detect the input, format, score both passes, shard
// and merge, compare with an official file) share Run and Report, and the
// page's shards and the CLI's whole run must assemble the same document.

//! A whole scoring run: input detection (raw, std_format, official
//! `*_full.json`), official and corrected scoring side by side, GT coverage,
//! and the JSON and table renderings the CLI and the page show.

use serde_json::Value;
use thiserror::Error;

use super::aggregate::Summary;
use super::coords::ModeRequest;
use super::formatter::{
    format_jsonl_both_picked, FormatOptions, FormatOutput, Formatted, PickedBoth,
};
use super::gt::{GroundTruthSource, GtCache};
use super::intake::LineIntake;
use super::pyjson;
use super::pyvalue::PyValue;
use super::scorer::{passes_agree, score_record, Quirk, SampleResult, ScoreOptions};
use super::taxonomy::family_coord_mode;

/// What kind of predictions file this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// Raw model outputs (`{"response", "images"}` per line).
    Raw,
    /// std_format JSONL (or a JSON array of std records).
    Std,
    /// An official `*_full.json` score file: re-scored and compared.
    OfficialScores,
}

/// Why a predictions file cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EpicError {
    /// Nothing but whitespace.
    #[error("the predictions file is empty")]
    Empty,
    /// No line is a JSON object the scorer knows.
    #[error("not an EPIC-Bench predictions file: expected raw JSONL with \"response\", std_format JSONL with \"formatted_response_*\" fields, or an official *_full.json; found {found}")]
    Unrecognised {
        /// The file's first 80 characters, or why the JSON did not parse.
        found: String,
    },
    /// Shards read from different files, or with different options.
    #[error("the scoring shards were not all scored from the same file with the same options; score it again")]
    ShardsDisagree,
    /// Shards that do not hold every sample exactly once.
    #[error("the scoring shards hold {scored} samples, not each of the file's {expected} once; score it again")]
    ShardsIncomplete {
        /// The number of samples the shards hold.
        scored: usize,
        /// The number of samples in the file.
        expected: usize,
    },
}

/// Options of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--coord-mode` (parsed once, by [`ModeRequest`]'s `FromStr`); wins
    /// over the family's mode.
    pub coord_mode: Option<ModeRequest>,
    /// The model family (the std file's parent folder name).
    pub family: Option<String>,
}

impl RunOptions {
    /// The model family of a std file, for the CLI and the page alike: the
    /// one given (an empty one counts as none), else the name of the
    /// folder the file sits in. "The lookup is an exact match on the name
    /// of the std file's parent folder (the model family)."
    ///
    /// ```
    /// use knoblab_score::epic::RunOptions;
    /// assert_eq!(RunOptions::family_of(None, Some("gpt-4o")).as_deref(), Some("gpt-4o"));
    /// assert_eq!(RunOptions::family_of(Some("qwen"), Some("gpt-4o")).as_deref(), Some("qwen"));
    /// assert_eq!(RunOptions::family_of(Some(""), None), None);
    /// ```
    pub fn family_of(given: Option<&str>, folder_name: Option<&str>) -> Option<String> {
        given
            .filter(|f| !f.is_empty())
            .or(folder_name.filter(|f| !f.is_empty()))
            .map(str::to_string)
    }

    /// The coordinate override the official batch runner would apply.
    pub fn coord_override(&self) -> Option<String> {
        self.coord_mode.map(|m| m.name().to_string()).or_else(|| {
            self.family
                .as_deref()
                .and_then(family_coord_mode)
                .map(str::to_string)
        })
    }
}

/// One scoring pass (official or corrected).
#[derive(Debug, Clone)]
pub struct Run {
    /// The per-sample results, in record order.
    pub samples: Vec<SampleResult>,
    /// The official summary of those results.
    pub summary: Summary,
}

/// A difference between a re-score and the numbers in an official file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The sample's index in the file; `None` for a file-wide difference.
    pub index: Option<usize>,
    /// What differs, in words: the JSON path and both values (or the counts).
    pub what: String,
}

/// The report of one predictions file.
#[derive(Debug, Clone)]
pub struct Report {
    /// What kind of file was scored.
    pub kind: InputKind,
    /// The coordinate mode forced on every sample (`--coord-mode` or the family's), if any.
    pub coord_override: Option<String>,
    /// The official pass, quirks included.
    pub official: Run,
    /// The corrected pass.
    pub corrected: Run,
    /// The formatter's output, for raw input. A report merged from the
    /// page's shard digests ([`super::shard::Merge`]) holds only its
    /// skipped lines: each worker formatted its own records.
    pub formatted: Option<FormatOutput>,
    /// Samples with a GT path, and how many found their file.
    pub gt_expected: usize,
    /// How many of those samples found their GT file.
    pub gt_found: usize,
    /// The GT paths that were not found, without consecutive repeats.
    pub gt_missing: Vec<String>,
    /// For an official score file: where the re-score differs from it.
    pub comparison: Option<Vec<Mismatch>>,
}

impl Report {
    /// "63 of 67 samples found their mask; missing: …".
    pub fn gt_coverage_message(&self) -> String {
        let mut m = format!(
            "{} of {} samples found their mask",
            self.gt_found, self.gt_expected
        );
        // A wrong root misses every file: name a few, count the rest.
        const SHOWN: usize = 10;
        if !self.gt_missing.is_empty() {
            m.push_str("; missing: ");
            let shown: Vec<&str> = self
                .gt_missing
                .iter()
                .take(SHOWN)
                .map(String::as_str)
                .collect();
            m.push_str(&shown.join(", "));
            if self.gt_missing.len() > SHOWN {
                m.push_str(&format!(" and {} more", self.gt_missing.len() - SHOWN));
            }
        }
        m
    }
}

/// Detects the kind of a predictions file.
pub fn detect_input(text: &str) -> Result<InputKind, EpicError> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.is_empty() {
        return Err(EpicError::Empty);
    }
    if t.starts_with('{') {
        if let Ok(v) = pyjson::loads(t) {
            if v.get("summary").is_some() && v.get("details").is_some() {
                return Ok(InputKind::OfficialScores);
            }
        }
    }
    if t.starts_with('[') {
        return Ok(InputKind::Std);
    }
    for line in t.lines().filter(|l| !l.trim().is_empty()) {
        if let Ok(v) = pyjson::loads(line) {
            if v.get("response").is_some() {
                return Ok(InputKind::Raw);
            }
            if v.get("task_category").is_some()
                || v.get("formatted_response_localization").is_some()
            {
                return Ok(InputKind::Std);
            }
        }
    }
    Err(EpicError::Unrecognised {
        found: t.chars().take(80).collect(),
    })
}

/// Reads std records: JSONL, or a JSON array "if the trimmed text starts
/// with `[`. Non-object items and lines that fail to parse are silently
/// skipped."
pub fn read_std(text: &str) -> Vec<PyValue> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.starts_with('[') {
        return match pyjson::loads(t) {
            Ok(PyValue::List(items)) => items
                .into_iter()
                .filter(|v| matches!(v, PyValue::Dict(_)))
                .collect(),
            _ => Vec::new(),
        };
    }
    t.lines()
        .filter_map(|l| pyjson::loads(l).ok())
        .filter(|v| matches!(v, PyValue::Dict(_)))
        .collect()
}

/// Rebuilds std records from an official score file's `details.by_samples`.
fn records_from_scores(v: &PyValue) -> Vec<PyValue> {
    let Some(PyValue::List(samples)) = v.get("details").and_then(|d| d.get("by_samples")) else {
        return Vec::new();
    };
    samples
        .iter()
        .map(|s| {
            let one = |k: &str| PyValue::List(s.get(k).cloned().into_iter().collect());
            let rd = s.get("response_details");
            let rd_get = |k: &str| rd.and_then(|r| r.get(k)).cloned().unwrap_or(PyValue::None);
            let mode = match rd_get("coordinate_system") {
                PyValue::Str(m)
                    if ["absolute", "normalized_0_1", "normalized_0_1000"]
                        .contains(&m.as_str()) =>
                {
                    m
                }
                _ => "auto".to_string(),
            };
            let mut items = vec![
                ("task_category".to_string(), one("task_category")),
                ("task_type".to_string(), one("task_type")),
                (
                    "format_type".to_string(),
                    PyValue::List(vec![rd_get("format_type")]),
                ),
                (
                    "coordinate_system".to_string(),
                    PyValue::List(vec![PyValue::Str(mode)]),
                ),
            ];
            for k in [
                "formatted_response_localization",
                "formatted_response_count",
                "formatted_response_path",
                "formatted_response_binary",
            ] {
                items.push((k.to_string(), rd_get(k)));
            }
            items.push((
                "ground_truth".to_string(),
                s.get("ground_truth")
                    .cloned()
                    .unwrap_or(PyValue::Dict(Vec::new())),
            ));
            PyValue::Dict(items)
        })
        .collect()
}

/// The records a run scores, per pass, and what came with them.
pub(super) struct Inputs {
    pub(super) kind: InputKind,
    /// Raw input: each record formatted in the official dialect (its
    /// records are the official pass's) and, where it differs, in the
    /// corrected one; `None` for a record the reading did not pick.
    formatted: Option<PickedBoth>,
    /// Raw input: the lines that are not JSON objects, 1-based.
    pub(super) skipped_lines: Vec<usize>,
    /// Std or score-file input: one list for both passes.
    records: Vec<PyValue>,
    /// An official score file, parsed.
    pub(super) scores_file: Option<PyValue>,
}

impl Inputs {
    /// Reads a predictions file, formatting every raw record.
    fn read(text: &str) -> Result<Inputs, EpicError> {
        Inputs::read_picked(text, &|_| true, None)
    }

    /// Reads a predictions file, formatting only the raw records `pick`
    /// chooses (by position): a shard's, or the one sample of a drill-down.
    /// Raw input tells `intake`, when given, of each line as it is read
    /// ([`format_jsonl_both_picked`]); other input tells it nothing.
    pub(super) fn read_picked(
        text: &str,
        pick: &dyn Fn(usize) -> bool,
        intake: Option<&mut LineIntake>,
    ) -> Result<Inputs, EpicError> {
        let kind = detect_input(text)?;
        let mut inputs = Inputs {
            kind,
            formatted: None,
            skipped_lines: Vec::new(),
            records: Vec::new(),
            scores_file: None,
        };
        match kind {
            InputKind::Raw => {
                // Each line is parsed once, and each picked reply read once
                // where both dialects read it alike.
                let mut both =
                    format_jsonl_both_picked(text, &FormatOptions::default(), pick, intake);
                inputs.skipped_lines = std::mem::take(&mut both.skipped_lines);
                inputs.formatted = Some(both);
            }
            InputKind::Std => inputs.records = read_std(text),
            InputKind::OfficialScores => {
                let v = pyjson::loads(text.trim_start_matches('\u{feff}').trim()).map_err(|e| {
                    EpicError::Unrecognised {
                        found: e.to_string(),
                    }
                })?;
                inputs.records = records_from_scores(&v);
                inputs.scores_file = Some(v);
            }
        }
        Ok(inputs)
    }

    /// The official pass's records (`None`: not picked).
    pub(super) fn official(&self) -> Vec<Option<&PyValue>> {
        match &self.formatted {
            Some(both) => both
                .official
                .iter()
                .map(|f| f.as_ref().map(|f| &f.record))
                .collect(),
            None => self.records.iter().map(Some).collect(),
        }
    }

    /// The corrected pass's records (`None`: not picked).
    pub(super) fn corrected(&self) -> Vec<Option<&PyValue>> {
        match &self.formatted {
            Some(both) => (0..both.official.len())
                .map(|i| both.corrected_record(i))
                .collect(),
            None => self.records.iter().map(Some).collect(),
        }
    }

    /// Raw input: record `i` as the official dialect formatted it, when picked.
    pub(super) fn formatted(&self, i: usize) -> Option<&Formatted> {
        self.formatted.as_ref()?.official.get(i)?.as_ref()
    }

    /// Raw input: the official formatter's output, when every record was
    /// picked (a whole run's reading).
    fn format_output(self) -> Option<FormatOutput> {
        let both = self.formatted?;
        Some(FormatOutput {
            records: both.official.into_iter().collect::<Option<Vec<_>>>()?,
            skipped_lines: self.skipped_lines,
        })
    }
}

/// Which samples a shard scores: sample `i` belongs to shard `i % of`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard's number, `0..of`.
    pub index: usize,
    /// The number of shards.
    pub of: usize,
}

impl Shard {
    /// The whole run as one shard.
    pub const ALL: Shard = Shard { index: 0, of: 1 };

    /// Whether sample `i` is this shard's.
    pub fn has(&self, i: usize) -> bool {
        self.of <= 1 || i % self.of == self.index
    }
}

/// The per-sample results of one shard of a run, both passes; shards are
/// merged by [`merge_shards`] into the report the whole run gives.
#[derive(Debug, Clone)]
pub struct ShardResult {
    /// This shard's samples in the official pass, in record order.
    pub official: Vec<SampleResult>,
    /// The same samples in the corrected pass.
    pub corrected: Vec<SampleResult>,
}

/// Which `metric_details` a run keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kept {
    /// Everything (the API's [`score_text`], the page's drill-down).
    All,
    /// None (the CLI's document carries none, and the page's shards need
    /// only the typed counts, [`SampleResult::counts`]).
    Nothing,
}

/// Scores the samples `pick` chooses, both passes sample by sample so each
/// GT file is read and each of its masks decoded once for both. A sample
/// whose reply the official formatter rejected says so first among its
/// quirks.
pub(super) fn score_inputs(
    inputs: &Inputs,
    gt: &dyn GroundTruthSource,
    coord_override: &Option<String>,
    pick: &dyn Fn(usize) -> bool,
    kept: Kept,
) -> ShardResult {
    let (official, corrected) = score_inputs_into(inputs, gt, coord_override, pick, kept, |r, _| r);
    ShardResult {
        official,
        corrected,
    }
}

/// [`score_inputs`], each sample handed to `take` (with `true` in the
/// corrected pass) as soon as it is scored, so a caller that keeps less of
/// a sample (the page's shards keep a digest) frees the rest as it goes,
/// not all at the end.
pub(super) fn score_inputs_into<T>(
    inputs: &Inputs,
    gt: &dyn GroundTruthSource,
    coord_override: &Option<String>,
    pick: &dyn Fn(usize) -> bool,
    kept: Kept,
    mut take: impl FnMut(SampleResult, bool) -> T,
) -> (Vec<T>, Vec<T>) {
    // A sample's `metric_details` (every path point's scores) is most of
    // its memory; a caller that does not show it drops it as it goes.
    let keep = |mut r: SampleResult| {
        match kept {
            Kept::All => {}
            Kept::Nothing => r.metric_details = serde_json::Map::new(),
        }
        r
    };
    let (off, cor) = (inputs.official(), inputs.corrected());
    let off_opts = ScoreOptions {
        coord_override: coord_override.clone(),
        corrected: false,
        skip_metric_details: kept != Kept::All,
    };
    let cor_opts = ScoreOptions {
        corrected: true,
        ..off_opts.clone()
    };
    let mut cache = GtCache::new(gt);
    let (mut official_out, mut corrected_out) = (Vec::new(), Vec::new());
    for i in (0..off.len().max(cor.len())).filter(|&i| pick(i)) {
        let official = match off.get(i) {
            Some(Some(r)) => Some(keep(score_record(i, r, &mut cache, &off_opts))),
            _ => None,
        };
        if let Some(Some(r)) = cor.get(i) {
            // The same record, with no list-wrapped sentinel where its task
            // scores: the corrected pass would score it as the official one.
            let same =
                matches!(off.get(i), Some(Some(o)) if std::ptr::eq(*o, *r)) && passes_agree(r);
            let corrected = match &official {
                Some(o) if same => o.clone(),
                _ => keep(score_record(i, r, &mut cache, &cor_opts)),
            };
            corrected_out.push(take(corrected, true));
        }
        if let Some(mut s) = official {
            // After the corrected pass took its copy: the formatter's
            // rejection is the official pass's quirk.
            if let Some(why) = inputs.formatted(i).and_then(|f| f.failure) {
                s.quirks.insert(0, Quirk::FormatterRejected(why.describe()));
            }
            official_out.push(take(s, false));
        }
    }
    (official_out, corrected_out)
}

/// The coordinate override of a run: the options', else an official score
/// file's own.
pub(super) fn run_override(inputs: &Inputs, opts: &RunOptions) -> Option<String> {
    opts.coord_override().or_else(|| {
        inputs
            .scores_file
            .as_ref()
            .and_then(|v| v.get("coord_override"))
            .and_then(PyValue::as_str)
            .map(str::to_string)
    })
}

/// Reads a predictions file and scores one shard of it, keeping what
/// `kept` chooses: the one body of every entry below.
fn read_and_score(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    shard: Shard,
    kept: Kept,
) -> Result<(Inputs, Option<String>, ShardResult), EpicError> {
    let inputs = Inputs::read(text)?;
    let coord_override = run_override(&inputs, opts);
    let scored = score_inputs(&inputs, gt, &coord_override, &|i| shard.has(i), kept);
    Ok((inputs, coord_override, scored))
}

/// Scores one shard of a predictions file; [`merge_shards`] puts them
/// together. (The page's workers send digests instead:
/// [`super::shard::digest_shard`].)
pub fn score_shard(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    shard: Shard,
) -> Result<ShardResult, EpicError> {
    read_and_score(text, gt, opts, shard, Kept::All).map(|(_, _, scored)| scored)
}

/// Scores a predictions file against ground truth.
pub fn score_text(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
) -> Result<Report, EpicError> {
    score_text_with(text, gt, opts, true)
}

/// [`score_text`] for a caller that prints the `--json` document or the
/// tables ([`super::render`]), which carry no `metric_details`: each
/// sample's is dropped as soon as it is scored, so a run takes about half
/// the memory. Every number of the document is the same.
pub fn score_text_for_output(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
) -> Result<Report, EpicError> {
    score_text_with(text, gt, opts, false)
}

/// [`score_text`] (`details`: each sample keeps its `metric_details`) or
/// [`score_text_for_output`] (it does not), for a caller that decides at
/// run time.
pub fn score_text_with(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    details: bool,
) -> Result<Report, EpicError> {
    let kept = if details { Kept::All } else { Kept::Nothing };
    let (inputs, coord_override, scored) = read_and_score(text, gt, opts, Shard::ALL, kept)?;
    Ok(assemble(inputs, coord_override, vec![scored]))
}

/// Whether the indices hold each of `0..expected` exactly once.
pub(super) fn covers(expected: usize, mut got: Vec<usize>) -> bool {
    got.sort_unstable();
    got.len() == expected && got.iter().enumerate().all(|(i, &j)| i == j)
}

/// Merges the shards of a run (any number, in any order, each scored by
/// [`score_shard`] on the same text) into its report: the samples are put
/// back in file order before anything is summed, so the numbers do not
/// depend on the sharding.
pub fn merge_shards(
    text: &str,
    opts: &RunOptions,
    shards: Vec<ShardResult>,
) -> Result<Report, EpicError> {
    let inputs = Inputs::read(text)?;
    let coord_override = run_override(&inputs, opts);
    // Every sample of each pass exactly once, or the shards are not one run's.
    let off: Vec<usize> = shards
        .iter()
        .flat_map(|s| s.official.iter().map(|r| r.index))
        .collect();
    let cor: Vec<usize> = shards
        .iter()
        .flat_map(|s| s.corrected.iter().map(|r| r.index))
        .collect();
    let (n_off, n_cor) = (inputs.official().len(), inputs.corrected().len());
    let scored = off.len();
    if !covers(n_off, off) || !covers(n_cor, cor) {
        return Err(EpicError::ShardsIncomplete {
            scored,
            expected: n_off,
        });
    }
    Ok(assemble(inputs, coord_override, shards))
}

fn assemble(
    mut inputs: Inputs,
    coord_override: Option<String>,
    shards: Vec<ShardResult>,
) -> Report {
    let mut off: Vec<SampleResult> = Vec::new();
    let mut cor: Vec<SampleResult> = Vec::new();
    for s in shards {
        off.extend(s.official);
        cor.extend(s.corrected);
    }
    let kind = inputs.kind;
    let scores_file = inputs.scores_file.take();
    let formatted = inputs.format_output();
    report_of(kind, coord_override, off, cor, formatted, |official| {
        scores_file
            .as_ref()
            .map(|v| compare_with_official(v, official))
    })
}

/// The report of a run's samples (in any order; they are put back in file
/// order before anything is summed), with `compare` giving the comparison
/// with an official score file from the official pass.
pub(super) fn report_of(
    kind: InputKind,
    coord_override: Option<String>,
    mut off: Vec<SampleResult>,
    mut cor: Vec<SampleResult>,
    formatted: Option<FormatOutput>,
    compare: impl FnOnce(&Run) -> Option<Vec<Mismatch>>,
) -> Report {
    off.sort_by_key(|s| s.index);
    cor.sort_by_key(|s| s.index);
    let official = Run {
        summary: Summary::new(&off),
        samples: off,
    };
    let corrected = Run {
        summary: Summary::new(&cor),
        samples: cor,
    };
    let with_path: Vec<&SampleResult> = official
        .samples
        .iter()
        .filter(|s| s.gt_path.is_some())
        .collect();
    // A sample found its mask when its GT file was found and holds every
    // mask its task reads (issue #47: a file without one is named).
    let mask_missing = |s: &SampleResult| {
        s.quirks.iter().find_map(|q| match q {
            Quirk::GtMaskMissing(mask) => Some(*mask),
            _ => None,
        })
    };
    let mut gt_missing: Vec<String> = with_path
        .iter()
        .filter_map(|s| match (s.gt_found, mask_missing(s)) {
            (false, _) => s.gt_path.clone(),
            (true, Some(mask)) => s.gt_path.as_ref().map(|p| format!("{p} (no {mask})")),
            (true, None) => None,
        })
        .collect();
    gt_missing.dedup();
    let gt_expected = with_path.len();
    let gt_found = with_path
        .iter()
        .filter(|s| s.gt_found && mask_missing(s).is_none())
        .count();
    let comparison = compare(&official);
    Report {
        kind,
        coord_override,
        gt_expected,
        gt_found,
        gt_missing,
        official,
        corrected,
        formatted,
        comparison,
    }
}

/// Compares a re-score with an official file's numbers (|Δ| ≤ 1e-9 for
/// numbers, exact for strings and flags).
pub fn compare_with_official(file: &PyValue, run: &Run) -> Vec<Mismatch> {
    let theirs = file
        .get("summary")
        .map(PyValue::to_json)
        .unwrap_or(Value::Null);
    let mut out = compare_summary(&theirs, scored_samples(file), run);
    out.extend(compare_samples(file, &run.samples));
    out
}

/// How many samples an official score file lists (`details.by_samples`),
/// when it lists them.
pub(super) fn scored_samples(file: &PyValue) -> Option<usize> {
    match file.get("details").and_then(|d| d.get("by_samples")) {
        Some(PyValue::List(samples)) => Some(samples.len()),
        _ => None,
    }
}

/// The file-wide part of [`compare_with_official`]: the summary (`theirs`,
/// the file's), and the number of samples when the file lists them.
pub(super) fn compare_summary(theirs: &Value, listed: Option<usize>, run: &Run) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let ours = run.summary.to_official_json();
    diff_json("summary", theirs, &ours, None, &mut out);
    if let Some(n) = listed {
        if n != run.samples.len() {
            out.push(Mismatch {
                index: None,
                what: format!("{n} samples in the file, {} re-scored", run.samples.len()),
            });
        }
    }
    out
}

/// The per-sample part of [`compare_with_official`]: each re-scored sample
/// against the file's sample at its index, in the order given.
pub(super) fn compare_samples(file: &PyValue, samples: &[SampleResult]) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let Some(PyValue::List(listed)) = file.get("details").and_then(|d| d.get("by_samples")) else {
        return out;
    };
    for r in samples {
        let Some(s) = listed.get(r.index) else {
            continue;
        };
        let theirs = s.to_json();
        let ours = r.to_official_json();
        for k in ["score", "score_details", "error", "invalid_response"] {
            diff_json(k, &theirs[k], &ours[k], Some(r.index), &mut out);
        }
    }
    out
}

/// Records every difference between two JSON values (numbers within 1e-9).
pub fn diff_json(path: &str, a: &Value, b: &Value, index: Option<usize>, out: &mut Vec<Mismatch>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            // NaN never compares close, so it is reported.
            let close = (x - y).abs() <= 1e-9;
            if !close {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: official {x:?}, ours {y:?}"),
                });
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            if kx != ky {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: keys official {kx:?}, ours {ky:?}"),
                });
            }
            for (k, v) in x {
                if let Some(w) = y.get(k) {
                    diff_json(&format!("{path}.{k}"), v, w, index, out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: length official {}, ours {}", x.len(), y.len()),
                });
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff_json(&format!("{path}[{i}]"), v, w, index, out);
            }
        }
        _ => {
            if a != b {
                out.push(Mismatch {
                    index,
                    what: format!("{path}: official {a}, ours {b}"),
                });
            }
        }
    }
}
