//! `knoblab score switch`: score SWITCH predictions (and, with `--video`,
//! generated-video judge outputs). Calls the core and prints what it returns.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::score::switch::{self, predictions, GroundTruth, SwitchReport};

use super::read::read_nonempty_bounded;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset root: a folder, a zip of it, or one vqa.json/openqa.json.
    #[arg(long, required_unless_present = "video")]
    pub gt: Option<PathBuf>,
    /// The predictions file: JSON Lines (or a JSON array), with saved judge
    /// outputs under "judge" when the OpenQA answers were judged.
    #[arg(long, required_unless_present = "video")]
    pub pred: Option<PathBuf>,
    /// Generated-video judge outputs (JSON Lines or a JSON array).
    #[arg(long)]
    pub video: Option<PathBuf>,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut report = match (&args.gt, &args.pred) {
        (Some(gt), Some(pred)) => {
            let gt = GroundTruth::load_path(gt)?;
            let bytes = read_nonempty_bounded(pred, "SWITCH predictions (JSON Lines)")?;
            let name = pred.display().to_string();
            let preds = predictions::read_predictions(&name, &bytes)?;
            switch::build_report(&gt, &name, &preds)?
        }
        _ => SwitchReport::default(),
    };
    if let Some(video) = &args.video {
        let bytes = read_nonempty_bounded(video, "video judge outputs (JSON Lines)")?;
        report.video = Some(switch::score_videos(&video.display().to_string(), &bytes)?);
    }
    if args.json {
        super::out::json(&report)?;
    } else {
        super::out::text(&switch::render_text(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}
