//! # KnobLab
//!
//! ## Overview
//!
//! KnobLab operates simulated household devices the way the VGEBench benchmark
//! does, runs vision-language models on them, and scores the result files of
//! grounding benchmarks (EPIC-Bench, FineState-Bench, SWITCH). This crate is the
//! core that both faces share: natively it backs the `knoblab` CLI, tests and
//! benchmarks; compiled to WebAssembly it backs the Leptos page.
//!
//! ## Source code layout
//!
//! - [`geom`]: points, boxes, the 0–1000 scale.
//! - [`input`]: the one input layer every reader uses: regular files only,
//!   paths kept under their root, one text decoding rule, duplicate JSON
//!   keys refused, the bounded zip reader, every cap in one place.
//! - [`bundle`]: device bundles: load (folder, zip, single JSON), validate,
//!   UCSM → SSM derivation, logic hash.
//! - [`sim`]: one episode: action text parser, matching, outcomes and feedback,
//!   budgets, planner (C_opt), trajectory recording.
//! - [`metrics`]: VGEBench metrics from trajectories, error taxonomy.
//! - [`agents`]: the [`agents::Agent`] interface and the agents that need no
//!   model: oracle, random, scripted.
//! - [`play`]: the player's core: an owning session, the action bar, the
//!   optimal path, share links, human-baseline runs.
//! - [`vlm`]: talking to models: prompts, reply parsing, request and response
//!   types (pure; the transport lives at the edge).
//! - [`score`]: benchmark scorers (`epic`, `finestate`, `switch`) and their
//!   shared pieces.
//! - `documents` (native only): the documents `knoblab … --json` prints, computed from
//!   paths (the CLI and the Python bindings call them).
//! - [`display`]: how tables for people show numbers ("–" when undefined).
//! - `ui` (wasm32 only): the Leptos app.
//! - `cli` (native only, feature `cli`, on by default): the `knoblab` command line.
//! - `devicegen` (feature `generate`, natively and on wasm32; `cli` implies
//!   it): the device library generator, which also makes a generated
//!   device when it is opened.
//! - `eval` (native only): the native runner: a run's episodes on threads
//!   with an HTTP client, resumable, behind `knoblab eval`.
//!
//! ## Words that mean one thing
//!
//! - **agent**: whatever plays an episode, through [`agents::Agent`]: the
//!   oracle, the random agent, a script, the model agent
//!   ([`vlm::ModelAgent`]), recorded answers ([`vlm::RecordedAgent`]). The
//!   Agent page (`#/agent`) and `knoblab eval --agent` choose one.
//! - **replay**: the agent that plays a model's recorded answers back from a
//!   trajectory file (`--agent replay:FILE`, the source [`vlm::Source::Replay`]).
//! - **recheck**: running a trajectory's actions again on its bundle to check
//!   that it reproduces ([`sim::recheck()`]).
//! - **session**: the player's episode that owns its bundle ([`play::Session`]).
//! - **job**: one scoring of dropped files ([`score::job`]).
//!
//! The core has no web dependency. The UI and the CLI call it and present what
//! it returns; no rule of a spec is written twice.

pub mod agents;
pub mod bundle;
pub mod display;
#[cfg(not(target_arch = "wasm32"))]
pub mod documents;
pub mod geom;
pub mod heap;
pub mod input;
pub mod metrics;
pub mod play;
pub mod score;
pub mod sim;
pub mod vlm;

#[cfg(all(not(target_arch = "wasm32"), feature = "cli"))]
pub mod cli;
#[cfg(feature = "generate")]
pub mod devicegen;
#[cfg(not(target_arch = "wasm32"))]
pub mod eval;
// The page makes generated devices in the browser, so its UI needs the
// generator; the core alone builds for wasm32 without it.
#[cfg(all(target_arch = "wasm32", feature = "generate"))]
pub mod ui;
