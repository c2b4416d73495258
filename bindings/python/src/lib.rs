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
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use knoblab::bundle::{load_path, Bundle, LibraryIndex, LoadError};
use knoblab::documents::{self, DocumentError};
use knoblab::metrics::{self, MetricsError as CoreMetricsError};
use knoblab::play::optimal_path;
use knoblab::sim::{OwnedEpisode, RenderMode, Settings, SimError};

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

fn shipped_index() -> PyResult<LibraryIndex> {
    let bytes = read_embedded("library.json").map_err(BundleError::new_err)?;
    LibraryIndex::parse(&bytes).map_err(BundleError::new_err)
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
    let Some(entry) = index.devices.iter().find(|d| d.id == source) else {
        let ids: Vec<&str> = index.devices.iter().map(|d| d.id.as_str()).collect();
        return Err(BundleError::new_err(format!(
            "{source}: no such file or folder, and no device of that id in the shipped library \
             (devices: {})",
            ids.join(", ")
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
        let mut settings = Settings::with_lambda(lam);
        settings.agent = agent.to_string();
        settings.render = render;
        Ok(Episode {
            episode: OwnedEpisode::new(bundle),
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
            let index = shipped_index()?;
            let mut out = Vec::with_capacity(index.devices.len());
            for entry in &index.devices {
                let bundle = documents::library::load_entry(entry, &read_embedded)
                    .map_err(document_error)?;
                out.push(documents::library::describe(entry, &bundle));
            }
            out
        }
    };
    json_text(&devices)
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
    m.add_class::<Episode>()?;
    m.add_function(wrap_pyfunction!(score_epic, m)?)?;
    m.add_function(wrap_pyfunction!(score_finestate, m)?)?;
    m.add_function(wrap_pyfunction!(score_switch, m)?)?;
    m.add_function(wrap_pyfunction!(metrics_json, m)?)?;
    m.add_function(wrap_pyfunction!(library_json, m)?)?;
    m.add_function(wrap_pyfunction!(shipped_device_ids, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
