//! `knoblab score epic`: score EPIC-Bench predictions.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The ground-truth root (holding EPIC_Bench/...).
    #[arg(long)]
    pub gt: PathBuf,
    /// Raw outputs, std_format JSONL or an official score file.
    #[arg(long)]
    pub pred: PathBuf,
    /// auto, normalized_0_1000, absolute or normalized_0_1.
    #[arg(long)]
    pub coord_mode: Option<String>,
    /// The model family, for its forced coordinate mode.
    #[arg(long)]
    pub family: Option<String>,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab score epic")
}
