#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! The shipped device library (`data/devices/`, indexed by
//! `data/library.json`) is sound: every bundle validates without a single
//! diagnostic, the oracle solves every task within budget with perfect
//! metrics, every device has its tasks, and the library exercises every
//! mechanism the issue asks for.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use knoblab_core::bundle::model::TIMED_WAIT;
use knoblab_core::bundle::{check_path, Bundle, LibraryIndex, ViewKind};
use knoblab_core::sim::Settings;
use knoblab_eval::agents::{run_tasks, Oracle};

fn data() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data")
}

fn index() -> LibraryIndex {
    let bytes = std::fs::read(data().join("library.json")).expect("data/library.json");
    LibraryIndex::parse(&bytes).expect("a valid index")
}

/// Every shipped bundle, loaded from its folder.
fn library() -> Vec<Bundle> {
    index()
        .devices
        .iter()
        .map(|d| {
            check_path(&data().join(&d.path))
                .into_result()
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

#[test]
fn every_shipped_bundle_validates_without_any_diagnostic() {
    let mut problems = Vec::new();
    for device in &index().devices {
        let checked = check_path(&data().join(&device.path));
        problems.extend(
            checked
                .diagnostics
                .iter()
                .map(|d| format!("{}: {d}", device.id)),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_library_has_forty_devices_covering_all_26_categories() {
    let index = index();
    let categories: BTreeSet<&str> = index.devices.iter().map(|d| d.category.as_str()).collect();
    let templates = std::fs::read_dir(data().join("ucsm"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(templates, 26);
    assert_eq!(categories.len(), 26, "categories covered: {categories:?}");
    assert!(index.devices.len() >= 40, "{} devices", index.devices.len());
}

#[test]
fn every_device_has_five_single_and_five_multi_turn_tasks() {
    for bundle in library() {
        let single = bundle.tasks.iter().filter(|t| t.goals.len() == 1).count();
        let multi = bundle
            .tasks
            .iter()
            .filter(|t| (2..=4).contains(&t.goals.len()))
            .count();
        assert!(
            single >= 5 && multi >= 5,
            "{}: {single} single-turn, {multi} multi-turn",
            bundle.manifest.id
        );
        assert_eq!(single + multi, bundle.tasks.len(), "{}", bundle.manifest.id);
    }
}

#[test]
fn the_oracle_solves_every_shipped_task_within_budget_with_perfect_metrics() {
    let bundles = library();
    let mut trajectories = Vec::new();
    for bundle in &bundles {
        let mut oracle = Oracle::new(bundle);
        let ts = run_tasks(bundle, None, &mut oracle, &Settings::default()).unwrap();
        for t in &ts {
            assert!(
                t.goals_reached == t.goals_total && t.terminated && !t.truncated,
                "{} {}: {}/{} goals, truncated {}",
                bundle.manifest.id,
                t.task_id,
                t.goals_reached,
                t.goals_total,
                t.truncated
            );
        }
        trajectories.extend(ts);
    }
    let run = knoblab_core::metrics::run::run(&bundles, &trajectories).unwrap();
    let m = &run.metrics;
    assert_eq!(
        (m.sr, m.ssr, m.spl, m.psr),
        (Some(1.0), Some(1.0), Some(1.0), Some(1.0))
    );
    assert!(run.episodes >= 400, "{} episodes", run.episodes);
}

/// What a device exercises (issue 5, "Mechanisms exercised").
#[derive(Debug, Default)]
struct Coverage {
    dashboard: usize,
    timed_wait: usize,
    error: usize,
    rotate_direction_extent: usize,
    pull_push_pair: usize,
    grasp: usize,
}

#[test]
fn the_library_exercises_every_mechanism() {
    let mut c = Coverage::default();
    let mut single_view = Vec::new();
    let mut components = 0usize;
    for bundle in library() {
        let ssm = &bundle.ssm;
        let transitions: Vec<(&String, &knoblab_core::bundle::Transition)> = ssm
            .states
            .values()
            .flat_map(|s| {
                s.on.iter()
                    .flat_map(|(k, ts)| ts.iter().map(move |t| (k, t)))
            })
            .collect();
        let action_of =
            |t: &knoblab_core::bundle::Transition| t.atomic_action.clone().unwrap_or_default();
        c.dashboard += usize::from(
            bundle
                .views
                .values()
                .any(|v| v.spec.kind == ViewKind::Dashboard),
        );
        c.timed_wait += usize::from(transitions.iter().any(|(k, _)| *k == TIMED_WAIT));
        c.error += usize::from(ssm.states.iter().any(|(n, s)| s.is_error(n)));
        c.rotate_direction_extent += usize::from(transitions.iter().any(|(_, t)| {
            action_of(t) == "rotate" && t.parameter.as_ref().is_some_and(|p| p.len() == 2)
        }));
        let names: BTreeSet<&String> = transitions
            .iter()
            .filter(|(_, t)| t.is_physical())
            .map(|(k, _)| *k)
            .collect();
        c.pull_push_pair += usize::from(names.iter().any(|name| {
            let actions: BTreeSet<String> = transitions
                .iter()
                .filter(|(k, _)| k == name)
                .map(|(_, t)| action_of(t))
                .collect();
            actions.contains("pull") && actions.contains("push")
        }));
        c.grasp += usize::from(transitions.iter().any(|(_, t)| action_of(t) == "grasp"));
        for name in names {
            components += 1;
            let views: BTreeSet<&String> = transitions
                .iter()
                .filter(|(k, _)| *k == name)
                .flat_map(|(_, t)| t.bbox.iter().map(|b| &b.view))
                .collect();
            if views.len() < 2 {
                single_view.push(format!("{} {name}", bundle.manifest.id));
            }
        }
    }
    assert!(c.dashboard >= 5, "{c:?}");
    assert!(c.timed_wait >= 5, "{c:?}");
    assert!(c.error >= 5, "{c:?}");
    assert!(c.rotate_direction_extent >= 5, "{c:?}");
    assert!(c.pull_push_pair >= 5, "{c:?}");
    assert!(c.grasp >= 3, "{c:?}");
    // "A component visible in several views (most)": here, every one.
    assert!(
        single_view.is_empty(),
        "seen in one view only ({} of {components}): {single_view:?}",
        single_view.len()
    );
}
