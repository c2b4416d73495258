//! Talking to vision-language models, without the transport (issue #10).
//! Pure and natively tested; the browser supplies HTTP, timers and storage
//! (`ui::browser`, driven by the Agent page in `ui::pages::agent`).
//!
//! - [`provider`]: request building for OpenAI-compatible and Anthropic
//!   APIs (headers kept to what CORS preflights accept).
//! - [`reply`]: reading their replies: text, reasoning, tokens, errors.
//! - [`retry`]: which failures are retried, `Retry-After`, backoff.
//! - [`prompt`]: the versioned system prompt, each turn's text, the
//!   history window.
//! - [`coords`]: the model's coordinate convention onto the simulator's
//!   0–1000.
//! - [`perturb`]: JPEG, blur and black-patch perturbations, seeded.
//! - [`settings`]: a run's settings (never the key), prices and cost, and
//!   what goes into each trajectory.
//! - [`model_agent`]: the model agent's state machine: observation →
//!   request, reply → action, and the record of each turn.
//! - [`driver`]: the episode driver (sans-IO): one episode of any agent,
//!   saying which request to send or how long to wait, fed the answers,
//!   ending with the record. The page and the native runner both drive it.
//! - [`error`]: this module's errors.
//! - [`recorded`]: a model's answers read back from a recorded trajectory
//!   file, for offline demos (the source `replay` of the CLI and the page).
//! - [`items`]: which episodes a batch runs (its items, repeats, the task
//!   filter).
//! - [`batch`]: what remains after a reload, progress and ETA, and the
//!   versioned run description a resume checks.
//! - [`selection`]: what a batch runs at the library's scale (all, a
//!   category, devices found by search; all, single- or multi-turn tasks
//!   or given ids; repeats), counted without opening a device.
//! - [`record`]: the exported line of an episode, and the batch report that
//!   keeps `api_error` episodes apart from the model's failures.

pub mod batch;
pub mod coords;
pub mod driver;
pub mod error;
pub mod items;
pub mod model_agent;
pub mod perturb;
pub mod prompt;
pub mod provider;
pub mod record;
pub mod recorded;
pub mod reply;
pub mod retry;
pub mod selection;
pub mod settings;

pub use batch::{BatchItem, Progress, RunSpec, Source};
pub use coords::CoordConvention;
pub use driver::{Answer, ApiKey, DriverConfig, EpisodeDriver, Need};
pub use error::VlmError;
pub use model_agent::{ModelAgent, Prepared, Turn};
pub use perturb::Perturbation;
pub use prompt::{HistoryWindow, PROMPT_VERSION};
pub use provider::{Endpoint, Flavor, HttpRequest};
pub use record::{BatchReport, EpisodeRecord};
pub use recorded::{RecordedAgent, RecordedAnswers};
pub use reply::{Reply, ReplyError, Usage};
pub use retry::{Failure, RetryPolicy};
pub use settings::{AgentSettings, Prices, TypedNumbers};
