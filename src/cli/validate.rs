//! `knoblab validate`: check bundles and list every problem.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Bundle folders, zips or single JSON files.
    #[arg(required = true)]
    pub bundles: Vec<PathBuf>,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab validate")
}
