//! `knoblab score finestate`'s document: FineState-Bench results, official
//! and corrected side by side, from an annotation root (a folder, a zip or
//! one annotation JSONL) and a results file or folder, scored by
//! [`crate::scoring::finestate`].

use std::path::Path;

use knoblab_score::finestate::files::{DiskFiles, MemFiles};
use knoblab_score::finestate::loader::{
    load_annotation_jsonl, load_dataset, load_platform, Dataset, ImagePolicy, Platform,
};
use knoblab_score::finestate::predictions::{read_predictions, read_result_files, PredictionSet};

use super::{read_input, shown};
pub use crate::scoring::finestate::{FinestateOptions, FinestateRun};
use crate::scoring::{InputKind, ScoreError};

/// Scores `pred` against the annotations at `gt`, and a run made with the
/// VDA hint (`vda_pred`) beside it when given.
pub fn score(
    gt: &Path,
    pred: &Path,
    vda_pred: Option<&Path>,
    options: &FinestateOptions,
) -> Result<FinestateRun, ScoreError> {
    // The options are read before any file is.
    crate::scoring::finestate::check_options(options)?;
    let data = load_gt(gt, options)?;
    let preds = load_predictions(pred)?;
    let hinted = vda_pred.map(load_predictions).transpose()?;
    crate::scoring::finestate::score(
        &gt.display().to_string(),
        &data,
        &preds,
        hinted.as_ref(),
        options,
    )
}

fn load_gt(gt: &Path, options: &FinestateOptions) -> Result<Dataset, ScoreError> {
    let policy = if options.assume_images {
        ImagePolicy::AssumePresent
    } else {
        ImagePolicy::Check
    };
    if gt.is_dir() {
        // A root that is itself `desktop_en/` etc. is read from its parent.
        let name = gt.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(platform) = Platform::parse(name).filter(|p| p.data_root() == name) {
            let parent = gt.parent().unwrap_or(Path::new("."));
            return Ok(load_platform(&DiskFiles::new(parent), platform, policy));
        }
        return Ok(load_dataset(&DiskFiles::new(gt), policy));
    }
    let bytes = read_input(gt, InputKind::GroundTruth)?;
    if gt
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
    {
        let files = MemFiles::from_zip(&bytes).map_err(|error| ScoreError::FineStateZip {
            path: shown(gt),
            error,
        })?;
        return Ok(load_dataset(&files, policy));
    }
    let platform = match &options.platform {
        Some(p) => Platform::parse(p).ok_or_else(|| ScoreError::Platform(p.clone()))?,
        None => {
            let name = gt.to_string_lossy().to_lowercase();
            Platform::ALL
                .into_iter()
                .find(|p| name.contains(p.name()))
                .ok_or_else(|| ScoreError::PlatformUnknown(shown(gt)))?
        }
    };
    // Image paths in the file are relative to the dataset root: the file's
    // folder's parent if the file sits in `web_en/` and the like.
    let dir = gt.parent().unwrap_or(Path::new("."));
    let root = if dir.file_name().and_then(|n| n.to_str()) == Some(platform.data_root()) {
        dir.parent().unwrap_or(Path::new("."))
    } else {
        dir
    };
    let name = gt.to_string_lossy().to_string();
    Ok(load_annotation_jsonl(
        &DiskFiles::new(root),
        platform,
        &name,
        &bytes,
        policy,
    ))
}

fn load_predictions(path: &Path) -> Result<PredictionSet, ScoreError> {
    let folder_error = |e: std::io::Error| ScoreError::Folder {
        kind: InputKind::Results,
        path: shown(path),
        error: e,
    };
    if path.is_dir() {
        let mut results = Vec::new();
        let mut lists = Vec::new();
        for entry in std::fs::read_dir(path).map_err(folder_error)? {
            let entry = entry.map_err(folder_error)?;
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with("result_") && name.ends_with(".json") {
                results.push((name, read_input(&entry.path(), InputKind::Results)?));
            } else if name.ends_with("_results.json") {
                lists.push(entry.path());
            }
        }
        if !results.is_empty() {
            return Ok(read_result_files(&results));
        }
        if let [list] = lists.as_slice() {
            return load_predictions(list);
        }
        return Err(ScoreError::NoResultFiles(shown(path)));
    }
    let bytes = read_input(path, InputKind::Results)?;
    read_predictions(&path.to_string_lossy(), &bytes)
        .map_err(|e| ScoreError::FineStatePredictions(Box::new(e)))
}
