//! `knoblab score switch`'s document: SWITCH predictions against the
//! dataset, and, with `video`, generated-video judge outputs.

use std::path::Path;

use serde_json::Value;

use crate::score::switch::{self, predictions, GroundTruth, SwitchReport};

use super::{read_bounded, DocumentError};

/// Scores `pred` against `gt` (both, or neither) and `video` (optional);
/// at least one of the two must be given.
pub fn score(
    gt: Option<&Path>,
    pred: Option<&Path>,
    video: Option<&Path>,
) -> Result<SwitchReport, DocumentError> {
    let mut report = match (gt, pred) {
        (Some(gt), Some(pred)) => {
            let gt = GroundTruth::load_path(gt)
                .map_err(|e| DocumentError::GroundTruth(e.to_string()))?;
            let bytes = read_bounded(pred).map_err(DocumentError::Results)?;
            let name = pred.display().to_string();
            let preds = predictions::read_predictions(&name, &bytes)
                .map_err(|e| DocumentError::Results(e.to_string()))?;
            switch::build_report(&gt, &name, &preds)
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
        let bytes = read_bounded(video).map_err(DocumentError::Results)?;
        report.video = Some(
            switch::score_videos(&video.display().to_string(), &bytes)
                .map_err(|e| DocumentError::Results(e.to_string()))?,
        );
    }
    Ok(report)
}

/// The `--json` document of a report.
pub fn to_json(report: &SwitchReport) -> Result<Value, serde_json::Error> {
    serde_json::to_value(report)
}
