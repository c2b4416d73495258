//! Runs a batch in the page: workers (as many as the concurrency setting)
//! take items from a queue, play each episode step by step, and save each
//! finished episode to IndexedDB before reporting it. Pause waits between
//! steps; cancel aborts requests in flight. The agent logic is the core's
//! (`vlm::ModelAgent`, the oracle, the random agent); this file only awaits
//! the transport and the timers in between.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use web_sys::AbortController;

use crate::agents::{Agent, Oracle, RandomAgent};
use crate::bundle::image::encode_data_url;
use crate::bundle::Bundle;
use crate::geom::ScaledPoint;
use crate::sim::{Episode, Settings, StepRecord};
use crate::vlm::record::EpisodeStatus;
use crate::vlm::{BatchItem, EpisodeRecord, Failure, ModelAgent, Replay, Reply, Turn, Usage};

use super::net;
use super::store::{BatchMeta, Source, Store};

/// Where a batch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    Running,
    Paused,
    Cancelled,
}

/// One step as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepView {
    /// 1-based.
    pub number: usize,
    pub view: String,
    /// The picture as sent (a `data:` URL).
    pub image_url: String,
    /// The point acted on, drawn on the picture.
    pub point: Option<ScaledPoint>,
    pub turn: Option<Turn>,
    /// The simulator's record, none when the request failed.
    pub record: Option<StepRecord>,
}

/// What a batch tells the page.
#[derive(Debug, Clone)]
pub enum Event {
    /// An episode began: the page watches the latest one.
    Started {
        item: BatchItem,
        instruction: Option<String>,
    },
    Step {
        item: String,
        step: StepView,
    },
    /// A request failed and is tried again after a wait.
    Retrying {
        item: String,
        message: String,
        wait_ms: u64,
    },
    /// An episode ended and is saved.
    Finished(EpisodeRecord),
    /// An item could not be played (its bundle or task is missing) or saved.
    Problem {
        item: String,
        message: String,
    },
    /// Every worker stopped (queue empty, or cancelled).
    Ended,
}

/// A batch being run: its description, what it needs, and its controls.
/// The key lives here, in memory only.
pub struct Batch {
    pub meta: BatchMeta,
    pub bundles: BTreeMap<String, Arc<Bundle>>,
    pub replay: Option<Replay>,
    pub key: String,
    pub state: Cell<RunState>,
    pub queue: RefCell<VecDeque<BatchItem>>,
    aborts: RefCell<Vec<AbortController>>,
    pub store: Option<Store>,
}

impl Batch {
    pub fn new(
        meta: BatchMeta,
        bundles: BTreeMap<String, Arc<Bundle>>,
        replay: Option<Replay>,
        key: String,
        queue: Vec<BatchItem>,
        store: Option<Store>,
    ) -> Batch {
        Batch {
            meta,
            bundles,
            replay,
            key,
            state: Cell::new(RunState::Running),
            queue: RefCell::new(queue.into()),
            aborts: RefCell::new(Vec::new()),
            store,
        }
    }

    /// Stops the batch: no new step, requests in flight aborted.
    pub fn cancel(&self) {
        self.state.set(RunState::Cancelled);
        for a in self.aborts.borrow_mut().drain(..) {
            a.abort();
        }
    }

    fn cancelled(&self) -> bool {
        self.state.get() == RunState::Cancelled
    }

    /// The trajectory settings of this batch's episodes.
    fn trajectory_settings(&self) -> Settings {
        let s = &self.meta.settings;
        match self.meta.source {
            Source::Model => s.trajectory_settings(&s.endpoint.model),
            Source::Replay => {
                let mut t = s.trajectory_settings("replay");
                t.model = None;
                t.endpoint = None;
                t
            }
            Source::Oracle => Settings {
                agent: "oracle".into(),
                render: s.render,
                ..Settings::with_lambda(s.lambda)
            },
            Source::Random => Settings {
                agent: format!("random:{}", s.seed),
                seed: Some(s.seed),
                render: s.render,
                ..Settings::with_lambda(s.lambda)
            },
        }
    }
}

/// Runs the batch's queue with its concurrency; `on_event` hears every
/// step, and `Ended` once all workers stopped.
pub fn run(batch: Rc<Batch>, on_event: Rc<dyn Fn(Event)>) {
    let workers = batch.meta.settings.concurrency.clamp(1, 16);
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
        match play(batch, &item, on_event).await {
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
        net::sleep(200).await;
    }
    !batch.cancelled()
}

/// Who plays one episode.
enum Player<'b> {
    Model(Box<ModelAgent>),
    Builtin(Box<dyn Agent + 'b>),
}

/// Plays one episode; `None` when the batch was cancelled during it.
async fn play(
    batch: &Batch,
    item: &BatchItem,
    on_event: &dyn Fn(Event),
) -> Result<Option<EpisodeRecord>, String> {
    let bundle = batch
        .bundles
        .get(&item.bundle_id)
        .cloned()
        .ok_or_else(|| format!("the device {} is not loaded", item.bundle_id))?;
    let mut episode = Episode::new(&bundle);
    let (mut observation, _) = episode
        .reset(&item.task_id, batch.trajectory_settings())
        .map_err(|e| format!("{}: {e}", item.key()))?;
    let task = bundle
        .task(&item.task_id)
        .ok_or_else(|| format!("{}: no such task", item.key()))?;
    let settings = &batch.meta.settings;
    let mut player = match batch.meta.source {
        Source::Model | Source::Replay => {
            let mut agent = ModelAgent::new(settings.clone());
            agent.reset(item.repeat);
            Player::Model(Box::new(agent))
        }
        Source::Oracle => Player::Builtin(Box::new(Oracle::new(&bundle))),
        Source::Random => Player::Builtin(Box::new(RandomAgent::new(settings.seed))),
    };
    if let Player::Builtin(agent) = &mut player {
        agent.reset(task);
    }
    on_event(Event::Started {
        item: item.clone(),
        instruction: observation.instruction.clone(),
    });
    let mut status = EpisodeStatus::Finished;
    while !episode.is_done() {
        if !wait_while_paused(batch).await {
            return Ok(None);
        }
        let number = episode.trajectory().map_or(0, |t| t.steps.len()) + 1;
        let view = bundle
            .views
            .get(&observation.view)
            .ok_or_else(|| format!("{}: no picture of view {}", item.key(), observation.view))?;
        let (action, image_url) = match &mut player {
            Player::Builtin(agent) => match agent.act(&observation) {
                Some(a) => (a, encode_data_url(&view.image)),
                None => break,
            },
            Player::Model(agent) => {
                let prepared = match agent.prepare(&observation, &view.image, &batch.key) {
                    Ok(p) => p,
                    Err(e) => {
                        agent.fail(e, 0, 0);
                        status = EpisodeStatus::ApiError;
                        break;
                    }
                };
                let image_url = prepared.image.data_url();
                let started = net::now_ms();
                let answer = match (batch.meta.source, &batch.replay) {
                    (Source::Replay, Some(replay)) => replay
                        .answer(&item.bundle_id, &item.task_id, item.repeat, number - 1)
                        .map(|r| r.map(|r| (r, 1)))
                        .map_err(|e| (e, 1)),
                    (Source::Replay, None) => Err(("no trajectory file to replay".into(), 0)),
                    _ => call(batch, item, &prepared.request, on_event)
                        .await
                        .map(Some),
                };
                if batch.cancelled() {
                    return Ok(None);
                }
                let elapsed = net::now_ms().saturating_sub(started);
                match answer {
                    Ok(Some((reply, attempts))) => {
                        (agent.receive(reply, attempts, elapsed), image_url)
                    }
                    Ok(None) => break,
                    Err((message, attempts)) => {
                        agent.fail(message, attempts, elapsed);
                        on_event(Event::Step {
                            item: item.key(),
                            step: StepView {
                                number,
                                view: observation.view.clone(),
                                image_url,
                                point: None,
                                turn: agent.turns().last().cloned(),
                                record: None,
                            },
                        });
                        status = EpisodeStatus::ApiError;
                        break;
                    }
                }
            }
        };
        let step = episode
            .step(&action)
            .map_err(|e| format!("{}: {e}", item.key()))?;
        let record = episode.trajectory().and_then(|t| t.steps.last()).cloned();
        let turn = match &player {
            Player::Model(agent) => agent.turns().last().cloned(),
            Player::Builtin(_) => None,
        };
        on_event(Event::Step {
            item: item.key(),
            step: StepView {
                number,
                view: observation.view.clone(),
                image_url,
                point: record
                    .as_ref()
                    .and_then(|r| r.parsed.as_ref())
                    .and_then(|a| a.coord),
                turn,
                record,
            },
        });
        observation = step.observation;
    }
    let trajectory = episode.into_trajectory().map_err(|e| e.to_string())?;
    let (turns, usage) = match &player {
        Player::Model(agent) => (agent.turns().to_vec(), agent.usage()),
        Player::Builtin(_) => (Vec::new(), Usage::default()),
    };
    let cost = match batch.meta.source {
        Source::Model => settings.prices.cost(usage),
        _ => None,
    };
    Ok(Some(EpisodeRecord {
        trajectory,
        item: item.key(),
        status,
        turns,
        usage,
        cost,
    }))
}

/// One turn's request with retries: the reply and the attempts made, or
/// what went wrong (for the step and the record) and the attempts made.
async fn call(
    batch: &Batch,
    item: &BatchItem,
    request: &crate::vlm::HttpRequest,
    on_event: &dyn Fn(Event),
) -> Result<(Reply, u32), (String, u32)> {
    let settings = &batch.meta.settings;
    let endpoint = &settings.endpoint;
    let mut attempt = 0;
    loop {
        attempt += 1;
        if batch.cancelled() {
            return Err(("cancelled".into(), attempt - 1));
        }
        let abort = AbortController::new().map_err(|e| (net::js_error(&e), attempt))?;
        batch.aborts.borrow_mut().push(abort.clone());
        let result = net::post(request, settings.timeout_ms, &abort).await;
        batch.aborts.borrow_mut().retain(|a| a != &abort);
        let failure = match result {
            Ok(response) => match endpoint.flavor.parse_reply(response.status, &response.body) {
                Ok(reply) => return Ok((reply, attempt)),
                Err(error) => Failure::Reply {
                    error,
                    retry_after_ms: response.retry_after_ms,
                },
            },
            Err(failure) => failure,
        };
        let message = failure.describe(endpoint);
        match settings.retry.after(attempt, &failure) {
            Some(wait_ms) if !batch.cancelled() => {
                on_event(Event::Retrying {
                    item: item.key(),
                    message,
                    wait_ms,
                });
                net::sleep(wait_ms).await;
            }
            _ => return Err((message, attempt)),
        }
    }
}
