//! What the official loaders produce (spec §2): the platforms and task
//! families, a loaded [`Instance`], a record that produced none
//! ([`Skipped`], with its [`SkipReason`]) and the [`Dataset`] of both. The
//! desktop loader ([`super::desktop`]) and the standard one
//! ([`super::loader`], which also dispatches between them and re-exports
//! these types) both build them, so they live apart from either.

use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

use super::files::FileSet;

/// A FineState-Bench platform, with its data root folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// Desktop applications (`desktop_en`).
    Desktop,
    /// Web pages (`web_en`).
    Web,
    /// Mobile apps (`mobile_en`).
    Mobile,
}

impl Platform {
    /// Every platform, in the order the reports list them.
    pub const ALL: [Platform; 3] = [Platform::Desktop, Platform::Web, Platform::Mobile];

    /// `desktop_en`, `web_en` or `mobile_en`.
    pub fn data_root(self) -> &'static str {
        match self {
            Self::Desktop => "desktop_en",
            Self::Web => "web_en",
            Self::Mobile => "mobile_en",
        }
    }

    /// The platform's name in reports (`desktop`).
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
    /// Setting a value in a range (sliders, spinners).
    NumericRange,
    /// Turning an option on or off, or choosing one.
    ToggleOption,
    /// Entering or picking specific data.
    SpecificData,
    /// Changing the view (zoom, scroll, layout).
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

    /// The family's name in reports (`numeric_range`).
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
    /// The platform it belongs to.
    pub platform: Platform,
    /// The official index (`result_<index>.json`), spec §2.6.
    pub index: usize,
    /// The annotation's `image` field as written.
    pub image_field: String,
    /// The resolved path, the official `image_path`.
    pub image_path: String,
    /// File stem of `image_path`: the key for per-instance results.
    pub key: String,
    /// Its interaction family, from its category folder (when known).
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
    InvalidJson {
        /// The JSON reader's message.
        error: String,
    },
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
    ImageNotFound {
        /// The paths tried.
        tried: Vec<String>,
    },
    /// An image path that is absolute or climbs out of the dataset folder
    /// with `..`: refused, never looked up (the input layer's path rule).
    #[error("image path refused: {cause}")]
    ImagePathRefused {
        /// The path and what is wrong with it.
        cause: String,
    },
    /// `component` or `component.instructions` or `processing_details` is
    /// not an object, or `component.type` is not a string (desktop).
    #[error("field `{field}` has the wrong shape; the official code raises and writes no result")]
    BadField {
        /// The field.
        field: String,
    },
    /// Desktop: an earlier record of the same file raised, and the official
    /// loader drops the rest of the file.
    #[error("dropped with the rest of its file: {cause}")]
    RestOfFileDropped {
        /// What the earlier record raised.
        cause: String,
    },
    /// Desktop: a whole file could not be read.
    #[error("file could not be read: {cause}")]
    FileUnreadable {
        /// Why.
        cause: String,
    },
    /// Desktop: a category lacks its image folder or its `json` folder.
    #[error("category folder `{missing}` is missing, so the official loader skips the category")]
    CategorySkipped {
        /// The folder that is missing.
        missing: String,
    },
}

/// A record (or file) that produced no official result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// The platform.
    pub platform: Platform,
    /// The file (and line) of the record.
    pub source: String,
    /// The official index it used up, if any.
    pub index: Option<usize>,
    /// Its image field, when it had one.
    pub image: Option<String>,
    #[serde(flatten)]
    /// Why it produced no result.
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

    /// A line of a JSON Lines file that is not JSON: skipped before it is
    /// counted, with the reader's message.
    pub(super) fn invalid_json(
        platform: Platform,
        source: String,
        e: &impl std::fmt::Display,
    ) -> Self {
        Skipped::new(
            platform,
            source,
            None,
            None,
            SkipReason::InvalidJson {
                error: e.to_string(),
            },
        )
    }
}

/// The loaded ground truth.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Dataset {
    /// The instances that yield official results, in official order.
    pub instances: Vec<Instance>,
    /// The records that yield none, with why.
    pub skipped: Vec<Skipped>,
}

impl Dataset {
    /// Instances of one platform, in official index order.
    pub fn platform(&self, platform: Platform) -> impl Iterator<Item = &Instance> {
        self.instances
            .iter()
            .filter(move |i| i.platform == platform)
    }

    /// Adds another load's instances and skipped records after these.
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

pub(super) fn obj_field<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    value.as_object().and_then(|o| o.get(key))
}
