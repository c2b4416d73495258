//! # knoblab-eval
//!
//! ## Overview
//!
//! Episodes played by agents: the [`agents::Agent`] interface and the
//! agents that need no model, talking to vision-language models without a
//! transport (the sans-IO episode driver says what to send; the page and
//! the native runner carry the bytes), and the player's core. Built on
//! `knoblab-core`; compiles natively and for wasm32.
//!
//! ## Source code layout
//!
//! - [`agents`]: the [`agents::Agent`] interface and the agents that need
//!   no model: oracle, random, scripted.
//! - [`vlm`]: prompts, reply parsing, request and response types, the
//!   episode driver, batches and their records.
//! - [`play`]: the player's core: an owning session, the action bar, the
//!   optimal path, share links, human-baseline runs.
//!
//! ## Words that mean one thing
//!
//! - **agent**: whatever plays an episode, through [`agents::Agent`]: the
//!   oracle, the random agent, a script, the model agent
//!   ([`vlm::ModelAgent`]), recorded answers ([`vlm::RecordedAgent`]).
//! - **replay**: the agent that plays a model's recorded answers back from a
//!   trajectory file (`--agent replay:FILE`, the source [`vlm::Source::Replay`]).
//! - **session**: the player's episode that owns its bundle ([`play::Session`]).

pub mod agents;
pub mod play;
pub mod vlm;

#[cfg(test)]
pub(crate) mod fixtures;
