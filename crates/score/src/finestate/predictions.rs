//! Reading predictions: the official `<model>_results.json` (a list of result
//! objects), `result_<i>.json` files (one result object each), or JSON Lines
//! of `{platform, image, locate, interact}` (raw reply texts) or
//! `{platform, image, p0, p1}` (points in 0–1). Official result objects are
//! re-parsed from their raw `response` fields, so the parser build and the
//! model name can be changed after the fact.

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use super::evaluate::Reply;
use super::loader::Platform;
use super::python::py_strip;

/// One instance's replies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// The platform (mobile, web, desktop), when the file says.
    pub platform: Option<Platform>,
    /// The annotation's image field, the official `image_path`, or a stem.
    pub image: String,
    /// `None`: no reply for this query (not sent, or it raised).
    pub locate: Option<Reply>,
    /// The INTERACT reply (`None` as for `locate`).
    pub interact: Option<Reply>,
    /// Where it came from (`file:line` or file name).
    pub source: String,
    /// For official result objects: whether the run had the VDA hint (a
    /// detector's `component_detection`, or the hint block in a prompt).
    pub hinted: Option<bool>,
    /// For official result objects: the model name in `config`, if known.
    pub model: Option<String>,
}

/// What kind of predictions file was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PredictionFormat {
    /// An official `<model>_results.json` (a list of result objects).
    OfficialResults,
    /// Official `result_<i>.json` files, one instance each.
    ResultFiles,
    /// JSON Lines of `{platform, image, locate, interact}` or `{…, p0, p1}`.
    JsonLines,
}

/// Why one result object or JSON Lines record could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    /// A result is not a JSON object.
    #[error("result is not a JSON object")]
    ResultNotObject,
    /// A result has no `image_path`.
    #[error("result has no `image_path`")]
    NoImagePath,
    /// A line is not a JSON object.
    #[error("line is not a JSON object")]
    LineNotObject,
    /// A line has neither `image` nor `key`.
    #[error("line has no `image`")]
    NoImage,
    /// A line names a platform other than mobile, web or desktop.
    #[error("unknown platform `{0}`")]
    UnknownPlatform(String),
    /// A line's `platform` is not a string.
    #[error("`platform` is not a string")]
    PlatformNotText,
    /// A point (`p0`, `p1`) holds something other than two numbers.
    #[error("`{field}`: point values are not numbers")]
    PointNotNumbers {
        /// The field.
        field: String,
    },
    /// A point is a list, but not of two items.
    #[error("`{field}`: a point must be [x, y]")]
    PointLength {
        /// The field.
        field: String,
    },
    /// A point is neither a list nor null.
    #[error("`{field}`: a point must be [x, y] or null")]
    PointShape {
        /// The field.
        field: String,
    },
    /// The line or file is not JSON.
    #[error("not JSON: {0}")]
    Json(knoblab_core::input::json::JsonError),
}

/// A line or entry that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PredictionProblem {
    /// Where it is (`file:line` or the file name).
    pub source: String,
    /// Why it could not be used.
    pub message: String,
}

impl PredictionProblem {
    /// The problem of the record at `source`: `error`'s message, kept as
    /// text in the report.
    pub fn new(source: String, error: &RecordError) -> PredictionProblem {
        PredictionProblem {
            source,
            message: error.to_string(),
        }
    }
}

/// All predictions of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PredictionSet {
    /// What kind of file it was.
    pub format: PredictionFormat,
    /// Every instance's replies, in file order.
    pub predictions: Vec<Prediction>,
    /// The lines or entries that could not be used.
    pub problems: Vec<PredictionProblem>,
}

impl PredictionSet {
    /// Whether to score as a VDA run, and a warning when the choice and
    /// the files disagree: a run is VDA when asked (`asked`, the CLI's
    /// `--vda`) or when its result files show the hint; JSON Lines show
    /// none, so they follow the choice. The page asks nothing, so a hint
    /// alone decides there.
    pub fn vda(&self, asked: bool) -> (bool, Option<String>) {
        match (asked, self.hinted()) {
            (true, Some(false)) => (
                true,
                Some("--vda given, but the result files show no VDA hint".to_string()),
            ),
            (false, Some(true)) => (
                true,
                Some("the result files show the VDA hint; scoring as a VDA run".to_string()),
            ),
            (asked, _) => (asked, None),
        }
    }

    /// `Some(true)` if any official result object shows the VDA hint,
    /// `Some(false)` if they all show none, `None` for JSON Lines.
    pub fn hinted(&self) -> Option<bool> {
        let mut seen = None;
        for p in &self.predictions {
            match p.hinted {
                Some(true) => return Some(true),
                Some(false) => seen = Some(false),
                None => {}
            }
        }
        seen
    }
}

/// Why a predictions file could not be read at all.
#[derive(Debug, Error)]
pub enum PredictionError {
    /// The text breaks a rule of the input layer (a key twice in one
    /// object, named with both positions).
    #[error("`{name}`: {reason}")]
    Refused {
        /// The file's name.
        name: String,
        /// The rule broken, and where.
        reason: String,
    },
    /// The file is not UTF-8 text.
    #[error("`{name}` is not UTF-8 text: {reason}")]
    NotText {
        /// The file's name.
        name: String,
        /// The decoder's message.
        reason: String,
    },
    /// The file holds nothing.
    #[error(
        "`{name}` holds no predictions: expected a results list, a result object or JSON Lines"
    )]
    Empty {
        /// The file's name.
        name: String,
    },
    /// One JSON object of no known shape.
    #[error(
        "`{name}` is one JSON object with keys {keys}, not a FineState results file: \
         expected `<model>_results.json` (a list of result objects), a `result_<i>.json` \
         object (with `interaction_prediction`), or JSON Lines of \
         {{platform, image, locate, interact}} or {{platform, image, p0, p1}}"
    )]
    WrongShape {
        /// The file's name.
        name: String,
        /// The object's first keys.
        keys: String,
    },
    #[error(
        "no line of `{name}` could be read ({count} problems); the first: {first}. \
         Expected JSON Lines of {{platform, image, locate, interact}} or {{platform, image, p0, p1}}"
    )]
    /// JSON Lines of which no line could be read.
    NothingReadable {
        /// The file's name.
        name: String,
        /// How many lines failed.
        count: usize,
        /// The first failure.
        first: String,
    },
}

fn reply_of(value: Option<&Value>) -> Option<Reply> {
    match value? {
        Value::Null => None,
        Value::String(s) => Some(Reply::Text(s.clone())),
        other => Some(Reply::Json(other.clone())),
    }
}

/// The reply of a `*_results` entry: `None` when the entry is null (the query
/// was not sent or raised).
fn result_reply(entry: Option<&Value>) -> Option<Reply> {
    let entry = entry?.as_object()?;
    Some(match entry.get("response") {
        Some(Value::String(s)) => Reply::Text(s.clone()),
        Some(other) => Reply::Json(other.clone()),
        None => Reply::Json(Value::Null),
    })
}

fn has_hint(result: &Value) -> bool {
    let detection = result
        .get("component_detection")
        .and_then(Value::as_object)
        .is_some_and(|o| !o.is_empty());
    let ip = result.get("interaction_prediction");
    let prompt_hint = ["locate_results", "interact_results"].iter().any(|k| {
        ip.and_then(|ip| ip.get(*k))
            .and_then(|r| r.get("prompt"))
            .and_then(Value::as_str)
            .is_some_and(|p| p.contains("COMPONENT INFORMATION:"))
    });
    detection || prompt_hint
}

/// One official result object (spec §8.3).
pub fn from_result_object(value: &Value, source: &str) -> Result<Prediction, RecordError> {
    let obj = value.as_object().ok_or(RecordError::ResultNotObject)?;
    let image = obj
        .get("image_path")
        .and_then(Value::as_str)
        .ok_or(RecordError::NoImagePath)?;
    let ip = obj.get("interaction_prediction");
    let field = |k: &str| {
        ip.and_then(|ip| ip.get(k))
            .filter(|v| !v.is_null())
            .or_else(|| obj.get(k))
    };
    Ok(Prediction {
        platform: None,
        image: image.to_string(),
        locate: result_reply(field("locate_results")),
        interact: result_reply(field("interact_results")),
        source: source.to_string(),
        hinted: Some(has_hint(value)),
        model: None,
    })
}

/// The point in `field` (`p0`, `p1`), `None` for null or `[]`.
fn point_of(field: &str, value: &Value) -> Result<Option<[f64; 2]>, RecordError> {
    let field = || field.to_string();
    match value {
        Value::Null => Ok(None),
        Value::Array(a) if a.is_empty() => Ok(None),
        Value::Array(a) => match a.as_slice() {
            [x, y] => match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => Ok(Some([x, y])),
                _ => Err(RecordError::PointNotNumbers { field: field() }),
            },
            _ => Err(RecordError::PointLength { field: field() }),
        },
        _ => Err(RecordError::PointShape { field: field() }),
    }
}

/// One JSON Lines record.
fn from_line(value: &Value, source: &str) -> Result<Prediction, RecordError> {
    let obj = value.as_object().ok_or(RecordError::LineNotObject)?;
    if obj.contains_key("image_path") && obj.contains_key("interaction_prediction") {
        return from_result_object(value, source);
    }
    let image = obj
        .get("image")
        .or_else(|| obj.get("key"))
        .and_then(Value::as_str)
        .ok_or(RecordError::NoImage)?;
    let platform = match obj.get("platform") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            Some(Platform::parse(s).ok_or_else(|| RecordError::UnknownPlatform(s.clone()))?)
        }
        Some(_) => return Err(RecordError::PlatformNotText),
    };
    let point = |k: &str| -> Result<Option<Reply>, RecordError> {
        match obj.get(k) {
            None => Ok(None),
            Some(v) => Ok(Some(Reply::Point(point_of(k, v)?))),
        }
    };
    let locate = match point("p0")? {
        Some(p) => Some(p),
        None => reply_of(obj.get("locate")),
    };
    let interact = match point("p1")? {
        Some(p) => Some(p),
        None => reply_of(obj.get("interact")),
    };
    Ok(Prediction {
        platform,
        image: image.to_string(),
        locate,
        interact,
        source: source.to_string(),
        hinted: None,
        model: None,
    })
}

/// Reads one predictions file: a results list, one result object, or JSON
/// Lines (detected from the content).
pub fn read_predictions(name: &str, bytes: &[u8]) -> Result<PredictionSet, PredictionError> {
    // The one decoding rule of the input layer: BOM stripped, UTF-16 named,
    // invalid UTF-8 located.
    let text = knoblab_core::input::text::decode(bytes).map_err(|e| PredictionError::NotText {
        name: name.to_string(),
        reason: e.to_string(),
    })?;
    // A key twice in one object (two `interaction_prediction`s, two
    // images in one record) is refused with both positions: which one
    // counts would not be defined.
    knoblab_core::input::json::check_unique_keys(text).map_err(|e| PredictionError::Refused {
        name: name.to_string(),
        reason: e.to_string(),
    })?;
    let mut set = PredictionSet {
        format: PredictionFormat::JsonLines,
        predictions: Vec::new(),
        problems: Vec::new(),
    };
    match knoblab_core::input::json::from_text::<Value>(text) {
        Ok(Value::Array(items)) => {
            set.format = PredictionFormat::OfficialResults;
            for (i, item) in items.iter().enumerate() {
                let source = format!("{name}[{i}]");
                match from_result_object(item, &source) {
                    Ok(p) => set.predictions.push(p),
                    Err(e) => set.problems.push(PredictionProblem::new(source, &e)),
                }
            }
        }
        Ok(value @ Value::Object(_)) if value.get("interaction_prediction").is_some() => {
            set.format = PredictionFormat::ResultFiles;
            match from_result_object(&value, name) {
                Ok(p) => set.predictions.push(p),
                Err(e) => set
                    .problems
                    .push(PredictionProblem::new(name.to_string(), &e)),
            }
        }
        // One object over several lines is a document of some other kind;
        // reading it line by line would only list every line as a problem.
        Ok(Value::Object(map)) if text.lines().filter(|l| !l.trim().is_empty()).count() > 1 => {
            let mut keys: Vec<&str> = map.keys().map(String::as_str).take(8).collect();
            if map.len() > keys.len() {
                keys.push("…");
            }
            return Err(PredictionError::WrongShape {
                name: name.to_string(),
                keys: keys.join(", "),
            });
        }
        _ => {
            for (i, line) in text.lines().enumerate() {
                let line = py_strip(line);
                if line.is_empty() {
                    continue;
                }
                let source = format!("{name}:{}", i + 1);
                let parsed = knoblab_core::input::json::from_text::<Value>(line)
                    .map_err(RecordError::Json)
                    .and_then(|v| from_line(&v, &source));
                match parsed {
                    Ok(p) => set.predictions.push(p),
                    Err(e) => set.problems.push(PredictionProblem::new(source, &e)),
                }
            }
        }
    }
    if set.predictions.is_empty() {
        return Err(match set.problems.first() {
            None => PredictionError::Empty {
                name: name.to_string(),
            },
            Some(first) => PredictionError::NothingReadable {
                name: name.to_string(),
                count: set.problems.len(),
                first: format!("{}: {}", first.source, first.message),
            },
        });
    }
    Ok(set)
}

/// Reads a folder of `result_<i>.json` files, given as (name, bytes) pairs.
pub fn read_result_files(files: &[(String, Vec<u8>)]) -> PredictionSet {
    let mut set = PredictionSet {
        format: PredictionFormat::ResultFiles,
        predictions: Vec::new(),
        problems: Vec::new(),
    };
    let mut sorted: Vec<&(String, Vec<u8>)> = files.iter().collect();
    sorted.sort_by_key(|(name, _)| result_number(name));
    for (name, bytes) in sorted {
        let parsed = knoblab_core::input::json::from_bytes::<Value>(bytes)
            .map_err(RecordError::Json)
            .and_then(|v| from_result_object(&v, name));
        match parsed {
            Ok(p) => set.predictions.push(p),
            Err(e) => set.problems.push(PredictionProblem::new(name.clone(), &e)),
        }
    }
    set
}

/// The `<i>` of `result_<i>.json` (files without one sort last).
pub fn result_number(name: &str) -> usize {
    super::python::stem(name)
        .strip_prefix("result_")
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(hints: &[Option<bool>]) -> PredictionSet {
        PredictionSet {
            format: PredictionFormat::OfficialResults,
            predictions: hints
                .iter()
                .map(|&hinted| Prediction {
                    platform: None,
                    image: String::new(),
                    locate: None,
                    interact: None,
                    source: String::new(),
                    hinted,
                    model: None,
                })
                .collect(),
            problems: Vec::new(),
        }
    }

    #[test]
    fn vda_is_asked_or_hinted_and_a_disagreement_is_said() {
        let (hinted, unhinted, lines) = (
            set(&[Some(false), Some(true)]),
            set(&[Some(false)]),
            set(&[None]),
        );
        assert!(hinted.vda(false).0);
        assert!(hinted.vda(false).1.unwrap().contains("show the VDA hint"));
        assert_eq!(hinted.vda(true), (true, None));
        assert_eq!(unhinted.vda(false), (false, None));
        let (vda, warning) = unhinted.vda(true);
        assert!(vda && warning.unwrap().contains("no VDA hint"));
        // JSON Lines carry no hint: the choice decides, silently.
        assert_eq!(lines.vda(false), (false, None));
        assert_eq!(lines.vda(true), (true, None));
    }
}
