//! `knoblab._knoblab`: the native half of the `knoblab` Python package.
//!
//! A thin adapter in the manner of the page's edge: every function calls
//! the core and hands back plain values. Documents (observations, infos,
//! scorer reports, metrics) cross as the core's own JSON text, which the
//! Python half reads with `json.loads`, so a dict from Python is exactly
//! the document the CLI prints. Pictures cross as RGB bytes. No rule of a
//! spec lives here.
//!
//! Errors: each kind of the core's typed errors becomes one exception
//! class (by its type, never by its message), carrying the core's message.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use knoblab_app::documents::{self, DocumentError};
use knoblab_app::run::{
    evaluate, prepare_output, DeviceFilter, EvalError, EvalEvent, EvalPlan, RunArgs, Stop,
};
use knoblab_core::bundle::generated::{is_generated, GeneratedIndex, GENERATED_FILE};
use knoblab_core::bundle::{load_path, Bundle, LibraryEntry, LibraryIndex, LoadError};
use knoblab_core::metrics::{self, MetricsError as CoreMetricsError};
use knoblab_core::sim::{OwnedEpisode, RenderMode, Settings, SimError};
use knoblab_eval::play::optimal_path;

mod library {
    include!(concat!(env!("OUT_DIR"), "/library.rs"));
}

create_exception!(
    _knoblab,
    KnobLabError,
    PyException,
    "Base class of every error KnobLab raises."
);
create_exception!(
    _knoblab,
    BundleError,
    KnobLabError,
    "A device bundle (or a folder or library of them) could not be loaded."
);
create_exception!(
    _knoblab,
    ResultsError,
    KnobLabError,
    "A results file (predictions, judge outputs, trajectories) cannot be read or is not of its format."
);
create_exception!(
    _knoblab,
    GroundTruthError,
    KnobLabError,
    "Ground truth that is missing, unreadable or malformed."
);
create_exception!(
    _knoblab,
    OptionsError,
    KnobLabError,
    "An option outside its values."
);
create_exception!(
    _knoblab,
    MetricsError,
    KnobLabError,
    "Trajectories that cannot be scored against the bundles given."
);
create_exception!(
    _knoblab,
    RunRefusedError,
    KnobLabError,
    "An output file that holds episodes of a different run (other settings, devices or plan)."
);
create_exception!(
    _knoblab,
    EpisodeError,
    KnobLabError,
    "Misuse of an episode: stepping before a reset or after it ended, an unknown task."
);

fn document_error(e: DocumentError) -> PyErr {
    let message = e.to_string();
    match e {
        DocumentError::Bundle(_) | DocumentError::Bundles(_) => BundleError::new_err(message),
        DocumentError::Results(_) => ResultsError::new_err(message),
        DocumentError::GroundTruth(_) => GroundTruthError::new_err(message),
        DocumentError::Options(_) => OptionsError::new_err(message),
        DocumentError::Metrics(_) => MetricsError::new_err(message),
    }
}

fn load_error(e: LoadError) -> PyErr {
    BundleError::new_err(e.to_string())
}

fn sim_error(e: SimError) -> PyErr {
    EpisodeError::new_err(e.to_string())
}

fn metrics_error(e: CoreMetricsError) -> PyErr {
    MetricsError::new_err(e.to_string())
}

fn json_text<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| KnobLabError::new_err(e.to_string()))
}

/// The embedded library's files, by path relative to its index.
fn library_files() -> &'static HashMap<&'static str, &'static [u8]> {
    static FILES: OnceLock<HashMap<&'static str, &'static [u8]>> = OnceLock::new();
    FILES.get_or_init(|| library::LIBRARY_FILES.iter().copied().collect())
}

fn read_embedded(rel: &str) -> Result<Vec<u8>, String> {
    library_files()
        .get(rel)
        .map(|b| b.to_vec())
        .ok_or_else(|| format!("the shipped library has no file {rel}"))
}

/// The shipped library: its hand-described devices, then the generated
/// ones of its manifest (made when opened), parsed once.
fn shipped_index() -> PyResult<LibraryIndex> {
    static INDEX: OnceLock<Result<LibraryIndex, String>> = OnceLock::new();
    INDEX
        .get_or_init(|| {
            let hand =
                LibraryIndex::parse(&read_embedded("library.json")?).map_err(|e| e.to_string())?;
            let generated = GeneratedIndex::parse(&read_embedded(GENERATED_FILE)?)
                .map_err(|e| e.to_string())?;
            Ok(hand.with_generated(&generated))
        })
        .clone()
        .map_err(BundleError::new_err)
}

/// A bundle by path, or by the id of a device of the shipped library
/// (loaded once per process).
fn open_bundle(source: &str) -> PyResult<Arc<Bundle>> {
    let path = Path::new(source);
    if path.exists() {
        return load_path(path).map(Arc::new).map_err(load_error);
    }
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Bundle>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(b) = cache.lock().ok().and_then(|c| c.get(source).cloned()) {
        return Ok(b);
    }
    let index = shipped_index()?;
    let Some(entry) = index.entry(source) else {
        let (generated, hand): (Vec<&LibraryEntry>, Vec<&LibraryEntry>) =
            index.devices.iter().partition(|d| is_generated(d));
        let ids: Vec<&str> = hand.iter().map(|d| d.id.as_str()).collect();
        return Err(BundleError::new_err(format!(
            "{source}: no such file or folder, and no device of that id in the shipped library \
             of {} devices ({}, and {} generated ones such as {}; knoblab.library() lists them)",
            index.devices.len(),
            ids.join(", "),
            generated.len(),
            generated.first().map_or("", |d| d.id.as_str())
        )));
    };
    let bundle =
        Arc::new(documents::library::load_entry(entry, &read_embedded).map_err(document_error)?);
    if let Ok(mut c) = cache.lock() {
        c.insert(source.to_string(), bundle.clone());
    }
    Ok(bundle)
}

/// One device's episodes: the core's owning episode, and the view
/// pictures decoded once each.
#[pyclass(module = "knoblab._knoblab")]
struct Episode {
    episode: OwnedEpisode,
    settings: Settings,
    // Static pictures: one per view, decoded once. Live ones are drawn by
    // the core for the current state at each call, never kept.
    pictures: HashMap<String, (Py<PyBytes>, u32, u32)>,
}

#[pymethods]
impl Episode {
    #[new]
    #[pyo3(signature = (source, lam=5, agent="python", pictures="static"))]
    fn new(source: &str, lam: u32, agent: &str, pictures: &str) -> PyResult<Episode> {
        let render =
            RenderMode::parse(pictures).map_err(|e| OptionsError::new_err(e.to_string()))?;
        let bundle = open_bundle(source)?;
        let episode = OwnedEpisode::new(bundle);
        let mut settings = Settings::with_lambda(lam);
        settings.agent = agent.to_string();
        settings.render = render;
        // The library the device belongs to, if any (the core's rule).
        settings.library = knoblab_core::bundle::library_of(
            &episode.bundle().manifest.id,
            episode.episode().logic_hash(),
        );
        Ok(Episode {
            episode,
            settings,
            pictures: HashMap::new(),
        })
    }

    /// The bundle's manifest id.
    #[getter]
    fn bundle_id(&self) -> String {
        self.episode.bundle().manifest.id.clone()
    }

    /// The tasks: JSON of [{id, goals, instructions}].
    fn tasks_json(&self) -> PyResult<String> {
        let tasks: Vec<serde_json::Value> = self
            .episode
            .bundle()
            .tasks
            .iter()
            .map(|t| {
                serde_json::json!({
                    "id": t.id,
                    "goals": t.goals.iter().map(|g| &g.state).collect::<Vec<_>>(),
                    "instructions": t.goals.iter().map(|g| &g.instruction).collect::<Vec<_>>(),
                })
            })
            .collect();
        json_text(&tasks)
    }

    /// The views and their picture sizes: JSON of {name: [width, height]}.
    fn view_sizes_json(&self) -> PyResult<String> {
        let sizes: serde_json::Map<String, serde_json::Value> = self
            .episode
            .bundle()
            .views
            .iter()
            .map(|(name, v)| {
                (
                    name.clone(),
                    serde_json::json!([v.image.width, v.image.height]),
                )
            })
            .collect();
        json_text(&sizes)
    }

    /// Starts a task: JSON of [observation, info].
    fn reset(&mut self, task: &str) -> PyResult<String> {
        let (observation, info) = self
            .episode
            .reset(task, self.settings.clone())
            .map_err(sim_error)?;
        json_text(&(observation, info))
    }

    /// Plays one action: JSON of {step, goals_reached} (the goals this
    /// step reached, from the record).
    fn step(&mut self, py: Python<'_>, action: &str) -> PyResult<String> {
        let step = py
            .allow_threads(|| self.episode.step(action))
            .map_err(sim_error)?;
        let reached = self
            .episode
            .trajectory()
            .and_then(|t| t.steps.last())
            .map_or(0, |s| s.goals_reached.len());
        json_text(&serde_json::json!({ "step": step, "goals_reached": reached }))
    }

    /// The picture of a view: (RGB bytes, width, height), decoded once.
    fn picture(&mut self, py: Python<'_>, view: &str) -> PyResult<(Py<PyBytes>, u32, u32)> {
        if self.settings.render == RenderMode::Live {
            // The current view, drawn for the current state by the core.
            let drawn = self.episode.episode().picture().map_err(sim_error)?;
            let rgb = image::load_from_memory(&drawn.bytes)
                .map_err(|e| {
                    BundleError::new_err(format!(
                        "view {view}: the live picture cannot be decoded: {e}"
                    ))
                })?
                .to_rgb8();
            let (w, h) = rgb.dimensions();
            return Ok((PyBytes::new(py, rgb.as_raw()).unbind(), w, h));
        }
        if let Some((bytes, w, h)) = self.pictures.get(view) {
            return Ok((bytes.clone_ref(py), *w, *h));
        }
        let bundle = self.episode.bundle();
        let v = bundle
            .views
            .get(view)
            .ok_or_else(|| EpisodeError::new_err(format!("no view {view:?} in the bundle")))?;
        let rgb = image::load_from_memory(&v.image.bytes)
            .map_err(|e| {
                BundleError::new_err(format!("view {view}: the picture cannot be decoded: {e}"))
            })?
            .to_rgb8();
        let (w, h) = rgb.dimensions();
        let bytes: Py<PyBytes> = PyBytes::new(py, rgb.as_raw()).unbind();
        self.pictures
            .insert(view.to_string(), (bytes.clone_ref(py), w, h));
        Ok((bytes, w, h))
    }

    /// The episode's record as one line of a trajectory file (what
    /// `knoblab run` writes), without its newline.
    fn trajectory(&self) -> PyResult<String> {
        let t = self
            .episode
            .trajectory()
            .ok_or_else(|| sim_error(SimError::NotReset))?;
        t.to_json_line()
            .map_err(|e| KnobLabError::new_err(e.to_string()))
    }

    /// The episode's metrics (the keys of `knoblab metrics --json`): JSON.
    fn metrics(&self) -> PyResult<String> {
        let t = self
            .episode
            .trajectory()
            .ok_or_else(|| sim_error(SimError::NotReset))?;
        let m = metrics::episode(self.episode.bundle(), t).map_err(metrics_error)?;
        json_text(&m)
    }

    /// The optimal path of a task: JSON of {steps, trajectory, metrics}.
    fn optimal(&self, task: &str) -> PyResult<String> {
        let path = optimal_path(self.episode.bundle(), task, self.settings.clone())
            .map_err(|e| EpisodeError::new_err(e.to_string()))?;
        json_text(&path)
    }
}

/// `knoblab score epic --json`: (document JSON, warnings).
#[pyfunction]
#[pyo3(signature = (gt, pred, coord_mode=None, family=None))]
fn score_epic(
    py: Python<'_>,
    gt: PathBuf,
    pred: PathBuf,
    coord_mode: Option<String>,
    family: Option<String>,
) -> PyResult<(String, Vec<String>)> {
    let run = py
        .allow_threads(|| {
            documents::epic::score(&gt, &pred, coord_mode.as_deref(), family.as_deref(), false)
        })
        .map_err(document_error)?;
    // Streamed as the CLI's `--json` is: no tree of every sample in memory.
    let mut text = Vec::new();
    run.write_json(&mut text)
        .map_err(|e| KnobLabError::new_err(format!("EPIC-Bench document: {e}")))?;
    let text = String::from_utf8(text)
        .map_err(|e| KnobLabError::new_err(format!("EPIC-Bench document: {e}")))?;
    Ok((text, run.warnings))
}

/// `knoblab score finestate --json`: (document JSON, warnings).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (gt, pred, model, parser="py", vda=false, vda_pred=None, convention="unit", platform=None, assume_images=false))]
fn score_finestate(
    py: Python<'_>,
    gt: PathBuf,
    pred: PathBuf,
    model: &str,
    parser: &str,
    vda: bool,
    vda_pred: Option<PathBuf>,
    convention: &str,
    platform: Option<String>,
    assume_images: bool,
) -> PyResult<(String, Vec<String>)> {
    let options = documents::finestate::FinestateOptions {
        model: model.to_string(),
        parser: parser.to_string(),
        vda,
        vda_pred,
        convention: convention.to_string(),
        platform,
        assume_images,
    };
    let run = py
        .allow_threads(|| documents::finestate::score(&gt, &pred, &options))
        .map_err(document_error)?;
    Ok((json_text(&run.to_json())?, run.warnings))
}

/// `knoblab score switch --json`: the document JSON.
#[pyfunction]
#[pyo3(signature = (gt=None, pred=None, video=None, submission_time=None))]
fn score_switch(
    py: Python<'_>,
    gt: Option<PathBuf>,
    pred: Option<PathBuf>,
    video: Option<PathBuf>,
    submission_time: Option<String>,
) -> PyResult<String> {
    let options = documents::switch::SwitchOptions {
        submission_time,
        ..Default::default()
    };
    let report = py
        .allow_threads(|| {
            documents::switch::score(gt.as_deref(), pred.as_deref(), video.as_deref(), &options)
        })
        .map_err(document_error)?;
    let doc =
        documents::switch::to_json(&report).map_err(|e| KnobLabError::new_err(e.to_string()))?;
    json_text(&doc)
}

/// `knoblab metrics --json`: the document JSON.
#[pyfunction]
fn metrics_json(py: Python<'_>, trajectories: Vec<PathBuf>, bundles: PathBuf) -> PyResult<String> {
    let runs = py
        .allow_threads(|| documents::metrics::metrics(&trajectories, &bundles))
        .map_err(document_error)?;
    let doc = runs
        .to_json()
        .map_err(|e| KnobLabError::new_err(e.to_string()))?;
    json_text(&doc)
}

/// The devices and tasks of a library: the shipped one, or the index at
/// `path` (its `library.json`, or the folder holding it). JSON.
#[pyfunction]
#[pyo3(signature = (path=None))]
fn library_json(py: Python<'_>, path: Option<PathBuf>) -> PyResult<String> {
    let devices = match path {
        Some(p) => {
            let index = if p.is_dir() {
                p.join("library.json")
            } else {
                p
            };
            py.allow_threads(|| documents::library::list(&index))
                .map_err(document_error)?
        }
        None => {
            // The shipped library does not change: listed once per process
            // (the generated devices' tasks come from the task list beside
            // the manifest; nothing is made).
            static SHIPPED: OnceLock<String> = OnceLock::new();
            if let Some(text) = SHIPPED.get() {
                return Ok(text.clone());
            }
            let index = shipped_index()?;
            let devices = py
                .allow_threads(|| documents::library::describe_all(&index, &read_embedded))
                .map_err(document_error)?;
            let text = json_text(&devices)?;
            return Ok(SHIPPED.get_or_init(|| text).clone());
        }
    };
    json_text(&devices)
}

// ---------------------------------------------------------------- runs

fn eval_error(e: EvalError) -> PyErr {
    let message = e.to_string();
    match e {
        EvalError::Option { .. } | EvalError::EmptyPlan => OptionsError::new_err(message),
        EvalError::Load { .. } | EvalError::NoDevice { .. } | EvalError::NoDevices => {
            BundleError::new_err(message)
        }
        EvalError::BadLine { .. } | EvalError::Spec { .. } => ResultsError::new_err(message),
        EvalError::Refused { .. } => RunRefusedError::new_err(message),
        EvalError::Io { .. } => KnobLabError::new_err(message),
    }
}

/// The keyword arguments of `knoblab.evaluate` as the core's `RunArgs`
/// (`None` keeps a default; a name that is no option is refused).
fn run_args(kwargs: &Bound<'_, PyDict>) -> PyResult<RunArgs> {
    let mut a = RunArgs::default();
    for (key, value) in kwargs.iter() {
        let key: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        let bad = |e: PyErr| OptionsError::new_err(format!("{key}: {e}"));
        match key.as_str() {
            "bundles" => a.bundles = value.extract().map_err(bad)?,
            "library" => a.library = value.extract().map_err(bad)?,
            "devices" => a.devices = value.extract().map_err(bad)?,
            "categories" => a.categories = value.extract().map_err(bad)?,
            "tasks" => a.tasks = value.extract().map_err(bad)?,
            "repeats" => a.repeats = value.extract().map_err(bad)?,
            "agent" => a.agent = value.extract().map_err(bad)?,
            "api" => a.api = value.extract().map_err(bad)?,
            "base_url" => a.base_url = Some(value.extract().map_err(bad)?),
            "model" => a.model = Some(value.extract().map_err(bad)?),
            "api_key_env" => a.api_key_env = Some(value.extract().map_err(bad)?),
            "concurrency" => a.concurrency = value.extract().map_err(bad)?,
            "lam" => a.lambda = value.extract().map_err(bad)?,
            "history" => a.history = Some(value.str()?.to_string()),
            "coords" => a.coords = value.extract().map_err(bad)?,
            "perturb" => a.perturb = value.extract().map_err(bad)?,
            "seed" => a.seed = value.extract().map_err(bad)?,
            "temperature" => a.temperature = value.extract().map_err(bad)?,
            "max_tokens" => a.max_tokens = value.extract().map_err(bad)?,
            "timeout" => a.timeout = value.extract().map_err(bad)?,
            "retries" => a.retries = value.extract().map_err(bad)?,
            "backoff" => a.backoff = value.extract().map_err(bad)?,
            "price_in" => a.price_in = Some(value.extract().map_err(bad)?),
            "price_out" => a.price_out = Some(value.extract().map_err(bad)?),
            "max_cost" => a.max_cost = Some(value.extract().map_err(bad)?),
            // The model-call cache's folder (`knoblab eval --cache`).
            "cache" => a.cache = Some(value.extract().map_err(bad)?),
            "render" => {
                let text: String = value.extract().map_err(bad)?;
                a.render = RenderMode::parse(&text)
                    .map_err(|e| OptionsError::new_err(format!("render: {e}")))?;
            }
            other => {
                return Err(OptionsError::new_err(format!(
                    "{other} is not an option of a run"
                )))
            }
        }
    }
    Ok(a)
}

/// The plan of a run: on the shipped library when neither bundles nor a
/// library are given, else as `knoblab eval` makes it.
fn run_plan(py: Python<'_>, args: &RunArgs, shipped: bool) -> PyResult<EvalPlan> {
    if shipped {
        let index = shipped_index()?;
        let filter = DeviceFilter {
            devices: args.devices.clone(),
            categories: args.categories.clone(),
        };
        let mut bundles = Vec::with_capacity(index.devices.len());
        // Only the devices played are loaded (`plan_on` filters the same way).
        for entry in index
            .devices
            .iter()
            .filter(|e| filter.keeps(&e.id, &e.category))
        {
            bundles.push(
                documents::library::load_entry(entry, &read_embedded).map_err(document_error)?,
            );
        }
        py.allow_threads(|| args.plan_on(bundles))
            .map_err(eval_error)
    } else {
        py.allow_threads(|| args.plan()).map_err(eval_error)
    }
}

fn event_json(e: &EvalEvent) -> serde_json::Value {
    use serde_json::json;
    match e {
        EvalEvent::Resumed { done, total, notes } => {
            json!({"event": "resumed", "done": done, "total": total, "notes": notes})
        }
        EvalEvent::Started { item } => json!({"event": "started", "item": item}),
        EvalEvent::Retrying {
            item,
            message,
            wait_ms,
        } => json!({"event": "retrying", "item": item, "message": message, "wait_ms": wait_ms}),
        EvalEvent::Finished {
            item,
            status,
            steps,
            done,
            total,
            usage,
            cost,
        } => json!({
            "event": "finished", "item": item, "status": status, "steps": steps,
            "done": done, "total": total, "usage": usage, "cost": cost
        }),
        EvalEvent::Problem { item, message } => {
            json!({"event": "problem", "item": item, "message": message})
        }
    }
}

/// `out`'s state for this plan, after `prepare_output`: JSON of
/// {items: [keys in plan order], done: [positions with a record], notes}.
#[pyfunction]
#[pyo3(signature = (out, shipped, **kwargs))]
fn prepare_run(
    py: Python<'_>,
    out: PathBuf,
    shipped: bool,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let args = match kwargs {
        Some(k) => run_args(k)?,
        None => RunArgs::default(),
    };
    let plan = run_plan(py, &args, shipped)?;
    let finished = py
        .allow_threads(|| prepare_output(&plan, &out))
        .map_err(eval_error)?;
    let have: std::collections::BTreeSet<&str> =
        finished.records.iter().map(|r| r.item.as_str()).collect();
    let items: Vec<String> = plan.spec.items.iter().map(|i| i.key()).collect();
    let done: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, k)| have.contains(k.as_str()))
        .map(|(i, _)| i)
        .collect();
    json_text(&serde_json::json!({"items": items, "done": done, "notes": finished.notes}))
}

/// `knoblab eval`: the core's runner on the plan the options describe,
/// appending to `out`. `progress` (if any) hears each event as JSON text,
/// from the runner's threads. The GIL is released while it runs; a
/// Ctrl-C (a signal seen by the main thread) stops it as `knoblab eval`
/// stops, then raises `KeyboardInterrupt`. Returns JSON of {file, ran,
/// left, stop, problems, records, metrics}; without `full`, records and
/// metrics are left out (a Ray task's answer).
#[pyfunction]
#[pyo3(signature = (out, shipped, select=None, send_to=None, progress=None, full=true, **kwargs))]
#[allow(clippy::too_many_arguments)]
fn run_eval(
    py: Python<'_>,
    out: PathBuf,
    shipped: bool,
    select: Option<Vec<usize>>,
    send_to: Option<String>,
    progress: Option<PyObject>,
    full: bool,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let args = match kwargs {
        Some(k) => run_args(k)?,
        None => RunArgs::default(),
    };
    let plan = run_plan(py, &args, shipped)?;
    let mut options = args.options(&plan);
    options.select = select;
    options.send_to = send_to;
    let cancel = AtomicBool::new(false);
    // The first exception a progress callback raised: it stops the run.
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let on_event = |e: &EvalEvent| {
        let Some(callback) = &progress else { return };
        let text = event_json(e).to_string();
        Python::with_gil(|py| {
            if let Err(err) = callback.call1(py, (text,)) {
                if let Ok(mut slot) = callback_error.lock() {
                    slot.get_or_insert(err);
                }
                cancel.store(true, Ordering::SeqCst);
            }
        });
    };
    let (outcome, interrupt) = py.allow_threads(|| {
        std::thread::scope(|scope| {
            let (done_tx, done_rx) = mpsc::channel::<()>();
            let (plan, options, out, on_event, cancel) =
                (&plan, &options, &out, &on_event, &cancel);
            let runner = scope.spawn(move || {
                let r = evaluate(plan, options, out, on_event, cancel);
                let _ = done_tx.send(());
                r
            });
            // Signals reach Python in the main thread only when it runs
            // Python code: look at them every 100 ms while the run goes.
            let mut interrupt: Option<PyErr> = None;
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                done_rx.recv_timeout(Duration::from_millis(100))
            {
                if interrupt.is_none() {
                    if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                        interrupt = Some(e);
                        cancel.store(true, Ordering::SeqCst);
                    }
                }
            }
            let outcome = runner.join().unwrap_or_else(|_| {
                Err(EvalError::Io {
                    path: out.display().to_string(),
                    message: "the runner panicked".into(),
                })
            });
            (outcome, interrupt)
        })
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    if let Some(e) = callback_error.lock().ok().and_then(|mut s| s.take()) {
        return Err(e);
    }
    let outcome = outcome.map_err(eval_error)?;
    let file = out.display().to_string();
    let stop = match outcome.stop {
        Stop::Complete => "complete",
        Stop::Cancelled => "cancelled",
        Stop::MaxCost => "max_cost",
    };
    // How the model-call cache served (none without `cache`).
    let cache = outcome.cache.map(|t| {
        serde_json::json!({"hits": t.hits, "misses": t.misses, "stored": t.stored,
                           "failed_writes": t.failed_writes})
    });
    if !full {
        return json_text(&serde_json::json!({
            "file": file,
            "ran": outcome.ran,
            "left": outcome.left,
            "stop": stop,
            "problems": outcome.problems,
            "cache": cache,
        }));
    }
    let metrics = match outcome.metrics(&plan, &file).map_err(metrics_error)? {
        Some(runs) => Some(
            runs.to_json()
                .map_err(|e| KnobLabError::new_err(e.to_string()))?,
        ),
        None => None,
    };
    json_text(&serde_json::json!({
        "file": file,
        "ran": outcome.ran,
        "left": outcome.left,
        "stop": stop,
        "problems": outcome.problems,
        "records": outcome.records,
        "metrics": metrics,
        "cache": cache,
    }))
}

/// The shipped library's identity, as every trajectory of one of its
/// devices records it: JSON of {version, hash}.
#[pyfunction]
fn library_version_json() -> PyResult<String> {
    let library = knoblab_core::bundle::stamp::shipped()
        .ok_or_else(|| BundleError::new_err("this build has no library version compiled in"))?;
    json_text(&library.stamp())
}

/// The ids of the shipped library's devices, in index order.
#[pyfunction]
fn shipped_device_ids() -> PyResult<Vec<String>> {
    Ok(shipped_index()?.devices.into_iter().map(|d| d.id).collect())
}

#[pymodule]
fn _knoblab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("KnobLabError", py.get_type::<KnobLabError>())?;
    m.add("BundleError", py.get_type::<BundleError>())?;
    m.add("ResultsError", py.get_type::<ResultsError>())?;
    m.add("GroundTruthError", py.get_type::<GroundTruthError>())?;
    m.add("OptionsError", py.get_type::<OptionsError>())?;
    m.add("MetricsError", py.get_type::<MetricsError>())?;
    m.add("EpisodeError", py.get_type::<EpisodeError>())?;
    m.add("RunRefusedError", py.get_type::<RunRefusedError>())?;
    m.add_class::<Episode>()?;
    m.add_function(wrap_pyfunction!(score_epic, m)?)?;
    m.add_function(wrap_pyfunction!(score_finestate, m)?)?;
    m.add_function(wrap_pyfunction!(score_switch, m)?)?;
    m.add_function(wrap_pyfunction!(metrics_json, m)?)?;
    m.add_function(wrap_pyfunction!(library_json, m)?)?;
    m.add_function(wrap_pyfunction!(shipped_device_ids, m)?)?;
    m.add_function(wrap_pyfunction!(library_version_json, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_run, m)?)?;
    m.add_function(wrap_pyfunction!(run_eval, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
