//! What a batch runs, chosen at the library's scale (issue #19): every
//! device, one category, devices picked by search, and of their tasks all,
//! the single-turn ones, the multi-turn ones or those with given ids,
//! each a number of times. The [`Catalog`] is the library as the chooser
//! counts it, built from the library index and the generated devices'
//! manifest without opening a device; a [`Selection`] is what was chosen,
//! kept with the batch ([`super::RunSpec::selection`]) so that a resumed
//! batch shows it again. The page draws what this module counts.
//!
//! ```
//! use knoblab_core::bundle::LibraryIndex;
//! use knoblab_eval::vlm::selection::{Catalog, Scope, Selection, TaskChoice};
//! let index = LibraryIndex::parse(br#"{"format": "knoblab-library/1", "devices": [
//!   {"id": "lamp-0001", "name": "Desk lamp", "category": "Lamp", "path": "devices/lamp-0001",
//!    "thumbnail": "views/front.png", "tasks": 12, "files": []}]}"#).unwrap();
//! let catalog = Catalog::new(&index, None);
//! let all = Selection::default();
//! assert_eq!(catalog.summary(&all), "all: 1 device, 12 episodes");
//! let lamps = Selection { scope: Scope::Category { category: "Lamp".into() }, repeats: 3, ..all };
//! assert_eq!(catalog.summary(&lamps), "Lamp: 1 device, 12 episodes, each 3 times: 36 runs");
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use knoblab_core::bundle::generated::{is_generated, GeneratedIndex, GeneratedTasks};
use knoblab_core::bundle::model::TaskFile;
use knoblab_core::bundle::{Bundle, LibraryIndex};

use super::items::{plan, BatchItem, TaskFilter};

/// One task as the chooser needs it: its id and whether it is multi-turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    /// The task's id in its device's `tasks.json`.
    pub id: String,
    /// How many goals it has: one for a single-turn task, more for a
    /// multi-turn one (the rule the generated manifest counts by).
    pub goals: usize,
}

impl TaskInfo {
    /// Whether it is a single-turn task (one goal).
    pub fn is_single(&self) -> bool {
        self.goals == 1
    }

    /// The tasks of a loaded bundle.
    pub fn of_bundle(bundle: &Bundle) -> Vec<TaskInfo> {
        bundle
            .tasks
            .iter()
            .map(|t| TaskInfo {
                id: t.id.clone(),
                goals: t.goals.len(),
            })
            .collect()
    }

    /// The tasks of a bundle's `tasks.json`, read through the input layer
    /// (duplicate keys refused); `id` names the device in the message.
    pub fn parse_file(id: &str, bytes: &[u8]) -> Result<Vec<TaskInfo>, SelectionError> {
        let file: TaskFile =
            knoblab_core::input::json::from_bytes(bytes).map_err(|e| SelectionError::TaskFile {
                device: id.to_string(),
                error: e,
            })?;
        Ok(file
            .tasks
            .iter()
            .map(|t| TaskInfo {
                id: t.id.clone(),
                goals: t.goals.len(),
            })
            .collect())
    }
}

/// One device as the chooser lists and counts it.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogDevice {
    /// The device's id (`lamp-0001`).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its category.
    pub category: String,
    /// Made on demand from the generated manifest (no files of its own).
    pub generated: bool,
    /// Its number of tasks, from the index or the manifest.
    pub tasks: usize,
    /// Its single- and multi-turn task counts, when known: from the
    /// generated manifest, or once its task list is read.
    pub kinds: Option<(usize, usize)>,
    /// Its tasks, once read ([`Catalog::learn_tasks`]).
    pub task_list: Option<Vec<TaskInfo>>,
}

impl CatalogDevice {
    /// How many of its tasks `choice` keeps; `None` when that needs its
    /// task list (or kinds) and they are not known yet.
    pub fn matching(&self, choice: &TaskChoice) -> Option<usize> {
        match choice {
            TaskChoice::Every => Some(self.tasks),
            TaskChoice::Single => self.kinds.map(|(s, _)| s),
            TaskChoice::Multi => self.kinds.map(|(_, m)| m),
            TaskChoice::Ids { .. } => self
                .task_list
                .as_ref()
                .map(|ts| ts.iter().filter(|t| choice.keeps(t)).count()),
        }
    }
}

/// Which devices a batch runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Scope {
    /// Every device of the library.
    #[default]
    All,
    /// The devices of one category.
    Category {
        /// The category's name.
        category: String,
    },
    /// Devices picked one by one, in the order picked.
    Devices {
        /// Their ids, in the order picked.
        ids: Vec<String>,
    },
}

/// Which tasks of each device a batch runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskChoice {
    /// All of them.
    #[default]
    Every,
    /// The single-turn tasks (one goal).
    Single,
    /// The multi-turn tasks (two goals or more).
    Multi,
    /// The tasks with these ids (on the devices that have them).
    Ids {
        /// The task ids.
        ids: Vec<String>,
    },
}

impl TaskChoice {
    /// The ids field as typed (comma-separated, blanks ignored); an empty
    /// field keeps every task, as [`TaskFilter`] does.
    pub fn ids(text: &str) -> TaskChoice {
        let ids: Vec<String> = text
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect();
        if ids.is_empty() {
            TaskChoice::Every
        } else {
            TaskChoice::Ids { ids }
        }
    }

    /// Whether a batch runs this task.
    pub fn keeps(&self, task: &TaskInfo) -> bool {
        match self {
            TaskChoice::Every => true,
            TaskChoice::Single => task.is_single(),
            TaskChoice::Multi => !task.is_single(),
            TaskChoice::Ids { ids } => ids.contains(&task.id),
        }
    }

    /// Its words in a summary: `""`, `", single-turn tasks"`, …
    fn label(&self) -> String {
        match self {
            TaskChoice::Every => String::new(),
            TaskChoice::Single => ", single-turn tasks".into(),
            TaskChoice::Multi => ", multi-turn tasks".into(),
            TaskChoice::Ids { ids } => format!(", tasks {}", ids.join(", ")),
        }
    }
}

/// What was chosen to run: devices, tasks and repeats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    /// Which devices.
    pub scope: Scope,
    /// Which of their tasks.
    pub tasks: TaskChoice,
    /// How many times each task runs (1 to [`super::items::MAX_REPEATS`]).
    pub repeats: u32,
}

impl Default for Selection {
    /// Every task of every device, once.
    fn default() -> Selection {
        Selection {
            scope: Scope::All,
            tasks: TaskChoice::Every,
            repeats: 1,
        }
    }
}

/// What a selection comes to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    /// Devices with at least one chosen task (of those whose tasks are known).
    pub devices: usize,
    /// Their chosen tasks: the episodes, each run `repeats` times.
    pub episodes: usize,
    /// `episodes` × repeats.
    pub runs: usize,
    /// Devices in scope whose chosen tasks cannot be counted yet (their
    /// task list is not read), not in the figures above.
    pub unknown: usize,
    /// Generated devices among those counted.
    pub generated: usize,
}

/// The devices of a category and their episodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CategoryCount {
    /// The category's name.
    pub category: String,
    /// How many devices it has.
    pub devices: usize,
    /// Their tasks together, each counted once.
    pub episodes: usize,
}

/// The library as the chooser sees it: every device, hand-described and
/// generated, with what is known of its tasks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    devices: Vec<CatalogDevice>,
}

impl Catalog {
    /// The devices of the library index, then those of the generated
    /// manifest that the index does not list (a generated device listed in
    /// the index takes its kinds from the manifest). Nothing is opened:
    /// the counts are the index's and the manifest's.
    pub fn new(library: &LibraryIndex, generated: Option<&GeneratedIndex>) -> Catalog {
        let manifest: BTreeMap<&str, (usize, usize)> = generated
            .map(|g| {
                g.devices
                    .iter()
                    .map(|d| (d.id.as_str(), (d.single, d.multi)))
                    .collect()
            })
            .unwrap_or_default();
        let mut devices: Vec<CatalogDevice> = library
            .devices
            .iter()
            .map(|e| CatalogDevice {
                id: e.id.clone(),
                name: e.name.clone(),
                category: e.category.clone(),
                generated: is_generated(e),
                tasks: e.tasks,
                kinds: manifest.get(e.id.as_str()).copied(),
                task_list: None,
            })
            .collect();
        let listed: BTreeSet<String> = devices.iter().map(|d| d.id.clone()).collect();
        for d in generated.map_or(&[][..], |g| &g.devices[..]) {
            if !listed.contains(&d.id) {
                devices.push(CatalogDevice {
                    id: d.id.clone(),
                    name: d.name.clone(),
                    category: d.category.clone(),
                    generated: true,
                    tasks: d.single + d.multi,
                    kinds: Some((d.single, d.multi)),
                    task_list: None,
                });
            }
        }
        Catalog { devices }
    }

    /// Every device, index order then manifest order.
    pub fn devices(&self) -> &[CatalogDevice] {
        &self.devices
    }

    /// The device with this id.
    pub fn device(&self, id: &str) -> Option<&CatalogDevice> {
        self.devices.iter().find(|d| d.id == id)
    }

    /// Records a device's task list (read from its tasks file or from the
    /// loaded bundle): its kinds and task count follow it. An id not in
    /// the catalog is ignored.
    pub fn learn_tasks(&mut self, id: &str, tasks: Vec<TaskInfo>) {
        if let Some(d) = self.devices.iter_mut().find(|d| d.id == id) {
            let single = tasks.iter().filter(|t| t.is_single()).count();
            d.kinds = Some((single, tasks.len() - single));
            d.tasks = tasks.len();
            d.task_list = Some(tasks);
        }
    }

    /// Learns the generated devices' tasks from their task list
    /// (`data/generated-tasks.json`), so that they count by kind and by id
    /// and plan like the hand-described ones, none of them opened.
    pub fn learn_generated(&mut self, list: &GeneratedTasks) {
        for device in &list.devices {
            let tasks = device
                .tasks
                .iter()
                .map(|t| TaskInfo {
                    id: t.id.clone(),
                    goals: t.goals.len(),
                })
                .collect();
            self.learn_tasks(&device.id, tasks);
        }
    }

    /// Narrows `selection` to its first device with a chosen task (one
    /// episode watched: the first item of that device's plan), returning
    /// its id; `None`, and `selection` unchanged, when no device in scope
    /// has a chosen task.
    pub fn narrow_to_first(&self, selection: &mut Selection) -> Option<String> {
        let first = self
            .in_scope(&selection.scope)
            .ok()?
            .into_iter()
            .find(|d| d.matching(&selection.tasks).is_some_and(|n| n > 0))?;
        selection.scope = Scope::Devices {
            ids: vec![first.id.clone()],
        };
        Some(first.id.clone())
    }

    /// Every category with its devices and episodes (all tasks), by name.
    pub fn categories(&self) -> Vec<CategoryCount> {
        let mut by: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for d in &self.devices {
            let c = by.entry(d.category.as_str()).or_default();
            c.0 += 1;
            c.1 += d.tasks;
        }
        by.into_iter()
            .map(|(category, (devices, episodes))| CategoryCount {
                category: category.to_string(),
                devices,
                episodes,
            })
            .collect()
    }

    /// Devices whose id or name holds every word of `query` (case
    /// ignored), at most `limit`, in catalog order; an empty query finds
    /// none (the chooser lists no 968 devices at once).
    pub fn search(&self, query: &str, limit: usize) -> Vec<&CatalogDevice> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            return Vec::new();
        }
        self.devices
            .iter()
            .filter(|d| {
                let (id, name) = (d.id.to_lowercase(), d.name.to_lowercase());
                words.iter().all(|w| id.contains(w) || name.contains(w))
            })
            .take(limit)
            .collect()
    }

    /// The devices `scope` names, in its order; ids not in the catalog are
    /// [`SelectionError::UnknownDevice`].
    pub fn in_scope(&self, scope: &Scope) -> Result<Vec<&CatalogDevice>, SelectionError> {
        match scope {
            Scope::All => Ok(self.devices.iter().collect()),
            Scope::Category { category } => Ok(self
                .devices
                .iter()
                .filter(|d| d.category == *category)
                .collect()),
            Scope::Devices { ids } => ids
                .iter()
                .map(|id| {
                    self.device(id)
                        .ok_or_else(|| SelectionError::UnknownDevice {
                            id: id.clone(),
                            devices: self.devices.len(),
                        })
                })
                .collect(),
        }
    }

    /// What `selection` comes to, from what is known without opening a
    /// device. A device id not in the catalog counts as nothing.
    pub fn count(&self, selection: &Selection) -> Count {
        let mut count = Count::default();
        let devices = match &selection.scope {
            Scope::Devices { ids } => ids.iter().filter_map(|i| self.device(i)).collect(),
            scope => self.in_scope(scope).unwrap_or_default(),
        };
        for d in devices {
            match d.matching(&selection.tasks) {
                Some(0) => {}
                Some(n) => {
                    count.devices += 1;
                    count.episodes += n;
                    count.generated += usize::from(d.generated);
                }
                None => count.unknown += 1,
            }
        }
        count.runs = count.episodes * selection.repeats.max(1) as usize;
        count
    }

    /// The summary line: `all: 968 devices, 16,196 episodes`,
    /// `Microwave, single-turn tasks: 59 devices, 354 episodes, each 3
    /// times: 1,062 runs`, with the devices not counted yet named.
    pub fn summary(&self, selection: &Selection) -> String {
        let c = self.count(selection);
        let scope = match &selection.scope {
            Scope::All => "all".to_string(),
            Scope::Category { category } => category.clone(),
            Scope::Devices { ids } if ids.len() == 1 => ids[0].clone(),
            Scope::Devices { ids } => format!("{} devices picked", ids.len()),
        };
        let mut out = format!(
            "{scope}{}: {} device{}, {} episode{}",
            selection.tasks.label(),
            grouped(c.devices),
            if c.devices == 1 { "" } else { "s" },
            grouped(c.episodes),
            if c.episodes == 1 { "" } else { "s" },
        );
        if selection.repeats > 1 {
            out.push_str(&format!(
                ", each {} times: {} runs",
                selection.repeats,
                grouped(c.runs)
            ));
        }
        if c.unknown > 0 {
            out.push_str(&format!(
                " (and {} device{} whose task ids are known once opened)",
                grouped(c.unknown),
                if c.unknown == 1 { "" } else { "s" }
            ));
        }
        out
    }

    /// The (device, tasks) pairs `selection` runs, devices in scope order
    /// and tasks in each device's order, leaving out devices with none of
    /// the chosen tasks: the input of [`plan`]. Every device in scope must
    /// have its task list read ([`Catalog::learn_tasks`]).
    pub fn pairs(
        &self,
        selection: &Selection,
    ) -> Result<Vec<(String, Vec<String>)>, SelectionError> {
        let mut out = Vec::new();
        let mut unread = Vec::new();
        for d in self.in_scope(&selection.scope)? {
            match &d.task_list {
                Some(tasks) => {
                    let ids: Vec<String> = tasks
                        .iter()
                        .filter(|t| selection.tasks.keeps(t))
                        .map(|t| t.id.clone())
                        .collect();
                    if !ids.is_empty() {
                        out.push((d.id.clone(), ids));
                    }
                }
                None => unread.push(d.id.clone()),
            }
        }
        if !unread.is_empty() {
            return Err(SelectionError::TasksUnread { ids: unread });
        }
        if out.is_empty() {
            return Err(SelectionError::Empty {
                chosen: self.summary(selection),
            });
        }
        Ok(out)
    }

    /// The batch's items: [`Catalog::pairs`], each task `repeats` times.
    pub fn plan(&self, selection: &Selection) -> Result<Vec<BatchItem>, SelectionError> {
        Ok(plan(&self.pairs(selection)?, selection.repeats))
    }

    /// A replay file's (device, task) pairs that `choice` keeps, grouped by
    /// device in first-seen order; a task whose kind is not known (its
    /// device's task list is not read) is kept only when `choice` needs no
    /// kind (every task, or ids).
    pub fn replay_pairs(
        &self,
        choice: &TaskChoice,
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Vec<(String, Vec<String>)> {
        let kept: Vec<(String, String)> = pairs
            .into_iter()
            .filter(|(device, task)| {
                let info = self
                    .device(device)
                    .and_then(|d| d.task_list.as_ref())
                    .and_then(|ts| ts.iter().find(|t| t.id == *task));
                match (choice, info) {
                    (_, Some(info)) => choice.keeps(info),
                    (TaskChoice::Every, None) => true,
                    (TaskChoice::Ids { ids }, None) => ids.contains(task),
                    (TaskChoice::Single | TaskChoice::Multi, None) => false,
                }
            })
            .collect();
        TaskFilter::default().group_by_bundle(kept)
    }
}

/// A count for people, with thousands grouped: `16,196`.
///
/// ```
/// use knoblab_eval::vlm::selection::grouped;
/// assert_eq!(grouped(968), "968");
/// assert_eq!(grouped(16_196), "16,196");
/// assert_eq!(grouped(1_234_567), "1,234,567");
/// ```
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A selection that cannot become a batch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// A picked device id is not in the library.
    #[error("the device {id} is not in this library ({devices} devices)")]
    UnknownDevice {
        /// The id picked.
        id: String,
        /// How many devices the library has.
        devices: usize,
    },
    /// Devices whose task lists must be read before the batch is planned.
    #[error("the tasks of {} device(s) are not read yet: {}", ids.len(), ids.join(", "))]
    TasksUnread {
        /// The devices' ids.
        ids: Vec<String>,
    },
    /// Nothing to run.
    #[error("nothing to run: {chosen}; choose other devices or tasks")]
    Empty {
        /// The selection's summary ([`Catalog::summary`]).
        chosen: String,
    },
    /// A device's tasks file that cannot be read.
    #[error("the tasks of {device}: {error}")]
    TaskFile {
        /// The device's id.
        device: String,
        /// Why the file cannot be read.
        error: knoblab_core::input::json::JsonError,
    },
}

#[cfg(test)]
mod tests;
