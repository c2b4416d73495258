//! One device's episodes for `knoblab.KnobLabEnv`: the core's owning
//! episode, stepped from Python with typed values both ways (an action
//! text in; dicts, `numpy` arrays and numbers out, built here).

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use knoblab_core::bundle::Bundle;
use knoblab_core::metrics;
use knoblab_core::sim::render::Renderer;
use knoblab_core::sim::{Info, Observation, OwnedEpisode, RenderMode, Settings, SimError};
use knoblab_eval::play::optimal_path;
use knoblab_eval::play::session::Session;

use crate::errors::{self, Kind, Raised};
use crate::json_text;
use crate::library::open_bundle;
use crate::observe::{self, Rgb};

/// The picture size of a bundle: its views' one size, or the largest view's
/// (by area, then width) when they differ.
fn native_size(bundle: &Bundle) -> (u32, u32) {
    bundle
        .views
        .values()
        .map(|v| (v.image.width, v.image.height))
        .max_by_key(|(w, h)| (u64::from(*w) * u64::from(*h), *w))
        .unwrap_or((0, 0))
}

fn size_of(bundle: &Bundle, size: Option<(u32, u32)>) -> Result<(u32, u32), Raised> {
    match size {
        Some((w, h)) if w == 0 || h == 0 || w > 8192 || h > 8192 => Err(Raised::new(
            Kind::Options,
            format!("size=({w}, {h}): width and height are whole numbers from 1 to 8192"),
        )),
        Some(s) => Ok(s),
        None => Ok(native_size(bundle)),
    }
}

/// One device's episodes.
#[pyclass(module = "knoblab._knoblab")]
pub(crate) struct Episode {
    episode: OwnedEpisode,
    settings: Settings,
    view_names: Vec<String>,
    size: (u32, u32),
    with_picture: bool,
    task: String,
    // Static pictures: one per view, decoded and scaled once (also what a
    // live view shows in a state that lays nothing on it). Live ones are
    // drawn by the core for the current state at each step.
    pictures: HashMap<String, Rgb>,
}

impl Episode {
    /// The current view's picture at the episode's size.
    fn current_picture(&mut self) -> Result<Rgb, Raised> {
        let not_reset = || errors::sim(SimError::NotReset);
        let view = self.episode.observation().ok_or_else(not_reset)?.view;
        let state = self.episode.info().ok_or_else(not_reset)?.state;
        self.picture_of(&state, view)
    }

    /// The picture of `view` with the device in `state` (the current
    /// ones), at the episode's size. Live pictures are the core's pixels
    /// (`Renderer::pixels`, what it encodes as the PNG the page shows),
    /// taken before the encoding; a state that lays nothing on the view
    /// shows the static picture, as the core's `render` does.
    fn picture_of(&mut self, state: &str, view: String) -> Result<Rgb, Raised> {
        if self.settings.render == RenderMode::Live {
            let mut renderer = Renderer::new(self.episode.bundle());
            if renderer.has_patches(state, &view) {
                let pixels = renderer
                    .pixels(state, &view, RenderMode::Live)
                    .map_err(|e| Raised::new(Kind::Bundle, e.to_string()))?;
                return Ok(observe::from_rgba(pixels, self.size));
            }
        }
        if let Some(rgb) = self.pictures.get(&view) {
            return Ok(rgb.clone());
        }
        let image = &self
            .episode
            .bundle()
            .views
            .get(&view)
            .ok_or_else(|| Raised::new(Kind::Episode, format!("no view {view:?} in the bundle")))?
            .image;
        let rgb = observe::decode(image, &format!("view {view}"), Some(self.size))?;
        self.pictures.insert(view, rgb.clone());
        Ok(rgb)
    }

    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        o: &Observation,
        i: &Info,
    ) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
        let picture = if self.with_picture {
            Some(self.picture_of(&i.state, o.view.clone())?)
        } else {
            None
        };
        Ok((
            observe::observation(py, o, &self.view_names, picture.as_ref())?,
            observe::info(py, i, o, &self.task)?,
        ))
    }
}

#[pymethods]
impl Episode {
    #[new]
    #[pyo3(signature = (source, lam=5, agent="python", pictures="static", size=None, picture=true))]
    fn new(
        source: &str,
        lam: u32,
        agent: &str,
        pictures: &str,
        size: Option<(u32, u32)>,
        picture: bool,
    ) -> PyResult<Episode> {
        let render = RenderMode::parse(pictures)
            .map_err(|e| Raised::new(Kind::Options, format!("pictures: {e}")))?;
        let bundle: Arc<Bundle> = open_bundle(source)?;
        let size = size_of(&bundle, size)?;
        let view_names: Vec<String> = bundle.views.keys().cloned().collect();
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
            view_names,
            size,
            with_picture: picture,
            task: String::new(),
            pictures: HashMap::new(),
        })
    }

    /// The bundle's manifest id.
    #[getter]
    fn bundle_id(&self) -> String {
        self.episode.bundle().manifest.id.clone()
    }

    /// The bundle's views, in the order of the observation's `view` index
    /// and `views` mask.
    #[getter]
    fn view_names(&self) -> Vec<String> {
        self.view_names.clone()
    }

    /// The pictures' size: (width, height).
    #[getter]
    fn size(&self) -> (u32, u32) {
        self.size
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

    /// Starts a task: (observation, info).
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        task: &str,
    ) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
        let (o, i) = self
            .episode
            .reset(task, self.settings.clone())
            .map_err(errors::sim)?;
        self.task = task.to_string();
        self.observe(py, &o, &i)
    }

    /// Plays one action: (observation, reward, terminated, truncated,
    /// info); the reward is the number of goals this step reached.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        action: &str,
    ) -> PyResult<(Bound<'py, PyDict>, f64, bool, bool, Bound<'py, PyDict>)> {
        let step = py
            .allow_threads(|| self.episode.step(action))
            .map_err(errors::sim)?;
        let reached = self
            .episode
            .trajectory()
            .and_then(|t| t.steps.last())
            .map_or(0, |s| s.goals_reached.len());
        let (observation, info) = self.observe(py, &step.observation, &step.info)?;
        Ok((
            observation,
            reached as f64,
            step.terminated,
            step.truncated,
            info,
        ))
    }

    /// The current view's picture: `uint8`, H×W×3, a fresh array.
    fn picture<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rgb = self.current_picture()?;
        observe::picture_array(py, &rgb)
    }

    /// The episode's record as one line of a trajectory file (what
    /// `knoblab run` writes), without its newline.
    fn trajectory(&self) -> PyResult<String> {
        let t = self
            .episode
            .trajectory()
            .ok_or_else(|| errors::sim(SimError::NotReset))?;
        Ok(t.to_json_line().map_err(|e| errors::other(e.to_string()))?)
    }

    /// The episode's metrics (the keys of `knoblab metrics --json`): JSON.
    fn metrics(&self) -> PyResult<String> {
        let t = self
            .episode
            .trajectory()
            .ok_or_else(|| errors::sim(SimError::NotReset))?;
        let m = metrics::episode(self.episode.bundle(), t).map_err(errors::metrics)?;
        json_text(&m)
    }

    /// The optimal path of a task: JSON of {steps, trajectory, metrics}.
    fn optimal(&self, task: &str) -> PyResult<String> {
        let path = optimal_path(self.episode.bundle(), task, self.settings.clone())
            .map_err(|e| Raised::new(Kind::Episode, e.to_string()))?;
        json_text(&path)
    }
}

/// The picture the page shows after these actions of a task (its play
/// session, `knoblab_eval::play::Session`, and the PNG it hands the page),
/// decoded: (PNG bytes, `uint8` array H×W×3 at `size`, or the picture's own
/// size). For tests that compare the environment's pictures with the page's.
#[pyfunction]
#[pyo3(signature = (source, task, actions, pictures="static", size=None))]
pub(crate) fn page_picture<'py>(
    py: Python<'py>,
    source: &str,
    task: &str,
    actions: Vec<String>,
    pictures: &str,
    size: Option<(u32, u32)>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>)> {
    let render = RenderMode::parse(pictures)
        .map_err(|e| Raised::new(Kind::Options, format!("pictures: {e}")))?;
    let bundle = open_bundle(source)?;
    let mut settings = Settings::with_lambda(5);
    settings.render = render;
    let session = Session::start_with(bundle, task, settings, &actions).map_err(errors::sim)?;
    let png = session
        .picture()
        .map_err(|e| Raised::new(Kind::Bundle, e.to_string()))?;
    let rgb = observe::decode(&png, "the page's picture", size)?;
    Ok((
        PyBytes::new(py, &png.bytes),
        observe::picture_array(py, &rgb)?,
    ))
}
