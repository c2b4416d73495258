//! (Over 600 lines: the driver is one state machine whose phases, feeding
//! and record are read together; its tests are in `tests/eval_driver.rs`.)
//!
//! The episode driver: one episode of one task, played by any [`Agent`]
//! (a model, a replay, the oracle, the random agent, a script), with no
//! I/O of its own, in the sans-IO style of h11 or quinn-proto. It says what
//! it needs next ([`EpisodeDriver::poll`]): an HTTP request sent, a wait
//! before a retry, or nothing more: the episode is over and here is its
//! record. Whoever does the I/O (the page's `fetch`, the native runner's
//! threads, a test) sends the request and feeds the answer back
//! ([`EpisodeDriver::feed`]): a reply, a failure, a timeout. Retries,
//! `Retry-After`, `api_error` and the record are decided here, so every
//! front end plays episodes the same way.
//!
//! The caller passes its clock (`now_ms`, milliseconds of any monotonic or
//! wall clock) to both calls; the driver never reads one.
//!
//! ```
//! use knoblab_eval::agents::Oracle;
//! use knoblab_core::bundle::load_path;
//! use knoblab_core::sim::Episode;
//! use knoblab_eval::vlm::batch::BatchItem;
//! use knoblab_eval::vlm::driver::{DriverConfig, EpisodeDriver, Need};
//! let kettle = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
//! let bundle = load_path(std::path::Path::new(kettle)).unwrap();
//! let item = BatchItem { bundle_id: bundle.manifest.id.clone(), task_id: bundle.tasks[0].id.clone(), repeat: 0 };
//! let mut oracle = Oracle::new(&bundle);
//! let mut driver = EpisodeDriver::new(Episode::new(&bundle), &item, Box::new(&mut oracle),
//!                                     DriverConfig::offline(Default::default())).unwrap();
//! let Need::Done(record) = driver.poll(0).unwrap() else { panic!("the oracle sends nothing") };
//! assert!(record.trajectory.terminated);
//! ```

use std::fmt;
use std::sync::Arc;

use crate::agents::{Agent, Move, Oracle, RandomAgent};
use knoblab_core::bundle::{Bundle, ViewImage};
use knoblab_core::geom::ScaledPoint;
use knoblab_core::sim::{Episode, Observation, RenderMode, Settings, SimError, StepRecord};

use super::batch::{BatchItem, RunSpec, Source};
use super::error::VlmError;
use super::model_agent::{ModelAgent, Turn};
use super::perturb::EncodedImage;
use super::provider::{Endpoint, HttpRequest};
use super::record::EpisodeRecord;
use super::recorded::{RecordedAgent, RecordedAnswers};
use super::reply::Usage;
use super::retry::{retry_after_ms, Failure, RetryPolicy};
use super::settings::{AgentSettings, Prices};
use knoblab_core::metrics::file::EpisodeStatus;

/// An API key, in memory only: its `Debug` shows no character of it, and
/// it is put into a request's key header by the driver and nowhere else.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key (kept out of `Debug` output).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// Whether there is a key to send (a local server may need none).
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }

    /// The key itself, for whoever must check that it went nowhere else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("ApiKey(none)")
        } else {
            f.write_str("ApiKey(hidden)")
        }
    }
}

/// How an episode is played apart from its agent: the trajectory's
/// settings, where requests go and how they are retried, prices, the key.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// The trajectory's settings (an empty `agent` is filled with the
    /// agent's name).
    pub settings: Settings,
    /// Where requests go, and the model.
    pub endpoint: Endpoint,
    /// Which failures are retried, and how often.
    pub retry: RetryPolicy,
    /// How long a request may take.
    pub timeout_ms: u64,
    /// Prices for the record's cost; none for agents that send nothing.
    pub prices: Option<Prices>,
    /// The key requests carry (empty for a server that needs none).
    pub key: ApiKey,
    /// Keep a [`Event::Step`] for every step (with the picture shown), as
    /// the page shows them; a runner that shows no steps saves the copies.
    pub watch: bool,
}

impl DriverConfig {
    /// For episodes that send nothing (the oracle, the random agent, a
    /// script, a replay): a request that is asked for anyway fails at once.
    pub fn offline(settings: Settings) -> DriverConfig {
        let defaults = AgentSettings::default();
        DriverConfig {
            settings,
            endpoint: defaults.endpoint,
            retry: RetryPolicy {
                retries: 0,
                ..RetryPolicy::default()
            },
            timeout_ms: defaults.timeout_ms,
            prices: None,
            key: ApiKey::default(),
            watch: false,
        }
    }

    /// For the episodes of a run, with the key its requests carry.
    pub fn for_run(spec: &RunSpec, key: ApiKey) -> DriverConfig {
        let s = &spec.settings;
        DriverConfig {
            settings: spec.trajectory_settings(),
            endpoint: s.endpoint.clone(),
            retry: s.retry,
            timeout_ms: s.timeout_ms,
            prices: spec.source.sends_requests().then_some(s.prices),
            key: if spec.source.sends_requests() {
                key
            } else {
                ApiKey::default()
            },
            watch: false,
        }
    }
}

/// The agent that plays an item of a run: a model agent, a replay of the
/// run's file, the oracle or the random agent, set to the item's repeat.
pub fn player<'b>(
    spec: &RunSpec,
    bundle: &'b Bundle,
    recorded: Option<&Arc<RecordedAnswers>>,
    repeat: u32,
) -> Result<Box<dyn Agent + 'b>, VlmError> {
    let settings = &spec.settings;
    Ok(match spec.source {
        Source::Model => {
            let mut agent = ModelAgent::new(settings.clone());
            agent.restart(repeat);
            Box::new(agent)
        }
        Source::Replay => {
            let answers = recorded.cloned().ok_or(VlmError::RecordedEmpty)?;
            let mut agent = RecordedAgent::new(bundle, answers, settings.clone());
            agent.set_repeat(repeat);
            Box::new(agent)
        }
        Source::Oracle => Box::new(Oracle::new(bundle)),
        Source::Random => Box::new(RandomAgent::new(settings.seed)),
    })
}

/// What the driver needs next.
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    /// Send this request (the key is in its header) and feed back what
    /// came, or a [`Failure::Timeout`] after `timeout_ms`.
    Send {
        /// The request.
        request: HttpRequest,
        /// How long to wait for it.
        timeout_ms: u64,
    },
    /// Wait this long before polling again (a retry's backoff).
    Wait {
        /// How long, in milliseconds.
        ms: u64,
    },
    /// Nothing: the episode is over, and this is its record.
    Done(Box<EpisodeRecord>),
}

/// What came back for a [`Need::Send`].
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The server answered, with any status.
    Response {
        /// The HTTP status.
        status: u16,
        /// The `Retry-After` header as sent, if any.
        retry_after: Option<String>,
        /// The body, as text.
        body: String,
    },
    /// No answer: a timeout, a network or transport failure.
    Failure(Failure),
}

/// One step as a page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    /// 1-based.
    pub number: usize,
    /// The view the step was taken in.
    pub view: String,
    /// The picture as shown to the agent (perturbed, if it was).
    pub image: Option<EncodedImage>,
    /// The point acted on.
    pub point: Option<ScaledPoint>,
    /// The model's turn, for a model agent.
    pub turn: Option<Turn>,
    /// The simulator's record; none when the request failed for good.
    pub record: Option<StepRecord>,
}

/// What happened, for whoever shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The episode began.
    Started {
        /// The first goal's instruction.
        instruction: Option<String>,
    },
    /// A step was played (kept only when [`DriverConfig::watch`]), or a
    /// request failed for good (always kept).
    Step(Box<StepReport>),
    /// A request failed and is tried again after a wait.
    Retrying {
        /// Why the request failed.
        message: String,
        /// How long before it is sent again, in milliseconds.
        wait_ms: u64,
    },
}

#[derive(Debug)]
enum Phase {
    /// Ask the agent for its next move.
    Decide,
    /// The agent moved (after an answer): play the move.
    Moved(Move),
    /// A request is out, awaiting [`EpisodeDriver::feed`].
    Sending {
        request: HttpRequest,
        attempt: u32,
        started_ms: u64,
    },
    /// A retry's wait.
    Waiting {
        request: HttpRequest,
        attempt: u32,
        started_ms: u64,
        until_ms: u64,
    },
    Over(Box<EpisodeRecord>),
}

/// One episode being played. `'b` is the bundle's lifetime, `'a` the
/// agent's.
pub struct EpisodeDriver<'b, 'a> {
    episode: Episode<'b>,
    agent: Box<dyn Agent + 'a>,
    item: String,
    config: DriverConfig,
    observation: Observation,
    phase: Phase,
    status: EpisodeStatus,
    events: Vec<Event>,
    /// The turns whose reply came from a cache ([`EpisodeDriver::feed_cached`]).
    cached_turns: Vec<usize>,
    /// Whether the last answer fed may be cached ([`EpisodeDriver::storable`]).
    storable: bool,
}

impl fmt::Debug for EpisodeDriver<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EpisodeDriver")
            .field("item", &self.item)
            .field("phase", &self.phase)
            .field("key", &self.config.key)
            .finish_non_exhaustive()
    }
}

impl<'b, 'a> EpisodeDriver<'b, 'a> {
    /// Starts `item`'s task on `episode` (a fresh or a reused one of the
    /// item's bundle), played by `agent`.
    pub fn new(
        mut episode: Episode<'b>,
        item: &BatchItem,
        mut agent: Box<dyn Agent + 'a>,
        config: DriverConfig,
    ) -> Result<EpisodeDriver<'b, 'a>, SimError> {
        let mut settings = config.settings.clone();
        if settings.agent.is_empty() {
            settings.agent = agent.name();
        }
        // The library this device belongs to, if any (one rule for every
        // recorder).
        settings.library = knoblab_core::bundle::library_of(
            &episode.device().bundle.manifest.id,
            episode.logic_hash(),
        );
        let (observation, _) = episode.reset(&item.task_id, settings)?;
        let bundle = episode.device().bundle;
        if let Some(task) = bundle.task(&item.task_id) {
            agent.reset(task);
        }
        let events = vec![Event::Started {
            instruction: observation.instruction.clone(),
        }];
        Ok(EpisodeDriver {
            episode,
            agent,
            item: item.key(),
            config,
            observation,
            phase: Phase::Decide,
            status: EpisodeStatus::Finished,
            events,
            cached_turns: Vec::new(),
            storable: false,
        })
    }

    /// The item's key.
    pub fn item(&self) -> &str {
        &self.item
    }

    /// The number of turns so far: the turn a request asked for now
    /// belongs to (from 0).
    pub fn turn(&self) -> usize {
        self.agent.turns().len()
    }

    /// The events since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// The episode, to play the next task of the same bundle on.
    pub fn into_episode(self) -> Episode<'b> {
        self.episode
    }

    /// Plays until something must come from outside or the episode is
    /// over. Polling while a request is out returns the same request;
    /// polling after the end returns the same record.
    pub fn poll(&mut self, now_ms: u64) -> Result<Need, SimError> {
        loop {
            match std::mem::replace(&mut self.phase, Phase::Decide) {
                Phase::Over(record) => {
                    self.phase = Phase::Over(record.clone());
                    return Ok(Need::Done(record));
                }
                Phase::Sending {
                    request,
                    attempt,
                    started_ms,
                } => {
                    let need = Need::Send {
                        request: request.clone(),
                        timeout_ms: self.config.timeout_ms,
                    };
                    self.phase = Phase::Sending {
                        request,
                        attempt,
                        started_ms,
                    };
                    return Ok(need);
                }
                Phase::Waiting {
                    request,
                    attempt,
                    started_ms,
                    until_ms,
                } => {
                    if now_ms < until_ms {
                        self.phase = Phase::Waiting {
                            request,
                            attempt,
                            started_ms,
                            until_ms,
                        };
                        return Ok(Need::Wait {
                            ms: until_ms - now_ms,
                        });
                    }
                    self.phase = Phase::Sending {
                        request,
                        attempt: attempt + 1,
                        started_ms,
                    };
                }
                Phase::Moved(m) => self.play(m, now_ms)?,
                Phase::Decide => {
                    if self.episode.is_done() {
                        self.finish()?;
                        continue;
                    }
                    // Live pictures show the current state (the core draws
                    // them); static ones are the bundle's own view.
                    let live = match self.episode.render_mode() {
                        RenderMode::Live => Some(self.episode.picture()?),
                        RenderMode::Static => None,
                    };
                    let bundle = self.episode.device().bundle;
                    let image = live
                        .as_ref()
                        .or_else(|| bundle.views.get(&self.observation.view).map(|v| &v.image));
                    let m = self.agent.next(&self.observation, image);
                    self.play(m, now_ms)?;
                }
            }
        }
    }

    /// What came back for the request of the last [`Need::Send`]; ignored
    /// when no request is out.
    pub fn feed(&mut self, answer: Answer, now_ms: u64) {
        self.feed_answer(answer, now_ms, false);
    }

    /// A reply body for the request of the last [`Need::Send`] that came
    /// from a cache of earlier replies instead of the model: played as a
    /// reply with status 200, and its turn marked `cached` in the record
    /// (its tokens are kept; its cost is not counted).
    pub fn feed_cached(&mut self, body: String, now_ms: u64) {
        let answer = Answer::Response {
            status: 200,
            retry_after: None,
            body,
        };
        self.feed_answer(answer, now_ms, true);
    }

    /// Whether the answer last fed may be kept in a cache of replies: a
    /// reply from the model (not from the cache) that parsed, was not cut
    /// by the token limit ([`super::provider::Flavor::truncated`]), and
    /// whose action the simulator's grammar reads. An error, a failure, a
    /// retried request's failed attempts, a truncated reply or an
    /// unreadable action never are.
    pub fn storable(&self) -> bool {
        self.storable
    }

    fn feed_answer(&mut self, answer: Answer, now_ms: u64, cached: bool) {
        self.storable = false;
        let Phase::Sending {
            request,
            attempt,
            started_ms,
        } = std::mem::replace(&mut self.phase, Phase::Decide)
        else {
            return;
        };
        let endpoint = &self.config.endpoint;
        let elapsed = now_ms.saturating_sub(started_ms);
        let failure = match answer {
            Answer::Response {
                status,
                retry_after,
                body,
            } => match endpoint.flavor.parse_reply(status, &body) {
                Ok(reply) => {
                    let truncated = endpoint.flavor.truncated(&body);
                    let m = self.agent.answer(reply, attempt, elapsed);
                    let turn = self.agent.turns().len().checked_sub(1);
                    if cached {
                        self.cached_turns.extend(turn);
                    } else {
                        let readable = turn
                            .and_then(|t| self.agent.turns().get(t))
                            .is_some_and(|t| t.parse_error.is_none() && t.api_error.is_none());
                        self.storable = readable && !truncated;
                    }
                    self.phase = Phase::Moved(m);
                    return;
                }
                Err(error) => Failure::Reply {
                    error,
                    retry_after_ms: retry_after.and_then(|v| retry_after_ms(&v, now_ms)),
                },
            },
            Answer::Failure(failure) => failure,
        };
        let message = failure.describe(endpoint);
        match self.config.retry.after(attempt, &failure) {
            Some(wait_ms) => {
                self.events.push(Event::Retrying { message, wait_ms });
                self.phase = Phase::Waiting {
                    request,
                    attempt,
                    started_ms,
                    until_ms: now_ms.saturating_add(wait_ms),
                };
            }
            None => {
                self.agent.fail(message, attempt, elapsed);
                self.phase = Phase::Moved(Move::Fail);
            }
        }
    }

    /// Plays a move: a step, the end, or a request to send.
    fn play(&mut self, m: Move, now_ms: u64) -> Result<(), SimError> {
        match m {
            Move::Act(action) => self.step(&action),
            Move::Stop => self.finish(),
            Move::Fail => {
                self.status = EpisodeStatus::ApiError;
                let image = self.agent.take_shown();
                self.events.push(Event::Step(Box::new(StepReport {
                    number: self.steps() + 1,
                    view: self.observation.view.clone(),
                    image,
                    point: None,
                    turn: self.agent.turns().last().cloned(),
                    record: None,
                })));
                self.finish()
            }
            Move::Ask(mut request) => {
                self.config
                    .endpoint
                    .authorize(&mut request, self.config.key.expose());
                self.phase = Phase::Sending {
                    request,
                    attempt: 1,
                    started_ms: now_ms,
                };
                Ok(())
            }
        }
    }

    fn steps(&self) -> usize {
        self.episode.trajectory().map_or(0, |t| t.steps.len())
    }

    fn step(&mut self, action: &str) -> Result<(), SimError> {
        let number = self.steps() + 1;
        let shown = self.agent.take_shown();
        let step = self.episode.step(action)?;
        let observation = std::mem::replace(&mut self.observation, step.observation);
        if self.config.watch {
            let record = self
                .episode
                .trajectory()
                .and_then(|t| t.steps.last())
                .cloned();
            let bundle = self.episode.device().bundle;
            let image = shown.or_else(|| {
                bundle
                    .views
                    .get(&observation.view)
                    .map(|v| encoded(&v.image))
            });
            self.events.push(Event::Step(Box::new(StepReport {
                number,
                view: observation.view,
                image,
                point: record
                    .as_ref()
                    .and_then(|r| r.parsed.as_ref())
                    .and_then(|a| a.coord),
                turn: self.agent.turns().last().cloned(),
                record,
            })));
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), SimError> {
        let trajectory = self
            .episode
            .trajectory()
            .cloned()
            .ok_or(SimError::NotReset)?;
        self.agent.finish(&trajectory);
        let mut turns = self.agent.turns().to_vec();
        for &i in &self.cached_turns {
            if let Some(t) = turns.get_mut(i) {
                t.cached = true;
            }
        }
        // Tokens of every reply; the cost of those paid for (not cached).
        let mut usage = Usage::default();
        let mut paid = Usage::default();
        for t in &turns {
            usage.add(t.usage);
            if !t.cached {
                paid.add(t.usage);
            }
        }
        let cost = self.config.prices.and_then(|p| p.cost(paid));
        self.phase = Phase::Over(Box::new(EpisodeRecord {
            trajectory,
            item: self.item.clone(),
            status: self.status,
            turns,
            usage,
            cost,
        }));
        Ok(())
    }
}

fn encoded(image: &ViewImage) -> EncodedImage {
    EncodedImage {
        media_type: image.media_type.clone(),
        bytes: image.bytes.to_vec(),
    }
}

/// Plays an episode that needs no transport to its end: a request asked
/// for fails at once ("no transport"), so a model agent ends as
/// `api_error`. What [`crate::agents::run_episode`] does.
pub fn play_offline<'b>(
    driver: &mut EpisodeDriver<'b, '_>,
) -> Result<Box<EpisodeRecord>, SimError> {
    loop {
        match driver.poll(0)? {
            Need::Done(record) => return Ok(record),
            Need::Send { .. } => driver.feed(
                Answer::Failure(Failure::Transport {
                    message: "this runner sends no requests".into(),
                }),
                0,
            ),
            // The offline retry policy never waits; a caller's own policy
            // might: its clock stands still here, so give up instead.
            Need::Wait { .. } => {
                driver.phase = match std::mem::replace(&mut driver.phase, Phase::Decide) {
                    Phase::Waiting {
                        request,
                        attempt,
                        started_ms,
                        ..
                    } => Phase::Sending {
                        request,
                        attempt: driver.config.retry.retries.max(attempt) + 1,
                        started_ms,
                    },
                    other => other,
                }
            }
        }
    }
}
