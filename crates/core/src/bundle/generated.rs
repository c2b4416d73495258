//! The manifest of the generated devices (`data/generated.json`): per
//! device its id, category, name, task counts, action counts and content
//! hash. It is read everywhere (the page lists the generated devices from
//! it, the CLI and Python check and count them); the devices themselves are
//! made by `devicegen::generated` (feature `generate`, natively and on
//! wasm32) when [`super::open_entry`] opens one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::LibraryEntry;

/// The `format` of `data/generated.json`.
pub const GENERATED_FORMAT: &str = "knoblab-generated/1";
/// Where the manifest is, relative to the repository's `data/`.
pub const GENERATED_FILE: &str = "generated.json";
/// A generated device's `path` in the library index: it has no folder.
pub const GENERATED_PATH: &str = "generated";

/// Why a generated devices' manifest was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The bytes are not the manifest's JSON.
    #[error("{GENERATED_FILE}: {error}; expected {{\"format\": \"{GENERATED_FORMAT}\", ...}}")]
    Json {
        /// The JSON reader's error.
        error: crate::input::json::JsonError,
    },
    /// The manifest is of another format or version.
    #[error("{GENERATED_FILE}: format is {found:?}; expected {GENERATED_FORMAT:?}")]
    Format {
        /// The `format` found.
        found: String,
    },
}

/// The manifest of the generated devices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratedIndex {
    /// Always [`GENERATED_FORMAT`].
    pub format: String,
    /// The design space's version.
    pub version: String,
    /// A hash of every input (descriptions, templates, design space) and
    /// of every device's hash: the generated library's content hash.
    pub hash: String,
    /// Every generated device, in id order.
    pub devices: Vec<GeneratedEntry>,
}

/// One generated device in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratedEntry {
    /// The device's bundle id.
    pub id: String,
    /// Its category (`ElectricKettle`).
    pub category: String,
    /// Its name for people.
    pub name: String,
    /// The hand-described device it was varied from.
    pub archetype: String,
    /// Its tasks with one goal.
    pub single: usize,
    /// Its tasks with several goals.
    pub multi: usize,
    /// Its SSM's transitions by action (`timed_wait` for timed ones;
    /// `immediate` ones are not actions and are not counted).
    pub actions: BTreeMap<String, usize>,
    /// SHA-256 of its JSON files (name, length and bytes of each, in name
    /// order).
    pub hash: String,
}

impl GeneratedIndex {
    /// Reads a manifest, checking its format.
    pub fn parse(bytes: &[u8]) -> Result<GeneratedIndex, ManifestError> {
        let index: GeneratedIndex =
            crate::input::json::from_bytes(bytes).map_err(|e| ManifestError::Json { error: e })?;
        if index.format != GENERATED_FORMAT {
            return Err(ManifestError::Format {
                found: index.format,
            });
        }
        Ok(index)
    }
}

impl GeneratedEntry {
    /// The card a library index shows for it (no files: the device is made
    /// when it is opened). Its card's picture, the front view, is the one
    /// file of its folder, drawn when the library is made (`knoblab library
    /// generate` writes it at `file_url(&thumbnail)` under `data/`), so that
    /// browsing the cards loads no generator.
    pub fn library_entry(&self) -> LibraryEntry {
        LibraryEntry {
            id: self.id.clone(),
            name: self.name.clone(),
            category: self.category.clone(),
            path: format!("{GENERATED_PATH}/{}", self.id),
            files: Vec::new(),
            thumbnail: "views/front.png".to_string(),
            tasks: self.single + self.multi,
        }
    }
}

/// Whether a library entry is a generated device (made on demand).
pub fn is_generated(entry: &LibraryEntry) -> bool {
    entry.files.is_empty() && entry.path.starts_with(&format!("{GENERATED_PATH}/"))
}

/// Where the generated devices' task list is, relative to `data/`.
pub const GENERATED_TASKS_FILE: &str = "generated-tasks.json";
/// The `format` of [`GENERATED_TASKS_FILE`].
pub const GENERATED_TASKS_FORMAT: &str = "knoblab-generated-tasks/1";

/// The generated devices' tasks (`data/generated-tasks.json`), written by
/// `knoblab library generate` beside the manifest: what a chooser, a plan
/// or a listing needs of a generated device without making it (its task
/// ids are known only once it is made, and making all 916 takes tens of
/// seconds). The test that regenerates the manifest compares it too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeneratedTasks {
    /// Always [`GENERATED_TASKS_FORMAT`].
    pub format: String,
    /// The hash of the manifest these tasks belong to
    /// ([`GeneratedIndex::hash`]): a list of another manifest is refused.
    pub manifest: String,
    /// Every generated device's tasks, in manifest order.
    pub devices: Vec<DeviceTasks>,
}

/// One generated device's tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceTasks {
    /// The device's id.
    pub id: String,
    /// Its tasks, in its `tasks.json`'s order.
    pub tasks: Vec<TaskSummary>,
}

/// One task as a listing shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSummary {
    /// The task's id in its device's `tasks.json`.
    pub id: String,
    /// The goal states, in order (one: a single-turn task).
    pub goals: Vec<String>,
    /// What a user says for each goal, in order.
    pub instructions: Vec<String>,
}

impl TaskSummary {
    /// The summary of a task of a bundle's `tasks.json`.
    pub fn of(task: &crate::bundle::Task) -> TaskSummary {
        TaskSummary {
            id: task.id.clone(),
            goals: task.goals.iter().map(|g| g.state.clone()).collect(),
            instructions: task.goals.iter().map(|g| g.instruction.clone()).collect(),
        }
    }
}

/// Why a generated task list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TasksError {
    /// The bytes are not the task list's JSON.
    #[error("{GENERATED_TASKS_FILE}: {error}; expected {{\"format\": \"{GENERATED_TASKS_FORMAT}\", \"manifest\", \"devices\"}}")]
    Json {
        /// The input layer's error.
        error: crate::input::json::JsonError,
    },
    /// Another format.
    #[error("{GENERATED_TASKS_FILE}: format is {found:?}; expected {GENERATED_TASKS_FORMAT:?}")]
    Format {
        /// The `format` found.
        found: String,
    },
    /// The list is of another manifest than the one beside it.
    #[error("{GENERATED_TASKS_FILE} belongs to the manifest of hash {found}, but {GENERATED_FILE}'s hash is {expected}: run `knoblab library generate`")]
    OtherManifest {
        /// The manifest's hash.
        expected: String,
        /// The hash the list names.
        found: String,
    },
}

impl GeneratedTasks {
    /// Reads a task list through the input layer (duplicate keys refused)
    /// and checks that it belongs to `manifest`.
    pub fn parse(bytes: &[u8], manifest: &GeneratedIndex) -> Result<GeneratedTasks, TasksError> {
        let list: GeneratedTasks =
            crate::input::json::from_bytes(bytes).map_err(|e| TasksError::Json { error: e })?;
        if list.format != GENERATED_TASKS_FORMAT {
            return Err(TasksError::Format { found: list.format });
        }
        if list.manifest != manifest.hash {
            return Err(TasksError::OtherManifest {
                expected: manifest.hash.clone(),
                found: list.manifest,
            });
        }
        Ok(list)
    }

    /// The tasks of the device of this id.
    pub fn of(&self, id: &str) -> Option<&[TaskSummary]> {
        self.devices
            .iter()
            .find(|d| d.id == id)
            .map(|d| d.tasks.as_slice())
    }
}
