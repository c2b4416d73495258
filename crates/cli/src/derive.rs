//! `knoblab derive`: derive a device SSM from a category UCSM.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use super::read::read_json;
use knoblab_core::bundle::{derive, derive_device, ComponentParts, StateMachine};
use knoblab_core::input::fs::{check_output_not_input, write_atomic};

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
    let ucsm: StateMachine = read_json(&args.ucsm, "a state machine")?;
    let ssm = match &args.parts {
        Some(path) => {
            let parts: BTreeMap<String, ComponentParts> =
                read_json(path, "a map of component parts")?;
            derive_device(&ucsm, &parts)?
        }
        None => derive(&ucsm, &args.components)?,
    };
    let json = serde_json::to_string_pretty(&ssm)?;
    match &args.out {
        Some(path) => {
            // Never over an input; written to a temporary file and renamed.
            let mut inputs = vec![args.ucsm.as_path()];
            inputs.extend(args.parts.as_deref());
            check_output_not_input(path, &inputs)?;
            write_atomic(path, (json + "\n").as_bytes())?;
        }
        None => super::out::raw(&(json + "\n"))?,
    }
    Ok(ExitCode::SUCCESS)
}
