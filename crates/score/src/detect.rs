//! Results-file detection: what a dropped file is, before anything is
//! scored. The page shows the answer ("detected: EPIC-Bench raw outputs,
//! 184 samples"), lets the user override it, and routes ground-truth files
//! beside the results; the CLI uses the same size limit.
//!
//! Detection reads only the file's name and a bounded prefix of its lines,
//! and never panics: it runs on anything a user drops (and under a fuzzer).
//!
//! ```
//! use knoblab_score::detect::{detect, Format};
//! let line = br#"{"response": "{\"bounding_boxes\": []}", "images": [{"path": "a.jpg"}]}"#;
//! let d = detect("run.jsonl", line).unwrap();
//! assert_eq!(d.format, Format::EpicRaw);
//! assert_eq!(d.label(), "EPIC-Bench raw outputs, 1 sample");
//! assert!(detect("x.jsonl", b"hello").unwrap_err().to_string().contains("x.jsonl"));
//! ```

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use super::limits::MAX_RESULTS_FILE_BYTES;
use knoblab_core::input::limits::human_bytes;

/// Why a dropped file is not one KnobLab can score. Each message names the
/// file and says what was found and what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DetectError {
    /// The file is over [`MAX_RESULTS_FILE_BYTES`].
    #[error(
        "{path}: the file takes {}; at most {} is read (a results or data file larger than that is \
         refused before reading); split it",
        human_bytes(*size),
        human_bytes(MAX_RESULTS_FILE_BYTES)
    )]
    TooLarge {
        /// The file's name.
        path: String,
        /// Its size in bytes.
        size: u64,
    },
    /// The file holds nothing (or only white space).
    #[error("{path}: the file is empty")]
    Empty {
        /// The file's name.
        path: String,
    },
    /// The file is of no format KnobLab knows.
    #[error(
        "{path}: not a results file KnobLab knows ({found}); expected EPIC-Bench raw outputs, \
         std_format or *_full.json; FineState-Bench *_results.json, result_<i>.json or JSON Lines; \
         SWITCH predictions or video judgements; or KnobLab trajectories (JSON Lines)"
    )]
    Unknown {
        /// The file's name.
        path: String,
        /// What it holds instead, in a few words.
        found: String,
    },
}

/// How many non-empty lines of a JSON Lines file decide its format.
const PROBE_LINES: usize = 20;

/// The benchmark a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Benchmark {
    /// EPIC-Bench (grounding boxes and points).
    Epic,
    /// FineState-Bench (locating and interacting with fine-grained states).
    FineState,
    /// SWITCH (questions and control of device states).
    Switch,
    /// KnobLab trajectories (VGEBench metrics).
    Trajectories,
}

impl Benchmark {
    /// The benchmark's display name.
    pub fn name(self) -> &'static str {
        match self {
            Benchmark::Epic => "EPIC-Bench",
            Benchmark::FineState => "FineState-Bench",
            Benchmark::Switch => "SWITCH",
            Benchmark::Trajectories => "KnobLab trajectories",
        }
    }
}

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// ms-swift or lmms-eval raw outputs (`{"response", "images"}` lines).
    EpicRaw,
    /// std_format JSON Lines (or a JSON array).
    EpicStd,
    /// An official `*_full.json` score file.
    EpicScores,
    /// An official `<model>_results.json` (a JSON array of result objects).
    FineStateResults,
    /// One official `result_<i>.json`.
    FineStateResultFile,
    /// JSON Lines of `{platform, image, locate/interact or p0/p1}`.
    FineStateLines,
    /// SWITCH predictions (JSON Lines or a JSON array).
    SwitchPredictions,
    /// SWITCH generated-video judge outputs.
    SwitchVideoJudge,
    /// KnobLab trajectories, one episode a line.
    Trajectories,
    /// An EPIC-Bench `*_mask_rle.json` ground-truth file.
    EpicGroundTruth,
    /// A FineState-Bench annotation file.
    FineStateAnnotations,
    /// A SWITCH `vqa.json`, `openqa.json` or manifest.
    SwitchGroundTruth,
    /// A zip archive (a ground-truth tree).
    Zip,
    /// A picture (drill-down images; FineState checks they exist).
    Image,
}

impl Format {
    /// Every format, for the override menu.
    pub const ALL: [Format; 14] = [
        Format::EpicRaw,
        Format::EpicStd,
        Format::EpicScores,
        Format::FineStateResults,
        Format::FineStateResultFile,
        Format::FineStateLines,
        Format::SwitchPredictions,
        Format::SwitchVideoJudge,
        Format::Trajectories,
        Format::EpicGroundTruth,
        Format::FineStateAnnotations,
        Format::SwitchGroundTruth,
        Format::Zip,
        Format::Image,
    ];

    /// The results formats (what can be scored), for the override menu.
    pub fn results() -> impl Iterator<Item = Format> {
        Format::ALL.into_iter().filter(|f| f.scores().is_some())
    }

    /// The benchmark whose results this is; `None` for ground truth and
    /// other supporting files.
    pub fn scores(self) -> Option<Benchmark> {
        match self {
            Format::EpicRaw | Format::EpicStd | Format::EpicScores => Some(Benchmark::Epic),
            Format::FineStateResults | Format::FineStateResultFile | Format::FineStateLines => {
                Some(Benchmark::FineState)
            }
            Format::SwitchPredictions | Format::SwitchVideoJudge => Some(Benchmark::Switch),
            Format::Trajectories => Some(Benchmark::Trajectories),
            _ => None,
        }
    }

    /// A stable name (the override menu's value, JSON).
    pub fn key(self) -> &'static str {
        match self {
            Format::EpicRaw => "epic_raw",
            Format::EpicStd => "epic_std",
            Format::EpicScores => "epic_scores",
            Format::FineStateResults => "fine_state_results",
            Format::FineStateResultFile => "fine_state_result_file",
            Format::FineStateLines => "fine_state_lines",
            Format::SwitchPredictions => "switch_predictions",
            Format::SwitchVideoJudge => "switch_video_judge",
            Format::Trajectories => "trajectories",
            Format::EpicGroundTruth => "epic_ground_truth",
            Format::FineStateAnnotations => "fine_state_annotations",
            Format::SwitchGroundTruth => "switch_ground_truth",
            Format::Zip => "zip",
            Format::Image => "image",
        }
    }

    /// The format with this [`Format::key`].
    pub fn from_key(key: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.key() == key)
    }

    /// What the format is called, and what its items are called.
    pub fn describe(self) -> (&'static str, &'static str) {
        match self {
            Format::EpicRaw => ("EPIC-Bench raw outputs", "sample"),
            Format::EpicStd => ("EPIC-Bench std_format", "sample"),
            Format::EpicScores => ("EPIC-Bench official score file", "sample"),
            Format::FineStateResults => ("FineState-Bench official results", "instance"),
            Format::FineStateResultFile => ("FineState-Bench result file", "instance"),
            Format::FineStateLines => ("FineState-Bench JSON Lines predictions", "instance"),
            Format::SwitchPredictions => ("SWITCH predictions", "item"),
            Format::SwitchVideoJudge => ("SWITCH video judgements", "video"),
            Format::Trajectories => ("KnobLab trajectories", "episode"),
            Format::EpicGroundTruth => ("EPIC-Bench ground-truth mask", "file"),
            Format::FineStateAnnotations => ("FineState-Bench annotations", "record"),
            Format::SwitchGroundTruth => ("SWITCH ground truth", "item"),
            Format::Zip => ("zip archive", "entry"),
            Format::Image => ("image", "file"),
        }
    }
}

/// The answer of [`detect`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Detected {
    /// What the file was found to be.
    pub format: Format,
    /// Samples, instances, items or episodes (lines or array entries).
    pub items: usize,
    /// What looks wrong without preventing a try (a truncated last line).
    pub warnings: Vec<String>,
}

impl Detected {
    /// "EPIC-Bench raw outputs, 184 samples".
    pub fn label(&self) -> String {
        let (name, item) = self.format.describe();
        let s = if self.items == 1 { "" } else { "s" };
        format!("{name}, {} {item}{s}", self.items)
    }
}

/// The file name without its folders.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn has_extension(name: &str, extensions: &[&str]) -> bool {
    let lower = name.to_ascii_lowercase();
    extensions.iter().any(|e| lower.ends_with(e))
}

/// Formats recognised by the file name or magic bytes alone.
fn by_name(path: &str, bytes: &[u8]) -> Option<Format> {
    let name = base_name(path);
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return Some(Format::Zip);
    }
    if bytes.starts_with(b"\x89PNG")
        || bytes.starts_with(b"\xff\xd8\xff")
        || has_extension(name, &[".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"])
    {
        return Some(Format::Image);
    }
    if name.ends_with("_mask_rle.json") {
        return Some(Format::EpicGroundTruth);
    }
    if matches!(
        name,
        "vqa.json" | "openqa.json" | "dataset_manifest.json" | "form_matrix.json"
    ) || crate::switch::release::is_rows_file(name)
        || crate::switch::release::is_answers_file(name)
    {
        // The public release's rows (`data.jsonl`) and answers files are
        // SWITCH ground truth by name: their rows carry `task_family` and
        // `id` like predictions do. (Its `summary.json` is not needed, and
        // the name is too common to claim.)
        return Some(Format::SwitchGroundTruth);
    }
    None
}

/// What one JSON object looks like it belongs to.
fn classify_object(v: &Value) -> Option<Format> {
    let o = v.as_object()?;
    let has = |k: &str| o.contains_key(k);
    if has("summary") && has("details") {
        return Some(Format::EpicScores);
    }
    if has("interaction_prediction") || (has("image_path") && has("locate_results")) {
        return Some(Format::FineStateResultFile);
    }
    // A release row (a question with options or an answer, no response)
    // under another name is ground truth, not a prediction.
    if !has("response")
        && (has("question") || has("query"))
        && (has("options") || has("choices") || has("GT") || has("label"))
        && (has("task_family") || has("question_id") || has("id"))
    {
        return Some(Format::SwitchGroundTruth);
    }
    if has("task_family") && (has("id") || has("origin_qa_id")) {
        return Some(Format::SwitchPredictions);
    }
    if (has("origin_qa_id") || has("question_id")) && (has("response") || has("answer")) {
        return Some(Format::SwitchPredictions);
    }
    if has("scene_fidelity") || has("control_correctness") {
        return Some(Format::SwitchVideoJudge);
    }
    if has("bundle_id") && has("logic_hash") && has("steps") {
        return Some(Format::Trajectories);
    }
    if has("task_category") || has("formatted_response_localization") {
        return Some(Format::EpicStd);
    }
    if has("response") {
        return Some(Format::EpicRaw);
    }
    if has("image") && (has("locate") || has("interact") || has("p0") || has("p1")) {
        return Some(Format::FineStateLines);
    }
    if has("processing_details") || has("loactebbox") || (has("image") && has("component")) {
        return Some(Format::FineStateAnnotations);
    }
    None
}

/// A short, safe excerpt of what was found, for messages.
fn excerpt(text: &str) -> String {
    let t: String = text.trim().chars().take(60).collect();
    if t.is_empty() {
        "nothing but whitespace".into()
    } else {
        format!("{t:?}")
    }
}

fn unknown(path: &str, found: &str) -> DetectError {
    DetectError::Unknown {
        path: path.to_string(),
        found: found.to_string(),
    }
}

/// Detects what a dropped file is, from its name and bytes.
///
/// Errors name the file and list the formats that would be valid.
#[allow(
    clippy::disallowed_methods,
    reason = "format probing of bytes the input layer already read; a document of any shape, duplicate keys included, is only looked at to name its format"
)]
pub fn detect(path: &str, bytes: &[u8]) -> Result<Detected, DetectError> {
    check_size(path, bytes.len() as u64)?;
    // Whatever the name promises, an empty file holds nothing to score.
    if bytes.is_empty() {
        return Err(DetectError::Empty {
            path: path.to_string(),
        });
    }
    if let Some(format) = by_name(path, bytes) {
        let items = match format {
            Format::SwitchGroundTruth => count_switch_items(base_name(path), bytes),
            _ => 1,
        };
        return Ok(Detected {
            format,
            items,
            warnings: Vec::new(),
        });
    }
    let text =
        knoblab_core::input::text::decode(bytes).map_err(|e| unknown(path, &e.to_string()))?;
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return Err(DetectError::Empty {
            path: path.to_string(),
        });
    }
    // One JSON document (an object or an array)?
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        return detect_document(path, &doc);
    }
    detect_lines(path, text)
}

/// Refuses a file over [`MAX_RESULTS_FILE_BYTES`] by its size alone, before it
/// is read (the page passes `File.size`, the CLI the file's metadata).
pub fn check_size(path: &str, size: u64) -> Result<(), DetectError> {
    if size > MAX_RESULTS_FILE_BYTES {
        Err(too_large(path, size))
    } else {
        Ok(())
    }
}

/// The error for a file over [`MAX_RESULTS_FILE_BYTES`].
pub fn too_large(path: &str, size: u64) -> DetectError {
    DetectError::TooLarge {
        path: path.to_string(),
        size,
    }
}

fn detect_document(path: &str, doc: &Value) -> Result<Detected, DetectError> {
    let found = |format, items| {
        Ok(Detected {
            format,
            items,
            warnings: Vec::new(),
        })
    };
    match doc {
        Value::Array(items) => {
            let format = items
                .iter()
                .take(PROBE_LINES)
                .find_map(classify_object)
                .ok_or_else(|| {
                    unknown(
                        path,
                        &format!("a JSON array of {} entries of no known kind", items.len()),
                    )
                })?;
            let format = match format {
                Format::FineStateResultFile => Format::FineStateResults,
                other => other,
            };
            found(format, items.len())
        }
        Value::Object(o) => match classify_object(doc) {
            Some(Format::EpicScores) => {
                let n = doc
                    .pointer("/details/by_samples")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                found(Format::EpicScores, n)
            }
            Some(format) => found(format, 1),
            None => {
                let keys: Vec<&str> = o.keys().take(6).map(String::as_str).collect();
                Err(unknown(
                    path,
                    &format!("a JSON object with keys {}", keys.join(", ")),
                ))
            }
        },
        other => Err(unknown(path, &format!("a JSON {}", json_kind(other)))),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "format probing of bytes the input layer already read; a document of any shape, duplicate keys included, is only looked at to name its format"
)]
fn detect_lines(path: &str, text: &str) -> Result<Detected, DetectError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let mut format = None;
    let mut bad = Vec::new();
    for (i, line) in lines.iter().take(PROBE_LINES) {
        match serde_json::from_str::<Value>(line) {
            Ok(v) => {
                if format.is_none() {
                    format = classify_object(&v);
                }
            }
            Err(_) => bad.push(i + 1),
        }
    }
    let Some(format) = format else {
        let first = lines.first().map_or("", |(_, l)| l);
        return Err(unknown(path, &excerpt(first)));
    };
    let mut warnings = Vec::new();
    // The last line is where a cut-off download shows.
    if let Some((i, last)) = lines.last() {
        if lines.len() > PROBE_LINES && serde_json::from_str::<Value>(last).is_err() {
            bad.push(i + 1);
        }
    }
    if !bad.is_empty() {
        let shown: Vec<String> = bad.iter().take(5).map(usize::to_string).collect();
        warnings.push(format!(
            "line{} {} {} not JSON (a truncated file?)",
            if bad.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if bad.len() == 1 { "is" } else { "are" }
        ));
    }
    Ok(Detected {
        format,
        items: lines.len(),
        warnings,
    })
}

/// Items in a SWITCH `vqa.json`/`openqa.json` (`{"data": [...]}`), or
/// lines of a release `data.jsonl` or answers file; 0 for the manifests.
#[allow(
    clippy::disallowed_methods,
    reason = "format probing of bytes the input layer already read; a document of any shape, duplicate keys included, is only looked at to name its format"
)]
fn count_switch_items(name: &str, bytes: &[u8]) -> usize {
    use crate::switch::release::{is_answers_file, is_rows_file};
    // A rows or answers file of one line parses as one object: one row.
    let rows = is_rows_file(name) || is_answers_file(name);
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => v
            .get("data")
            .and_then(Value::as_array)
            .map(Vec::len)
            .or_else(|| v.as_array().map(Vec::len))
            .unwrap_or(usize::from(rows && v.is_object())),
        Err(_) => String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count(),
    }
}

#[cfg(test)]
mod tests;
