//! Loading a bundle from a folder, a `.zip` of it, or one JSON file whose
//! images are `data:` URLs, validating it on the way.
//!
//! All three forms go through the same steps: read the four small files,
//! read each view image's size from its header, then run every rule of
//! [`super::validate`]. Every problem is collected; a bundle is returned
//! only when none is an error.

// A `Diagnostic` (about 160 bytes) is the error of the helpers below. They
// run a few times per load, on the cold path; boxing would only add noise.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;

use super::diagnostics::{Diagnostic, LoadError, Location};
use super::image::{decode_data_url, read_view_image, ViewImage};
use super::limits::{human_bytes, MAX_BUNDLE_BYTES, MAX_DIAGNOSTICS};
use super::live::{Live, LiveSpec, LIVE_FILE};
use super::model::{Bundle, Manifest, StateMachine, TaskFile, View, ViewSpec};
use super::source::{normalize_path, FileSource, SourceError, ZipSource};
use super::validate::{
    check_live, validate, Parts, MANIFEST_FILE, SSM_FILE, TASKS_FILE, VIEWS_FILE,
};

pub use super::hash::logic_hash;

/// The outcome of checking a bundle: the bundle when it has no errors, and
/// every problem found (warnings too, which a successful load would drop).
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// What the input is called in messages (a path, a file name, a URL).
    pub source: String,
    /// The bundle, when no problem is an error.
    pub bundle: Option<Bundle>,
    /// Every problem found, errors and warnings, in a stable order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// Whether any problem refuses the bundle.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The bundle, or every problem found.
    pub fn into_result(self) -> Result<Bundle, LoadError> {
        match self.bundle {
            Some(bundle) => Ok(bundle),
            None => Err(LoadError {
                source: self.source,
                diagnostics: self.diagnostics,
            }),
        }
    }

    fn failed(source: &str, diagnostic: Diagnostic) -> Self {
        Checked {
            source: source.to_string(),
            bundle: None,
            diagnostics: vec![diagnostic],
        }
    }
}

/// Loads a bundle from the bytes of a `.zip` or of a single JSON file.
/// `name` is what error messages call the input (a file name or a URL).
/// Works the same on wasm32 (the page calls it on a dropped or fetched file).
///
/// ```
/// let err = knoblab_core::bundle::load_bytes("junk.bin", b"\x00\x01garbage").unwrap_err();
/// assert!(err.to_string().contains("junk.bin"));
/// ```
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Bundle, LoadError> {
    check_bytes(name, bytes).into_result()
}

/// Loads a bundle from a folder, a `.zip` or a single JSON file on disk.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_path(path: &std::path::Path) -> Result<Bundle, LoadError> {
    check_path(path).into_result()
}

/// Loads a bundle from its files held in memory, each with its path inside
/// the bundle folder (`manifest.json`, `views/front.png`; one common top
/// folder is allowed). This is how the page reads a dropped folder and a
/// library device fetched file by file.
///
/// ```
/// let err = knoblab_core::bundle::load_files("dropped", Vec::new()).unwrap_err();
/// assert!(err.to_string().contains("manifest.json"));
/// ```
pub fn load_files(name: &str, files: Vec<(String, Vec<u8>)>) -> Result<Bundle, LoadError> {
    check_files_in_memory(name, files).into_result()
}

/// Like [`load_files`], keeping the warnings.
pub fn check_files_in_memory(name: &str, files: Vec<(String, Vec<u8>)>) -> Checked {
    let total = files
        .iter()
        .fold(0usize, |sum, (_, b)| sum.saturating_add(b.len()));
    if total > MAX_BUNDLE_BYTES {
        return too_big(name, "the bundle's files take", total);
    }
    check_files(name, &mut super::source::MapSource::new(files))
}

/// A bundle refused by its size (`what` says whose size: "the bundle takes").
fn too_big(name: &str, what: &str, bytes: usize) -> Checked {
    Checked::failed(
        name,
        Diagnostic::error(
            Location::file(name),
            format!(
                "{what} {}; at most {} is accepted",
                human_bytes(bytes as u64),
                human_bytes(MAX_BUNDLE_BYTES as u64)
            ),
        ),
    )
}

/// Like [`load_bytes`], keeping the warnings (for `knoblab validate`).
///
/// A zip is recognised by its signature (`PK`); anything else is read as the
/// single-file JSON form.
pub fn check_bytes(name: &str, bytes: &[u8]) -> Checked {
    if bytes.len() > MAX_BUNDLE_BYTES {
        return too_big(name, "the bundle takes", bytes.len());
    }
    if bytes.starts_with(b"PK") {
        match ZipSource::open(bytes) {
            Ok(mut zip) => check_files(name, &mut zip),
            Err(e) => Checked::failed(name, Diagnostic::error(Location::file(name), e.to_string())),
        }
    } else {
        check_single_json(name, bytes)
    }
}

/// Like [`load_path`], keeping the warnings (for `knoblab validate`).
#[cfg(not(target_arch = "wasm32"))]
pub fn check_path(path: &std::path::Path) -> Checked {
    let name = path.display().to_string();
    if path.is_dir() {
        let mut dir = super::source::DirSource::new(path);
        return check_files(&name, &mut dir);
    }
    // Only a regular file is opened: a FIFO or a device is named and refused.
    let read = crate::input::fs::read_regular(path, MAX_BUNDLE_BYTES as u64).map_err(|e| match e {
        crate::input::InputError::NotRegular { kind, .. } => format!("is {kind}"),
        crate::input::InputError::TooLarge { found, cap, .. } => {
            format!("takes {found}; at most {cap} is accepted")
        }
        other => other.to_string(),
    });
    match read {
        Ok(bytes) => check_bytes(&name, &bytes),
        Err(message) => Checked::failed(
            &name,
            Diagnostic::error(
                Location::file(name.as_str()),
                format!(
                    "{message}; expected a bundle folder, a .zip of one, or a single JSON file"
                ),
            ),
        ),
    }
}

/// Parses one JSON document into `T`, or a diagnostic with its line and
/// column. `serde_json`'s recursion limit stays on (see
/// [`super::limits::MAX_JSON_DEPTH`]).
///
/// The text goes through the input layer first ([`crate::input::json`]): a
/// UTF-8 byte-order mark is stripped, UTF-16 and UTF-32 are named, invalid
/// UTF-8 is located, and a key given twice in one object is refused with
/// both positions.
fn parse_json<T: DeserializeOwned>(file: &str, bytes: &[u8]) -> Result<T, Diagnostic> {
    crate::input::json::from_bytes(bytes).map_err(|e| input_diagnostic(file, e))
}

/// A diagnostic for a JSON file refused by the input layer or the parser.
fn input_diagnostic(file: &str, e: crate::input::json::JsonError) -> Diagnostic {
    use crate::input::{json::JsonError, InputError};
    match e {
        JsonError::Parse(e) => json_diagnostic(file, &e),
        JsonError::Input(e) => {
            let location = match &e {
                InputError::DuplicateKey { line, column, .. }
                | InputError::InvalidUtf8 { line, column, .. } => {
                    Location::file(file).at(*line, *column)
                }
                _ => Location::file(file),
            };
            Diagnostic::error(location, e.to_string())
        }
    }
}

fn json_diagnostic(file: &str, e: &crate::input::json::ParseError) -> Diagnostic {
    use crate::input::json::ParseKind;
    let mut message = e.message().to_string();
    let mut location = Location::file(file);
    if e.line > 0 {
        // serde_json appends " at line L column C"; the location says it.
        if let Some(cut) = message.rfind(" at line ") {
            message.truncate(cut);
        }
        location = location.at(e.line, e.column);
    }
    let what = match e.kind {
        ParseKind::Syntax | ParseKind::Eof => "not valid JSON",
        ParseKind::Data => "does not fit the bundle format",
        ParseKind::Io => "could not be read",
    };
    Diagnostic::error(location, format!("{what}: {message}"))
}

/// The parts read so far, before validation.
#[derive(Default)]
struct Draft {
    manifest: Option<Manifest>,
    ssm: Option<StateMachine>,
    views: Option<BTreeMap<String, ViewSpec>>,
    tasks: Option<TaskFile>,
    images: BTreeMap<String, ViewImage>,
    /// The optional live layer and its sheets, by view.
    live: Option<LiveSpec>,
    sheets: BTreeMap<String, ViewImage>,
    diagnostics: Vec<Diagnostic>,
}

impl Draft {
    fn take<T>(&mut self, result: Result<T, Diagnostic>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(d) => {
                self.diagnostics.push(d);
                None
            }
        }
    }

    /// Reads each view's image with `bytes_of`, keeping the sizes of those
    /// that are images and reporting the others at the view's `file` field.
    fn read_images(&mut self, mut bytes_of: impl FnMut(&str) -> Result<Vec<u8>, SourceError>) {
        let Some(views) = &self.views else { return };
        for (name, spec) in views {
            let at = Location::file(VIEWS_FILE).field(format!("{name}.file"));
            let shown = if spec.file.starts_with("data:") {
                "the data: URL".to_string()
            } else {
                format!("`{}`", spec.file)
            };
            match bytes_of(&spec.file).and_then(|b| Ok(read_view_image(b)?)) {
                Ok(image) => {
                    self.images.insert(name.clone(), image);
                }
                Err(message) => self
                    .diagnostics
                    .push(Diagnostic::error(at, format!("{shown}: {message}"))),
            }
        }
    }

    /// Reads the live layer's sheets with `bytes_of`, reporting those that
    /// are not images at the sheet's field of `live.json`.
    fn read_sheets(&mut self, mut bytes_of: impl FnMut(&str) -> Result<Vec<u8>, SourceError>) {
        let Some(live) = &self.live else { return };
        for (view, file) in &live.sheets {
            match bytes_of(file).and_then(|b| Ok(read_view_image(b)?)) {
                Ok(image) => {
                    self.sheets.insert(view.clone(), image);
                }
                Err(e) => self.diagnostics.push(Diagnostic::error(
                    Location::file(LIVE_FILE).field(format!("sheets.{view}")),
                    e.to_string(),
                )),
            }
        }
    }

    /// Validates what was read and, when nothing is an error, builds the bundle.
    fn finish(mut self, source: &str) -> Checked {
        let sizes: BTreeMap<String, (u32, u32)> = self
            .images
            .iter()
            .map(|(name, image)| (name.clone(), (image.width, image.height)))
            .collect();
        let found = validate(Parts {
            manifest: self.manifest.as_ref(),
            ssm: self.ssm.as_ref(),
            views: self.views.as_ref(),
            image_sizes: &sizes,
            tasks: self.tasks.as_ref().map(|t| t.tasks.as_slice()),
        });
        self.diagnostics.extend(found);
        if let Some(live) = &self.live {
            check_live(
                live,
                self.views.as_ref(),
                &self.images,
                self.ssm.as_ref(),
                &self.sheets,
                &mut self.diagnostics,
            );
        }
        // One order whatever the form or the step that found a problem: by
        // file, then as found (the rules walk each file in order).
        let rank = |d: &Diagnostic| {
            [MANIFEST_FILE, SSM_FILE, VIEWS_FILE, TASKS_FILE, LIVE_FILE]
                .iter()
                .position(|f| *f == d.location.file)
                .unwrap_or(0)
        };
        self.diagnostics.sort_by_key(rank);
        if self.diagnostics.len() > MAX_DIAGNOSTICS {
            let cut = self.diagnostics.split_off(MAX_DIAGNOSTICS);
            let errors = cut.iter().filter(|d| d.is_error()).count();
            let last = Location::file(source);
            let message = format!(
                "… and {} more problem(s) ({errors} error(s)) not listed; at most \
                 {MAX_DIAGNOSTICS} are shown",
                cut.len()
            );
            self.diagnostics.push(if errors > 0 {
                Diagnostic::error(last, message)
            } else {
                Diagnostic::warning(last, message)
            });
        }
        let has_errors = self.diagnostics.iter().any(Diagnostic::is_error);
        let bundle = match (self.manifest, self.ssm, self.views, self.tasks) {
            (Some(manifest), Some(ssm), Some(specs), Some(tasks)) if !has_errors => {
                let mut images = self.images;
                let views: Option<BTreeMap<String, View>> = specs
                    .into_iter()
                    .map(|(name, spec)| {
                        let image = images.remove(&name)?;
                        Some((name, View { spec, image }))
                    })
                    .collect();
                let live = self.live.map(|spec| Live {
                    spec,
                    sheets: self.sheets,
                });
                views.map(|views| Bundle {
                    manifest,
                    ssm,
                    views,
                    tasks: tasks.tasks,
                    live,
                })
            }
            _ => None,
        };
        Checked {
            source: source.to_string(),
            bundle,
            diagnostics: self.diagnostics,
        }
    }
}

/// The folder and zip forms: the four files by name, the images by path.
fn check_files(source: &str, files: &mut dyn FileSource) -> Checked {
    let mut draft = Draft::default();
    let mut read = |file: &str| -> Result<Vec<u8>, Diagnostic> {
        match files.read(file) {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(Diagnostic::error(
                Location::file(file),
                format!(
                    "the file is missing; a bundle holds {MANIFEST_FILE}, {SSM_FILE}, {VIEWS_FILE}, \
                     {TASKS_FILE} and the view images"
                ),
            )),
            Err(e) => Err(Diagnostic::error(Location::file(file), e.to_string())),
        }
    };
    let manifest = read(MANIFEST_FILE).and_then(|b| parse_json(MANIFEST_FILE, &b));
    let ssm = read(SSM_FILE).and_then(|b| parse_json(SSM_FILE, &b));
    let views = read(VIEWS_FILE).and_then(|b| parse_json(VIEWS_FILE, &b));
    let tasks = read(TASKS_FILE).and_then(|b| parse_json(TASKS_FILE, &b));
    draft.manifest = draft.take(manifest);
    draft.ssm = draft.take(ssm);
    draft.views = draft.take(views);
    draft.tasks = draft.take(tasks);
    // The live layer is optional: no `live.json`, no layer.
    let live = match files.read(LIVE_FILE) {
        Ok(None) => Ok(None),
        Ok(Some(bytes)) => parse_json(LIVE_FILE, &bytes).map(Some),
        Err(e) => Err(Diagnostic::error(Location::file(LIVE_FILE), e.to_string())),
    };
    draft.live = draft.take(live).flatten();
    let mut bundle_file = |file: &str| {
        if file.starts_with("data:") {
            return Ok(decode_data_url(file)?);
        }
        let path = normalize_path(file)?;
        files.read(&path)?.ok_or(SourceError::Missing { path })
    };
    draft.read_images(&mut bundle_file);
    draft.read_sheets(&mut bundle_file);
    draft.finish(source)
}

/// The single-file form: `{"manifest": ..., "ssm": ..., "views": ...,
/// "tasks": ...}` with each view's `file` a `data:` URL.
fn check_single_json(source: &str, bytes: &[u8]) -> Checked {
    let value: serde_json::Value = match crate::input::json::from_bytes(bytes) {
        Ok(value) => value,
        Err(e) => {
            let mut d = input_diagnostic(source, e);
            d.message = format!(
                "{}; expected a bundle: a .zip of a bundle folder, or one JSON object with keys \
                 manifest, ssm, views, tasks",
                d.message
            );
            return Checked::failed(source, d);
        }
    };
    let serde_json::Value::Object(mut object) = value else {
        return Checked::failed(
            source,
            Diagnostic::error(
                Location::file(source),
                format!(
                    "found JSON {}; expected one object with keys manifest, ssm, views, tasks",
                    json_kind(&value)
                ),
            ),
        );
    };
    let mut draft = Draft::default();
    let mut part = |key: &str, file: &str| -> Result<serde_json::Value, Diagnostic> {
        object.remove(key).ok_or_else(|| {
            Diagnostic::error(
                Location::file(source).field(key),
                format!(
                    "the key `{key}` is missing; the single-file form holds manifest, ssm, views \
                     and tasks (what a folder keeps in {file})"
                ),
            )
        })
    };
    fn typed<T: DeserializeOwned>(file: &str, value: serde_json::Value) -> Result<T, Diagnostic> {
        serde_json::from_value(value).map_err(|e| json_diagnostic(file, &e.into()))
    }
    let manifest = part("manifest", MANIFEST_FILE).and_then(|v| typed(MANIFEST_FILE, v));
    let ssm = part("ssm", SSM_FILE).and_then(|v| typed(SSM_FILE, v));
    let views = part("views", VIEWS_FILE).and_then(|v| typed(VIEWS_FILE, v));
    let tasks = part("tasks", TASKS_FILE).and_then(|v| typed(TASKS_FILE, v));
    draft.manifest = draft.take(manifest);
    draft.ssm = draft.take(ssm);
    draft.views = draft.take(views);
    draft.tasks = draft.take(tasks);
    let live = object
        .remove("live")
        .map(|v| typed::<LiveSpec>(LIVE_FILE, v))
        .transpose();
    draft.live = draft.take(live).flatten();
    let data_url = |file: &str| {
        if file.starts_with("data:") {
            Ok(decode_data_url(file)?)
        } else {
            Err(SourceError::NotDataUrl {
                file: file.to_string(),
            })
        }
    };
    draft.read_images(data_url);
    draft.read_sheets(data_url);
    draft.finish(source)
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
