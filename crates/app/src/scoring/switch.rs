//! SWITCH: predictions with their ground truth (loaded from disk or from
//! the page's dropped files), generated-video judge outputs, or both, in;
//! the report out, with what was not used.

use knoblab_core::input::unused::{Unused, UnusedKind};
use knoblab_score::switch::{self, predictions, GroundTruth, ReportOptions, SwitchReport};

use super::ScoreError;

/// A file's name and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// The file, as given.
    pub name: &'a str,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// What SWITCH scores: predictions against their ground truth, video
/// judge outputs (with human ratings for Table 3's human column), or both.
#[derive(Debug, Clone, Copy, Default)]
pub struct SwitchInputs<'a> {
    /// The ground truth, loaded.
    pub gt: Option<&'a GroundTruth>,
    /// The predictions file.
    pub pred: Option<Named<'a>>,
    /// The video judge outputs.
    pub video: Option<Named<'a>>,
    /// Human ratings of the generated videos.
    pub video_human: Option<Named<'a>>,
}

/// A scored SWITCH run.
#[derive(Debug, Clone)]
pub struct SwitchScored {
    /// The report.
    pub report: SwitchReport,
    /// Predictions that name no item, and items with no prediction.
    pub unused: Vec<Unused>,
}

impl AsRef<SwitchReport> for SwitchScored {
    fn as_ref(&self) -> &SwitchReport {
        &self.report
    }
}

impl SwitchScored {
    /// The `--json` document, with `unused`.
    pub fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        let mut doc = serde_json::to_value(&self.report)?;
        if let serde_json::Value::Object(m) = &mut doc {
            m.insert("unused".into(), super::unused_json(&self.unused));
        }
        Ok(doc)
    }
}

/// Scores SWITCH `inputs` with the report's `options`.
pub fn score(
    inputs: SwitchInputs<'_>,
    options: &ReportOptions,
) -> Result<SwitchScored, ScoreError> {
    let mut report = match (inputs.gt, inputs.pred) {
        (Some(gt), Some(pred)) => {
            let preds =
                predictions::read_predictions(pred.name, pred.bytes).map_err(ScoreError::Switch)?;
            switch::build_report_with(gt, pred.name, &preds, options).map_err(ScoreError::Switch)?
        }
        (None, None) if inputs.video.is_some() => SwitchReport::default(),
        _ => return Err(ScoreError::SwitchInputs),
    };
    if let Some(video) = inputs.video {
        report.video = Some(
            switch::score_videos_with(
                video.name,
                video.bytes,
                inputs.video_human.map(|h| (h.name, h.bytes)),
            )
            .map_err(ScoreError::Switch)?,
        );
    }
    let unused = match inputs.pred {
        Some(pred) => unused(pred.name, &report),
        None => Vec::new(),
    };
    Ok(SwitchScored { report, unused })
}

/// The predictions that name no item (not scored) and the items with no
/// prediction (scored 0: a partial run must not look better than it is).
fn unused(pred: &str, report: &SwitchReport) -> Vec<Unused> {
    let unmatched = report.unmatched.iter().map(|u| {
        Unused::new(
            pred,
            UnusedKind::Unmatched,
            "names no item of the ground truth; not scored",
        )
        .at(u.line)
        .named(u.key.clone())
    });
    let missing = report.missing.iter().map(|item| {
        Unused::new(
            pred,
            UnusedKind::Missing,
            "no prediction for this item of the ground truth; scored 0",
        )
        .named(item.clone())
    });
    unmatched.chain(missing).collect()
}
