//! A library's devices and their tasks (ids, category, goals,
//! instructions), from a library index (`data/library.json`) and the
//! bundles it lists, for people and scripts choosing what to run.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::bundle::{load_files, Bundle, LibraryEntry, LibraryIndex};

use super::{read_bounded, DocumentError};

/// One device of a library.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LibraryDevice {
    /// The bundle's id (`kettle-0001`).
    pub id: String,
    /// The device's name for people.
    pub name: String,
    /// The device category (`ElectricKettle`).
    pub category: String,
    /// The bundle folder, relative to the index.
    pub path: String,
    /// Every task of the bundle, in file order.
    pub tasks: Vec<LibraryTask>,
}

/// One task of a device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LibraryTask {
    /// The task's id within its bundle.
    pub id: String,
    /// The goal states, in order.
    pub goals: Vec<String>,
    /// What a user says for each goal, in order.
    pub instructions: Vec<String>,
}

/// What a library device is, from its entry and its loaded bundle.
pub fn describe(entry: &LibraryEntry, bundle: &Bundle) -> LibraryDevice {
    LibraryDevice {
        id: bundle.manifest.id.clone(),
        name: bundle.manifest.name.clone(),
        category: bundle.manifest.category.clone(),
        path: entry.path.clone(),
        tasks: bundle
            .tasks
            .iter()
            .map(|t| LibraryTask {
                id: t.id.clone(),
                goals: t.goals.iter().map(|g| g.state.clone()).collect(),
                instructions: t.goals.iter().map(|g| g.instruction.clone()).collect(),
            })
            .collect(),
    }
}

/// Reads a library index file.
pub fn read_index(path: &Path) -> Result<LibraryIndex, DocumentError> {
    let bytes = read_bounded(path).map_err(DocumentError::Bundles)?;
    LibraryIndex::parse(&bytes)
        .map_err(|e| DocumentError::Bundles(format!("{}: {e}", path.display())))
}

/// Loads a device of an index from the files it lists, with `read` giving
/// a file's bytes by its path relative to the index (the page fetches
/// them; a folder or an embedded copy reads them).
pub fn load_entry(
    entry: &LibraryEntry,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Bundle, DocumentError> {
    let mut files = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        let bytes = read(&entry.file_url(file)).map_err(DocumentError::Bundles)?;
        files.push((file.clone(), bytes));
    }
    Ok(load_files(&entry.id, files)?)
}

/// Every device of the library whose index is `index_path`, loaded from
/// the folder around it.
pub fn list(index_path: &Path) -> Result<Vec<LibraryDevice>, DocumentError> {
    let index = read_index(index_path)?;
    let root: PathBuf = index_path.parent().unwrap_or(Path::new(".")).to_path_buf();
    // A path from inside the index stays under its folder (no absolute
    // path, no `..`), and is read as a regular file within the bound.
    let read = |rel: &str| {
        let full = crate::input::path::resolve_under(&root, rel)
            .map_err(|e| format!("{}: {e}", index_path.display()))?;
        read_bounded(&full)
    };
    index
        .devices
        .iter()
        .map(|entry| Ok(describe(entry, &load_entry(entry, &read)?)))
        .collect()
}
