//! A shard's per-sample results as JSON, for the page's workers: the
//! helpers score their shards and send them to the worker that merges
//! ([`super::report::merge_shards`]). Every field of a
//! [`SampleResult`] crosses, so the merged report is the one a single
//! worker gives; references into the taxonomy travel as their keys.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

use super::report::ShardResult;
use super::scorer::{Quirk, ResponseDetails, SampleResult, ScoreDetails};
use super::taxonomy::LEAVES;

/// Why a shard's text cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    /// The text is not JSON of a shard's shape; the parser's message.
    #[error("a scoring shard is not valid JSON: {0}")]
    Json(String),
    /// A sample names a task type key that is not in the taxonomy.
    #[error("a scoring shard names task {0:?}, which is not one of the 23 EPIC-Bench tasks")]
    UnknownTask(String),
    /// A sample names a quirk code a shard cannot carry (unknown, or lacking
    /// its field or count).
    #[error("a scoring shard names quirk {0:?}, which a shard cannot carry")]
    UnknownQuirk(String),
}

#[derive(Serialize, Deserialize)]
struct WireQuirk {
    code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
}

#[derive(Serialize, Deserialize)]
struct WireSample {
    index: usize,
    task_category: String,
    task_type: String,
    score: f64,
    score_details: Map<String, Value>,
    response_details: Map<String, Value>,
    gt_json_path: Value,
    error: Option<String>,
    invalid_response: bool,
    metric_details: Map<String, Value>,
    quirks: Vec<WireQuirk>,
    /// The leaf's `type_key`.
    leaf: Option<String>,
    gt_path: Option<String>,
    gt_found: bool,
}

#[derive(Serialize, Deserialize)]
struct WireShard {
    official: Vec<WireSample>,
    corrected: Vec<WireSample>,
}

/// The field labels of [`Quirk::WrappedSentinelParsed`].
const WRAPPED_FIELDS: [&str; 4] = ["localization", "count", "binary", "path"];

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
        _ => {}
    }
    w
}

fn quirk_in(w: WireQuirk) -> Result<Quirk, WireError> {
    let unknown = || WireError::UnknownQuirk(w.code.clone());
    Ok(match w.code.as_str() {
        "wrapped_sentinel_parsed" => {
            let f = w.field.as_deref().unwrap_or_default();
            let field = WRAPPED_FIELDS
                .iter()
                .find(|k| **k == f)
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
        // The formatter's verdict is added when the shards are merged.
        _ => return Err(unknown()),
    })
}

/// A typed details object as the map it serialises to.
fn to_map<T: Serialize>(v: &T) -> Map<String, Value> {
    match serde_json::to_value(v) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn sample_out(s: &SampleResult) -> WireSample {
    WireSample {
        index: s.index,
        task_category: s.task_category.clone(),
        task_type: s.task_type.clone(),
        score: s.score,
        score_details: to_map(&s.score_details),
        response_details: to_map(&s.response_details),
        gt_json_path: s.gt_json_path.clone(),
        error: s.error.clone(),
        invalid_response: s.invalid_response,
        metric_details: s.metric_details.clone(),
        quirks: s.quirks.iter().map(quirk_out).collect(),
        leaf: s.leaf.map(|l| l.type_key.to_string()),
        gt_path: s.gt_path.clone(),
        gt_found: s.gt_found,
    }
}

fn sample_in(w: WireSample) -> Result<SampleResult, WireError> {
    let leaf = match w.leaf {
        None => None,
        Some(k) => Some(
            LEAVES
                .iter()
                .find(|l| l.type_key == k)
                .ok_or(WireError::UnknownTask(k))?,
        ),
    };
    Ok(SampleResult {
        index: w.index,
        task_category: w.task_category,
        task_type: w.task_type,
        score: w.score,
        score_details: ScoreDetails::from_map(&w.score_details),
        response_details: ResponseDetails::from_map(&w.response_details),
        gt_json_path: w.gt_json_path,
        error: w.error,
        invalid_response: w.invalid_response,
        metric_details: w.metric_details,
        quirks: w
            .quirks
            .into_iter()
            .map(quirk_in)
            .collect::<Result<_, _>>()?,
        leaf,
        gt_path: w.gt_path,
        gt_found: w.gt_found,
    })
}

/// A shard as JSON text. A score is a finite number in [0, 1], so it
/// survives JSON exactly (serde_json writes the shortest round-trip form).
pub fn shard_to_json(shard: &ShardResult) -> String {
    let w = WireShard {
        official: shard.official.iter().map(sample_out).collect(),
        corrected: shard.corrected.iter().map(sample_out).collect(),
    };
    serde_json::to_string(&w).unwrap_or_else(|_| String::from("null"))
}

/// Reads back a shard written by [`shard_to_json`].
pub fn shard_from_json(text: &str) -> Result<ShardResult, WireError> {
    let w: WireShard = serde_json::from_str(text).map_err(|e| WireError::Json(e.to_string()))?;
    let conv = |v: Vec<WireSample>| v.into_iter().map(sample_in).collect::<Result<Vec<_>, _>>();
    Ok(ShardResult {
        official: conv(w.official)?,
        corrected: conv(w.corrected)?,
    })
}
