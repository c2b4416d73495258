//! `knoblab eval`: run a model (or the oracle, the random agent, a
//! replay) on library devices from the command line, many episodes at
//! once, resumable. The runner is [`crate::eval::evaluate`]; this file
//! reads the options, shows progress on stderr and prints the metrics as
//! `knoblab metrics` does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::eval::{
    evaluate, load_bundles, load_library, make_plan, DeviceFilter, EvalEvent, EvalOptions, Stop,
};
use crate::metrics;
use crate::vlm::{
    AgentSettings, ApiKey, CoordConvention, EpisodeStatus, Flavor, HistoryWindow, Perturbation,
    Prices, Replay, RetryPolicy, Source,
};

use super::metrics::print_runs;
use super::read::read_text_bounded;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Bundles to play (folders, zips or JSON files); without any, the
    /// devices of --library.
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
    #[arg(long, default_value_t = 1)]
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
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Budget multiplier λ.
    #[arg(long, default_value_t = 5)]
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
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    #[arg(long, default_value_t = 512)]
    pub max_tokens: u32,
    /// Seconds a request may take.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Retries of a request (429, 5xx, timeouts, cut replies).
    #[arg(long, default_value_t = 3)]
    pub retries: u32,
    /// Seconds before the first retry, doubling after (a Retry-After
    /// header wins).
    #[arg(long, default_value_t = 1.0)]
    pub backoff: f64,
    /// Dollars per million input tokens, for the cost estimate.
    #[arg(long)]
    pub price_in: Option<f64>,
    /// Dollars per million output tokens.
    #[arg(long)]
    pub price_out: Option<f64>,
    /// Start no episode once the estimated cost reaches this many dollars.
    #[arg(long)]
    pub max_cost: Option<f64>,
    /// The output: JSON Lines of episodes, appended as each ends; the
    /// same file again resumes the run.
    #[arg(long)]
    pub out: PathBuf,
    /// How views are drawn: static (the paper's, the default) or live (the
    /// current state drawn on them). Recorded in every episode's settings;
    /// the prompt is the same in both.
    #[arg(long, default_value = "static", value_parser = super::run::parse_render)]
    pub render: crate::sim::RenderMode,
    /// Print the metrics as one JSON document (as `knoblab metrics --json`).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// A perturbation option: none, jpeg:Q, blur:S, patch:P (or patches:P).
fn perturbation(text: &str) -> anyhow::Result<Option<Perturbation>> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let text = match text.split_once(':') {
        Some((k, v)) if k.eq_ignore_ascii_case("patch") => format!("patches:{v}"),
        _ => text.to_string(),
    };
    Ok(Some(Perturbation::parse(&text)?))
}

fn settings(args: &Args, source: Source) -> anyhow::Result<AgentSettings> {
    let mut s = AgentSettings::default();
    let flavor = Flavor::parse(&args.api)?;
    s.endpoint.flavor = flavor;
    if source == Source::Model {
        s.endpoint.base_url = args
            .base_url
            .clone()
            .context("--base-url is needed to run a model")?;
        s.endpoint.model = args
            .model
            .clone()
            .context("--model is needed to run a model")?;
    } else {
        s.endpoint.base_url = args.base_url.clone().unwrap_or(s.endpoint.base_url);
        s.endpoint.model = args.model.clone().unwrap_or(s.endpoint.model);
    }
    s.endpoint.temperature = args.temperature;
    s.endpoint.max_tokens = args.max_tokens;
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        bail!(
            "--timeout {} must be a positive number of seconds",
            args.timeout
        );
    }
    s.timeout_ms = (args.timeout * 1000.0).round() as u64;
    s.concurrency = u32::try_from(args.concurrency).unwrap_or(u32::MAX);
    if !(args.backoff.is_finite() && args.backoff >= 0.0) {
        bail!("--backoff {} must be a number of seconds", args.backoff);
    }
    s.retry = RetryPolicy {
        retries: args.retries,
        base_ms: (args.backoff * 1000.0).round() as u64,
        ..RetryPolicy::default()
    };
    s.coords = CoordConvention::parse(&args.coords)?;
    if let Some(h) = &args.history {
        s.history = HistoryWindow::parse(h)?;
    }
    s.lambda = args.lambda;
    s.render = args.render;
    s.perturbation = perturbation(&args.perturb)?;
    s.seed = args.seed;
    s.prices = Prices {
        input_per_million: args.price_in.unwrap_or(0.0),
        output_per_million: args.price_out.unwrap_or(0.0),
    };
    let problems = s.problems_with(MAX_CONCURRENCY, 1);
    if !problems.is_empty() {
        bail!("{}", problems.join("; "));
    }
    if args.max_cost.is_some() && s.prices.cost(Default::default()).is_none() {
        bail!("--max-cost needs --price-in and --price-out to estimate the cost");
    }
    Ok(s)
}

/// The most episodes in flight `knoblab eval` allows.
pub const MAX_CONCURRENCY: u32 = 256;

/// The key, from the environment variable named (never from an argument).
fn key(args: &Args, flavor: Flavor) -> ApiKey {
    let var = args.api_key_env.clone().unwrap_or_else(|| {
        match flavor {
            Flavor::OpenAi => "OPENAI_API_KEY",
            Flavor::Anthropic => "ANTHROPIC_API_KEY",
        }
        .to_string()
    });
    ApiKey::new(std::env::var(&var).unwrap_or_default().trim().to_string())
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (source, replay) = match args.agent.trim() {
        "model" => (Source::Model, None),
        "oracle" => (Source::Oracle, None),
        "random" => (Source::Random, None),
        other => match other.strip_prefix("replay:") {
            Some(file) => {
                let text = read_text_bounded(Path::new(file))?;
                (Source::Replay, Some((Replay::parse(&text)?, text)))
            }
            None => {
                bail!("unknown --agent \"{other}\": expected model, oracle, random or replay:FILE")
            }
        },
    };
    let settings = settings(&args, source)?;
    let filter = DeviceFilter {
        devices: args.devices.clone(),
        categories: args.categories.clone(),
    };
    let bundles = if args.bundles.is_empty() {
        load_library(&args.library, &filter)?
    } else {
        load_bundles(&args.bundles, &filter)?
    };
    let plan = make_plan(source, settings, bundles, &args.tasks, args.repeats, replay)?;
    let options = EvalOptions {
        key: key(&args, plan.spec.settings.endpoint.flavor),
        concurrency: args.concurrency.max(1),
        max_cost: args.max_cost,
        shard: None,
    };

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
    let scored: Vec<_> = outcome
        .records
        .iter()
        .filter(|r| r.status != EpisodeStatus::ApiError)
        .map(|r| r.trajectory.clone())
        .collect();
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
    if scored.is_empty() {
        super::out::warn("no episode to score yet");
    } else {
        let run = metrics::run(
            &plan
                .bundles
                .iter()
                .map(|b| (**b).clone())
                .collect::<Vec<_>>(),
            &scored,
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let runs = crate::documents::metrics::MetricsRuns {
            runs: vec![(args.out.display().to_string(), run)],
            // Said above, with the first one's reason.
            api_errors: Vec::new(),
        };
        print_runs(&runs, args.json)?;
    }
    Ok(match outcome.stop {
        Stop::Cancelled => ExitCode::from(130),
        _ if !outcome.problems.is_empty() => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}
