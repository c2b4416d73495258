//! The VGEBench metrics of trajectory files: `knoblab metrics --json`.

use std::path::{Path, PathBuf};

use pyo3::prelude::*;

use knoblab_app::documents;

use crate::errors::{self, Kind};
use crate::json_text;

/// `knoblab metrics --json`: the document JSON.
#[pyfunction]
pub(crate) fn metrics_json(
    py: Python<'_>,
    trajectories: Vec<PathBuf>,
    bundles: PathBuf,
) -> PyResult<String> {
    let runs = py
        .allow_threads(|| documents::metrics::metrics(&trajectories, &bundles))
        .map_err(|e| {
            let mut inputs: Vec<(Kind, &Path)> = trajectories
                .iter()
                .map(|p| (Kind::Results, p.as_path()))
                .collect();
            inputs.push((Kind::Bundle, bundles.as_path()));
            errors::document_at(e, &inputs)
        })?;
    let doc = runs.to_json().map_err(|e| errors::other(e.to_string()))?;
    json_text(&doc)
}
