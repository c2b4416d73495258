//! The page's state and what drives it: starting a run from the form,
//! resuming a stored batch, and what each event of a batch changes.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::library;
use super::runner::{self, Batch, Event, RunState, StepView};
use crate::bundle::{Bundle, LibraryIndex};
use crate::ui::browser::http;
use crate::ui::browser::indexeddb::{BatchMeta, BatchState, Source, Store};
use crate::vlm::batch::{parse_repeats, plan, TaskFilter};
use crate::vlm::{BatchItem, EpisodeRecord, RecordedAnswers, RunSpec};

use super::form::Form;

/// The page's state, one signal each, provided as a context value.
#[derive(Clone, Copy)]
pub struct Run {
    pub index: RwSignal<Option<Result<LibraryIndex, String>>>,
    pub selected: RwSignal<BTreeSet<String>>,
    pub tasks: RwSignal<String>,
    pub repeats: RwSignal<String>,
    pub replay_text: RwSignal<Option<String>>,
    /// A run is going (running or paused).
    pub active: RwSignal<bool>,
    pub paused: RwSignal<bool>,
    pub meta: RwSignal<Option<BatchMeta>>,
    pub bundles: RwSignal<BTreeMap<String, Arc<Bundle>>>,
    pub records: RwSignal<Vec<EpisodeRecord>>,
    /// Episodes finished since this page opened, and since when.
    pub finished_here: RwSignal<usize>,
    pub started_ms: RwSignal<u64>,
    pub watched: RwSignal<Option<(BatchItem, Option<String>)>>,
    pub steps: RwSignal<Vec<StepView>>,
    pub status: RwSignal<Option<String>>,
    pub problems: RwSignal<Vec<String>>,
    pub resumable: RwSignal<Option<(BatchMeta, usize)>>,
    pub batch: StoredValue<Option<Rc<Batch>>, LocalStorage>,
    pub store: StoredValue<Option<Store>, LocalStorage>,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            index: RwSignal::new(None),
            selected: RwSignal::new(BTreeSet::new()),
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
    /// Loads the bundles of these ids that are not loaded yet.
    async fn load_bundles(&self, ids: &BTreeSet<String>) -> Result<(), String> {
        let index = self
            .index
            .get_untracked()
            .ok_or("the library is still loading")??;
        for id in ids {
            if self.bundles.with_untracked(|b| b.contains_key(id)) {
                continue;
            }
            let entry = index
                .devices
                .iter()
                .find(|d| &d.id == id)
                .ok_or_else(|| format!("the device {id} is not in this page's library"))?;
            let bundle = library::load(entry).await?;
            self.bundles.update(|b| {
                b.insert(id.clone(), bundle);
            });
        }
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
            self.bundles.get_untracked(),
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

/// The items of a new run, from the replay file or the chosen devices.
fn items_to_run(
    run: &Run,
    source: Source,
    replay: Option<&RecordedAnswers>,
) -> Result<Vec<BatchItem>, String> {
    let repeats = parse_repeats(&run.repeats.get_untracked()).map_err(|e| e.to_string())?;
    let filter = TaskFilter::parse(&run.tasks.get_untracked());
    let mut tasks: Vec<(String, Vec<String>)> = Vec::new();
    if let (Source::Replay, Some(replay)) = (source, replay) {
        tasks = filter.group_by_bundle(replay.tasks());
    } else {
        run.bundles.with_untracked(|bundles| {
            for id in run.selected.get_untracked() {
                if let Some(b) = bundles.get(&id) {
                    let ids = b
                        .tasks
                        .iter()
                        .map(|t| t.id.clone())
                        .filter(|t| filter.keeps(t));
                    tasks.push((id, ids.collect()));
                }
            }
        });
    }
    let items = plan(&tasks, repeats);
    if items.is_empty() {
        return Err(match source {
            Source::Replay => "the replay file has no episode of the tasks asked for".into(),
            _ => "choose at least one device (and tasks it has)".into(),
        });
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
    spawn_local(async move {
        let ids: BTreeSet<String> = match &replay {
            Some(r) => r.tasks().into_iter().map(|(b, _)| b).collect(),
            None => run.selected.get_untracked(),
        };
        if let Err(e) = run.load_bundles(&ids).await {
            return run.problems.set(vec![e]);
        }
        let mut items = match items_to_run(&run, source, replay.as_ref()) {
            Ok(items) => items,
            Err(e) => return run.problems.set(vec![e]),
        };
        if one {
            items.truncate(1);
        }
        let mut spec = run.bundles.with_untracked(|bundles| {
            let played: Vec<&Bundle> = ids
                .iter()
                .filter_map(|id| bundles.get(id).map(|b| b.as_ref()))
                .collect();
            RunSpec::new(source, settings, items.clone(), &played)
        });
        spec.replay = replay_text.filter(|_| source == Source::Replay);
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
        run.resumable.set(None);
        run.persist(meta.clone());
        run.launch(meta, items, replay, key);
    });
}

/// Resumes a stored batch: its finished episodes are read back and only
/// the items without one are run.
pub fn resume(run: Run, form: Form, meta: BatchMeta) {
    run.problems.set(Vec::new());
    form.show(meta.run.source, &meta.run.settings);
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
    spawn_local(async move {
        let ids: BTreeSet<String> = meta.run.items.iter().map(|i| i.bundle_id.clone()).collect();
        if let Err(e) = run.load_bundles(&ids).await {
            return run.problems.set(vec![e]);
        }
        let records = match run.store.get_value() {
            Some(store) => match store.episodes(&meta.id).await {
                Ok(r) => r,
                Err(e) => return run.problems.set(vec![e]),
            },
            None => Vec::new(),
        };
        let queue = meta.run.remaining(&records);
        run.records.set(records);
        run.resumable.set(None);
        run.launch(meta, queue, replay, key);
    });
}

/// Finds the latest unfinished batch in the browser, to offer resuming it.
pub async fn look_for_unfinished(run: Run) {
    let store = match Store::open().await {
        Ok(s) => s,
        Err(e) => {
            run.problems
                .update(|p| p.push(format!("episodes cannot be kept in this browser: {e}")));
            return;
        }
    };
    run.store.set_value(Some(store.clone()));
    let Ok(batches) = store.batches().await else {
        return;
    };
    if let Some(meta) = batches
        .into_iter()
        .rev()
        .find(|b| b.state == BatchState::Running)
    {
        let done = store.episodes(&meta.id).await.map_or(0, |r| r.len());
        if done < meta.run.items.len() && !run.active.get_untracked() {
            run.resumable.set(Some((meta, done)));
        }
    }
}
