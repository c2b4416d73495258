//! `knoblab run`: run an agent on a bundle and write trajectories as JSON Lines.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The bundle: a folder, a zip or a single JSON file.
    pub bundle: PathBuf,
    /// Only this task (default: every task of the bundle).
    #[arg(long)]
    pub task: Option<String>,
    /// oracle, random[:SEED] or script:FILE.
    #[arg(long)]
    pub agent: String,
    /// Budget multiplier λ.
    #[arg(long, default_value_t = 5)]
    pub lambda: u32,
    /// Where to write the trajectories (JSON Lines).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab run")
}
