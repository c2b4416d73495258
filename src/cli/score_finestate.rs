//! `knoblab score finestate`: score FineState-Bench results.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The annotation root.
    #[arg(long)]
    pub gt: PathBuf,
    /// Official results, a folder of result_<i>.json, or JSON Lines.
    #[arg(long)]
    pub pred: PathBuf,
    /// The model name (the official parser keys unit rules on it).
    #[arg(long)]
    pub model: String,
    /// py or pyc: which build of the official parser.
    #[arg(long, default_value = "py")]
    pub parser: String,
    /// Results of a run with visual hints (VDA).
    #[arg(long)]
    pub vda: bool,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab score finestate")
}
