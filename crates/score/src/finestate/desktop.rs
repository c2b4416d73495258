//! The desktop loader, `_load_desktop_test_cases` with
//! `_convert_desktop_case_to_standard` (spec §2.1, §2.2, §2.6): the raw schema
//! in four family folders, each with a sibling `…json/` folder; JSON Lines
//! for families A, B and D, one JSON array per file for family C.

use serde_json::Value;

use super::dataset::{obj_field, Ctx, Dataset, Family, Instance, Platform, SkipReason, Skipped};
use super::python::{basename, join, py_strip, stem, truthy, universal_lines};

/// Why a desktop JSON file was skipped whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DesktopFileError {
    /// Its bytes are not text (the input layer's error).
    #[error("{0}")]
    NotText(knoblab_core::input::InputError),
    /// A family C file is not JSON.
    #[error("not JSON: {0}")]
    Json(knoblab_core::input::json::JsonError),
    /// A family C file is JSON, but not an array of records.
    #[error("top-level JSON is not an array")]
    NotArray,
}

/// The records of one desktop JSON file: JSON Lines for A, B, D (bad lines
/// skipped), one JSON array for C (spec §2.1).
fn desktop_records(
    platform: Platform,
    family: Family,
    path: &str,
    bytes: &[u8],
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<(String, Value)>, DesktopFileError> {
    let text = knoblab_core::input::text::decode(bytes).map_err(DesktopFileError::NotText)?;
    if family == Family::SpecificData {
        let value: Value =
            knoblab_core::input::json::from_text(text).map_err(DesktopFileError::Json)?;
        return match value {
            Value::Array(items) => Ok(items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (format!("{path}[{i}]"), v))
                .collect()),
            Value::Object(o) if o.is_empty() => Ok(Vec::new()),
            Value::String(s) if s.is_empty() => Ok(Vec::new()),
            _ => Err(DesktopFileError::NotArray),
        };
    }
    let mut records = Vec::new();
    for (line_no, raw) in universal_lines(text).enumerate() {
        let line = py_strip(raw);
        if line.is_empty() {
            continue;
        }
        let source = format!("{path}:{}", line_no + 1);
        match knoblab_core::input::json::from_text(line) {
            Ok(v) => records.push((source, v)),
            Err(e) => skipped.push(Skipped::invalid_json(platform, source, &e)),
        }
    }
    Ok(records)
}

/// `_load_desktop_test_cases` and `_convert_desktop_case_to_standard`.
///
/// Spec §2.6: "desktop: the index is a running counter over categories A, B,
/// C, D. Within a category, files are taken in `Path.glob("*.json")` order,
/// which depends on the filesystem and is not sorted". Here files are taken
/// in name order, so indices may differ from an official run; results are
/// keyed by image path, which does not depend on it.
pub(super) fn load_desktop(ctx: &Ctx) -> Dataset {
    let platform = Platform::Desktop;
    let root = platform.data_root();
    let mut data = Dataset::default();
    let mut index = 0usize;
    for family in Family::ALL {
        let image_dir = format!("{root}/{}", family.folder());
        let json_dir = format!("{image_dir}json");
        let missing = [&image_dir, &json_dir]
            .into_iter()
            .find(|d| !ctx.files.is_dir(d));
        if let Some(missing) = missing {
            if ctx.files.is_dir(&image_dir) || ctx.files.is_dir(&json_dir) {
                data.skipped.push(Skipped::new(
                    platform,
                    missing.clone(),
                    None,
                    None,
                    SkipReason::CategorySkipped {
                        missing: missing.clone(),
                    },
                ));
            }
            continue;
        }
        for name in ctx.files.list_files(&json_dir) {
            if !name.ends_with(".json") {
                continue;
            }
            let path = format!("{json_dir}/{name}");
            // A FIFO, a device or a file past its cap is named, not read as empty.
            let bytes = match ctx.files.read_checked(&path) {
                Ok(bytes) => bytes,
                Err(cause) => {
                    data.skipped.push(Skipped::new(
                        platform,
                        path,
                        None,
                        None,
                        SkipReason::FileUnreadable {
                            cause: cause.to_string(),
                        },
                    ));
                    continue;
                }
            };
            let records = match desktop_records(platform, family, &path, &bytes, &mut data.skipped)
            {
                Ok(r) => r,
                Err(e) => {
                    data.skipped.push(Skipped::new(
                        platform,
                        path,
                        None,
                        None,
                        SkipReason::FileUnreadable {
                            cause: e.to_string(),
                        },
                    ));
                    continue;
                }
            };
            let mut dropped: Option<String> = None;
            for (source, record) in records {
                if let Some(cause) = &dropped {
                    let image = obj_field(&record, "image")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    data.skipped.push(Skipped::new(
                        platform,
                        source,
                        None,
                        image,
                        SkipReason::RestOfFileDropped {
                            cause: cause.clone(),
                        },
                    ));
                    continue;
                }
                match desktop_record(ctx, family, index, &source, &record) {
                    DesktopOutcome::Loaded(instance) => data.instances.push(*instance),
                    DesktopOutcome::Skipped(reason, image) => data.skipped.push(Skipped::new(
                        platform,
                        source,
                        Some(index),
                        image,
                        reason,
                    )),
                    DesktopOutcome::Raised(cause) => {
                        let image = obj_field(&record, "image").map(|v| match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        });
                        data.skipped.push(Skipped::new(
                            platform,
                            source,
                            None,
                            image,
                            SkipReason::RestOfFileDropped {
                                cause: format!("this record raised {cause}"),
                            },
                        ));
                        dropped = Some(format!("an earlier record raised {cause}"));
                        continue;
                    }
                }
                index += 1;
            }
        }
    }
    data
}

enum DesktopOutcome {
    Loaded(Box<Instance>),
    /// Skipped; the index is used up.
    Skipped(SkipReason, Option<String>),
    /// Raised inside the per-file `try`: this and later records of the file
    /// are lost and use up no index.
    Raised(String),
}

fn desktop_record(
    ctx: &Ctx,
    family: Family,
    index: usize,
    source: &str,
    record: &Value,
) -> DesktopOutcome {
    let root = Platform::Desktop.data_root();
    let Some(obj) = record.as_object() else {
        return DesktopOutcome::Raised("AttributeError (record is not an object)".to_string());
    };
    let image_value = obj.get("image").cloned().unwrap_or(Value::Null);
    if !truthy(&image_value) {
        return DesktopOutcome::Skipped(SkipReason::NoImage, None);
    }
    let Some(image) = image_value.as_str() else {
        return DesktopOutcome::Raised("AttributeError (image is not a string)".to_string());
    };
    // "If the path does not start with the data-root string, the code keeps
    // its last three segments and joins them under the data root."
    let mut path = image.replace('\\', "/");
    if !path.starts_with(root) {
        let segs: Vec<&str> = path.split('/').collect();
        let [.., a, b, c] = segs.as_slice() else {
            return DesktopOutcome::Raised(format!(
                "IndexError (image path `{image}` has fewer than three segments)"
            ));
        };
        path = join(&join(&join(root, a), b), c);
    }
    // The path the official rule made must stay inside the dataset folder
    // (`../../x` would climb out): refused and named, never looked up.
    if let Err(cause) = knoblab_core::input::path::normalize(&path) {
        return DesktopOutcome::Skipped(
            SkipReason::ImagePathRefused {
                cause: cause.to_string(),
            },
            Some(image.to_string()),
        );
    }
    if !ctx.exists(&path) {
        return DesktopOutcome::Skipped(
            SkipReason::ImageNotFound { tried: vec![path] },
            Some(image.to_string()),
        );
    }
    let bad = |field: &str| {
        DesktopOutcome::Skipped(
            SkipReason::BadField {
                field: field.to_string(),
            },
            Some(image.to_string()),
        )
    };
    let component = match obj.get("component") {
        None => None,
        Some(Value::Object(c)) => Some(c),
        Some(_) => return bad("component"),
    };
    let pd = match obj.get("processing_details") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => return bad("processing_details"),
    };
    let component_type = match component.and_then(|c| c.get("type")) {
        None => "unknown".to_string(),
        Some(Value::String(s)) => s.to_lowercase(),
        Some(_) => return bad("component.type"),
    };
    let instructions = component.and_then(|c| c.get("instructions"));
    if instructions.is_some_and(|i| !i.is_object()) {
        return bad("component.instructions");
    }
    // `_process_single_test_case` looks for the converted `image` (the base
    // name) first, relative to the working directory, then `_image_path`.
    let base = basename(&path).to_string();
    if base.is_empty() {
        return DesktopOutcome::Skipped(SkipReason::NoImage, Some(image.to_string()));
    }
    let image_path = if ctx.files.exists(&base) { base } else { path };
    let pick = |k: &str| {
        pd.and_then(|p| p.get(k))
            .cloned()
            .unwrap_or_else(|| Value::Array(Vec::new()))
    };
    let instr = |k: &str| {
        instructions
            .and_then(|i| i.get(k))
            .cloned()
            .unwrap_or_else(|| Value::String(String::new()))
    };
    DesktopOutcome::Loaded(Box::new(Instance {
        platform: Platform::Desktop,
        index,
        image_field: image.to_string(),
        key: stem(&image_path).to_string(),
        family: Some(family),
        component_type,
        locate: instr("locate"),
        interact: instr("interact"),
        bbox: pick("locate"),
        now: pick("loactebbox"),
        target: pick("interactbbox"),
        image_path,
        source: source.to_string(),
    }))
}
