//! A shard's digest as JSON, for the page's workers: each scores its shard
//! and sends the digest ([`super::shard::ShardDigest`]) to the worker that
//! merges ([`super::shard::Merge`]). Compact: a sample is an array, a leaf
//! its position in the taxonomy, and a corrected sample that names the
//! same task and GT file as its official one says so instead of
//! repeating them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use super::count::Counts;
use super::report::{InputKind, Mismatch, Shard};
use super::scorer::Quirk;
use super::shard::{CountDigest, RunHead, SampleDigest, ShardDigest};
use super::taxonomy::{Leaf, LEAVES};

/// Why a shard's text cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    /// The text is not JSON of a shard's shape; the parser's message.
    #[error("a scoring shard is not valid JSON: {0}")]
    Json(String),
    /// A sample names a task by a position the taxonomy does not have.
    #[error("a scoring shard names task {0}, which is not one of the 23 EPIC-Bench tasks")]
    UnknownTask(usize),
    /// A sample names a quirk code a shard cannot carry (unknown, or lacking
    /// its field or count).
    #[error("a scoring shard names quirk {0:?}, which a shard cannot carry")]
    UnknownQuirk(String),
    /// A corrected sample refers to an official sample the shard lacks.
    #[error(
        "a scoring shard's corrected sample {0} has no official sample to share its task with"
    )]
    Unpaired(usize),
}

#[derive(Serialize, Deserialize)]
struct WireQuirk {
    code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
}

/// A sample's task and GT file: `[task_category, task_type, leaf position,
/// gt_path, gt_found]`; `null` in a corrected sample that has the official
/// sample's (nearly always).
type WireTask = Option<(String, String, Option<usize>, Option<String>, bool)>;

/// `[index, task, score, invalid_response, error, quirks, count]`, where
/// count is `[gt_count, pred_count, count_score]`.
#[derive(Serialize, Deserialize)]
struct WireSample(
    usize,
    WireTask,
    f64,
    bool,
    Option<String>,
    Vec<WireQuirk>,
    Option<(Option<i64>, Option<i64>, Option<f64>)>,
);

#[derive(Serialize, Deserialize)]
struct WireHead {
    kind: String,
    coord_override: Option<String>,
    official: usize,
    corrected: usize,
    skipped_lines: Vec<usize>,
    scores_file: Option<(Value, Option<usize>)>,
}

#[derive(Serialize, Deserialize)]
struct WireMismatch(Option<usize>, String);

#[derive(Serialize, Deserialize)]
struct WireDigest {
    shard: (usize, usize),
    head: WireHead,
    official: Vec<WireSample>,
    corrected: Vec<WireSample>,
    mismatches: Vec<WireMismatch>,
}

/// The field labels of [`Quirk::WrappedSentinelParsed`].
const WRAPPED_FIELDS: [&str; 4] = ["localization", "count", "binary", "path"];

/// Why the official formatter rejects a reply, as
/// [`Quirk::FormatterRejected`] holds it.
fn formatter_reasons() -> [&'static str; 8] {
    use super::extract::Failure;
    [
        Failure::Empty,
        Failure::UnclosedThink,
        Failure::NoKey,
        Failure::NoOpeningBrace,
        Failure::UnbalancedBraces,
        Failure::KeysMissing,
        Failure::BadJson,
        Failure::NotAnObject,
    ]
    .map(Failure::describe)
}

fn quirk_out(q: &Quirk) -> WireQuirk {
    let mut w = WireQuirk {
        code: q.code().to_string(),
        field: None,
        count: None,
    };
    match q {
        Quirk::WrappedSentinelParsed { field } => w.field = Some(field.to_string()),
        Quirk::DroppedGtInstances(n) => w.count = Some(*n),
        Quirk::FormatterRejected(why) => w.field = Some(why.to_string()),
        Quirk::GtMaskMissing(mask) => w.field = Some(mask.to_string()),
        _ => {}
    }
    w
}

fn quirk_in(w: WireQuirk) -> Result<Quirk, WireError> {
    let unknown = || WireError::UnknownQuirk(w.code.clone());
    let field = w.field.as_deref().unwrap_or_default();
    Ok(match w.code.as_str() {
        "wrapped_sentinel_parsed" => {
            let field = WRAPPED_FIELDS
                .iter()
                .find(|k| **k == field)
                .ok_or_else(unknown)?;
            Quirk::WrappedSentinelParsed { field }
        }
        "missing_gt_file" => Quirk::MissingGtFile,
        "gt_count_zero_with_pixels" => Quirk::GtCountZeroWithPixels,
        "dropped_gt_instances" => Quirk::DroppedGtInstances(w.count.ok_or_else(unknown)?),
        "auto_switched_to_0_1000" => Quirk::AutoSwitchedTo1000,
        "exo_sampled_distance" => Quirk::ExoSampledDistance,
        "unsuffixed_feasiblepath_on_exo" => Quirk::UnsuffixedFeasiblePathOnExo,
        "path_collapsed" => Quirk::PathCollapsed,
        "decode_failure_not_invalid" => Quirk::DecodeFailureNotInvalid,
        "formatter_rejected" => Quirk::FormatterRejected(
            formatter_reasons()
                .into_iter()
                .find(|r| *r == field)
                .ok_or_else(unknown)?,
        ),
        "gt_mask_missing" => {
            Quirk::GtMaskMissing(MASKS.iter().find(|m| **m == field).ok_or_else(unknown)?)
        }
        _ => return Err(unknown()),
    })
}

/// The masks [`Quirk::GtMaskMissing`] may name: every `masklet_*` a task reads.
const MASKS: [&str; 8] = [
    "masklet_target",
    "masklet_ground",
    "masklet_matching_area",
    "masklet_affordance_region",
    "masklet_contact_target",
    "masklet_placement_region",
    "masklet_path",
    "masklet_target_area",
];

fn leaf_position(leaf: Option<&'static Leaf>) -> Option<usize> {
    leaf.and_then(|l| LEAVES.iter().position(|x| x.type_key == l.type_key))
}

fn task_of(s: &SampleDigest) -> WireTask {
    Some((
        s.task_category.clone(),
        s.task_type.clone(),
        leaf_position(s.leaf),
        s.gt_path.clone(),
        s.gt_found,
    ))
}

fn same_task(a: &SampleDigest, b: &SampleDigest) -> bool {
    a.task_category == b.task_category
        && a.task_type == b.task_type
        && leaf_position(a.leaf) == leaf_position(b.leaf)
        && a.gt_path == b.gt_path
        && a.gt_found == b.gt_found
}

fn sample_out(s: &SampleDigest, official: Option<&SampleDigest>) -> WireSample {
    let task = match official {
        Some(o) if same_task(o, s) => None,
        _ => task_of(s),
    };
    WireSample(
        s.index,
        task,
        s.score,
        s.invalid_response,
        s.error.clone(),
        s.quirks.iter().map(quirk_out).collect(),
        s.count.map(|c| (c.counts.gt, c.counts.pred, c.count_score)),
    )
}

fn sample_in(
    w: WireSample,
    official: &dyn Fn(usize) -> Option<SampleDigest>,
) -> Result<SampleDigest, WireError> {
    let WireSample(index, task, score, invalid_response, error, quirks, count) = w;
    let (task_category, task_type, leaf, gt_path, gt_found) = match task {
        Some((c, t, leaf, p, found)) => {
            let leaf = match leaf {
                None => None,
                Some(k) => Some(LEAVES.get(k).ok_or(WireError::UnknownTask(k))?),
            };
            (c, t, leaf, p, found)
        }
        None => {
            let o = official(index).ok_or(WireError::Unpaired(index))?;
            (o.task_category, o.task_type, o.leaf, o.gt_path, o.gt_found)
        }
    };
    Ok(SampleDigest {
        index,
        task_category,
        task_type,
        leaf,
        score,
        invalid_response,
        error,
        quirks: quirks.into_iter().map(quirk_in).collect::<Result<_, _>>()?,
        gt_path,
        gt_found,
        count: count.map(|(gt, pred, count_score)| CountDigest {
            counts: Counts { gt, pred },
            count_score,
        }),
    })
}

fn kind_name(k: InputKind) -> &'static str {
    match k {
        InputKind::Raw => "raw",
        InputKind::Std => "std",
        InputKind::OfficialScores => "scores",
    }
}

fn kind_of(name: &str) -> Result<InputKind, WireError> {
    match name {
        "raw" => Ok(InputKind::Raw),
        "std" => Ok(InputKind::Std),
        "scores" => Ok(InputKind::OfficialScores),
        other => Err(WireError::Json(format!("unknown input kind {other:?}"))),
    }
}

/// A shard's digest as JSON text. A score is a finite number in [0, 1], so
/// it survives JSON exactly (serde_json writes the shortest round-trip form).
pub fn digest_to_json(d: &ShardDigest) -> String {
    // The official samples are in index order, as scored.
    let by_index = |i: usize| {
        d.official
            .binary_search_by_key(&i, |o| o.index)
            .ok()
            .and_then(|k| d.official.get(k))
    };
    let w = WireDigest {
        shard: (d.shard.index, d.shard.of),
        head: WireHead {
            kind: kind_name(d.head.kind).into(),
            coord_override: d.head.coord_override.clone(),
            official: d.head.official,
            corrected: d.head.corrected,
            skipped_lines: d.head.skipped_lines.clone(),
            scores_file: d.head.scores_file.clone(),
        },
        official: d.official.iter().map(|s| sample_out(s, None)).collect(),
        corrected: d
            .corrected
            .iter()
            .map(|s| sample_out(s, by_index(s.index)))
            .collect(),
        mismatches: d
            .mismatches
            .iter()
            .map(|m| WireMismatch(m.index, m.what.clone()))
            .collect(),
    };
    serde_json::to_string(&w).unwrap_or_else(|_| String::from("null"))
}

/// Reads back a digest written by [`digest_to_json`].
#[allow(
    clippy::disallowed_methods,
    reason = "shard digests the page's own workers write and read back, not a user's file"
)]
pub fn digest_from_json(text: &str) -> Result<ShardDigest, WireError> {
    let w: WireDigest = serde_json::from_str(text).map_err(|e| WireError::Json(e.to_string()))?;
    let official = w
        .official
        .into_iter()
        .map(|s| sample_in(s, &|_| None))
        .collect::<Result<Vec<_>, _>>()?;
    let paired = |i: usize| {
        official
            .binary_search_by_key(&i, |o| o.index)
            .ok()
            .and_then(|k| official.get(k))
            .cloned()
    };
    let corrected = w
        .corrected
        .into_iter()
        .map(|s| sample_in(s, &paired))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ShardDigest {
        shard: Shard {
            index: w.shard.0,
            of: w.shard.1,
        },
        head: RunHead {
            kind: kind_of(&w.head.kind)?,
            coord_override: w.head.coord_override,
            official: w.head.official,
            corrected: w.head.corrected,
            skipped_lines: w.head.skipped_lines,
            scores_file: w.head.scores_file,
        },
        official,
        corrected,
        mismatches: w
            .mismatches
            .into_iter()
            .map(|WireMismatch(index, what)| Mismatch { index, what })
            .collect(),
    })
}
