//! `knoblab metrics`: VGEBench metrics from trajectory files, one run per
//! file, side by side as the paper compares models. The metrics themselves
//! are [`knoblab_core::metrics`], read from the files by [`knoblab_app::documents::metrics`];
//! this file prints.

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::documents;
use knoblab_core::metrics::columns::{Column, COLUMNS};
use knoblab_core::metrics::{percent, ErrorClass, RunMetrics, SwitchClass};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Trajectory files (JSON Lines), one run per file.
    #[arg(required = true)]
    pub trajectories: Vec<PathBuf>,
    /// A folder of bundles (folders or zips), or one bundle.
    #[arg(long)]
    pub bundles: PathBuf,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runs = documents::metrics::metrics(&args.trajectories, &args.bundles)?;
    for r in &runs.runs {
        if r.api_errors > 0 {
            super::out::warn(&format!(
                "{}: {} episodes ended as api_error and are not scored",
                r.file, r.api_errors
            ));
        }
    }
    let unused: Vec<_> = runs
        .runs
        .iter()
        .flat_map(|r| r.unused.iter().cloned())
        .collect();
    super::out::unused(&unused);
    print_runs(&runs, args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints runs as `knoblab metrics` does: the tables, or with `json` its
/// document. `knoblab eval` prints its run with this too.
pub(super) fn print_runs(runs: &documents::metrics::MetricsRuns, json: bool) -> anyhow::Result<()> {
    if json {
        super::out::json(&runs.to_json()?)?;
    } else {
        super::out::text(&tables(&runs.runs))?;
    }
    Ok(())
}

fn tables(runs: &[documents::metrics::RunScored]) -> String {
    let runs: Vec<(&String, &RunMetrics)> = runs.iter().map(|r| (&r.file, &r.run)).collect();
    let mut main = vec![["Run", "Episodes"]
        .into_iter()
        .map(String::from)
        .chain(COLUMNS.iter().map(Column::heading))
        .collect::<Vec<_>>()];
    for &(file, r) in &runs {
        let mut row = vec![file.clone(), r.episodes.to_string()];
        row.extend(COLUMNS.iter().map(|c| c.show(&r.metrics)));
        main.push(row);
    }

    let mut errors = vec![std::iter::once("Run".to_string())
        .chain(ErrorClass::ALL.iter().map(|c| c.title().to_string()))
        .chain(std::iter::once("Failed steps".to_string()))
        .collect::<Vec<_>>()];
    for &(file, r) in &runs {
        let failed = r.counts.failed_steps();
        let mut row = vec![file.clone()];
        for c in ErrorClass::ALL {
            let n = r.counts.errors.get(&c).copied().unwrap_or(0);
            row.push(share(n, failed));
        }
        row.push(failed.to_string());
        errors.push(row);
    }

    let mut switches = vec![std::iter::once("Run".to_string())
        .chain(SwitchClass::ALL.iter().map(|c| c.key().to_string()))
        .chain(std::iter::once("Switches".to_string()))
        .collect::<Vec<_>>()];
    for &(file, r) in &runs {
        let total: u64 = r.counts.switch_classes.values().sum();
        let mut row = vec![file.clone()];
        for c in SwitchClass::ALL {
            let n = r.counts.switch_classes.get(&c).copied().unwrap_or(0);
            row.push(share(n, total));
        }
        row.push(total.to_string());
        switches.push(row);
    }

    format!(
        "Main results (%, except VSPS, GVPE and distances on the 0–1000 scale; ↓ lower is better)\n{}\n\
Error types (% of failed steps)\n{}\n\
View switches (% of switches that changed the view)\n{}",
        render(&main),
        render(&errors),
        render(&switches)
    )
}

/// A share as a percentage, "–" when there is nothing to share.
fn share(n: u64, total: u64) -> String {
    percent((total > 0).then(|| n as f64 / total as f64))
}

/// Columns padded to their widest cell: the first left-aligned, the others
/// right-aligned.
fn render(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                let pad = widths[c].saturating_sub(cell.chars().count());
                if c == 0 {
                    format!("{cell}{}", " ".repeat(pad))
                } else {
                    format!("{}{cell}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}
