//! Scoring one unit of a job through the one scoring entry point
//! ([`crate::scoring`]), as the CLI does on the same bytes: EPIC-Bench (or
//! merging its shards), FineState-Bench, SWITCH and KnobLab trajectories.
//! What is here is the page's: which dropped files go together, and the
//! views and downloads it draws.

use serde_json::Value;

use super::files::{file_name, folder_of, Unit};
use super::ground::Ground;
use super::{Download, InputFile, Job, JobOptions, SwitchOptions};
use crate::scoring::finestate::FinestateOptions;
use crate::scoring::switch::{Named, SwitchInputs};
use crate::scoring::ScoreError;
use knoblab_core::bundle::Bundle;
use knoblab_core::metrics::file::TrajectoryFile;
use knoblab_score::detect::{Benchmark, Format};
use knoblab_score::epic::{self, GroundTruthSource, RunOptions};
use knoblab_score::finestate::{
    files::MemFiles,
    loader::{load_dataset, ImagePolicy},
    predictions::{read_predictions, read_result_files, PredictionSet},
};
use knoblab_score::switch;
use knoblab_score::view::{self, ReportView};

pub(super) fn text_of(file: &InputFile) -> Result<&str, ScoreError> {
    knoblab_core::input::text::decode(&file.bytes).map_err(|error| ScoreError::NotText {
        path: file.path.clone(),
        error,
    })
}

pub(super) fn score_unit(
    unit: &Unit,
    job: &Job,
    ground: &mut Ground,
    epic_merged: Option<super::EpicMerged>,
) -> Result<ReportView, ScoreError> {
    let first = unit.files.first().ok_or(ScoreError::Nothing)?;
    let options = &job.options;
    match unit.format.scores() {
        Some(Benchmark::Epic) => match epic_merged {
            Some(m) => {
                // The intake comes with the first shard; else it is read here.
                let (unused, warnings) = match m.intake {
                    Some(i) => (i.unused, i.warnings),
                    None => {
                        let read = epic::intake::intake(text_of(first)?);
                        (
                            crate::scoring::epic::intake_unused(&first.path, &read),
                            read.warnings(),
                        )
                    }
                };
                let scored = crate::scoring::epic::checked(
                    &first.path,
                    m.merge.finish(),
                    unused,
                    warnings,
                    Vec::new(),
                )?;
                Ok(epic_view(first, &unit.label, scored))
            }
            None => score_epic(first, &unit.label, options, ground.epic()),
        },
        Some(b @ Benchmark::FineState) => run(job.scorers.finestate, b, unit, job, ground),
        Some(b @ Benchmark::Switch) => run(job.scorers.switch, b, unit, job, ground),
        Some(b @ Benchmark::Trajectories) => run(
            job.scorers.trajectories.map(|t| t.score),
            b,
            unit,
            job,
            ground,
        ),
        None => Err(ScoreError::NotResults {
            name: unit.name.clone(),
        }),
    }
}

/// Scores `unit` with `scorer`, the job's scorer of `benchmark`, or says
/// that the job does not hold it.
fn run(
    scorer: Option<super::UnitScorer>,
    benchmark: Benchmark,
    unit: &Unit,
    job: &Job,
    ground: &mut Ground,
) -> Result<ReportView, ScoreError> {
    let scorer = scorer.ok_or(ScoreError::NoScorer {
        benchmark: benchmark.name(),
    })?;
    scorer(unit, job, ground)
}

/// A FineState-Bench unit: its predictions (JSON Lines, or the official
/// `result_<i>.json` files of one folder) against the dropped dataset.
pub(super) fn finestate_unit(
    unit: &Unit,
    job: &Job,
    ground: &mut Ground,
) -> Result<ReportView, ScoreError> {
    let first = unit.files.first().ok_or(ScoreError::Nothing)?;
    let preds = if unit.format == Format::FineStateResultFile {
        let files: Vec<(String, Vec<u8>)> = unit
            .files
            .iter()
            .map(|f| (file_name(&f.path).to_string(), f.bytes.clone()))
            .collect();
        read_result_files(&files)
    } else {
        read_predictions(&first.path, &first.bytes)
            .map_err(|e| ScoreError::FineStatePredictions(Box::new(e)))?
    };
    score_finestate(
        &unit.name,
        &unit.label,
        &job.options,
        &preds,
        ground.finestate(),
    )
}

/// A SWITCH unit: predictions or video judgements against the dropped
/// release.
pub(super) fn switch_unit(
    unit: &Unit,
    job: &Job,
    ground: &mut Ground,
) -> Result<ReportView, ScoreError> {
    let first = unit.files.first().ok_or(ScoreError::Nothing)?;
    score_switch(first, &unit.label, unit.format, &job.options.switch, ground)
}

/// A trajectories unit: the metrics against the library's bundles sent
/// with the job, the generated devices made here.
pub(super) fn trajectories_unit(
    unit: &Unit,
    job: &Job,
    ground: &mut Ground,
) -> Result<ReportView, ScoreError> {
    let first = unit.files.first().ok_or(ScoreError::Nothing)?;
    let given = ground.bundles(&job.bundles)?;
    score_trajectories(first, &unit.label, given.to_vec())
}

/// The EPIC-Bench run options of a results file.
pub(super) fn epic_options(file: &InputFile, options: &JobOptions) -> RunOptions {
    let dir = folder_of(&file.path);
    let folder = (!dir.is_empty()).then(|| file_name(dir));
    let family = RunOptions::family_of(options.epic_family.as_deref(), folder);
    RunOptions {
        coord_mode: None,
        family,
    }
}

/// Scores EPIC-Bench predictions as `knoblab score epic` does
/// ([`crate::scoring::epic::score`], without each sample's details: the
/// view carries each item's row, and its details are scored again when
/// opened, [`super::epic_item`]).
pub fn score_epic(
    file: &InputFile,
    label: &str,
    options: &JobOptions,
    gt: &dyn GroundTruthSource,
) -> Result<ReportView, ScoreError> {
    let text = text_of(file)?;
    let opts = epic_options(file, options);
    let scored = crate::scoring::epic::score(&file.path, text, gt, &opts, false)?;
    Ok(epic_view(file, label, scored))
}

/// The view of an EPIC-Bench report, scored whole or merged from shards.
fn epic_view(
    file: &InputFile,
    label: &str,
    scored: crate::scoring::epic::EpicScored,
) -> ReportView {
    // The view's tables read only the summaries of the CLI's document.
    let doc = epic::render::summaries_json(&scored.report);
    let mut shown = view::epic::view(&file.path, label, &scored.report, &doc);
    // Nothing dropped silently (issues #23, #47): the warnings and the
    // unused lines, as `knoblab score epic` reports them. The coverage
    // note is the view's own first line.
    let coverage = scored.report.gt_coverage_message();
    shown
        .notes
        .extend(scored.warnings.into_iter().filter(|w| *w != coverage));
    shown.unused = scored.unused;
    shown
}

/// Scores FineState-Bench predictions as `knoblab score finestate` does
/// ([`crate::scoring::finestate::score`]), with the page's options.
pub fn score_finestate(
    name: &str,
    label: &str,
    options: &JobOptions,
    preds: &PredictionSet,
    files: &MemFiles,
) -> Result<ReportView, ScoreError> {
    let mut opts = FinestateOptions::new(options.finestate_model.as_deref().unwrap_or_default());
    if let Some(parser) = &options.finestate_parser {
        opts.parser = parser.clone();
    }
    // Options before files, as the CLI reads them.
    crate::scoring::finestate::check_options(&opts)?;
    let data = load_dataset(files, ImagePolicy::Check);
    let run = crate::scoring::finestate::score(name, &data, preds, None, &opts)?;
    let doc = run.report.to_json(None);
    let mut shown = view::finestate::view(name, label, &run.report, &doc);
    shown.notes.extend(run.warnings);
    shown.unused = run.unused;
    Ok(shown)
}

/// Scores SWITCH predictions (or video judgements) as `knoblab score switch` does.
fn score_switch(
    file: &InputFile,
    label: &str,
    format: Format,
    options: &SwitchOptions,
    ground: &mut Ground,
) -> Result<ReportView, ScoreError> {
    let named = Named {
        name: &file.path,
        bytes: &file.bytes,
    };
    let scored = if format == Format::SwitchVideoJudge {
        let inputs = SwitchInputs {
            video: Some(named),
            ..SwitchInputs::default()
        };
        crate::scoring::switch::score(inputs, &options.report)?
    } else {
        let gt = ground
            .switch(options)
            .map_err(|problem| ScoreError::SwitchGroundTruth {
                path: file.path.clone(),
                problem,
            })?;
        let inputs = SwitchInputs {
            gt: Some(gt),
            pred: Some(named),
            ..SwitchInputs::default()
        };
        crate::scoring::switch::score(inputs, &options.report)?
    };
    let report = &scored.report;
    let doc = serde_json::to_value(report)?;
    if !report.per_item.is_empty() {
        ground
            .downloads
            .extend(switch_downloads(&file.path, report, &doc, options.layout));
    }
    let mut shown = view::switch::view_in(&file.path, label, report, &doc, options.layout);
    shown.unused = scored.unused;
    Ok(shown)
}

/// The downloads of a SWITCH report: the submission row (JSON), and the
/// layout's rows as CSV, Markdown and LaTeX.
pub fn switch_downloads(
    file: &str,
    report: &switch::SwitchReport,
    doc: &Value,
    layout: switch::Layout,
) -> Vec<Download> {
    let slug: String = report
        .model
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let rows = view::switch::layout_rows(file, report, doc, layout);
    let which = match layout {
        switch::Layout::Paper => "paper",
        switch::Layout::Leaderboard => "leaderboard",
    };
    let mut out = vec![Download {
        file: file.into(),
        label: "Submission row (JSON)".into(),
        name: format!("switch-submission-{slug}.json"),
        mime: "application/json".into(),
        text: knoblab_score::export::switch_submission(&report.submission),
    }];
    for (label, ext, mime, text) in [
        ("CSV", "csv", "text/csv", knoblab_score::export::csv(&rows)),
        (
            "Markdown",
            "md",
            "text/markdown",
            knoblab_score::export::markdown(&rows),
        ),
        (
            "LaTeX rows",
            "tex",
            "application/x-tex",
            knoblab_score::export::latex_rows(&rows),
        ),
    ] {
        out.push(Download {
            file: file.into(),
            label: format!("{which} layout ({label})"),
            name: format!("switch-{which}-{slug}.{ext}"),
            mime: mime.into(),
            text,
        });
    }
    out
}

/// The trajectory files of a job that are not scored beside its first
/// one, each with why: their episodes are of another library version (the
/// core's rule, [`crate::scoring::metrics::one_library`], as `knoblab
/// metrics` applies it to the files it is given).
pub(super) fn library_refusals(units: &[Unit<'_>]) -> std::collections::BTreeMap<String, String> {
    let read: Vec<(String, TrajectoryFile)> = units
        .iter()
        .filter(|u| u.format.scores() == Some(Benchmark::Trajectories))
        .filter_map(|u| {
            let file = u.files.first()?;
            // A file that cannot be read is reported when it is scored.
            let read =
                knoblab_core::metrics::file::read_trajectory_file(&file.path, &file.bytes).ok()?;
            Some((u.name.clone(), read))
        })
        .collect();
    let mut out = std::collections::BTreeMap::new();
    if let Some(((first, first_file), rest)) = read.split_first() {
        for (name, file) in rest {
            let pair = [(first.as_str(), first_file), (name.as_str(), file)];
            if let Err(e) = crate::scoring::metrics::one_library(&pair) {
                out.insert(name.to_string(), e.to_string());
            }
        }
    }
    out
}

/// Scores trajectories as `knoblab metrics` does for one file
/// ([`crate::scoring::metrics::score_file`]: the generated devices it was
/// played on that are not among `bundles` are made).
pub fn score_trajectories(
    file: &InputFile,
    label: &str,
    mut bundles: Vec<Bundle>,
) -> Result<ReportView, ScoreError> {
    let read = knoblab_core::metrics::file::read_trajectory_file(&file.path, &file.bytes)
        .map_err(|e| ScoreError::Trajectories(Box::new(e)))?;
    let scored = crate::scoring::metrics::score_file(&file.path, &read, &mut bundles)?;
    let doc = scored.to_json()?;
    let agent = read
        .episodes
        .first()
        .map(|(_, t)| {
            t.settings
                .model
                .clone()
                .unwrap_or_else(|| t.settings.agent.clone())
        })
        .unwrap_or_default();
    let mut shown = view::trajectories::view(&file.path, label, &scored.run, &doc, &agent);
    if scored.api_errors > 0 {
        shown.notes.push(format!(
            "{}: {} episodes ended as api_error and are not scored",
            file.path, scored.api_errors
        ));
    }
    shown.unused = scored.unused;
    Ok(shown)
}
