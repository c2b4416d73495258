//! The Play page and the player: the state shared by the play page, the
//! embed page and the page API ([`Player`], provided once as a context
//! value), the components that present it, and the two pages that show it.
//!
//! Every action, whoever sends it (a click, a key, the parent page of an
//! embed, a script through `window.knoblab`), goes through [`Player::act`],
//! so the baseline record and the embed messages never miss one.
//!
//! - [`events`]: `postMessage` to the page that embeds the player.
//! - [`picture`]: a view's picture with the point, the locked panel and the
//!   parts' boxes drawn over it.
//! - [`bar`]: the action bar and the view tabs.
//! - [`status`]: instruction, budgets and the feedback log.
//! - [`end`]: the end of an episode: metrics, optimal path, export, share.
//! - [`baseline`]: choosing, resuming and closing a baseline run.
//! - [`view`]: the whole player, with its keyboard control.
//! - [`page`]: the Play page (a device and task from the URL, the modes).
//! - [`embed`]: the Embed page, the player alone for an iframe.

pub mod bar;
pub mod baseline;
pub mod embed;
pub mod end;
pub mod events;
pub mod page;
pub mod picture;
pub mod status;
pub mod view;

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;

use knoblab_core::bundle::image::encode_data_url;
use knoblab_core::bundle::{check_bytes, Bundle, Checked, Diagnostic, LibraryIndex};
use knoblab_core::sim::{RenderMode, Settings, Step, DEFAULT_LAMBDA};
use knoblab_eval::play::{BaselineRun, Draft, Mode, Session};

use crate::browser::device_worker::{self, Asker, DrawError};
use crate::browser::{fetch, storage};

/// The page's clock in milliseconds (0 without one).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// A loaded device.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The bundle, shared with every session on it.
    pub bundle: Arc<Bundle>,
    /// What a share link names: a library id or a URL (none for a file).
    pub source: Option<String>,
    /// Each view's picture as a `data:` URL, made once.
    pub images: Arc<BTreeMap<String, String>>,
    /// Problems that did not refuse the bundle.
    pub warnings: Vec<Diagnostic>,
}

/// Why a device could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadProblem {
    /// Nothing readable arrived (a failed fetch, an unknown id).
    Message(String),
    /// It was not waited for: a newer request replaced it, or the page
    /// that asked was left while it was being drawn.
    Cancelled,
    /// It arrived, and validation refused it: every problem found.
    Problems {
        /// Where it came from.
        source: String,
        /// Every problem found.
        diagnostics: Vec<Diagnostic>,
    },
}

impl LoadProblem {
    /// One line for a script or a message to a parent page.
    pub fn summary(&self) -> String {
        match self {
            LoadProblem::Message(m) => m.clone(),
            LoadProblem::Cancelled => DrawError::Cancelled.to_string(),
            LoadProblem::Problems {
                source,
                diagnostics,
            } => {
                let lines: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
                format!("{source}: {} problem(s): {}", lines.len(), lines.join("; "))
            }
        }
    }
}

impl Loaded {
    /// A checked bundle, or its problems.
    pub fn from_checked(checked: Checked, source: Option<String>) -> Result<Loaded, LoadProblem> {
        let Some(bundle) = checked.bundle else {
            return Err(LoadProblem::Problems {
                source: checked.source,
                diagnostics: checked.diagnostics,
            });
        };
        let images = bundle
            .views
            .iter()
            .map(|(name, view)| (name.clone(), encode_data_url(&view.image)))
            .collect();
        Ok(Loaded {
            bundle: Arc::new(bundle),
            source,
            images: Arc::new(images),
            warnings: checked.diagnostics,
        })
    }

    /// The `data:` URL of a view's picture ("" for a view it does not have).
    pub fn image(&self, view: &str) -> String {
        self.images.get(view).cloned().unwrap_or_default()
    }
}

/// The player's state. Copy: every field is a signal.
#[derive(Debug, Clone, Copy)]
pub struct Player {
    /// The device open, if any.
    pub device: RwSignal<Option<Loaded>>,
    /// The episode under way, if any.
    pub session: RwSignal<Option<Session>>,
    /// Play, practice or baseline.
    pub mode: RwSignal<Mode>,
    /// λ of new episodes.
    pub lambda: RwSignal<u32>,
    /// How views are drawn in new episodes: static (the paper's) or live.
    pub render: RwSignal<RenderMode>,
    /// The action being put together in the action bar.
    pub draft: RwSignal<Draft>,
    /// What the page is doing to open a device, while it does
    /// ("Loading …", "Drawing the device …").
    pub loading: RwSignal<Option<String>>,
    /// Why the last device asked for could not be opened.
    pub problem: RwSignal<Option<LoadProblem>>,
    /// A message about the last thing asked (a bad link, a refused step).
    pub notice: RwSignal<Option<String>>,
    /// The human-baseline run under way, in baseline mode.
    pub baseline: RwSignal<Option<BaselineRun>>,
    /// Shown inside another page: steps are reported to it.
    pub embedded: RwSignal<bool>,
    library: RwSignal<Option<LibraryIndex>>,
    /// How many opens have started: an open that a newer one replaced
    /// leaves the status and the device to the newer.
    opens: StoredValue<u64>,
}

impl Default for Player {
    fn default() -> Self {
        Player {
            device: RwSignal::new(None),
            session: RwSignal::new(None),
            mode: RwSignal::new(Mode::Play),
            lambda: RwSignal::new(DEFAULT_LAMBDA),
            render: RwSignal::new(RenderMode::Static),
            draft: RwSignal::new(Draft::default()),
            loading: RwSignal::new(None),
            problem: RwSignal::new(None),
            notice: RwSignal::new(None),
            baseline: RwSignal::new(None),
            embedded: RwSignal::new(false),
            library: RwSignal::new(None),
            opens: StoredValue::new(0),
        }
    }
}

/// The player of this page (provided by the app shell).
pub fn use_player() -> Player {
    use_context::<Player>().unwrap_or_else(|| {
        let player = Player::default();
        provide_context(player);
        player
    })
}

impl Player {
    /// The library index, fetched once.
    pub async fn library_index(self) -> Result<LibraryIndex, String> {
        if let Some(index) = self.library.get_untracked() {
            return Ok(index);
        }
        let index = fetch::fetch_library().await?;
        self.library.set(Some(index.clone()));
        Ok(index)
    }

    /// Fetches and checks a device: JSON text (a single-file bundle), a
    /// library id, or a URL.
    pub async fn fetch(self, source: &str) -> Result<Loaded, LoadProblem> {
        let source = source.trim();
        // The library's version, which an episode on a library device
        // records, whatever way the device comes.
        fetch::library_version()
            .await
            .map_err(LoadProblem::Message)?;
        if source.starts_with('{') {
            return Loaded::from_checked(check_bytes("the JSON given", source.as_bytes()), None);
        }
        if let Ok(index) = self.library_index().await {
            if let Some(entry) = index.entry(source) {
                let generated = knoblab_core::bundle::generated::is_generated(entry);
                if generated {
                    self.loading
                        .set(Some(format!("Drawing the device {source}")));
                }
                let started = now_ms();
                let checked = fetch::fetch_library_device(entry, Asker::Player)
                    .await
                    .map_err(|e| match e {
                        DrawError::Cancelled => LoadProblem::Cancelled,
                        DrawError::Failed(message) => LoadProblem::Message(message),
                    })?;
                let loaded = Loaded::from_checked(checked, Some(source.to_string()));
                if generated {
                    // From the request to a device ready to play (the
                    // drawing in the worker, the check here).
                    leptos::logging::log!(
                        "knoblab: opened the device {source} in {:.0} ms",
                        now_ms() - started
                    );
                }
                return loaded;
            }
        }
        if !source.contains('/') && !source.contains('.') {
            return Err(LoadProblem::Message(format!(
                "\"{source}\" is not a device of the library; give a library id (see the Library page) or the URL of a bundle (.zip or .json)"
            )));
        }
        let checked = fetch::fetch_bundle(source)
            .await
            .map_err(LoadProblem::Message)?;
        Loaded::from_checked(checked, Some(source.to_string()))
    }

    /// Fetches a device and makes it the current one (no episode yet). A
    /// newer open replaces this one: its drawing is cancelled, and it
    /// returns [`LoadProblem::Cancelled`], changing nothing.
    pub async fn open(self, source: &str) -> Result<Loaded, LoadProblem> {
        device_worker::cancel(Asker::Player);
        let number = self.opens.get_value() + 1;
        self.opens.set_value(number);
        let shown: String = source.chars().take(120).collect();
        self.loading.set(Some(format!("Loading {shown}")));
        self.problem.set(None);
        let result = self.fetch(source).await;
        if self.opens.try_get_value() != Some(number) {
            return Err(LoadProblem::Cancelled);
        }
        self.loading.set(None);
        match &result {
            Ok(loaded) => self.set_device(loaded.clone()),
            Err(LoadProblem::Cancelled) => {}
            Err(problem) => self.problem.set(Some(problem.clone())),
        }
        result
    }

    /// Stops opening a device (its page is being left): a drawing under
    /// way is cancelled, and the status line goes.
    pub fn stop_opening(self) {
        device_worker::cancel(Asker::Player);
        let _ = self.loading.try_set(None);
    }

    /// Makes a loaded device the current one, ending any episode.
    pub fn set_device(self, loaded: Loaded) {
        self.problem.set(None);
        self.session.set(None);
        self.device.set(Some(loaded));
    }

    /// The settings a new episode gets: the baseline run's, or the mode's.
    fn settings(self) -> Settings {
        let mut settings = match (self.mode.get_untracked(), self.baseline.get_untracked()) {
            (Mode::Baseline, Some(run)) => run.settings(),
            (mode, _) => mode.settings(self.lambda.get_untracked()),
        };
        settings.render = self.render.get_untracked();
        settings
    }

    /// Starts a task of the current device (its first when none is named)
    /// and plays the given actions.
    pub fn start(self, task: Option<&str>, actions: &[String]) -> Result<(), String> {
        let loaded = self
            .device
            .get_untracked()
            .ok_or("no device is open: pick one in the library first")?;
        let task = match task {
            Some(t) => t.to_string(),
            None => loaded
                .bundle
                .tasks
                .first()
                .map(|t| t.id.clone())
                .ok_or("the device has no tasks")?,
        };
        let session = Session::start_with(loaded.bundle.clone(), &task, self.settings(), actions)
            .map_err(|e| e.to_string())?;
        self.notice.set(None);
        self.draft.set(Draft::default());
        self.session.set(Some(session));
        if self.embedded.get_untracked() {
            self.session.with_untracked(|s| {
                if let Some(s) = s {
                    events::ready(s);
                }
            });
        }
        Ok(())
    }

    /// Plays one action on the current episode. The baseline run records it
    /// (and the episode, the moment it ends); an embedding page hears of it.
    pub fn act(self, text: &str) -> Result<Step, String> {
        let mut session = self
            .session
            .get_untracked()
            .ok_or("no episode is running: reset a task first")?;
        let step = session.step(text).map_err(|e| e.to_string())?;
        if self.mode.get_untracked() == Mode::Baseline {
            self.record_baseline(&session, text);
        }
        self.notice.set(None);
        if self.embedded.get_untracked() {
            events::step(&session, &step);
        }
        let done = session.is_done();
        self.session.set(Some(session));
        if done && self.embedded.get_untracked() {
            self.session.with_untracked(|s| {
                if let Some(s) = s {
                    events::end(s);
                }
            });
        }
        Ok(step)
    }

    /// Takes back the last step, in practice only.
    pub fn undo(self) {
        if !self.mode.get_untracked().allows_help() {
            return;
        }
        self.session.update(|s| {
            if let Some(s) = s {
                let _ = s.undo();
            }
        });
    }

    fn record_baseline(self, session: &Session, text: &str) {
        let Some(mut run) = self.baseline.get_untracked() else {
            return;
        };
        run.record_action(text);
        if session.is_done() {
            if let Err(e) = run.finish(session.trajectory()) {
                self.notice.set(Some(e.to_string()));
            }
        }
        if !storage::save_baseline(&run) {
            self.notice.set(Some(
                "this browser refused to save the baseline run (storage full or disabled): export it before closing the tab".to_string(),
            ));
        }
        self.baseline.set(Some(run));
    }
}
