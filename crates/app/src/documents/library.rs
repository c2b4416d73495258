//! A library's devices and their tasks (ids, category, goals,
//! instructions), from a library index (`data/library.json`, with the
//! generated devices of `generated.json` beside it) and the bundles it
//! lists, for people and scripts choosing what to run.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::devices::open_entry;
use knoblab_core::bundle::generated::is_generated;
use knoblab_core::bundle::{Bundle, LibraryEntry, LibraryIndex, Manifest, TaskFile};

use knoblab_core::bundle::generated::{ManifestError, TasksError};
use knoblab_core::input::json::JsonError;
use knoblab_core::input::InputError;
use knoblab_devicegen::generated::GeneratedError;

use super::read_bounded;

/// Why a library's devices could not be listed or loaded.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    /// A file the index lists could not be read (the reader's error names it).
    #[error(transparent)]
    Read(#[from] InputError),
    /// The index file could not be read or is not an index.
    #[error("{path}: {problem}")]
    Index {
        /// The index file.
        path: String,
        /// The library's error.
        problem: Box<crate::devices::OpenError>,
    },
    /// A generated device's files could not be made.
    #[error("{id}: {problem}")]
    Generated {
        /// The device.
        id: String,
        /// The generator's error.
        problem: Box<GeneratedError>,
    },
    /// The generator made no such file (never, for the files every device has).
    #[error("{id}: no {file} was made")]
    NotMade {
        /// The device.
        id: String,
        /// The file.
        file: &'static str,
    },
    /// A generated device's JSON file is not of its format.
    #[error("{id}: {file}: {problem}")]
    Json {
        /// The device.
        id: String,
        /// The file.
        file: &'static str,
        /// The input layer's error.
        problem: JsonError,
    },
    /// The generated devices' index beside the library index is refused.
    #[error(transparent)]
    GeneratedIndex(Box<ManifestError>),
    /// The generated devices' task list beside the library index is refused.
    #[error(transparent)]
    GeneratedTasks(Box<TasksError>),
    /// A device's bundle was refused by the loader.
    #[error(transparent)]
    Bundle(Box<knoblab_core::bundle::LoadError>),
}

impl From<knoblab_core::bundle::LoadError> for LibraryError {
    fn from(e: knoblab_core::bundle::LoadError) -> Self {
        LibraryError::Bundle(Box::new(e))
    }
}

/// How a face gives a library's files: a file's bytes by its path
/// relative to the index, or the input layer's error naming it.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, InputError>;

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
    /// Made by the generator when it is opened (no files of its own).
    pub generated: bool,
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
        generated: is_generated(entry),
        tasks: bundle.tasks.iter().map(task).collect(),
    }
}

fn task(t: &knoblab_core::bundle::Task) -> LibraryTask {
    LibraryTask {
        id: t.id.clone(),
        goals: t.goals.iter().map(|g| g.state.clone()).collect(),
        instructions: t.goals.iter().map(|g| g.instruction.clone()).collect(),
    }
}

/// What a device of an index is: a hand-described one loaded from the
/// files `read` gives ([`load_entry`]); a generated one from its JSON
/// files made without pictures (the same manifest and tasks its bundle
/// has, in a fraction of the time).
pub fn describe_entry(
    entry: &LibraryEntry,
    read: ReadFile<'_>,
) -> Result<LibraryDevice, LibraryError> {
    if !is_generated(entry) {
        return Ok(describe(entry, &load_entry(entry, read)?));
    }
    let id = || entry.id.clone();
    let files = knoblab_devicegen::generated::Inputs::embedded()
        .and_then(|inputs| inputs.json_files(&entry.id))
        .map_err(|problem| LibraryError::Generated {
            id: id(),
            problem: Box::new(problem),
        })?;
    let parse = |file: &'static str| {
        files
            .get(file)
            .ok_or_else(|| LibraryError::NotMade { id: id(), file })
    };
    let json = |file: &'static str| {
        move |problem| LibraryError::Json {
            id: id(),
            file,
            problem,
        }
    };
    let manifest: Manifest = knoblab_core::input::json::from_bytes(parse("manifest.json")?)
        .map_err(json("manifest.json"))?;
    let tasks: TaskFile =
        knoblab_core::input::json::from_bytes(parse("tasks.json")?).map_err(json("tasks.json"))?;
    Ok(LibraryDevice {
        id: manifest.id,
        name: manifest.name,
        category: manifest.category,
        path: entry.path.clone(),
        generated: true,
        tasks: tasks.tasks.iter().map(task).collect(),
    })
}

/// Every device of `index`, described: a hand-described one from its
/// files ([`load_entry`]); a generated one from the task list beside the
/// index (`generated-tasks.json`, read once through `read`, and checked
/// against `generated.json` beside it), so that nothing is made. Without
/// a task list, a generated device's JSON files are made
/// ([`describe_entry`]: seconds for all 916).
pub fn describe_all(
    index: &LibraryIndex,
    read: ReadFile<'_>,
) -> Result<Vec<LibraryDevice>, LibraryError> {
    use knoblab_core::bundle::generated::{
        GeneratedIndex, GeneratedTasks, GENERATED_FILE, GENERATED_TASKS_FILE,
    };
    let tasks = if index.devices.iter().any(is_generated) {
        match read(GENERATED_TASKS_FILE) {
            Ok(bytes) => {
                let manifest = GeneratedIndex::parse(&read(GENERATED_FILE)?)
                    .map_err(|e| LibraryError::GeneratedIndex(Box::new(e)))?;
                Some(
                    GeneratedTasks::parse(&bytes, &manifest)
                        .map_err(|e| LibraryError::GeneratedTasks(Box::new(e)))?,
                )
            }
            Err(_) => None,
        }
    } else {
        None
    };
    let listed: std::collections::BTreeMap<&str, &[knoblab_core::bundle::generated::TaskSummary]> =
        tasks
            .iter()
            .flat_map(|t| &t.devices)
            .map(|d| (d.id.as_str(), d.tasks.as_slice()))
            .collect();
    index
        .devices
        .iter()
        .map(|entry| match listed.get(entry.id.as_str()) {
            Some(tasks) if is_generated(entry) => Ok(LibraryDevice {
                id: entry.id.clone(),
                name: entry.name.clone(),
                category: entry.category.clone(),
                path: entry.path.clone(),
                generated: true,
                tasks: tasks
                    .iter()
                    .map(|t| LibraryTask {
                        id: t.id.clone(),
                        goals: t.goals.clone(),
                        instructions: t.instructions.clone(),
                    })
                    .collect(),
            }),
            _ => describe_entry(entry, read),
        })
        .collect()
}

/// Reads a library index file, with the generated devices of
/// `generated.json` when it lies beside it ([`crate::devices::read_library`]).
pub fn read_index(path: &Path) -> Result<LibraryIndex, LibraryError> {
    crate::devices::read_library(path).map_err(|e| LibraryError::Index {
        path: super::shown(path),
        problem: Box::new(e),
    })
}

/// Loads a device of an index from the files it lists, with `read` giving
/// a file's bytes by its path relative to the index (the page fetches
/// them; a folder or an embedded copy reads them), through the library's
/// one rule ([`open_entry`]: a generated device lists no files and is made
/// now).
pub fn load_entry(entry: &LibraryEntry, read: ReadFile<'_>) -> Result<Bundle, LibraryError> {
    let mut files = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        let bytes = read(&entry.file_url(file))?;
        files.push((file.clone(), bytes));
    }
    Ok(open_entry(entry, files).into_result()?)
}

/// Every device of the library whose index is `index_path`, loaded from
/// the folder around it.
pub fn list(index_path: &Path) -> Result<Vec<LibraryDevice>, LibraryError> {
    let index = read_index(index_path)?;
    let root: PathBuf = index_path.parent().unwrap_or(Path::new(".")).to_path_buf();
    // A path from inside the index stays under its folder (no absolute
    // path, no `..`), and is read as a regular file within the bound.
    let read = |rel: &str| read_bounded(&knoblab_core::input::path::resolve_under(&root, rel)?);
    describe_all(&index, &read)
}
