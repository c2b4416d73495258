//! Every input that once crashed a fuzz target, fed again through the same
//! harness function (`fuzz/harness.rs`), natively, on every `cargo test`.
//! An input lives in `tests/fuzz_regressions/<target>/`, named after the
//! bug it found; its fix is in the commit that added it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::path::Path;

#[path = "../../../fuzz/harness.rs"]
mod harness;

#[test]
fn every_recorded_crash_input_now_passes_its_harness() {
    let root =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fuzz_regressions");
    let mut ran = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let folder = entry.unwrap().path();
        let target = folder.file_name().unwrap().to_string_lossy().into_owned();
        let Some((_, run)) = harness::TARGETS.iter().find(|(name, _)| *name == target) else {
            panic!("{}: no fuzz target is called {target}", folder.display());
        };
        for input in std::fs::read_dir(&folder).unwrap() {
            let path = input.unwrap().path();
            run(&std::fs::read(&path).unwrap());
            ran.push(path);
        }
    }
    // The inputs exist: an emptied folder would make this test pass for nothing.
    assert!(!ran.is_empty(), "no input under {}", root.display());
}
