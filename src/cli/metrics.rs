//! `knoblab metrics`: VGEBench metrics from trajectory files.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Trajectory files (JSON Lines), one run per file.
    #[arg(required = true)]
    pub trajectories: Vec<PathBuf>,
    /// A folder of bundles (or one bundle).
    #[arg(long)]
    pub bundles: PathBuf,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab metrics")
}
