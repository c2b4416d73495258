//! The Agent page (issue #10): run a model, a replay, the oracle or the
//! random agent on devices of the library, one episode watched step by
//! step or a batch with progress, pause, resume and cancel. Every finished
//! episode is saved in IndexedDB as it ends; reopening the page offers to
//! resume an unfinished batch. Exports: the episodes as JSON Lines (every
//! setting, never the key) and the metrics table as CSV, or straight to
//! the Score page.
//!
//! - [`form`]: the settings form.
//! - [`watch`]: progress and step cards.
//! - [`results`]: the metrics table and `api_error` episodes.

pub mod form;
pub mod results;
pub mod watch;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_bindgen::JsCast;

use crate::bundle::{Bundle, LibraryIndex};
use crate::ui::agent::runner::{self, Batch, Event, RunState, StepView};
use crate::ui::agent::store::{BatchMeta, BatchState, Source, Store};
use crate::ui::agent::{files, library, net};
use crate::vlm::batch::{plan, remaining, Progress};
use crate::vlm::record::EpisodeStatus;
use crate::vlm::{BatchItem, BatchReport, EpisodeRecord, Replay};

use form::{Form, SettingsForm};
use results::Results;
use watch::{ProgressBar, StepCard};

/// The page's state, one signal each, provided as a context value.
#[derive(Clone, Copy)]
struct Run {
    index: RwSignal<Option<Result<LibraryIndex, String>>>,
    selected: RwSignal<BTreeSet<String>>,
    tasks: RwSignal<String>,
    repeats: RwSignal<String>,
    replay_text: RwSignal<Option<String>>,
    /// A run is going (running or paused).
    active: RwSignal<bool>,
    paused: RwSignal<bool>,
    meta: RwSignal<Option<BatchMeta>>,
    bundles: RwSignal<BTreeMap<String, Arc<Bundle>>>,
    records: RwSignal<Vec<EpisodeRecord>>,
    /// Episodes finished since this page opened, and since when.
    finished_here: RwSignal<usize>,
    started_ms: RwSignal<u64>,
    watched: RwSignal<Option<(BatchItem, Option<String>)>>,
    steps: RwSignal<Vec<StepView>>,
    status: RwSignal<Option<String>>,
    problems: RwSignal<Vec<String>>,
    resumable: RwSignal<Option<(BatchMeta, usize)>>,
    batch: StoredValue<Option<Rc<Batch>>, LocalStorage>,
    store: StoredValue<Option<Store>, LocalStorage>,
}

impl Run {
    fn new() -> Run {
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
            .with_untracked(|r| remaining(&meta.items, r).is_empty());
        if !cancelled && all_done {
            meta.state = BatchState::Done;
            self.save_meta(meta);
        }
    }

    fn save_meta(&self, meta: BatchMeta) {
        self.meta.set(Some(meta.clone()));
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
    fn launch(&self, meta: BatchMeta, queue: Vec<BatchItem>, replay: Option<Replay>, key: String) {
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
        self.started_ms.set(net::now_ms());
        let run = *self;
        runner::run(batch, Rc::new(move |e| run.on_event(e)));
    }
}

/// The items of a new run, from the replay file or the chosen devices.
fn items_to_run(
    run: &Run,
    source: Source,
    replay: Option<&Replay>,
) -> Result<Vec<BatchItem>, String> {
    let repeats: u32 = run
        .repeats
        .get_untracked()
        .trim()
        .parse()
        .ok()
        .filter(|r| (1..=100).contains(r))
        .ok_or("repeats must be a whole number from 1 to 100")?;
    let wanted: BTreeSet<String> = run
        .tasks
        .get_untracked()
        .split(',')
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let keep = |task: &str| wanted.is_empty() || wanted.contains(task);
    let mut tasks: Vec<(String, Vec<String>)> = Vec::new();
    if let (Source::Replay, Some(replay)) = (source, replay) {
        for (bundle, task) in replay.tasks() {
            if keep(&task) {
                match tasks.iter_mut().find(|(b, _)| *b == bundle) {
                    Some((_, ts)) => ts.push(task),
                    None => tasks.push((bundle, vec![task])),
                }
            }
        }
    } else {
        run.bundles.with_untracked(|bundles| {
            for id in run.selected.get_untracked() {
                if let Some(b) = bundles.get(&id) {
                    let ids = b.tasks.iter().map(|t| t.id.clone()).filter(|t| keep(t));
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
fn start(run: Run, form: Form, one: bool) {
    run.problems.set(Vec::new());
    let mut settings = match form.settings() {
        Ok(s) => s,
        Err(p) => return run.problems.set(p),
    };
    let source = form.source.get_untracked();
    let replay_text = run.replay_text.get_untracked();
    let replay = match (source, &replay_text) {
        (Source::Replay, Some(text)) => match Replay::parse(text) {
            Ok(r) => Some(r),
            Err(e) => return run.problems.set(vec![e]),
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
        let meta = BatchMeta {
            id: format!("batch-{}", net::now_ms()),
            created_ms: net::now_ms(),
            source,
            settings,
            items: items.clone(),
            state: BatchState::Running,
            uses_key: source == Source::Model && !key.trim().is_empty(),
            replay: replay_text.filter(|_| source == Source::Replay),
        };
        run.records.set(Vec::new());
        run.resumable.set(None);
        run.save_meta(meta.clone());
        run.launch(meta, items, replay, key);
    });
}

/// Resumes a stored batch: its finished episodes are read back and only
/// the items without one are run.
fn resume(run: Run, form: Form, meta: BatchMeta) {
    run.problems.set(Vec::new());
    form.show(meta.source, &meta.settings);
    let key = form.key.get_untracked();
    if meta.uses_key && key.trim().is_empty() {
        return run.problems.set(vec![
            "enter the API key to resume (it was not stored unless you asked to remember it)"
                .into(),
        ]);
    }
    let replay = match meta.replay.as_deref().map(Replay::parse).transpose() {
        Ok(r) => r,
        Err(e) => return run.problems.set(vec![e]),
    };
    spawn_local(async move {
        let ids: BTreeSet<String> = meta.items.iter().map(|i| i.bundle_id.clone()).collect();
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
        let queue = remaining(&meta.items, &records);
        run.records.set(records);
        run.resumable.set(None);
        run.launch(meta, queue, replay, key);
    });
}

/// Finds the latest unfinished batch in the browser, to offer resuming it.
async fn look_for_unfinished(run: Run) {
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
        if done < meta.items.len() && !run.active.get_untracked() {
            run.resumable.set(Some((meta, done)));
        }
    }
}

#[component]
pub fn AgentPage() -> impl IntoView {
    let form = Form::default();
    let run = Run::new();
    provide_context(form);
    spawn_local(async move {
        let index = library::index().await;
        run.index.set(Some(index));
    });
    spawn_local(look_for_unfinished(run));

    let progress = Signal::derive(move || {
        let total = run.meta.with(|m| m.as_ref().map_or(0, |m| m.items.len()));
        let prices = run
            .meta
            .with(|m| m.as_ref().map(|m| (m.source, m.settings.prices)));
        run.records.with(|records| {
            Progress::new(
                records,
                total,
                run.finished_here.get(),
                net::now_ms().saturating_sub(run.started_ms.get()),
                |u| match prices {
                    Some((Source::Model, p)) => p.cost(u),
                    _ => None,
                },
            )
        })
    });
    let report = Memo::new(move |_| {
        let records = run.records.get();
        if records.is_empty() {
            return None;
        }
        let bundles: Vec<Bundle> = run
            .bundles
            .with(|b| b.values().map(|b| b.as_ref().clone()).collect());
        Some(BatchReport::new(&bundles, &records).map_err(|e| e.to_string()))
    });

    view! {
        <section class="page agent" data-testid="agent-page">
            <h1>"Agent"</h1>
            <p class="lead">
                "Run a vision-language model on the devices with your own API key, straight from this page: "
                "the key goes only to the address you type. Without a key, replay a trajectory file or run the oracle or random agent."
            </p>
            <ResumeBanner run=run form=form />
            <div class="agent-layout">
                <div class="agent-setup">
                    <SettingsForm disabled=run.active />
                    <Selection run=run form=form />
                </div>
                <div class="agent-run">
                    <Controls run=run form=form />
                    <Problems run=run />
                    <Show when=move || run.meta.with(Option::is_some)>
                        <ProgressBar progress=progress />
                    </Show>
                    <Watched run=run />
                </div>
            </div>
            <Results report=report records=run.records />
            <Exports run=run report=report />
        </section>
    }
}

/// The offer to resume an unfinished batch found in the browser.
#[component]
fn ResumeBanner(run: Run, form: Form) -> impl IntoView {
    move || {
        run.resumable.get().map(|(meta, done)| {
            let total = meta.items.len();
            let for_resume = meta.clone();
            let for_discard = meta.clone();
            view! {
                <div class="notice resume" data-testid="agent-resume-banner">
                    <p>{format!("An unfinished batch ({}) was found in this browser: {done} of {total} episodes are done.",
                        match meta.source {
                            Source::Model => format!("{} at {}", meta.settings.endpoint.model, meta.settings.endpoint.base_url),
                            other => format!("{} agent", other.name()),
                        })}</p>
                    <button data-testid="agent-resume" on:click=move |_| resume(run, form, for_resume.clone())>"Resume it"</button>
                    <button class="secondary" data-testid="agent-discard" on:click=move |_| {
                        let mut meta = for_discard.clone();
                        meta.state = BatchState::Cancelled;
                        run.resumable.set(None);
                        run.save_meta(meta);
                        run.meta.set(None);
                    }>"Discard"</button>
                </div>
            }
        })
    }
}

/// Which devices and tasks to run, and the replay file.
#[component]
fn Selection(run: Run, form: Form) -> impl IntoView {
    let is_replay = move || form.source.get() == Source::Replay;
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        spawn_local(async move {
            match files::chosen_text(&input).await {
                Ok(text) => run.replay_text.set(text),
                Err(e) => run.problems.set(vec![e]),
            }
        });
    };
    let devices = move || {
        run.index.with(|index| match index {
            None => view! { <p class="muted">"Loading the library…"</p> }.into_any(),
            Some(Err(e)) => view! { <p class="bad">{e.clone()}</p> }.into_any(),
            Some(Ok(index)) => {
                let mut by_category: BTreeMap<String, Vec<(String, String, usize)>> = BTreeMap::new();
                for d in &index.devices {
                    by_category
                        .entry(d.category.clone())
                        .or_default()
                        .push((d.id.clone(), d.name.clone(), d.tasks));
                }
                by_category
                    .into_iter()
                    .map(|(category, devices)| {
                        let ids: Vec<String> = devices.iter().map(|d| d.0.clone()).collect();
                        let all_ids = ids.clone();
                        let all = move || run.selected.with(|s| all_ids.iter().all(|i| s.contains(i)));
                        view! {
                            <fieldset class="category">
                                <legend>
                                    <label class="check">
                                        <input type="checkbox" data-testid=format!("agent-category-{category}")
                                            prop:checked=all
                                            on:change=move |ev| {
                                                let on = event_target_checked(&ev);
                                                run.selected.update(|s| for i in &ids {
                                                    if on { s.insert(i.clone()); } else { s.remove(i); }
                                                });
                                            } />
                                        <span>{category.clone()}</span>
                                    </label>
                                </legend>
                                {devices.into_iter().map(|(id, name, tasks)| {
                                    let for_check = id.clone();
                                    let for_change = id.clone();
                                    view! {
                                        <label class="check device">
                                            <input type="checkbox" data-testid=format!("agent-device-{id}")
                                                prop:checked=move || run.selected.with(|s| s.contains(&for_check))
                                                on:change=move |ev| {
                                                    let on = event_target_checked(&ev);
                                                    run.selected.update(|s| {
                                                        if on { s.insert(for_change.clone()); } else { s.remove(&for_change); }
                                                    });
                                                } />
                                            <span>{format!("{name} ({tasks} tasks)")}</span>
                                        </label>
                                    }
                                }).collect_view()}
                            </fieldset>
                        }
                    })
                    .collect_view()
                    .into_any()
            }
        })
    };
    view! {
        <fieldset class="agent-selection" prop:disabled=move || run.active.get()>
            <legend>"What to run"</legend>
            <Show when=is_replay fallback=move || view! { <div class="devices" data-testid="agent-devices">{devices}</div> }>
                <label class="field">
                    <span>"Trajectory file to replay (JSON Lines)"</span>
                    <input type="file" accept=".jsonl,.json,.txt" data-testid="agent-replay-file" on:change=on_file />
                </label>
                <p class="muted">{move || run.replay_text.with(|t| match t.as_deref().map(Replay::parse) {
                    None => "No file chosen.".to_string(),
                    Some(Ok(r)) => format!("{} recorded episodes of {} tasks.", r.len(), r.tasks().len()),
                    Some(Err(e)) => e,
                })}</p>
            </Show>
            <div class="field-row">
                <label class="field">
                    <span>"Tasks (ids, comma-separated; empty for all)"</span>
                    <input type="text" data-testid="agent-tasks" prop:value=move || run.tasks.get()
                        on:input=move |ev| run.tasks.set(event_target_value(&ev)) />
                </label>
                <label class="field narrow">
                    <span>"Repeats"</span>
                    <input type="number" min="1" max="100" data-testid="agent-repeats" prop:value=move || run.repeats.get()
                        on:input=move |ev| run.repeats.set(event_target_value(&ev)) />
                </label>
            </div>
        </fieldset>
    }
}

/// Start, pause, resume and cancel.
#[component]
fn Controls(run: Run, form: Form) -> impl IntoView {
    let pause = move |_| {
        let paused = !run.paused.get_untracked();
        run.batch.with_value(|b| {
            if let Some(b) = b {
                b.state.set(if paused {
                    RunState::Paused
                } else {
                    RunState::Running
                });
            }
        });
        run.paused.set(paused);
    };
    let cancel = move |_| {
        run.batch.with_value(|b| {
            if let Some(b) = b {
                b.cancel();
            }
        });
        if let Some(mut meta) = run.meta.get_untracked() {
            meta.state = BatchState::Cancelled;
            run.save_meta(meta);
        }
    };
    view! {
        <div class="agent-controls">
            <Show
                when=move || run.active.get()
                fallback=move || view! {
                    <button data-testid="agent-run-one" on:click=move |_| start(run, form, true)>"Run one episode"</button>
                    <button data-testid="agent-run-batch" on:click=move |_| start(run, form, false)>"Run batch"</button>
                }
            >
                <button data-testid="agent-pause" on:click=pause>
                    {move || if run.paused.get() { "Resume" } else { "Pause" }}
                </button>
                <button class="danger" data-testid="agent-cancel" on:click=cancel>"Cancel"</button>
            </Show>
            <span class="status" data-testid="agent-status">{move || {
                if run.paused.get() { Some("Paused: the episodes in progress stop after their current step.".to_string()) }
                else { run.status.get() }
            }}</span>
        </div>
    }
}

/// Problems to show: bad settings, unloadable devices, unsaved episodes.
#[component]
fn Problems(run: Run) -> impl IntoView {
    view! {
        <Show when=move || run.problems.with(|p| !p.is_empty())>
            <ul class="problems" data-testid="agent-problems">
                {move || run.problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
            </ul>
        </Show>
    }
}

/// The episode being watched: its task and its steps, newest first.
#[component]
fn Watched(run: Run) -> impl IntoView {
    move || {
        run.watched.get().map(|(item, instruction)| {
            view! {
                <section class="watched" data-testid="agent-watched">
                    <h2>{format!("{} · task {} · run {}", item.bundle_id, item.task_id, item.repeat + 1)}</h2>
                    <p class="instruction">{instruction.unwrap_or_default()}</p>
                    <div class="steps">
                        {move || run.steps.get().into_iter().rev().map(|step| view! { <StepCard step=step /> }).collect_view()}
                    </div>
                </section>
            }
        })
    }
}

/// The exports: episodes, metrics, and the Score page.
#[component]
fn Exports(run: Run, report: Memo<Option<Result<BatchReport, String>>>) -> impl IntoView {
    let name = move || {
        run.meta.with_untracked(|m| {
            m.as_ref()
                .map_or("knoblab".into(), |m| format!("knoblab-{}", m.id))
        })
    };
    let fail = move |e: String| run.problems.update(|p| p.push(e));
    let export_lines = move |_| {
        let lines = run.records.with_untracked(|r| EpisodeRecord::to_lines(r));
        match lines {
            Ok(text) => {
                if let Err(e) =
                    files::download(&format!("{}.jsonl", name()), "application/x-ndjson", &text)
                {
                    fail(e);
                }
            }
            Err(e) => fail(e.to_string()),
        }
    };
    let export_csv = move |_| {
        let label = run.meta.with_untracked(|m| match m {
            Some(m) if m.source == Source::Model => m.settings.endpoint.model.clone(),
            Some(m) => m.source.name().to_string(),
            None => String::new(),
        });
        match report.get_untracked() {
            Some(Ok(r)) => {
                if let Err(e) = files::download(
                    &format!("{}-metrics.csv", name()),
                    "text/csv",
                    &r.to_csv(&label),
                ) {
                    fail(e);
                }
            }
            Some(Err(e)) => fail(e),
            None => {}
        }
    };
    let to_score = move |_| {
        let scored: Vec<EpisodeRecord> = run.records.with_untracked(|r| {
            r.iter()
                .filter(|r| r.status != EpisodeStatus::ApiError)
                .cloned()
                .collect()
        });
        match EpisodeRecord::to_lines(&scored) {
            Ok(text) => {
                if let Err(e) = files::open_in_score(&text) {
                    fail(e);
                }
            }
            Err(e) => fail(e.to_string()),
        }
    };
    let none = move || run.records.with(Vec::is_empty);
    view! {
        <div class="agent-exports">
            <button data-testid="agent-export-jsonl" disabled=none on:click=export_lines>"Export episodes (JSON Lines)"</button>
            <button data-testid="agent-export-csv" disabled=none on:click=export_csv>"Export metrics (CSV)"</button>
            <button class="secondary" data-testid="agent-open-score" disabled=none on:click=to_score>"Open in Score page"</button>
        </div>
    }
}
