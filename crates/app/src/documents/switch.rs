//! `knoblab score switch`'s document: SWITCH predictions against the
//! dataset (or the public release's tree), and, with `video`,
//! generated-video judge outputs, scored by [`crate::scoring::switch`].

use std::path::{Path, PathBuf};

use knoblab_score::switch::report::ModelAccess;
use knoblab_score::switch::{self, GroundTruth, LoadOptions, ReportOptions};

use super::read_nonempty_input;
use crate::scoring::switch::{Named, SwitchInputs, SwitchScored};
use crate::scoring::{InputKind, ScoreError};

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
) -> Result<SwitchScored, ScoreError> {
    let mut load = LoadOptions::default();
    for s in &options.splits {
        load.splits.push(LoadOptions::parse_split(s)?);
    }
    for a in &options.answers {
        load.answers.push((
            a.display().to_string(),
            read_nonempty_input(
                a,
                InputKind::GroundTruth,
                "SWITCH answers (JSON or JSON Lines)",
            )?,
        ));
    }
    let report_options = ReportOptions {
        include_extra_families: options.include_extra_families,
        model_name: options.model_name.clone(),
        model_access: options
            .model_access
            .as_deref()
            .map(ModelAccess::parse)
            .transpose()?,
        submitted_by: options.submitted_by.clone(),
        submission_time: options.submission_time.clone(),
    };
    if gt.is_some() != pred.is_some() || (gt.is_none() && video.is_none()) {
        return Err(ScoreError::SwitchInputs);
    }
    let gt = gt
        .map(|gt| GroundTruth::load_path_with(gt, &load))
        .transpose()
        .map_err(ScoreError::SwitchGroundTruthFiles)?;
    let read = |path: &Path, expected: &str| {
        read_nonempty_input(path, InputKind::Results, expected)
            .map(|bytes| (path.display().to_string(), bytes))
    };
    let pred = pred
        .map(|p| read(p, "SWITCH predictions (JSON Lines)"))
        .transpose()?;
    let video = video
        .map(|v| read(v, "video judge outputs (JSON Lines)"))
        .transpose()?;
    let human = options
        .video_human
        .as_deref()
        .map(|h| read(h, "human video ratings"))
        .transpose()?;
    fn named(f: &(String, Vec<u8>)) -> Named<'_> {
        Named {
            name: f.0.as_str(),
            bytes: f.1.as_slice(),
        }
    }
    let inputs = SwitchInputs {
        gt: gt.as_ref(),
        pred: pred.as_ref().map(named),
        video: video.as_ref().map(named),
        video_human: human.as_ref().map(named),
    };
    crate::scoring::switch::score(inputs, &report_options)
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
) -> Result<Vec<(String, SwitchScored)>, ScoreError> {
    if options.model_name.is_some() || options.model_access.is_some() {
        return Err(ScoreError::OneModelForRuns(preds.len()));
    }
    if video.is_some() {
        return Err(ScoreError::VideoForRuns(preds.len()));
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

/// The rows of several scored runs in a layout, for a leaderboard of them
/// (each run's [`layout_rows`](knoblab_score::view::switch::layout_rows),
/// named by the predictions file); list them with
/// [`grouped`](knoblab_score::view::grouped) or
/// [`runs_table`](knoblab_score::view::switch::runs_table).
pub fn runs_rows<R: AsRef<switch::SwitchReport>>(
    runs: &[(String, R)],
    layout: switch::Layout,
) -> Result<Vec<knoblab_score::view::LeaderRow>, serde_json::Error> {
    let mut rows = Vec::new();
    for (file, report) in runs {
        let report = report.as_ref();
        let doc = serde_json::to_value(report)?;
        rows.extend(knoblab_score::view::switch::layout_rows(
            file, report, &doc, layout,
        ));
    }
    Ok(rows)
}
