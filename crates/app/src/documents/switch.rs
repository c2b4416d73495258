//! `knoblab score switch`'s document: SWITCH predictions against the
//! dataset (or the public release's tree), and, with `video`,
//! generated-video judge outputs.

use std::path::{Path, PathBuf};

use serde_json::Value;

use knoblab_score::switch::report::ModelAccess;
use knoblab_score::switch::{
    self, predictions, GroundTruth, LoadOptions, ReportOptions, SwitchReport,
};

use super::{read_nonempty_bounded, DocumentError};

/// What `knoblab score switch` takes besides the three files, as text the
/// way a command line or a keyword argument gives it. Every field may be
/// left out.
#[derive(Debug, Clone, Default)]
pub struct SwitchOptions {
    /// Answers published apart from the release rows, joined by id.
    pub answers: Vec<PathBuf>,
    /// `SPLIT=PATH_FRAGMENT`: the items of ground-truth files whose path
    /// contains the fragment are in the split (`open` or `held`).
    pub splits: Vec<String>,
    /// Count task families outside the eight in Overall.
    pub include_extra_families: bool,
    /// The model's name (default: the predictions', else the file's name).
    pub model_name: Option<String>,
    /// `open_weight` or `closed_api` (default: the predictions').
    pub model_access: Option<String>,
    /// Who submits, for the leaderboard submission row.
    pub submitted_by: Option<String>,
    /// The submission's time (RFC 3339); none leaves it null.
    pub submission_time: Option<String>,
    /// Human ratings of the generated videos, for Table 3's human column.
    pub video_human: Option<PathBuf>,
}

/// Scores `pred` against `gt` (both, or neither) and `video` (optional);
/// at least one of the two must be given.
pub fn score(
    gt: Option<&Path>,
    pred: Option<&Path>,
    video: Option<&Path>,
    options: &SwitchOptions,
) -> Result<SwitchReport, DocumentError> {
    let mut load = LoadOptions::default();
    for s in &options.splits {
        load.splits
            .push(LoadOptions::parse_split(s).map_err(|e| DocumentError::Options(e.to_string()))?);
    }
    for a in &options.answers {
        load.answers.push((
            a.display().to_string(),
            read_nonempty_bounded(a, "SWITCH answers (JSON or JSON Lines)")
                .map_err(|e| DocumentError::GroundTruth(e.to_string()))?,
        ));
    }
    let report_options = ReportOptions {
        include_extra_families: options.include_extra_families,
        model_name: options.model_name.clone(),
        model_access: options
            .model_access
            .as_deref()
            .map(ModelAccess::parse)
            .transpose()
            .map_err(|e| DocumentError::Options(e.to_string()))?,
        submitted_by: options.submitted_by.clone(),
        submission_time: options.submission_time.clone(),
    };
    let mut report = match (gt, pred) {
        (Some(gt), Some(pred)) => {
            let gt = GroundTruth::load_path_with(gt, &load)
                .map_err(|e| DocumentError::GroundTruth(e.to_string()))?;
            let bytes = read_nonempty_bounded(pred, "SWITCH predictions (JSON Lines)")
                .map_err(|e| DocumentError::Results(e.to_string()))?;
            let name = pred.display().to_string();
            let preds = predictions::read_predictions(&name, &bytes)
                .map_err(|e| DocumentError::Results(e.to_string()))?;
            switch::build_report_with(&gt, &name, &preds, &report_options)
                .map_err(|e| DocumentError::Results(e.to_string()))?
        }
        (None, None) if video.is_some() => SwitchReport::default(),
        _ => {
            return Err(DocumentError::Options(
                "SWITCH needs the ground truth and the predictions together (gt and pred), \
                 or the video judge outputs (video), or all three"
                    .to_string(),
            ))
        }
    };
    if let Some(video) = video {
        let bytes = read_nonempty_bounded(video, "video judge outputs (JSON Lines)")
            .map_err(|e| DocumentError::Results(e.to_string()))?;
        let human = match &options.video_human {
            Some(h) => Some((
                h.display().to_string(),
                read_nonempty_bounded(h, "human video ratings")
                    .map_err(|e| DocumentError::Results(e.to_string()))?,
            )),
            None => None,
        };
        report.video = Some(
            switch::score_videos_with(
                &video.display().to_string(),
                &bytes,
                human.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())),
            )
            .map_err(|e| DocumentError::Results(e.to_string()))?,
        );
    }
    Ok(report)
}

/// Several runs scored against one ground truth, each as [`score`] scores
/// it alone, named by its predictions file. A run's model is named in its
/// own predictions: a model name or access in `options` would name them
/// all, and video outputs go with one run; both are refused.
pub fn score_runs(
    gt: Option<&Path>,
    preds: &[std::path::PathBuf],
    video: Option<&Path>,
    options: &SwitchOptions,
) -> Result<Vec<(String, SwitchReport)>, DocumentError> {
    if options.model_name.is_some() || options.model_access.is_some() {
        return Err(DocumentError::Options(format!(
            "--model-name and --model-access name one model, but {} --pred files were given; \
             give each run's model_name and model_access in its predictions",
            preds.len()
        )));
    }
    if video.is_some() {
        return Err(DocumentError::Options(format!(
            "--video goes with one --pred, but {} were given",
            preds.len()
        )));
    }
    preds
        .iter()
        .map(|pred| {
            Ok((
                pred.display().to_string(),
                score(gt, Some(pred), None, options)?,
            ))
        })
        .collect()
}

/// The `--json` document of a report.
pub fn to_json(report: &SwitchReport) -> Result<Value, serde_json::Error> {
    serde_json::to_value(report)
}

/// The rows of several scored runs in a layout, for a leaderboard of them
/// (each run's [`layout_rows`](knoblab_score::view::switch::layout_rows),
/// named by the predictions file); list them with
/// [`grouped`](knoblab_score::view::grouped) or
/// [`runs_table`](knoblab_score::view::switch::runs_table).
pub fn runs_rows(
    runs: &[(String, SwitchReport)],
    layout: switch::Layout,
) -> Result<Vec<knoblab_score::view::LeaderRow>, serde_json::Error> {
    let mut rows = Vec::new();
    for (file, report) in runs {
        let doc = to_json(report)?;
        rows.extend(knoblab_score::view::switch::layout_rows(
            file, report, &doc, layout,
        ));
    }
    Ok(rows)
}
