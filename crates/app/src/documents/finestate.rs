//! `knoblab score finestate`'s document: FineState-Bench results, official
//! and corrected side by side, from an annotation root (a folder, a zip or
//! one annotation JSONL) and a results file or folder.

use std::path::{Path, PathBuf};

use serde_json::Value;

use knoblab_score::finestate::corrected::Convention;
use knoblab_score::finestate::evaluate::OfficialOptions;
use knoblab_score::finestate::files::{DiskFiles, MemFiles};
use knoblab_score::finestate::loader::{
    load_annotation_jsonl, load_dataset, load_platform, Dataset, ImagePolicy, Platform,
};
use knoblab_score::finestate::parser::ParserBuild;
use knoblab_score::finestate::predictions::{read_predictions, read_result_files, PredictionSet};
use knoblab_score::finestate::report::{
    score as score_report, vda_delta, Report, ScoreOptions, VdaDelta,
};
use knoblab_score::finestate::table;

use super::{read_bounded, DocumentError};

/// The options of `knoblab score finestate` (its flags, with their defaults).
#[derive(Debug, Clone)]
pub struct FinestateOptions {
    /// The model name (the official parser keys unit rules on it).
    pub model: String,
    /// `py` or `pyc`: which build of the official parser.
    pub parser: String,
    /// The run was made with the VDA hint.
    pub vda: bool,
    /// A second run of the same model made with the VDA hint.
    pub vda_pred: Option<PathBuf>,
    /// Corrected mode's convention: `unit`, `permille` or `pixels:WxH`.
    pub convention: String,
    /// The platform of a single annotation JSONL.
    pub platform: Option<String>,
    /// Take every image as present.
    pub assume_images: bool,
}

impl FinestateOptions {
    /// The defaults of the command line, for this model.
    pub fn new(model: &str) -> FinestateOptions {
        FinestateOptions {
            model: model.to_string(),
            parser: "py".to_string(),
            vda: false,
            vda_pred: None,
            convention: "unit".to_string(),
            platform: None,
            assume_images: false,
        }
    }
}

/// A scored results file (and its VDA delta, with `vda_pred`).
#[derive(Debug, Clone)]
pub struct FinestateRun {
    /// The benchmark's report of the file, as the official code computes it.
    pub report: Report,
    /// How the VDA run's numbers differ from the plain run's (with `vda_pred`).
    pub delta: Option<VdaDelta>,
    /// What a person should know but which does not stop scoring.
    pub warnings: Vec<String>,
}

impl FinestateRun {
    /// The `--json` document.
    pub fn to_json(&self) -> Value {
        self.report.to_json(self.delta.as_ref())
    }

    /// The tables for people.
    pub fn to_text(&self) -> String {
        table::render(&self.report, self.delta.as_ref())
    }
}

/// Scores `pred` against the annotations at `gt`.
pub fn score(
    gt: &Path,
    pred: &Path,
    options: &FinestateOptions,
) -> Result<FinestateRun, DocumentError> {
    let parser: ParserBuild = options.parser.parse().map_err(DocumentError::Options)?;
    let convention: Convention = options.convention.parse().map_err(DocumentError::Options)?;
    let data = load_gt(gt, options)?;
    if data.instances.is_empty() {
        return Err(DocumentError::GroundTruth(format!(
            "no instance loaded from {} ({} records left out; try --assume-images if the images are absent)",
            gt.display(),
            data.skipped.len()
        )));
    }
    let mut warnings = Vec::new();
    let preds = load_predictions(pred)?;
    let report = run_one(
        &data,
        &preds,
        options,
        parser,
        convention,
        options.vda,
        &mut warnings,
    );
    let delta = match &options.vda_pred {
        Some(path) => {
            let hinted_preds = load_predictions(path)?;
            let hinted = run_one(
                &data,
                &hinted_preds,
                options,
                parser,
                convention,
                true,
                &mut warnings,
            );
            Some(vda_delta(&report, &hinted))
        }
        None => None,
    };
    // What the scores leave out (instances without a prediction, second
    // predictions, unscored ones: issue #23), as the page shows them.
    warnings.extend(report.gap_notes());
    Ok(FinestateRun {
        report,
        delta,
        warnings,
    })
}

fn load_gt(gt: &Path, options: &FinestateOptions) -> Result<Dataset, DocumentError> {
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
    let bytes = read_bounded(gt).map_err(|e| DocumentError::GroundTruth(e.to_string()))?;
    if gt
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
    {
        let files = MemFiles::from_zip(&bytes)
            .map_err(|e| DocumentError::GroundTruth(format!("{}: {e}", gt.display())))?;
        return Ok(load_dataset(&files, policy));
    }
    let platform = match &options.platform {
        Some(p) => Platform::parse(p)
            .ok_or_else(|| DocumentError::Options(format!("unknown platform `{p}`")))?,
        None => {
            let name = gt.to_string_lossy().to_lowercase();
            Platform::ALL
                .into_iter()
                .find(|p| name.contains(p.name()))
                .ok_or_else(|| {
                    DocumentError::Options(format!(
                        "cannot tell the platform of {}; pass --platform",
                        gt.display()
                    ))
                })?
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

fn load_predictions(path: &Path) -> Result<PredictionSet, DocumentError> {
    let results_error = DocumentError::Results;
    if path.is_dir() {
        let mut results = Vec::new();
        let mut lists = Vec::new();
        let entries = std::fs::read_dir(path)
            .map_err(|e| results_error(format!("reading {}: {e}", path.display())))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| results_error(format!("reading {}: {e}", path.display())))?;
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with("result_") && name.ends_with(".json") {
                let bytes =
                    read_bounded(&entry.path()).map_err(|e| results_error(e.to_string()))?;
                results.push((name, bytes));
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
        return Err(results_error(format!(
            "{} holds no result_<i>.json files",
            path.display()
        )));
    }
    let bytes = read_bounded(path).map_err(|e| results_error(e.to_string()))?;
    read_predictions(&path.to_string_lossy(), &bytes).map_err(|e| results_error(e.to_string()))
}

fn run_one(
    data: &Dataset,
    preds: &PredictionSet,
    options: &FinestateOptions,
    parser: ParserBuild,
    convention: Convention,
    vda_flag: bool,
    warnings: &mut Vec<String>,
) -> Report {
    let (vda, warning) = preds.vda(vda_flag);
    warnings.extend(warning);
    let options = ScoreOptions {
        official: OfficialOptions {
            model: Some(options.model.clone()),
            parser,
            vda,
        },
        convention,
    };
    score_report(data, preds, &options)
}
