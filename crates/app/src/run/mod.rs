//! The native runner (native only): plays a run's episodes on threads,
//! each driving the core's episode driver
//! ([`knoblab_eval::vlm::driver::EpisodeDriver`]) with a blocking HTTP client,
//! and appends each finished episode to the output file as it ends
//! ([`output`]). A run is resumable exactly once: started again on the
//! same file, it plays only the items without a record. `knoblab eval` is
//! this function and a progress bar; the Python bindings call it too.
//!
//! - [`load_library`], [`load_bundles`], [`make_plan`]: a plan from devices.
//! - [`evaluate`]: the runner; [`prepare_output`] before shards.
//! - [`output`]: the output file and its run description.
//! - [`http`]: the transport; [`cache`]: the model-call cache.

pub mod args;
pub mod cache;
pub mod http;
pub mod output;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use thiserror::Error;

use knoblab_core::bundle::Bundle;
use knoblab_core::metrics::file::EpisodeStatus;
use knoblab_core::sim::Episode;
use knoblab_eval::vlm::batch::BatchItem;
use knoblab_eval::vlm::driver::{self, ApiKey, DriverConfig, EpisodeDriver, Need};
use knoblab_eval::vlm::{EpisodeRecord, RecordedAnswers, RunSpec, Usage};

pub use args::{RunArgs, MAX_CONCURRENCY};
pub use output::{read_finished, spec_path, Finished, Output};

/// What a run needs besides its options: the description (who plays,
/// settings, the items planned), the bundles, and a replay's file.
#[derive(Debug, Clone)]
pub struct EvalPlan {
    /// Who plays, with which settings, and the items planned.
    pub spec: RunSpec,
    /// The bundles the items are played on.
    pub bundles: Vec<Arc<Bundle>>,
    /// The recorded answers a replay plays back.
    pub recorded: Option<Arc<RecordedAnswers>>,
}

/// One of `count` processes sharing a plan and its output file: it plays
/// the remaining items whose position in the plan is `index` modulo
/// `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This process's place among them, from 0.
    pub index: usize,
    /// How many processes share the plan.
    pub count: usize,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// The key requests carry (empty for a server that needs none).
    pub key: ApiKey,
    /// Episodes in flight at once (at least 1).
    pub concurrency: usize,
    /// Stop starting episodes once the run's estimated cost (the output
    /// file's episodes included) reaches this many dollars.
    pub max_cost: Option<f64>,
    /// Play only this share of the plan.
    pub shard: Option<Shard>,
    /// Play only the items at these positions of the plan (0-based; with
    /// `shard` too, those of both). One Ray task plays a few items so.
    pub select: Option<Vec<usize>>,
    /// Send the model's requests to this base URL instead of the plan's
    /// (a replica of the same model beside this process, such as one vLLM
    /// server per node of a cluster). The plan's base URL names the run:
    /// it stays in the run description and in every record.
    pub send_to: Option<String>,
    /// The model-call cache's folder ([`cache`]): replies found there are
    /// not asked for again, and new whole replies are stored there.
    pub cache: Option<PathBuf>,
}

/// What the runner tells its caller as it goes (from its threads).
#[derive(Debug, Clone, PartialEq)]
pub enum EvalEvent {
    /// The output file was read: `done` of `total` items have a record
    /// already; `notes` say what was dropped (a torn line, repeats).
    Resumed {
        /// Items with a record already.
        done: usize,
        /// Items in the plan.
        total: usize,
        /// What reading the file dropped, each in a sentence.
        notes: Vec<String>,
    },
    /// An episode began.
    Started {
        /// The item (`bundle/task#repeat`).
        item: String,
    },
    /// A request failed and is tried again after a wait.
    Retrying {
        /// The item (`bundle/task#repeat`).
        item: String,
        /// Why the request failed.
        message: String,
        /// How long before it is sent again.
        wait_ms: u64,
    },
    /// An episode ended and is in the file.
    Finished {
        /// The item.
        item: String,
        /// How it ended.
        status: EpisodeStatus,
        /// Its steps.
        steps: usize,
        /// Items with a record now, of `total`.
        done: usize,
        /// Items in the plan.
        total: usize,
        /// The run's tokens and estimated cost so far (file included).
        usage: Usage,
        /// The estimated cost in dollars, when prices are given.
        cost: Option<f64>,
    },
    /// An item could not be played (its bundle or task is missing).
    Problem {
        /// The item.
        item: String,
        /// What is missing.
        message: String,
    },
}

/// Why the runner stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Every item of the plan (or of the shard) has a record.
    Complete,
    /// The cancel flag was raised: episodes in flight were dropped.
    Cancelled,
    /// `max_cost` was reached: no episode was started after.
    MaxCost,
}

/// What a run ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOutcome {
    /// Every record of the plan's items now in the file, in plan order.
    pub records: Vec<EpisodeRecord>,
    /// Episodes finished by this call.
    pub ran: usize,
    /// Items of the plan still without a record.
    pub left: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// Items that could not be played, with why.
    pub problems: Vec<String>,
    /// How the model-call cache served this call, when one was given.
    pub cache: Option<cache::CacheTally>,
}

impl EvalOutcome {
    /// The metrics `knoblab eval` prints for the run in `file`: those of
    /// its records that did not end as `api_error` (they are not scored,
    /// and counted apart), the document of `knoblab metrics` on the file.
    /// `None` when no record is left to score.
    pub fn metrics(
        &self,
        plan: &EvalPlan,
        file: &str,
    ) -> Result<Option<crate::documents::metrics::MetricsRuns>, knoblab_core::metrics::MetricsError>
    {
        let scored: Vec<_> = self
            .records
            .iter()
            .filter(|r| r.status != EpisodeStatus::ApiError)
            .map(|r| r.trajectory.clone())
            .collect();
        if scored.is_empty() {
            return Ok(None);
        }
        let bundles: Vec<Bundle> = plan.bundles.iter().map(|b| (**b).clone()).collect();
        let run = knoblab_core::metrics::run(&bundles, &scored)?;
        let errors = self.records.len() - scored.len();
        Ok(Some(crate::documents::metrics::MetricsRuns {
            runs: vec![(file.to_string(), run)],
            api_errors: if errors > 0 {
                vec![(file.to_string(), errors)]
            } else {
                Vec::new()
            },
        }))
    }
}

/// What stops a run before it starts, or while it writes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EvalError {
    /// The output file (or the run description beside it) could not be
    /// read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The run description beside the output file is not one this build
    /// reads.
    #[error("{path}: {message}")]
    Spec {
        /// The description's file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A line of the output file is not an episode record.
    #[error("{path}:{line}: not an episode record: {message}")]
    BadLine {
        /// The output file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// What the reader found.
        message: String,
    },
    #[error(
        "{path} holds episodes of a different run, so this run would not resume it: {}; \
         use another --out, or the settings of that run",
        differences.join("; ")
    )]
    /// The output file holds another run's episodes.
    Refused {
        /// The output file.
        path: String,
        /// What differs, each as `what: before → now`.
        differences: Vec<String>,
    },
    /// An option is outside its values (the message says which are valid).
    #[error("{message}")]
    Option {
        /// What was given and what would be valid.
        message: String,
    },
    /// No item to play.
    #[error("the plan is empty: no task of the devices chosen matches")]
    EmptyPlan,
    /// A bundle, the library index or a replay file could not be loaded.
    #[error("{path}: {message}")]
    Load {
        /// The file or folder.
        path: String,
        /// Why.
        message: String,
    },
    /// A device asked for by id is not among the bundles.
    #[error("no device {id} among the bundles given")]
    NoDevice {
        /// The id asked for.
        id: String,
    },
    /// The device filter keeps nothing.
    #[error("no device matches the ids and categories asked for")]
    NoDevices,
}

/// Which devices to play: these ids and categories (empty: all).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceFilter {
    /// Device ids to play.
    pub devices: Vec<String>,
    /// Device categories to play (`ElectricKettle`).
    pub categories: Vec<String>,
}

impl DeviceFilter {
    /// Whether a device of this id and category is played.
    pub fn keeps(&self, id: &str, category: &str) -> bool {
        (self.devices.is_empty() || self.devices.iter().any(|d| d == id))
            && (self.categories.is_empty() || self.categories.iter().any(|c| c == category))
    }

    /// Every device id asked for is among `bundles`, and some device is.
    fn check(&self, bundles: &[Bundle]) -> Result<(), EvalError> {
        for id in &self.devices {
            if !bundles.iter().any(|b| &b.manifest.id == id) {
                return Err(EvalError::NoDevice { id: id.clone() });
            }
        }
        if bundles.is_empty() {
            return Err(EvalError::NoDevices);
        }
        Ok(())
    }
}

fn load_one(path: &Path) -> Result<Bundle, EvalError> {
    // A generated device's id names it too.
    let loaded = crate::devices::load_device(path).map_err(|e| e.to_string());
    loaded.map_err(|message| EvalError::Load {
        path: path.display().to_string(),
        message,
    })
}

/// The devices of a library index (`data/library.json`, with the
/// generated devices of `generated.json` when it lies beside it:
/// [`crate::devices::read_library`]) that `filter` keeps, in index order,
/// each opened by the library's one rule ([`crate::devices::open_entry_in`]).
pub fn load_library(index: &Path, filter: &DeviceFilter) -> Result<Vec<Bundle>, EvalError> {
    let load_error = |message: String| EvalError::Load {
        path: index.display().to_string(),
        message,
    };
    // Through the input layer: regular files within the bound, and each
    // device's files kept under the index's folder (no absolute path, no
    // `..`).
    let library = crate::devices::read_library(index).map_err(|e| load_error(e.to_string()))?;
    let root = index.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for entry in &library.devices {
        if filter.keeps(&entry.id, &entry.category) {
            let bundle = crate::devices::open_entry_in(root, entry)
                .into_result()
                .map_err(|e| EvalError::Load {
                    path: root.join(&entry.path).display().to_string(),
                    message: e.to_string(),
                })?;
            out.push(bundle);
        }
    }
    filter.check(&out)?;
    Ok(out)
}

/// The bundles at `paths` (folders, zips, JSON files, or generated
/// devices' ids when the generator is built in) that `filter` keeps.
pub fn load_bundles(paths: &[PathBuf], filter: &DeviceFilter) -> Result<Vec<Bundle>, EvalError> {
    let mut out = Vec::new();
    for path in paths {
        let bundle = load_one(path)?;
        if filter.keeps(&bundle.manifest.id, &bundle.manifest.category) {
            out.push(bundle);
        }
    }
    filter.check(&out)?;
    Ok(out)
}

/// The plan of `source` with `settings` on `bundles`: each task (only
/// those in `tasks`, when given) `repeats` times, in bundle and task order.
pub fn make_plan(
    source: knoblab_eval::vlm::Source,
    settings: knoblab_eval::vlm::AgentSettings,
    bundles: Vec<Bundle>,
    tasks: &[String],
    repeats: u32,
    replay: Option<(RecordedAnswers, String)>,
) -> Result<EvalPlan, EvalError> {
    let chosen: Vec<(String, Vec<String>)> = bundles
        .iter()
        .map(|b| {
            let ids = b
                .tasks
                .iter()
                .map(|t| t.id.clone())
                .filter(|t| tasks.is_empty() || tasks.contains(t))
                .collect::<Vec<_>>();
            (b.manifest.id.clone(), ids)
        })
        .filter(|(_, ids)| !ids.is_empty())
        .collect();
    let items = knoblab_eval::vlm::batch::plan(&chosen, repeats.max(1));
    if items.is_empty() {
        return Err(EvalError::EmptyPlan);
    }
    let played: Vec<&Bundle> = bundles.iter().collect();
    let mut spec = RunSpec::new(source, settings, items, &played);
    let replay = replay.map(|(r, text)| {
        spec.replay = Some(text);
        Arc::new(r)
    });
    Ok(EvalPlan {
        spec,
        bundles: bundles.into_iter().map(Arc::new).collect(),
        recorded: replay,
    })
}

/// Milliseconds since 1970, the clock the driver is given (a
/// `Retry-After` date is compared with it).
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Checks that `out` belongs to this run (its description, or with none
/// its records' settings), writing the description when it has none.
fn check_output(plan: &EvalPlan, out: &Path, finished: &Finished) -> Result<(), EvalError> {
    let path = out.display().to_string();
    match output::read_spec(out)? {
        Some(before) => {
            let differences = before.differences(&plan.spec);
            if !differences.is_empty() {
                return Err(EvalError::Refused { path, differences });
            }
        }
        None => {
            let expected = plan.spec.trajectory_settings();
            let mut differences = Vec::new();
            for r in &finished.records {
                let s = &r.trajectory.settings;
                let mut check = |what: &str, a: String, b: String| {
                    let d = format!("{what}: {a} before, {b} now");
                    if a != b && !differences.contains(&d) {
                        differences.push(d);
                    }
                };
                check("agent", s.agent.clone(), expected.agent.clone());
                check(
                    "model",
                    s.model.clone().unwrap_or_default(),
                    expected.model.clone().unwrap_or_default(),
                );
                check("λ", s.lambda.to_string(), expected.lambda.to_string());
                check(
                    "prompt version",
                    s.prompt_version.clone().unwrap_or_default(),
                    expected.prompt_version.clone().unwrap_or_default(),
                );
                if let Some(hash) = plan.spec.bundles.get(&r.trajectory.bundle_id) {
                    check(
                        &format!("the logic of device {}", r.trajectory.bundle_id),
                        r.trajectory.logic_hash.clone(),
                        hash.clone(),
                    );
                    // The library its episodes record now (the rule every
                    // recorder follows).
                    let now = knoblab_core::bundle::library_of(&r.trajectory.bundle_id, hash);
                    check(
                        "library",
                        knoblab_core::bundle::stamp::describe(s.library.as_ref()),
                        knoblab_core::bundle::stamp::describe(now.as_ref()),
                    );
                }
            }
            let planned: std::collections::BTreeSet<String> =
                plan.spec.items.iter().map(BatchItem::key).collect();
            let foreign: Vec<&str> = finished
                .records
                .iter()
                .map(|r| r.item.as_str())
                .filter(|i| !planned.contains(*i))
                .collect();
            if !foreign.is_empty() {
                differences.push(format!(
                    "{} episodes not in this plan (first {})",
                    foreign.len(),
                    foreign[0]
                ));
            }
            if !differences.is_empty() {
                return Err(EvalError::Refused { path, differences });
            }
            output::write_spec(out, &plan.spec)?;
        }
    }
    Ok(())
}

/// Gets `out` ready for a run split into shards or tasks: checks that it
/// belongs to this plan (writing the run description beside it when it
/// has none) and cuts a torn last line. Call it once, before any shard
/// starts, so that a file of another run is refused before any work is
/// sent out; [`evaluate`] does the same checks itself. Returns what the
/// file holds.
pub fn prepare_output(plan: &EvalPlan, out: &Path) -> Result<Finished, EvalError> {
    let finished = read_finished(out)?;
    check_output(plan, out, &finished)?;
    Output::open(out, &finished, true)?;
    Ok(finished)
}

/// The shared state of a run's threads.
struct Shared<'p> {
    plan: &'p EvalPlan,
    options: &'p EvalOptions,
    bundles: BTreeMap<String, Arc<Bundle>>,
    queue: Mutex<VecDeque<BatchItem>>,
    output: Mutex<Output>,
    /// Items with a record, tokens and cost so far.
    tally: Mutex<(usize, Usage, Option<f64>)>,
    ran: Mutex<usize>,
    problems: Mutex<Vec<String>>,
    error: Mutex<Option<EvalError>>,
    /// Raised when no episode may start any more (max cost, an error).
    halt: AtomicBool,
    max_cost_hit: AtomicBool,
    client: http::Client,
    /// (the plan's request URL, the one sent to instead) with `send_to`.
    route: Option<(String, String)>,
    /// The model-call cache, and how it served.
    cache: Option<cache::Cache>,
    cache_tally: Mutex<cache::CacheTally>,
}

/// Plays the plan's items that have no record in `out` yet, `concurrency`
/// at a time, appending each finished episode to `out` as it ends.
/// `progress` hears every event (from the worker threads). Raising
/// `cancel` stops it: no new request is sent, episodes in flight are
/// dropped (they run again on resume), and it returns
/// [`Stop::Cancelled`] once every thread has stopped (at worst after a
/// request's timeout).
pub fn evaluate(
    plan: &EvalPlan,
    options: &EvalOptions,
    out: &Path,
    progress: &(dyn Fn(&EvalEvent) + Sync),
    cancel: &AtomicBool,
) -> Result<EvalOutcome, EvalError> {
    if plan.spec.items.is_empty() {
        return Err(EvalError::EmptyPlan);
    }
    let total = plan.spec.items.len();
    if let Some(bad) = options
        .select
        .as_ref()
        .and_then(|s| s.iter().find(|&&p| p >= total))
    {
        return Err(EvalError::Option {
            message: format!(
                "item {bad} is not in the plan: its {total} items are numbered 0 to {}",
                total - 1
            ),
        });
    }
    // Only runs that send requests use a cache; a bad folder stops the
    // run before anything is sent.
    let cache = match &options.cache {
        Some(dir) if plan.spec.source.sends_requests() => Some(cache::Cache::open(dir)?),
        _ => None,
    };
    let finished = read_finished(out)?;
    check_output(plan, out, &finished)?;
    // The repair happens under the file's lock, so it is safe while other
    // shards write (see `Output`).
    let output = Output::open(out, &finished, true)?;
    let mut todo = plan.spec.remaining(&finished.records);
    if let Some(select) = &options.select {
        let chosen: std::collections::BTreeSet<String> =
            select.iter().map(|&p| plan.spec.items[p].key()).collect();
        todo.retain(|item| chosen.contains(&item.key()));
    }
    if let Some(shard) = options.shard {
        let count = shard.count.max(1);
        let position: HashMap<String, usize> = plan
            .spec
            .items
            .iter()
            .enumerate()
            .map(|(i, item)| (item.key(), i))
            .collect();
        todo.retain(|item| {
            position
                .get(&item.key())
                .is_some_and(|p| p % count == shard.index)
        });
    }
    let mut usage = Usage::default();
    let mut cost: Option<f64> = None;
    let planned: std::collections::BTreeSet<String> =
        plan.spec.items.iter().map(BatchItem::key).collect();
    let mine: Vec<&EpisodeRecord> = finished
        .records
        .iter()
        .filter(|r| planned.contains(&r.item))
        .collect();
    for r in &mine {
        usage.add(r.usage);
        if let Some(c) = r.cost {
            cost = Some(cost.unwrap_or(0.0) + c);
        }
    }
    let mut output = output;
    let mut notes = finished.notes.clone();
    notes.extend(output.take_notes());
    progress(&EvalEvent::Resumed {
        done: mine.len(),
        total,
        notes,
    });

    let shared = Shared {
        plan,
        options,
        bundles: plan
            .bundles
            .iter()
            .map(|b| (b.manifest.id.clone(), b.clone()))
            .collect(),
        queue: Mutex::new(todo.into()),
        output: Mutex::new(output),
        tally: Mutex::new((mine.len(), usage, cost)),
        ran: Mutex::new(0),
        problems: Mutex::new(Vec::new()),
        error: Mutex::new(None),
        halt: AtomicBool::new(false),
        max_cost_hit: AtomicBool::new(false),
        client: http::Client::new(plan.spec.settings.timeout_ms),
        route: options.send_to.as_ref().map(|base| {
            let mut to = plan.spec.settings.endpoint.clone();
            to.base_url = base.clone();
            (plan.spec.settings.endpoint.url(), to.url())
        }),
        cache,
        cache_tally: Mutex::new(cache::CacheTally::default()),
    };
    let workers = options.concurrency.max(1);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| worker(&shared, progress, cancel));
        }
    });
    if let Some(e) = lock(&shared.error).take() {
        return Err(e);
    }
    let ran = *lock(&shared.ran);
    let problems = lock(&shared.problems).clone();

    // The file again: other processes (shards) may have appended too.
    let now = read_finished(out)?;
    let mut by_item: HashMap<String, EpisodeRecord> = now
        .records
        .into_iter()
        .map(|r| (r.item.clone(), r))
        .collect();
    let records: Vec<EpisodeRecord> = plan
        .spec
        .items
        .iter()
        .filter_map(|i| by_item.remove(&i.key()))
        .collect();
    let left = total - records.len();
    let stop = if cancel.load(Ordering::SeqCst) && left > 0 {
        Stop::Cancelled
    } else if shared.max_cost_hit.load(Ordering::SeqCst) && left > 0 {
        Stop::MaxCost
    } else {
        Stop::Complete
    };
    Ok(EvalOutcome {
        records,
        ran,
        left,
        stop,
        problems,
        cache: shared.cache.as_ref().map(|_| *lock(&shared.cache_tally)),
    })
}

/// A lock, even if a thread panicked holding it (the data stays usable:
/// each update is one assignment).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn stopped(shared: &Shared<'_>, cancel: &AtomicBool) -> bool {
    cancel.load(Ordering::SeqCst) || shared.halt.load(Ordering::SeqCst)
}

/// One thread: takes items until none is left or the run stops. Keeps one
/// compiled episode per bundle, reused across its items.
fn worker(shared: &Shared<'_>, progress: &(dyn Fn(&EvalEvent) + Sync), cancel: &AtomicBool) {
    let mut episodes: HashMap<String, Episode<'_>> = HashMap::new();
    loop {
        if stopped(shared, cancel) {
            return;
        }
        if let Some(max) = shared.options.max_cost {
            let (_, _, cost) = *lock(&shared.tally);
            if cost.is_some_and(|c| c >= max) {
                shared.max_cost_hit.store(true, Ordering::SeqCst);
                shared.halt.store(true, Ordering::SeqCst);
                return;
            }
        }
        let Some(item) = lock(&shared.queue).pop_front() else {
            return;
        };
        let Some(bundle) = shared.bundles.get(&item.bundle_id) else {
            problem(
                shared,
                progress,
                &item,
                format!("the device {} is not loaded", item.bundle_id),
            );
            continue;
        };
        let episode = episodes
            .remove(&item.bundle_id)
            .unwrap_or_else(|| Episode::new(bundle));
        match play(shared, bundle, episode, &item, progress, cancel) {
            Ok((Some(record), episode)) => {
                episodes.insert(item.bundle_id.clone(), episode);
                finished(shared, progress, *record);
            }
            Ok((None, _)) => return,
            Err(e) => problem(shared, progress, &item, e.to_string()),
        }
    }
}

fn problem(
    shared: &Shared<'_>,
    progress: &(dyn Fn(&EvalEvent) + Sync),
    item: &BatchItem,
    message: String,
) {
    lock(&shared.problems).push(format!("{}: {message}", item.key()));
    progress(&EvalEvent::Problem {
        item: item.key(),
        message,
    });
}

type Played<'b> = (Option<Box<EpisodeRecord>>, Episode<'b>);

/// Why an episode could not be played (a problem of the run, reported
/// with its item; the other episodes go on).
#[derive(Debug, Error)]
enum PlayError {
    /// Its agent could not be made.
    #[error(transparent)]
    Agent(#[from] knoblab_eval::vlm::VlmError),
    /// The episode could not start or go on.
    #[error(transparent)]
    Episode(#[from] knoblab_core::sim::SimError),
}

/// Drives one episode; no record when the run was stopped during it.
fn play<'b>(
    shared: &Shared<'_>,
    bundle: &'b Bundle,
    episode: Episode<'b>,
    item: &BatchItem,
    progress: &(dyn Fn(&EvalEvent) + Sync),
    cancel: &AtomicBool,
) -> Result<Played<'b>, PlayError> {
    let spec = &shared.plan.spec;
    let agent = driver::player(spec, bundle, shared.plan.recorded.as_ref(), item.repeat)?;
    let config = DriverConfig::for_run(spec, shared.options.key.clone());
    let mut driver = EpisodeDriver::new(episode, item, agent, config)?;
    let keys = shared
        .cache
        .as_ref()
        .map(|_| cache::KeyParts::of(spec, item));
    progress(&EvalEvent::Started { item: item.key() });
    loop {
        let need = driver.poll(now_ms())?;
        for event in driver.take_events() {
            if let driver::Event::Retrying { message, wait_ms } = event {
                progress(&EvalEvent::Retrying {
                    item: item.key(),
                    message,
                    wait_ms,
                });
            }
        }
        match need {
            Need::Done(record) => return Ok((Some(record), driver.into_episode())),
            Need::Send {
                mut request,
                timeout_ms,
            } => {
                if cancel.load(Ordering::SeqCst) {
                    return Ok((None, driver.into_episode()));
                }
                // The cache first (keyed by the request as planned).
                let key = keys.as_ref().map(|k| k.key(driver.turn(), &request));
                if let (Some(c), Some(key)) = (&shared.cache, &key) {
                    let found = c.get(key, spec.settings.endpoint.flavor);
                    let mut tally = lock(&shared.cache_tally);
                    if let Some(body) = found {
                        tally.hits += 1;
                        drop(tally);
                        driver.feed_cached(body, now_ms());
                        continue;
                    }
                    tally.misses += 1;
                }
                if let Some((from, to)) = &shared.route {
                    if &request.url == from {
                        request.url = to.clone();
                    }
                }
                let answer = shared.client.send(&request, timeout_ms);
                let body = match (&key, &answer) {
                    (Some(_), driver::Answer::Response { body, .. }) => Some(body.clone()),
                    _ => None,
                };
                driver.feed(answer, now_ms());
                if let (Some(c), Some(key), Some(body)) = (&shared.cache, &key, body) {
                    if driver.storable() {
                        let stored = c.put(key, &body).is_ok();
                        let mut tally = lock(&shared.cache_tally);
                        if stored {
                            tally.stored += 1;
                        } else {
                            tally.failed_writes += 1;
                        }
                    }
                }
            }
            Need::Wait { ms } => {
                let until = now_ms().saturating_add(ms);
                while now_ms() < until {
                    if cancel.load(Ordering::SeqCst) {
                        return Ok((None, driver.into_episode()));
                    }
                    let left = until.saturating_sub(now_ms()).min(50);
                    std::thread::sleep(Duration::from_millis(left));
                }
            }
        }
    }
}

/// Appends a finished episode and tells the caller.
fn finished(shared: &Shared<'_>, progress: &(dyn Fn(&EvalEvent) + Sync), record: EpisodeRecord) {
    let written = match lock(&shared.output).append(&record) {
        Ok(w) => w,
        Err(e) => {
            *lock(&shared.error) = Some(e);
            shared.halt.store(true, Ordering::SeqCst);
            return;
        }
    };
    if !written {
        // Another process put this item in the file first (a task retried
        // while its first attempt still ran): that record stands, and the
        // outcome, read from the file at the end, counts it.
        return;
    }
    *lock(&shared.ran) += 1;
    let (done, usage, cost) = {
        let mut tally = lock(&shared.tally);
        tally.0 += 1;
        tally.1.add(record.usage);
        if let Some(c) = record.cost {
            tally.2 = Some(tally.2.unwrap_or(0.0) + c);
        }
        *tally
    };
    progress(&EvalEvent::Finished {
        item: record.item.clone(),
        status: record.status,
        steps: record.trajectory.steps.len(),
        done,
        total: shared.plan.spec.items.len(),
        usage,
        cost,
    });
}
