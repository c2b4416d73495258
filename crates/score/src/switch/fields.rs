//! What the SWITCH readers read the same way (the ground truth, the
//! release's rows, predictions and video-judge outputs): a file's JSON
//! records, a field that may be a string or a number, an item's gold
//! answer, and the fields of an item every format writes alike.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::dataset::{Gold, Item, ItemKey, ItemKind, Split};
use super::error::{layer_json_error, InputError};

/// The records of a JSON Lines file (1-based line numbers; blank lines
/// skipped) or of one JSON array (1-based positions), and a JSON error for
/// each line that does not parse.
pub(crate) fn json_records(file: &str, bytes: &[u8]) -> (Vec<(usize, Value)>, Vec<InputError>) {
    // The input layer's decoding rule: BOM stripped, UTF-16 named, invalid
    // UTF-8 located (never replaced silently).
    let text = match knoblab_core::input::text::decode(bytes) {
        Ok(text) => text,
        Err(e) => {
            let error = InputError::Io {
                file: file.to_string(),
                message: e.to_string(),
            };
            return (Vec::new(), vec![error]);
        }
    };
    let mut records = Vec::new();
    let mut errors = Vec::new();
    if text.trim_start().starts_with('[') {
        // Through the input layer: a key twice in one object is refused
        // with both positions (serde_json would keep the last silently).
        match knoblab_core::input::json::from_text::<Vec<Value>>(text) {
            Ok(list) => records.extend(list.into_iter().enumerate().map(|(i, v)| (i + 1, v))),
            Err(e) => errors.push(layer_json_error(file, 0, &e)),
        }
    } else {
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            match knoblab_core::input::json::from_text::<Value>(line) {
                Ok(v) => records.push((i + 1, v)),
                Err(e) => errors.push(layer_json_error(file, i, &e)),
            }
        }
    }
    (records, errors)
}

/// A string or number field as text (ids are written either way).
pub(crate) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// What an item's gold answer (`GT`) should have been, when it is not: the
/// message is the `expected` of the reader's field error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GoldExpected {
    /// An open answer that is a number, but not a finite one.
    #[error("a finite number")]
    FiniteNumber,
    /// An open answer of no accepted shape.
    #[error("a non-empty string, a number, a list of strings or an object of fields")]
    Open,
    /// A multi-select answer that is not a list of letters.
    #[error("{MULTI_EXPECTED}")]
    MultiSelect,
    /// A single-choice answer that is not one letter.
    #[error("{CHOICE_EXPECTED}")]
    Choice,
    /// An MCQ answer with no schema type that is neither.
    #[error("{CHOICE_EXPECTED} or {MULTI_EXPECTED}")]
    ChoiceOrMultiSelect,
}

const MULTI_EXPECTED: &str = "a non-empty list of letters A–E, e.g. [\"A\", \"C\"]";
const CHOICE_EXPECTED: &str = "one letter A–D (A–E where the item has option_e)";

/// Parses one letter label, accepting case and surrounding brackets.
fn gold_letter(text: &str) -> Option<char> {
    let t = text.trim().trim_matches(|c: char| "()[]. ".contains(c));
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Some(c.to_ascii_uppercase()),
        _ => None,
    }
}

/// Reads `GT` according to the file and `output_schema.type`.
///
/// **Decision:** an `openqa.json` item's gold is always an open answer (a
/// letter there is text, which the judge's contamination check flags); a
/// `vqa.json` item follows `output_schema.type`, and without it its `GT`
/// (a letter is single choice, a list is multi-select). Letters must be
/// A–E.
pub(crate) fn parse_gold(
    kind: ItemKind,
    schema_type: Option<&str>,
    gt: &Value,
) -> Result<Gold, GoldExpected> {
    let in_range = |c: char| ('A'..='E').contains(&c);
    let letters = |v: &Value| -> Option<BTreeSet<char>> {
        let set: Option<BTreeSet<char>> = match v {
            Value::Array(a) => a.iter().map(|x| x.as_str().and_then(gold_letter)).collect(),
            Value::String(s) => s
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|p| !p.is_empty())
                .map(gold_letter)
                .collect(),
            _ => None,
        };
        set.filter(|s| !s.is_empty() && s.iter().all(|c| in_range(*c)))
    };
    let letter = |v: &Value| v.as_str().and_then(gold_letter).filter(|c| in_range(*c));
    let open = |gt: &Value| match gt {
        Value::String(s) if !s.trim().is_empty() => Ok(Gold::Text(s.clone())),
        Value::Number(n) => n
            .as_f64()
            .map(Gold::Number)
            .ok_or(GoldExpected::FiniteNumber),
        Value::Object(o) if !o.is_empty() => Ok(Gold::Structured(o.clone())),
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_string) => {
            Ok(Gold::Text(super::openqa::value_text(gt)))
        }
        _ => Err(GoldExpected::Open),
    };
    match (kind, schema_type) {
        (ItemKind::OpenQa, _) | (ItemKind::Mcq, Some("structured_short_answer")) => open(gt),
        (ItemKind::Mcq, Some("multi_select")) => letters(gt)
            .map(Gold::MultiSelect)
            .ok_or(GoldExpected::MultiSelect),
        (ItemKind::Mcq, Some("choice")) => letter(gt).map(Gold::Choice).ok_or(GoldExpected::Choice),
        (ItemKind::Mcq, _) => match gt {
            Value::Array(_) => letters(gt)
                .map(Gold::MultiSelect)
                .ok_or(GoldExpected::MultiSelect),
            _ => letter(gt)
                .map(Gold::Choice)
                .ok_or(GoldExpected::ChoiceOrMultiSelect),
        },
    }
}

/// The `output_schema.type` of an item, which says how its gold answer is
/// read.
pub(crate) fn schema_type(obj: &Map<String, Value>) -> Option<String> {
    obj.get("output_schema")
        .and_then(Value::as_object)
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// What each format reads its own way for an [`Item`] (the dataset's
/// `vqa.json`/`openqa.json` items, the release's rows).
pub(crate) struct ItemParts {
    pub key: ItemKey,
    pub origin_qa_id: Option<String>,
    pub query: String,
    pub gold: Gold,
    pub slice_tags: Vec<String>,
    pub alias_list: Vec<Value>,
    pub options: BTreeMap<char, String>,
    pub file: String,
    pub split: Option<Split>,
    pub media: Vec<String>,
}

/// An item: `parts`, and the fields every format writes alike, read from
/// `obj` here once (`qa_type`, `capability_level`, `scenario_family`,
/// `output_schema`'s type and counts, `canonical_answer`, `numeric_slots`,
/// `answer_mode`).
pub(crate) fn item(obj: &Map<String, Value>, parts: ItemParts) -> Item {
    let text = |field: &str| obj.get(field).and_then(text_of);
    let schema = obj.get("output_schema").and_then(Value::as_object);
    let count = |field: &str| schema.and_then(|s| s.get(field)).and_then(Value::as_u64);
    Item {
        key: parts.key,
        origin_qa_id: parts.origin_qa_id,
        query: parts.query,
        gold: parts.gold,
        qa_type: text("qa_type"),
        capability_level: text("capability_level"),
        scenario_family: text("scenario_family"),
        slice_tags: parts.slice_tags,
        schema_type: schema_type(obj),
        min_correct: count("min_correct"),
        max_correct: count("max_correct"),
        canonical_answer: obj.get("canonical_answer").cloned(),
        alias_list: parts.alias_list,
        numeric_slots: obj.get("numeric_slots").cloned().unwrap_or(Value::Null),
        options: parts.options,
        answer_mode: text("answer_mode"),
        file: parts.file,
        split: parts.split,
        media: parts.media,
    }
}
