//! `knoblab leaderboard`: runs side by side, each VGEBench metric with a
//! 95% bootstrap interval, against a plan of episodes. The computation is
//! [`knoblab_app::leaderboard`]; this file reads the options and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::leaderboard::plan::read_plan;
use knoblab_app::leaderboard::publish::Published;
use knoblab_app::leaderboard::{
    export, from_paths, published_from_paths, Leaderboard, Options, RunStatus,
};

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
    /// The plan the runs were meant to cover: episode keys
    /// (bundle/task#repeat, as `knoblab eval` records its items), one per
    /// line, or a trajectory file whose episodes are the plan. Episodes no
    /// run played count as missing in every row.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Compare two rows (a file as given, or a row number from 1): the
    /// difference in SR and SSR with a paired interval. Repeatable.
    #[arg(long, num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub compare: Vec<String>,
    /// Also write the leaderboard with every run's traces (the actions of
    /// each episode) to FILE: the page's Leaderboard view reopens it,
    /// dropped or by `#/leaderboard?src=URL`.
    #[arg(long, value_name = "FILE")]
    pub publish: Option<PathBuf>,
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
    let plan = match &args.plan {
        Some(path) => {
            let bytes = knoblab_core::input::fs::read_nonempty(
                path,
                knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES,
                "a plan: episode keys bundle/task#repeat, one per line, or a trajectory file",
            )
            .map_err(|e| anyhow::anyhow!("--plan: {e}"))?;
            Some(read_plan(&path.display().to_string(), &bytes)?)
        }
        None => None,
    };
    let options = Options {
        seed: args.seed,
        resamples: args.resamples,
        compare,
        plan,
    };
    // The default index is used when it is there; one named must be.
    let library = (args.library.exists()
        || args.library != std::path::Path::new("data/library.json"))
    .then_some(args.library.as_path());
    let paths = &args.trajectories;
    let bundles = args.bundles.as_deref();
    // The traces are kept only when they are written.
    let published = match &args.publish {
        Some(_) => published_from_paths(paths, bundles, library, &options)?,
        None => Published::new(from_paths(paths, bundles, library, &options)?, Vec::new()),
    };
    if let Some(path) = &args.publish {
        // Never over one of the runs, and written whole: an older file
        // stays as it was until this one is complete.
        let inputs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        knoblab_core::input::fs::check_output_not_input(path, &inputs)?;
        let text = published.to_text()?;
        knoblab_core::input::fs::write_atomic(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("--publish: could not be written ({e})"))?;
    }
    let board = published.leaderboard;
    if let (Some(n), outside) = (board.plan.given, board.plan.outside_given) {
        if outside > 0 {
            super::out::warn(&format!(
                "{outside} episodes played are not among the {n} of --plan; they were added to the plan"
            ));
        }
    }
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
