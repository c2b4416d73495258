//! Agents that need no model (`specs/devices.md` section 7), the interface
//! every agent implements (DESIGN.md, "Agent"), and the runner that plays
//! an agent on a task.
//!
//! - [`oracle`]: follows an optimal path from the planner.
//! - [`random`]: seeded, uniform over action kinds, points, parameters and views.
//! - [`script`]: plays a list of action strings.
//! - [`runner`]: one episode, or every task of a bundle.

pub mod oracle;
pub mod random;
pub mod runner;
pub mod script;

use thiserror::Error;

use crate::bundle::Task;
use crate::sim::{Observation, Trajectory};

pub use oracle::Oracle;
pub use random::RandomAgent;
pub use runner::{run_episode, run_tasks};
pub use script::ScriptAgent;

/// Anything that plays episodes: the browser's model agent, the oracle, the
/// random agent, a replay. The runner and the metrics never care which.
pub trait Agent {
    /// How the agent is named in a trajectory's settings.
    fn name(&self) -> String;
    /// A new episode of this task begins.
    fn reset(&mut self, task: &Task);
    /// The action text for this observation; `None` when the agent stops
    /// (a script ran out, a plan is exhausted). The runner ends the episode
    /// there, neither terminated nor truncated.
    fn act(&mut self, observation: &Observation) -> Option<String>;
    /// The episode ended; here is its record.
    fn finish(&mut self, _trajectory: &Trajectory) {}
}

/// Which agent a command line asked for: `oracle`, `random[:SEED]` or
/// `script:FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSpec {
    Oracle,
    Random { seed: u64 },
    Script { path: String },
}

/// An agent name that is none of the known forms.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AgentSpecError {
    #[error("unknown agent \"{found}\": expected oracle, random, random:SEED or script:FILE")]
    Unknown { found: String },
    #[error("the seed \"{found}\" of random:SEED is not a whole number")]
    BadSeed { found: String },
    #[error("script: needs a file, as in script:moves.txt")]
    NoScript,
}

impl AgentSpec {
    /// Reads `oracle`, `random`, `random:SEED` or `script:FILE`.
    ///
    /// ```
    /// use knoblab::agents::AgentSpec;
    /// assert_eq!(AgentSpec::parse("random:7"), Ok(AgentSpec::Random { seed: 7 }));
    /// assert!(AgentSpec::parse("human").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<AgentSpec, AgentSpecError> {
        let text = text.trim();
        let (head, rest) = match text.split_once(':') {
            Some((h, r)) => (h, Some(r)),
            None => (text, None),
        };
        match (head.to_ascii_lowercase().as_str(), rest) {
            ("oracle", None) => Ok(AgentSpec::Oracle),
            ("random", None) => Ok(AgentSpec::Random { seed: 0 }),
            ("random", Some(s)) => s
                .trim()
                .parse()
                .map(|seed| AgentSpec::Random { seed })
                .map_err(|_| AgentSpecError::BadSeed {
                    found: s.to_string(),
                }),
            ("script", Some(p)) if !p.trim().is_empty() => Ok(AgentSpec::Script {
                path: p.trim().to_string(),
            }),
            ("script", _) => Err(AgentSpecError::NoScript),
            _ => Err(AgentSpecError::Unknown {
                found: text.to_string(),
            }),
        }
    }
}
