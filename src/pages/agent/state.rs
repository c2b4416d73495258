// Over 600 lines: the Agent page's state and every event of a batch that changes it are one
// state machine, read together.

//! The page's state and what drives it: starting a run from the form,
//! resuming a stored batch, and what each event of a batch changes.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::library;
use super::runner::{self, Batch, Event, RunState, StepView};
use crate::browser::http;
use crate::browser::indexeddb::{BatchMeta, BatchState, Source, Store};
use knoblab_core::bundle::{Bundle, LibraryEntry};
use knoblab_eval::vlm::batch::{parse_repeats, plan};
use knoblab_eval::vlm::selection::{Catalog, Scope, Selection, TaskChoice};
use knoblab_eval::vlm::{BatchItem, EpisodeRecord, RecordedAnswers, RunSpec};

use super::form::Form;

/// Which devices the chooser is on (each keeps its own choice, so that
/// going back and forth loses nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// Every device.
    All,
    /// One category's devices.
    Category,
    /// Devices picked one by one.
    Devices,
}

/// Which tasks the chooser is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kinds {
    /// All of them.
    Every,
    /// The single-turn tasks.
    Single,
    /// The multi-turn tasks.
    Multi,
    /// The tasks whose ids are typed.
    Ids,
}

/// The page's state, one signal each, provided as a context value.
#[derive(Clone, Copy)]
pub struct Run {
    /// The library as the chooser counts it, once its index is read.
    pub catalog: RwSignal<Option<Result<Catalog, String>>>,
    /// Every device's index entry (a generated one's from its manifest),
    /// by id: what the loader needs.
    pub entries: StoredValue<BTreeMap<String, LibraryEntry>>,
    /// Every device's task list has been read, or could not be: the run
    /// buttons wait for it, so that a plan never meets a device whose
    /// tasks are not known yet (the 52 `tasks.json` files and the generated
    /// devices' task list are read after the index).
    pub tasks_read: RwSignal<bool>,
    /// Which devices the chooser is on.
    pub by: RwSignal<By>,
    /// The category chosen.
    pub category: RwSignal<String>,
    /// Devices picked one by one, in the order picked.
    pub picked: RwSignal<Vec<String>>,
    /// The device search field.
    pub query: RwSignal<String>,
    /// Which tasks the chooser is on.
    pub kinds: RwSignal<Kinds>,
    /// The task ids field.
    pub tasks: RwSignal<String>,
    /// How many times each task runs, as typed.
    pub repeats: RwSignal<String>,
    /// The replay file's text, once read.
    pub replay_text: RwSignal<Option<String>>,
    /// A run is going (running or paused).
    pub active: RwSignal<bool>,
    /// The run is paused: requests not yet sent wait.
    pub paused: RwSignal<bool>,
    /// The batch being run or last run, as stored.
    pub meta: RwSignal<Option<BatchMeta>>,
    /// The logic (no pictures) of the devices the batch's episodes were
    /// played on, by id: what its metrics are scored against.
    pub bundles: RwSignal<BTreeMap<String, Arc<Bundle>>>,
    /// The batch's finished episodes, a resumed batch's earlier ones included.
    pub records: RwSignal<Vec<EpisodeRecord>>,
    /// Episodes finished since this page opened, and since when.
    pub finished_here: RwSignal<usize>,
    /// When this page started the run, in milliseconds since the epoch.
    pub started_ms: RwSignal<u64>,
    /// The episode watched (the latest started): its item and instruction.
    pub watched: RwSignal<Option<(BatchItem, Option<String>)>>,
    /// The watched episode's steps so far.
    pub steps: RwSignal<Vec<StepView>>,
    /// A line about the run (a retry's wait), if any.
    pub status: RwSignal<Option<String>>,
    /// Problems to show: bad settings, unloadable devices, unsaved episodes.
    pub problems: RwSignal<Vec<String>>,
    /// An unfinished batch found in the browser, with how many episodes are done.
    pub resumable: RwSignal<Option<(BatchMeta, usize)>>,
    /// The batch being run, if any.
    pub batch: StoredValue<Option<Rc<Batch>>, LocalStorage>,
    /// The browser's episode store, once opened.
    pub store: StoredValue<Option<Store>, LocalStorage>,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            catalog: RwSignal::new(None),
            entries: StoredValue::new(BTreeMap::new()),
            tasks_read: RwSignal::new(false),
            by: RwSignal::new(By::All),
            category: RwSignal::new(String::new()),
            picked: RwSignal::new(Vec::new()),
            query: RwSignal::new(String::new()),
            kinds: RwSignal::new(Kinds::Every),
            tasks: RwSignal::new(String::new()),
            repeats: RwSignal::new("1".into()),
            replay_text: RwSignal::new(None),
            active: RwSignal::new(false),
            paused: RwSignal::new(false),
            meta: RwSignal::new(None),
            bundles: RwSignal::new(BTreeMap::new()),
            records: RwSignal::new(Vec::new()),
            finished_here: RwSignal::new(0),
            started_ms: RwSignal::new(0),
            watched: RwSignal::new(None),
            steps: RwSignal::new(Vec::new()),
            status: RwSignal::new(None),
            problems: RwSignal::new(Vec::new()),
            resumable: RwSignal::new(None),
            batch: StoredValue::new_local(None),
            store: StoredValue::new_local(None),
        }
    }
}

impl Run {
    /// What the chooser says to run (tracked: the summary follows it).
    pub fn selection(&self) -> Result<Selection, String> {
        let repeats = parse_repeats(&self.repeats.get()).map_err(|e| e.to_string())?;
        let scope = match self.by.get() {
            By::All => Scope::All,
            By::Category => Scope::Category {
                category: self.category.get(),
            },
            By::Devices => Scope::Devices {
                ids: self.picked.get(),
            },
        };
        let tasks = match self.kinds.get() {
            Kinds::Every => TaskChoice::Every,
            Kinds::Single => TaskChoice::Single,
            Kinds::Multi => TaskChoice::Multi,
            Kinds::Ids => TaskChoice::ids(&self.tasks.get()),
        };
        Ok(Selection {
            scope,
            tasks,
            repeats,
        })
    }

    /// Shows a stored batch's selection in the chooser (when it is resumed).
    pub fn show_selection(&self, selection: &Selection) {
        match &selection.scope {
            Scope::All => self.by.set(By::All),
            Scope::Category { category } => {
                self.by.set(By::Category);
                self.category.set(category.clone());
            }
            Scope::Devices { ids } => {
                self.by.set(By::Devices);
                self.picked.set(ids.clone());
            }
        }
        match &selection.tasks {
            TaskChoice::Every => self.kinds.set(Kinds::Every),
            TaskChoice::Single => self.kinds.set(Kinds::Single),
            TaskChoice::Multi => self.kinds.set(Kinds::Multi),
            TaskChoice::Ids { ids } => {
                self.kinds.set(Kinds::Ids);
                self.tasks.set(ids.join(", "));
            }
        }
        self.repeats.set(selection.repeats.to_string());
    }

    /// The catalog, or why there is none yet.
    fn catalog_now(&self) -> Result<Catalog, String> {
        self.catalog
            .get_untracked()
            .ok_or("the library is still loading")?
    }

    /// Opens, without their pictures, the devices of `records` whose logic
    /// the page does not hold yet (a resumed batch's earlier episodes),
    /// so that the metrics score them.
    async fn load_logic(&self, records: &[EpisodeRecord]) -> Result<(), String> {
        let ids: BTreeSet<String> = records
            .iter()
            .map(|r| r.trajectory.bundle_id.clone())
            .collect();
        for (n, id) in ids.iter().enumerate() {
            if self.bundles.with_untracked(|b| b.contains_key(id)) {
                continue;
            }
            let _ = self.status.try_set(Some(format!(
                "reading the devices of the episodes done: {} of {}",
                n + 1,
                ids.len()
            )));
            let entry = self
                .entries
                .with_value(|e| e.get(id).cloned())
                .ok_or_else(|| format!("the device {id} is not in this page's library"))?;
            let bundle = library::load_logic(&entry).await?;
            let _ = self.bundles.try_update(|b| {
                b.insert(id.clone(), bundle);
            });
        }
        let _ = self.status.try_set(None);
        Ok(())
    }

    /// What one event of a batch changes on the page.
    fn on_event(&self, event: Event) {
        match event {
            Event::Started { item, instruction } => {
                self.watched.set(Some((item, instruction)));
                self.steps.set(Vec::new());
            }
            Event::Step { item, step } => {
                let watched = self
                    .watched
                    .with_untracked(|w| w.as_ref().is_some_and(|(i, _)| i.key() == item));
                if watched {
                    self.steps.update(|s| s.push(step));
                }
                self.status.set(None);
            }
            Event::Retrying {
                item,
                message,
                wait_ms,
            } => self.status.set(Some(format!(
                "{item}: {message}; trying again in {:.1} s",
                wait_ms as f64 / 1_000.0
            ))),
            Event::Finished(record) => {
                self.records.update(|r| r.push(record));
                self.finished_here.update(|n| *n += 1);
            }
            Event::Opening { id } => {
                let generated = self.entries.with_value(|e| {
                    e.get(&id)
                        .is_some_and(knoblab_core::bundle::generated::is_generated)
                });
                self.status.set(Some(if generated {
                    format!("drawing the generated device {id} (seconds)…")
                } else {
                    format!("opening the device {id}…")
                }));
            }
            Event::Opened(bundle) => {
                self.status.set(None);
                let id = bundle.manifest.id.clone();
                let logic = Arc::new(bundle.without_pictures());
                self.bundles.update(|b| {
                    b.insert(id, logic);
                });
            }
            Event::Problem { item, message } => self
                .problems
                .update(|p| p.push(format!("{item}: {message}"))),
            Event::Ended => self.ended(),
        }
    }

    /// All workers stopped: a batch with every item done is marked done.
    fn ended(&self) {
        self.active.set(false);
        self.paused.set(false);
        self.status.set(None);
        let cancelled = self.batch.with_value(|b| {
            b.as_ref()
                .is_some_and(|b| b.state.get() == RunState::Cancelled)
        });
        let Some(mut meta) = self.meta.get_untracked() else {
            return;
        };
        let all_done = self
            .records
            .with_untracked(|r| meta.run.remaining(r).is_empty());
        if !cancelled && all_done {
            meta.state = BatchState::Done;
            self.meta.set(Some(meta.clone()));
            self.persist(meta);
        }
    }

    /// Saves a batch's description in the browser; a failure is shown.
    pub fn persist(&self, meta: BatchMeta) {
        if let Some(store) = self.store.get_value() {
            let problems = self.problems;
            spawn_local(async move {
                if let Err(e) = store.save_batch(&meta).await {
                    problems.update(|p| p.push(format!("the batch was not saved: {e}")));
                }
            });
        }
    }

    /// Starts running `queue`, the items left of `meta`, with `key`.
    fn launch(
        &self,
        meta: BatchMeta,
        queue: Vec<BatchItem>,
        replay: Option<RecordedAnswers>,
        key: String,
    ) {
        let batch = Rc::new(Batch::new(
            meta.clone(),
            self.entries.get_value(),
            replay,
            key,
            queue,
            self.store.get_value(),
        ));
        self.batch.set_value(Some(batch.clone()));
        self.meta.set(Some(meta));
        self.active.set(true);
        self.paused.set(false);
        self.finished_here.set(0);
        self.started_ms.set(http::now_ms());
        let run = *self;
        runner::run(batch, Rc::new(move |e| run.on_event(e)));
    }
}

/// The items of a new run, from the replay file or the chooser; for
/// `one` episode, the chooser's selection narrows to its first device with
/// a chosen task (kept with the batch, so that a resume shows it). No
/// device is opened: every task list is known (the hand devices' files,
/// the generated devices' list), and each device is opened when the run
/// reaches it.
fn items_to_run(
    run: &Run,
    selection: &mut Selection,
    replay: Option<&RecordedAnswers>,
    one: bool,
) -> Result<Vec<BatchItem>, String> {
    let catalog = run.catalog_now()?;
    let mut items = match replay {
        Some(replay) => {
            let pairs = catalog.replay_pairs(&selection.tasks, replay.tasks());
            let items = plan(&pairs, selection.repeats);
            if items.is_empty() {
                return Err("the replay file has no episode of the tasks asked for".into());
            }
            items
        }
        None => {
            if one {
                catalog.narrow_to_first(selection);
            }
            catalog.plan(selection).map_err(|e| e.to_string())?
        }
    };
    if one {
        items.truncate(1);
    }
    Ok(items)
}

/// Starts a new run; `one` runs only the first item, watched.
pub fn start(run: Run, form: Form, one: bool) {
    run.problems.set(Vec::new());
    let mut settings = match form.settings() {
        Ok(s) => s,
        Err(p) => return run.problems.set(p),
    };
    let mut selection = match untrack(|| run.selection()) {
        Ok(s) => s,
        Err(e) => return run.problems.set(vec![e]),
    };
    let source = form.source.get_untracked();
    let replay_text = run.replay_text.get_untracked();
    let replay = match (source, &replay_text) {
        (Source::Replay, Some(text)) => match RecordedAnswers::parse(text) {
            Ok(r) => Some(r),
            Err(e) => return run.problems.set(vec![e.to_string()]),
        },
        (Source::Replay, None) => {
            return run
                .problems
                .set(vec!["choose a trajectory file to replay".into()])
        }
        _ => None,
    };
    if one {
        settings.concurrency = 1;
    }
    let key = form.key.get_untracked();
    let items = match items_to_run(&run, &mut selection, replay.as_ref(), one) {
        Ok(items) => items,
        Err(e) => return run.problems.set(vec![e]),
    };
    // Planned on the library's devices as it lists them (their logic
    // hashes and the library's version): none is opened before its turn.
    let mut spec = match RunSpec::on_library(source, settings, items.clone()) {
        Ok(spec) => spec,
        Err(e) => return run.problems.set(vec![e.to_string()]),
    };
    spec.replay = replay_text.filter(|_| source == Source::Replay);
    spec.selection = Some(selection);
    let meta = BatchMeta {
        id: format!("batch-{}", http::now_ms()),
        created_ms: http::now_ms(),
        run: spec,
        state: BatchState::Running,
        uses_key: source == Source::Model && !key.trim().is_empty(),
    };
    // One unfinished batch at a time: a new one ends the offer to resume
    // an older one, which would otherwise come back after the next reload.
    if let Some((mut older, _)) = run.resumable.get_untracked() {
        older.state = BatchState::Cancelled;
        run.persist(older);
    }
    run.records.set(Vec::new());
    run.bundles.set(BTreeMap::new());
    run.resumable.set(None);
    run.persist(meta.clone());
    run.launch(meta, items, replay, key);
}

/// Resumes a stored batch: its finished episodes are read back and only
/// the items without one are run.
pub fn resume(run: Run, form: Form, meta: BatchMeta) {
    run.problems.set(Vec::new());
    form.show(meta.run.source, &meta.run.settings);
    if let Some(selection) = &meta.run.selection {
        run.show_selection(selection);
    }
    if knoblab_core::bundle::stamp::shipped().is_none() {
        // Read with the library's index (`open_library`), which this page
        // started when it opened.
        return run.problems.set(vec![
            "the library is still being read: resume once its devices are listed".into(),
        ]);
    }
    let key = form.key.get_untracked();
    if meta.uses_key && key.trim().is_empty() {
        return run.problems.set(vec![
            "enter the API key to resume (it was not stored unless you asked to remember it)"
                .into(),
        ]);
    }
    let replay = match meta
        .run
        .replay
        .as_deref()
        .map(RecordedAnswers::parse)
        .transpose()
    {
        Ok(r) => r,
        Err(e) => return run.problems.set(vec![e.to_string()]),
    };
    // The batch resumes only on the library it was planned on: its devices'
    // logic and the library's version are what this page would plan now.
    let differences = match RunSpec::on_library(
        meta.run.source,
        meta.run.settings.clone(),
        meta.run.items.clone(),
    ) {
        Ok(now) => meta.run.differences(&now),
        Err(e) => vec![e.to_string()],
    };
    if !differences.is_empty() {
        return run.problems.set(vec![format!(
            "this batch cannot be resumed here, its episodes would not pool: {}; start a new batch",
            differences.join("; ")
        )]);
    }
    spawn_local(async move {
        let records = match run.store.get_value() {
            Some(store) => match store.episodes(&meta.id).await {
                Ok(r) => r,
                Err(e) => return run.problems.set(vec![e]),
            },
            None => Vec::new(),
        };
        if let Err(e) = run.load_logic(&records).await {
            let _ = run.status.try_set(None);
            return run.problems.set(vec![e]);
        }
        let queue = meta.run.remaining(&records);
        run.records.set(records);
        run.resumable.set(None);
        run.launch(meta, queue, replay, key);
    });
}

/// Reads the library for the chooser: the index and the generated
/// devices' manifest (counted at once), then each hand-described device's
/// task list and the generated devices' task list (so that single- and
/// multi-turn tasks and task ids count, and every device plans). A
/// manifest that cannot be read leaves the hand devices, named as a
/// problem; nothing is drawn.
pub async fn open_library(run: Run) {
    read_library(run).await;
    let _ = run.tasks_read.try_set(true);
}

/// [`open_library`]'s reading, which may stop early on a problem (shown).
async fn read_library(run: Run) {
    let index = match library::index().await {
        Ok(i) => i,
        Err(e) => {
            let _ = run.catalog.try_set(Some(Err(e)));
            return;
        }
    };
    let generated = match library::generated().await {
        Ok(g) => Some(g),
        Err(e) => {
            let _ = run
                .problems
                .try_update(|p| p.push(format!("only the hand-described devices are listed: {e}")));
            None
        }
    };
    let catalog = Catalog::new(&index, generated.as_ref());
    let mut entries: BTreeMap<String, LibraryEntry> = index
        .devices
        .iter()
        .map(|e| (e.id.clone(), e.clone()))
        .collect();
    for d in generated.iter().flat_map(|g| &g.devices) {
        entries
            .entry(d.id.clone())
            .or_insert_with(|| d.library_entry());
    }
    let _ = run.entries.try_set_value(entries);
    if run
        .category
        .try_get_untracked()
        .is_some_and(|c| c.is_empty())
    {
        if let Some(first) = catalog.categories().first() {
            let _ = run.category.try_set(first.category.clone());
        }
    }
    let _ = run.catalog.try_set(Some(Ok(catalog)));
    let mut learned = Vec::new();
    for entry in index.devices.iter().filter(|e| library::has_task_file(e)) {
        match library::tasks(entry).await {
            Ok(tasks) => learned.push((entry.id.clone(), tasks)),
            Err(e) => {
                let _ = run.problems.try_update(|p| p.push(e));
            }
        }
    }
    let generated_tasks = match &generated {
        Some(manifest) => match library::generated_tasks(manifest).await {
            Ok(list) => Some(list),
            Err(e) => {
                let _ = run.problems.try_update(|p| {
                    p.push(format!(
                        "the generated devices' tasks cannot be planned: {e}"
                    ))
                });
                None
            }
        },
        None => None,
    };
    let _ = run.catalog.try_update(|c| {
        if let Some(Ok(c)) = c {
            for (id, tasks) in learned {
                c.learn_tasks(&id, tasks);
            }
            if let Some(list) = &generated_tasks {
                c.learn_generated(list);
            }
        }
    });
}

/// Finds the latest unfinished batch in the browser, to offer resuming it.
pub async fn look_for_unfinished(run: Run) {
    let store = match Store::open().await {
        Ok(s) => s,
        Err(e) => {
            let _ = run
                .problems
                .try_update(|p| p.push(format!("episodes cannot be kept in this browser: {e}")));
            return;
        }
    };
    let _ = run.store.try_set_value(Some(store.clone()));
    let Ok(batches) = store.batches().await else {
        return;
    };
    if let Some(meta) = batches
        .into_iter()
        .rev()
        .find(|b| b.state == BatchState::Running)
    {
        let done = store.episodes(&meta.id).await.map_or(0, |r| r.len());
        if done < meta.run.items.len() && run.active.try_get_untracked() == Some(false) {
            let _ = run.resumable.try_set(Some((meta, done)));
        }
    }
}
