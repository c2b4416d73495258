//! The scorers: `knoblab score epic|finestate|switch --json`, each
//! returning the document the CLI prints (as its JSON text, read by
//! `knoblab/score.py`) and its warnings.

use std::path::PathBuf;

use pyo3::prelude::*;

use knoblab_app::documents;

use crate::errors::{self, Kind};
use crate::json_text;

/// `knoblab score epic --json`: (document JSON, warnings).
#[pyfunction]
#[pyo3(signature = (gt, pred, coord_mode=None, family=None))]
pub(crate) fn score_epic(
    py: Python<'_>,
    gt: PathBuf,
    pred: PathBuf,
    coord_mode: Option<String>,
    family: Option<String>,
) -> PyResult<(String, Vec<String>)> {
    let run = py
        .allow_threads(|| {
            documents::epic::score(&gt, &pred, coord_mode.as_deref(), family.as_deref(), false)
        })
        .map_err(|e| errors::document_at(e, &[(Kind::GroundTruth, &gt), (Kind::Results, &pred)]))?;
    // Streamed as the CLI's `--json` is: no tree of every sample in memory.
    let mut text = Vec::new();
    run.write_json(&mut text)
        .map_err(|e| errors::other(format!("EPIC-Bench document: {e}")))?;
    let text =
        String::from_utf8(text).map_err(|e| errors::other(format!("EPIC-Bench document: {e}")))?;
    Ok((text, run.scored.warnings))
}

/// `knoblab score finestate --json`: (document JSON, warnings).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (gt, pred, model, parser="py", vda=false, vda_pred=None, convention="unit", platform=None, assume_images=false))]
pub(crate) fn score_finestate(
    py: Python<'_>,
    gt: PathBuf,
    pred: PathBuf,
    model: &str,
    parser: &str,
    vda: bool,
    vda_pred: Option<PathBuf>,
    convention: &str,
    platform: Option<String>,
    assume_images: bool,
) -> PyResult<(String, Vec<String>)> {
    let mut inputs = vec![
        (Kind::GroundTruth, gt.clone()),
        (Kind::Results, pred.clone()),
    ];
    if let Some(p) = &vda_pred {
        inputs.push((Kind::Results, p.clone()));
    }
    let options = documents::finestate::FinestateOptions {
        model: model.to_string(),
        parser: parser.to_string(),
        vda,
        convention: convention.to_string(),
        platform,
        assume_images,
    };
    let run = py
        .allow_threads(|| documents::finestate::score(&gt, &pred, vda_pred.as_deref(), &options))
        .map_err(|e| {
            let inputs: Vec<(Kind, &std::path::Path)> =
                inputs.iter().map(|(k, p)| (*k, p.as_path())).collect();
            errors::document_at(e, &inputs)
        })?;
    Ok((json_text(&run.to_json())?, run.warnings))
}

/// `knoblab score switch --json`: the document JSON.
#[pyfunction]
#[pyo3(signature = (gt=None, pred=None, video=None, submission_time=None))]
pub(crate) fn score_switch(
    py: Python<'_>,
    gt: Option<PathBuf>,
    pred: Option<PathBuf>,
    video: Option<PathBuf>,
    submission_time: Option<String>,
) -> PyResult<String> {
    let options = documents::switch::SwitchOptions {
        submission_time,
        ..Default::default()
    };
    let scored = py
        .allow_threads(|| {
            documents::switch::score(gt.as_deref(), pred.as_deref(), video.as_deref(), &options)
        })
        .map_err(|e| {
            let mut inputs = Vec::new();
            if let Some(p) = &gt {
                inputs.push((Kind::GroundTruth, p.as_path()));
            }
            if let Some(p) = &pred {
                inputs.push((Kind::Results, p.as_path()));
            }
            if let Some(p) = &video {
                inputs.push((Kind::Results, p.as_path()));
            }
            errors::document_at(e, &inputs)
        })?;
    let doc = scored.to_json().map_err(|e| errors::other(e.to_string()))?;
    json_text(&doc)
}
