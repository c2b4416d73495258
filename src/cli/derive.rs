//! `knoblab derive`: derive a device SSM from a category UCSM.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The category template (UCSM) JSON file.
    pub ucsm: PathBuf,
    /// The components the device has.
    #[arg(long, value_delimiter = ',', required = true)]
    pub components: Vec<String>,
}

pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    super::not_built("knoblab derive")
}
