//! The device library: the one shipped inside the package (its files
//! embedded at build time), a library at a path, and opening a device by
//! id or by path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;

use knoblab_app::documents;
use knoblab_core::bundle::generated::{is_generated, GeneratedIndex, GENERATED_FILE};
use knoblab_core::bundle::{load_path, Bundle, LibraryEntry, LibraryIndex};

use knoblab_core::input::InputError;

use crate::errors::{self, Kind, Raised};
use crate::json_text;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/library.rs"));
}

/// The embedded library's files, by path relative to its index.
fn library_files() -> &'static HashMap<&'static str, &'static [u8]> {
    static FILES: OnceLock<HashMap<&'static str, &'static [u8]>> = OnceLock::new();
    FILES.get_or_init(|| embedded::LIBRARY_FILES.iter().copied().collect())
}

/// A file of the shipped library, or the input layer's error naming it.
pub(crate) fn read_embedded(rel: &str) -> Result<Vec<u8>, InputError> {
    library_files()
        .get(rel)
        .map(|b| b.to_vec())
        .ok_or_else(|| InputError::Io {
            path: knoblab_core::input::text::escape_controls(rel).into_owned(),
            message: "the shipped library has no such file".into(),
        })
}

/// The shipped library: its hand-described devices, then the generated
/// ones of its manifest (made when opened), parsed once.
pub(crate) fn shipped_index() -> Result<LibraryIndex, Raised> {
    static INDEX: OnceLock<Result<LibraryIndex, String>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let read = |rel: &str| read_embedded(rel).map_err(|e| e.to_string());
            let hand = LibraryIndex::parse(&read("library.json")?).map_err(|e| e.to_string())?;
            let generated =
                GeneratedIndex::parse(&read(GENERATED_FILE)?).map_err(|e| e.to_string())?;
            Ok(hand.with_generated(&generated))
        })
        .clone()
        .map_err(|m| Raised::new(Kind::Bundle, m))
}

/// A bundle by path, or by the id of a device of the shipped library
/// (loaded once per process). A source that is neither is a
/// `BundleNotFoundError` naming the library's devices.
pub(crate) fn open_bundle(source: &str) -> Result<Arc<Bundle>, Raised> {
    let path = Path::new(source);
    if path.exists() {
        return load_path(path)
            .map(Arc::new)
            .map_err(|e| errors::load(e).at(path));
    }
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Bundle>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(b) = cache.lock().ok().and_then(|c| c.get(source).cloned()) {
        return Ok(b);
    }
    let index = shipped_index()?;
    let Some(entry) = index.entry(source) else {
        let (generated, hand): (Vec<&LibraryEntry>, Vec<&LibraryEntry>) =
            index.devices.iter().partition(|d| is_generated(d));
        let ids: Vec<&str> = hand.iter().map(|d| d.id.as_str()).collect();
        let message = format!(
            "{source}: no such file or folder, and no device of that id in the shipped library \
             of {} devices ({}, and {} generated ones such as {}; knoblab.library() lists them)",
            index.devices.len(),
            ids.join(", "),
            generated.len(),
            generated.first().map_or("", |d| d.id.as_str())
        );
        return Err(Raised::new(Kind::Bundle, message).at(path));
    };
    let bundle =
        Arc::new(documents::library::load_entry(entry, &read_embedded).map_err(errors::library)?);
    if let Ok(mut c) = cache.lock() {
        c.insert(source.to_string(), bundle.clone());
    }
    Ok(bundle)
}

/// The devices and tasks of a library: the shipped one, or the index at
/// `path` (its `library.json`, or the folder holding it). JSON.
#[pyfunction]
#[pyo3(signature = (path=None))]
pub(crate) fn library_json(py: Python<'_>, path: Option<PathBuf>) -> PyResult<String> {
    let devices = match path {
        Some(p) => {
            let index = if p.is_dir() {
                p.join("library.json")
            } else {
                p
            };
            py.allow_threads(|| documents::library::list(&index))
                .map_err(|e| errors::library(e).at(&index))?
        }
        None => {
            // The shipped library does not change: listed once per process
            // (the generated devices' tasks come from the task list beside
            // the manifest; nothing is made).
            static SHIPPED: OnceLock<String> = OnceLock::new();
            if let Some(text) = SHIPPED.get() {
                return Ok(text.clone());
            }
            let index = shipped_index()?;
            let devices = py
                .allow_threads(|| documents::library::describe_all(&index, &read_embedded))
                .map_err(errors::library)?;
            let text = json_text(&devices)?;
            return Ok(SHIPPED.get_or_init(|| text).clone());
        }
    };
    json_text(&devices)
}

/// The shipped library's identity, as every trajectory of one of its
/// devices records it: JSON of {version, hash}.
#[pyfunction]
pub(crate) fn library_version_json() -> PyResult<String> {
    let library = knoblab_core::bundle::stamp::shipped().ok_or_else(|| {
        Raised::new(
            Kind::Bundle,
            "this build has no library version compiled in",
        )
    })?;
    json_text(&library.stamp())
}

/// The ids of the shipped library's devices, in index order.
#[pyfunction]
pub(crate) fn shipped_device_ids() -> PyResult<Vec<String>> {
    Ok(shipped_index()?.devices.into_iter().map(|d| d.id).collect())
}
