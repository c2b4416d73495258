//! `knoblab._knoblab`: the native half of the `knoblab` Python package.
//!
//! A thin adapter in the manner of the page's edge: every function calls
//! the core and hands back Python values. No rule of a spec lives here.
//! By subject:
//!
//! - [`env`]: a device's episodes for `knoblab.KnobLabEnv`; each step
//!   crosses as Python values built here ([`observe`]: dicts, `numpy`
//!   arrays, numbers), never as JSON text.
//! - [`library`]: the shipped library (embedded), a library at a path,
//!   opening a device by id or path.
//! - [`scoring`] and [`metrics`]: the documents `knoblab score … --json`
//!   and `knoblab metrics --json` print, as their JSON text (read once per
//!   call by the Python half, so a dict from Python is exactly the
//!   document the CLI prints).
//! - [`evaluate`]: the core's runner behind `knoblab eval`.
//! - [`leaderboard`]: `knoblab leaderboard --json`.
//! - [`errors`]: the core's typed errors as the classes of
//!   `knoblab.errors` (by type, never by message).

use pyo3::prelude::*;

mod env;
mod errors;
mod evaluate;
mod leaderboard;
mod library;
mod metrics;
mod observe;
mod scoring;

/// A value as JSON text (documents, listings: once per call, not per step).
pub(crate) fn json_text<T: serde::Serialize>(value: &T) -> PyResult<String> {
    Ok(serde_json::to_string(value).map_err(|e| errors::other(e.to_string()))?)
}

#[pymodule]
fn _knoblab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<env::Episode>()?;
    m.add_function(wrap_pyfunction!(env::page_picture, m)?)?;
    m.add_function(wrap_pyfunction!(scoring::score_epic, m)?)?;
    m.add_function(wrap_pyfunction!(scoring::score_finestate, m)?)?;
    m.add_function(wrap_pyfunction!(scoring::score_switch, m)?)?;
    m.add_function(wrap_pyfunction!(metrics::metrics_json, m)?)?;
    m.add_function(wrap_pyfunction!(library::library_json, m)?)?;
    m.add_function(wrap_pyfunction!(library::shipped_device_ids, m)?)?;
    m.add_function(wrap_pyfunction!(library::library_version_json, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::prepare_run, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::run_eval, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate::run_options_json, m)?)?;
    leaderboard::register(m)?;
    m.add("TEXT_CHARSET", observe::TEXT_CHARSET)?;
    m.add("MAX_TEXT_CHARS", observe::MAX_TEXT_CHARS)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
