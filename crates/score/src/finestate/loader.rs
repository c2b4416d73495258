//! The official loaders (spec §2): the desktop raw schema with its four
//! family folders, and the standardised JSON Lines of web and mobile, with
//! the same rules for which records produce no result. Every record that
//! produces none is kept in [`Dataset::skipped`] with its reason.
//!
//! A record loaded here is exactly one the official `_process_single_test_case`
//! returns a result object for (its image was found, its fields have the
//! shapes the code calls `.get` on).

use serde_json::Value;

use super::dataset::{obj_field, Ctx};
pub use super::dataset::{Dataset, Family, ImagePolicy, Instance, Platform, SkipReason, Skipped};
use super::files::FileSet;
use super::python::{basename, join, py_strip, splitext, stem, truthy, universal_lines};

/// Loads every platform folder present under the root.
pub fn load_dataset(files: &dyn FileSet, policy: ImagePolicy) -> Dataset {
    let mut data = Dataset::default();
    for platform in Platform::ALL {
        data.extend(load_platform(files, platform, policy));
    }
    data
}

/// Loads one platform: the desktop folders, or every `*.jsonl` directly in
/// `web_en/` / `mobile_en/` (in name order, indices running on across files;
/// the official code reads one file whose location it does not define, §2.1).
pub fn load_platform(files: &dyn FileSet, platform: Platform, policy: ImagePolicy) -> Dataset {
    let ctx = Ctx { files, policy };
    match platform {
        Platform::Desktop => super::desktop::load_desktop(&ctx),
        _ => {
            let root = platform.data_root();
            let mut texts = Vec::new();
            let mut unreadable = Vec::new();
            for name in files.list_files(root) {
                if name.ends_with(".jsonl") {
                    let path = format!("{root}/{name}");
                    // A file that cannot be read (a FIFO, a device, too
                    // large) is named among the skipped, never passed over.
                    match files.read_checked(&path) {
                        Ok(bytes) => texts.push((path, bytes)),
                        Err(cause) => unreadable.push(Skipped::new(
                            platform,
                            path,
                            None,
                            None,
                            SkipReason::FileUnreadable {
                                cause: cause.to_string(),
                            },
                        )),
                    }
                }
            }
            let mut data = load_standard(&ctx, platform, &texts);
            data.skipped.splice(0..0, unreadable);
            data
        }
    }
}

/// Loads one standardised annotation JSONL for `platform` (web or mobile
/// rules; desktop records in this schema follow the web rules).
pub fn load_annotation_jsonl(
    files: &dyn FileSet,
    platform: Platform,
    name: &str,
    bytes: &[u8],
    policy: ImagePolicy,
) -> Dataset {
    let ctx = Ctx { files, policy };
    load_standard(&ctx, platform, &[(name.to_string(), bytes.to_vec())])
}

/// Resolves a web/mobile image path (spec §2.5): `_normalize_image_path`,
/// then the record's own `_image_path`, then `element_detection/<basename>`.
fn resolve_standard(
    ctx: &Ctx,
    platform: Platform,
    image: &str,
    record: &Value,
) -> Result<String, Vec<String>> {
    let normalised = image.replace('\\', "/");
    let mut tried = Vec::new();
    let candidate = if platform == Platform::Mobile {
        let rel = normalised.strip_prefix("mobile/").unwrap_or(&normalised);
        let full = join("mobile_en", rel);
        let mut chosen = full.clone();
        if !ctx.exists(&full) {
            tried.push(full.clone());
            let (name, ext) = splitext(&full);
            if matches!(ext.to_lowercase().as_str(), ".png" | ".jpg" | ".jpeg") {
                let upper = format!("{name}{}", ext.to_uppercase());
                let lower = format!("{name}{}", ext.to_lowercase());
                if ctx.exists(&upper) {
                    chosen = upper;
                } else if ctx.exists(&lower) {
                    chosen = lower;
                } else {
                    tried.push(upper);
                    tried.push(lower);
                }
            }
        }
        chosen
    } else {
        normalised
    };
    if ctx.exists(&candidate) {
        return Ok(candidate);
    }
    if !tried.contains(&candidate) {
        tried.push(candidate.clone());
    }
    if let Some(own) = obj_field(record, "_image_path").and_then(Value::as_str) {
        if ctx.exists(own) {
            return Ok(own.to_string());
        }
        tried.push(own.to_string());
    }
    let alt = join("element_detection", basename(&candidate));
    if ctx.exists(&alt) {
        return Ok(alt);
    }
    tried.push(alt);
    let mut unique: Vec<String> = Vec::new();
    for path in tried {
        if !unique.contains(&path) {
            unique.push(path);
        }
    }
    Err(unique)
}

/// Checks the shapes `_process_single_test_case` calls `.get` on.
fn check_shapes(record: &Value) -> Result<(), SkipReason> {
    let bad = |field: &str| SkipReason::BadField {
        field: field.to_string(),
    };
    if let Some(component) = obj_field(record, "component") {
        if !component.is_object() {
            return Err(bad("component"));
        }
        if let Some(instr) = component.get("instructions") {
            if !instr.is_object() {
                return Err(bad("component.instructions"));
            }
        }
    }
    if let Some(pd) = obj_field(record, "processing_details") {
        if !pd.is_object() {
            return Err(bad("processing_details"));
        }
    }
    Ok(())
}

fn instruction(record: &Value, kind: &str) -> Value {
    obj_field(record, "component")
        .and_then(|c| c.get("instructions"))
        .and_then(|i| i.get(kind))
        .cloned()
        .unwrap_or_else(|| Value::String(String::new()))
}

fn component_type(record: &Value) -> String {
    match obj_field(record, "component").and_then(|c| c.get("type")) {
        Some(Value::String(s)) => s.to_lowercase(),
        _ => "unknown".to_string(),
    }
}

fn load_standard(ctx: &Ctx, platform: Platform, texts: &[(String, Vec<u8>)]) -> Dataset {
    let mut data = Dataset::default();
    let mut index = 0usize;
    for (name, bytes) in texts {
        let text = match knoblab_core::input::text::decode(bytes) {
            Ok(t) => t,
            Err(e) => {
                data.skipped.push(Skipped::new(
                    platform,
                    name.clone(),
                    None,
                    None,
                    SkipReason::FileUnreadable {
                        cause: e.to_string(),
                    },
                ));
                continue;
            }
        };
        for (line_no, raw) in universal_lines(text).enumerate() {
            let source = format!("{name}:{}", line_no + 1);
            let line = py_strip(raw);
            if line.is_empty() {
                continue;
            }
            // Through the input layer: a key twice in one record is named.
            let record: Value = match knoblab_core::input::json::from_text(line) {
                Ok(v) => v,
                Err(e) => {
                    data.skipped
                        .push(Skipped::invalid_json(platform, source, &e));
                    continue;
                }
            };
            let this_index = index;
            index += 1;
            let skip = |reason, image: Option<String>| {
                Skipped::new(platform, source.clone(), Some(this_index), image, reason)
            };
            if !record.is_object() {
                data.skipped.push(skip(SkipReason::NotAnObject, None));
                continue;
            }
            let image_value = obj_field(&record, "image").cloned().unwrap_or(Value::Null);
            if !truthy(&image_value) {
                data.skipped.push(skip(SkipReason::NoImage, None));
                continue;
            }
            let Some(image) = image_value.as_str() else {
                data.skipped.push(skip(SkipReason::ImageNotString, None));
                continue;
            };
            // An image path (or the record's own `_image_path`) that is
            // absolute or climbs out of the dataset folder is refused and
            // named, not looked up outside it.
            let own = obj_field(&record, "_image_path").and_then(Value::as_str);
            if let Some(cause) = std::iter::once(image)
                .chain(own)
                .find_map(|p| knoblab_core::input::path::normalize(p).err())
            {
                data.skipped.push(skip(
                    SkipReason::ImagePathRefused {
                        cause: cause.to_string(),
                    },
                    Some(image.to_string()),
                ));
                continue;
            }
            let image_path = match resolve_standard(ctx, platform, image, &record) {
                Ok(p) => p,
                Err(tried) => {
                    data.skipped.push(skip(
                        SkipReason::ImageNotFound { tried },
                        Some(image.to_string()),
                    ));
                    continue;
                }
            };
            if let Err(reason) = check_shapes(&record) {
                data.skipped.push(skip(reason, Some(image.to_string())));
                continue;
            }
            let pd = obj_field(&record, "processing_details");
            let pick = |k: &str| pd.and_then(|p| p.get(k)).cloned().unwrap_or(Value::Null);
            data.instances.push(Instance {
                platform,
                index: this_index,
                image_field: image.to_string(),
                key: stem(&image_path).to_string(),
                family: Family::from_path(&image_path)
                    .or_else(|| Family::from_path(&image.replace('\\', "/"))),
                component_type: component_type(&record),
                locate: instruction(&record, "locate"),
                interact: instruction(&record, "interact"),
                bbox: pick("bbox"),
                now: pick("now_coords"),
                target: pick("target_coords"),
                image_path,
                source,
            });
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finestate::files::MemFiles;

    fn record(image: &str) -> String {
        format!(
            r#"{{"image": {image}, "component": {{"type": "SLIDER", "instructions": {{"locate": "l", "interact": "i"}}}}, "processing_details": {{"locate": [0.1, 0.2, 0.5, 0.3]}}}}"#
        )
    }

    #[test]
    fn a_short_desktop_path_drops_the_rest_of_its_file() {
        let mut f = MemFiles::new();
        f.insert("desktop_en/ANumericRange240/x/a.png", vec![]);
        f.insert("desktop_en/ANumericRange240/x/c.png", vec![]);
        let lines = [
            record(r#""C:\\annot\\ANumericRange240\\x\\a.png""#),
            record(r#""b.png""#),
            record(r#""desktop_en/ANumericRange240/x/c.png""#),
        ];
        f.insert(
            "desktop_en/ANumericRange240json/slider.json",
            lines.join("\n").into_bytes(),
        );
        let data = load_platform(&f, Platform::Desktop, ImagePolicy::Check);
        assert_eq!(data.instances.len(), 1);
        assert_eq!(
            data.instances[0].image_path,
            "desktop_en/ANumericRange240/x/a.png"
        );
        assert_eq!(data.instances[0].component_type, "slider");
        let codes: Vec<_> = data.skipped.iter().map(|s| (&s.reason, s.index)).collect();
        assert!(matches!(
            codes.as_slice(),
            [
                (SkipReason::RestOfFileDropped { .. }, None),
                (SkipReason::RestOfFileDropped { .. }, None)
            ]
        ));
    }

    #[test]
    fn skipped_desktop_records_use_up_indices() {
        let mut f = MemFiles::new();
        f.insert("desktop_en/BToggleOption200/b.png", vec![]);
        let lines = [
            record(r#""""#),
            record(r#""desktop_en/BToggleOption200/missing.png""#),
            record(r#""desktop_en/BToggleOption200/b.png""#),
        ];
        f.insert(
            "desktop_en/BToggleOption200json/switch.json",
            lines.join("\n").into_bytes(),
        );
        let data = load_platform(&f, Platform::Desktop, ImagePolicy::Check);
        assert_eq!(data.instances.len(), 1);
        assert_eq!(data.instances[0].index, 2);
        assert_eq!(data.skipped.len(), 2);
    }

    #[test]
    fn family_c_must_be_one_array() {
        let mut f = MemFiles::new();
        f.insert("desktop_en/CSpecificData200/c.png", vec![]);
        let one = record(r#""desktop_en/CSpecificData200/c.png""#);
        f.insert(
            "desktop_en/CSpecificData200json/a.json",
            format!("[{one}]").into_bytes(),
        );
        f.insert("desktop_en/CSpecificData200json/b.json", one.into_bytes());
        let data = load_platform(&f, Platform::Desktop, ImagePolicy::Check);
        assert_eq!(data.instances.len(), 1);
        assert!(matches!(
            data.skipped[0].reason,
            SkipReason::FileUnreadable { .. }
        ));
    }

    #[test]
    fn mobile_paths_lose_their_prefix_and_try_both_extension_cases() {
        let mut f = MemFiles::new();
        f.insert("mobile_en/A/m.PNG", vec![]);
        let line = r#"{"image": "mobile/A/m.png", "component": {"instructions": {"locate": "x"}}}
not json

[1, 2]
{"image": "mobile/A/gone.png"}"#;
        f.insert("mobile_en/cases.jsonl", line.as_bytes().to_vec());
        let data = load_platform(&f, Platform::Mobile, ImagePolicy::Check);
        assert_eq!(data.instances.len(), 1);
        assert_eq!(data.instances[0].image_path, "mobile_en/A/m.PNG");
        let reasons: Vec<_> = data
            .skipped
            .iter()
            .map(|s| (s.index, s.reason.clone()))
            .collect();
        assert!(matches!(reasons[0], (None, SkipReason::InvalidJson { .. })));
        assert_eq!(reasons[1], (Some(1), SkipReason::NotAnObject));
        assert!(matches!(
            reasons[2],
            (Some(2), SkipReason::ImageNotFound { .. })
        ));
    }
}
