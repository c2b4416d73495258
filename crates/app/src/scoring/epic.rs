//! EPIC-Bench: a predictions file's text and its ground truth (a folder on
//! disk or the page's dropped files) in, the official report out, with
//! what was not used.

use knoblab_core::input::unused::{Unused, UnusedKind};
use knoblab_score::epic::intake::{intake, Intake};
use knoblab_score::epic::report::{score_text_with, EpicError};
use knoblab_score::epic::scorer::Quirk;
use knoblab_score::epic::{GroundTruthSource, Report, RunOptions};

use super::ScoreError;

/// A scored EPIC-Bench predictions file.
#[derive(Debug, Clone)]
pub struct EpicScored {
    /// The official scorer's report.
    pub report: Report,
    /// The predictions file, as given.
    pub pred: String,
    /// What a person should know but which does not stop scoring (ground
    /// truth found for only some samples; each kind of unused line, summed up).
    pub warnings: Vec<String>,
    /// Every line skipped, sample repeated and ground-truth path refused.
    pub unused: Vec<Unused>,
    /// The intake of the file (lines skipped, samples repeated).
    pub intake: Option<Intake>,
    /// The ground-truth paths refused, once per message.
    pub gt_refused: Vec<String>,
    /// How many ground-truth files were read, where the source counts them.
    pub gt_files_read: Option<usize>,
}

/// Scores the predictions `text` of file `pred` against `gt`. `details`
/// keeps each sample's `metric_details` (a printer passes `false`, and
/// each sample's are dropped once it is scored).
pub fn score(
    pred: &str,
    text: &str,
    gt: &dyn GroundTruthSource,
    options: &RunOptions,
    details: bool,
) -> Result<EpicScored, ScoreError> {
    let report = score_text_with(text, gt, options, details);
    let read = intake(text);
    let unused = intake_unused(pred, &read);
    let mut scored = checked(pred, report, unused, read.warnings(), gt.refused())?;
    scored.intake = Some(read);
    scored.gt_files_read = gt.files_read();
    Ok(scored)
}

/// The rules every EPIC-Bench report passes, whether scored whole
/// ([`score`]) or merged from the page's workers' shards: a run whose
/// ground truth was found for no sample is refused; one found for only
/// some is scored with a warning; the intake's unused lines and the
/// refused ground-truth paths are named.
pub fn checked(
    pred: &str,
    report: Result<Report, EpicError>,
    mut unused: Vec<Unused>,
    intake_warnings: Vec<String>,
    gt_refused: Vec<String>,
) -> Result<EpicScored, ScoreError> {
    let report = report.map_err(|problem| ScoreError::Epic {
        path: pred.to_string(),
        problem,
    })?;
    if report.gt_expected > 0 && report.gt_found == 0 {
        return Err(ScoreError::NoEpicGroundTruth {
            path: pred.to_string(),
            coverage: report.gt_coverage_message(),
            root: None,
        });
    }
    let mut warnings = Vec::new();
    if report.gt_found < report.gt_expected {
        warnings.push(report.gt_coverage_message());
    }
    let shown = knoblab_core::input::text::escape_controls(pred).into_owned();
    warnings.extend(intake_warnings.into_iter().map(|w| format!("{shown}: {w}")));
    if !gt_refused.is_empty() {
        warnings.push(format!(
            "{} ground-truth path(s) refused and read as missing: {}",
            gt_refused.len(),
            gt_refused.join("; ")
        ));
    }
    // Samples whose ground truth lacks the mask their task reads.
    for sample in &report.official.samples {
        let missing = sample.quirks.iter().find_map(|q| match q {
            Quirk::GtMaskMissing(mask) => Some(*mask),
            _ => None,
        });
        if let Some(mask) = missing {
            let gt = sample.gt_path.clone().unwrap_or_default();
            unused.push(
                Unused::new(
                    pred,
                    UnusedKind::Missing,
                    format!(
                        "sample {}: its ground truth holds no {mask} (no mask_annotation, no such mask, or an empty list); scored as the official code scores it, the GT counted as empty",
                        sample.index + 1
                    ),
                )
                .named(gt),
            );
        }
    }
    unused.extend(
        gt_refused
            .iter()
            .map(|why| Unused::new(pred, UnusedKind::Refused, format!("ground truth: {why}"))),
    );
    Ok(EpicScored {
        report,
        pred: pred.to_string(),
        warnings,
        unused,
        intake: None,
        gt_refused,
        gt_files_read: None,
    })
}

/// The intake's skipped lines and repeated samples, each at its line.
pub fn intake_unused(pred: &str, intake: &Intake) -> Vec<Unused> {
    let unit = if intake.array { "item" } else { "line" };
    let skipped = intake.skipped.iter().map(|s| {
        Unused::new(
            pred,
            UnusedKind::Skipped,
            format!(
                "{} (not scored, not counted, as the official reader skips it)",
                s.reason
            ),
        )
        .at(s.line)
    });
    let repeated = intake.duplicates.iter().map(|d| {
        Unused::new(
            pred,
            UnusedKind::Duplicate,
            format!(
                "repeats the sample of {unit} {}; scored again and counted twice, as the official code does",
                d.first
            ),
        )
        .at(d.line)
    });
    skipped.chain(repeated).collect()
}
