//! The index of a device library (`data/library.json`, format
//! `knoblab-library/1`): which bundles the page ships, where their files
//! are, and what a library card shows. The generator writes it; the page
//! reads it, fetches each device's listed files and loads them with
//! [`super::load_files`]. Paths are relative to the index file.
//!
//! ```
//! use knoblab::bundle::LibraryIndex;
//! let index = LibraryIndex::parse(br#"{"format": "knoblab-library/1", "devices": [
//!   {"id": "kettle-0001", "name": "Electric kettle", "category": "ElectricKettle",
//!    "path": "devices/kettle-0001", "thumbnail": "views/front.png", "tasks": 10,
//!    "files": ["manifest.json", "ssm.json", "views.json", "tasks.json", "views/front.png"]}]}"#)
//!     .unwrap();
//! assert_eq!(index.devices[0].file_url("views/front.png"), "devices/kettle-0001/views/front.png");
//! assert!(LibraryIndex::parse(b"{}").unwrap_err().to_string().contains("format"));
//! ```

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::generated::{is_generated, GeneratedIndex};
use super::source::{normalize_path, SourceError};
use super::{check_files_in_memory, Checked, Diagnostic, Location};
use crate::input::InputError;

/// Why a library index was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LibraryError {
    /// The bytes are not an index's JSON.
    #[error("library index: {message}; expected {{\"format\": \"{LIBRARY_FORMAT}\", \"devices\": [...]}}")]
    Json {
        /// The input layer's message (line, column, what was found).
        message: String,
    },
    /// The index is of another format or version.
    #[error("library index: format is {found:?}; expected {LIBRARY_FORMAT:?}")]
    Format {
        /// The `format` value found.
        found: String,
    },
    /// A device's path leaves the library, or is absolute.
    #[error("library index: devices[{index}] ({id}): {path:?}: {reason}")]
    Path {
        /// The device's position in `devices`.
        index: usize,
        /// The device's id.
        id: String,
        /// The path as written.
        path: String,
        /// What is wrong with it.
        reason: Box<SourceError>,
    },
}

/// Why a library could not be read from disk, or a device of it made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum OpenError {
    /// A generated device was asked of a build without the generator.
    #[error("this build has no device generator (the crate's feature `generate`)")]
    NoGenerator,
    /// The generator could not make the device.
    #[cfg(feature = "generate")]
    #[error(transparent)]
    Generator(Box<crate::devicegen::GeneratedError>),
    /// A generated device's logic could not be made without pictures.
    #[cfg(feature = "generate")]
    #[error("the generated device {id} could not be made: {problem}")]
    Made {
        /// The device's id.
        id: String,
        /// The generator's error.
        problem: Box<crate::devicegen::GeneratedError>,
    },
    /// A device was opened, and the loader refused it.
    #[error("device {id}: {problem}")]
    Device {
        /// The device's id.
        id: String,
        /// The loader's report.
        problem: Box<super::LoadError>,
    },
    /// The index could not be read (the input layer names the file).
    #[error(transparent)]
    Read(InputError),
    /// The index was refused.
    #[error(transparent)]
    Index(LibraryError),
    /// The generated devices' manifest beside the index could not be read.
    #[error("{path}: {problem}")]
    ManifestRead {
        /// The manifest's path.
        path: String,
        /// The input layer's error.
        problem: InputError,
    },
    /// The generated devices' manifest beside the index was refused.
    #[error("{path}: {problem}")]
    Manifest {
        /// The manifest's path.
        path: String,
        /// What is wrong with it.
        problem: super::generated::ManifestError,
    },
}

/// The `format` value of a library index.
pub const LIBRARY_FORMAT: &str = "knoblab-library/1";

/// The whole library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryIndex {
    /// Always [`LIBRARY_FORMAT`].
    pub format: String,
    /// Every device, in the order the page lists them.
    pub devices: Vec<LibraryEntry>,
}

/// One device of the library, as its card and its loader need it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryEntry {
    /// The bundle's manifest id.
    pub id: String,
    /// The bundle's display name.
    pub name: String,
    /// Its category (one of the 26 UCSM categories).
    pub category: String,
    /// The bundle folder, relative to the index (`devices/kettle-0001`).
    pub path: String,
    /// Every file of the bundle, relative to its folder.
    pub files: Vec<String>,
    /// The picture a card shows, relative to the bundle folder.
    pub thumbnail: String,
    /// How many tasks the bundle has.
    pub tasks: usize,
}

impl LibraryIndex {
    /// Reads an index, checking its format and that every path stays inside
    /// the library (no absolute paths, no `..`).
    pub fn parse(bytes: &[u8]) -> Result<LibraryIndex, LibraryError> {
        // The input layer's rule: BOM stripped, UTF-16 named, duplicate
        // keys refused (an index may be given by a user: `--library`).
        let index: LibraryIndex =
            crate::input::json::from_bytes(bytes).map_err(|e| LibraryError::Json {
                message: e.to_string(),
            })?;
        if index.format != LIBRARY_FORMAT {
            return Err(LibraryError::Format {
                found: index.format,
            });
        }
        for (i, device) in index.devices.iter().enumerate() {
            let paths = std::iter::once(&device.path)
                .chain(&device.files)
                .chain(std::iter::once(&device.thumbnail));
            for path in paths {
                normalize_path(path).map_err(|reason| LibraryError::Path {
                    index: i,
                    id: device.id.clone(),
                    path: path.clone(),
                    reason: Box::new(reason),
                })?;
            }
        }
        Ok(index)
    }
}

impl LibraryIndex {
    /// The whole library: these (hand-described) devices, then every
    /// device of the generated manifest as its card
    /// ([`super::generated::GeneratedEntry::library_entry`]). An id already
    /// listed is not listed twice.
    pub fn with_generated(mut self, generated: &GeneratedIndex) -> LibraryIndex {
        let known: std::collections::BTreeSet<String> =
            self.devices.iter().map(|d| d.id.clone()).collect();
        self.devices.extend(
            generated
                .devices
                .iter()
                .filter(|g| !known.contains(&g.id))
                .map(|g| g.library_entry()),
        );
        self
    }

    /// The device of this id.
    pub fn entry(&self, id: &str) -> Option<&LibraryEntry> {
        self.devices.iter().find(|d| d.id == id)
    }
}

/// Opens a device of the library: the one rule by which a library id
/// becomes a bundle, for the page, the CLI and Python alike. `files` are
/// the files `entry` lists, read by the caller (from disk natively, fetched
/// in the page); a hand-described device is those files, checked. A
/// generated device lists none: it is made now, pictures and live layer
/// included, from the inputs compiled into this build
/// (`devicegen::generated::Inputs::embedded`), and checked the same way.
/// A build without the generator (feature `generate`) refuses it, saying so.
pub fn open_entry(entry: &LibraryEntry, files: Vec<(String, Vec<u8>)>) -> Checked {
    if !is_generated(entry) {
        return check_files_in_memory(&entry.id, files);
    }
    open_made(entry, generated_files(&entry.id))
}

/// The second half of [`open_entry`] for a generated device whose files
/// [`generated_files`] made elsewhere (the page makes them in a Web Worker
/// and checks them on its main thread): the files checked as a bundle, or
/// why they could not be made, reported as [`open_entry`] reports it.
pub fn open_made<E: std::fmt::Display>(
    entry: &LibraryEntry,
    made: Result<Vec<(String, Vec<u8>)>, E>,
) -> Checked {
    match made {
        Ok(files) => check_files_in_memory(&entry.id, files),
        Err(message) => Checked {
            source: entry.id.clone(),
            bundle: None,
            diagnostics: vec![Diagnostic::error(
                Location::file("manifest.json"),
                format!(
                    "the generated device {} could not be made: {message}",
                    entry.id
                ),
            )],
        },
    }
}

/// A device of the library without its pictures, for scoring the
/// trajectories recorded on it: a hand-described device is its files,
/// opened by [`open_entry`], with the pictures then dropped
/// ([`super::Bundle::without_pictures`]); a generated one is made without
/// drawing (its JSON files, each view standing in at the size it is drawn
/// at: `devicegen::generated::Inputs::logic`), in a fraction of
/// [`open_entry`]'s time. Either way its logic hash is the device's.
pub fn open_entry_logic(
    entry: &LibraryEntry,
    files: Vec<(String, Vec<u8>)>,
) -> Result<super::Bundle, OpenError> {
    if !is_generated(entry) {
        return open_entry(entry, files)
            .into_result()
            .map(|b| b.without_pictures())
            .map_err(|problem| OpenError::Device {
                id: entry.id.clone(),
                problem: Box::new(problem),
            });
    }
    generated_logic(&entry.id)
}

/// The library card of a generated device's id, when this build's
/// generator makes it (none without the feature `generate`): what
/// [`open_entry`] opens for an id that no index at hand lists, such as a
/// trajectory's device on the Score page.
pub fn generated_entry(id: &str) -> Option<LibraryEntry> {
    #[cfg(feature = "generate")]
    return crate::devicegen::generated::library_entry(id);
    #[cfg(not(feature = "generate"))]
    {
        let _ = id;
        None
    }
}

/// The generated devices among `ids` (a run's devices, say) that `given`
/// lacks, each made once without its pictures ([`open_entry_logic`]: all
/// that scoring reads); ids that are neither are left to the caller to
/// report.
pub fn open_missing_generated<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    given: &[super::Bundle],
) -> Result<Vec<super::Bundle>, OpenError> {
    let mut wanted: Vec<&str> = ids
        .into_iter()
        .filter(|id| !given.iter().any(|b| b.manifest.id == *id))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut out = Vec::new();
    for id in wanted {
        if let Some(entry) = generated_entry(id) {
            let bundle = open_entry_logic(&entry, Vec::new())?;
            out.push(bundle);
        }
    }
    Ok(out)
}

/// A generated device's files (pictures and live layer included), made
/// now from the inputs compiled into this build: what [`open_entry`]
/// checks for a generated id. Refused without the generator (the crate's
/// feature `generate`).
#[cfg(feature = "generate")]
pub fn generated_files(id: &str) -> Result<Vec<(String, Vec<u8>)>, OpenError> {
    crate::devicegen::generated::Inputs::embedded()
        .and_then(|inputs| inputs.open(id))
        .map(|made| made.files.into_iter().collect())
        .map_err(|e| OpenError::Generator(Box::new(e)))
}

/// A generated device's files: refused, this build has no generator.
#[cfg(not(feature = "generate"))]
pub fn generated_files(_id: &str) -> Result<Vec<(String, Vec<u8>)>, OpenError> {
    Err(OpenError::NoGenerator)
}

/// A generated device's logic, made now without drawing.
#[cfg(feature = "generate")]
fn generated_logic(id: &str) -> Result<super::Bundle, OpenError> {
    crate::devicegen::generated::Inputs::embedded()
        .and_then(|inputs| inputs.logic(id))
        .map_err(|problem| OpenError::Made {
            id: id.to_string(),
            problem: Box::new(problem),
        })
}

#[cfg(not(feature = "generate"))]
fn generated_logic(_id: &str) -> Result<super::Bundle, OpenError> {
    Err(OpenError::NoGenerator)
}

/// Reads the library natively: the index at `index` and, when a
/// generated manifest (`generated.json`) lies beside it, its devices too
/// ([`LibraryIndex::with_generated`]). Through the input layer (regular
/// files within the bound). Messages about the index leave its path to the
/// caller; those about the manifest name it.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_library(index: &std::path::Path) -> Result<LibraryIndex, OpenError> {
    use crate::input::limits::MAX_RESULTS_FILE_BYTES;
    let read =
        |path: &std::path::Path| crate::input::fs::read_regular(path, MAX_RESULTS_FILE_BYTES);
    let library =
        LibraryIndex::parse(&read(index).map_err(OpenError::Read)?).map_err(OpenError::Index)?;
    let beside = index
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join(super::generated::GENERATED_FILE);
    if !beside.exists() {
        return Ok(library);
    }
    let path = || beside.display().to_string();
    let bytes = read(&beside).map_err(|problem| OpenError::ManifestRead {
        path: path(),
        problem,
    })?;
    let generated = GeneratedIndex::parse(&bytes).map_err(|problem| OpenError::Manifest {
        path: path(),
        problem,
    })?;
    Ok(library.with_generated(&generated))
}

/// Opens a device of a library read from disk ([`read_library`]): its
/// listed files read from under `root` (the index's folder, paths kept
/// under it), then [`open_entry`].
#[cfg(not(target_arch = "wasm32"))]
pub fn open_entry_in(root: &std::path::Path, entry: &LibraryEntry) -> Checked {
    let mut files = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        let read = crate::input::path::resolve_under(root, &entry.file_url(file))
            .map_err(|e| e.to_string())
            .and_then(|path| {
                crate::input::fs::read_regular(&path, super::limits::MAX_FILE_BYTES as u64)
                    .map_err(|e| format!("{}: {e}", path.display()))
            });
        match read {
            Ok(bytes) => files.push((file.clone(), bytes)),
            Err(message) => {
                return Checked {
                    source: entry.id.clone(),
                    bundle: None,
                    diagnostics: vec![Diagnostic::error(Location::file(file.clone()), message)],
                }
            }
        }
    }
    open_entry(entry, files)
}

impl LibraryEntry {
    /// A file of this device, as a URL relative to the index.
    pub fn file_url(&self, file: &str) -> String {
        format!("{}/{}", self.path.trim_end_matches('/'), file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_library_are_refused() {
        let json = br#"{"format": "knoblab-library/1", "devices": [
          {"id": "x", "name": "X", "category": "Lamp", "path": "../etc", "thumbnail": "a.png",
           "tasks": 0, "files": []}]}"#;
        let err = LibraryIndex::parse(json).unwrap_err().to_string();
        assert!(err.contains("devices[0] (x)"), "{err}");
        assert!(err.contains("leaves"), "{err}");
    }

    #[test]
    fn a_wrong_format_is_named() {
        let err = LibraryIndex::parse(br#"{"format": "other/2", "devices": []}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("knoblab-library/1"), "{err}");
    }
}
