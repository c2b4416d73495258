//! `knoblab score switch`: score SWITCH predictions.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset root.
    #[arg(long)]
    pub gt: PathBuf,
    /// The predictions file.
    #[arg(long)]
    pub pred: PathBuf,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab score switch")
}
