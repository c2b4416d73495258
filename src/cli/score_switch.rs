//! `knoblab score switch`: score SWITCH predictions (and, with `--video`,
//! generated-video judge outputs); [`crate::documents::switch`] computes
//! the report.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::documents;
use crate::score::switch;

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
    let report = documents::switch::score(
        args.gt.as_deref(),
        args.pred.as_deref(),
        args.video.as_deref(),
    )?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&documents::switch::to_json(&report)?)?
        );
    } else {
        print!("{}", switch::render_text(&report));
    }
    Ok(ExitCode::SUCCESS)
}
