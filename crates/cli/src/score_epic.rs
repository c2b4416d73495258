//! `knoblab score epic`: score EPIC-Bench predictions
//! ([`knoblab_app::documents::epic`] computes the document).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::documents::epic;

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

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let run = epic::score(
        &args.gt,
        &args.pred,
        args.coord_mode.as_deref(),
        args.family.as_deref(),
        false,
    )?;
    for warning in &run.scored.warnings {
        super::out::warn(&format!("warning: {warning}"));
    }
    super::out::unused(&run.scored.unused);
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    if args.json {
        // Streamed sample by sample: the document is never built in memory.
        // A closed pipe ends the program quietly (see `super::out`).
        run.write_json(&mut stdout).map_err(std::io::Error::from)?;
        stdout.write_all(b"\n")?;
    } else {
        stdout.write_all(knoblab_core::input::text::escape_lines(&run.to_text()).as_bytes())?;
    }
    stdout.flush()?;
    // The process ends here: freeing the report's samples and records one
    // allocation at a time took about a tenth of the run's CPU (docs/performance.md,
    // "Scoring in the page"); the system takes the memory back at once.
    std::mem::forget(run);
    Ok(ExitCode::SUCCESS)
}
