//! The `knoblab` command line (native only). Each subcommand lives in its own
//! file and only calls the core and prints what it returns: with `--json` one
//! JSON document on stdout, otherwise a table for people.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod derive;
mod eval;
mod leaderboard;
mod library;
mod metrics;
pub mod out;
mod read;
mod run;
mod score_epic;
mod score_finestate;
mod score_switch;
mod validate;

/// KnobLab: operate simulated devices, run agents on them, score grounding benchmarks.
#[derive(Debug, Parser)]
#[command(name = "knoblab", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check device bundles and list every problem found.
    Validate(validate::Args),
    /// Run an agent on a bundle's tasks and write trajectories.
    Run(run::Args),
    /// Run a model on library devices, many episodes at once, resumable.
    Eval(Box<eval::Args>),
    /// Compute VGEBench metrics from trajectory files.
    Metrics(metrics::Args),
    /// Rank runs side by side, with bootstrap intervals and paired comparisons.
    Leaderboard(leaderboard::Args),
    /// Derive a device's SSM from its category's UCSM.
    Derive(derive::Args),
    /// Score a benchmark's results file.
    Score(ScoreArgs),
    /// Build the shipped device library from its descriptions.
    Library(library::Args),
}

#[derive(Debug, clap::Args)]
struct ScoreArgs {
    #[command(subcommand)]
    benchmark: Benchmark,
}

#[derive(Debug, Subcommand)]
enum Benchmark {
    /// EPIC-Bench predictions against its RLE ground truth.
    Epic(score_epic::Args),
    /// FineState-Bench results against its annotations.
    Finestate(score_finestate::Args),
    /// SWITCH predictions against its dataset.
    Switch(score_switch::Args),
}

/// Parses the arguments, runs the subcommand and turns an error into a
/// message on stderr and exit code 2 (1 is kept for "ran, found problems").
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate(args) => validate::run(args),
        Command::Run(args) => run::run(args),
        Command::Eval(args) => eval::run(*args),
        Command::Metrics(args) => metrics::run(args),
        Command::Leaderboard(args) => leaderboard::run(args),
        Command::Derive(args) => derive::run(args),
        Command::Score(score) => match score.benchmark {
            Benchmark::Epic(args) => score_epic::run(args),
            Benchmark::Finestate(args) => score_finestate::run(args),
            Benchmark::Switch(args) => score_switch::run(args),
        },
        Command::Library(args) => library::run(args),
    };
    match result {
        Ok(code) => code,
        // The reader of our output went away (`| head`): nothing is wrong.
        Err(err) if out::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            out::warn(&format!("{err:#}"));
            ExitCode::from(2)
        }
    }
}
