//! Reading the ground truth from the dataset's layout, a zip of it, or one
//! file, reporting every malformed item with its file and what is valid.
//!
//! > `<root>/<task_family>/<form>/vqa.json {"data": [item, ...]}` (MCQ),
//! > `<root>/<task_family>/<form>/openqa.json {"data": [item, ...]}` (OpenQA).
//! > Accept the whole root (folder or zip), or a single `vqa.json`/`openqa.json`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::dataset::{
    Gold, GroundTruth, Item, ItemKey, ItemKind, FORMS, TASK_FAMILIES, UNKNOWN_FORM,
};
use super::error::{describe, json_error, InputError, InputErrors};
use crate::input::zip::{BoundedZip, ZipLimits};

impl GroundTruth {
    /// Reads the ground truth from in-memory files (path → bytes), as a
    /// folder walk or a dropped folder provides them. Only files named
    /// `vqa.json` and `openqa.json` are read; media, `dataset_manifest.json`
    /// and `form_matrix.json` are ignored. A path's last two folders give the
    /// task family and the form.
    ///
    /// ```
    /// use knoblab::score::switch::dataset::GroundTruth;
    /// let vqa = br#"{"data": [{"id": 0, "query": "Which button?\nA. Red\nB. Blue",
    ///   "GT": "B", "output_schema": {"type": "choice"}}]}"#;
    /// let gt = GroundTruth::from_files([("root/vqa_task/img2txt/vqa.json", &vqa[..])]).unwrap();
    /// assert_eq!(gt.items[0].key.task_family, "vqa_task");
    /// ```
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<GroundTruth, InputErrors> {
        let mut errors = Vec::new();
        let mut items = Vec::new();
        let mut seen_any = false;
        let mut names = Vec::new();
        for (path, bytes) in files {
            names.push(path.to_string());
            let normalized = path.replace('\\', "/");
            let file_name = normalized.rsplit('/').next().unwrap_or("");
            let kind = match file_name {
                "vqa.json" => ItemKind::Mcq,
                "openqa.json" => ItemKind::OpenQa,
                _ => continue,
            };
            seen_any = true;
            let parts: Vec<&str> = normalized.split('/').collect();
            let folder_form = parts.len().checked_sub(2).and_then(|i| parts.get(i));
            let folder_family = parts.len().checked_sub(3).and_then(|i| parts.get(i));
            let context = FileContext {
                file: path.to_string(),
                kind,
                family: folder_family
                    .filter(|f| TASK_FAMILIES.contains(*f))
                    .map(|s| s.to_string()),
                form: folder_form
                    .filter(|f| FORMS.contains(*f))
                    .map(|s| s.to_string()),
            };
            read_file(&context, bytes, &mut items, &mut errors);
        }
        if !seen_any {
            let source_name = if names.is_empty() {
                "(no files)".to_string()
            } else {
                names.join(", ")
            };
            errors.push(InputError::NoGroundTruth { source_name });
        }
        let mut by_key: BTreeMap<ItemKey, String> = BTreeMap::new();
        for item in &items {
            if let Some(first) = by_key.insert(item.key.clone(), item.file.clone()) {
                errors.push(InputError::DuplicateItem {
                    key: item.key.to_string(),
                    first,
                    second: item.file.clone(),
                });
            }
        }
        if !errors.is_empty() {
            return Err(InputErrors(errors));
        }
        items.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(GroundTruth { items })
    }

    /// Reads the ground truth from one dropped file: a `.zip` of the root
    /// (recognised by its signature) or a single `vqa.json`/`openqa.json`.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<GroundTruth, InputErrors> {
        if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            let files = unzip(name, bytes)?;
            GroundTruth::from_files(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())))
        } else {
            GroundTruth::from_files([(name, bytes)])
        }
    }

    /// Reads the ground truth from a folder, a `.zip` or one JSON file on disk.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_path(path: &std::path::Path) -> Result<GroundTruth, InputErrors> {
        use crate::score::limits::read_file;
        let io = |p: &std::path::Path, e: &dyn std::fmt::Display| InputError::Io {
            file: p.display().to_string(),
            message: e.to_string(),
        };
        if path.is_dir() {
            let mut files = Vec::new();
            let mut stack = vec![path.to_path_buf()];
            while let Some(dir) = stack.pop() {
                let entries = std::fs::read_dir(&dir).map_err(|e| io(&dir, &e))?;
                for entry in entries {
                    let entry = entry.map_err(|e| io(&dir, &e))?;
                    let p = entry.path();
                    // A real folder only: a link to a folder above would
                    // make the walk endless.
                    if entry.file_type().is_ok_and(|t| t.is_dir()) {
                        stack.push(p);
                    } else if matches!(
                        p.file_name().and_then(|n| n.to_str()),
                        Some("vqa.json" | "openqa.json")
                    ) {
                        let bytes = read_file(&p).map_err(|e| io(&p, &e))?;
                        files.push((p.display().to_string(), bytes));
                    }
                }
            }
            files.sort();
            if files.is_empty() {
                return Err(InputError::NoGroundTruth {
                    source_name: path.display().to_string(),
                }
                .into());
            }
            GroundTruth::from_files(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())))
        } else {
            let bytes = read_file(path).map_err(|e| io(path, &e))?;
            GroundTruth::from_bytes(&path.display().to_string(), &bytes)
        }
    }

    /// The number of items of a kind.
    pub fn count(&self, kind: ItemKind) -> usize {
        self.items.iter().filter(|i| i.key.kind == kind).count()
    }
}

/// Unpacks the `vqa.json`/`openqa.json` entries of a zip.
///
/// The entries are read by the one bounded zip reader
/// ([`crate::input::zip`]), so a zip bomb is refused.
pub(crate) fn unzip(name: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, InputErrors> {
    let zip_error = |e: &dyn std::fmt::Display| InputError::Zip {
        file: name.to_string(),
        message: e.to_string(),
    };
    let mut archive = BoundedZip::open(bytes, ZipLimits::RESULTS).map_err(|e| zip_error(&e))?;
    let files = archive
        .entries(|entry_name| {
            entry_name.ends_with("vqa.json") || entry_name.ends_with("openqa.json")
        })
        .map_err(|e| zip_error(&e))?
        .into_iter()
        .filter(|(entry_name, _)| {
            entry_name.ends_with("vqa.json") || entry_name.ends_with("openqa.json")
        })
        .map(|(entry_name, content)| (format!("{name}/{entry_name}"), content))
        .collect();
    Ok(files)
}

struct FileContext {
    file: String,
    kind: ItemKind,
    family: Option<String>,
    form: Option<String>,
}

fn read_file(ctx: &FileContext, bytes: &[u8], items: &mut Vec<Item>, errors: &mut Vec<InputError>) {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            errors.push(json_error(&ctx.file, 0, &e));
            return;
        }
    };
    // **Decision:** a bare array of items is accepted as well as {"data": [...]}.
    let list = match value {
        Value::Object(mut o) => match o.remove("data") {
            Some(Value::Array(a)) => a,
            other => {
                errors.push(InputError::Shape {
                    file: ctx.file.clone(),
                    message: format!(
                        "expected {{\"data\": [item, ...]}}, found data = {}",
                        other
                            .as_ref()
                            .map(describe)
                            .unwrap_or_else(|| "nothing".into())
                    ),
                });
                return;
            }
        },
        Value::Array(a) => a,
        other => {
            errors.push(InputError::Shape {
                file: ctx.file.clone(),
                message: format!(
                    "expected {{\"data\": [item, ...]}}, found {}",
                    describe(&other)
                ),
            });
            return;
        }
    };
    for (index, raw) in list.into_iter().enumerate() {
        match parse_item(ctx, index, raw) {
            Ok(item) => items.push(item),
            Err(mut e) => errors.append(&mut e),
        }
    }
}

/// A string or number field as text (ids are written either way).
pub(crate) fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn parse_item(ctx: &FileContext, index: usize, raw: Value) -> Result<Item, Vec<InputError>> {
    let mut errors = Vec::new();
    let Value::Object(obj) = raw else {
        return Err(vec![InputError::Shape {
            file: ctx.file.clone(),
            message: format!("item {index}: expected an object, found {}", describe(&raw)),
        }]);
    };
    let id = obj.get("id").and_then(text_of);
    let record = match &id {
        Some(id) => format!("item {index} (id {id})"),
        None => format!("item {index}"),
    };
    let field_error = |field: &str, expected: &str, found: String| InputError::Field {
        file: ctx.file.clone(),
        record: record.clone(),
        field: field.to_string(),
        expected: expected.to_string(),
        found,
    };
    let found = |field: &str| {
        obj.get(field)
            .map(describe)
            .unwrap_or_else(|| "nothing".to_string())
    };
    let opt_text = |field: &str| obj.get(field).and_then(text_of);

    if id.is_none() {
        errors.push(field_error("id", "a number or string", found("id")));
    }
    // The item's own field names the family and form; the folders are the
    // fallback (a single dropped file has no folders).
    let family = opt_text("task_family").or_else(|| ctx.family.clone());
    match &family {
        Some(f) if TASK_FAMILIES.contains(&f.as_str()) => {}
        _ => errors.push(field_error(
            "task_family",
            &format!("one of {}", TASK_FAMILIES.join(", ")),
            found("task_family"),
        )),
    }
    // **Decision:** a single file dropped without its folders, whose items
    // carry no `form`, gets the form [`UNKNOWN_FORM`]; predictions then
    // match it by task family and id whatever form they name.
    let form = opt_text("form")
        .or_else(|| ctx.form.clone())
        .unwrap_or_else(|| UNKNOWN_FORM.to_string());
    let schema = obj.get("output_schema").and_then(Value::as_object);
    let schema_type = schema
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let gt = obj.get("GT").cloned().unwrap_or(Value::Null);
    let gold = match parse_gold(ctx.kind, schema_type.as_deref(), &gt) {
        Ok(g) => Some(g),
        Err(expected) => {
            errors.push(field_error("GT", &expected, found("GT")));
            None
        }
    };
    let mut options = BTreeMap::new();
    for letter in 'a'..='e' {
        if let Some(text) = obj.get(&format!("option_{letter}")).and_then(text_of) {
            if !text.trim().is_empty() {
                options.insert(letter.to_ascii_uppercase(), text);
            }
        }
    }
    let strings = |field: &str| -> Vec<String> {
        match obj.get(field) {
            Some(Value::Array(a)) => a.iter().filter_map(text_of).collect(),
            Some(Value::String(s)) => vec![s.clone()],
            _ => Vec::new(),
        }
    };
    let alias_list = match obj.get("alias_list") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other.clone()],
    };
    let (Some(id), Some(family), Some(gold), true) = (id, family, gold, errors.is_empty()) else {
        return Err(errors);
    };
    Ok(Item {
        key: ItemKey {
            task_family: family,
            form,
            id,
            kind: ctx.kind,
        },
        origin_qa_id: opt_text("origin_qa_id"),
        query: opt_text("query").unwrap_or_default(),
        gold,
        qa_type: opt_text("qa_type"),
        capability_level: opt_text("capability_level"),
        scenario_family: opt_text("scenario_family"),
        slice_tags: strings("slice_tags"),
        schema_type,
        min_correct: schema
            .and_then(|s| s.get("min_correct"))
            .and_then(Value::as_u64),
        max_correct: schema
            .and_then(|s| s.get("max_correct"))
            .and_then(Value::as_u64),
        canonical_answer: obj.get("canonical_answer").cloned(),
        alias_list,
        numeric_slots: obj.get("numeric_slots").cloned().unwrap_or(Value::Null),
        options,
        answer_mode: opt_text("answer_mode"),
        file: ctx.file.clone(),
    })
}

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
fn parse_gold(kind: ItemKind, schema_type: Option<&str>, gt: &Value) -> Result<Gold, String> {
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
    let multi_expected = "a non-empty list of letters A–E, e.g. [\"A\", \"C\"]";
    let choice_expected = "one letter A–D (A–E where the item has option_e)";
    let open = |gt: &Value| match gt {
        Value::String(s) if !s.trim().is_empty() => Ok(Gold::Text(s.clone())),
        Value::Number(n) => n
            .as_f64()
            .map(Gold::Number)
            .ok_or_else(|| "a finite number".to_string()),
        Value::Object(o) if !o.is_empty() => Ok(Gold::Structured(o.clone())),
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_string) => {
            Ok(Gold::Text(super::openqa::value_text(gt)))
        }
        _ => Err(
            "a non-empty string, a number, a list of strings or an object of fields".to_string(),
        ),
    };
    match (kind, schema_type) {
        (ItemKind::OpenQa, _) | (ItemKind::Mcq, Some("structured_short_answer")) => open(gt),
        (ItemKind::Mcq, Some("multi_select")) => letters(gt)
            .map(Gold::MultiSelect)
            .ok_or_else(|| multi_expected.to_string()),
        (ItemKind::Mcq, Some("choice")) => letter(gt)
            .map(Gold::Choice)
            .ok_or_else(|| choice_expected.to_string()),
        (ItemKind::Mcq, _) => match gt {
            Value::Array(_) => letters(gt)
                .map(Gold::MultiSelect)
                .ok_or_else(|| multi_expected.to_string()),
            _ => letter(gt)
                .map(Gold::Choice)
                .ok_or_else(|| format!("{choice_expected} or {multi_expected}")),
        },
    }
}
