//! `knoblab score epic`: score EPIC-Bench predictions.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::read::read_text_bounded;
use crate::score::epic::render::{self, to_text};
use crate::score::epic::report::score_text_for_output;
use crate::score::epic::{DirSource, RunOptions};

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

const MODES: [&str; 4] = ["auto", "normalized_0_1000", "absolute", "normalized_0_1"];

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(m) = &args.coord_mode {
        anyhow::ensure!(
            MODES.contains(&m.as_str()),
            "--coord-mode {m:?} is not a coordinate mode; expected one of {}",
            MODES.join(", ")
        );
    }
    let text = read_text_bounded(&args.pred)?;
    // "The lookup is an exact match on the name of the std file's parent
    // folder (the model family)."
    let family = args.family.clone().or_else(|| {
        args.pred
            .parent()
            .and_then(|p| p.file_name())
            .map(|f| f.to_string_lossy().into_owned())
    });
    let opts = RunOptions {
        coord_mode: args.coord_mode.clone(),
        family,
    };
    anyhow::ensure!(
        args.gt.is_dir(),
        "--gt {}: not a folder; give the folder that holds EPIC_Bench/ (or the dataset folder above it)",
        args.gt.display()
    );
    let gt = DirSource::locate(&args.gt);
    let report = score_text_for_output(&text, &gt, &opts)?;
    anyhow::ensure!(
        report.gt_expected == 0 || report.gt_found > 0,
        "no ground truth found under {}: {}. Give the folder that holds EPIC_Bench/",
        args.gt.display(),
        report.gt_coverage_message()
    );
    if report.gt_found < report.gt_expected {
        eprintln!("knoblab: warning: {}", report.gt_coverage_message());
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.json {
        // Streamed sample by sample: the document is never built in memory.
        render::write_json(&report, &args.pred.display().to_string(), &mut stdout)
            .map_err(std::io::Error::from)
            .and_then(|()| stdout.write_all(b"\n"))
    } else {
        stdout.write_all(to_text(&report).as_bytes())
    };
    match written.and_then(|()| stdout.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}
