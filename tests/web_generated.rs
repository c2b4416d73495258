//! The generated devices made in WebAssembly by the device worker's entries
//! (the page module's `worker::knoblab_draw_device`, in a dedicated worker of
//! headless Chromium, so the minutes a debug build takes to draw them do
//! not block the page the test runner polls): the same bytes as natively.
//! Run with `WASM_BINDGEN_TEST_TIMEOUT=900` (`scripts/dev.sh wasm-test`
//! sets it): a debug build draws a device in tens of seconds.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test: a panic here is a failed test

use std::collections::BTreeMap;

use knoblab_core::bundle::open_made;
use knoblab_page::browser::device_worker::files_of;
use knoblab_page::worker::{knoblab_draw_device, knoblab_provide_font};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// A seeded sample of three generated devices, made in the browser by the
/// library's one rule (`bundle::open_entry`), and by the page's way of
/// opening them: the device worker's entry (`knoblab_draw_device`) makes
/// the files, which travel as `[name, bytes]` pairs and are checked on the
/// main thread (`device_worker::files_of`, then `bundle::open_made`). Each
/// validates with no diagnostic, has the manifest's task counts, its JSON
/// files hash to the manifest's content hash, so the page's device is byte
/// for byte the native one, and its pictures are those `open_entry` makes.
/// (Seed 19, the number: a fixed, spread-out sample, not the first
/// three.)
#[wasm_bindgen_test]
async fn generated_devices_made_in_the_browser_are_the_manifests() {
    use knoblab_core::bundle::generated::GeneratedIndex;
    use knoblab_devicegen::generated::content_hash;
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
    // The worker fetches the font (it is not compiled into the module).
    knoblab_provide_font(include_bytes!("../data/gen/fonts/DejaVuSansCondensed-Bold.ttf").to_vec())
        .await
        .unwrap();
    for i in picked {
        let entry = &manifest.devices[i];
        // The worker's answer, as the main thread reads it.
        let answer = knoblab_draw_device(entry.id.clone()).await.unwrap();
        let files = files_of(&answer).unwrap();
        let made: BTreeMap<String, Vec<u8>> = files.iter().cloned().collect();
        assert_eq!(made.len(), files.len(), "{}: a file named twice", entry.id);
        assert_eq!(content_hash(&made), entry.hash, "{}", entry.id);
        let by_worker = open_made(&entry.library_entry(), Ok::<_, String>(files));
        let checked = knoblab_app::devices::open_entry(&entry.library_entry(), Vec::new());
        for checked in [&checked, &by_worker] {
            assert!(
                checked.diagnostics.is_empty(),
                "{}: {:?}",
                entry.id,
                checked.diagnostics
            );
        }
        let by_worker = by_worker.bundle.unwrap();
        let bundle = checked.bundle.unwrap();
        let single = bundle.tasks.iter().filter(|t| t.goals.len() == 1).count();
        assert_eq!(
            (single, bundle.tasks.len() - single),
            (entry.single, entry.multi),
            "{}",
            entry.id
        );
        // The two ways give one device: its logic, and every picture the
        // page shows is the one made with the files.
        assert_eq!(by_worker.logic_hash(), bundle.logic_hash(), "{}", entry.id);
        assert_eq!(by_worker.views.len(), bundle.views.len());
        for (name, view) in &bundle.views {
            assert_eq!(
                by_worker.views[name].image.bytes[..],
                view.image.bytes[..],
                "{}: view {name}",
                entry.id
            );
            assert_eq!(
                view.image.bytes[..],
                made[&format!("views/{name}.png")][..],
                "{}: view {name}",
                entry.id
            );
        }
    }
}

/// The device worker's entry refuses an id that is not a generated
/// device's, naming it. (A library card's picture is not drawn in the
/// browser: `knoblab library generate` commits it,
/// `crates/devicegen/tests/library_generated.rs` checks it.)
#[wasm_bindgen_test]
async fn the_device_worker_refuses_an_id_that_is_not_a_generated_devices() {
    knoblab_provide_font(include_bytes!("../data/gen/fonts/DejaVuSansCondensed-Bold.ttf").to_vec())
        .await
        .unwrap();
    let refused = knoblab_draw_device("lamp-g9999".to_string())
        .await
        .unwrap_err();
    let message = refused.as_string().unwrap();
    assert!(message.contains("lamp-g9999"), "{message}");
}

/// A generated device's logic as the Score and Leaderboard workers make it
/// for the trajectories played on it (`devices::open_entry_logic`): in
/// WebAssembly the code that scores holds no generator, so it is refused,
/// naming the device and the missing generator, until the worker gives it
/// (`knoblab_give_generator`, the chunk `draw_device` in the release);
/// then it is made, with the logic hash of the device drawn whole.
#[wasm_bindgen_test]
async fn a_generated_devices_logic_is_made_once_the_worker_gives_the_generator() {
    use knoblab_app::devices::{has_generator, open_entry, open_entry_logic};
    use knoblab_core::bundle::generated::GeneratedIndex;
    use knoblab_page::worker::knoblab_give_generator;

    let manifest = GeneratedIndex::parse(include_bytes!("../data/generated.json")).unwrap();
    let entry = manifest.devices[0].library_entry();
    assert!(!has_generator());
    let refused = open_entry_logic(&entry, Vec::new())
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains(&entry.id) && refused.contains("generator is not loaded"),
        "{refused}"
    );
    knoblab_give_generator(
        include_bytes!("../data/gen/fonts/DejaVuSansCondensed-Bold.ttf").to_vec(),
    )
    .await
    .unwrap();
    assert!(has_generator());
    let logic = open_entry_logic(&entry, Vec::new()).unwrap();
    let whole = open_entry(&entry, Vec::new()).into_result().unwrap();
    assert_eq!(logic.logic_hash(), whole.logic_hash(), "{}", entry.id);
}
