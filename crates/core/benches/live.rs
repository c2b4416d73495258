//! A live step's picture (`knoblab_core::sim::render`): the current view drawn
//! for the current state of a library device, natively.
//!
//! - `live_picture_cached`: what an agent loop pays per step with one
//!   [`Renderer`] kept for the episode (the views and sheets decoded once):
//!   laying the state's patches over the view and encoding the PNG.
//! - `live_picture_cold`: the same with nothing kept (decode the view and
//!   its sheet every time), what `Episode::picture` and the page pay.
//! - `static_picture`: the static mode, for comparison (the bundle's bytes).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)] // a benchmark: criterion's macros write undocumented items, and a setup that fails should stop it

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use knoblab_core::bundle::Bundle;
use knoblab_core::sim::render::{render, RenderMode, Renderer};

/// The first microwave of the library: a door, a display, a lamp, a dial.
fn microwave() -> Bundle {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/devices/microwave-0001"
    );
    knoblab_core::bundle::load_path(std::path::Path::new(path)).expect("the microwave loads")
}

const STATES: [&str; 4] = ["Standby", "Heating", "DoorOpen", "CookingComplete"];

fn pictures(c: &mut Criterion) {
    let bundle = microwave();
    let mut renderer = Renderer::new(&bundle);
    let mut i = 0usize;
    c.bench_function("live_picture_cached", |b| {
        b.iter(|| {
            i += 1;
            black_box(
                renderer
                    .render(STATES[i % STATES.len()], "front", RenderMode::Live)
                    .expect("drawn"),
            )
        })
    });
    c.bench_function("live_picture_cold", |b| {
        b.iter(|| {
            i += 1;
            black_box(
                render(&bundle, STATES[i % STATES.len()], "front", RenderMode::Live)
                    .expect("drawn"),
            )
        })
    });
    c.bench_function("static_picture", |b| {
        b.iter(|| {
            i += 1;
            black_box(
                renderer
                    .render(STATES[i % STATES.len()], "front", RenderMode::Static)
                    .expect("shown"),
            )
        })
    });
}

criterion_group!(benches, pictures);
criterion_main!(benches);
