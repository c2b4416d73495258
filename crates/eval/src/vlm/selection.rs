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
                message: e.to_string(),
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
    #[error("the tasks of {device}: {message}")]
    TaskFile {
        /// The device's id.
        device: String,
        /// Why the file cannot be read.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use knoblab_core::bundle::generated::GeneratedEntry;
    use knoblab_core::bundle::LibraryEntry;

    fn hand(id: &str, category: &str, tasks: usize) -> LibraryEntry {
        LibraryEntry {
            id: id.into(),
            name: format!("{category} {id}"),
            category: category.into(),
            path: format!("devices/{id}"),
            files: vec!["tasks.json".into()],
            thumbnail: "views/front.png".into(),
            tasks,
        }
    }

    fn made(id: &str, category: &str, single: usize, multi: usize) -> GeneratedEntry {
        GeneratedEntry {
            id: id.into(),
            category: category.into(),
            name: format!("Generated {id}"),
            archetype: "x".into(),
            single,
            multi,
            actions: BTreeMap::new(),
            hash: String::new(),
        }
    }

    fn tasks(single: &[&str], multi: &[&str]) -> Vec<TaskInfo> {
        let one = single.iter().map(|i| TaskInfo {
            id: i.to_string(),
            goals: 1,
        });
        let more = multi.iter().map(|i| TaskInfo {
            id: i.to_string(),
            goals: 2,
        });
        one.chain(more).collect()
    }

    /// Two hand lamps (3 tasks each), one hand kettle (2), and three
    /// generated devices (2 lamps, 1 kettle; 1 + 2 tasks each).
    fn catalog() -> Catalog {
        let index = LibraryIndex {
            format: knoblab_core::bundle::LIBRARY_FORMAT.into(),
            devices: vec![
                hand("lamp-0001", "Lamp", 3),
                hand("lamp-0002", "Lamp", 3),
                hand("kettle-0001", "ElectricKettle", 2),
            ],
        };
        let generated = GeneratedIndex {
            format: knoblab_core::bundle::generated::GENERATED_FORMAT.into(),
            version: "1".into(),
            hash: String::new(),
            devices: vec![
                made("lamp-g0001", "Lamp", 1, 2),
                made("lamp-g0002", "Lamp", 1, 2),
                made("kettle-g0001", "ElectricKettle", 1, 2),
            ],
        };
        Catalog::new(&index, Some(&generated))
    }

    fn read_hand(c: &mut Catalog) {
        c.learn_tasks(
            "lamp-0001",
            tasks(&["single-on", "single-dim"], &["multi-1"]),
        );
        c.learn_tasks("lamp-0002", tasks(&["single-on"], &["multi-1", "multi-2"]));
        c.learn_tasks("kettle-0001", tasks(&["single-boil"], &["multi-1"]));
    }

    fn of(scope: Scope, tasks: TaskChoice, repeats: u32) -> Selection {
        Selection {
            scope,
            tasks,
            repeats,
        }
    }

    fn category(c: &str) -> Scope {
        Scope::Category { category: c.into() }
    }

    #[test]
    fn all_counts_every_device_of_the_index_and_the_manifest() {
        let c = catalog();
        assert_eq!(c.devices().len(), 6);
        let all = c.count(&Selection::default());
        assert_eq!(
            all,
            Count {
                devices: 6,
                episodes: 3 + 3 + 2 + 3 * 3,
                runs: 17,
                unknown: 0,
                generated: 3,
            }
        );
        assert_eq!(
            c.summary(&Selection::default()),
            "all: 6 devices, 17 episodes"
        );
    }

    #[test]
    fn categories_are_by_name_with_their_devices_and_episodes() {
        let c = catalog();
        let cats = c.categories();
        assert_eq!(
            cats,
            vec![
                CategoryCount {
                    category: "ElectricKettle".into(),
                    devices: 2,
                    episodes: 5
                },
                CategoryCount {
                    category: "Lamp".into(),
                    devices: 4,
                    episodes: 12
                },
            ]
        );
        // A category's summary agrees with its row.
        let lamps = of(category("Lamp"), TaskChoice::Every, 1);
        assert_eq!(c.summary(&lamps), "Lamp: 4 devices, 12 episodes");
        let three = of(category("Lamp"), TaskChoice::Every, 3);
        assert_eq!(c.count(&three).runs, 36);
        assert_eq!(
            c.summary(&three),
            "Lamp: 4 devices, 12 episodes, each 3 times: 36 runs"
        );
    }

    #[test]
    fn kinds_of_hand_devices_are_counted_once_their_tasks_are_read() {
        let mut c = catalog();
        let single = of(Scope::All, TaskChoice::Single, 1);
        // Only the generated devices' kinds are in the manifest.
        assert_eq!(c.count(&single).devices, 3);
        assert_eq!(c.count(&single).unknown, 3);
        assert!(c.summary(&single).ends_with(
            "single-turn tasks: 3 devices, 3 episodes (and 3 devices whose task ids are known once opened)"
        ));
        read_hand(&mut c);
        let count = c.count(&single);
        assert_eq!(
            (count.devices, count.episodes, count.unknown),
            (6, 2 + 1 + 1 + 3, 0)
        );
        let multi = c.count(&of(Scope::All, TaskChoice::Multi, 1));
        assert_eq!(multi.episodes, 1 + 2 + 1 + 3 * 2);
        // Single and multi add up to every task.
        assert_eq!(
            count.episodes + multi.episodes,
            c.count(&Selection::default()).episodes
        );
    }

    #[test]
    fn task_ids_count_only_on_devices_whose_tasks_are_read() {
        let mut c = catalog();
        read_hand(&mut c);
        let multi2 = of(Scope::All, TaskChoice::ids(" multi-2 ,, "), 2);
        assert_eq!(
            multi2.tasks,
            TaskChoice::Ids {
                ids: vec!["multi-2".into()]
            }
        );
        let count = c.count(&multi2);
        // Only lamp-0002 has it; the generated devices are not read.
        assert_eq!(
            (count.devices, count.episodes, count.runs, count.unknown),
            (1, 1, 2, 3)
        );
        assert_eq!(TaskChoice::ids(" , "), TaskChoice::Every);
    }

    #[test]
    fn search_matches_every_word_in_id_or_name_up_to_a_limit() {
        let c = catalog();
        let ids = |q: &str, n| {
            c.search(q, n)
                .iter()
                .map(|d| d.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids("LAMP-G", 10), vec!["lamp-g0001", "lamp-g0002"]);
        assert_eq!(ids("generated kettle", 10), vec!["kettle-g0001"]);
        assert_eq!(ids("lamp", 2), vec!["lamp-0001", "lamp-0002"]);
        assert!(ids("  ", 10).is_empty());
        assert!(ids("toaster", 10).is_empty());
    }

    #[test]
    fn pairs_follow_scope_order_and_need_every_task_list() {
        let mut c = catalog();
        let picked = of(
            Scope::Devices {
                ids: vec!["kettle-0001".into(), "lamp-0001".into()],
            },
            TaskChoice::Single,
            2,
        );
        assert_eq!(
            c.pairs(&picked),
            Err(SelectionError::TasksUnread {
                ids: vec!["kettle-0001".into(), "lamp-0001".into()]
            })
        );
        read_hand(&mut c);
        assert_eq!(
            c.pairs(&picked).unwrap(),
            vec![
                ("kettle-0001".to_string(), vec!["single-boil".to_string()]),
                (
                    "lamp-0001".to_string(),
                    vec!["single-on".to_string(), "single-dim".to_string()]
                ),
            ]
        );
        let items = c.plan(&picked).unwrap();
        assert_eq!(items.len(), 6);
        assert_eq!(items[1].key(), "kettle-0001/single-boil#1");
        // The plan has as many items as the count says runs.
        assert_eq!(items.len(), c.count(&picked).runs);
        // The generated lamps are in scope and not read: named.
        let lamps = of(category("Lamp"), TaskChoice::Every, 1);
        let err = c.pairs(&lamps).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the tasks of 2 device(s) are not read yet: lamp-g0001, lamp-g0002"
        );
    }

    #[test]
    fn nothing_to_run_and_unknown_ids_are_named() {
        let mut c = catalog();
        read_hand(&mut c);
        let none = of(
            Scope::Devices {
                ids: vec!["kettle-0001".into()],
            },
            TaskChoice::ids("multi-9"),
            1,
        );
        assert_eq!(
            c.pairs(&none).unwrap_err().to_string(),
            "nothing to run: kettle-0001, tasks multi-9: 0 devices, 0 episodes; choose other devices or tasks"
        );
        let stray = of(
            Scope::Devices {
                ids: vec!["toaster-0001".into()],
            },
            TaskChoice::Every,
            1,
        );
        assert_eq!(
            c.pairs(&stray).unwrap_err().to_string(),
            "the device toaster-0001 is not in this library (6 devices)"
        );
        assert_eq!(c.count(&stray), Count::default());
    }

    #[test]
    fn the_generated_task_list_makes_every_device_plannable_without_opening_one() {
        use knoblab_core::bundle::generated::{DeviceTasks, TaskSummary, GENERATED_TASKS_FORMAT};
        let mut c = catalog();
        read_hand(&mut c);
        let summary = |id: &str, goals: usize| TaskSummary {
            id: id.into(),
            goals: vec!["On".into(); goals],
            instructions: vec!["Turn it on.".into(); goals],
        };
        let list = GeneratedTasks {
            format: GENERATED_TASKS_FORMAT.into(),
            manifest: String::new(),
            devices: ["lamp-g0001", "lamp-g0002", "kettle-g0001"]
                .iter()
                .map(|id| DeviceTasks {
                    id: id.to_string(),
                    tasks: vec![
                        summary("single-on", 1),
                        summary("multi-1", 2),
                        summary("multi-2", 3),
                    ],
                })
                .collect(),
        };
        c.learn_generated(&list);
        let lamps = of(category("Lamp"), TaskChoice::ids("multi-2"), 1);
        // Now counted where the hand lamps were the only ones known.
        let count = c.count(&lamps);
        assert_eq!((count.devices, count.unknown, count.generated), (3, 0, 2));
        let items = c.plan(&lamps).unwrap();
        let keys: Vec<String> = items.iter().map(BatchItem::key).collect();
        assert_eq!(
            keys,
            [
                "lamp-0002/multi-2#0",
                "lamp-g0001/multi-2#0",
                "lamp-g0002/multi-2#0"
            ]
        );
        // One episode: the first device in scope with a chosen task.
        let mut one = of(Scope::All, TaskChoice::ids("multi-2"), 1);
        assert_eq!(c.narrow_to_first(&mut one).as_deref(), Some("lamp-0002"));
        assert_eq!(
            one.scope,
            Scope::Devices {
                ids: vec!["lamp-0002".into()]
            }
        );
        let mut made = of(category("ElectricKettle"), TaskChoice::Multi, 1);
        assert_eq!(c.narrow_to_first(&mut made).as_deref(), Some("kettle-0001"));
        let mut none = of(Scope::All, TaskChoice::ids("nothing"), 1);
        assert_eq!(c.narrow_to_first(&mut none), None);
        assert_eq!(none.scope, Scope::All);
    }

    #[test]
    fn learning_a_generated_devices_tasks_keeps_its_counts_consistent() {
        let mut c = catalog();
        c.learn_tasks("lamp-g0001", tasks(&["single-on"], &["multi-1", "multi-2"]));
        let d = c.device("lamp-g0001").unwrap();
        assert_eq!((d.tasks, d.kinds), (3, Some((1, 2))));
        c.learn_tasks("not-there", Vec::new());
        assert_eq!(c.devices().len(), 6);
    }

    #[test]
    fn replay_pairs_keep_kinds_only_where_known() {
        let mut c = catalog();
        read_hand(&mut c);
        let pairs = [
            ("lamp-0002", "multi-2"),
            ("lamp-0001", "single-on"),
            ("lamp-0002", "single-on"),
            ("lamp-g0001", "single-x"),
        ]
        .map(|(b, t)| (b.to_string(), t.to_string()));
        let single = c.replay_pairs(&TaskChoice::Single, pairs.clone());
        assert_eq!(
            single,
            vec![
                ("lamp-0001".to_string(), vec!["single-on".to_string()]),
                ("lamp-0002".to_string(), vec!["single-on".to_string()]),
            ]
        );
        let every = c.replay_pairs(&TaskChoice::Every, pairs.clone());
        assert_eq!(every.len(), 3);
        assert_eq!(
            every[0].1,
            vec!["multi-2".to_string(), "single-on".to_string()]
        );
        let ids = c.replay_pairs(&TaskChoice::ids("single-x"), pairs);
        assert_eq!(
            ids,
            vec![("lamp-g0001".to_string(), vec!["single-x".to_string()])]
        );
    }

    #[test]
    fn a_selection_is_stored_as_tagged_json_and_read_back() {
        let s = of(
            Scope::Devices {
                ids: vec!["lamp-0001".into()],
            },
            TaskChoice::ids("single-on"),
            2,
        );
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(
            text,
            r#"{"scope":{"by":"devices","ids":["lamp-0001"]},"tasks":{"kind":"ids","ids":["single-on"]},"repeats":2}"#
        );
        assert_eq!(serde_json::from_str::<Selection>(&text).unwrap(), s);
        let cat = serde_json::to_string(&of(category("Lamp"), TaskChoice::Multi, 1)).unwrap();
        assert_eq!(
            cat,
            r#"{"scope":{"by":"category","category":"Lamp"},"tasks":{"kind":"multi"},"repeats":1}"#
        );
    }

    /// The shipped library: the index, the generated manifest and every
    /// hand-described device's tasks file, as the page reads them.
    fn shipped() -> Catalog {
        let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data");
        let read = |p: &std::path::Path| std::fs::read(p).unwrap();
        let index = LibraryIndex::parse(&read(&data.join("library.json"))).unwrap();
        let generated = GeneratedIndex::parse(&read(&data.join("generated.json"))).unwrap();
        let mut c = Catalog::new(&index, Some(&generated));
        for e in &index.devices {
            let tasks = TaskInfo::parse_file(&e.id, &read(&data.join(e.file_url("tasks.json"))));
            c.learn_tasks(&e.id, tasks.unwrap());
        }
        let list = GeneratedTasks::parse(&read(&data.join("generated-tasks.json")), &generated);
        c.learn_generated(&list.unwrap());
        c
    }

    #[test]
    fn every_device_of_the_shipped_library_plans_without_being_opened() {
        let c = shipped();
        let all = c.count(&Selection::default());
        let items = c.plan(&Selection::default()).unwrap();
        assert_eq!(items.len(), all.runs);
        assert_eq!(all.unknown, 0);
        // A category of generated and hand devices, by task id: counted
        // and planned alike.
        let microwaves = of(category("Microwave"), TaskChoice::Multi, 2);
        let count = c.count(&microwaves);
        assert!(count.generated > 0 && count.devices > count.generated);
        assert_eq!(c.plan(&microwaves).unwrap().len(), count.runs);
        // Every planned device is one the library's version file lists
        // (the page plans on it: `RunSpec::on_library`).
        let spec = super::super::RunSpec::on_library(
            super::super::Source::Oracle,
            Default::default(),
            items,
        )
        .unwrap();
        assert_eq!(spec.bundles.len(), 968);
    }

    #[test]
    fn the_shipped_library_counts_as_its_index_and_manifest_say() {
        let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data");
        let index =
            LibraryIndex::parse(&std::fs::read(data.join("library.json")).unwrap()).unwrap();
        let generated =
            GeneratedIndex::parse(&std::fs::read(data.join("generated.json")).unwrap()).unwrap();
        let c = shipped();
        let all = c.count(&Selection::default());
        let hand_tasks: usize = index.devices.iter().map(|d| d.tasks).sum();
        let made_tasks: usize = generated.devices.iter().map(|d| d.single + d.multi).sum();
        assert_eq!(all.devices, index.devices.len() + generated.devices.len());
        assert_eq!(all.episodes, hand_tasks + made_tasks);
        assert_eq!(all.generated, generated.devices.len());
        // The paper's scale (VGEBench: 968 devices in 26 categories).
        assert_eq!((all.devices, c.categories().len()), (968, 26));
        assert_eq!(
            c.summary(&Selection::default()),
            format!(
                "all: {} devices, {} episodes",
                grouped(all.devices),
                grouped(all.episodes)
            )
        );
        // The categories partition the library, and each one's summary
        // agrees with its row.
        let cats = c.categories();
        assert_eq!(cats.iter().map(|c| c.devices).sum::<usize>(), all.devices);
        assert_eq!(cats.iter().map(|c| c.episodes).sum::<usize>(), all.episodes);
        for row in &cats {
            let sel = of(category(&row.category), TaskChoice::Every, 1);
            let n = c.count(&sel);
            assert_eq!(
                (n.devices, n.episodes),
                (row.devices, row.episodes),
                "{}",
                row.category
            );
        }
        // Kinds: every task is single- or multi-turn, and once the hand
        // devices' files are read nothing is left uncounted.
        let single = c.count(&of(Scope::All, TaskChoice::Single, 1));
        let multi = c.count(&of(Scope::All, TaskChoice::Multi, 1));
        assert_eq!((single.unknown, multi.unknown), (0, 0));
        assert_eq!(single.episodes + multi.episodes, all.episodes);
        let made_single: usize = generated.devices.iter().map(|d| d.single).sum();
        assert!(single.episodes > made_single);
    }

    #[test]
    fn a_tasks_file_is_read_with_its_kinds_and_a_bad_one_named() {
        let text = br#"{"tasks": [
          {"id": "single-on", "goals": [{"state": "On", "instruction": "On."}]},
          {"id": "multi-1", "goals": [{"state": "On", "instruction": "On."}, {"state": "Off", "instruction": "Off."}]}]}"#;
        let ts = TaskInfo::parse_file("lamp-0001", text).unwrap();
        assert_eq!(ts, tasks(&["single-on"], &["multi-1"]));
        let err = TaskInfo::parse_file("lamp-0001", b"{\"tasks\": 3}").unwrap_err();
        assert!(
            err.to_string().starts_with("the tasks of lamp-0001: "),
            "{err}"
        );
    }
}
