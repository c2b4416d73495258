//! FineState-Bench scoring (`specs/finestate.md`), with the official rules of
//! `specs/finestate-official.md`.
//!
//! ## Overview
//!
//! Each instance has two queries, LOCATE (point p0) and INTERACT (point p1).
//! Four rates follow per platform: SR@Loc, SR@Int, ES-SR@Loc, ES-SR@Int
//! (`locate_success_rate`, `interaction_success_rate`,
//! `state_awareness_rate_locate`, `state_awareness_rate_interaction`).
//! Two modes are always computed:
//!
//! - **Official** reproduces the released code exactly, quirks included
//!   (ES-SR@Int equals SR@Int; minus signs dropped; out-of-range decimals
//!   divided by 1024; unit rules keyed on the model name).
//! - **Corrected** reads the point the model clearly gave in a convention the
//!   user chooses and conditions the ES rates on SR (see [`corrected`]).
//!
//! ```
//! use knoblab_score::finestate::{
//!     files::MemFiles, loader::{load_dataset, ImagePolicy}, predictions::read_predictions,
//!     report::{score, ScoreOptions}, evaluate::OfficialOptions, parser::ParserBuild,
//! };
//! let record = serde_json::json!({
//!     "image": "web_en/x.png",
//!     "component": {"type": "slider", "instructions": {"locate": "find it", "interact": "set it"}},
//!     "processing_details": {"bbox": [0.1, 0.2, 0.5, 0.3], "now_coords": [0.2, 0.22, 0.25, 0.28],
//!                            "target_coords": [0.4, 0.22, 0.45, 0.28]},
//! });
//! let mut files = MemFiles::new();
//! files.insert("web_en/a.jsonl", record.to_string().into_bytes());
//! files.insert("web_en/x.png", vec![]);
//! let data = load_dataset(&files, ImagePolicy::Check);
//! let preds = read_predictions("p.jsonl", br#"{"platform": "web", "image": "x", "locate": "[0.225, 0.25]", "interact": "(0.42, 0.25)"}"#).unwrap();
//! let options = ScoreOptions {
//!     official: OfficialOptions { model: Some("google/gemini-2.5-flash".into()), parser: ParserBuild::Py, vda: false },
//!     convention: Default::default(),
//! };
//! let report = score(&data, &preds, &options);
//! let web = report.platforms[0].official.official();
//! assert_eq!((web.locate_success_rate, web.state_awareness_rate_interaction), (1.0, 1.0));
//! ```
//!
//! ## Source code layout
//!
//! - [`files`]: the file set the loaders read (memory, zip, or disk).
//! - [`python`]: the bits of Python semantics the official code relies on.
//! - [`loader`]: dataset types, the web/mobile loader and the skip rules.
//! - [`desktop`]: the desktop loader (raw schema, four family folders).
//! - [`parser`]: the official reply parser, `py` and `pyc` builds.
//! - [`prompt`]: the official prompt and VDA hint (whose failure drops queries).
//! - [`boxes`]: the official point-in-box test.
//! - [`evaluate`]: one query, the official way.
//! - [`metrics`]: tallies and the four rates.
//! - [`corrected`]: the corrected parser and scoring.
//! - [`predictions`]: reading results files and JSON Lines predictions.
//! - [`report`]: matching, both modes, breakdowns, mean, VDA delta, JSON.
//! - [`json`]: the report as one JSON document.
//! - [`table`]: the report as text tables.
//! - [`synthetic`]: a deterministic synthetic 2,209-instance set.
//!
//! The browser page calls [`files::MemFiles`] → [`loader::load_dataset`],
//! [`predictions::read_predictions`], [`report::score`] and
//! [`report::Report::to_json`]; the CLI does the same over
//! [`files::DiskFiles`].

pub mod boxes;
pub mod corrected;
pub mod dataset;
pub mod desktop;
pub mod evaluate;
pub mod files;
pub mod json;
pub mod loader;
pub mod metrics;
pub mod parser;
pub mod predictions;
pub mod prompt;
pub mod python;
pub mod report;
pub mod synthetic;
pub mod table;
