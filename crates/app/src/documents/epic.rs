//! `knoblab score epic`'s document: EPIC-Bench predictions against the
//! RLE ground truth under a folder.

use std::path::Path;

use serde_json::Value;

use knoblab_score::epic::coords::ModeRequest;
use knoblab_score::epic::render::{to_json, to_text, write_json_with_input};
use knoblab_score::epic::report::score_text_with;
use knoblab_score::epic::{DirSource, Report, RunOptions};

use super::{read_text_bounded, DocumentError};
use knoblab_core::input::text::escape_controls;

/// A scored predictions file.
#[derive(Debug, Clone)]
pub struct EpicRun {
    /// The official scorer's report of the file.
    pub report: Report,
    /// The predictions path, as the document names it.
    pub pred: String,
    /// What a person should know but which does not stop scoring (ground
    /// truth found for only some samples; lines skipped, samples repeated
    /// and ground-truth paths refused, issue #23).
    pub warnings: Vec<String>,
    /// The document's `input` entry: the skipped lines, the repeated
    /// samples, the refused ground-truth paths and how many GT files were
    /// read (nothing dropped silently).
    pub input: Value,
}

impl EpicRun {
    /// The `--json` document.
    pub fn to_json(&self) -> Value {
        let mut doc = to_json(&self.report, &self.pred);
        if let Value::Object(m) = &mut doc {
            m.insert("input".into(), self.input.clone());
        }
        doc
    }

    /// The `--json` document, streamed sample by sample into `out`: it is
    /// never built in memory.
    pub fn write_json<W: std::io::Write>(&self, out: W) -> serde_json::Result<()> {
        write_json_with_input(&self.report, &self.pred, Some(&self.input), out)
    }

    /// The tables for people.
    pub fn to_text(&self) -> String {
        to_text(&self.report)
    }
}

/// Scores `pred` (raw outputs, std_format JSONL or an official score file)
/// against the ground truth under `gt`. `family` defaults to the name of
/// the predictions file's folder, as the official batch runner reads it.
/// `details` keeps each sample's `metric_details` (the per-rule evidence);
/// the printed document and tables carry none, so a printer passes `false`
/// and each sample's details are dropped as soon as it is scored.
pub fn score(
    gt: &Path,
    pred: &Path,
    coord_mode: Option<&str>,
    family: Option<&str>,
    details: bool,
) -> Result<EpicRun, DocumentError> {
    // Parsed once, by the core, which names the valid modes.
    let coord_mode = coord_mode
        .map(str::parse::<ModeRequest>)
        .transpose()
        .map_err(|e| DocumentError::Options(format!("--coord-mode {e}")))?;
    let text = read_text_bounded(pred).map_err(|e| DocumentError::Results(e.to_string()))?;
    let folder = pred
        .parent()
        .and_then(|p| p.file_name())
        .map(|f| f.to_string_lossy().into_owned());
    let family = RunOptions::family_of(family, folder.as_deref());
    let opts = RunOptions { coord_mode, family };
    if !gt.is_dir() {
        return Err(DocumentError::GroundTruth(format!(
            "--gt {}: not a folder; give the folder that holds EPIC_Bench/ (or the dataset folder above it)",
            gt.display()
        )));
    }
    let source = DirSource::locate(gt);
    let report = score_text_with(&text, &source, &opts, details)
        .map_err(|e| DocumentError::Results(format!("{}: {e}", pred.display())))?;
    if report.gt_expected > 0 && report.gt_found == 0 {
        return Err(DocumentError::GroundTruth(format!(
            "no ground truth found under {}: {}. Give the folder that holds EPIC_Bench/",
            gt.display(),
            report.gt_coverage_message()
        )));
    }
    let mut warnings = Vec::new();
    if report.gt_found < report.gt_expected {
        warnings.push(report.gt_coverage_message());
    }
    // Nothing dropped silently (issue #23): skipped lines, repeated samples
    // and refused GT paths, in the warnings and the document.
    let shown = escape_controls(&pred.display().to_string()).into_owned();
    let intake = knoblab_score::epic::intake::intake(&text);
    warnings.extend(
        intake
            .warnings()
            .into_iter()
            .map(|w| format!("{shown}: {w}")),
    );
    let refused = source.refused();
    if !refused.is_empty() {
        warnings.push(format!(
            "{} ground-truth path(s) refused and read as missing: {}",
            refused.len(),
            refused.join("; ")
        ));
    }
    let input = serde_json::json!({
        "skipped_lines": intake.skipped,
        "duplicates": intake.duplicates,
        "lines_are_array_items": intake.array,
        "gt_refused": refused,
        "gt_files_read": source.files_read(),
    });
    Ok(EpicRun {
        report,
        pred: pred.display().to_string(),
        warnings,
        input,
    })
}
