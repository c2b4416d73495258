// Over 600 lines: one record to one official result is one dispatch: the per-task scoring, the
// detail and response serialisations that must equal the official output byte
// for byte (epic-official.md §2.1, §11) and the quirks are read together when
// checking parity.

//! One std_format record → one official per-sample result (§2.1, §11):
//! task dispatch, GT fields, component scores, weights, errors, the
//! invalid flag, and the quirks that decided the score.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Map, Value};

use super::coords::{parse_mode, CoordMode, ModeRequest};
use super::count::{score_binary, score_count_with, Counts};
use super::gt::{
    lookup, parse_count, parse_feasibility, parse_flag, Found, GtCache, GtFile, MaskField,
};
use super::localization::{score_localization, LocInput, LocOutcome};
use super::path::{score_path, PathInput, Perspective};
use super::prediction::is_wrapped_sentinel;
use super::pyvalue::{PyError, PyValue};
use super::taxonomy::{components, resolve_leaf, tl_leaf, Leaf, TL_GROUPS};

/// Scoring options for one run.
#[derive(Debug, Clone, Default)]
pub struct ScoreOptions {
    /// `--coord-mode`: overwrites every sample's `coordinate_system`.
    pub coord_override: Option<String>,
    /// Corrected mode: list-wrapped failure markers are honoured.
    pub corrected: bool,
    /// Leave `metric_details` empty (a caller that prints the document,
    /// which carries none): they are not built at all. Every score, error
    /// and detail of the document is the same.
    pub skip_metric_details: bool,
}

/// A quirk of the official code that applied to a sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quirk {
    /// A list-wrapped "No Valid Response" was parsed as data (§5 QUIRK).
    WrappedSentinelParsed {
        /// The component whose field held it: `localization`, `count`,
        /// `binary` or `path`.
        field: &'static str,
    },
    /// The GT file was not found, so the GT counted as empty (§14 item 2).
    MissingGtFile,
    /// "`gt_count == 0` forces the GT to empty even if mask pixels exist."
    GtCountZeroWithPixels,
    /// GT instances of another size were dropped from the union.
    DroppedGtInstances(usize),
    /// One out-of-image box switched the whole sample to 0–1000.
    AutoSwitchedTo1000,
    /// The official code samples 1000 random pixels per region here.
    ExoSampledDistance,
    /// Un-suffixed `FeasiblePath` on Exo data scored as first person.
    UnsuffixedFeasiblePathOnExo,
    /// The path collapsed to fewer than 2 points: 0 but not invalid.
    PathCollapsed,
    /// A decode failure error is not counted as invalid (lowercase
    /// "missing").
    DecodeFailureNotInvalid,
    /// The formatter rejected the reply ("No Valid Response").
    FormatterRejected(&'static str),
    /// The GT file was found but holds no mask the task reads (no
    /// `mask_annotation`, no such `masklet_*`, or an empty list): scored
    /// as the official code scores it, and not counted among the samples
    /// that found their mask (issue #47).
    GtMaskMissing(&'static str),
}

impl Quirk {
    /// A short machine-readable name.
    pub fn code(&self) -> &'static str {
        match self {
            Quirk::WrappedSentinelParsed { .. } => "wrapped_sentinel_parsed",
            Quirk::MissingGtFile => "missing_gt_file",
            Quirk::GtCountZeroWithPixels => "gt_count_zero_with_pixels",
            Quirk::DroppedGtInstances(_) => "dropped_gt_instances",
            Quirk::AutoSwitchedTo1000 => "auto_switched_to_0_1000",
            Quirk::ExoSampledDistance => "exo_sampled_distance",
            Quirk::UnsuffixedFeasiblePathOnExo => "unsuffixed_feasiblepath_on_exo",
            Quirk::PathCollapsed => "path_collapsed",
            Quirk::DecodeFailureNotInvalid => "decode_failure_not_invalid",
            Quirk::FormatterRejected(_) => "formatter_rejected",
            Quirk::GtMaskMissing(_) => "gt_mask_missing",
        }
    }

    /// A sentence for people.
    pub fn describe(&self) -> String {
        match self {
            Quirk::WrappedSentinelParsed { field } => format!(
                "{field}: the formatter's [\"No Valid Response\"] was read as data, not as a failure"
            ),
            Quirk::MissingGtFile => "GT file missing: the GT counted as empty".into(),
            Quirk::GtCountZeroWithPixels => "GT count 0 made the GT empty although the mask has pixels".into(),
            Quirk::DroppedGtInstances(n) => format!("{n} GT instance(s) of another size dropped from the union"),
            Quirk::AutoSwitchedTo1000 => "a value beyond max(H, W) switched every box of the sample to the 0-1000 scale".into(),
            Quirk::ExoSampledDistance => "official start-goal distance samples random pixels here; exact minimum used".into(),
            Quirk::UnsuffixedFeasiblePathOnExo => "task type FeasiblePath on Exo data scored as first person".into(),
            Quirk::PathCollapsed => "path collapsed below 2 points: 0 without being flagged invalid".into(),
            Quirk::DecodeFailureNotInvalid => "GT decode failure is not counted as invalid".into(),
            Quirk::FormatterRejected(why) => format!("formatter gave \"No Valid Response\": {why}"),
            Quirk::GtMaskMissing(mask) => format!(
                "the GT file holds no {mask} (no mask_annotation, no such mask, or an empty list): the GT counted as empty"
            ),
        }
    }
}

/// The keys of a scored sample's `score_details`, in the official order
/// (§2.1: "always holds 8 keys").
pub const SCORE_DETAIL_KEYS: [&str; 8] = [
    "localization_score",
    "count_score",
    "path_score",
    "binary_score",
    "weight_localization",
    "weight_count",
    "weight_path",
    "weight_binary",
];

/// The placeholder scorer's message (§11 "Unregistered (category, type)").
pub const PLACEHOLDER_MESSAGE: &str = "No scorer registered for this task (placeholder).";

/// A sample's official `score_details`, typed: written straight to the
/// output in the official key order, with no map built per sample.
#[derive(Debug, Clone, PartialEq)]
pub enum ScoreDetails {
    /// The four component scores then their four weights, in the order of
    /// [`SCORE_DETAIL_KEYS`]; unused metrics are 0.0 with weight 0.0.
    Scored([f64; 8]),
    /// An unregistered task: `{"message": PLACEHOLDER_MESSAGE}`.
    Placeholder,
    /// A scorer raised (§11 "Exceptions"): `{}`.
    Empty,
}

impl ScoreDetails {
    /// The value under an official key, for a scored sample.
    pub fn get(&self, key: &str) -> Option<f64> {
        match self {
            ScoreDetails::Scored(v) => SCORE_DETAIL_KEYS
                .iter()
                .position(|k| *k == key)
                .map(|i| v[i]),
            _ => None,
        }
    }

    /// A sample of which only `count_score` is known (a shard's digest):
    /// the other keys NaN, as [`Self::from_map`] reads an object holding
    /// `count_score` alone.
    pub fn count_only(count_score: f64) -> ScoreDetails {
        let mut v = [f64::NAN; 8];
        if let Some(i) = SCORE_DETAIL_KEYS.iter().position(|k| *k == "count_score") {
            v[i] = count_score;
        }
        ScoreDetails::Scored(v)
    }

    /// Reads back the object [`Serialize`] writes (the page's shards).
    pub fn from_map(m: &Map<String, Value>) -> ScoreDetails {
        if m.is_empty() {
            return ScoreDetails::Empty;
        }
        if m.contains_key("message") {
            return ScoreDetails::Placeholder;
        }
        let mut v = [0.0; 8];
        for (slot, k) in v.iter_mut().zip(SCORE_DETAIL_KEYS) {
            *slot = m.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        }
        ScoreDetails::Scored(v)
    }
}

impl Serialize for ScoreDetails {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            ScoreDetails::Scored(v) => {
                let mut m = ser.serialize_map(Some(8))?;
                for (k, x) in SCORE_DETAIL_KEYS.iter().zip(v) {
                    // A non-finite f64 is written as null, as `json!` makes it.
                    m.serialize_entry(k, x)?;
                }
                m.end()
            }
            ScoreDetails::Placeholder => {
                let mut m = ser.serialize_map(Some(1))?;
                m.serialize_entry("message", PLACEHOLDER_MESSAGE)?;
                m.end()
            }
            ScoreDetails::Empty => ser.serialize_map(Some(0))?.end(),
        }
    }
}

/// The record fields `response_details` repeats, in the official order.
pub const FORMATTED_KEYS: [&str; 4] = [
    "formatted_response_localization",
    "formatted_response_count",
    "formatted_response_path",
    "formatted_response_binary",
];

/// A sample's official `response_details`, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseDetails {
    /// `{}`: a placeholder task, or a scorer that raised.
    Empty,
    /// What the scorer read.
    Read {
        /// The record's `format_type[0]` (`"bbox"` when absent).
        format_type: String,
        /// The resolved coordinate system, `"n/a"` for masks, or the
        /// requested mode when never resolved.
        coordinate_system: String,
        /// The record's four `formatted_response_*` fields, in the order
        /// of [`FORMATTED_KEYS`] (`null` when absent), shared with the
        /// corrected pass's copy of an agreeing sample (no deep copy).
        formatted: std::sync::Arc<[Value; 4]>,
    },
}

impl ResponseDetails {
    /// A `formatted_response_*` field as the scorer read it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            ResponseDetails::Read { formatted, .. } => FORMATTED_KEYS
                .iter()
                .position(|k| *k == key)
                .map(|i| &formatted[i]),
            ResponseDetails::Empty => None,
        }
    }

    /// Reads back the object [`Serialize`] writes (the page's shards).
    pub fn from_map(m: &Map<String, Value>) -> ResponseDetails {
        if m.is_empty() {
            return ResponseDetails::Empty;
        }
        let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        ResponseDetails::Read {
            format_type: text("format_type"),
            coordinate_system: text("coordinate_system"),
            formatted: std::sync::Arc::new(
                FORMATTED_KEYS.map(|k| m.get(k).cloned().unwrap_or(Value::Null)),
            ),
        }
    }
}

impl Serialize for ResponseDetails {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        match self {
            ResponseDetails::Empty => ser.serialize_map(Some(0))?.end(),
            ResponseDetails::Read {
                format_type,
                coordinate_system,
                formatted,
            } => {
                let mut m = ser.serialize_map(Some(6))?;
                m.serialize_entry("format_type", format_type)?;
                m.serialize_entry("coordinate_system", coordinate_system)?;
                for (k, v) in FORMATTED_KEYS.iter().zip(formatted.iter()) {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

/// One sample's result, in the official shape plus diagnostics.
#[derive(Debug, Clone)]
pub struct SampleResult {
    /// The sample's position in the file (after filtering), 0-based.
    pub index: usize,
    /// `task_category[0]` as written ("" when absent).
    pub task_category: String,
    /// `task_type[0]` as written ("" when absent).
    pub task_type: String,
    /// The sample score (§2.1).
    pub score: f64,
    /// The official `score_details`.
    pub score_details: ScoreDetails,
    /// The official `response_details`.
    pub response_details: ResponseDetails,
    /// The record's `ground_truth.gt_json_path`, as written (`[]` if absent).
    pub gt_json_path: Value,
    /// The component errors joined with `"; "`, if any.
    pub error: Option<String>,
    /// The official `invalid_response` flag (§11).
    pub invalid_response: bool,
    /// Mirrors the official `ScoreResult.metric_details`.
    pub metric_details: Map<String, Value>,
    /// The counts of `metric_details.count`, kept typed whatever details
    /// are kept (`None` where that entry would be absent).
    pub counts: Option<Counts>,
    /// The official quirks that decided this sample's score.
    pub quirks: Vec<Quirk>,
    /// The summary leaf (by_type / by_group key), if resolved.
    pub leaf: Option<&'static Leaf>,
    /// `gt_json_path[0]`, if any.
    pub gt_path: Option<String>,
    /// Whether the GT file was found.
    pub gt_found: bool,
}

impl SampleResult {
    /// The official per-sample object of `details.by_samples`.
    pub fn to_official_json(&self) -> Value {
        serde_json::to_value(OfficialSample(self)).unwrap_or(Value::Null)
    }
}

/// One official sample object (`details.by_samples[i]`), serialised from
/// the result's own fields in the official key order: the CLI streams it,
/// [`SampleResult::to_official_json`] collects it.
pub struct OfficialSample<'a>(
    /// The sample.
    pub &'a SampleResult,
);

impl Serialize for OfficialSample<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut m = ser.serialize_map(Some(9))?;
        m.serialize_entry("index", &s.index)?;
        m.serialize_entry("task_category", &s.task_category)?;
        m.serialize_entry("task_type", &s.task_type)?;
        // A non-finite f64 is written as null, as `json!` makes it.
        m.serialize_entry("score", &s.score)?;
        m.serialize_entry("score_details", &s.score_details)?;
        m.serialize_entry("response_details", &s.response_details)?;
        m.serialize_entry("ground_truth", &GroundTruth(&s.gt_json_path))?;
        m.serialize_entry("error", &s.error)?;
        m.serialize_entry("invalid_response", &s.invalid_response)?;
        m.end()
    }
}

/// `{"gt_json_path": ...}`.
struct GroundTruth<'a>(&'a Value);

impl Serialize for GroundTruth<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut m = ser.serialize_map(Some(1))?;
        m.serialize_entry("gt_json_path", self.0)?;
        m.end()
    }
}

fn first_str(rec: &PyValue, key: &str) -> Option<String> {
    first_text(rec, key).map(Cow::into_owned)
}

/// `str(field[0])` of a record's field, borrowed when it is a string.
fn first_text<'r>(rec: &'r PyValue, key: &str) -> Option<Cow<'r, str>> {
    match rec.get(key)?.first()? {
        PyValue::Str(s) => Some(Cow::Borrowed(s)),
        PyValue::None => None,
        other => Some(Cow::Owned(other.py_str())),
    }
}

fn score_details(
    loc: (f64, f64),
    cnt: (f64, f64),
    path: (f64, f64),
    bin: (f64, f64),
) -> ScoreDetails {
    ScoreDetails::Scored([loc.0, cnt.0, path.0, bin.0, loc.1, cnt.1, path.1, bin.1])
}

enum Task {
    /// Localization + count (TL, CR, VM), with the field names.
    Counted {
        mask: &'static str,
        count: &'static str,
        precise: &'static [&'static str],
        fixed_half: bool,
    },
    LocOnly(&'static str),
    Path(Perspective),
    Placement,
}

impl Task {
    /// The masks the task reads from the ground truth.
    fn masks(&self) -> Vec<&'static str> {
        match self {
            Task::Counted { mask, .. } | Task::LocOnly(mask) => vec![mask],
            Task::Path(_) => vec!["masklet_path", "masklet_target_area"],
            Task::Placement => vec!["masklet_placement_region"],
        }
    }

    /// The prediction fields the task scores, in the order their quirks are
    /// noted, with the quirk's label: the only fields in which the
    /// corrected mode reads anything differently (a list-wrapped sentinel).
    fn scored_fields(&self) -> &'static [(&'static str, &'static str)] {
        const LOC: (&str, &str) = ("formatted_response_localization", "localization");
        match self {
            Task::Counted { .. } => &[LOC, ("formatted_response_count", "count")],
            Task::LocOnly(_) => &[LOC],
            Task::Placement => &[LOC, ("formatted_response_binary", "binary")],
            Task::Path(_) => &[("formatted_response_path", "path")],
        }
    }
}

/// Whether the corrected pass scores `rec` exactly as the official pass
/// does, so that its result can be the official one's: the corrected mode
/// differs only in honouring a list-wrapped sentinel
/// ([`super::prediction::sentinel`]) in a field the task scores (and the
/// official pass notes it as a quirk), so a record with none scores alike
/// in both (`tests/epic_shortcuts.rs`, `agreeing_passes_score_alike`).
pub fn passes_agree(rec: &PyValue) -> bool {
    let category = first_text(rec, "task_category").unwrap_or_default();
    let ty = first_text(rec, "task_type").unwrap_or_default();
    task_of(&category, &ty).is_none_or(|task| {
        task.scored_fields()
            .iter()
            .all(|(key, _)| is_wrapped_sentinel(rec.get(key)).is_none())
    })
}

fn task_of(category: &str, ty: &str) -> Option<Task> {
    const P: &[&str] = &["precise_count"];
    match category {
        "TargetLocalization" if tl_leaf(ty).is_some() || TL_GROUPS.contains(&ty) => {
            Some(Task::Counted {
                mask: "masklet_target",
                count: "count_target_instance",
                precise: P,
                fixed_half: false,
            })
        }
        "Navigation" => match ty {
            "GroundDetection" => Some(Task::LocOnly("masklet_ground")),
            "VisualMatching" => Some(Task::Counted {
                mask: "masklet_matching_area",
                count: "count_matching_area",
                precise: &["precise_count", "Precise_Count"],
                fixed_half: true,
            }),
            "FeasiblePath_Exo" => Some(Task::Path(Perspective::Third)),
            "FeasiblePath_Ego" | "FeasiblePath" => Some(Task::Path(Perspective::First)),
            _ => None,
        },
        "Manipulation" => match ty {
            "AffordanceRegion" | "Affordance" => Some(Task::LocOnly("masklet_affordance_region")),
            "PlacementRegion" | "Placement" => Some(Task::Placement),
            "ContactRelationship"
            | "ContactRelationship_TypeOne"
            | "ContactRelationship_TypeTwo"
            | "ContactRelationship_TypeThree" => Some(Task::Counted {
                mask: "masklet_contact_target",
                count: "count_contact_target",
                precise: P,
                fixed_half: false,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Scores one std record.
pub fn score_record(
    index: usize,
    rec: &PyValue,
    gt: &mut GtCache,
    opts: &ScoreOptions,
) -> SampleResult {
    let category = first_text(rec, "task_category").unwrap_or_default();
    let ty = first_text(rec, "task_type").unwrap_or_default();
    let paths = rec.get("ground_truth").and_then(|g| g.get("gt_json_path"));
    let gt_path = paths.and_then(PyValue::first).and_then(PyValue::as_str);
    let gt_json_path = paths.map_or(json!([]), PyValue::to_json);
    let leaf = resolve_leaf(&category, &ty, gt_path.unwrap_or(""));
    let file = gt_path.and_then(|p| gt.load(p));
    let mut res = SampleResult {
        index,
        task_category: category.to_string(),
        task_type: ty.to_string(),
        score: 0.0,
        score_details: ScoreDetails::Empty,
        response_details: ResponseDetails::Empty,
        gt_json_path,
        error: None,
        invalid_response: false,
        metric_details: Map::new(),
        counts: None,
        quirks: Vec::new(),
        leaf,
        gt_path: gt_path.map(str::to_string),
        gt_found: file.is_some(),
    };
    let Some(task) = task_of(&category, &ty) else {
        res.score_details = ScoreDetails::Placeholder;
        return res;
    };
    if file.is_none() {
        res.quirks.push(Quirk::MissingGtFile);
    } else {
        // A file without the mask its task reads is named, not taken as
        // found (it is scored as officially: the GT counted as empty).
        // An empty list is the mask of a GT that counts no instance, or
        // of a placement the GT says is not feasible.
        let inline = rec.get("ground_truth");
        let counts_none = match &task {
            Task::Counted { count, .. } => {
                let n = lookup(file.as_deref(), inline, count).map(Found::value);
                matches!(parse_count(n), Ok(Some(0)))
            }
            Task::Placement => {
                let v = lookup(file.as_deref(), inline, "placement_feasibility").map(Found::value);
                parse_feasibility(&[v]) == Some(false)
            }
            _ => false,
        };
        for mask in task.masks() {
            let present = match lookup(file.as_deref(), inline, mask) {
                Some(f) if f.is_null() => false,
                Some(f) => counts_none || !f.is_empty_field(),
                None => false,
            };
            if !present {
                res.quirks.push(Quirk::GtMaskMissing(mask));
            }
        }
    }
    match evaluate(&task, rec, file.as_deref(), opts, &mut res, &ty) {
        Ok(()) => {}
        Err(e) => {
            res.score = 0.0;
            res.error = Some(e.to_official_string());
            res.invalid_response = true;
            res.score_details = ScoreDetails::Empty;
            res.response_details = ResponseDetails::Empty;
            res.metric_details = Map::new();
            res.counts = None;
        }
    }
    res
}

/// A found GT field as the mask the localization and path scorers read.
fn as_mask<'a>(found: &'a Option<Found<'_>>) -> Option<&'a dyn MaskField> {
    found.as_ref().map(|f| f as &dyn MaskField)
}

fn evaluate(
    task: &Task,
    rec: &PyValue,
    file: Option<&GtFile>,
    opts: &ScoreOptions,
    res: &mut SampleResult,
    ty: &str,
) -> Result<(), PyError> {
    let inline = rec.get("ground_truth");
    let format_type = first_str(rec, "format_type").unwrap_or_else(|| "bbox".into());
    let mode_name: Cow<str> = match &opts.coord_override {
        Some(m) => Cow::Borrowed(m),
        None => first_text(rec, "coordinate_system")
            .filter(|s| !s.is_empty())
            .unwrap_or(Cow::Borrowed("auto")),
    };
    let mode: ModeRequest = parse_mode(&mode_name);
    let field = |k: &str| rec.get(k);
    let hw = opts.corrected;
    // A GT file's mask is decoded once for both passes (it is kept with
    // the file, `gt::Found`'s `MaskField`).
    let find = |k: &str| lookup(file, inline, k);
    let get = |k: &str| find(k).map(Found::value);
    let resolved_name: Option<&'static str>;
    let mut errors: Vec<&'static str> = Vec::new();
    // The official pass reads a list-wrapped sentinel in a field the task
    // scores as data, and notes it.
    let note_wrapped = |res: &mut SampleResult| {
        for (key, label) in task.scored_fields() {
            if !hw && is_wrapped_sentinel(rec.get(key)).is_some() {
                res.quirks
                    .push(Quirk::WrappedSentinelParsed { field: label });
            }
        }
    };
    // What a localization part leaves on the sample, whichever task it is
    // part of: the quirks it met, its details; returns the coordinate
    // system it resolved to.
    let finish_loc = |res: &mut SampleResult, l: LocOutcome| -> Option<&'static str> {
        if l.gt_count_zero_with_pixels {
            res.quirks.push(Quirk::GtCountZeroWithPixels);
        }
        if l.dropped_gt_instances > 0 {
            res.quirks
                .push(Quirk::DroppedGtInstances(l.dropped_gt_instances));
        }
        if l.flipped_to_1000 {
            res.quirks.push(Quirk::AutoSwitchedTo1000);
        }
        if l.error == Some(super::localization::ERR_GT_DECODE) {
            res.quirks.push(Quirk::DecodeFailureNotInvalid);
        }
        if !l.details.is_empty() {
            res.metric_details
                .insert("localization".into(), Value::Object(l.details));
        }
        if l.mask_mode {
            Some("n/a")
        } else {
            l.resolved.map(CoordMode::name)
        }
    };
    match task {
        Task::Counted {
            mask,
            count,
            precise,
            fixed_half,
        } => {
            let gt_count = parse_count(get(count))?;
            // At most two spellings: the first that parses wins.
            let mut flags = [None; 2];
            for (slot, k) in flags.iter_mut().zip(precise.iter()) {
                *slot = get(k);
            }
            let precise_v = parse_flag(&flags[..precise.len().min(2)]);
            let cid = parse_flag(&[get("count_in_description")]);
            let gt_mask = find(mask);
            let loc = score_localization(&LocInput {
                pred: field("formatted_response_localization"),
                gt: as_mask(&gt_mask),
                format_type: &format_type,
                mode,
                mode_name: &mode_name,
                gt_count,
                honour_wrapped: hw,
                details: !opts.skip_metric_details,
            });
            let (cnt, counts) = score_count_with(
                field("formatted_response_count"),
                gt_count,
                precise_v,
                cid,
                hw,
                !opts.skip_metric_details,
            )?;
            res.counts = counts;
            let w_cnt = if *fixed_half {
                0.5
            } else if cid {
                0.1
            } else if precise_v {
                0.5
            } else {
                0.3
            };
            let w_loc = if *fixed_half { 0.5 } else { 1.0 - w_cnt };
            res.score = w_loc * loc.score + w_cnt * cnt.score;
            res.score_details = score_details(
                (loc.score, w_loc),
                (cnt.score, w_cnt),
                (0.0, 0.0),
                (0.0, 0.0),
            );
            errors.extend(loc.error);
            errors.extend(cnt.error);
            note_wrapped(res);
            resolved_name = finish_loc(res, loc);
            if !cnt.details.is_empty() {
                res.metric_details
                    .insert("count".into(), Value::Object(cnt.details));
            }
        }
        Task::LocOnly(mask) => {
            let gt_mask = find(mask);
            let loc = score_localization(&LocInput {
                pred: field("formatted_response_localization"),
                gt: as_mask(&gt_mask),
                format_type: &format_type,
                mode,
                mode_name: &mode_name,
                gt_count: None,
                honour_wrapped: hw,
                details: !opts.skip_metric_details,
            });
            res.score = loc.score;
            res.score_details = score_details((loc.score, 1.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0));
            errors.extend(loc.error);
            note_wrapped(res);
            resolved_name = finish_loc(res, loc);
        }
        Task::Placement => {
            let gt_mask = find("masklet_placement_region");
            let loc = score_localization(&LocInput {
                pred: field("formatted_response_localization"),
                gt: as_mask(&gt_mask),
                format_type: &format_type,
                mode,
                mode_name: &mode_name,
                gt_count: None,
                honour_wrapped: hw,
                details: !opts.skip_metric_details,
            });
            let gt_bin =
                parse_feasibility(&[get("placement_feasibility"), get("placement_feasible")]);
            let bin = score_binary(field("formatted_response_binary"), gt_bin, hw);
            res.score = 0.5 * loc.score + 0.5 * bin.score;
            res.score_details =
                score_details((loc.score, 0.5), (0.0, 0.0), (0.0, 0.0), (bin.score, 0.5));
            errors.extend(loc.error);
            errors.extend(bin.error);
            note_wrapped(res);
            resolved_name = finish_loc(res, loc);
            if !bin.details.is_empty() {
                res.metric_details
                    .insert("binary".into(), Value::Object(bin.details));
            }
        }
        Task::Path(perspective) => {
            let (walkable, target) = (find("masklet_path"), find("masklet_target_area"));
            let p = score_path(&PathInput {
                pred: field("formatted_response_path"),
                walkable: as_mask(&walkable),
                target: as_mask(&target),
                perspective: *perspective,
                mode,
                mode_name: &mode_name,
                honour_wrapped: hw,
                details: !opts.skip_metric_details,
            });
            res.score = p.score;
            res.score_details = score_details((0.0, 0.0), (0.0, 0.0), (p.score, 1.0), (0.0, 0.0));
            errors.extend(p.error);
            note_wrapped(res);
            if p.sampled_distance {
                res.quirks.push(Quirk::ExoSampledDistance);
            }
            if p.collapsed {
                res.quirks.push(Quirk::PathCollapsed);
            }
            if p.error == Some(super::path::ERR_WALKABLE) {
                res.quirks.push(Quirk::DecodeFailureNotInvalid);
            }
            let on_exo = res
                .gt_path
                .as_deref()
                .is_some_and(|g| components(g).contains(&"FeasiblePath_Exo"));
            if ty == "FeasiblePath" && on_exo {
                res.quirks.push(Quirk::UnsuffixedFeasiblePathOnExo);
            }
            resolved_name = p.resolved.map(CoordMode::name);
            if !p.details.is_empty() {
                res.metric_details
                    .insert("path".into(), Value::Object(p.details));
            }
        }
    }
    let joined = errors.join("; ");
    res.invalid_response = ["No Valid Response", "No path points parsed", "Missing"]
        .iter()
        .any(|s| joined.contains(s));
    res.error = (!joined.is_empty()).then_some(joined);
    res.response_details = ResponseDetails::Read {
        format_type,
        coordinate_system: resolved_name.map_or_else(|| mode_name.into_owned(), str::to_string),
        formatted: std::sync::Arc::new(
            FORMATTED_KEYS.map(|k| rec.get(k).map_or(Value::Null, PyValue::to_json)),
        ),
    };
    Ok(())
}
