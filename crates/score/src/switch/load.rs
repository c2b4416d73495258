//! Reading the ground truth from the dataset's layout, a zip of it, or one
//! file, reporting every malformed item with its file and what is valid.
//!
//! > `<root>/<task_family>/<form>/vqa.json {"data": [item, ...]}` (MCQ),
//! > `<root>/<task_family>/<form>/openqa.json {"data": [item, ...]}` (OpenQA).
//! > Accept the whole root (folder or zip), or a single `vqa.json`/`openqa.json`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::dataset::{
    GroundTruth, Item, ItemKey, ItemKind, Split, FORMS, TASK_FAMILIES, UNKNOWN_FORM,
};
use super::error::{describe, InputError, InputErrors};
use super::fields::{item, parse_gold, schema_type, text_of, ItemParts};
use super::release;
use knoblab_core::input::zip::{BoundedZip, ZipLimits};

/// Choices that change how the ground truth is read.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `(path fragment, split)`: the items of a ground-truth file whose
    /// path contains the fragment get the split, unless an item names its
    /// own (`--split open=mcq_open/`).
    pub splits: Vec<(String, Split)>,
    /// Answers files `(name, bytes)` joined by id to release rows that
    /// carry no answer (see [`super::release`]); answers files found among
    /// the ground-truth files are read as well.
    pub answers: Vec<(String, Vec<u8>)>,
}

/// A split option that is not `SPLIT=PATH_FRAGMENT`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// There is no `=`.
    #[error("{text:?}: expected SPLIT=PATH_FRAGMENT, e.g. open=mcq_open/")]
    NoEquals {
        /// The option as given.
        text: String,
    },
    /// Neither side of the `=` names a split.
    #[error("{text:?}: neither side is a split; accepted: {}", Split::NAMES)]
    NoSplit {
        /// The option as given.
        text: String,
    },
}

impl LoadOptions {
    /// Parses `SPLIT=FRAGMENT` (or `FRAGMENT=SPLIT`) as the CLI and the page
    /// take it.
    pub fn parse_split(text: &str) -> Result<(String, Split), SplitError> {
        let (a, b) = text.split_once('=').ok_or_else(|| SplitError::NoEquals {
            text: text.to_string(),
        })?;
        match (Split::parse(a), Split::parse(b)) {
            (Some(s), _) => Ok((b.to_string(), s)),
            (None, Some(s)) => Ok((a.to_string(), s)),
            _ => Err(SplitError::NoSplit {
                text: text.to_string(),
            }),
        }
    }

    /// The split of a file: the first option fragment its path contains,
    /// else a folder named as a split.
    fn split_of(&self, path: &str) -> Option<Split> {
        self.splits
            .iter()
            .find(|(fragment, _)| path.contains(fragment.as_str()))
            .map(|(_, s)| *s)
            .or_else(|| {
                let parts: Vec<&str> = path.split('/').collect();
                parts[..parts.len().saturating_sub(1)]
                    .iter()
                    .rev()
                    .find_map(|f| split_folder(f))
            })
    }
}

/// The split a folder's name gives: only `open`, `held`, `held_out`,
/// `heldout` and `closed` (any case). **Decision:** the other split names
/// ([`Split::parse`]: `public`, `private`, …) are too common as folder
/// names above a dataset to be read from a path.
fn split_folder(name: &str) -> Option<Split> {
    match name.to_ascii_lowercase().as_str() {
        "open" => Some(Split::Open),
        "held" | "held_out" | "heldout" | "closed" => Some(Split::Held),
        _ => None,
    }
}

/// The ground-truth files KnobLab reads, by name: the dataset's
/// `vqa.json`/`openqa.json`, the release's rows, answers and summary.
pub fn is_ground_truth_name(name: &str) -> bool {
    matches!(name, "vqa.json" | "openqa.json")
        || release::is_rows_file(name)
        || release::is_answers_file(name)
        || release::is_summary_file(name)
}

impl GroundTruth {
    /// Reads the ground truth from in-memory files (path → bytes), as a
    /// folder walk or a dropped folder provides them. Only files named
    /// `vqa.json` and `openqa.json` (and the release's `data.jsonl`,
    /// answers files and `summary.json`, see [`super::release`]) are read;
    /// media, `dataset_manifest.json` and `form_matrix.json` are ignored. A
    /// path's last two folders give the task family and the form.
    ///
    /// ```
    /// use knoblab_score::switch::dataset::GroundTruth;
    /// let vqa = br#"{"data": [{"id": 0, "query": "Which button?\nA. Red\nB. Blue",
    ///   "GT": "B", "output_schema": {"type": "choice"}}]}"#;
    /// let gt = GroundTruth::from_files([("root/vqa_task/img2txt/vqa.json", &vqa[..])]).unwrap();
    /// assert_eq!(gt.items[0].key.task_family, "vqa_task");
    /// ```
    pub fn from_files<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<GroundTruth, InputErrors> {
        GroundTruth::from_files_with(files, &LoadOptions::default())
    }

    /// [`GroundTruth::from_files`] with splits and answers files.
    pub fn from_files_with<'a>(
        files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
        options: &LoadOptions,
    ) -> Result<GroundTruth, InputErrors> {
        let mut errors = Vec::new();
        let mut items = Vec::new();
        let mut seen_any = false;
        let mut names = Vec::new();
        let files: Vec<(String, &[u8])> = files
            .into_iter()
            .map(|(p, b)| (p.replace('\\', "/"), b))
            .collect();
        let base = |p: &str| p.rsplit('/').next().unwrap_or("").to_string();
        // Answers first: rows are joined to them by id.
        let mut answers = release::Answers::default();
        for (name, bytes) in &options.answers {
            answers.read(name, bytes, &mut errors);
        }
        for (path, bytes) in &files {
            if release::is_answers_file(&base(path)) {
                answers.read(path, bytes, &mut errors);
            }
        }
        for (normalized, bytes) in &files {
            names.push(normalized.clone());
            let file_name = base(normalized);
            if release::is_rows_file(&file_name) {
                seen_any = true;
                let ctx = release::RowsContext::new(normalized, options.split_of(normalized));
                release::read_rows(&ctx, bytes, &answers, &mut items, &mut errors);
                continue;
            }
            let kind = match file_name.as_str() {
                "vqa.json" => ItemKind::Mcq,
                "openqa.json" => ItemKind::OpenQa,
                _ => continue,
            };
            seen_any = true;
            let parts: Vec<&str> = normalized.split('/').collect();
            let folder_form = parts.len().checked_sub(2).and_then(|i| parts.get(i));
            let folder_family = parts.len().checked_sub(3).and_then(|i| parts.get(i));
            let form_known = folder_form.is_some_and(|f| FORMS.contains(f));
            let context = FileContext {
                file: normalized.to_string(),
                kind,
                // **Decision:** under a known form folder, the folder above
                // is the family whatever its name (a family outside the
                // eight is kept under its own name).
                family: folder_family
                    .filter(|f| form_known || TASK_FAMILIES.contains(*f))
                    .map(|s| s.to_string()),
                form: folder_form
                    .filter(|f| FORMS.contains(*f))
                    .map(|s| s.to_string()),
                split: options.split_of(normalized),
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
        GroundTruth::from_bytes_with(name, bytes, &LoadOptions::default())
    }

    /// [`GroundTruth::from_bytes`] with splits and answers files.
    pub fn from_bytes_with(
        name: &str,
        bytes: &[u8],
        options: &LoadOptions,
    ) -> Result<GroundTruth, InputErrors> {
        if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            let files = unzip(name, bytes)?;
            GroundTruth::from_files_with(
                files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
                options,
            )
        } else {
            GroundTruth::from_files_with([(name, bytes)], options)
        }
    }

    /// Reads the ground truth from a folder, a `.zip` or one JSON file on disk.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_path(path: &std::path::Path) -> Result<GroundTruth, InputErrors> {
        GroundTruth::load_path_with(path, &LoadOptions::default())
    }

    /// [`GroundTruth::load_path`] with splits and answers files.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_path_with(
        path: &std::path::Path,
        options: &LoadOptions,
    ) -> Result<GroundTruth, InputErrors> {
        use crate::limits::read_file;
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
                    } else if p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_ground_truth_name)
                    {
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
            GroundTruth::from_files_with(
                files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
                options,
            )
        } else {
            let bytes = read_file(path).map_err(|e| io(path, &e))?;
            GroundTruth::from_bytes_with(&path.display().to_string(), &bytes, options)
        }
    }

    /// The number of items of a kind.
    pub fn count(&self, kind: ItemKind) -> usize {
        self.items.iter().filter(|i| i.key.kind == kind).count()
    }
}

/// Unpacks the ground-truth entries of a zip (see [`is_ground_truth_name`]).
///
/// The entries are read by the one bounded zip reader
/// ([`knoblab_core::input::zip`]), so a zip bomb is refused.
pub(crate) fn unzip(name: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, InputErrors> {
    let zip_error = |e: &dyn std::fmt::Display| InputError::Zip {
        file: name.to_string(),
        message: e.to_string(),
    };
    let base = |entry_name: &str| -> bool {
        is_ground_truth_name(entry_name.rsplit('/').next().unwrap_or(""))
    };
    let mut archive = BoundedZip::open(bytes, ZipLimits::RESULTS).map_err(|e| zip_error(&e))?;
    let files = archive
        .entries(base)
        .map_err(|e| zip_error(&e))?
        .into_iter()
        .filter(|(entry_name, _)| base(entry_name))
        .map(|(entry_name, content)| (format!("{name}/{entry_name}"), content))
        .collect();
    Ok(files)
}

struct FileContext {
    file: String,
    kind: ItemKind,
    family: Option<String>,
    form: Option<String>,
    split: Option<Split>,
}

fn read_file(ctx: &FileContext, bytes: &[u8], items: &mut Vec<Item>, errors: &mut Vec<InputError>) {
    // Through the input layer: BOM stripped, UTF-16 named, CR-only line
    // endings named, a key twice in one object refused.
    let value: Value = match knoblab_core::input::json::from_bytes(bytes) {
        Ok(v) => v,
        Err(e) => {
            errors.push(super::error::layer_json_error(&ctx.file, 0, &e));
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
    // **Decision:** a family outside the eight is kept under its own name
    // (reported apart, and in Overall only when asked); only a missing or
    // empty family is an error.
    let family = opt_text("task_family")
        .filter(|f| !f.trim().is_empty())
        .or_else(|| ctx.family.clone());
    if family.is_none() {
        errors.push(field_error(
            "task_family",
            &format!(
                "a family name (one of {}, or any other), or the file under <root>/<task_family>/<form>/",
                TASK_FAMILIES.join(", ")
            ),
            found("task_family"),
        ));
    }
    let split = match obj.get("split") {
        Some(v) => match v.as_str().and_then(Split::parse) {
            Some(s) => Some(s),
            None => {
                errors.push(field_error("split", Split::NAMES, describe(v)));
                None
            }
        },
        None => ctx.split,
    };
    // **Decision:** a single file dropped without its folders, whose items
    // carry no `form`, gets the form [`UNKNOWN_FORM`]; predictions then
    // match it by task family and id whatever form they name.
    let form = opt_text("form")
        .or_else(|| ctx.form.clone())
        .unwrap_or_else(|| UNKNOWN_FORM.to_string());
    let schema_type = schema_type(&obj);
    let gt = obj.get("GT").cloned().unwrap_or(Value::Null);
    let gold = match parse_gold(ctx.kind, schema_type.as_deref(), &gt) {
        Ok(g) => Some(g),
        Err(expected) => {
            errors.push(field_error("GT", &expected.to_string(), found("GT")));
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
    Ok(item(
        &obj,
        ItemParts {
            key: ItemKey {
                task_family: family,
                form,
                id,
                kind: ctx.kind,
            },
            origin_qa_id: opt_text("origin_qa_id"),
            query: opt_text("query").unwrap_or_default(),
            gold,
            slice_tags: strings("slice_tags"),
            alias_list,
            options,
            file: ctx.file.clone(),
            split,
            media: Vec::new(),
        },
    ))
}
