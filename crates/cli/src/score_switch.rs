//! `knoblab score switch`: score SWITCH predictions (and, with `--video`,
//! generated-video judge outputs). Calls the core and prints what it returns.

use std::path::PathBuf;
use std::process::ExitCode;

use knoblab_app::documents::{self, switch::SwitchOptions};
use knoblab_score::export::{self, TableFormat};
use knoblab_score::switch::{self, Layout};
use knoblab_score::view;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset root: a folder, a zip of it, or one vqa.json/openqa.json;
    /// or the public release's tree (mcq_hf_1500/data.jsonl,
    /// <task_family>/data.jsonl, media/, summary.json).
    #[arg(long, required_unless_present = "video")]
    pub gt: Option<PathBuf>,
    /// The predictions file: JSON Lines (or a JSON array), with saved judge
    /// outputs under "judge" when the OpenQA answers were judged.
    /// Repeatable: several runs are scored against the same ground truth
    /// and listed as one leaderboard, their rows grouped by model_access.
    #[arg(long, required_unless_present = "video")]
    pub pred: Vec<PathBuf>,
    /// Answers published apart from the release rows: JSON Lines of
    /// {"id", "answer"} (or one object id → answer), joined by id. Repeatable.
    #[arg(long)]
    pub answers: Vec<PathBuf>,
    /// SPLIT=PATH_FRAGMENT: the items of ground-truth files whose path
    /// contains the fragment are in the split (open or held). Repeatable.
    #[arg(long = "split")]
    pub splits: Vec<String>,
    /// Count task families outside the eight in Overall.
    #[arg(long)]
    pub include_extra_families: bool,
    /// The model's name (default: the predictions' model_name/model, else
    /// the file's name).
    #[arg(long)]
    pub model_name: Option<String>,
    /// open_weight or closed_api (default: the predictions' model_access).
    #[arg(long)]
    pub model_access: Option<String>,
    /// Who submits, for the leaderboard submission row.
    #[arg(long)]
    pub submitted_by: Option<String>,
    /// The submission's time (RFC 3339); default: now.
    #[arg(long)]
    pub submission_time: Option<String>,
    /// Generated-video judge outputs (JSON Lines or a JSON array).
    #[arg(long)]
    pub video: Option<PathBuf>,
    /// Human ratings of the generated videos (JSON Lines of {"model",
    /// "input_form", "human_score"}), for Table 3's human column.
    #[arg(long, requires = "video")]
    pub video_human: Option<PathBuf>,
    /// The tables printed: paper (grouped skill columns, Table 6, Table 3)
    /// or leaderboard (task × modality, Open / Held / Overall). The --json
    /// document holds both.
    #[arg(long, default_value = "paper")]
    pub layout: String,
    /// Print the layout's tables as csv, markdown or latex, to paste into
    /// a paper (with several --pred: the runs' leaderboard table).
    #[arg(long, value_name = "FORMAT", conflicts_with = "json")]
    pub export: Option<String>,
    /// Also write the SWITCH leaderboard's results file (the four tracks:
    /// mcq_open / mcq_closed accuracy, openqa_open / openqa_closed exact
    /// match and token F1, with the model's access) to FILE. One --pred.
    #[arg(long, value_name = "FILE")]
    pub submission: Option<PathBuf>,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// Now as RFC 3339 UTC, to the second.
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    knoblab_score::switch::report::rfc3339_utc(secs)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let layout = Layout::parse(&args.layout).map_err(anyhow::Error::msg)?;
    let export = args
        .export
        .as_deref()
        .map(TableFormat::parse)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let options = SwitchOptions {
        answers: args.answers.clone(),
        splits: args.splits.clone(),
        include_extra_families: args.include_extra_families,
        model_name: args.model_name.clone(),
        model_access: args.model_access.clone(),
        submitted_by: args.submitted_by.clone(),
        submission_time: Some(args.submission_time.clone().unwrap_or_else(now_rfc3339)),
        video_human: args.video_human.clone(),
    };
    if args.pred.len() > 1 {
        if args.submission.is_some() {
            anyhow::bail!(
                "--submission writes one run's results file: give one --pred (each run is a submission of its own)"
            );
        }
        return runs(&args, &options, layout, export);
    }
    let pred = args.pred.first();
    let scored = documents::switch::score(
        args.gt.as_deref(),
        pred.map(PathBuf::as_path),
        args.video.as_deref(),
        &options,
    )?;
    super::out::unused(&scored.unused);
    let report = &scored.report;
    if !report.per_item.is_empty() {
        for line in switch::submission::uncovered(&report.submission_tracks) {
            super::out::warn(&format!("SWITCH submission: track {line}"));
        }
    }
    if let Some(path) = &args.submission {
        // Never over an input, and written whole: an older file stays as
        // it was until this one is complete.
        let inputs: Vec<&std::path::Path> = [
            args.gt.as_deref(),
            pred.map(PathBuf::as_path),
            args.video.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        knoblab_core::input::fs::check_output_not_input(path, &inputs)?;
        let text = export::switch_submission(&report.submission) + "\n";
        knoblab_core::input::fs::write_atomic(path, text.as_bytes())
            .map_err(|e| anyhow::anyhow!("--submission: could not be written ({e})"))?;
    }
    if args.json {
        super::out::json(&scored.to_json()?)?;
    } else if let Some(format) = export {
        let doc = scored.to_json()?;
        let file = pred.map_or_else(String::new, |p| p.display().to_string());
        let shown = view::switch::view_in(&file, "", report, &doc, layout);
        super::out::text(&export::tables(&shown.tables, format))?;
    } else {
        super::out::text(&switch::render_layout(report, layout))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Several runs against one ground truth: each scored as alone, then one
/// leaderboard of them, grouped by the models' access.
fn runs(
    args: &Args,
    options: &SwitchOptions,
    layout: Layout,
    export: Option<TableFormat>,
) -> anyhow::Result<ExitCode> {
    let scored = documents::switch::score_runs(
        args.gt.as_deref(),
        &args.pred,
        args.video.as_deref(),
        options,
    )?;
    for (_, run) in &scored {
        super::out::unused(&run.unused);
    }
    let rows = documents::switch::runs_rows(&scored, layout)?;
    let board = view::switch::runs_table(&rows, layout);
    if args.json {
        let runs: Vec<serde_json::Value> = scored
            .iter()
            .map(|(_, r)| r.to_json())
            .collect::<Result<_, _>>()?;
        let doc = serde_json::json!({ "runs": runs, "leaderboard": export::json(&rows) });
        super::out::json(&doc)?;
    } else if let Some(format) = export {
        super::out::text(&export::table(&board, format))?;
    } else {
        let mut text = String::new();
        for (_, run) in &scored {
            text += &switch::render_layout(&run.report, layout);
            text.push('\n');
        }
        text += &board.title;
        text.push('\n');
        text += &export::table_markdown(&board);
        super::out::text(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}
