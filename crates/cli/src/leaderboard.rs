//! `knoblab leaderboard`: runs side by side, each VGEBench metric with a
//! 95% bootstrap interval, against a plan of episodes. The computation is
//! [`knoblab_app::leaderboard`]; this file reads the options and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::leaderboard::{export, from_paths, Leaderboard, Options, RunStatus};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Trajectory files (JSON Lines), one run per file.
    #[arg(required = true)]
    pub trajectories: Vec<PathBuf>,
    /// A folder of bundles (folders or zips), or one bundle; generated
    /// devices are made when missing.
    #[arg(long)]
    pub bundles: Option<PathBuf>,
    /// The library index whose devices the runs played (those --bundles
    /// does not give).
    #[arg(long, default_value = "data/library.json")]
    pub library: PathBuf,
    /// Seeds the bootstrap: the same seed gives the same intervals.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Bootstrap resamples (0: no intervals).
    #[arg(long, default_value_t = knoblab_app::leaderboard::DEFAULT_RESAMPLES)]
    pub resamples: usize,
    /// Compare two rows (a file as given, or a row number from 1): the
    /// difference in SR and SSR with a paired interval. Repeatable.
    #[arg(long, num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub compare: Vec<String>,
    /// Print the JSON document.
    #[arg(long, group = "format")]
    pub json: bool,
    /// Print a Markdown table.
    #[arg(long, group = "format")]
    pub markdown: bool,
    /// Print CSV (full precision).
    #[arg(long, group = "format")]
    pub csv: bool,
    /// Print LaTeX table rows.
    #[arg(long, group = "format")]
    pub latex: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let names: Vec<String> = args
        .trajectories
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let row_of = |name: &str| -> anyhow::Result<usize> {
        names
            .iter()
            .position(|n| n == name)
            .or_else(|| {
                name.parse::<usize>()
                    .ok()
                    .filter(|&i| i >= 1 && i <= names.len())
                    .map(|i| i - 1)
            })
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "--compare {name}: neither a file given nor a row number from 1 to {}",
                    names.len()
                )
            })
    };
    let mut compare = Vec::new();
    for pair in args.compare.chunks(2) {
        if let [a, b] = pair {
            compare.push((row_of(a)?, row_of(b)?));
        }
    }
    let options = Options {
        seed: args.seed,
        resamples: args.resamples,
        compare,
    };
    // The default index is used when it is there; one named must be.
    let library = (args.library.exists()
        || args.library != std::path::Path::new("data/library.json"))
    .then_some(args.library.as_path());
    let board = from_paths(
        &args.trajectories,
        args.bundles.as_deref(),
        library,
        &options,
    )?;
    for r in &board.runs {
        if r.coverage.api_error > 0 {
            super::out::warn(&format!(
                "{}: {} episodes ended as api_error; counted against the plan, not scored",
                r.file, r.coverage.api_error
            ));
        }
        if let Some(e) = &r.error {
            super::out::warn(&format!("{}: not scored: {e}", r.file));
        }
    }
    if args.json {
        super::out::json(&board.to_json()?)?;
    } else if args.csv {
        super::out::raw(&export::csv(&board))?;
    } else if args.latex {
        super::out::raw(&export::latex(&board))?;
    } else {
        let mut text = export::markdown(&board);
        text.push_str(&notes(&board));
        super::out::text(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Below the table: partial runs, other libraries, the comparisons.
fn notes(board: &Leaderboard) -> String {
    let mut out = String::new();
    for r in &board.runs {
        match r.status {
            RunStatus::Partial => out.push_str(&format!(
                "\n{}: partial: played {} of {} planned episodes ({} api_error, {} missing); SR {} over what it played, {} over the plan (missing = failure).\n",
                r.file,
                r.coverage.played,
                r.coverage.plan,
                r.coverage.api_error,
                r.coverage.missing,
                knoblab_core::metrics::percent(r.metrics.get("sr").and_then(|e| e.value)),
                knoblab_core::metrics::percent(r.sr_plan.value),
            )),
            RunStatus::OtherLibrary => out.push_str(&format!(
                "\n{}: recorded on {}, not the plan's {}; shown apart, never compared.\n",
                r.file,
                knoblab_core::bundle::stamp::describe(r.library.as_ref()),
                knoblab_core::bundle::stamp::describe(board.plan.library.as_ref()),
            )),
            RunStatus::Complete => {}
        }
    }
    for c in &board.comparisons {
        let pct = |v: Option<f64>| knoblab_core::metrics::percent(v);
        out.push_str(&format!(
            "\n{} − {} on {} shared episodes: SR {} [{}, {}], SSR {} [{}, {}]; {} solved only by the first, {} only by the second.\n",
            c.a_file,
            c.b_file,
            c.shared,
            pct(c.sr.value),
            pct(c.sr.ci_low),
            pct(c.sr.ci_high),
            pct(c.ssr.value),
            pct(c.ssr.ci_low),
            pct(c.ssr.ci_high),
            c.only_a.len(),
            c.only_b.len(),
        ));
    }
    out
}
