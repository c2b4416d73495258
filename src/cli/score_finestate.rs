//! `knoblab score finestate`: score FineState-Bench results, official and
//! corrected side by side. All logic is in `score::finestate`; this file
//! reads files and prints.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};

use crate::score::finestate::corrected::Convention;
use crate::score::finestate::evaluate::OfficialOptions;
use crate::score::finestate::files::{DiskFiles, MemFiles};
use crate::score::finestate::loader::{
    load_annotation_jsonl, load_dataset, Dataset, ImagePolicy, Platform,
};
use crate::score::finestate::parser::ParserBuild;
use crate::score::finestate::predictions::{read_predictions, read_result_files, PredictionSet};
use crate::score::finestate::report::{score, vda_delta, Report, ScoreOptions};
use crate::score::finestate::table;

use super::read::read_bounded;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The annotation root (holding desktop_en/, web_en/, mobile_en/), a zip
    /// of it, or a single annotation JSONL.
    #[arg(long)]
    pub gt: PathBuf,
    /// Official <model>_results.json, a folder of result_<i>.json, or JSON
    /// Lines of {platform, image, locate, interact} or {platform, image, p0, p1}.
    #[arg(long)]
    pub pred: PathBuf,
    /// The model name (the official parser keys unit rules on it).
    #[arg(long)]
    pub model: String,
    /// py or pyc: which build of the official parser.
    #[arg(long, default_value = "py")]
    pub parser: String,
    /// The --pred run was made with the VDA hint (a detector configured), so
    /// queries whose hint cannot be formatted drop out. Detected by itself
    /// from official result files.
    #[arg(long)]
    pub vda: bool,
    /// A second run of the same model made with the VDA hint: adds the VDA
    /// delta (this run minus --pred) to the report.
    #[arg(long)]
    pub vda_pred: Option<PathBuf>,
    /// Corrected mode's coordinate convention: unit (0-1), permille (0-1000)
    /// or pixels:WxH.
    #[arg(long, default_value = "unit")]
    pub convention: String,
    /// The platform of a single annotation JSONL given as --gt.
    #[arg(long)]
    pub platform: Option<String>,
    /// Take every image as present (when the dataset's images are not there).
    #[arg(long)]
    pub assume_images: bool,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

fn load_gt(args: &Args) -> anyhow::Result<Dataset> {
    let policy = if args.assume_images {
        ImagePolicy::AssumePresent
    } else {
        ImagePolicy::Check
    };
    let gt = &args.gt;
    if gt.is_dir() {
        // A root that is itself `desktop_en/` etc. is read from its parent.
        let name = gt.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if let Some(platform) = Platform::parse(name).filter(|p| p.data_root() == name) {
            let parent = gt.parent().unwrap_or(Path::new("."));
            let files = DiskFiles::new(parent);
            return Ok(crate::score::finestate::loader::load_platform(
                &files, platform, policy,
            ));
        }
        return Ok(load_dataset(&DiskFiles::new(gt), policy));
    }
    let bytes = read_bounded(gt)?;
    if gt
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
    {
        let files = MemFiles::from_zip(&bytes)?;
        return Ok(load_dataset(&files, policy));
    }
    let platform = match &args.platform {
        Some(p) => Platform::parse(p).with_context(|| format!("unknown platform `{p}`"))?,
        None => {
            let name = gt.to_string_lossy().to_lowercase();
            match Platform::ALL.into_iter().find(|p| name.contains(p.name())) {
                Some(p) => p,
                None => bail!(
                    "cannot tell the platform of {}; pass --platform",
                    gt.display()
                ),
            }
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

fn load_predictions(path: &Path) -> anyhow::Result<PredictionSet> {
    if path.is_dir() {
        let mut results = Vec::new();
        let mut lists = Vec::new();
        for entry in
            std::fs::read_dir(path).with_context(|| format!("reading {}", path.display()))?
        {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with("result_") && name.ends_with(".json") {
                results.push((name, read_bounded(&entry.path())?));
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
        bail!("{} holds no result_<i>.json files", path.display());
    }
    let bytes = read_bounded(path)?;
    Ok(read_predictions(&path.to_string_lossy(), &bytes)?)
}

fn run_one(
    data: &Dataset,
    preds: &PredictionSet,
    args: &Args,
    vda_flag: bool,
) -> anyhow::Result<Report> {
    let parser: ParserBuild = args.parser.parse().map_err(anyhow::Error::msg)?;
    let convention: Convention = args.convention.parse().map_err(anyhow::Error::msg)?;
    let vda = match (vda_flag, preds.hinted()) {
        (true, Some(false)) => {
            super::out::warn("warning: --vda given, but the result files show no VDA hint");
            true
        }
        (false, Some(true)) => {
            super::out::warn("the result files show the VDA hint; scoring as a VDA run");
            true
        }
        (flag, _) => flag,
    };
    let options = ScoreOptions {
        official: OfficialOptions {
            model: Some(args.model.clone()),
            parser,
            vda,
        },
        convention,
    };
    Ok(score(data, preds, &options))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let data = load_gt(&args)?;
    if data.instances.is_empty() {
        bail!(
            "no instance loaded from {} ({} records left out; try --assume-images if the images are absent)",
            args.gt.display(),
            data.skipped.len()
        );
    }
    let preds = load_predictions(&args.pred)?;
    let report = run_one(&data, &preds, &args, args.vda)?;
    let delta = match &args.vda_pred {
        Some(path) => {
            let hinted_preds = load_predictions(path)?;
            let hinted = run_one(&data, &hinted_preds, &args, true)?;
            Some(vda_delta(&report, &hinted))
        }
        None => None,
    };
    report_gaps(&report);
    if args.json {
        super::out::json(&report.to_json(delta.as_ref()))?;
    } else {
        super::out::text(&table::render(&report, delta.as_ref()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Says on stderr what the scores leave out ([`Report::gap_notes`]: the
/// same notes the page shows).
fn report_gaps(report: &Report) {
    for note in report.gap_notes() {
        super::out::warn(&format!("warning: {note}"));
    }
}
