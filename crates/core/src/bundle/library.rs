//! The index of a device library (`data/library.json`, format
//! `knoblab-library/1`): which bundles the page ships, where their files
//! are, and what a library card shows. The generator writes it; the page
//! reads it, fetches each device's listed files and loads them with
//! [`super::load_files`]. Paths are relative to the index file.
//!
//! ```
//! use knoblab_core::bundle::LibraryIndex;
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

use super::generated::GeneratedIndex;
use super::source::{normalize_path, SourceError};
use super::{check_files_in_memory, Checked, Diagnostic, Location};

/// Why a library index was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LibraryError {
    /// The bytes are not an index's JSON.
    #[error(
        "library index: {error}; expected {{\"format\": \"{LIBRARY_FORMAT}\", \"devices\": [...]}}"
    )]
    Json {
        /// The input layer's error (line, column, what was found).
        error: crate::input::json::JsonError,
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
            crate::input::json::from_bytes(bytes).map_err(|e| LibraryError::Json { error: e })?;
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

/// A library device's files checked as a bundle, or why they could not be
/// made, reported as a diagnostic on the device: the last step of opening
/// a device (`knoblab_app::devices::open_entry`), also for a generated
/// device whose files the page made in a Web Worker.
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
