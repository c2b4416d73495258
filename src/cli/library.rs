//! `knoblab library build`: regenerate the device library from its
//! descriptions (`data/gen/`) and category templates (`data/ucsm/`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::devicegen::{build_library, DEVICES_DIR, GEN_DIR, INDEX_FILE, SHEET_FILE, UCSM_DIR};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Draw every described device and write its bundle, the library
    /// index and the contact sheet (replacing OUT/devices entirely).
    Build(BuildArgs),
}

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Where the library goes: OUT/devices/, OUT/library.json,
    /// OUT/library-sheet.png.
    #[arg(long, default_value = "data")]
    pub out: PathBuf,
    /// The device descriptions.
    #[arg(long, default_value = GEN_DIR)]
    pub descriptions: PathBuf,
    /// The category templates.
    #[arg(long, default_value = UCSM_DIR)]
    pub ucsm: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Command::Build(args) = args.command;
    let summary =
        build_library(&args.descriptions, &args.ucsm, &args.out).map_err(anyhow::Error::msg)?;
    super::out::text(&format!(
        "{} devices in {} categories, {} tasks, {:.1} MB of bundles in {}; index {}, contact sheet {}\n",
        summary.devices,
        summary.categories,
        summary.tasks,
        summary.bytes as f64 / 1e6,
        args.out.join(DEVICES_DIR).display(),
        args.out.join(INDEX_FILE).display(),
        args.out.join(SHEET_FILE).display(),
    ))?;
    Ok(ExitCode::SUCCESS)
}
