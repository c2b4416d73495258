//! The predictions file.
//!
//! > JSON Lines, one item a line: `task_family`, `form`, `id` (or
//! > `origin_qa_id`), and either `response` (the model's raw text) or
//! > `answer` (already extracted: a letter, a list of letters, a string, or
//! > an object). Also accept a JSON array of the same objects.
//!
//! Saved judge outputs ride on the same lines (see [`SavedJudge`]), so that
//! > A judged file can be re-scored offline.

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::{describe, InputError, InputErrors};
use super::fields::{json_records, text_of};

/// How a prediction names its item.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PredictionKey {
    /// > by `origin_qa_id` when the prediction file carries it.
    Origin(String),
    /// > keyed by (task_family, form, id). `kind` is set when the line says
    /// > which file (`"kind": "mcq"|"openqa"`, or `"file": "vqa.json"`).
    Position {
        /// The item's task family.
        task_family: String,
        /// The item's form (`img2txt`, …).
        form: String,
        /// The item's id within its file.
        id: String,
        /// Which file of the form (MCQ or OpenQA), when the line says.
        kind: Option<super::dataset::ItemKind>,
    },
}

impl std::fmt::Display for PredictionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PredictionKey::Origin(o) => write!(f, "origin_qa_id {o}"),
            PredictionKey::Position {
                task_family,
                form,
                id,
                ..
            } => write!(f, "{task_family}/{form}#{id}"),
        }
    }
}

/// What a prediction says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum PredictionContent {
    /// The model's raw text, to extract from.
    Response(String),
    /// An answer extracted already.
    Answer(Value),
}

/// Judge replies saved beside a prediction:
///
/// ```json
/// {"task_family": "recovery", "form": "img2txt", "id": 3, "response": "…",
///  "judge": {"model": "gpt-4o-2024-08-06", "prompt_version": "switch-judge/1",
///            "attempts": ["<raw reply text>", "<raw reply of the retry>"]}}
/// ```
///
/// `attempts` holds the judge's raw reply texts in order (at most two: the
/// reply and the one retry); an attempt may also be the reply's JSON object
/// itself. The core re-parses them with the same reply parser the browser
/// uses, so a saved file scores exactly as it did live.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavedJudge {
    /// The judge model, when saved.
    pub model: Option<String>,
    /// The judge prompt's version, when saved.
    pub prompt_version: Option<String>,
    /// The judge's replies, in order.
    pub attempts: Vec<String>,
}

/// One prediction line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// The 1-based line (JSON Lines) or 1-based array position.
    pub line: usize,
    /// Which item it predicts.
    pub key: PredictionKey,
    /// What it says.
    pub content: PredictionContent,
    /// The raw response when both `response` and `answer` are given.
    pub response: Option<String>,
    /// A judge's saved replies, for OpenQA items judged before.
    pub judge: Option<SavedJudge>,
    /// The model, when the line names it (`model_name` or `model`).
    pub model: Option<String>,
    /// `model_access` when the line gives it (`open_weight` | `closed_api`).
    pub model_access: Option<String>,
}

/// Reads a predictions file: JSON Lines, or one JSON array of objects.
///
/// ```
/// use knoblab_score::switch::predictions::read_predictions;
/// let text = br#"{"task_family":"vqa_task","form":"img2txt","id":0,"response":"B"}"#;
/// let preds = read_predictions("pred.jsonl", text).unwrap();
/// assert_eq!(preds[0].line, 1);
/// ```
pub fn read_predictions(file: &str, bytes: &[u8]) -> Result<Vec<Prediction>, InputErrors> {
    let (records, mut errors) = json_records(file, bytes);
    let mut predictions = Vec::new();
    for (line, value) in records {
        match parse_prediction(file, line, value) {
            Ok(p) => predictions.push(p),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors));
    }
    Ok(predictions)
}

fn parse_prediction(file: &str, line: usize, value: Value) -> Result<Prediction, InputError> {
    let record = format!("line {line}");
    let field_error = |field: &str, expected: &str, found: String| InputError::Field {
        file: file.to_string(),
        record: record.clone(),
        field: field.to_string(),
        expected: expected.to_string(),
        found,
    };
    let Value::Object(obj) = value else {
        return Err(field_error("(line)", "a JSON object", describe(&value)));
    };
    let has_position = ["task_family", "form", "id"]
        .iter()
        .all(|f| obj.get(*f).and_then(text_of).is_some());
    // **Decision:** a line for a release row may name it by `question_id`
    // (or by a lone `id` with no task family and form): both are matched
    // like `origin_qa_id`, which a release row takes from its id.
    let release_id = obj.get("question_id").and_then(text_of).or_else(|| {
        (!obj.contains_key("task_family") && !obj.contains_key("form"))
            .then(|| obj.get("id").and_then(text_of))
            .flatten()
    });
    let key = if let Some(origin) = obj.get("origin_qa_id").and_then(text_of) {
        PredictionKey::Origin(origin)
    } else if let (false, Some(id)) = (has_position, release_id) {
        PredictionKey::Origin(id)
    } else {
        let get = |f: &str| obj.get(f).and_then(text_of);
        let kind = match obj
            .get("kind")
            .or_else(|| obj.get("file"))
            .and_then(Value::as_str)
        {
            Some("mcq" | "vqa" | "vqa.json") => Some(super::dataset::ItemKind::Mcq),
            Some("openqa" | "openqa.json") => Some(super::dataset::ItemKind::OpenQa),
            _ => None,
        };
        match (get("task_family"), get("form"), get("id")) {
            (Some(task_family), Some(form), Some(id)) => PredictionKey::Position {
                task_family,
                form,
                id,
                kind,
            },
            _ => {
                return Err(field_error(
                    "task_family/form/id",
                    "`origin_qa_id`, or all of `task_family`, `form` and `id`",
                    format!(
                        "task_family = {}, form = {}, id = {}",
                        obj.get("task_family")
                            .map(describe)
                            .unwrap_or("nothing".into()),
                        obj.get("form").map(describe).unwrap_or("nothing".into()),
                        obj.get("id").map(describe).unwrap_or("nothing".into()),
                    ),
                ))
            }
        }
    };
    let response = match obj.get("response") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(field_error("response", "a string", describe(other))),
    };
    // **Decision:** when a line has both, `answer` is scored (it is what the
    // submitter extracted) and `response` is kept for display.
    let content = match (obj.get("answer"), &response) {
        (Some(a), _) if !a.is_null() => PredictionContent::Answer(a.clone()),
        (_, Some(r)) => PredictionContent::Response(r.clone()),
        _ => {
            return Err(field_error(
                "response/answer",
                "`response` (the model's raw text) or `answer` (a letter, a list of letters, a string or an object)",
                "neither".into(),
            ))
        }
    };
    let judge = match obj.get("judge") {
        None | Some(Value::Null) => None,
        Some(Value::Object(j)) => Some(
            parse_saved_judge(j)
                .map_err(|(f, e, got)| field_error(&format!("judge.{f}"), e, got))?,
        ),
        Some(other) => {
            return Err(field_error(
                "judge",
                "an object {\"model\", \"attempts\": [reply, ...]}",
                describe(other),
            ))
        }
    };
    let response = match content {
        PredictionContent::Answer(_) => response,
        PredictionContent::Response(_) => None,
    };
    let string = |f: &str| obj.get(f).and_then(Value::as_str).map(str::to_string);
    Ok(Prediction {
        line,
        key,
        content,
        response,
        judge,
        model: string("model_name").or_else(|| string("model")),
        model_access: string("model_access"),
    })
}

fn parse_saved_judge(
    j: &Map<String, Value>,
) -> Result<SavedJudge, (&'static str, &'static str, String)> {
    let attempts = match j.get("attempts") {
        Some(Value::Array(a)) if !a.is_empty() && a.len() <= 2 => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                Value::Object(_) => Ok(x.to_string()),
                other => Err(("attempts", "reply strings or objects", describe(other))),
            })
            .collect::<Result<Vec<_>, _>>()?,
        other => {
            return Err((
                "attempts",
                "a list of one or two judge replies (the reply and its one retry)",
                other.map(describe).unwrap_or("nothing".into()),
            ))
        }
    };
    Ok(SavedJudge {
        model: j.get("model").and_then(Value::as_str).map(str::to_string),
        prompt_version: j
            .get("prompt_version")
            .and_then(Value::as_str)
            .map(str::to_string),
        attempts,
    })
}
