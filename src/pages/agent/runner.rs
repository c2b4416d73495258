//! Runs a batch in the page: workers (as many as the concurrency setting)
//! take items from a queue, drive each episode's core driver
//! (`vlm::driver::EpisodeDriver`), and save each finished episode to
//! IndexedDB before reporting it. This file holds no episode logic: it
//! sends the requests the driver asks for, sleeps the waits it asks for,
//! and shows its events. Pause holds requests not yet sent; cancel aborts
//! those in flight.
//!
//! Devices are opened when the batch reaches them ([`super::library::load`]:
//! a generated one is drawn then, in seconds), once for all the workers,
//! and let go once no item of theirs is left, so that a batch over the
//! whole library holds a few devices' pictures at a time.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use web_sys::AbortController;

use knoblab_core::bundle::{Bundle, LibraryEntry};
use knoblab_core::geom::ScaledPoint;
use knoblab_core::sim::{Episode, StepRecord};
use knoblab_eval::vlm::driver::{self, Answer, DriverConfig, EpisodeDriver, Need};
use knoblab_eval::vlm::{
    ApiKey, BatchItem, EpisodeRecord, Failure, HttpRequest, RecordedAnswers, Turn,
};

use crate::browser::http;
use crate::browser::indexeddb::{BatchMeta, Store};

/// Where a batch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Workers take items and send requests.
    Running,
    /// Requests not yet sent wait until it is resumed.
    Paused,
    /// Stopped: no new request, those in flight aborted.
    Cancelled,
}

/// One step as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepView {
    /// 1-based.
    pub number: usize,
    /// The view the picture shows.
    pub view: String,
    /// The picture as sent (a `data:` URL).
    pub image_url: String,
    /// The point acted on, drawn on the picture.
    pub point: Option<ScaledPoint>,
    /// The model's turn (its request and answer); none for other agents.
    pub turn: Option<Turn>,
    /// The simulator's record, none when the request failed.
    pub record: Option<StepRecord>,
}

/// What a batch tells the page.
#[derive(Debug, Clone)]
pub enum Event {
    /// An episode began: the page watches the latest one.
    Started {
        /// The item it plays.
        item: BatchItem,
        /// The first goal's instruction.
        instruction: Option<String>,
    },
    /// An episode took a step.
    Step {
        /// The item's key ([`BatchItem::key`]).
        item: String,
        /// The step, as shown.
        step: StepView,
    },
    /// A request failed and is tried again after a wait.
    Retrying {
        /// The item's key ([`BatchItem::key`]).
        item: String,
        /// What failed.
        message: String,
        /// Milliseconds before it is tried again.
        wait_ms: u64,
    },
    /// An episode ended and is saved.
    Finished(EpisodeRecord),
    /// A device is being opened (a generated one is drawn: seconds).
    Opening {
        /// The device's id.
        id: String,
    },
    /// A device was opened: the page keeps its logic to score its episodes.
    Opened(Arc<Bundle>),
    /// An item could not be played (its bundle or task is missing) or saved.
    Problem {
        /// The item's key ([`BatchItem::key`]).
        item: String,
        /// What went wrong.
        message: String,
    },
    /// Every worker stopped (queue empty, or cancelled).
    Ended,
}

/// A device of the batch, as the workers share it.
enum Device {
    /// A worker is opening it; the others wait.
    Opening,
    /// Opened, for the items of it still to play.
    Open(Arc<Bundle>),
    /// It could not be opened: its items are reported as problems.
    Failed(String),
}

/// A batch being run: its description, what it needs, and its controls.
/// The key lives here, in memory only.
pub struct Batch {
    /// The batch as stored: its id, its spec and where it is.
    pub meta: BatchMeta,
    /// Every device the page can open, by id (their index entries).
    entries: BTreeMap<String, LibraryEntry>,
    /// The devices opened or being opened, by id.
    devices: RefCell<BTreeMap<String, Device>>,
    /// Per device, its items not finished yet (queued or being played):
    /// at none, the device is let go.
    left: RefCell<BTreeMap<String, usize>>,
    /// The answers replayed, when a trajectory file plays.
    pub replay: Option<Arc<RecordedAnswers>>,
    key: ApiKey,
    /// Running, paused or cancelled; read by every worker.
    pub state: Cell<RunState>,
    /// The items no worker has taken yet.
    pub queue: RefCell<VecDeque<BatchItem>>,
    aborts: RefCell<Vec<AbortController>>,
    /// Where finished episodes are saved; none without IndexedDB.
    pub store: Option<Store>,
}

impl Batch {
    /// A batch that runs `queue` (what is left of `meta`) with `key`,
    /// opening each device from `entries` when its first item comes.
    pub fn new(
        meta: BatchMeta,
        entries: BTreeMap<String, LibraryEntry>,
        replay: Option<RecordedAnswers>,
        key: String,
        queue: Vec<BatchItem>,
        store: Option<Store>,
    ) -> Batch {
        let mut left: BTreeMap<String, usize> = BTreeMap::new();
        for item in &queue {
            *left.entry(item.bundle_id.clone()).or_default() += 1;
        }
        Batch {
            meta,
            entries,
            devices: RefCell::new(BTreeMap::new()),
            left: RefCell::new(left),
            replay: replay.map(Arc::new),
            key: ApiKey::new(key),
            state: Cell::new(RunState::Running),
            queue: RefCell::new(queue.into()),
            aborts: RefCell::new(Vec::new()),
            store,
        }
    }

    /// The device of `id`, opened by the first worker that needs it
    /// ([`super::library::load`]) while the others wait for it; checked
    /// against the logic the batch was planned on.
    async fn device(&self, id: &str, on_event: &dyn Fn(Event)) -> Result<Arc<Bundle>, String> {
        loop {
            let found = match self.devices.borrow().get(id) {
                Some(Device::Open(b)) => Some(Ok(b.clone())),
                Some(Device::Failed(e)) => Some(Err(e.clone())),
                Some(Device::Opening) => None,
                None => break,
            };
            match found {
                Some(result) => return result,
                None => http::sleep(100).await,
            }
        }
        self.devices
            .borrow_mut()
            .insert(id.to_string(), Device::Opening);
        on_event(Event::Opening { id: id.to_string() });
        let opened = match self.entries.get(id) {
            Some(entry) => super::library::load(entry).await,
            None => Err(format!("the device {id} is not in this page's library")),
        }
        .and_then(|bundle| {
            let planned = self.meta.run.bundles.get(id);
            let logic = bundle.logic_hash();
            match planned {
                Some(p) if *p != logic => Err(format!(
                    "the device {id} opened with logic hash {logic}, but the batch was planned on {p}"
                )),
                _ => Ok(bundle),
            }
        });
        let slot = match &opened {
            Ok(bundle) => {
                on_event(Event::Opened(bundle.clone()));
                Device::Open(bundle.clone())
            }
            Err(e) => Device::Failed(e.clone()),
        };
        // Nothing left of it (the batch was cancelled meanwhile): not kept.
        if self.left.borrow().get(id).copied().unwrap_or(0) > 0 {
            self.devices.borrow_mut().insert(id.to_string(), slot);
        } else {
            self.devices.borrow_mut().remove(id);
        }
        opened
    }

    /// One item of the device `id` is over: once none is left, the device
    /// is let go.
    fn done_with(&self, id: &str) {
        let mut left = self.left.borrow_mut();
        let n = left.entry(id.to_string()).or_default();
        *n = n.saturating_sub(1);
        if *n == 0 {
            left.remove(id);
            self.devices.borrow_mut().remove(id);
        }
    }

    /// Stops the batch: no new request, requests in flight aborted.
    pub fn cancel(&self) {
        self.state.set(RunState::Cancelled);
        for a in self.aborts.borrow_mut().drain(..) {
            a.abort();
        }
    }

    fn cancelled(&self) -> bool {
        self.state.get() == RunState::Cancelled
    }
}

/// Runs the batch's queue with its concurrency; `on_event` hears every
/// step, and `Ended` once all workers stopped.
pub fn run(batch: Rc<Batch>, on_event: Rc<dyn Fn(Event)>) {
    let workers = batch.meta.run.settings.concurrency.clamp(1, 16);
    let live = Rc::new(Cell::new(workers));
    for _ in 0..workers {
        let (batch, on_event, live) = (batch.clone(), on_event.clone(), live.clone());
        wasm_bindgen_futures::spawn_local(async move {
            worker(&batch, on_event.as_ref()).await;
            live.set(live.get() - 1);
            if live.get() == 0 {
                on_event(Event::Ended);
            }
        });
    }
}

async fn worker(batch: &Batch, on_event: &dyn Fn(Event)) {
    loop {
        if !wait_while_paused(batch).await {
            return;
        }
        let Some(item) = batch.queue.borrow_mut().pop_front() else {
            return;
        };
        let played = play(batch, &item, on_event).await;
        batch.done_with(&item.bundle_id);
        match played {
            Ok(Some(record)) => {
                if let Some(store) = &batch.store {
                    if let Err(message) = store.save_episode(&batch.meta.id, &record).await {
                        on_event(Event::Problem {
                            item: item.key(),
                            message: format!("not saved in this browser: {message}"),
                        });
                    }
                }
                on_event(Event::Finished(record));
            }
            Ok(None) => return,
            Err(message) => on_event(Event::Problem {
                item: item.key(),
                message,
            }),
        }
    }
}

/// Waits while paused; false once cancelled.
async fn wait_while_paused(batch: &Batch) -> bool {
    while batch.state.get() == RunState::Paused {
        http::sleep(200).await;
    }
    !batch.cancelled()
}

/// Drives one episode; `None` when the batch was cancelled during it.
async fn play(
    batch: &Batch,
    item: &BatchItem,
    on_event: &dyn Fn(Event),
) -> Result<Option<EpisodeRecord>, String> {
    let bundle = batch.device(&item.bundle_id, on_event).await?;
    if batch.cancelled() {
        return Ok(None);
    }
    let spec = &batch.meta.run;
    let agent = driver::player(spec, &bundle, batch.replay.as_ref(), item.repeat)
        .map_err(|e| e.to_string())?;
    let mut config = DriverConfig::for_run(spec, batch.key.clone());
    config.watch = true;
    let mut driver = EpisodeDriver::new(Episode::new(&bundle), item, agent, config)
        .map_err(|e| format!("{}: {e}", item.key()))?;
    loop {
        let need = driver
            .poll(http::now_ms())
            .map_err(|e| format!("{}: {e}", item.key()));
        show(&mut driver, item, on_event);
        match need? {
            Need::Done(record) => return Ok(Some(*record)),
            Need::Send {
                request,
                timeout_ms,
            } => {
                if !wait_while_paused(batch).await {
                    return Ok(None);
                }
                let answer = send(batch, &request, timeout_ms).await;
                if batch.cancelled() {
                    return Ok(None);
                }
                driver.feed(answer, http::now_ms());
            }
            Need::Wait { ms } => {
                http::sleep(ms).await;
                if batch.cancelled() {
                    return Ok(None);
                }
            }
        }
    }
}

/// Passes the driver's events on to the page.
fn show(driver: &mut EpisodeDriver<'_, '_>, item: &BatchItem, on_event: &dyn Fn(Event)) {
    for event in driver.take_events() {
        on_event(match event {
            driver::Event::Started { instruction } => Event::Started {
                item: item.clone(),
                instruction,
            },
            driver::Event::Step(step) => Event::Step {
                // One picture per step, as the page shows it.
                item: item.key(),
                step: StepView {
                    number: step.number,
                    view: step.view,
                    image_url: step.image.map(|i| i.data_url()).unwrap_or_default(),
                    point: step.point,
                    turn: step.turn,
                    record: step.record,
                },
            },
            driver::Event::Retrying { message, wait_ms } => Event::Retrying {
                item: item.key(),
                message,
                wait_ms,
            },
        });
    }
}

/// Sends one request the driver asked for; abortable by cancel.
async fn send(batch: &Batch, request: &HttpRequest, timeout_ms: u64) -> Answer {
    let abort = match AbortController::new() {
        Ok(a) => a,
        Err(e) => {
            return Answer::Failure(Failure::Network {
                message: crate::browser::js_message(&e),
            })
        }
    };
    batch.aborts.borrow_mut().push(abort.clone());
    let result = http::post(request, timeout_ms, &abort).await;
    batch.aborts.borrow_mut().retain(|a| a != &abort);
    match result {
        Ok(response) => Answer::Response {
            status: response.status,
            retry_after: response.retry_after,
            body: response.body,
        },
        Err(failure) => Answer::Failure(failure),
    }
}
