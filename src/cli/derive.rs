//! `knoblab derive`: derive a device SSM from a category UCSM.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::bundle::{derive, derive_device, ComponentParts, StateMachine};
use anyhow::Context;

use super::read::read_text_bounded;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The category template (UCSM) JSON file.
    pub ucsm: PathBuf,
    /// The components the device has.
    #[arg(long, value_delimiter = ',', required_unless_present = "parts")]
    pub components: Vec<String>,
    /// A JSON file mapping each component of the device to its boxes,
    /// action and parameters (`ComponentParts`): derives a complete SSM.
    /// The device's components are then the file's keys.
    #[arg(long, conflicts_with = "components")]
    pub parts: Option<PathBuf>,
    /// Write the SSM here instead of printing it.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_text_bounded(&args.ucsm)?;
    let ucsm: StateMachine = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a state machine", args.ucsm.display()))?;
    let ssm = match &args.parts {
        Some(path) => {
            let text = read_text_bounded(path)?;
            let parts: BTreeMap<String, ComponentParts> = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a map of component parts", path.display()))?;
            derive_device(&ucsm, &parts)?
        }
        None => derive(&ucsm, &args.components)?,
    };
    let json = serde_json::to_string_pretty(&ssm)?;
    match &args.out {
        Some(path) => std::fs::write(path, json + "\n")
            .with_context(|| format!("writing {}", path.display()))?,
        None => println!("{json}"),
    }
    Ok(ExitCode::SUCCESS)
}
