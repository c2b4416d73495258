//! The public test release's layout: JSON Lines rows beside `media/`.
//! (About 600 lines: the layout, the row reader and the field names it
//! tries are one subject, read together when the release changes.)
//!
//! ```text
//! <root>/mcq_hf_1500/data.jsonl       every MCQ item, one a line
//! <root>/<task_family>/data.jsonl     the items of one family
//! <root>/media/                       images and videos the rows name
//! <root>/summary.json                 counts (recognised, not needed)
//! <root>/answers.jsonl                answers, when published apart
//! ```
//!
//! The exact row fields of these files are not published, so a row is
//! read by the names such files commonly use (each list is tried in order;
//! the first present wins):
//!
//! | what | accepted fields |
//! |---|---|
//! | id | [`ID_FIELDS`] |
//! | question | [`QUESTION_FIELDS`] |
//! | options | [`OPTION_FIELDS`] (a list → A, B, …; an object `{"A": …}`), or `option_a`…`option_e` |
//! | answer | [`ANSWER_FIELDS`] (a letter, a list of letters, a 0-based option index, an option's text; for OpenQA a string, number or object) |
//! | task family | [`FAMILY_FIELDS`], else the row file's folder |
//! | split | [`SPLIT_FIELDS`] (see [`Split::parse`]) |
//! | form | [`FORM_FIELDS`] (`img2txt`, or a code `IT`, `II`, `VT`, …, or `image->text`) |
//! | media | [`MEDIA_FIELDS`] (a path or a list of paths) |
//! | kind | [`KIND_FIELDS`] (`mcq`, `multiple_choice`, `openqa`, `open`) |
//!
//! **Decision:** a row is MCQ when its file sits in a folder whose name
//! starts with `mcq`, or its kind field says so, or it has options; it is
//! OpenQA in a folder whose name contains `openqa`, or when its kind
//! says so, or when it has no options. A row with no form field gets one
//! from its media: a video input is `video2…`, otherwise `img2…`; options
//! that are media paths make it `…2img` (or `…2video`), text options
//! `…2txt`. A row with no answer of its own takes the answer of its id
//! from an answers file; when neither has one, the file's error names the
//! fields its rows have and the ones that were looked for.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::dataset::{Item, ItemKey, ItemKind, Split, FORMS};
use super::error::{describe, InputError};
use super::fields::{item, json_records, parse_gold, schema_type, text_of, ItemParts};

/// Fields that give a row's id.
pub const ID_FIELDS: [&str; 6] = ["id", "question_id", "qid", "uid", "item_id", "sample_id"];
/// Fields that give the question.
pub const QUESTION_FIELDS: [&str; 4] = ["question", "query", "prompt", "text"];
/// Fields that give the options.
pub const OPTION_FIELDS: [&str; 3] = ["options", "choices", "candidates"];
/// Fields that give the answer.
pub const ANSWER_FIELDS: [&str; 8] = [
    "answer",
    "label",
    "GT",
    "gt",
    "gold",
    "answer_label",
    "correct_answer",
    "ground_truth",
];
/// Fields that give the task family.
pub const FAMILY_FIELDS: [&str; 3] = ["task_family", "family", "task"];
/// Fields that give the split.
pub const SPLIT_FIELDS: [&str; 3] = ["split", "subset", "partition"];
/// Fields that give the form.
pub const FORM_FIELDS: [&str; 4] = ["form", "input_form", "modality", "io_form"];
/// Fields that name media.
pub const MEDIA_FIELDS: [&str; 10] = [
    "media",
    "media_paths",
    "image",
    "images",
    "image_path",
    "image_paths",
    "video",
    "videos",
    "video_path",
    "video_paths",
];
/// Fields that say whether a row is MCQ or OpenQA.
pub const KIND_FIELDS: [&str; 4] = ["kind", "type", "question_type", "qa_format"];

/// Whether a file name is a release rows file.
pub fn is_rows_file(name: &str) -> bool {
    matches!(name, "data.jsonl" | "data.json")
}

/// Whether a file name is an answers file (`answers.jsonl`,
/// `mcq_answers.json`, `answer_key.jsonl`, …).
pub fn is_answers_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("answer") && (lower.ends_with(".jsonl") || lower.ends_with(".json"))
}

/// Whether a file name is the release's summary.
pub fn is_summary_file(name: &str) -> bool {
    name == "summary.json"
}

fn first<'a>(
    obj: &'a Map<String, Value>,
    fields: &[&'static str],
) -> Option<(&'static str, &'a Value)> {
    fields
        .iter()
        .find_map(|f| obj.get(*f).filter(|v| !v.is_null()).map(|v| (*f, v)))
}

/// Answers published apart from the rows: id → (answer, where it was read).
#[derive(Debug, Clone, Default)]
pub struct Answers {
    by_id: BTreeMap<String, (Value, String)>,
}

impl Answers {
    /// Whether any answers were read.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    fn get(&self, id: &str) -> Option<&Value> {
        self.by_id.get(id).map(|(v, _)| v)
    }

    /// Reads an answers file: JSON Lines (or a JSON array) of objects with
    /// an id field ([`ID_FIELDS`]) and an answer field ([`ANSWER_FIELDS`]),
    /// or one JSON object mapping ids to answers. An id given twice is an
    /// error naming both places.
    pub fn read(&mut self, file: &str, bytes: &[u8], errors: &mut Vec<InputError>) {
        // The input layer's decoding rule first (BOM stripped, UTF-16
        // named, invalid UTF-8 located); the JSON is then read as Python's
        // `json` reads it (parity).
        let text = match knoblab_core::input::text::decode(bytes) {
            Ok(text) => text,
            Err(e) => {
                errors.push(InputError::Io {
                    file: file.to_string(),
                    message: e.to_string(),
                });
                return;
            }
        };
        // A key twice in one object (an id, or a field of a row) is
        // refused with both positions, whatever the file's layout.
        if let Err(e) = knoblab_core::input::json::check_unique_keys(text) {
            errors.push(super::error::layer_json_error(file, 0, &e.into()));
            return;
        }
        if let Ok(Value::Object(map)) = knoblab_core::input::json::from_text::<Value>(text) {
            // One object of ids → answers (a one-line JSON Lines file is an
            // object too, but it has an id field).
            let one_row = ID_FIELDS.iter().any(|f| map.contains_key(*f));
            if !one_row && !map.values().all(Value::is_object) {
                for (id, answer) in map {
                    self.insert(id, answer, format!("{file}: key"), errors);
                }
                return;
            }
        }
        let (records, mut bad) = json_records(file, bytes);
        errors.append(&mut bad);
        for (line, value) in records {
            let place = format!("{file}:{line}");
            let Value::Object(obj) = &value else {
                errors.push(InputError::Shape {
                    file: place,
                    message: format!(
                        "expected an object {{\"id\": …, \"answer\": …}}, found {}",
                        describe(&value)
                    ),
                });
                continue;
            };
            let id = first(obj, &ID_FIELDS).and_then(|(_, v)| text_of(v));
            let answer = first(obj, &ANSWER_FIELDS).map(|(_, v)| v.clone());
            match (id, answer) {
                (Some(id), Some(answer)) => self.insert(id, answer, place, errors),
                (id, answer) => errors.push(InputError::MissingFields {
                    file: file.to_string(),
                    records: format!("line {line}"),
                    found: obj.keys().cloned().collect::<Vec<_>>().join(", "),
                    missing: [
                        id.is_none()
                            .then(|| format!("an id ({})", ID_FIELDS.join(", "))),
                        answer
                            .is_none()
                            .then(|| format!("an answer ({})", ANSWER_FIELDS.join(", "))),
                    ]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(" and "),
                }),
            }
        }
    }

    fn insert(&mut self, id: String, answer: Value, place: String, errors: &mut Vec<InputError>) {
        if let Some((_, first)) = self.by_id.get(&id) {
            errors.push(InputError::DuplicateItem {
                key: format!("answer {id}"),
                first: first.clone(),
                second: place,
            });
        } else {
            self.by_id.insert(id, (answer, place));
        }
    }
}

/// What the rows file's place says about its rows.
pub(crate) struct RowsContext {
    pub file: String,
    /// MCQ or OpenQA by the folder, when it says.
    pub kind: Option<ItemKind>,
    /// The folder holding the file (the family when rows do not say).
    pub folder: Option<String>,
    /// The split the folder or an option gives.
    pub split: Option<Split>,
}

impl RowsContext {
    /// The context of a rows file at `path` (folders separated by `/`).
    pub fn new(path: &str, split: Option<Split>) -> RowsContext {
        let parts: Vec<&str> = path.split('/').collect();
        let folders = &parts[..parts.len().saturating_sub(1)];
        // Only the folder holding the file says (a folder further up may
        // be anyone's).
        let kind = folders.last().and_then(|f| {
            let f = f.to_ascii_lowercase();
            if f.contains("openqa") || f.contains("open_qa") {
                Some(ItemKind::OpenQa)
            } else if f.starts_with("mcq") {
                Some(ItemKind::Mcq)
            } else {
                None
            }
        });
        RowsContext {
            file: path.to_string(),
            kind,
            folder: folders.last().map(|s| s.to_string()),
            split,
        }
    }
}

/// Rows of one file that lack an answer, for one message.
#[derive(Default)]
struct Unanswered {
    lines: Vec<usize>,
    fields: BTreeSet<String>,
}

/// Reads one release rows file into items; rows without an answer (inline
/// or in `answers`) are reported together, naming the fields found.
pub(crate) fn read_rows(
    ctx: &RowsContext,
    bytes: &[u8],
    answers: &Answers,
    items: &mut Vec<Item>,
    errors: &mut Vec<InputError>,
) {
    // A `{"data": [...]}` document is read like the dataset's own files.
    // The input layer's decoding rule first, as for the answers.
    let text = match knoblab_core::input::text::decode(bytes) {
        Ok(text) => text,
        Err(e) => {
            errors.push(InputError::Io {
                file: ctx.file.clone(),
                message: e.to_string(),
            });
            return;
        }
    };
    if let Err(e) = knoblab_core::input::json::check_unique_keys(text) {
        errors.push(super::error::layer_json_error(&ctx.file, 0, &e.into()));
        return;
    }
    let (records, mut bad) = match knoblab_core::input::json::from_text::<Value>(text) {
        Ok(Value::Object(mut o)) if o.get("data").is_some_and(Value::is_array) => {
            let list = match o.remove("data") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            (
                list.into_iter()
                    .enumerate()
                    .map(|(i, v)| (i + 1, v))
                    .collect(),
                Vec::new(),
            )
        }
        _ => json_records(&ctx.file, bytes),
    };
    errors.append(&mut bad);
    let mut unanswered = Unanswered::default();
    for (line, value) in records {
        let Value::Object(obj) = value else {
            errors.push(InputError::Shape {
                file: format!("{}:{line}", ctx.file),
                message: format!("expected a row object, found {}", describe(&value)),
            });
            continue;
        };
        match parse_row(ctx, line, &obj, answers) {
            Ok(Some(item)) => items.push(item),
            Ok(None) => {
                unanswered.lines.push(line);
                unanswered.fields.extend(obj.keys().cloned());
            }
            Err(mut e) => errors.append(&mut e),
        }
    }
    if !unanswered.lines.is_empty() {
        let n = unanswered.lines.len();
        let shown: Vec<String> = unanswered
            .lines
            .iter()
            .take(5)
            .map(usize::to_string)
            .collect();
        let more = if n > 5 { ", …" } else { "" };
        errors.push(InputError::MissingFields {
            file: ctx.file.clone(),
            records: format!(
                "{n} row{} (line{} {}{more})",
                if n == 1 { "" } else { "s" },
                if n == 1 { "" } else { "s" },
                shown.join(", ")
            ),
            found: unanswered.fields.into_iter().collect::<Vec<_>>().join(", "),
            missing: format!(
                "an answer: none of {} is in the row{}, and {}",
                ANSWER_FIELDS.join(", "),
                if n == 1 { "" } else { "s" },
                if answers.is_empty() {
                    "no answers file was given (the answers are published apart: give them with --answers FILE, or drop answers.jsonl beside data.jsonl, as JSON Lines of {\"id\": …, \"answer\": …})".to_string()
                } else {
                    "the answers file has no answer for their ids".to_string()
                }
            ),
        });
    }
}

/// The strings of a field that is a string or a list of strings.
fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().filter_map(text_of).collect(),
        _ => Vec::new(),
    }
}

/// Strips a leading `A.`, `A)` or `(A)` label from an option's text.
fn strip_label(text: &str, letter: char) -> String {
    let t = text.trim();
    for prefix in [
        format!("{letter}."),
        format!("{letter})"),
        format!("({letter})"),
        format!("{letter}:"),
    ] {
        if let Some(rest) = t.strip_prefix(&prefix) {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

fn options_of(obj: &Map<String, Value>) -> BTreeMap<char, String> {
    let mut options = BTreeMap::new();
    match first(obj, &OPTION_FIELDS).map(|(_, v)| v) {
        Some(Value::Array(a)) => {
            for (letter, v) in ('A'..='Z').zip(a) {
                if let Some(t) = text_of(v) {
                    options.insert(letter, strip_label(&t, letter));
                }
            }
        }
        Some(Value::Object(o)) => {
            for (k, v) in o {
                let mut chars = k.trim().chars();
                if let (Some(c), None, Some(t)) = (chars.next(), chars.next(), text_of(v)) {
                    if c.is_ascii_alphabetic() {
                        options.insert(c.to_ascii_uppercase(), t);
                    }
                }
            }
        }
        _ => {}
    }
    for letter in 'a'..='e' {
        if let Some(text) = obj.get(&format!("option_{letter}")).and_then(text_of) {
            if !text.trim().is_empty() {
                options.insert(letter.to_ascii_uppercase(), text);
            }
        }
    }
    options
}

/// A form from a field's text: a form name, a modality code or
/// `image->text`-like words.
fn normalise_form(text: &str) -> String {
    let t = text.trim();
    if FORMS.contains(&t) {
        return t.to_string();
    }
    let lower = t.to_ascii_lowercase().replace([' ', '-', '>', '_'], "");
    let code = match lower.as_str() {
        "it" | "imagetext" | "image2text" | "imagetotext" | "img2text" => "img2txt",
        "ii" | "imageimage" | "image2image" | "imagetoimage" => "img2img",
        "vt" | "videotext" | "video2text" | "videototext" => "video2txt",
        "vi" | "videoimage" | "video2image" | "videotoimage" => "video2img",
        "iv" | "imagevideo" | "image2video" | "imagetovideo" => "img2video",
        "vv" | "videovideo" | "videotovideo" => "video2video",
        _ => return t.to_string(),
    };
    code.to_string()
}

fn is_video(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".mp4", ".webm", ".mov", ".avi", ".mkv"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// The form inferred from the media and options (see the module's decision).
fn inferred_form(media: &[String], options: &BTreeMap<char, String>) -> Option<String> {
    if media.is_empty() {
        return None;
    }
    let input = if media.iter().any(|m| is_video(m)) {
        "video"
    } else {
        "img"
    };
    let output = match options.values().next() {
        Some(o) if !Item::option_is_text(o) && is_video(o) => "video",
        Some(o) if !Item::option_is_text(o) => "img",
        _ => "txt",
    };
    Some(format!("{input}2{output}"))
}

/// One row as an item; `Ok(None)` when it has no answer anywhere.
fn parse_row(
    ctx: &RowsContext,
    line: usize,
    obj: &Map<String, Value>,
    answers: &Answers,
) -> Result<Option<Item>, Vec<InputError>> {
    let file = format!("{}:{line}", ctx.file);
    let found_fields = || obj.keys().cloned().collect::<Vec<_>>().join(", ");
    let Some(id) = first(obj, &ID_FIELDS).and_then(|(_, v)| text_of(v)) else {
        return Err(vec![InputError::MissingFields {
            file: ctx.file.clone(),
            records: format!("line {line}"),
            found: found_fields(),
            missing: format!("an id ({})", ID_FIELDS.join(", ")),
        }]);
    };
    let record = format!("line {line} (id {id})");
    let mut errors = Vec::new();
    let options = options_of(obj);
    let kind_field = first(obj, &KIND_FIELDS)
        .and_then(|(_, v)| v.as_str())
        .and_then(|k| match k.to_ascii_lowercase().as_str() {
            "mcq" | "multiple_choice" | "multiple-choice" | "choice" | "multi_select" => {
                Some(ItemKind::Mcq)
            }
            "openqa" | "open" | "open_qa" | "open-ended" | "short_answer" => Some(ItemKind::OpenQa),
            _ => None,
        });
    let kind = ctx.kind.or(kind_field).unwrap_or(if options.is_empty() {
        ItemKind::OpenQa
    } else {
        ItemKind::Mcq
    });
    let family = first(obj, &FAMILY_FIELDS)
        .and_then(|(_, v)| text_of(v))
        .filter(|f| !f.trim().is_empty())
        .or_else(|| ctx.folder.clone())
        .unwrap_or_else(|| "(no family)".to_string());
    let split = match first(obj, &SPLIT_FIELDS) {
        Some((field, v)) => match v.as_str().and_then(Split::parse) {
            Some(s) => Some(s),
            None => {
                errors.push(InputError::Field {
                    file: ctx.file.clone(),
                    record: record.clone(),
                    field: field.to_string(),
                    expected: Split::NAMES.to_string(),
                    found: describe(v),
                });
                None
            }
        },
        None => ctx.split,
    };
    let media: Vec<String> = MEDIA_FIELDS
        .iter()
        .filter_map(|f| obj.get(*f))
        .flat_map(strings)
        .collect();
    let form = first(obj, &FORM_FIELDS)
        .and_then(|(_, v)| v.as_str())
        .map(normalise_form)
        .or_else(|| inferred_form(&media, &options))
        .unwrap_or_else(|| super::dataset::UNKNOWN_FORM.to_string());
    let inline = first(obj, &ANSWER_FIELDS).map(|(f, v)| (f, v.clone()));
    let (answer_field, answer) = match inline {
        Some(a) => a,
        None => match answers.get(&id) {
            Some(v) => ("answer", v.clone()),
            None => {
                return if errors.is_empty() {
                    Ok(None)
                } else {
                    Err(errors)
                }
            }
        },
    };
    let schema_type = schema_type(obj);
    let answer = match kind {
        ItemKind::Mcq => letters_of(&answer, &options),
        ItemKind::OpenQa => answer,
    };
    let gold = match parse_gold(kind, schema_type.as_deref(), &answer) {
        Ok(g) => Some(g),
        Err(expected) => {
            errors.push(InputError::Field {
                file: ctx.file.clone(),
                record: record.clone(),
                field: answer_field.to_string(),
                expected: format!("{expected} (or a 0-based option index, or an option's text)"),
                found: describe(&answer),
            });
            None
        }
    };
    let (Some(gold), true) = (gold, errors.is_empty()) else {
        return Err(errors);
    };
    let text = |f: &str| obj.get(f).and_then(text_of);
    let alias_list = match obj.get("alias_list").or_else(|| obj.get("aliases")) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other.clone()],
    };
    Ok(Some(item(
        obj,
        ItemParts {
            key: ItemKey {
                task_family: family,
                form,
                id: id.clone(),
                kind,
            },
            origin_qa_id: text("origin_qa_id").or(Some(id)),
            query: first(obj, &QUESTION_FIELDS)
                .and_then(|(_, v)| text_of(v))
                .unwrap_or_default(),
            gold,
            slice_tags: obj.get("slice_tags").map(strings).unwrap_or_default(),
            alias_list,
            options,
            file,
            split,
            media,
        },
    )))
}

/// An MCQ answer as letters: a 0-based index or an option's exact text
/// becomes its letter; letters and lists pass through.
fn letters_of(answer: &Value, options: &BTreeMap<char, String>) -> Value {
    let one = |v: &Value| -> Value {
        match v {
            Value::Number(n) => match n.as_u64().and_then(|i| u8::try_from(i).ok()) {
                Some(i) if i < 26 => Value::String(char::from(b'A' + i).to_string()),
                _ => v.clone(),
            },
            Value::String(s) => options
                .iter()
                .find(|(_, t)| t.trim().eq_ignore_ascii_case(s.trim()) && s.trim().len() > 1)
                .map_or_else(|| v.clone(), |(c, _)| Value::String(c.to_string())),
            _ => v.clone(),
        }
    };
    match answer {
        Value::Array(a) => Value::Array(a.iter().map(one).collect()),
        other => one(other),
    }
}
