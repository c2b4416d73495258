//! A run scored in shards by the page's workers, each sending the merging
//! worker a digest of its samples instead of the samples themselves.
//!
//! A worker reads the whole predictions file (to number its records) but
//! formats, reads the ground truth of and scores only its own samples
//! ([`digest_shard`]); what it sends ([`ShardDigest`]) is what the merge
//! and the page's first screen need of each sample, and what it learnt of
//! the whole file ([`RunHead`]), so the merging worker never reads the
//! file again. [`Merge`] takes the digests as they come and gives the
//! report the whole run gives, its samples carrying their summary fields
//! only: each item's details are scored again when a visitor opens it
//! ([`score_sample`]).

use serde_json::{Map, Value};

use super::count::Counts;
use super::formatter::{FormatOutput, Formatted};
use super::gt::GroundTruthSource;
use super::intake::{intake, Intake, LineIntake};
use super::report::{
    compare_samples, compare_summary, covers, report_of, run_override, score_inputs,
    score_inputs_into, scored_samples, EpicError, InputKind, Inputs, Kept, Mismatch, Report,
    RunOptions, Shard,
};
use super::scorer::{Quirk, ResponseDetails, SampleResult, ScoreDetails};
use super::taxonomy::Leaf;

/// What every worker learns of the whole predictions file while reading
/// it: the same in every shard of a run, and all the merge needs of the
/// file besides the samples.
#[derive(Debug, Clone, PartialEq)]
pub struct RunHead {
    /// What kind of file it is.
    pub kind: InputKind,
    /// The coordinate mode forced on every sample, if any.
    pub coord_override: Option<String>,
    /// How many samples the official pass has.
    pub official: usize,
    /// How many samples the corrected pass has.
    pub corrected: usize,
    /// Raw input: the lines that are not JSON objects, 1-based.
    pub skipped_lines: Vec<usize>,
    /// An official score file: its own `summary`, and how many samples it
    /// lists (when it lists them), for the comparison with the re-score.
    pub scores_file: Option<(Value, Option<usize>)>,
}

/// The `count` metric of a sample, as the page's count breakdown reads it
/// ([`super::aggregate::count_accuracy_by_target_count`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountDigest {
    /// The two counts compared ([`SampleResult::counts`]).
    pub counts: Counts,
    /// `score_details.count_score`, for a scored sample.
    pub count_score: Option<f64>,
}

/// One sample of one pass as the merge and the page's first screen need
/// it: what the summaries, the GT coverage, the count breakdown and the
/// item's row read. Not its `score_details`, `response_details` or
/// `metric_details` (but the count's two counts, typed), which only the
/// drill-down shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleDigest {
    /// The sample's position in the file (after filtering), 0-based.
    pub index: usize,
    /// `task_category[0]` as written.
    pub task_category: String,
    /// `task_type[0]` as written.
    pub task_type: String,
    /// The summary leaf, if resolved.
    pub leaf: Option<&'static Leaf>,
    /// The sample score.
    pub score: f64,
    /// The official `invalid_response` flag.
    pub invalid_response: bool,
    /// The component errors, if any.
    pub error: Option<String>,
    /// The quirks that decided the score (the formatter's verdict first).
    pub quirks: Vec<Quirk>,
    /// `gt_json_path[0]`, if any.
    pub gt_path: Option<String>,
    /// Whether the GT file was found.
    pub gt_found: bool,
    /// The `count` metric, when the sample has one.
    pub count: Option<CountDigest>,
}

impl From<SampleResult> for SampleDigest {
    /// The digest of a scored sample, its strings moved, the rest dropped.
    fn from(s: SampleResult) -> SampleDigest {
        let count = s.counts.map(|counts| CountDigest {
            counts,
            count_score: s.score_details.get("count_score"),
        });
        SampleDigest {
            index: s.index,
            task_category: s.task_category,
            task_type: s.task_type,
            leaf: s.leaf,
            score: s.score,
            invalid_response: s.invalid_response,
            error: s.error,
            quirks: s.quirks,
            gt_path: s.gt_path,
            gt_found: s.gt_found,
            count,
        }
    }
}

impl SampleDigest {
    /// The sample as a [`SampleResult`] holding its digest's fields: its
    /// `score_details` hold only `count_score` (the other keys NaN, not
    /// carried), its typed [`SampleResult::counts`] the count's two
    /// counts, its `metric_details`, `response_details` and `gt_json_path`
    /// nothing. Every summary, the coverage, the count breakdown and the
    /// item rows read only these.
    pub fn into_sample(self) -> SampleResult {
        let score_details = match self.count.and_then(|c| c.count_score) {
            Some(x) => ScoreDetails::count_only(x),
            None => ScoreDetails::Empty,
        };
        SampleResult {
            index: self.index,
            task_category: self.task_category,
            task_type: self.task_type,
            score: self.score,
            score_details,
            response_details: ResponseDetails::Empty,
            gt_json_path: Value::Null,
            error: self.error,
            invalid_response: self.invalid_response,
            metric_details: Map::new(),
            counts: self.count.map(|c| c.counts),
            quirks: self.quirks,
            leaf: self.leaf,
            gt_path: self.gt_path,
            gt_found: self.gt_found,
        }
    }
}

/// What one worker sends the merging worker for one predictions file.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardDigest {
    /// Which samples the shard holds.
    pub shard: Shard,
    /// What the worker learnt of the whole file.
    pub head: RunHead,
    /// The shard's samples in the official pass, in record order.
    pub official: Vec<SampleDigest>,
    /// The same samples in the corrected pass.
    pub corrected: Vec<SampleDigest>,
    /// An official score file: where this shard's re-scored samples differ
    /// from the file's.
    pub mismatches: Vec<Mismatch>,
}

/// Scores one shard of a predictions file for the page: the whole file is
/// read (to number its records), but only the shard's raw records are
/// formatted, only its samples' GT files read and only its samples scored.
pub fn digest_shard(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    shard: Shard,
) -> Result<ShardDigest, EpicError> {
    digest_read(text, gt, opts, shard, None)
}

/// [`digest_shard`], and the file's [`intake`] (what the readers skip or
/// count twice), which one worker of a run reports. Raw JSON Lines are
/// told to the intake as the shard reads them, so the file is read once;
/// any other file (and one that starts with a second byte-order mark,
/// which only the intake strips) is read for it again.
pub fn digest_shard_with_intake(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    shard: Shard,
) -> Result<(ShardDigest, Intake), EpicError> {
    let mut lines = (!text.starts_with('\u{feff}')).then(LineIntake::new);
    let digest = digest_read(text, gt, opts, shard, lines.as_mut())?;
    let intake = match lines {
        Some(lines) if digest.head.kind == InputKind::Raw => lines.finish(),
        _ => intake(text),
    };
    Ok((digest, intake))
}

fn digest_read(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    shard: Shard,
    lines: Option<&mut LineIntake>,
) -> Result<ShardDigest, EpicError> {
    let inputs = Inputs::read_picked(text, &|i| shard.has(i), lines)?;
    let coord_override = run_override(&inputs, opts);
    // Each sample is digested as soon as it is scored, and the rest of it
    // freed then: a shard never holds its samples' full results.
    let mut mismatches = Vec::new();
    let (official, corrected) = score_inputs_into(
        &inputs,
        gt,
        &coord_override,
        &|i| shard.has(i),
        Kept::Nothing,
        |s, corrected| {
            if let (Some(f), false) = (&inputs.scores_file, corrected) {
                mismatches.extend(compare_samples(f, std::slice::from_ref(&s)));
            }
            SampleDigest::from(s)
        },
    );
    let head = RunHead {
        kind: inputs.kind,
        coord_override,
        official: inputs.official().len(),
        corrected: inputs.corrected().len(),
        skipped_lines: inputs.skipped_lines.clone(),
        scores_file: inputs.scores_file.as_ref().map(|f| {
            let summary = f
                .get("summary")
                .map(super::pyvalue::PyValue::to_json)
                .unwrap_or(Value::Null);
            (summary, scored_samples(f))
        }),
    };
    Ok(ShardDigest {
        shard,
        head,
        official,
        corrected,
        mismatches,
    })
}

/// A run's shard digests, merged as they come.
#[derive(Debug, Default)]
pub struct Merge {
    head: Option<RunHead>,
    shards: usize,
    official: Vec<SampleDigest>,
    corrected: Vec<SampleDigest>,
    mismatches: Vec<Mismatch>,
}

impl Merge {
    /// An empty merge.
    pub fn new() -> Merge {
        Merge::default()
    }

    /// Adds one shard's digest; a digest of another file or other options
    /// (its [`RunHead`] differs from the first's) is refused.
    pub fn add(&mut self, digest: ShardDigest) -> Result<(), EpicError> {
        match &self.head {
            Some(h) if *h != digest.head => return Err(EpicError::ShardsDisagree),
            Some(_) => {}
            None => self.head = Some(digest.head),
        }
        self.shards += 1;
        self.official.extend(digest.official);
        self.corrected.extend(digest.corrected);
        self.mismatches.extend(digest.mismatches);
        Ok(())
    }

    /// How many digests were added.
    pub fn shards(&self) -> usize {
        self.shards
    }

    /// The run's report, from every sample of each pass exactly once: the
    /// samples are put back in file order before anything is summed, so
    /// the numbers are the whole run's whatever the sharding.
    pub fn finish(self) -> Result<Report, EpicError> {
        let head = self.head.ok_or(EpicError::ShardsIncomplete {
            scored: 0,
            expected: 0,
        })?;
        let off: Vec<usize> = self.official.iter().map(|s| s.index).collect();
        let cor: Vec<usize> = self.corrected.iter().map(|s| s.index).collect();
        let scored = off.len();
        if !covers(head.official, off) || !covers(head.corrected, cor) {
            return Err(EpicError::ShardsIncomplete {
                scored,
                expected: head.official,
            });
        }
        let formatted = (head.kind == InputKind::Raw).then(|| FormatOutput {
            records: Vec::new(),
            skipped_lines: head.skipped_lines,
        });
        let mut mismatches = self.mismatches;
        let scores_file = head.scores_file;
        Ok(report_of(
            head.kind,
            head.coord_override,
            self.official
                .into_iter()
                .map(SampleDigest::into_sample)
                .collect(),
            self.corrected
                .into_iter()
                .map(SampleDigest::into_sample)
                .collect(),
            formatted,
            |official| {
                let (summary, listed) = scores_file?;
                let mut out = compare_summary(&summary, listed, official);
                // Each sample's differences in file order, as a whole run lists them.
                mismatches.sort_by_key(|m| m.index);
                out.extend(mismatches);
                Some(out)
            },
        ))
    }
}

/// One sample scored again with everything the drill-down shows.
#[derive(Debug, Clone)]
pub struct SampleEvidence {
    /// The official pass's result, every detail kept.
    pub official: SampleResult,
    /// The corrected pass's result.
    pub corrected: Option<SampleResult>,
    /// Raw input: the record as the official formatter wrote it, and the
    /// reply it read.
    pub formatted: Option<Formatted>,
}

/// Scores sample `index` of a predictions file again, both passes with
/// every detail (the page's drill-down asks for one item at a time); the
/// same scores as the whole run's. `None` when the file has no such sample.
pub fn score_sample(
    text: &str,
    gt: &dyn GroundTruthSource,
    opts: &RunOptions,
    index: usize,
) -> Result<Option<SampleEvidence>, EpicError> {
    let inputs = Inputs::read_picked(text, &|i| i == index, None)?;
    let coord_override = run_override(&inputs, opts);
    let scored = score_inputs(&inputs, gt, &coord_override, &|i| i == index, Kept::All);
    let formatted = inputs.formatted(index).cloned();
    Ok(scored
        .official
        .into_iter()
        .next()
        .map(|official| SampleEvidence {
            official,
            corrected: scored.corrected.into_iter().next(),
            formatted,
        }))
}
