//! The official loaders (spec §2): the desktop raw schema with its four
//! family folders, and the standardised JSON Lines of web and mobile, with
//! the same rules for which records produce no result. Every record that
//! produces none is kept in [`Dataset::skipped`] with its reason.
//!
//! A record loaded here is exactly one the official `_process_single_test_case`
//! returns a result object for (its image was found, its fields have the
//! shapes the code calls `.get` on).

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use super::files::FileSet;
use super::python::{basename, join, py_strip, splitext, stem, truthy, universal_lines};

/// A FineState-Bench platform, with its data root folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Desktop,
    Web,
    Mobile,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Desktop, Platform::Web, Platform::Mobile];

    /// `desktop_en`, `web_en` or `mobile_en`.
    pub fn data_root(self) -> &'static str {
        match self {
            Self::Desktop => "desktop_en",
            Self::Web => "web_en",
            Self::Mobile => "mobile_en",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Desktop => "desktop",
            Self::Web => "web",
            Self::Mobile => "mobile",
        }
    }

    /// Reads `desktop`, `web`, `mobile` (or their `_en` folder names).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "desktop" | "desktop_en" => Some(Self::Desktop),
            "web" | "web_en" => Some(Self::Web),
            "mobile" | "mobile_en" => Some(Self::Mobile),
            _ => None,
        }
    }
}

/// The four interaction families, one per category folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    NumericRange,
    ToggleOption,
    SpecificData,
    ViewManipulation,
}

impl Family {
    /// In the desktop loader's order A, B, C, D.
    pub const ALL: [Family; 4] = [
        Family::NumericRange,
        Family::ToggleOption,
        Family::SpecificData,
        Family::ViewManipulation,
    ];

    /// The category folder name (note the official spelling "Manipilation").
    pub fn folder(self) -> &'static str {
        match self {
            Self::NumericRange => "ANumericRange240",
            Self::ToggleOption => "BToggleOption200",
            Self::SpecificData => "CSpecificData200",
            Self::ViewManipulation => "DViewManipilation160",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::NumericRange => "numeric_range",
            Self::ToggleOption => "toggle_option",
            Self::SpecificData => "specific_data",
            Self::ViewManipulation => "view_manipulation",
        }
    }

    /// The family of an image path, from a category folder among its segments.
    pub fn from_path(path: &str) -> Option<Self> {
        path.split('/')
            .find_map(|seg| Self::ALL.into_iter().find(|f| f.folder() == seg))
    }
}

/// Whether image files must exist (official) or are taken as present (when
/// only the annotations were supplied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImagePolicy {
    /// Spec §2.5: "An instance whose image cannot be found produces no result
    /// at all and does not enter any denominator."
    #[default]
    Check,
    /// Every image path resolves to its first candidate.
    AssumePresent,
}

/// One instance that yields an official result object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Instance {
    pub platform: Platform,
    /// The official index (`result_<index>.json`), spec §2.6.
    pub index: usize,
    /// The annotation's `image` field as written.
    pub image_field: String,
    /// The resolved path, the official `image_path`.
    pub image_path: String,
    /// File stem of `image_path`: the key for per-instance results.
    pub key: String,
    pub family: Option<Family>,
    /// Lower-cased component type (`unknown` when absent).
    pub component_type: String,
    /// The LOCATE instruction (sent only if truthy).
    pub locate: Value,
    /// The INTERACT instruction (sent only if truthy).
    pub interact: Value,
    /// B_loc (`bbox`, from desktop `locate`).
    pub bbox: Value,
    /// B_now (`now_coords`, from desktop `loactebbox`).
    pub now: Value,
    /// B_tgt (`target_coords`, from desktop `interactbbox`).
    pub target: Value,
    /// `file` or `file:line` the record came from.
    pub source: String,
}

/// Why a record produced no official result.
#[derive(Debug, Clone, PartialEq, Eq, Error, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum SkipReason {
    /// A line that is not JSON: it uses up no index.
    #[error("line is not valid JSON ({error}); the official loader skips it")]
    InvalidJson { error: String },
    /// Web/mobile: a JSON line that is not an object.
    #[error("record is not a JSON object; the official loader raises TypeError here and the whole official run stops")]
    NotAnObject,
    /// `image` missing or empty.
    #[error("record has no image path")]
    NoImage,
    /// `image` is not a string.
    #[error("image field is not a string")]
    ImageNotString,
    /// No candidate path exists.
    #[error("image not found (tried {})", tried.join(", "))]
    ImageNotFound { tried: Vec<String> },
    /// `component` or `component.instructions` or `processing_details` is
    /// not an object, or `component.type` is not a string (desktop).
    #[error("field `{field}` has the wrong shape; the official code raises and writes no result")]
    BadField { field: String },
    /// Desktop: an earlier record of the same file raised, and the official
    /// loader drops the rest of the file.
    #[error("dropped with the rest of its file: {cause}")]
    RestOfFileDropped { cause: String },
    /// Desktop: a whole file could not be read.
    #[error("file could not be read: {cause}")]
    FileUnreadable { cause: String },
    /// Desktop: a category lacks its image folder or its `json` folder.
    #[error("category folder `{missing}` is missing, so the official loader skips the category")]
    CategorySkipped { missing: String },
}

/// A record (or file) that produced no official result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub platform: Platform,
    pub source: String,
    /// The official index it used up, if any.
    pub index: Option<usize>,
    pub image: Option<String>,
    #[serde(flatten)]
    pub reason: SkipReason,
    /// The reason in words.
    pub message: String,
}

impl Skipped {
    pub(super) fn new(
        platform: Platform,
        source: String,
        index: Option<usize>,
        image: Option<String>,
        reason: SkipReason,
    ) -> Self {
        let message = reason.to_string();
        Self {
            platform,
            source,
            index,
            image,
            reason,
            message,
        }
    }
}

/// The loaded ground truth.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Dataset {
    pub instances: Vec<Instance>,
    pub skipped: Vec<Skipped>,
}

impl Dataset {
    /// Instances of one platform, in official index order.
    pub fn platform(&self, platform: Platform) -> impl Iterator<Item = &Instance> {
        self.instances
            .iter()
            .filter(move |i| i.platform == platform)
    }

    pub fn extend(&mut self, other: Dataset) {
        self.instances.extend(other.instances);
        self.skipped.extend(other.skipped);
    }
}

pub(super) struct Ctx<'a> {
    pub(super) files: &'a dyn FileSet,
    pub(super) policy: ImagePolicy,
}

impl Ctx<'_> {
    pub(super) fn exists(&self, path: &str) -> bool {
        self.policy == ImagePolicy::AssumePresent || self.files.exists(path)
    }
}

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
            for name in files.list_files(root) {
                if name.ends_with(".jsonl") {
                    let path = format!("{root}/{name}");
                    texts.push((path.clone(), files.read(&path).unwrap_or_default()));
                }
            }
            load_standard(&ctx, platform, &texts)
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

pub(super) fn obj_field<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    value.as_object().and_then(|o| o.get(key))
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
        let text = match crate::input::text::decode(bytes) {
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
            let record: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    data.skipped.push(Skipped::new(
                        platform,
                        source,
                        None,
                        None,
                        SkipReason::InvalidJson {
                            error: e.to_string(),
                        },
                    ));
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
    use crate::score::finestate::files::MemFiles;

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
