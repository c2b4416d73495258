#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! `knoblab library build` end to end on one category's descriptions: it
//! writes bundles that load, an index that lists them, and a contact
//! sheet; a description naming a part the template does not have stops
//! the build with a message naming the device and the valid parts.

use std::path::{Path, PathBuf};
use std::process::Command;

use knoblab_core::bundle::{check_path, LibraryIndex};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// A fresh folder holding only `data/gen/Lamp.json` (changed by `edit`).
fn descriptions(name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lamp = std::fs::read_to_string(root().join("data/gen/Lamp.json")).unwrap();
    std::fs::write(dir.join("Lamp.json"), edit(lamp)).unwrap();
    dir
}

fn build(descriptions: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(["library", "build", "--descriptions"])
        .arg(descriptions)
        .arg("--ucsm")
        .arg(root().join("data/ucsm"))
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_build_writes_loadable_bundles_their_index_and_a_contact_sheet() {
    let dir = descriptions("library-build", |s| s);
    let out = dir.join("out");
    let result = build(&dir, &out);
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(stdout.starts_with("2 devices in 1 categories"), "{stdout}");
    let index = LibraryIndex::parse(&std::fs::read(out.join("library.json")).unwrap()).unwrap();
    let ids: Vec<&str> = index.devices.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["lamp-0001", "lamp-0002"]);
    for device in &index.devices {
        let checked = check_path(&out.join(&device.path));
        assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
        assert_eq!(checked.bundle.map(|b| b.tasks.len()), Some(device.tasks));
    }
    let sheet = std::fs::read(out.join("library-sheet.png")).unwrap();
    assert!(sheet.starts_with(b"\x89PNG"));
    // The live sheet's devices are microwaves, coffee machines and the
    // like: a build of lamps alone has none of them, so it writes none.
    assert!(!out.join("live-sheet.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_part_the_template_lacks_stops_the_build_and_names_the_device() {
    let dir = descriptions("library-bad-part", |s| {
        s.replacen("\"pull_chain\"", "\"pull_cord\"", 2)
    });
    let result = build(&dir, &dir.join("out"));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lamp-0001 (Lamp)"), "{stderr}");
    assert!(
        stderr.contains("\"pull_cord\" is not a part of the Lamp template"),
        "{stderr}"
    );
    assert!(
        stderr.contains("dimmer_knob, night_light_button, power_button, pull_chain"),
        "{stderr}"
    );
    assert!(
        !dir.join("out/library.json").exists(),
        "nothing is written when a device fails"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_takes_a_generated_devices_id_and_the_oracle_solves_its_tasks() {
    let out = std::env::temp_dir().join(format!("knoblab-gen-run-{}.jsonl", std::process::id()));
    let result = Command::new(env!("CARGO_BIN_EXE_knoblab"))
        .args(["run", "lamp-g0001", "--agent", "oracle", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert_eq!(stdout.lines().count(), 17, "{stdout}");
    assert!(stdout.lines().all(|l| l.ends_with("(solved)")), "{stdout}");
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 17);
    assert!(
        lines.contains("\"lamp-g0001\""),
        "the trajectories name the device"
    );
    let _ = std::fs::remove_file(&out);
}
