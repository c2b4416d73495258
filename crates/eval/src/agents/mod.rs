//! The interface every agent implements (DESIGN.md, "Agent"; an agent is
//! whatever plays an episode), the agents that need no model
//! (`specs/devices.md` section 7), and the runner that plays an agent on a
//! task. The agents that talk to a model, or play its recorded answers
//! back, are in [`crate::vlm`].
//!
//! - [`oracle`]: follows an optimal path from the planner.
//! - [`random`]: seeded, uniform over action kinds, points, parameters and views.
//! - [`script`]: plays a list of action strings.
//! - [`runner`]: one episode, or every task of a bundle, played by the
//!   episode driver with no transport.

pub mod oracle;
pub mod random;
pub mod runner;
pub mod script;

use thiserror::Error;

use crate::vlm::perturb::EncodedImage;
use crate::vlm::{HttpRequest, Reply, Turn};
use knoblab_core::bundle::{Task, ViewImage};
use knoblab_core::sim::{Observation, Trajectory};

pub use oracle::Oracle;
pub use random::RandomAgent;
pub use runner::{run_episode, run_tasks};
pub use script::ScriptAgent;

/// Anything that plays episodes: the model agent, the oracle, the random
/// agent, a script, a replay. The episode driver
/// ([`crate::vlm::driver::EpisodeDriver`]) plays every one of them the same
/// way; the metrics never care which.
///
/// An agent without a model only implements [`Agent::act`]. A model agent
/// implements [`Agent::next`], which may ask for a request to be answered
/// ([`Move::Ask`]); the driver sends it (through whoever does the I/O) and
/// hands the reply to [`Agent::answer`], or the failure to [`Agent::fail`].
pub trait Agent {
    /// How the agent is named in a trajectory's settings.
    fn name(&self) -> String;
    /// A new episode of this task begins.
    fn reset(&mut self, task: &Task);
    /// The action text for this observation; `None` when the agent stops
    /// (a script ran out, a plan is exhausted). The episode ends there,
    /// neither terminated nor truncated. A model agent, which cannot act
    /// without an answer, stops here: it is played through [`Agent::next`].
    fn act(&mut self, observation: &Observation) -> Option<String>;
    /// The episode ended; here is its record.
    fn finish(&mut self, _trajectory: &Trajectory) {}

    /// The next move for this observation, whose picture is `image` (none
    /// when the bundle has no picture of the view). By default what
    /// [`Agent::act`] says.
    fn next(&mut self, observation: &Observation, _image: Option<&ViewImage>) -> Move {
        match self.act(observation) {
            Some(action) => Move::Act(action),
            None => Move::Stop,
        }
    }
    /// The reply to the request of the last [`Move::Ask`], after `attempts`
    /// requests and `elapsed_ms`: the agent's next move (an action, or a
    /// stop). Agents that never ask stop.
    fn answer(&mut self, _reply: Reply, _attempts: u32, _elapsed_ms: u64) -> Move {
        Move::Stop
    }
    /// The request of the last [`Move::Ask`] failed for good: the episode
    /// ends as `api_error`, and the agent records why.
    fn fail(&mut self, _error: String, _attempts: u32, _elapsed_ms: u64) {}
    /// The model's turns so far (none for an agent without a model).
    fn turns(&self) -> &[Turn] {
        &[]
    }
    /// The picture the agent was shown at its last move when that is not
    /// the view's own (a perturbed one), taken once.
    fn take_shown(&mut self) -> Option<EncodedImage> {
        None
    }
}

/// What an agent does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Move {
    /// Step the simulator with this action text.
    Act(String),
    /// End the episode here.
    Stop,
    /// Send this request and give the agent its answer.
    Ask(HttpRequest),
    /// The agent could not go on (its picture could not be prepared, a
    /// replay has no such task): the episode ends as `api_error`, and the
    /// agent has recorded why.
    Fail,
}

/// A borrowed agent plays like the agent itself, so the driver can play
/// an agent its caller keeps.
impl<A: Agent + ?Sized> Agent for &mut A {
    fn name(&self) -> String {
        (**self).name()
    }
    fn reset(&mut self, task: &Task) {
        (**self).reset(task)
    }
    fn act(&mut self, observation: &Observation) -> Option<String> {
        (**self).act(observation)
    }
    fn finish(&mut self, trajectory: &Trajectory) {
        (**self).finish(trajectory)
    }
    fn next(&mut self, observation: &Observation, image: Option<&ViewImage>) -> Move {
        (**self).next(observation, image)
    }
    fn answer(&mut self, reply: Reply, attempts: u32, elapsed_ms: u64) -> Move {
        (**self).answer(reply, attempts, elapsed_ms)
    }
    fn fail(&mut self, error: String, attempts: u32, elapsed_ms: u64) {
        (**self).fail(error, attempts, elapsed_ms)
    }
    fn turns(&self) -> &[Turn] {
        (**self).turns()
    }
    fn take_shown(&mut self) -> Option<EncodedImage> {
        (**self).take_shown()
    }
}

/// Which agent a command line, a keyword argument or a form asked for:
/// the one reader of agent names (`knoblab run --agent`, `knoblab eval
/// --agent`, `knoblab.evaluate(agent=…)`). Each command then says which of
/// them it plays ([`AgentSpec::for_run`], and `knoblab_app::run`'s
/// `RunArgs::source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSpec {
    /// The oracle: an optimal path from the planner.
    Oracle,
    /// The random agent, with its seed (0 when none is given).
    Random {
        /// The seed of every choice.
        seed: u64,
    },
    /// A script: the action strings in the file at `path`.
    Script {
        /// The script file, one action a line.
        path: String,
    },
    /// A model behind an HTTP API.
    Model,
    /// A model's answers read back from the trajectory file at `path`.
    Replay {
        /// The recorded trajectory file.
        path: String,
    },
}

/// An agent name that is none of the known forms, or one the command
/// does not play.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AgentSpecError {
    #[error("unknown agent \"{found}\": expected {expected}")]
    /// A name of no known agent (or of none the command plays).
    Unknown {
        /// The name given.
        found: String,
        /// The names the command takes.
        expected: &'static str,
    },
    #[error("the seed \"{found}\" of random:SEED is not a whole number")]
    /// `random:` followed by something that is not a whole number.
    BadSeed {
        /// What followed `random:`.
        found: String,
    },
    #[error("{form}: needs a file, as in {form}:moves.txt")]
    /// `script:` or `replay:` with no file after it.
    NoFile {
        /// `script` or `replay`.
        form: &'static str,
    },
}

impl AgentSpec {
    /// Reads `oracle`, `random`, `random:SEED`, `script:FILE`, `model` or
    /// `replay:FILE` (names in any case, spaces around them ignored).
    ///
    /// ```
    /// use knoblab_eval::agents::AgentSpec;
    /// assert_eq!(AgentSpec::parse("random:7"), Ok(AgentSpec::Random { seed: 7 }));
    /// assert_eq!(AgentSpec::parse(" Model "), Ok(AgentSpec::Model));
    /// assert!(AgentSpec::parse("human").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<AgentSpec, AgentSpecError> {
        let text = text.trim();
        let (head, rest) = match text.split_once(':') {
            Some((h, r)) => (h, Some(r)),
            None => (text, None),
        };
        let file = |form: &'static str, p: &str| {
            let p = p.trim();
            if p.is_empty() {
                Err(AgentSpecError::NoFile { form })
            } else {
                Ok(p.to_string())
            }
        };
        match (head.to_ascii_lowercase().as_str(), rest) {
            ("oracle", None) => Ok(AgentSpec::Oracle),
            ("model", None) => Ok(AgentSpec::Model),
            ("random", None) => Ok(AgentSpec::Random { seed: 0 }),
            ("random", Some(s)) => s
                .trim()
                .parse()
                .map(|seed| AgentSpec::Random { seed })
                .map_err(|_| AgentSpecError::BadSeed {
                    found: s.to_string(),
                }),
            ("script", Some(p)) => file("script", p).map(|path| AgentSpec::Script { path }),
            ("script", None) => Err(AgentSpecError::NoFile { form: "script" }),
            ("replay", Some(p)) => file("replay", p).map(|path| AgentSpec::Replay { path }),
            ("replay", None) => Err(AgentSpecError::NoFile { form: "replay" }),
            _ => Err(AgentSpecError::Unknown {
                found: text.to_string(),
                expected: "oracle, random, random:SEED, script:FILE, model or replay:FILE",
            }),
        }
    }

    /// The agents `knoblab run` plays (it has no model client): the
    /// oracle, the random agent and a script; any other name is refused
    /// with the names it takes (a model or a replay plays through
    /// `knoblab eval`).
    pub fn for_run(text: &str) -> Result<AgentSpec, AgentSpecError> {
        const EXPECTED: &str = "oracle, random, random:SEED or script:FILE \
            (a model or a replay plays through knoblab eval)";
        match AgentSpec::parse(text) {
            Ok(AgentSpec::Model | AgentSpec::Replay { .. })
            | Err(AgentSpecError::Unknown { .. }) => Err(AgentSpecError::Unknown {
                found: text.trim().to_string(),
                expected: EXPECTED,
            }),
            other => other,
        }
    }
}
