#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! The device generator (`knoblab::devicegen`) and the shipped library
//! agree: every component box of every shipped view lies on the pixels the
//! generator draws for that component, and the committed files are what
//! the generator produces now (all JSON files, and the pictures of a
//! sample of devices), so the data cannot drift from its source.

use std::path::{Path, PathBuf};

use knoblab_core::bundle::{check_path, LibraryIndex};
use knoblab_devicegen::render::{drawn_bounds, parse, raster};
use knoblab_devicegen::views::{document, Only};
use knoblab_devicegen::{draw, entry, generate, read_descriptions, GEN_DIR, UCSM_DIR};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn descriptions() -> Vec<(
    knoblab_devicegen::CategoryFile,
    knoblab_core::bundle::StateMachine,
)> {
    read_descriptions(&root().join(GEN_DIR), &root().join(UCSM_DIR)).unwrap()
}

fn shipped(id: &str) -> PathBuf {
    root().join("data/devices").join(id)
}

/// How far, in pixels, a box edge may sit from the outermost drawn pixel:
/// the box is the drawing's exact outline rounded outward to whole
/// pixels, and anti-aliasing can leave that outer pixel row empty.
const EDGE_TOLERANCE: f64 = 1.0;

#[test]
fn every_box_of_every_view_lies_on_the_pixels_drawn_for_its_component() {
    let mut problems = Vec::new();
    let mut checked = 0usize;
    for (_, file) in descriptions().iter().map(|(f, u)| (u, f)) {
        for desc in &file.devices {
            let bundle = check_path(&shipped(&desc.id)).into_result().unwrap();
            let drawing = draw(desc).unwrap();
            for scene in &drawing.scenes {
                for (component, b) in bundle.component_boxes(&scene.name) {
                    let mask = raster(
                        &parse(&document(desc, scene, Only::Component(component)).unwrap())
                            .unwrap(),
                    )
                    .unwrap();
                    checked += 1;
                    let Some([x, y, w, h]) = drawn_bounds(&mask) else {
                        problems.push(format!(
                            "{} {} {component}: nothing drawn",
                            desc.id, scene.name
                        ));
                        continue;
                    };
                    let drawn = [x, y, x + w, y + h].map(f64::from);
                    let boxed = [b.x, b.y, b.x + b.w, b.y + b.h];
                    if drawn
                        .iter()
                        .zip(boxed)
                        .any(|(d, b)| (d - b).abs() > EDGE_TOLERANCE)
                    {
                        problems.push(format!(
                            "{} {} {component}: box {boxed:?}, drawn pixels {drawn:?}",
                            desc.id, scene.name
                        ));
                    }
                }
            }
        }
    }
    assert!(checked >= 450, "only {checked} boxes checked");
    assert!(
        problems.is_empty(),
        "{} of {checked} boxes off their pixels:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_committed_json_files_and_index_are_what_the_generator_makes() {
    let index =
        LibraryIndex::parse(&std::fs::read(root().join("data/library.json")).unwrap()).unwrap();
    let mut ids = Vec::new();
    for (file, ucsm) in descriptions() {
        for desc in &file.devices {
            let generated = generate(&file, desc, &ucsm, false).unwrap();
            for (name, bytes) in &generated.files {
                let committed = std::fs::read(shipped(&desc.id).join(name)).unwrap_or_default();
                assert!(
                    committed == *bytes,
                    "data/devices/{}/{name} differs from the generator's; run `make library`",
                    desc.id
                );
            }
            let listed = index
                .devices
                .iter()
                .find(|d| d.id == desc.id)
                .expect("indexed");
            let mut expected = entry(&generated);
            // Without pictures the generator lists only the JSON files (the
            // live layer is measured on pictures: it comes with them).
            expected.files = listed
                .files
                .iter()
                .filter(|f| !f.ends_with(".png") && *f != "live.json")
                .cloned()
                .collect();
            assert_eq!(
                expected.files,
                generated.files.keys().cloned().collect::<Vec<_>>()
            );
            expected.files = listed.files.clone();
            assert_eq!(*listed, expected, "data/library.json entry of {}", desc.id);
            ids.push(desc.id.clone());
        }
    }
    let listed: Vec<String> = index.devices.iter().map(|d| d.id.clone()).collect();
    assert_eq!(
        listed, ids,
        "data/library.json lists other devices than data/gen describes"
    );
}

/// Every fifth device is drawn again in full and compared byte for byte.
#[test]
fn a_sample_of_committed_pictures_is_what_the_generator_draws() {
    let mut compared = 0;
    for (i, (file, ucsm, desc)) in descriptions()
        .iter()
        .flat_map(|(f, u)| f.devices.iter().map(move |d| (f, u, d)))
        .enumerate()
    {
        if i % 5 != 0 {
            continue;
        }
        let generated = generate(file, desc, ucsm, true).unwrap();
        for (name, bytes) in generated
            .files
            .iter()
            .filter(|(n, _)| n.ends_with(".png") || *n == "live.json")
        {
            let committed = std::fs::read(shipped(&desc.id).join(name)).unwrap_or_default();
            assert!(
                committed == *bytes,
                "data/devices/{}/{name} differs from the generator's",
                desc.id
            );
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} pictures compared");
    assert!(Path::new(&root().join("data/library-sheet.png")).exists());
    assert!(Path::new(&root().join("data/live-sheet.png")).exists());
}
