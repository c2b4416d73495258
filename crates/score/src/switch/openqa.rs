//! OpenQA offline scoring: exact match and token F1.
//!
//! > exact match and token F1 after SQuAD-style normalisation (lower case,
//! > strip punctuation and articles, collapse spaces), taking the best over
//! > `GT` and `alias_list`; numeric answers compare as numbers; structured
//! > answers score field by field and count as exact only if every field
//! > matches.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::pattern::Regex;
use serde::Serialize;
use serde_json::{Map, Value};

use super::dataset::{Gold, Item};
use super::markup::{answer_field, json_objects, last_boxed, regex};

/// SQuAD's `normalize_answer`: lower case, drop ASCII punctuation, drop the
/// articles a/an/the, collapse white space.
///
/// ```
/// use knoblab_score::switch::openqa::normalize_answer;
/// assert_eq!(normalize_answer("The  Red, button!"), "red button");
/// ```
pub fn normalize_answer(text: &str) -> String {
    let lower = text.to_lowercase();
    let no_punct: String = lower
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    no_punct
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Exact match and token F1 of one prediction, each in [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OpenScore {
    /// Exact match, in [0, 1].
    pub em: f64,
    /// Token F1.
    pub f1: f64,
}

/// SQuAD token F1 after normalisation. When either side has no tokens the
/// score is 1 if both are empty and 0 otherwise (SQuAD v2's rule, which also
/// keeps EM ≤ F1).
pub fn token_f1(prediction: &str, gold: &str) -> f64 {
    let pred = normalize_answer(prediction);
    let gold = normalize_answer(gold);
    let p: Vec<&str> = pred.split_whitespace().collect();
    let g: Vec<&str> = gold.split_whitespace().collect();
    if p.is_empty() || g.is_empty() {
        return if p.is_empty() && g.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in &g {
        *counts.entry(t).or_default() += 1;
    }
    let mut common = 0usize;
    for t in &p {
        if let Some(c) = counts.get_mut(t) {
            if *c > 0 {
                *c -= 1;
                common += 1;
            }
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / p.len() as f64;
    let recall = common as f64 / g.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// Exact match after normalisation: 1 or 0.
pub fn exact_match(prediction: &str, gold: &str) -> f64 {
    if normalize_answer(prediction) == normalize_answer(gold) {
        1.0
    } else {
        0.0
    }
}

const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

static NUMBER: LazyLock<Regex> = LazyLock::new(|| regex(r"-?\d+(?:\.\d+)?"));

/// The numbers written in a text, digits or the words zero–twenty.
fn numbers_in(text: &str) -> Vec<f64> {
    let lower = text.to_lowercase();
    let mut found: Vec<f64> = NUMBER
        .find_iter(&lower)
        .filter_map(|m| m.as_str().parse::<f64>().ok())
        .collect();
    for word in lower.split(|c: char| !c.is_alphabetic()) {
        if let Some(n) = NUMBER_WORDS.iter().position(|w| *w == word) {
            found.push(n as f64);
        }
    }
    found
}

/// Two numbers are equal within a relative 1e-9 (answers are counts and
/// short decimals; the tolerance only absorbs float formatting).
fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Scores a text prediction against one text gold.
///
/// > numeric answers compare as numbers
///
/// **Decision:** when the gold is a number (or text that is only a number)
/// and the prediction writes exactly one number (digits, or a word from
/// zero to twenty), both EM and F1 are 1 if the numbers are equal and 0
/// otherwise ("3 times" scores against gold "3"). Otherwise the text is
/// compared.
pub fn score_text(prediction: &str, gold: &str) -> OpenScore {
    if let Ok(g) = gold.trim().parse::<f64>() {
        let mut p = numbers_in(prediction);
        p.dedup_by(|a, b| same_number(*a, *b));
        if let [only] = p.as_slice() {
            let v = if same_number(*only, g) { 1.0 } else { 0.0 };
            return OpenScore { em: v, f1: v };
        }
    }
    OpenScore {
        em: exact_match(prediction, gold),
        f1: token_f1(prediction, gold),
    }
}

/// The text of a JSON value for comparison: strings as written, numbers and
/// booleans printed, lists joined by "; ", objects as "key: value" pairs.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Array(a) => a.iter().map(value_text).collect::<Vec<_>>().join("; "),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}: {}", value_text(v)))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// Scores a structured prediction field by field against one gold object.
///
/// > structured answers score field by field and count as exact only if
/// > every field matches.
///
/// **Decision:** F1 is the mean of the fields' F1; a field the prediction
/// lacks scores 0; extra predicted fields are ignored; field names match
/// case-insensitively with spaces read as underscores.
pub fn score_structured(
    prediction: &Map<String, Value>,
    gold: &Map<String, Value>,
) -> (OpenScore, Vec<FieldScore>) {
    let mut fields = Vec::new();
    for (name, gold_value) in gold {
        let wanted = field_name(name);
        let predicted = prediction
            .iter()
            .find(|(k, _)| field_name(k) == wanted)
            .map(|(_, v)| v);
        let score = match predicted {
            Some(p) => score_text(&value_text(p), &value_text(gold_value)),
            None => OpenScore { em: 0.0, f1: 0.0 },
        };
        fields.push(FieldScore {
            field: name.clone(),
            em: score.em,
            f1: score.f1,
        });
    }
    let n = fields.len().max(1) as f64;
    let em = if !fields.is_empty() && fields.iter().all(|f| f.em == 1.0) {
        1.0
    } else {
        0.0
    };
    let f1 = fields.iter().map(|f| f.f1).sum::<f64>() / n;
    (OpenScore { em, f1 }, fields)
}

fn field_name(name: &str) -> String {
    name.trim().to_lowercase().replace([' ', '-'], "_")
}

/// One field of a structured answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldScore {
    /// The field's name.
    pub field: String,
    /// Exact match of the field, in [0, 1].
    pub em: f64,
    /// Token F1 of the field.
    pub f1: f64,
}

/// How the answer of an OpenQA reply was taken from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpenRule {
    /// The prediction's `answer` field.
    Provided,
    /// A JSON object in the reply (its `answer` field, or the object itself
    /// for structured answers).
    Json,
    /// `\boxed{…}`.
    Boxed,
    /// The text after the last "Answer:" / "Final answer:".
    AnswerLine,
    /// "field: value" lines naming the gold's fields.
    FieldLines,
    /// The whole reply.
    Whole,
}

static ANSWER_LINE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?im)^\s*(?:final\s+)?answer\s*[:：]\s*(.+)$"));

/// The text answer of a raw OpenQA reply.
///
/// **Decision:** the spec scores "the prediction"; a reply that marks its
/// answer (a JSON `answer`, `\boxed{}`, or a last "Answer: …" line) is
/// scored on that part, otherwise on the whole reply. The rule is recorded.
pub fn open_text(reply: &str) -> (String, OpenRule) {
    let cleaned = reply.replace("**", "");
    if let Some(v) = json_objects(&cleaned).iter().rev().find_map(answer_field) {
        return (value_text(v), OpenRule::Json);
    }
    if let Some(b) = last_boxed(&cleaned) {
        return (b, OpenRule::Boxed);
    }
    if let Some(c) = ANSWER_LINE.captures_iter(&cleaned).last() {
        if let Some(m) = c.get(1) {
            return (m.as_str().trim().to_string(), OpenRule::AnswerLine);
        }
    }
    (cleaned.trim().to_string(), OpenRule::Whole)
}

/// The structured answer of a raw reply, if one can be read: a JSON object
/// (its `answer` object if it has one), or "field: value" lines naming the
/// gold's fields.
pub fn open_structured(
    reply: &str,
    gold: &Map<String, Value>,
) -> Option<(Map<String, Value>, OpenRule)> {
    let objects = json_objects(reply);
    if let Some(obj) = objects.iter().rev().find_map(|o| match answer_field(o) {
        Some(Value::Object(inner)) => Some(inner.clone()),
        _ => None,
    }) {
        return Some((obj, OpenRule::Json));
    }
    if let Some(obj) = objects.last() {
        return Some((obj.clone(), OpenRule::Json));
    }
    let wanted: Vec<String> = gold.keys().map(|k| field_name(k)).collect();
    let mut map = Map::new();
    for line in reply.replace("**", "").lines() {
        let line = line.trim().trim_start_matches(['-', '*', ' ']);
        if let Some((k, v)) = line.split_once(':') {
            let name = field_name(k);
            if wanted.contains(&name) {
                map.insert(name, Value::String(v.trim().to_string()));
            }
        }
    }
    (!map.is_empty()).then_some((map, OpenRule::FieldLines))
}

/// What a prediction said, read for an OpenQA item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenOutcome {
    /// Exact match, in [0, 1].
    pub em: f64,
    /// Token F1, in [0, 1].
    pub f1: f64,
    /// How the answer was read from the reply.
    pub rule: OpenRule,
    /// The text (or object) that was scored.
    pub scored: Value,
    /// Field scores of a structured answer (against the best-scoring gold).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldScore>,
    /// A structured gold whose prediction had no readable fields.
    pub unreadable: bool,
}

/// Scores one OpenQA prediction (raw reply or provided answer) against an
/// item, taking the best EM and the best F1 over `GT` and `alias_list`.
///
/// **Decision:** for a structured gold, aliases that are objects are
/// alternative gold objects and string aliases are ignored; for a text gold,
/// string and number aliases are alternatives.
pub fn score_open(item: &Item, reply: Option<&str>, provided: Option<&Value>) -> OpenOutcome {
    match &item.gold {
        Gold::Structured(gold) => {
            let read = match (provided, reply) {
                (Some(Value::Object(o)), _) => Some((o.clone(), OpenRule::Provided)),
                (Some(Value::String(s)), _) => open_structured(s, gold),
                (_, Some(r)) => open_structured(r, gold),
                _ => None,
            };
            let mut golds = vec![gold.clone()];
            golds.extend(
                item.alias_list
                    .iter()
                    .filter_map(|a| a.as_object().cloned()),
            );
            let Some((predicted, rule)) = read else {
                return OpenOutcome {
                    em: 0.0,
                    f1: 0.0,
                    rule: OpenRule::Whole,
                    scored: Value::String(reply.unwrap_or_default().to_string()),
                    fields: Vec::new(),
                    unreadable: true,
                };
            };
            let mut best: Option<(OpenScore, Vec<FieldScore>)> = None;
            for g in &golds {
                let (score, fields) = score_structured(&predicted, g);
                let better = best
                    .as_ref()
                    .is_none_or(|(b, _)| (score.em, score.f1) > (b.em, b.f1));
                if better {
                    best = Some((score, fields));
                }
            }
            let (score, fields) = best.unwrap_or((OpenScore { em: 0.0, f1: 0.0 }, Vec::new()));
            OpenOutcome {
                em: score.em,
                f1: score.f1,
                rule,
                scored: Value::Object(predicted),
                fields,
                unreadable: false,
            }
        }
        gold => {
            let (text, rule) = match (provided, reply) {
                (Some(v), _) => (value_text(v), OpenRule::Provided),
                (None, Some(r)) => open_text(r),
                (None, None) => (String::new(), OpenRule::Whole),
            };
            let mut golds: Vec<String> = match gold {
                Gold::Text(t) => vec![t.clone()],
                Gold::Number(n) => vec![n.to_string()],
                Gold::Choice(c) => vec![c.to_string()],
                Gold::MultiSelect(s) => vec![s.iter().collect()],
                Gold::Structured(_) => Vec::new(),
            };
            golds.extend(item.alias_list.iter().filter_map(|a| match a {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            }));
            let mut em: f64 = 0.0;
            let mut f1: f64 = 0.0;
            for g in &golds {
                let s = score_text(&text, g);
                em = em.max(s.em);
                f1 = f1.max(s.f1);
            }
            OpenOutcome {
                em,
                f1,
                rule,
                scored: Value::String(text),
                fields: Vec::new(),
                unreadable: false,
            }
        }
    }
}
