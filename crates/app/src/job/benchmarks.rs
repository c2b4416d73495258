//! Scoring one unit of a job with its benchmark's core entry, as the CLI
//! does on the same bytes: EPIC-Bench (or merging its shards),
//! FineState-Bench, SWITCH and KnobLab trajectories.

use serde_json::Value;

use super::error::UnitError;
use super::files::{file_name, folder_of, Unit};
use super::ground::Ground;
use super::{BundleFiles, Download, InputFile, JobOptions, SwitchOptions};
use knoblab_core::bundle::Bundle;
use knoblab_core::sim::Trajectory;
use knoblab_score::detect::{Benchmark, Format};
use knoblab_score::epic::report::Shard;
use knoblab_score::epic::{self, GroundTruthSource, RunOptions};
use knoblab_score::finestate::{
    evaluate::OfficialOptions,
    files::MemFiles,
    loader::{load_dataset, ImagePolicy},
    parser::ParserBuild,
    predictions::{read_predictions, read_result_files, PredictionSet},
    report::{score, ScoreOptions},
};
use knoblab_score::switch::{self, predictions as switch_predictions};
use knoblab_score::view::{self, ReportView};

pub(super) fn text_of(file: &InputFile) -> Result<&str, UnitError> {
    knoblab_core::input::text::decode(&file.bytes).map_err(|problem| UnitError::Text {
        path: file.path.clone(),
        problem,
    })
}

pub(super) fn score_unit(
    unit: &Unit,
    options: &JobOptions,
    bundles: &[BundleFiles],
    ground: &mut Ground,
    epic_merged: Option<super::EpicMerged>,
) -> Result<ReportView, UnitError> {
    let first = unit.files.first().ok_or(UnitError::Nothing)?;
    match unit.format.scores() {
        Some(Benchmark::Epic) => match epic_merged {
            Some(m) => epic_view(first, &unit.label, m.merge.finish(), m.warnings),
            None => score_epic(first, &unit.label, options, ground.epic()),
        },
        Some(Benchmark::FineState) => {
            let preds = if unit.format == Format::FineStateResultFile {
                let files: Vec<(String, Vec<u8>)> = unit
                    .files
                    .iter()
                    .map(|f| (file_name(&f.path).to_string(), f.bytes.clone()))
                    .collect();
                read_result_files(&files)
            } else {
                read_predictions(&first.path, &first.bytes)
                    .map_err(|e| UnitError::FineStatePredictions(Box::new(e)))?
            };
            score_finestate(&unit.name, &unit.label, options, &preds, ground.finestate())
        }
        Some(Benchmark::Switch) => {
            score_switch(first, &unit.label, unit.format, &options.switch, ground)
        }
        Some(Benchmark::Trajectories) => {
            let given = ground.bundles(bundles)?;
            let made = generated_bundles(first, given)?;
            if made.is_empty() {
                score_trajectories(first, &unit.label, given)
            } else {
                let all: Vec<Bundle> = given.iter().cloned().chain(made).collect();
                score_trajectories(first, &unit.label, &all)
            }
        }
        None => Err(UnitError::NotResults {
            name: unit.name.clone(),
        }),
    }
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

/// Scores EPIC-Bench predictions as `knoblab score epic` does, through a
/// shard digest of the whole run ([`epic::shard`]), as the page's workers
/// score theirs: the view carries each item's row, and its details are
/// scored again when opened ([`super::epic_item`]).
pub fn score_epic(
    file: &InputFile,
    label: &str,
    options: &JobOptions,
    gt: &dyn GroundTruthSource,
) -> Result<ReportView, UnitError> {
    let text = text_of(file)?;
    let opts = epic_options(file, options);
    let report = epic::shard::digest_shard(text, gt, &opts, Shard::ALL).and_then(|d| {
        let mut m = epic::shard::Merge::new();
        m.add(d)?;
        m.finish()
    });
    epic_view(file, label, report, None)
}

/// The view of an EPIC-Bench report, scored whole or merged from shards;
/// `warnings` are the intake's when a shard brought them (else the file is
/// read for them here).
fn epic_view(
    file: &InputFile,
    label: &str,
    report: Result<epic::Report, epic::report::EpicError>,
    warnings: Option<Vec<String>>,
) -> Result<ReportView, UnitError> {
    let report = report.map_err(|problem| UnitError::Epic {
        path: file.path.clone(),
        problem,
    })?;
    if report.gt_expected > 0 && report.gt_found == 0 {
        return Err(UnitError::NoEpicGroundTruth {
            path: file.path.clone(),
            coverage: report.gt_coverage_message(),
        });
    }
    // The view's tables read only the summaries of the CLI's document.
    let doc = epic::render::summaries_json(&report);
    let mut shown = view::epic::view(&file.path, label, &report, &doc);
    // Nothing dropped silently (issue #23): the lines skipped and the
    // samples given twice, as `knoblab score epic` reports them.
    let warnings = match warnings {
        Some(w) => w,
        None => epic::intake::intake(text_of(file)?).warnings(),
    };
    shown.notes.extend(warnings);
    Ok(shown)
}

/// Scores FineState-Bench predictions as `knoblab score finestate` does.
pub fn score_finestate(
    name: &str,
    label: &str,
    options: &JobOptions,
    preds: &PredictionSet,
    files: &MemFiles,
) -> Result<ReportView, UnitError> {
    let model = options
        .finestate_model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .ok_or_else(|| UnitError::FineStateModel {
            name: name.to_string(),
        })?;
    let parser: ParserBuild = options
        .finestate_parser
        .as_deref()
        .unwrap_or("py")
        .parse()
        .map_err(UnitError::FineStateParser)?;
    let data = load_dataset(files, ImagePolicy::Check);
    if data.instances.is_empty() {
        return Err(UnitError::FineStateDataset {
            name: name.to_string(),
            skipped: data.skipped.len(),
        });
    }
    let options = ScoreOptions {
        official: OfficialOptions {
            model: Some(model),
            parser,
            vda: preds.vda(false).0,
        },
        convention: Default::default(),
    };
    let report = score(&data, preds, &options);
    let doc = report.to_json(None);
    let mut shown = view::finestate::view(name, label, &report, &doc);
    shown.notes.extend(report.gap_notes());
    Ok(shown)
}

/// Scores SWITCH predictions (or video judgements) as `knoblab score switch` does.
fn score_switch(
    file: &InputFile,
    label: &str,
    format: Format,
    options: &SwitchOptions,
    ground: &mut Ground,
) -> Result<ReportView, UnitError> {
    let report = if format == Format::SwitchVideoJudge {
        switch::SwitchReport {
            video: Some(switch::score_videos(&file.path, &file.bytes).map_err(UnitError::Switch)?),
            ..Default::default()
        }
    } else {
        let gt = ground
            .switch(options)
            .map_err(|problem| UnitError::SwitchGroundTruth {
                path: file.path.clone(),
                problem,
            })?;
        let preds = switch_predictions::read_predictions(&file.path, &file.bytes)
            .map_err(UnitError::Switch)?;
        switch::build_report_with(gt, &file.path, &preds, &options.report)
            .map_err(UnitError::Switch)?
    };
    let doc = serde_json::to_value(&report)?;
    if !report.per_item.is_empty() {
        ground
            .downloads
            .extend(switch_downloads(&file.path, &report, &doc, options.layout));
    }
    Ok(view::switch::view_in(
        &file.path,
        label,
        &report,
        &doc,
        options.layout,
    ))
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

/// The generated devices the trajectories of `file` were played on that
/// are not among `given` ([`crate::devices::open_missing_generated`]): a
/// generated device has no files to ship, so the page sends none and the
/// scorer makes the ones it needs.
fn generated_bundles(file: &InputFile, given: &[Bundle]) -> Result<Vec<Bundle>, UnitError> {
    let Ok(read) = knoblab_core::metrics::file::read_trajectory_file(&file.path, &file.bytes)
    else {
        // Scoring reads the file again and reports what is wrong with it.
        return Ok(Vec::new());
    };
    crate::devices::open_missing_generated(
        read.episodes.iter().map(|(_, t)| t.bundle_id.as_str()),
        given,
    )
    .map_err(|problem| UnitError::Devices {
        path: file.path.clone(),
        problem: Box::new(problem),
    })
}

/// The trajectory files of a job that are not scored beside its first
/// one, each with why: their episodes are of another library version (the
/// core's rule, [`knoblab_core::metrics::one_library`], as `knoblab metrics`
/// applies it to the files it is given).
pub(super) fn library_refusals(units: &[Unit]) -> std::collections::BTreeMap<String, String> {
    let read: Vec<(String, knoblab_core::metrics::file::TrajectoryFile)> = units
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
    let numbered: Vec<(&str, Vec<(usize, &Trajectory)>)> = read
        .iter()
        .map(|(name, f)| {
            (
                name.as_str(),
                f.episodes.iter().map(|(l, t)| (*l, t)).collect(),
            )
        })
        .collect();
    let mut out = std::collections::BTreeMap::new();
    if let Some(((first, first_episodes), rest)) = numbered.split_first() {
        for (name, episodes) in rest {
            let pair = [
                (Some(*first), first_episodes.as_slice()),
                (Some(*name), episodes.as_slice()),
            ];
            if let Err(e) = knoblab_core::metrics::one_library(&pair) {
                out.insert(name.to_string(), e.to_string());
            }
        }
    }
    out
}

/// Scores trajectories as `knoblab metrics` does for one file.
pub fn score_trajectories(
    file: &InputFile,
    label: &str,
    bundles: &[Bundle],
) -> Result<ReportView, UnitError> {
    let read = knoblab_core::metrics::file::read_trajectory_file(&file.path, &file.bytes)
        .map_err(|e| UnitError::Trajectories(Box::new(e)))?;
    let trajectories = &read.episodes;
    let numbered: Vec<(usize, &Trajectory)> = trajectories.iter().map(|(l, t)| (*l, t)).collect();
    let run = knoblab_core::metrics::run_numbered(bundles, &numbered).map_err(|problem| {
        UnitError::Metrics {
            path: file.path.clone(),
            problem: Box::new(problem),
        }
    })?;
    let mut doc = serde_json::to_value(&run)?;
    if let Value::Object(m) = &mut doc {
        m.insert("file".into(), Value::String(file.path.clone()));
    }
    let agent = trajectories
        .first()
        .map(|(_, t)| {
            t.settings
                .model
                .clone()
                .unwrap_or_else(|| t.settings.agent.clone())
        })
        .unwrap_or_default();
    let mut shown = view::trajectories::view(&file.path, label, &run, &doc, &agent);
    if read.api_errors > 0 {
        shown.notes.push(format!(
            "{}: {} episodes ended as api_error and are not scored",
            file.path, read.api_errors
        ));
    }
    Ok(shown)
}
