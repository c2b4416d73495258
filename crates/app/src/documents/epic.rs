//! `knoblab score epic`'s document: EPIC-Bench predictions against the
//! RLE ground truth under a folder, scored by [`crate::scoring::epic`].

use std::path::Path;

use serde_json::Value;

use knoblab_score::epic::coords::ModeRequest;
use knoblab_score::epic::render::{to_json, to_text, write_json_with};
use knoblab_score::epic::{DirSource, RunOptions};

use super::read_text_bounded;
use crate::scoring::epic::EpicScored;
use crate::scoring::{unused_json, InputKind, ScoreError};

/// A scored predictions file, with the document's `input` entry.
#[derive(Debug, Clone)]
pub struct EpicRun {
    /// The scored file: the report, its warnings and what was not used.
    pub scored: EpicScored,
    /// The document's `input` entry: the skipped lines, the repeated
    /// samples, the refused ground-truth paths and how many GT files were
    /// read (nothing dropped silently).
    pub input: Value,
    /// The document's `unused` entry: the same, item by item, as every
    /// scorer's document lists them.
    pub unused: Value,
}

impl EpicRun {
    /// The `--json` document.
    pub fn to_json(&self) -> Value {
        let mut doc = to_json(&self.scored.report, &self.scored.pred);
        if let Value::Object(m) = &mut doc {
            m.insert("input".into(), self.input.clone());
            m.insert("unused".into(), self.unused.clone());
        }
        doc
    }

    /// The `--json` document, streamed sample by sample into `out`: it is
    /// never built in memory.
    pub fn write_json<W: std::io::Write>(&self, out: W) -> serde_json::Result<()> {
        write_json_with(
            &self.scored.report,
            &self.scored.pred,
            &[("input", &self.input), ("unused", &self.unused)],
            out,
        )
    }

    /// The tables for people.
    pub fn to_text(&self) -> String {
        to_text(&self.scored.report)
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
) -> Result<EpicRun, ScoreError> {
    // Parsed once, by the core, which names the valid modes.
    let coord_mode = coord_mode
        .map(str::parse::<ModeRequest>)
        .transpose()
        .map_err(ScoreError::CoordMode)?;
    let text = read_text_bounded(pred, InputKind::Results)?;
    let folder = pred
        .parent()
        .and_then(|p| p.file_name())
        .map(|f| f.to_string_lossy().into_owned());
    let family = RunOptions::family_of(family, folder.as_deref());
    let opts = RunOptions { coord_mode, family };
    if !gt.is_dir() {
        return Err(ScoreError::EpicRoot(gt.display().to_string()));
    }
    let source = DirSource::locate(gt);
    let name = pred.display().to_string();
    let scored = crate::scoring::epic::score(&name, &text, &source, &opts, details).map_err(
        |e| match e {
            ScoreError::NoEpicGroundTruth { path, coverage, .. } => ScoreError::NoEpicGroundTruth {
                path,
                coverage,
                root: Some(super::shown(gt)),
            },
            other => other,
        },
    )?;
    let input = serde_json::json!({
        "skipped_lines": scored.intake.as_ref().map(|i| &i.skipped),
        "duplicates": scored.intake.as_ref().map(|i| &i.duplicates),
        "lines_are_array_items": scored.intake.as_ref().map(|i| i.array),
        "gt_refused": scored.gt_refused,
        "gt_files_read": scored.gt_files_read,
    });
    let unused = unused_json(&scored.unused);
    Ok(EpicRun {
        scored,
        input,
        unused,
    })
}
