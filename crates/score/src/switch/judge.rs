//! The OpenQA judge protocol as pure functions: build the request for an
//! OpenAI-compatible chat API, parse the judge's reply, check its fields,
//! detect multiple-choice contamination, decide on the one retry, and keep
//! the diagnostics. The transport is the browser's; the CLI re-scores
//! judge replies saved with the predictions (see
//! [`super::predictions::SavedJudge`]).
//!
//! > the paper's strict binary rubric. The judge sees the question, the gold
//! > answer, the rubric and the prediction, and must return one JSON object
//! > with `question_type`, `verdict`, `score` (0/1), `answer_match` (exact,
//! > paraphrase, partial, contradiction, complete_miss),
//! > `essential_missing`, `wrong_extra_info`, `too_vague`, `format_issue`,
//! > `brief_reason`.

use std::sync::LazyLock;

use crate::pattern::Regex;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::dataset::{Gold, Item};
use super::markup::{json_objects, regex};
use super::openqa::value_text;

/// The version of the prompt and rubric below; saved with judge outputs.
pub const JUDGE_PROMPT_VERSION: &str = "switch-judge/1";

/// The fields the judge must return, in order.
pub const REQUIRED_FIELDS: [&str; 9] = [
    "question_type",
    "verdict",
    "score",
    "answer_match",
    "essential_missing",
    "wrong_extra_info",
    "too_vague",
    "format_issue",
    "brief_reason",
];

/// The strict binary rubric, as the system message.
///
/// **Decision:** the paper's exact wording is not public in a form we can
/// quote; this text states its rules: binary score, paraphrase accepted,
/// partial or vague answers fail, any contradiction or wrong extra claim
/// fails, and the reply is one JSON object with the required fields.
pub const JUDGE_RUBRIC: &str = "You are a strict grader of answers about tangible control interfaces \
(appliance panels, elevators, switches). You see a question, the gold answer and a model's prediction. \
Grade with a strict binary rubric:\n\
- score 1 only if the prediction states every essential element of the gold answer (a paraphrase \
with the same meaning is fine) and asserts nothing that contradicts it;\n\
- score 0 if any essential element is missing, if the prediction is too vague to check, if it adds \
wrong information that would mislead a user, or if it contradicts the gold answer;\n\
- judge meaning, not wording or formatting; formatting problems alone do not fail an answer unless \
they make it unreadable.\n\
Reply with exactly one JSON object and nothing else, with these fields:\n\
{\"question_type\": string, \"verdict\": \"correct\" or \"incorrect\", \"score\": 0 or 1, \
\"answer_match\": one of \"exact\", \"paraphrase\", \"partial\", \"contradiction\", \"complete_miss\", \
\"essential_missing\": true/false, \"wrong_extra_info\": true/false, \"too_vague\": true/false, \
\"format_issue\": true/false, \"brief_reason\": one sentence}.";

/// How the prediction matches the gold, as the judge classifies it (the
/// paper's diagnostic table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerMatch {
    /// The prediction gives the gold answer itself (score 1).
    Exact,
    /// The same meaning in other words (score 1).
    Paraphrase,
    /// Some essential elements of the gold, not all (score 0).
    Partial,
    /// The prediction asserts something the gold answer contradicts (score 0).
    Contradiction,
    /// Nothing of the gold answer: off the point, empty or unrelated (score 0).
    CompleteMiss,
}

impl AnswerMatch {
    /// All classes, in the table's order.
    pub const ALL: [AnswerMatch; 5] = [
        AnswerMatch::Exact,
        AnswerMatch::Paraphrase,
        AnswerMatch::Partial,
        AnswerMatch::Contradiction,
        AnswerMatch::CompleteMiss,
    ];

    /// The snake-case name used in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            AnswerMatch::Exact => "exact",
            AnswerMatch::Paraphrase => "paraphrase",
            AnswerMatch::Partial => "partial",
            AnswerMatch::Contradiction => "contradiction",
            AnswerMatch::CompleteMiss => "complete_miss",
        }
    }

    fn parse(text: &str) -> Option<AnswerMatch> {
        let t = text.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        AnswerMatch::ALL.into_iter().find(|m| m.name() == t)
    }
}

/// What the judge decided about one item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JudgeVerdict {
    /// The judge's own label for the kind of question (free text).
    pub question_type: String,
    /// The judge's word, `correct` or `incorrect` as asked (free text; one that
    /// disagrees with `score` is a warning).
    pub verdict: String,
    /// The binary score: 1 correct, 0 not.
    pub score: u8,
    /// How the prediction matches the gold.
    pub answer_match: AnswerMatch,
    /// An essential element of the gold answer is missing.
    pub essential_missing: bool,
    /// The prediction adds wrong information that would mislead a user.
    pub wrong_extra_info: bool,
    /// The prediction is too vague to check.
    pub too_vague: bool,
    /// A formatting problem (does not fail an answer unless it makes it
    /// unreadable).
    pub format_issue: bool,
    /// The judge's one-sentence reason.
    pub brief_reason: String,
    /// Inconsistencies noticed in an otherwise valid reply (kept, not fatal).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Why a judge reply was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum ReplyError {
    /// No JSON object in the reply.
    #[error("no JSON object in the reply")]
    NoJson,
    /// Required fields are absent.
    #[error("missing required fields: {}", fields.join(", "))]
    MissingFields {
        /// The names of the absent fields, in [`REQUIRED_FIELDS`] order.
        fields: Vec<String>,
    },
    /// A field has a value outside what the protocol allows.
    #[error("field `{field}`: expected {expected}, found {found}")]
    BadField {
        /// The field's name.
        field: String,
        /// What the protocol allows there, in words (`0 or 1`).
        expected: String,
        /// The value found, as JSON text (empty when absent).
        found: String,
    },
}

/// > Before grading, an item that is really a multiple-choice question
/// > (mentions options or A/B/C/D, or a bare letter as gold) is flagged
/// > `multiple_choice_contamination` and scores 0 if the options are missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Contamination {
    /// Why the item reads as multiple choice.
    pub reasons: Vec<String>,
    /// Whether the options are available (option fields, or at least two
    /// option lines in the query).
    pub options_present: bool,
}

static MENTIONS_OPTIONS: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:options?|choices?|choose\s+from|select\s+from)\b"));
static LETTER_SET: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\bA\s*/\s*B\b|\bA,\s*B,\s*C\b|\([A-D]\)|\bA-D\b"));
static OPTION_LINE: LazyLock<Regex> = LazyLock::new(|| regex(r"(?m)^\s*\(?([A-E])[.):]\s+\S"));

/// Checks an OpenQA item for multiple-choice contamination.
///
/// ```
/// use knoblab_score::switch::judge::contamination_of;
/// assert!(contamination_of("Which option turns it on?", "B", false).is_some());
/// assert!(contamination_of("What does the red light mean?", "It is heating", false).is_none());
/// ```
pub fn contamination_of(
    question: &str,
    gold_text: &str,
    has_option_fields: bool,
) -> Option<Contamination> {
    let mut reasons = Vec::new();
    if MENTIONS_OPTIONS.is_match(question) {
        reasons.push("the question mentions options".to_string());
    }
    if LETTER_SET.is_match(question) {
        reasons.push("the question lists letters A/B/C/D".to_string());
    }
    let option_lines: std::collections::BTreeSet<&str> = OPTION_LINE
        .captures_iter(question)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    if option_lines.len() >= 2 {
        reasons.push("the question has lettered option lines".to_string());
    }
    let g = gold_text.trim().trim_matches(|c: char| "().".contains(c));
    if g.len() == 1 && g.chars().all(|c| c.is_ascii_alphabetic()) {
        reasons.push("the gold answer is a bare letter".to_string());
    }
    (!reasons.is_empty()).then_some(Contamination {
        reasons,
        options_present: has_option_fields || option_lines.len() >= 2,
    })
}

/// What the judge is shown about one item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeCase {
    /// The item's question, as the dataset writes it.
    pub question: String,
    /// The gold answer as text ([`gold_text`]).
    pub gold: String,
    /// The text to grade: the raw response, or the given answer as text.
    pub prediction: String,
    /// Option lines, shown when the item carries them as fields.
    pub options: Vec<String>,
    /// Set when the item reads as multiple choice ([`contamination_of`]).
    pub contamination: Option<Contamination>,
}

impl JudgeCase {
    /// The case for an item and the prediction text to grade.
    pub fn new(item: &Item, prediction: &str) -> JudgeCase {
        let gold = gold_text(&item.gold);
        let options: Vec<String> = item
            .options
            .iter()
            .map(|(l, t)| format!("{l}. {t}"))
            .collect();
        JudgeCase {
            question: item.query.clone(),
            contamination: contamination_of(&item.query, &gold, !options.is_empty()),
            gold,
            prediction: prediction.to_string(),
            options,
        }
    }

    /// > scores 0 if the options are missing: such an item is not sent to
    /// > the judge at all.
    pub fn needs_judge(&self) -> bool {
        self.contamination
            .as_ref()
            .is_none_or(|c| c.options_present)
    }

    fn user_text(&self) -> String {
        let mut text = format!("Question:\n{}\n", self.question);
        if !self.options.is_empty() {
            text.push_str(&format!("\nOptions:\n{}\n", self.options.join("\n")));
        }
        text.push_str(&format!(
            "\nGold answer:\n{}\n\nPrediction:\n{}\n\nReturn the JSON object now.",
            self.gold, self.prediction
        ));
        text
    }
}

/// The gold answer as the judge reads it.
pub fn gold_text(gold: &Gold) -> String {
    match gold {
        Gold::Choice(c) => c.to_string(),
        Gold::MultiSelect(s) => s
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        Gold::Text(t) => t.clone(),
        Gold::Number(n) => n.to_string(),
        Gold::Structured(o) => serde_json::to_string_pretty(o)
            .unwrap_or_else(|_| value_text(&Value::Object(o.clone()))),
    }
}

/// The request body for `POST {base}/chat/completions`.
///
/// **Decision:** temperature 0, no streaming, `max_tokens` 400, and no
/// `response_format` (not every OpenAI-compatible server accepts it; the
/// reply parser finds the object inside prose or code fences).
///
/// ```
/// use knoblab_score::switch::judge::build_request;
/// # use knoblab_score::switch::judge::JudgeCase;
/// let case = JudgeCase { question: "What lights up?".into(), gold: "The green LED".into(),
///     prediction: "a green light".into(), options: vec![], contamination: None };
/// let body = build_request("gpt-4o", &case);
/// assert_eq!(body["messages"][0]["role"], "system");
/// assert_eq!(body["temperature"], 0);
/// ```
pub fn build_request(model: &str, case: &JudgeCase) -> Value {
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": JUDGE_RUBRIC},
            {"role": "user", "content": case.user_text()},
        ],
        "temperature": 0,
        "max_tokens": 400,
        "stream": false,
    })
}

/// The request for the one retry: the first exchange, then a message that
/// says what was wrong with the reply.
pub fn build_retry_request(
    model: &str,
    case: &JudgeCase,
    previous_reply: &str,
    error: &ReplyError,
) -> Value {
    json!({
        "model": model,
        "messages": [
            {"role": "system", "content": JUDGE_RUBRIC},
            {"role": "user", "content": case.user_text()},
            {"role": "assistant", "content": previous_reply},
            {"role": "user", "content": format!(
                "Your reply could not be used: {error}. Reply with exactly one JSON object with the fields {}.",
                required_list()
            )},
        ],
        "temperature": 0,
        "max_tokens": 400,
        "stream": false,
    })
}

fn required_list() -> String {
    REQUIRED_FIELDS.join(", ")
}

/// The assistant text of a chat-completions response body, or the text
/// itself when it is not one (so either can be saved and parsed).
#[allow(
    clippy::disallowed_methods,
    reason = "a judge model's reply body, bounded by the HTTP reader, not a file"
)]
pub fn reply_content(body: &str) -> String {
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(body) {
        if let Some(Value::String(s)) = o
            .get("choices")
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("message"))
            .and_then(|m| m.get("content"))
        {
            return s.clone();
        }
    }
    body.to_string()
}

/// Parses a judge reply into a verdict, checking every required field.
/// Never panics, whatever the text.
///
/// ```
/// use knoblab_score::switch::judge::{parse_reply, AnswerMatch};
/// let reply = r#"```json
/// {"question_type": "state", "verdict": "correct", "score": 1, "answer_match": "paraphrase",
///  "essential_missing": false, "wrong_extra_info": false, "too_vague": false,
///  "format_issue": false, "brief_reason": "Same meaning."}
/// ```"#;
/// let v = parse_reply(reply).unwrap();
/// assert_eq!((v.score, v.answer_match), (1, AnswerMatch::Paraphrase));
/// ```
pub fn parse_reply(reply: &str) -> Result<JudgeVerdict, ReplyError> {
    let content = reply_content(reply);
    let objects = json_objects(&content);
    let obj = objects
        .iter()
        .rev()
        .find(|o| o.contains_key("score") || o.contains_key("verdict"))
        .or_else(|| objects.last())
        .ok_or(ReplyError::NoJson)?;
    let missing: Vec<String> = REQUIRED_FIELDS
        .iter()
        .filter(|f| !obj.contains_key(**f))
        .map(|f| f.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(ReplyError::MissingFields { fields: missing });
    }
    let bad = |field: &str, expected: &str| ReplyError::BadField {
        field: field.to_string(),
        expected: expected.to_string(),
        found: obj.get(field).map(|v| v.to_string()).unwrap_or_default(),
    };
    let text = |field: &str| -> Result<String, ReplyError> {
        match obj.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            _ => Err(bad(field, "a string")),
        }
    };
    let score = match obj.get("score") {
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => 0,
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => 1,
        Some(Value::String(s)) if s.trim() == "0" => 0,
        Some(Value::String(s)) if s.trim() == "1" => 1,
        _ => return Err(bad("score", "0 or 1")),
    };
    let answer_match = obj
        .get("answer_match")
        .and_then(Value::as_str)
        .and_then(AnswerMatch::parse)
        .ok_or_else(|| {
            bad(
                "answer_match",
                "one of exact, paraphrase, partial, contradiction, complete_miss",
            )
        })?;
    let flag = |field: &str| flag_value(obj, field).ok_or_else(|| bad(field, "true or false"));
    let mut verdict = JudgeVerdict {
        question_type: text("question_type")?,
        verdict: text("verdict")?,
        score,
        answer_match,
        essential_missing: flag("essential_missing")?,
        wrong_extra_info: flag("wrong_extra_info")?,
        too_vague: flag("too_vague")?,
        format_issue: flag("format_issue")?,
        brief_reason: text("brief_reason")?,
        warnings: Vec::new(),
    };
    let positive_match = matches!(answer_match, AnswerMatch::Exact | AnswerMatch::Paraphrase);
    if (score == 1) != positive_match {
        verdict.warnings.push(format!(
            "score {score} disagrees with answer_match {}",
            answer_match.name()
        ));
    }
    let said_correct = verdict.verdict.trim().eq_ignore_ascii_case("correct");
    let said_incorrect = verdict.verdict.trim().eq_ignore_ascii_case("incorrect");
    if (said_correct && score == 0) || (said_incorrect && score == 1) {
        verdict.warnings.push(format!(
            "verdict \"{}\" disagrees with score {score}",
            verdict.verdict
        ));
    }
    Ok(verdict)
}

/// **Decision:** the four diagnostic flags accept booleans, "true"/"false"/
/// "yes"/"no", and lists or strings of what is missing (non-empty = true),
/// since judges describe the missing element as often as they flag it.
fn flag_value(obj: &Map<String, Value>, field: &str) -> Option<bool> {
    match obj.get(field)? {
        Value::Bool(b) => Some(*b),
        Value::Null => Some(false),
        Value::Array(a) => Some(!a.is_empty()),
        Value::Number(n) => n.as_f64().map(|x| x != 0.0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" => Some(true),
            "false" | "no" | "none" | "" => Some(false),
            _ => Some(true),
        },
        Value::Object(_) => None,
    }
}

/// What to do after the judge's replies so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum JudgeStep {
    /// No reply yet: send [`build_request`].
    Ask,
    /// A valid verdict.
    Done {
        /// The accepted verdict.
        verdict: JudgeVerdict,
        /// Replies read to get it: 1, or 2 after the retry.
        attempts: usize,
    },
    /// > Judge replies that are not valid JSON are retried once: send
    /// > [`build_retry_request`] with this error.
    Retry {
        /// What was wrong with the first reply.
        error: ReplyError,
    },
    /// > then counted as judge failures, never silently as 0 or 1.
    Failed {
        /// What was wrong with each of the two replies, in order.
        errors: Vec<ReplyError>,
    },
}

/// Decides the next step from the replies received so far, in order.
///
/// **Decision:** any invalid reply (not JSON, a missing field or a bad
/// value) is retried once, not only unparseable text: the score would be
/// equally unusable. Replies after the second are ignored.
pub fn next_step(replies: &[String]) -> JudgeStep {
    let mut errors = Vec::new();
    for (i, reply) in replies.iter().take(2).enumerate() {
        match parse_reply(reply) {
            Ok(verdict) => {
                return JudgeStep::Done {
                    verdict,
                    attempts: i + 1,
                }
            }
            Err(e) => errors.push(e),
        }
    }
    match errors.len() {
        0 => JudgeStep::Ask,
        1 => JudgeStep::Retry {
            error: errors.remove(0),
        },
        _ => JudgeStep::Failed { errors },
    }
}

/// The judge's outcome for one OpenQA item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum JudgeOutcome {
    /// > flagged `multiple_choice_contamination` and scores 0 if the options
    /// > are missing.
    MultipleChoiceContamination {
        /// Why the item reads as multiple choice.
        reasons: Vec<String>,
    },
    /// A verdict (possibly on a flagged item whose options were present).
    Judged {
        /// The accepted verdict.
        verdict: JudgeVerdict,
        /// Replies read to get it: 1, or 2 after the retry.
        attempts: usize,
        /// Whether the item was flagged as multiple choice (and judged since
        /// its options were present).
        multiple_choice_contamination: bool,
    },
    /// Two invalid replies: a judge failure, neither 0 nor 1.
    Failed {
        /// What was wrong with each of the two replies, in order.
        errors: Vec<ReplyError>,
    },
    /// Only one invalid reply was saved; the retry is missing.
    Incomplete {
        /// What was wrong with the one saved reply.
        error: ReplyError,
    },
    /// No judge output for this item.
    NotJudged,
}

impl JudgeOutcome {
    /// The item's judged score, when it has one.
    pub fn score(&self) -> Option<u8> {
        match self {
            JudgeOutcome::MultipleChoiceContamination { .. } => Some(0),
            JudgeOutcome::Judged { verdict, .. } => Some(verdict.score),
            _ => None,
        }
    }
}

/// The outcome for an item from the replies saved for it.
pub fn outcome(case: &JudgeCase, replies: Option<&[String]>) -> JudgeOutcome {
    if !case.needs_judge() {
        return JudgeOutcome::MultipleChoiceContamination {
            reasons: case
                .contamination
                .as_ref()
                .map(|c| c.reasons.clone())
                .unwrap_or_default(),
        };
    }
    let Some(replies) = replies else {
        return JudgeOutcome::NotJudged;
    };
    match next_step(replies) {
        JudgeStep::Ask => JudgeOutcome::NotJudged,
        JudgeStep::Done { verdict, attempts } => JudgeOutcome::Judged {
            verdict,
            attempts,
            multiple_choice_contamination: case.contamination.is_some(),
        },
        JudgeStep::Retry { error } => JudgeOutcome::Incomplete { error },
        JudgeStep::Failed { errors } => JudgeOutcome::Failed { errors },
    }
}
