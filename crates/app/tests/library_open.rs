#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! A library id becomes a device by one rule (`bundle::open_entry`), for
//! every reader: the library read natively lists all 968 devices; a
//! generated device opened by its id (`knoblab run`, `eval`'s bundles),
//! and from the library index (`eval --library`) is
//! the same device, whose JSON files hash to the manifest's (made in two
//! halves too, as the page makes it in a worker and checks it on its main
//! thread: `generated_files`, then `open_made`); and its
//! trajectories score against a bundles folder that cannot hold it
//! (`knoblab metrics`, the Score page's scorer). One generated device is
//! made, a few times (about 55 s of the suite in a debug build on this
//! machine under a load of 15).

use std::path::{Path, PathBuf};

use knoblab_app::devices::load_device;
use knoblab_app::devices::{generated_files, open_entry, read_library};
use knoblab_app::run::{load_library, DeviceFilter};
use knoblab_core::bundle::generated::{is_generated, GeneratedIndex};
use knoblab_core::bundle::open_made;
use knoblab_core::sim::{Settings, Trajectory};
use knoblab_devicegen::generated::{content_hash, Inputs};
use knoblab_eval::agents::{run_tasks, Oracle};

const DEVICE: &str = "microwave-g0003";

fn data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data")
}

#[test]
fn the_library_read_natively_lists_every_device_once() {
    let library = read_library(&data().join("library.json")).unwrap();
    assert_eq!(library.devices.len(), 968);
    let generated = library.devices.iter().filter(|d| is_generated(d)).count();
    assert_eq!(generated, 916);
    let mut ids: Vec<&str> = library.devices.iter().map(|d| d.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 968);
    // Adding the manifest twice lists nothing twice.
    let manifest =
        GeneratedIndex::parse(&std::fs::read(data().join("generated.json")).unwrap()).unwrap();
    assert_eq!(library.clone().with_generated(&manifest), library);
}

#[test]
fn a_generated_device_is_the_same_by_every_path_and_its_trajectories_score() {
    let manifest =
        GeneratedIndex::parse(&std::fs::read(data().join("generated.json")).unwrap()).unwrap();
    let entry = manifest.devices.iter().find(|d| d.id == DEVICE).unwrap();
    let made = Inputs::embedded().unwrap().open(DEVICE).unwrap();
    assert_eq!(content_hash(&made.files), entry.hash);

    let by_rule = open_entry(&entry.library_entry(), Vec::new())
        .into_result()
        .unwrap();
    let by_id = load_device(Path::new(DEVICE)).unwrap();
    let filter = DeviceFilter {
        devices: vec![DEVICE.to_string()],
        categories: Vec::new(),
    };
    let by_library = load_library(&data().join("library.json"), &filter).unwrap();
    assert_eq!(by_library.len(), 1);
    // The page's way: the files made in its worker, checked on its main thread.
    let by_halves = open_made(&entry.library_entry(), generated_files(DEVICE))
        .into_result()
        .unwrap();
    for other in [&by_id, &by_library[0], &by_halves] {
        assert_eq!(other.logic_hash(), by_rule.logic_hash());
        assert_eq!(
            other.views["front"].image.bytes[..],
            made.files["views/front.png"][..]
        );
    }

    // The oracle's trajectories, scored against the hand-described bundles'
    // folder (which has no folder for a generated device): made on demand.
    let mut oracle = Oracle::new(&by_rule);
    let trajectories = run_tasks(&by_rule, None, &mut oracle, &Settings::default()).unwrap();
    // Drawn, it is the library's device: its episodes record the library.
    let stamp = knoblab_core::bundle::stamp::shipped().unwrap().stamp();
    assert!(trajectories
        .iter()
        .all(|t| t.settings.library.as_ref() == Some(&stamp)));
    let dir = std::env::temp_dir().join(format!("knoblab-library-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("oracle.jsonl");
    std::fs::write(&file, Trajectory::to_json_lines(&trajectories).unwrap()).unwrap();
    let scored = knoblab_app::documents::metrics::metrics(
        std::slice::from_ref(&file),
        &data().join("devices"),
    )
    .unwrap();
    let run = &scored.runs[0].run;
    assert_eq!(run.episodes, entry.single + entry.multi);
    assert_eq!(run.metrics.sr, Some(1.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_device_the_worker_could_not_make_is_reported_as_open_entry_reports_it() {
    let manifest =
        GeneratedIndex::parse(&std::fs::read(data().join("generated.json")).unwrap()).unwrap();
    let entry = manifest.devices[0].library_entry();
    let checked = open_made(&entry, Err("the worker stopped".to_string()));
    assert!(checked.bundle.is_none());
    assert_eq!(checked.source, entry.id);
    assert_eq!(checked.diagnostics.len(), 1);
    let message = checked.diagnostics[0].to_string();
    assert!(
        message.contains(&format!(
            "the generated device {} could not be made",
            entry.id
        )) && message.contains("the worker stopped"),
        "{message}"
    );
    // An id that is not a generated device's is refused by the same words
    // whichever half is asked.
    let mut unknown = entry.clone();
    unknown.id = "lamp-g9999".to_string();
    assert_eq!(
        open_entry(&unknown, Vec::new()),
        open_made(&unknown, generated_files(&unknown.id))
    );
}
