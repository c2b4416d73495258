//! The device library generator (feature `generate`; building the library
//! on disk is native only, making a device in memory works on wasm32 too): from compact descriptions
//! (`data/gen/<Category>.json`) and the category templates
//! (`data/ucsm/<Category>.json`) to the shipped bundles
//! (`data/devices/<id>/`), their index (`data/library.json`) and a contact
//! sheet (`data/library-sheet.png`). `knoblab library build` runs it.
//!
//! ## Overview
//!
//! A device is described once: its body (a box or a cylinder, sizes,
//! colours) and its parts, each placed on a face with a look (button, knob
//! with pointer and scale, slide switch, door, display with text…). From
//! that one description every view is drawn as SVG and rendered with
//! resvg, and every component's box is measured on the same parsed
//! drawing, so a box cannot disagree with its picture: no box is typed by
//! hand. The SSM is derived from the category template with
//! [`knoblab_core::bundle::derive_device`], each transition's action and
//! parameters worked out from the component's operation; tasks are found
//! by path search. A generated bundle must load with no diagnostic at all.
//!
//! ## Source code layout
//!
//! - [`desc`]: the description files.
//! - [`mechanics`]: actions and parameters from a component's operation.
//! - [`views`]: faces and projections of the eight (or nine) views.
//! - [`draw`], [`icons`], [`svg`]: the SVG of bodies and parts; `looks/`:
//!   one drawing function per look of a part.
//! - [`render`]: SVG to pixels, PNG and measured boxes (resvg).
//! - [`font`]: labels as the outlines of the vendored font's glyphs.
//! - [`device`]: one device's bundle.
//! - [`live`]: what each state shows: the live layer's patches.
//! - [`tasks`]: single- and multi-turn tasks by path search.
//! - [`sheet`]: the contact sheets.
//! - [`vary`]: the seeded variation generator (variants of a category).
//! - [`generated`]: the generated devices: made on demand, their manifest.
//! - [`stats`]: the library's figures beside the paper's.

pub mod desc;
pub mod device;
pub mod draw;
pub mod font;
pub mod generated;
pub mod icons;
pub mod live;
mod looks;
pub mod mechanics;
pub mod render;
pub mod sheet;
pub mod stats;
pub mod svg;
pub mod tasks;
pub mod vary;
pub mod views;

// Building the library on disk is native only.
#[cfg(not(target_arch = "wasm32"))]
use {
    knoblab_core::bundle::{LibraryIndex, StateMachine, LIBRARY_FORMAT},
    knoblab_core::input::fs::write_atomic,
    std::collections::BTreeMap,
    std::path::{Path, PathBuf},
};

use knoblab_core::bundle::LibraryEntry;

pub use desc::{CategoryFile, DeviceDesc};
pub use device::{draw, generate, DeviceError, Generated};
pub use generated::GeneratedError;

/// Why the library could not be built on disk.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// A file or folder could not be read, made or removed.
    #[error("{path}: {message}")]
    Io {
        /// The file or folder.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// A description file is not its JSON.
    #[error(
        "{path}: {error}; expected {{\"category\", \"operations\", \"devices\"}} (see data/README.md)"
    )]
    Description {
        /// The file.
        path: String,
        /// The JSON reader's error.
        error: knoblab_core::input::json::JsonError,
    },
    /// A description or template file refused by the input layer (not a
    /// regular file, too large, not UTF-8).
    #[error("{path}: {error}")]
    Read {
        /// The file.
        path: String,
        /// The rule it broke.
        error: knoblab_core::input::InputError,
    },
    /// A description's category has no template to read.
    #[error("{path}: category {category:?}: no template at {template}: {error}")]
    NoTemplate {
        /// The description file.
        path: String,
        /// Its category.
        category: String,
        /// Where its template was looked for.
        template: String,
        /// Why it could not be read.
        error: Box<knoblab_core::input::InputError>,
    },
    /// A template is not its JSON.
    #[error("{path}: {error}")]
    Template {
        /// The template file.
        path: String,
        /// The JSON reader's error.
        error: knoblab_core::input::json::JsonError,
    },
    /// Two description files describe a device of the same id.
    #[error("device id {id} is used twice ({first} and {second})")]
    DuplicateId {
        /// The id.
        id: String,
        /// The category it is first described in.
        first: String,
        /// The category it is described in again.
        second: String,
    },
    /// A device could not be made.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// A contact sheet could not be made.
    #[error(transparent)]
    Sheet(#[from] sheet::SheetError),
    /// A file could not be written (through the input layer).
    #[error(transparent)]
    Write(#[from] knoblab_core::input::InputError),
    /// The index could not be written as JSON.
    #[error("{message}")]
    Json {
        /// The JSON writer's message.
        message: String,
    },
    /// A device made for the live sheet was refused by the loader.
    #[error("{0}")]
    Load(knoblab_core::bundle::LoadError),
}

/// Where things are, relative to the repository root.
pub const GEN_DIR: &str = "data/gen";
/// The category templates (`<category>.json`), relative to the repository root.
pub const UCSM_DIR: &str = "data/ucsm";
/// The folder of bundles inside the output folder.
pub const DEVICES_DIR: &str = "devices";
/// The library index, in the output folder.
pub const INDEX_FILE: &str = "library.json";
/// A contact sheet of every device, in the output folder.
pub const SHEET_FILE: &str = "library-sheet.png";
/// Six devices in three states each, drawn live (see [`sheet::live_sheet`]).
pub const LIVE_SHEET_FILE: &str = "live-sheet.png";

/// A description or template file's text, through the input layer
/// (a regular file within the bundle file cap, UTF-8 by its one rule).
#[cfg(not(target_arch = "wasm32"))]
fn read_text(path: &std::path::Path) -> Result<String, knoblab_core::input::InputError> {
    let bytes = knoblab_core::input::fs::read_regular(
        path,
        knoblab_core::input::limits::MAX_FILE_BYTES as u64,
    )?;
    knoblab_core::input::text::decode_owned(bytes)
}

/// Every description file of `gen_dir`, by file name, with its template
/// from `ucsm_dir`.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_descriptions(
    gen_dir: &Path,
    ucsm_dir: &Path,
) -> Result<Vec<(CategoryFile, StateMachine)>, BuildError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| BuildError::Io {
            path,
            message: e.to_string(),
        }
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(gen_dir)
        .map_err(io(gen_dir))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = read_text(&path).map_err(|error| BuildError::Read {
            path: path.display().to_string(),
            error,
        })?;
        let file: CategoryFile =
            knoblab_core::input::json::from_text(&text).map_err(|e| BuildError::Description {
                path: path.display().to_string(),
                error: e,
            })?;
        let ucsm_path = ucsm_dir.join(format!("{}.json", file.category));
        let ucsm_text = read_text(&ucsm_path).map_err(|error| BuildError::NoTemplate {
            path: path.display().to_string(),
            category: file.category.clone(),
            template: ucsm_path.display().to_string(),
            error: Box::new(error),
        })?;
        let ucsm: StateMachine =
            knoblab_core::input::json::from_text(&ucsm_text).map_err(|e| BuildError::Template {
                path: ucsm_path.display().to_string(),
                error: e,
            })?;
        out.push((file, ucsm));
    }
    Ok(out)
}

/// What a build wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Devices written.
    pub devices: usize,
    /// Their tasks, all together.
    pub tasks: usize,
    /// Bytes of every bundle file together.
    pub bytes: u64,
    /// Category files read.
    pub categories: usize,
}

/// Generates the whole library into `out` (`devices/`, `library.json`,
/// `library-sheet.png`, `live-sheet.png`), replacing `out/devices` entirely.
#[cfg(not(target_arch = "wasm32"))]
pub fn build_library(gen_dir: &Path, ucsm_dir: &Path, out: &Path) -> Result<Summary, BuildError> {
    let categories = read_descriptions(gen_dir, ucsm_dir)?;
    let mut generated: Vec<Generated> = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for (file, ucsm) in &categories {
        for desc in &file.devices {
            if let Some(other) = seen.insert(desc.id.clone(), file.category.clone()) {
                return Err(BuildError::DuplicateId {
                    id: desc.id.clone(),
                    first: other,
                    second: file.category.clone(),
                });
            }
            generated.push(generate(file, desc, ucsm, true)?);
        }
    }
    let devices_dir = out.join(DEVICES_DIR);
    if devices_dir.exists() {
        std::fs::remove_dir_all(&devices_dir).map_err(|e| BuildError::Io {
            path: devices_dir.display().to_string(),
            message: e.to_string(),
        })?;
    }
    let mut index = LibraryIndex {
        format: LIBRARY_FORMAT.to_string(),
        devices: Vec::new(),
    };
    let mut bytes = 0u64;
    for device in &generated {
        let folder = devices_dir.join(&device.manifest.id);
        for (name, data) in &device.files {
            let path = folder.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| BuildError::Io {
                    path: parent.display().to_string(),
                    message: e.to_string(),
                })?;
            }
            // Through a temporary file renamed into place (input layer).
            write_atomic(&path, data)?;
            bytes += data.len() as u64;
        }
        index.devices.push(entry(device));
    }
    let index_json = serde_json::to_string_pretty(&index).map_err(|e| BuildError::Json {
        message: e.to_string(),
    })? + "\n";
    let index_path = out.join(INDEX_FILE);
    write_atomic(&index_path, index_json.as_bytes())?;
    let sheet_devices: Vec<(&str, &DeviceDesc)> = categories
        .iter()
        .flat_map(|(file, _)| {
            file.devices
                .iter()
                .map(move |d| (file.category.as_str(), d))
        })
        .collect();
    let sheet_path = out.join(SHEET_FILE);
    write_atomic(&sheet_path, &sheet::contact_sheet(&sheet_devices)?)?;
    // The live sheet shows the devices of `sheet::LIVE_SHEET` that this
    // build makes (all of them for the shipped library; a build of a few
    // categories shows those it has, and writes no sheet if it has none).
    let mut shown = Vec::new();
    for (id, ..) in sheet::LIVE_SHEET {
        let Some(device) = generated.iter().find(|g| g.manifest.id == id) else {
            continue;
        };
        let files: Vec<(String, Vec<u8>)> = device
            .files
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        shown.push(knoblab_core::bundle::load_files(id, files).map_err(BuildError::Load)?);
    }
    if !shown.is_empty() {
        let live_path = out.join(LIVE_SHEET_FILE);
        write_atomic(
            &live_path,
            &sheet::live_sheet(&shown.iter().collect::<Vec<_>>())?,
        )?;
    }
    Ok(Summary {
        devices: generated.len(),
        tasks: generated.iter().map(|g| g.tasks).sum(),
        bytes,
        categories: categories.len(),
    })
}

/// The index entry of a generated device.
pub fn entry(device: &Generated) -> LibraryEntry {
    LibraryEntry {
        id: device.manifest.id.clone(),
        name: device.manifest.name.clone(),
        category: device.manifest.category.clone(),
        path: format!("{DEVICES_DIR}/{}", device.manifest.id),
        files: device.files.keys().cloned().collect(),
        thumbnail: "views/front.png".to_string(),
        tasks: device.tasks,
    }
}
