//! The generated devices made in WebAssembly (in a dedicated worker of
//! headless Chromium, so the minutes a debug build takes to draw them do
//! not block the page the test runner polls): the same bytes as natively.
//! Run with `WASM_BINDGEN_TEST_TIMEOUT=900` (`scripts/dev.sh wasm-test`
//! sets it): a debug build draws a device in tens of seconds.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// A seeded sample of three generated devices, made in the browser by the
/// library's one rule (`bundle::open_entry`, as the page opens them): each
/// validates with no diagnostic, has the manifest's task counts, and its
/// JSON files hash to the manifest's content hash, so the page's device is
/// byte for byte the native one. (Seed 19, the number: a fixed,
/// spread-out sample, not the first three.)
#[wasm_bindgen_test]
fn generated_devices_made_in_the_browser_are_the_manifests() {
    use knoblab::bundle::generated::GeneratedIndex;
    use knoblab::devicegen::generated::{content_hash, Inputs};
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    let manifest = GeneratedIndex::parse(include_bytes!("../data/generated.json")).unwrap();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(19);
    let n = manifest.devices.len() as u64;
    let mut picked: Vec<usize> = Vec::new();
    while picked.len() < 3 {
        let i = (rng.next_u64() % n) as usize;
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    // The page fetches the font (it is not compiled into the module).
    knoblab::devicegen::render::provide_font(
        include_bytes!("../data/gen/fonts/DejaVuSansCondensed-Bold.ttf").to_vec(),
    )
    .unwrap();
    let inputs = Inputs::embedded().unwrap();
    for i in picked {
        let entry = &manifest.devices[i];
        let made = inputs.open(&entry.id).unwrap();
        assert_eq!(content_hash(&made.files), entry.hash, "{}", entry.id);
        let checked = knoblab::bundle::open_entry(&entry.library_entry(), Vec::new());
        assert!(
            checked.diagnostics.is_empty(),
            "{}: {:?}",
            entry.id,
            checked.diagnostics
        );
        let bundle = checked.bundle.unwrap();
        let single = bundle.tasks.iter().filter(|t| t.goals.len() == 1).count();
        assert_eq!(
            (single, bundle.tasks.len() - single),
            (entry.single, entry.multi),
            "{}",
            entry.id
        );
        // The front view the page shows is the one made with the files.
        assert_eq!(
            bundle.views["front"].image.bytes[..],
            made.files["views/front.png"][..]
        );
    }
}
