//! `Episode::step` on the VGEBench kettle: parse, match, fire, goals,
//! budgets and recording, per action. Target: ≤ 2 µs per step natively.
//!
//! The episode cycles through a mix of outcomes (transition there and
//! back, hint, null, notification, view switches, invalid wait) on a task
//! whose goal the cycle never reaches, with a λ large enough that the
//! budget never ends it; every 1000 steps it is reset so the recorded
//! trajectory stays small (the reset is amortised over those steps).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};

use knoblab::bundle::model::{BboxOrigin, Manifest, FORMAT};
use knoblab::bundle::{Bundle, Goal, StateMachine, Task, View, ViewImage, ViewKind, ViewSpec};
use knoblab::sim::{Episode, Settings};

fn kettle() -> Bundle {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/vgebench-kettle/ssm.json"
    );
    let text = std::fs::read_to_string(path).expect("the shared kettle fixture");
    let ssm: StateMachine = serde_json::from_str(&text).expect("the kettle SSM parses");
    let mut views = BTreeMap::new();
    for (name, width, height, kind) in [
        ("back", 1138, 1122, ViewKind::Orthographic),
        ("bottom", 1195, 908, ViewKind::Orthographic),
        ("front", 1209, 1369, ViewKind::Orthographic),
        ("right", 786, 1191, ViewKind::Orthographic),
        ("top", 1292, 760, ViewKind::Orthographic),
        ("front_top", 1200, 1200, ViewKind::Axonometric),
    ] {
        views.insert(
            name.to_string(),
            View {
                spec: ViewSpec {
                    file: format!("views/{name}.png"),
                    kind,
                    parent: None,
                    region: None,
                },
                image: ViewImage {
                    width,
                    height,
                    media_type: "image/png".to_string(),
                    bytes: Arc::from(Vec::new()),
                },
            },
        );
    }
    Bundle {
        manifest: Manifest {
            format: FORMAT.to_string(),
            id: "kettle-0001".to_string(),
            category: "ElectricKettle".to_string(),
            name: "Electric kettle".to_string(),
            initial_view: "front".to_string(),
            license: String::new(),
            source: String::new(),
            bbox_origin: BboxOrigin::TopLeft,
        },
        ssm,
        views,
        tasks: vec![Task {
            id: "open_lid".to_string(),
            initial_state: None,
            initial_view: None,
            goals: vec![Goal {
                state: "LidOpen".to_string(),
                instruction: "Open the lid.".to_string(),
            }],
        }],
    }
}

const CYCLE: [&str; 8] = [
    "Thought: the lower button starts it.\nAction: Push(coord=[781, 725], params=[1])",
    "Push(coord=[781, 725], params=[0])",
    "Press(coord=[781, 725], params=[0])",
    "Push(coord=[10, 10], params=[1])",
    "Click(coord=[5, 5])",
    "Switch_view(params=[back])",
    "Switch_view(params=[front])",
    "Timed_wait()",
];

fn step(c: &mut Criterion) {
    let bundle = kettle();
    let settings = Settings::with_lambda(100_000_000);
    let mut episode = Episode::new(&bundle);
    episode
        .reset("open_lid", settings.clone())
        .expect("the task resets");
    let mut i = 0usize;
    c.bench_function("step_kettle", |b| {
        b.iter(|| {
            if i % 1000 == 999 {
                episode
                    .reset("open_lid", settings.clone())
                    .expect("the task resets");
            }
            let action = CYCLE[i % CYCLE.len()];
            i += 1;
            black_box(episode.step(black_box(action)).expect("the episode runs"))
        })
    });
}

/// The parser alone, over the same texts, for the breakdown.
fn parse(c: &mut Criterion) {
    let mut i = 0usize;
    c.bench_function("parse_action", |b| {
        b.iter(|| {
            let text = CYCLE[i % CYCLE.len()];
            i += 1;
            black_box(knoblab::sim::parse_action(black_box(text)))
        })
    });
}

criterion_group!(benches, step, parse);
criterion_main!(benches);
