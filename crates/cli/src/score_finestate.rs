//! `knoblab score finestate`: score FineState-Bench results, official and
//! corrected side by side. [`knoblab_app::documents::finestate`] reads the files
//! and scores them; this file prints.

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::documents::finestate::{score, FinestateOptions};

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

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = FinestateOptions {
        model: args.model.clone(),
        parser: args.parser.clone(),
        vda: args.vda,
        convention: args.convention.clone(),
        platform: args.platform.clone(),
        assume_images: args.assume_images,
    };
    let run = score(&args.gt, &args.pred, args.vda_pred.as_deref(), &options)?;
    for warning in &run.warnings {
        super::out::warn(&format!("warning: {warning}"));
    }
    super::out::unused(&run.unused);
    if args.json {
        super::out::json(&run.to_json())?;
    } else {
        super::out::text(&run.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}
