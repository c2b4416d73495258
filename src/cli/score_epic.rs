//! `knoblab score epic`: score EPIC-Bench predictions.

use std::path::PathBuf;
use std::process::ExitCode;

use super::read::read_text_bounded;
use crate::score::epic::render::{to_json, to_text};
use crate::score::epic::{score_text, DirSource, RunOptions};

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
    let report = score_text(&text, &gt, &opts)?;
    anyhow::ensure!(
        report.gt_expected == 0 || report.gt_found > 0,
        "no ground truth found under {}: {}. Give the folder that holds EPIC_Bench/",
        args.gt.display(),
        report.gt_coverage_message()
    );
    if report.gt_found < report.gt_expected {
        super::out::warn(&format!("warning: {}", report.gt_coverage_message()));
    }
    // Nothing dropped silently: skipped lines, repeated samples and refused
    // GT paths on stderr and in the JSON document.
    let intake = crate::score::epic::intake::intake(&text);
    for warning in intake.warnings() {
        super::out::warn(&format!(
            "warning: {}: {warning}",
            super::read::shown(&args.pred)
        ));
    }
    let refused = gt.refused();
    if !refused.is_empty() {
        super::out::warn(&format!(
            "warning: {} ground-truth path(s) refused and read as missing: {}",
            refused.len(),
            refused.join("; ")
        ));
    }
    let out = if args.json {
        let mut doc = to_json(&report, &args.pred.display().to_string());
        if let serde_json::Value::Object(m) = &mut doc {
            m.insert(
                "input".into(),
                serde_json::json!({
                    "skipped_lines": intake.skipped,
                    "duplicates": intake.duplicates,
                    "lines_are_array_items": intake.array,
                    "gt_refused": refused,
                    "gt_files_read": gt.files_read(),
                }),
            );
        }
        serde_json::to_string_pretty(&doc)? + "\n"
    } else {
        to_text(&report)
    };
    if args.json {
        super::out::raw(&out)?;
    } else {
        super::out::text(&out)?;
    }
    Ok(ExitCode::SUCCESS)
}
