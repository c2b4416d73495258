//! # knoblab-core
//!
//! ## Overview
//!
//! The lowest layer of KnobLab: what every other crate and face builds on,
//! with no web, no CLI and no I/O beyond the input layer. It compiles
//! natively and for wasm32.
//!
//! ## Source code layout
//!
//! - [`geom`]: points, boxes, the 0–1000 scale.
//! - [`input`]: the one input layer every reader uses: regular files only,
//!   paths kept under their root, one text decoding rule, duplicate JSON
//!   keys refused, the bounded zip reader, every cap in one place.
//! - [`bundle`]: device bundles: load (folder, zip, single JSON), validate,
//!   UCSM → SSM derivation, logic hash, the library index.
//! - [`sim`]: one episode: action text parser, matching, outcomes and
//!   feedback, budgets, planner (C_opt), trajectory recording.
//! - [`metrics`]: VGEBench metrics from trajectories, error taxonomy.
//! - [`display`]: how tables for people show numbers ("–" when undefined).

pub mod bundle;
pub mod display;
pub mod geom;
pub mod input;
pub mod metrics;
pub mod sim;
