//! `Episode::step` on the VGEBench kettle: parse, match, fire, goals,
//! budgets and recording, per action. Target: ≤ 2 µs per step natively.
//!
//! The episode cycles through a mix of outcomes (transition there and
//! back, hint, null, notification, view switches, invalid wait) on a task
//! whose goal the cycle never reaches, with a λ large enough that the
//! budget never ends it; every 1000 steps it is reset so the recorded
//! trajectory stays small (the reset is amortised over those steps).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use knoblab_core::bundle::Bundle;
use knoblab_core::sim::{Episode, Settings};

/// The kettle test bundle (`tests/fixtures/kettle`: the published SSM with
/// blank views of the sizes its boxes declare), loaded as a user's would be.
fn kettle() -> Bundle {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
    knoblab_core::bundle::load_path(std::path::Path::new(path))
        .expect("the kettle test bundle loads")
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
            black_box(knoblab_core::sim::parse_action(black_box(text)))
        })
    });
}

criterion_group!(benches, step, parse);
criterion_main!(benches);
