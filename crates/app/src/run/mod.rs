//! The native runner (native only): plays a run's episodes on threads,
//! each driving the core's episode driver
//! ([`knoblab_eval::vlm::driver::EpisodeDriver`]) with a blocking HTTP client,
//! and appends each finished episode to the output file as it ends
//! ([`output`]). A run is resumable exactly once: started again on the
//! same file, it plays only the items without a record. `knoblab eval` is
//! this function and a progress bar; the Python bindings call it too.
//!
//! - [`load_library`], [`load_bundles`], [`make_plan`]: a plan from devices.
//! - [`evaluate`] (in `threads`): the runner, its threads and their
//!   shared state; [`prepare_output`] before shards.
//! - [`output`]: the output file and its run description.
//! - [`http`]: the transport; [`cache`]: the model-call cache.

pub mod args;
pub mod cache;
pub mod http;
pub mod output;
mod threads;

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
pub use threads::evaluate;

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
    ) -> Result<Option<crate::scoring::metrics::MetricsRuns>, knoblab_core::metrics::MetricsError>
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
        use crate::scoring::{Unused, UnusedKind};
        let unused: Vec<Unused> = self
            .records
            .iter()
            .filter(|r| r.status == EpisodeStatus::ApiError)
            .map(|r| {
                Unused::new(
                    file,
                    UnusedKind::NotScored,
                    "the episode ended as api_error (the model could not be reached); not scored",
                )
                .named(r.item.clone())
            })
            .collect();
        Ok(Some(crate::scoring::metrics::MetricsRuns {
            runs: vec![crate::scoring::metrics::RunScored {
                file: file.to_string(),
                run,
                api_errors: unused.len(),
                unused,
            }],
        }))
    }
}

/// Why the options of a run cannot be used: each says what would be valid.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum OptionProblem {
    /// A number outside its domain ([`knoblab_core::input::options`]).
    #[error(transparent)]
    Domain(knoblab_core::input::InputError),
    /// A value that does not read: the API, the coordinates, the history
    /// window, the perturbation.
    #[error(transparent)]
    Value(knoblab_eval::vlm::VlmError),
    /// An agent name of no known form.
    #[error("unknown --agent \"{0}\": expected model, oracle, random or replay:FILE")]
    UnknownAgent(String),
    /// An agent form that needs a file, given none.
    #[error("--agent {form}: needs a file, as in {form}:run.jsonl")]
    AgentNeedsFile {
        /// The form (`script` or `replay`).
        form: &'static str,
    },
    /// An option a model run cannot do without (its flag's name).
    #[error("--{0} is needed to run a model")]
    Needed(&'static str),
    /// Settings that do not go together (each problem as the settings
    /// word it).
    #[error("{}", .0.join("; "))]
    Settings(Vec<String>),
    /// A cost cap without the prices to estimate the cost.
    #[error("--max-cost needs --price-in and --price-out to estimate the cost")]
    CostWithoutPrices,
    /// A selected item past the plan's end.
    #[error("item {bad} is not in the plan: its {total} items are numbered 0 to {}", .total.saturating_sub(1))]
    NotInPlan {
        /// The item asked for.
        bad: usize,
        /// The plan's items.
        total: usize,
    },
}

/// What stops a run before it starts, or while it writes.
#[derive(Debug, Clone, PartialEq, Error)]
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
    #[error("{path}: {problem}")]
    Spec {
        /// The description's file.
        path: String,
        /// What is wrong with it.
        problem: SpecProblem,
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
    /// An option is outside its values (the problem says which are valid).
    #[error("{problem}")]
    Option {
        /// Which option, what was given and what would be valid.
        problem: Box<OptionProblem>,
    },
    /// No item to play.
    #[error("the plan is empty: no task of the devices chosen matches")]
    EmptyPlan,
    /// A bundle, the library index or a replay file could not be loaded.
    #[error("{path}: {problem}")]
    Load {
        /// The file or folder.
        path: String,
        /// Why, as the reader that refused it says.
        problem: LoadProblem,
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

/// Why a bundle, a library index or a replay file could not be loaded:
/// the refusing reader's own error, kept whole.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LoadProblem {
    /// The device resolver refused the name, the index or a device of it.
    #[error(transparent)]
    Open(Box<crate::devices::OpenError>),
    /// The loader refused a library device's files.
    #[error(transparent)]
    Bundle(Box<knoblab_core::bundle::LoadError>),
    /// The input layer refused the replay file's bytes.
    #[error(transparent)]
    Input(knoblab_core::input::InputError),
    /// The replay file is not text.
    #[error("the replay file: {0}")]
    ReplayText(knoblab_core::input::InputError),
    /// The replay file's records could not be read.
    #[error(transparent)]
    Replay(knoblab_eval::vlm::VlmError),
}

/// Why the run description beside an output file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecProblem {
    /// Its bytes are not text.
    #[error(transparent)]
    Text(knoblab_core::input::InputError),
    /// Its text is not a description this build reads.
    #[error(transparent)]
    Spec(knoblab_eval::vlm::batch::RunSpecError),
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
    crate::devices::load_device(path).map_err(|e| EvalError::Load {
        path: path.display().to_string(),
        problem: LoadProblem::Open(Box::new(e)),
    })
}

/// The devices of a library index (`data/library.json`, with the
/// generated devices of `generated.json` when it lies beside it:
/// [`crate::devices::read_library`]) that `filter` keeps, in index order,
/// each opened by the library's one rule ([`crate::devices::open_entry_in`]).
pub fn load_library(index: &Path, filter: &DeviceFilter) -> Result<Vec<Bundle>, EvalError> {
    // Through the input layer: regular files within the bound, and each
    // device's files kept under the index's folder (no absolute path, no
    // `..`).
    let library = crate::devices::read_library(index).map_err(|e| EvalError::Load {
        path: index.display().to_string(),
        problem: LoadProblem::Open(Box::new(e)),
    })?;
    let root = index.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for entry in &library.devices {
        if filter.keeps(&entry.id, &entry.category) {
            let bundle = crate::devices::open_entry_in(root, entry)
                .into_result()
                .map_err(|e| EvalError::Load {
                    path: root.join(&entry.path).display().to_string(),
                    problem: LoadProblem::Bundle(Box::new(e)),
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
