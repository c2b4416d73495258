//! `knoblab eval`: run a model (or the oracle, the random agent, a
//! replay) on library devices from the command line, many episodes at
//! once, resumable. The runner is [`knoblab_app::run::evaluate`]; this file
//! reads the options, shows progress on stderr and prints the metrics as
//! `knoblab metrics` does.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use knoblab_app::run::{evaluate, EvalEvent, RunArgs, Stop};
use knoblab_core::metrics::file::EpisodeStatus;

use super::metrics::print_runs;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Bundles to play (folders, zips or JSON files, or generated devices'
    /// ids such as `lamp-g0001`); without any, the devices of --library.
    pub bundles: Vec<PathBuf>,
    /// The library index whose devices are played when no bundle is named.
    #[arg(long, default_value = "data/library.json")]
    pub library: PathBuf,
    /// Only these device ids (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub devices: Vec<String>,
    /// Only devices of these categories (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub categories: Vec<String>,
    /// Only these task ids (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Episodes of each task.
    #[arg(long, default_value_t = 1, value_parser = whole::<u32>("repeats"))]
    pub repeats: u32,
    /// Who plays: model (the API below), oracle, random, or replay:FILE
    /// (answers from a trajectory file).
    #[arg(long, default_value = "model")]
    pub agent: String,
    /// The API flavour: openai (any OpenAI-compatible server) or anthropic.
    #[arg(long, default_value = "openai")]
    pub api: String,
    /// The API base, e.g. http://localhost:8000/v1.
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model name the server knows.
    #[arg(long)]
    pub model: Option<String>,
    /// The environment variable holding the key (default OPENAI_API_KEY
    /// or ANTHROPIC_API_KEY by --api). Unset or empty: no key is sent.
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// Episodes in flight at once.
    #[arg(long, default_value_t = 4, value_parser = whole::<usize>("concurrency"))]
    pub concurrency: usize,
    /// Budget multiplier λ.
    #[arg(long, default_value_t = 5, value_parser = whole::<u32>("lambda"))]
    pub lambda: u32,
    /// Past turns shown to the model: a number, or full.
    #[arg(long)]
    pub history: Option<String>,
    /// The coordinates the model answers in: 0-1000, 0-1 or pixels.
    #[arg(long, default_value = "0-1000")]
    pub coords: String,
    /// A picture perturbation: none, jpeg:Q, blur:SIGMA or patch:PERCENT.
    #[arg(long, default_value = "none")]
    pub perturb: String,
    /// Seeds the perturbation (and the random agent).
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>("seed"))]
    pub seed: u64,
    #[arg(long, default_value_t = 0.0, value_parser = real("temperature"))]
    pub temperature: f64,
    #[arg(long, default_value_t = 512, value_parser = whole::<u32>("max_tokens"))]
    pub max_tokens: u32,
    /// Seconds a request may take.
    #[arg(long, default_value_t = 60.0, value_parser = real("timeout"))]
    pub timeout: f64,
    /// Retries of a request (429, 5xx, timeouts, cut replies).
    #[arg(long, default_value_t = 3, value_parser = whole::<u32>("retries"))]
    pub retries: u32,
    /// Seconds before the first retry, doubling after (a Retry-After
    /// header wins).
    #[arg(long, default_value_t = 1.0, value_parser = real("backoff"))]
    pub backoff: f64,
    /// Dollars per million input tokens, for the cost estimate.
    #[arg(long, value_parser = real("price_in"))]
    pub price_in: Option<f64>,
    /// Dollars per million output tokens.
    #[arg(long, value_parser = real("price_out"))]
    pub price_out: Option<f64>,
    /// Start no episode once the estimated cost reaches this many dollars.
    #[arg(long, value_parser = real("max_cost"))]
    pub max_cost: Option<f64>,
    /// The output: JSON Lines of episodes, appended as each ends; the
    /// same file again resumes the run.
    #[arg(long)]
    pub out: PathBuf,
    /// How views are drawn: static (the paper's, the default) or live (the
    /// current state drawn on them). Recorded in every episode's settings;
    /// the prompt is the same in both.
    #[arg(long, default_value = "static", value_parser = knoblab_core::sim::RenderMode::parse)]
    pub render: knoblab_core::sim::RenderMode,
    /// Keep the model's replies in this folder and answer a request found
    /// there from it instead of the model: the same endpoint, model,
    /// request body, prompt version and library; errors, truncated replies
    /// and unreadable actions are never kept. Several runs may share it.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Print the metrics as one JSON document (as `knoblab metrics --json`).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// A flag's parser for a whole-number run option: its domain is the
/// core's ([`knoblab_core::input::options`]), as for Python and the page.
pub(crate) fn whole<T>(
    option: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64>,
{
    move |text| {
        knoblab_core::input::options::whole(option, knoblab_core::input::options::Given::Text(text))
            .map_err(|e| e.to_string())
    }
}

/// A flag's parser for a real run option (see [`whole`]).
fn real(
    option: &'static str,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text| {
        knoblab_core::input::options::real(option, knoblab_core::input::options::Given::Text(text))
            .map_err(|e| e.to_string())
    }
}

impl Args {
    /// The core's options of a run (every rule of them lives there).
    fn run_args(&self) -> RunArgs {
        RunArgs {
            bundles: self.bundles.clone(),
            library: self.library.clone(),
            devices: self.devices.clone(),
            categories: self.categories.clone(),
            tasks: self.tasks.clone(),
            repeats: self.repeats,
            agent: self.agent.clone(),
            api: self.api.clone(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            concurrency: self.concurrency,
            lambda: self.lambda,
            history: self.history.clone(),
            coords: self.coords.clone(),
            perturb: self.perturb.clone(),
            seed: self.seed,
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            timeout: self.timeout,
            retries: self.retries,
            backoff: self.backoff,
            price_in: self.price_in,
            price_out: self.price_out,
            max_cost: self.max_cost,
            render: self.render,
            cache: self.cache.clone(),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let run_args = args.run_args();
    let plan = run_args.plan()?;
    let options = run_args.options(&plan);

    let cancel = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second Ctrl-C while stopping exits at once.
        signal_hook::flag::register_conditional_shutdown(signal, 130, cancel.clone())
            .context("listening for Ctrl-C")?;
        signal_hook::flag::register(signal, cancel.clone()).context("listening for Ctrl-C")?;
    }

    let total = plan.spec.items.len() as u64;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} episodes  {msg}  {elapsed_precise} ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let steps = AtomicUsize::new(0);
    let api_errors = AtomicUsize::new(0);
    let quiet = args.quiet;
    let on_event = |event: &EvalEvent| match event {
        EvalEvent::Resumed { done, notes, .. } => {
            for n in notes {
                bar.suspend(|| super::out::warn(n));
            }
            if *done > 0 && !quiet {
                bar.suspend(|| {
                    super::out::warn(&format!(
                        "resuming: {done} of {total} episodes are in the file"
                    ))
                });
            }
            bar.set_position(*done as u64);
            bar.reset_eta();
        }
        EvalEvent::Started { .. } => {}
        EvalEvent::Retrying { .. } => {}
        EvalEvent::Finished {
            status,
            steps: n,
            done,
            usage,
            cost,
            ..
        } => {
            let s = steps.fetch_add(*n, Ordering::Relaxed) + n;
            if *status == EpisodeStatus::ApiError {
                api_errors.fetch_add(1, Ordering::Relaxed);
            }
            let cost = cost.map_or(String::new(), |c| format!("  ≈ ${c:.4}"));
            bar.set_message(format!(
                "{s} steps  {} api_error  {} tokens in, {} out{cost}",
                api_errors.load(Ordering::Relaxed),
                usage.input_tokens,
                usage.output_tokens
            ));
            bar.set_position(*done as u64);
        }
        EvalEvent::Problem { item, message } => {
            bar.suspend(|| super::out::warn(&format!("{item}: {message}")));
        }
    };
    let outcome = evaluate(&plan, &options, &args.out, &on_event, &cancel);
    bar.finish_and_clear();
    let outcome = outcome?;

    let done = outcome.records.len();
    match outcome.stop {
        Stop::Cancelled => super::out::warn(&format!(
            "stopped: {done} of {total} episodes are in {} ({} finished in this run); \
             run the same command again to play the {} left",
            args.out.display(),
            outcome.ran,
            outcome.left
        )),
        Stop::MaxCost => super::out::warn(&format!(
            "--max-cost reached: no episode was started after it; {done} of {total} \
             episodes are in {}, {} left",
            args.out.display(),
            outcome.left
        )),
        Stop::Complete => {}
    }
    if let (Some(tally), false) = (outcome.cache, args.quiet) {
        let failed = if tally.failed_writes > 0 {
            format!(", {} could not be stored", tally.failed_writes)
        } else {
            String::new()
        };
        super::out::warn(&format!(
            "cache: {} replies reused, {} requests sent, {} replies stored{failed}",
            tally.hits, tally.misses, tally.stored
        ));
    }
    let errors: Vec<_> = outcome
        .records
        .iter()
        .filter(|r| r.status == EpisodeStatus::ApiError)
        .collect();
    if !errors.is_empty() {
        super::out::warn(&format!(
            "{} episodes ended as api_error and are not scored (first: {}: {})",
            errors.len(),
            errors[0].item,
            errors[0].api_error().unwrap_or("?")
        ));
    }
    match outcome
        .metrics(&plan, &args.out.display().to_string())
        .map_err(|e| anyhow::anyhow!("{e}"))?
    {
        None => super::out::warn("no episode to score yet"),
        Some(runs) => print_runs(&runs, args.json)?,
    }
    Ok(match outcome.stop {
        Stop::Cancelled => ExitCode::from(130),
        _ if !outcome.problems.is_empty() => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// `knoblab eval`'s flags alone, as a command of their own.
    #[derive(Debug, Parser)]
    struct Eval {
        #[command(flatten)]
        args: Args,
    }

    /// Flags of `knoblab eval` that are not run options: the output and
    /// how the result is shown.
    const NOT_OPTIONS: [&str; 3] = ["out", "json", "quiet"];

    fn parse(extra: &[&str]) -> RunArgs {
        let mut argv = vec!["eval", "--out", "run.jsonl"];
        argv.extend_from_slice(extra);
        Eval::try_parse_from(argv).unwrap().args.run_args()
    }

    /// One place for a run's options (issue #45): every flag but the
    /// output's is a field of the typed options, and every field a flag.
    #[test]
    fn the_flags_are_the_run_options_by_name() {
        let flags: Vec<String> = Eval::command()
            .get_arguments()
            .map(|a| a.get_id().as_str().to_string())
            .filter(|id| !NOT_OPTIONS.contains(&id.as_str()))
            .collect();
        assert_eq!(flags, RunArgs::field_names());
    }

    /// With no flag, the options are the typed set's defaults.
    #[test]
    fn the_flags_defaults_are_the_run_options_defaults() {
        assert_eq!(parse(&[]), RunArgs::default());
    }

    /// Each flag sets its own field and no other: one flag at a time with
    /// a value unlike its default, compared field by field (as serde
    /// writes them) with the defaults.
    #[test]
    fn each_flag_sets_its_own_field() {
        let given: [(&str, &[&str]); 29] = [
            ("bundles", &["a", "b"]),
            ("library", &["--library", "lib.json"]),
            ("devices", &["--devices", "x,y"]),
            ("categories", &["--categories", "Lamp"]),
            ("tasks", &["--tasks", "t1"]),
            ("repeats", &["--repeats", "3"]),
            ("agent", &["--agent", "oracle"]),
            ("api", &["--api", "anthropic"]),
            ("base_url", &["--base-url", "http://h/v1"]),
            ("model", &["--model", "m"]),
            ("api_key_env", &["--api-key-env", "K"]),
            ("concurrency", &["--concurrency", "9"]),
            ("lambda", &["--lambda", "2"]),
            ("history", &["--history", "full"]),
            ("coords", &["--coords", "0-1"]),
            ("perturb", &["--perturb", "jpeg:50"]),
            ("seed", &["--seed", "7"]),
            ("temperature", &["--temperature", "0.5"]),
            ("max_tokens", &["--max-tokens", "64"]),
            ("timeout", &["--timeout", "5"]),
            ("retries", &["--retries", "0"]),
            ("backoff", &["--backoff", "2.5"]),
            ("price_in", &["--price-in", "1.5"]),
            ("price_out", &["--price-out", "2"]),
            ("max_cost", &["--max-cost", "10"]),
            ("render", &["--render", "live"]),
            ("cache", &["--cache", "model-cache"]),
            ("library", &["--library", "other.json"]),
            ("seed", &["--seed", "8"]),
        ];
        let defaults = serde_json::to_value(RunArgs::default()).unwrap();
        let mut covered = std::collections::BTreeSet::new();
        for (field, flags) in given {
            let parsed = serde_json::to_value(parse(flags)).unwrap();
            for name in RunArgs::field_names() {
                let same = parsed[&name] == defaults[&name];
                assert_eq!(same, name != field, "{flags:?} and the field {name}");
            }
            covered.insert(field.to_string());
        }
        let all: std::collections::BTreeSet<String> = RunArgs::field_names().into_iter().collect();
        assert_eq!(covered, all, "a run option without a flag in this test");
    }
}
