//! A 200-step episode through [`knoblab_eval::play::Session`], the player's
//! owning episode (issue #21): start, then 200 actions, each returning its
//! step. Before the owning episode, every `Session::step` ran the whole
//! action list again from reset, so an
//! episode cost O(n²) steps; now each step is one `Episode::step`.
//!
//! The episode cycles through the same mix of outcomes as `benches/step.rs`
//! on a task the cycle never solves, with a λ large enough that no budget
//! ends it.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};

use knoblab_core::bundle::Bundle;
use knoblab_core::sim::Settings;
use knoblab_eval::play::Session;

fn kettle() -> Arc<Bundle> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
    Arc::new(
        knoblab_core::bundle::load_path(std::path::Path::new(path))
            .expect("the kettle test bundle loads"),
    )
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

const STEPS: usize = 200;

fn session_200_steps(c: &mut Criterion) {
    let bundle = kettle();
    let settings = Settings::with_lambda(100_000_000);
    c.bench_function("session_200_steps", |b| {
        b.iter(|| {
            let mut session = Session::start(bundle.clone(), "open_lid", settings.clone())
                .expect("the task starts");
            for i in 0..STEPS {
                let step = session
                    .step(black_box(CYCLE[i % CYCLE.len()]))
                    .expect("the episode runs");
                black_box(step);
            }
            black_box(session.trajectory().steps.len())
        })
    });
}

criterion_group!(benches, session_200_steps);
criterion_main!(benches);
