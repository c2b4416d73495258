//! `knoblab metrics`: VGEBench metrics from trajectory files, one run per
//! file, side by side as the paper compares models. The metrics themselves
//! are [`crate::metrics`]; this file reads files and prints.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use serde::Serialize;

use crate::bundle::{load_path, Bundle};
use crate::metrics::{self, number, percent, ErrorClass, RunMetrics, SwitchClass};
use crate::sim::Trajectory;

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

/// One run in JSON output: the file it came from, then its metrics.
#[derive(Debug, Serialize)]
struct FileRun<'a> {
    file: String,
    #[serde(flatten)]
    run: &'a RunMetrics,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bundles = load_bundles(&args.bundles)?;
    let mut runs = Vec::with_capacity(args.trajectories.len());
    for path in &args.trajectories {
        let trajectories = read_trajectories(path)?;
        let numbered: Vec<(usize, &Trajectory)> =
            trajectories.iter().map(|(line, t)| (*line, t)).collect();
        let run = metrics::run_numbered(&bundles, &numbered)
            .with_context(|| format!("{}", path.display()))?;
        runs.push((path.display().to_string(), run));
    }

    if args.json {
        let files: Vec<FileRun<'_>> = runs
            .iter()
            .map(|(file, run)| FileRun {
                file: file.clone(),
                run,
            })
            .collect();
        let doc = match files.as_slice() {
            [one] => serde_json::to_string_pretty(one)?,
            many => serde_json::to_string_pretty(many)?,
        };
        super::out::raw(&(doc + "\n"))?;
    } else {
        super::out::text(&tables(&runs))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The bundles of `dir`: `dir` itself when it is a bundle (a folder with a
/// `manifest.json`, a zip or a single JSON file), else every sub-folder
/// with a `manifest.json` and every `.zip` in it, by name.
fn load_bundles(dir: &Path) -> anyhow::Result<Vec<Bundle>> {
    let load = |p: &Path| load_path(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()));
    if !dir.exists() {
        bail!("the bundles folder {} does not exist", dir.display());
    }
    if dir.is_file() || dir.join("manifest.json").is_file() {
        return Ok(vec![load(dir)?]);
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.join("manifest.json").is_file()
                || (p.is_file() && p.extension().is_some_and(|x| x.eq_ignore_ascii_case("zip")))
        })
        .collect();
    paths.sort();
    if paths.is_empty() {
        bail!(
            "{} holds no bundle (a folder with a manifest.json, or a .zip)",
            dir.display()
        );
    }
    paths.iter().map(|p| load(p)).collect()
}

/// The episodes of a trajectory file with their line numbers; blank lines
/// are skipped.
fn read_trajectories(path: &Path) -> anyhow::Result<Vec<(usize, Trajectory)>> {
    let bytes = super::read::read_nonempty_bounded(
        path,
        "one trajectory per line (JSON Lines, as `knoblab run` writes)",
    )?;
    Ok(metrics::file::read_trajectory_file(
        &path.display().to_string(),
        &bytes,
    )?)
}

fn tables(runs: &[(String, RunMetrics)]) -> String {
    let mut main = vec![[
        "Run",
        "Episodes",
        "SR",
        "SSR",
        "SPL",
        "State-F1",
        "EIR",
        "TIR",
        "VSPS↓",
        "GVPE↓",
        "EER",
        "PSR",
        "Avg Dist↓",
        "Avg W-Dist↓",
    ]
    .map(String::from)
    .to_vec()];
    for (file, r) in runs {
        let m = &r.metrics;
        main.push(vec![
            file.clone(),
            r.episodes.to_string(),
            percent(m.sr),
            percent(m.ssr),
            percent(m.spl),
            percent(m.state_f1),
            percent(m.eir),
            percent(m.tir),
            number(m.vsps),
            number(m.gvpe),
            percent(m.eer),
            percent(m.psr),
            number(m.avg_dist),
            number(m.avg_w_dist),
        ]);
    }

    let mut errors = vec![std::iter::once("Run".to_string())
        .chain(ErrorClass::ALL.iter().map(|c| c.title().to_string()))
        .chain(std::iter::once("Failed steps".to_string()))
        .collect::<Vec<_>>()];
    for (file, r) in runs {
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
    for (file, r) in runs {
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
