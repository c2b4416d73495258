//! `knoblab run`: run an agent on a bundle and write trajectories as JSON
//! Lines, each appended as its episode ends (the writer of `knoblab eval`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::run::{Finished, Output};
use knoblab_core::input::text::escape_controls;
use knoblab_core::sim::{RenderMode, Settings};
use knoblab_eval::agents::{run_episode, Agent, AgentSpec, Oracle, RandomAgent, ScriptAgent};

use super::read::read_text_bounded;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The bundle: a folder, a zip or a single JSON file, or a generated
    /// device's id (`lamp-g0001`, made now).
    pub bundle: PathBuf,
    /// Only this task (default: every task of the bundle).
    #[arg(long)]
    pub task: Option<String>,
    /// oracle, random[:SEED] or script:FILE.
    #[arg(long)]
    pub agent: String,
    /// Budget multiplier λ.
    #[arg(long, default_value_t = 5, value_parser = super::eval::whole::<u32>("lambda"))]
    pub lambda: u32,
    /// Where to write the trajectories (JSON Lines).
    #[arg(long)]
    pub out: PathBuf,
    /// How views are drawn: static (the paper's) or live (for the state).
    /// Recorded in every episode's settings.
    #[arg(long, default_value = "static", value_parser = RenderMode::parse)]
    pub render: RenderMode,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = AgentSpec::for_run(&args.agent)?;
    // Input layer (#23): λ within its cap, and --out never one of the inputs.
    knoblab_core::input::options::check_lambda(args.lambda)?;
    let script = match &spec {
        AgentSpec::Script { path } => Some(std::path::Path::new(path)),
        _ => None,
    };
    let inputs: Vec<&std::path::Path> = std::iter::once(args.bundle.as_path())
        .chain(script)
        .collect();
    knoblab_core::input::fs::check_output_not_input(&args.out, &inputs)?;
    let bundle = super::library::load_device(&args.bundle)?;
    let mut settings = Settings::with_lambda(args.lambda);
    settings.agent = args.agent.trim().to_string();
    settings.render = args.render;
    let mut agent: Box<dyn Agent + '_> = match &spec {
        AgentSpec::Oracle => Box::new(Oracle::new(&bundle)),
        AgentSpec::Random { seed } => {
            settings.seed = Some(*seed);
            Box::new(RandomAgent::new(*seed))
        }
        AgentSpec::Script { path } => {
            let text = read_text_bounded(std::path::Path::new(path))?;
            Box::new(ScriptAgent::from_text(&settings.agent, &text))
        }
        // AgentSpec::for_run refused these above.
        AgentSpec::Model | AgentSpec::Replay { .. } => {
            anyhow::bail!("knoblab run plays no model: use knoblab eval")
        }
    };
    let ids: Vec<&str> = match args.task.as_deref() {
        Some(id) => vec![id],
        None => bundle.tasks.iter().map(|t| t.id.as_str()).collect(),
    };
    // The file starts empty with the first episode; each is appended,
    // whole and synced, as it ends, so an interrupted run keeps what
    // finished.
    // An older file at --out stays whole until the first episode's line is
    // complete: that line is written beside it and renamed over it (#47).
    let mut output: Option<Output> = None;
    let mut trajectories = Vec::with_capacity(ids.len());
    for id in ids {
        let t = run_episode(&bundle, id, agent.as_mut(), &settings)?;
        match output.as_mut() {
            Some(out) => out.append_line(&t)?,
            None => {
                let line = serde_json::to_string(&t)? + "\n";
                knoblab_core::input::fs::write_atomic(&args.out, line.as_bytes())?;
                output = Some(Output::open(&args.out, &Finished::default(), false)?);
            }
        }
        trajectories.push(t);
    }
    if output.is_none() {
        knoblab_core::input::fs::write_atomic(&args.out, b"")?;
    }

    let mut stdout = std::io::stdout().lock();
    for t in &trajectories {
        let end = if t.terminated {
            "solved"
        } else if t.truncated {
            "out of budget"
        } else {
            "stopped"
        };
        // A task id comes from the bundle: its control characters are
        // shown escaped, never sent to the terminal (#47).
        writeln!(
            stdout,
            "{}: {}/{} goals in {} steps ({end})",
            escape_controls(&t.task_id),
            t.goals_reached,
            t.goals_total,
            t.steps.len()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
