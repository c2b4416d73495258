//! The model agent's core without a model (issue #10): perturbation golden
//! images, the replay provider playing recorded episodes back through the
//! model agent, batches that resume, and reports that keep `api_error`
//! episodes apart.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

#[path = "../../../tests/support/mod.rs"]
mod support;

use std::io::Cursor;
use std::path::PathBuf;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use knoblab_core::metrics::file::EpisodeStatus;
use knoblab_core::sim::{Settings, Trajectory};
use knoblab_eval::agents::{run_episode, run_tasks, Oracle};
use knoblab_eval::vlm::batch::{plan, remaining, BatchItem, Progress};
use knoblab_eval::vlm::model_agent::Turn;
use knoblab_eval::vlm::perturb::{apply, Perturbation};
use knoblab_eval::vlm::{
    AgentSettings, BatchReport, CoordConvention, EpisodeRecord, RecordedAgent, RecordedAnswers,
    Usage,
};

use support::*;

fn golden_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/vlm")
}

/// A small picture with edges and colours, drawn in code so the goldens
/// depend on nothing else: a gradient, a dark disc and a light bar.
fn source_png() -> Vec<u8> {
    let image = RgbImage::from_fn(96, 64, |x, y| {
        let (dx, dy) = (x as i32 - 30, y as i32 - 32);
        if dx * dx + dy * dy < 15 * 15 {
            Rgb([30, 40, 90])
        } else if (60..84).contains(&x) && (10..54).contains(&y) {
            Rgb([240, 220, 120])
        } else {
            Rgb([(x * 2) as u8 + 40, (y * 3) as u8 + 30, 160])
        }
    });
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(image)
        .write_to(&mut out, ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

/// Each perturbation of the source equals its golden file byte for byte.
/// `REGENERATE=1 cargo test --test vlm` rewrites them, on purpose only.
#[test]
fn perturbations_match_their_golden_images() {
    let source = source_png();
    let regenerate = std::env::var_os("REGENERATE").is_some();
    for p in Perturbation::CHOICES {
        let out = apply(&source, p, 42).unwrap();
        let ext = if out.media_type == "image/jpeg" {
            "jpg"
        } else {
            "png"
        };
        let path = golden_dir().join(format!("{}.{ext}", p.to_string().replace(':', "-")));
        if regenerate {
            std::fs::write(&path, &out.bytes).unwrap();
            continue;
        }
        let golden = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (REGENERATE=1 writes it)", path.display()));
        assert!(out.bytes == golden, "{p} differs from {}", path.display());
    }
}

#[test]
fn perturbations_do_what_they_say() {
    let source = source_png();
    let original = image::load_from_memory(&source).unwrap().to_rgb8();
    let black = |img: &RgbImage| img.pixels().filter(|p| p.0 == [0, 0, 0]).count();
    // The source has no black pixel, so black ones are the patches.
    assert_eq!(black(&original), 0);
    for percent in [10u8, 25, 40] {
        let out = apply(&source, Perturbation::Patches { percent }, 7).unwrap();
        let img = image::load_from_memory(&out.bytes).unwrap().to_rgb8();
        let share = black(&img) as f64 / (96.0 * 64.0) * 100.0;
        // Whole-pixel squares on a 96×64 picture: rounding an 18-pixel side
        // moves the share by up to 2.5 points.
        assert!(
            (share - f64::from(percent)).abs() < 2.5,
            "{percent}%: {share:.2}%"
        );
    }
    // A blur smooths: the sum of horizontal differences falls as σ grows.
    let roughness = |img: &RgbImage| -> u64 {
        img.enumerate_pixels()
            .filter(|(x, _, _)| *x > 0)
            .map(|(x, y, p)| u64::from(p.0[0].abs_diff(img.get_pixel(x - 1, y).0[0])))
            .sum()
    };
    let mut last = roughness(&original);
    for sigma in [1u8, 3, 5] {
        let out = apply(&source, Perturbation::Blur { sigma }, 0).unwrap();
        let r = roughness(&image::load_from_memory(&out.bytes).unwrap().to_rgb8());
        assert!(r < last, "σ {sigma}: {r} not below {last}");
        last = r;
    }
    // Lower JPEG quality, fewer bytes.
    let q50 = apply(&source, Perturbation::Jpeg { quality: 50 }, 0).unwrap();
    let q20 = apply(&source, Perturbation::Jpeg { quality: 20 }, 0).unwrap();
    assert_eq!(q20.media_type, "image/jpeg");
    assert!(q20.bytes.len() < q50.bytes.len());
}

fn oracle_lines(bundle: &knoblab_core::bundle::Bundle) -> (Vec<Trajectory>, String) {
    let mut oracle = Oracle::new(bundle);
    let runs = run_tasks(bundle, None, &mut oracle, &Settings::default()).unwrap();
    let text = Trajectory::to_json_lines(&runs).unwrap();
    (runs, text)
}

/// Played back through the model agent (prompt, reply, coordinate
/// conversion, parser), an oracle's recorded trajectories come out with the
/// same steps, on every file bundle and task.
#[test]
fn the_replay_provider_reproduces_recorded_episodes() {
    for bundle in file_bundles() {
        let (runs, text) = oracle_lines(&bundle);
        let replay = RecordedAnswers::parse(&text).unwrap();
        assert_eq!(replay.len(), runs.len());
        let mut agent = RecordedAgent::new(&bundle, replay, AgentSettings::default());
        for original in &runs {
            let again =
                run_episode(&bundle, &original.task_id, &mut agent, &original.settings).unwrap();
            assert_eq!(again.steps, original.steps, "{}", original.task_id);
            assert_eq!(agent.model().turns().len(), original.steps.len());
            assert!(agent
                .model()
                .turns()
                .iter()
                .all(|t| t.parse_error.is_none()));
        }
    }
}

/// A recording whose replies use fractions is replayed with the 0–1
/// convention and lands on the same points as the 0–1000 original.
#[test]
fn recorded_replies_in_another_convention_are_converted() {
    let bundle = file_bundles().remove(0);
    let (runs, _) = oracle_lines(&bundle);
    let original = &runs[0];
    let turns: Vec<Turn> = original
        .steps
        .iter()
        .map(|s| {
            let reply = to_unit(&s.action);
            Turn {
                reply: Some(format!("Thought: here.\nAction: {reply}")),
                action: reply,
                attempts: 1,
                ..Turn::default()
            }
        })
        .collect();
    let record = EpisodeRecord {
        trajectory: original.clone(),
        item: "x".into(),
        status: EpisodeStatus::Finished,
        turns,
        usage: Usage::default(),
        cost: None,
    };
    let replay = RecordedAnswers::parse(&EpisodeRecord::to_lines(&[record]).unwrap()).unwrap();
    let settings = AgentSettings {
        coords: CoordConvention::Unit,
        ..AgentSettings::default()
    };
    let mut agent = RecordedAgent::new(&bundle, replay, settings);
    let again = run_episode(&bundle, &original.task_id, &mut agent, &original.settings).unwrap();
    assert_eq!(again.goals_reached, original.goals_reached);
    assert_eq!(
        again.actions().collect::<Vec<_>>(),
        original.actions().collect::<Vec<_>>()
    );
}

/// `coord=[x, y]` on 0–1000 rewritten as fractions with three decimals
/// (exact, so converting back gives the same integers).
fn to_unit(action: &str) -> String {
    let Some(start) = action.find("coord=[") else {
        return action.to_string();
    };
    let rest = &action[start + 7..];
    let end = rest.find(']').unwrap();
    let nums: Vec<f64> = rest[..end]
        .split(',')
        .map(|n| n.trim().parse().unwrap())
        .collect();
    format!(
        "{}coord=[{:.3}, {:.3}]{}",
        &action[..start],
        nums[0] / 1000.0,
        nums[1] / 1000.0,
        &rest[end + 1..]
    )
}

fn record(t: &Trajectory, item: &BatchItem, status: EpisodeStatus) -> EpisodeRecord {
    let mut turns = Vec::new();
    if status == EpisodeStatus::ApiError {
        turns.push(Turn {
            api_error: Some("HTTP 500: boom".into()),
            attempts: 4,
            ..Turn::default()
        });
    }
    EpisodeRecord {
        trajectory: t.clone(),
        item: item.key(),
        status,
        turns,
        usage: Usage {
            input_tokens: 1_000,
            output_tokens: 100,
        },
        cost: Some(0.01),
    }
}

#[test]
fn a_resumed_batch_runs_exactly_what_is_left_and_api_errors_are_reported_apart() {
    let bundle = kettle();
    let (runs, _) = oracle_lines(&bundle);
    let tasks = vec![(
        bundle.manifest.id.clone(),
        runs.iter().map(|t| t.task_id.clone()).collect::<Vec<_>>(),
    )];
    let items = plan(&tasks, 2);
    assert_eq!(items.len(), runs.len() * 2);
    // Half done before the reload, the last of them an api_error.
    let half = items.len() / 2;
    let mut done: Vec<EpisodeRecord> = items[..half]
        .iter()
        .map(|i| {
            let t = runs.iter().find(|t| t.task_id == i.task_id).unwrap();
            record(t, i, EpisodeStatus::Finished)
        })
        .collect();
    if let Some(last) = done.last_mut() {
        last.status = EpisodeStatus::ApiError;
        last.turns.push(Turn {
            api_error: Some("timed out after 60 s".into()),
            ..Turn::default()
        });
    }
    let left = remaining(&items, &done);
    assert_eq!(left, items[half..].to_vec());

    let report = BatchReport::new(std::slice::from_ref(&bundle), &done).unwrap();
    assert_eq!(report.api_errors, 1);
    assert_eq!(report.scored, half - 1);
    let metrics = report.metrics.as_ref().unwrap();
    assert_eq!(metrics.episodes, half - 1);
    assert_eq!(
        metrics.metrics.sr,
        Some(1.0),
        "the oracle's episodes all succeed"
    );
    assert_eq!(report.usage.input_tokens, 1_000 * half as u64);
    let csv = report.to_csv("oracle, λ=5");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..4], ["run", "episodes", "api_error", "SR"]);
    assert!(lines
        .next()
        .unwrap()
        .starts_with(&format!("\"oracle, λ=5\",{},1,100.0,", half - 1)));

    let progress = Progress::new(&done, items.len(), 2, 10_000, |_| None);
    assert_eq!((progress.done, progress.api_errors), (half, 1));
    assert_eq!(progress.eta_ms, Some(5_000 * (items.len() - half) as u64));
}

/// An exported line is still a trajectory for every tool that reads them.
#[test]
fn exported_records_read_back_as_records_and_as_trajectories() {
    let bundle = kettle();
    let (runs, _) = oracle_lines(&bundle);
    let item = BatchItem {
        bundle_id: bundle.manifest.id.clone(),
        task_id: runs[0].task_id.clone(),
        repeat: 0,
    };
    let r = record(&runs[0], &item, EpisodeStatus::ApiError);
    let text = EpisodeRecord::to_lines(std::slice::from_ref(&r)).unwrap();
    assert_eq!(EpisodeRecord::parse_lines(&text).unwrap(), vec![r.clone()]);
    let t = Trajectory::from_json_line(text.trim_end()).unwrap();
    assert_eq!(t, runs[0]);
    assert!(text.contains("\"status\":\"api_error\""));
    assert_eq!(r.api_error(), Some("HTTP 500: boom"));
    let err = EpisodeRecord::parse_lines("{}\nnot json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 1") && err.contains("line 2"), "{err}");
}
