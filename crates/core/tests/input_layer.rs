//! Every reader the CLI, the page and the Python package use goes through
//! the input layer (`knoblab_core::input`, issue #23). A source-level check:
//! outside `crates/core/src/input/`, no code of a crate's `src/`, the page's or
//! `bindings/python/src/`
//! (tests excluded) reads a file, decodes bytes as
//! text, parses JSON or opens a zip by itself, except the places listed in
//! [`ALLOWED`] with the reason; and each reader listed in [`READERS`]
//! calls the layer. Adding a reader means adding it to one of the lists.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::Path;

/// Calls that read or decode input by themselves.
const PATTERNS: &[&str] = &[
    "std::fs::read(",
    "fs::read_to_string",
    "File::open",
    "serde_json::from_slice",
    "serde_json::from_str",
    "serde_json::from_reader",
    "ZipArchive::new",
    "std::str::from_utf8",
    "String::from_utf8(",
];

/// Where such a call is allowed, and why (file → reason). Each entry must
/// still have a match, so the list stays true.
const ALLOWED: &[(&str, &str)] = &[
    // Formats whose official reader is Python's `json` (the last of two
    // equal keys wins): parity keeps that; the bytes are decoded by the
    // input layer first.
    ("crates/score/src/finestate/loader.rs", "FineState annotations: Python json semantics (parity)"),
    ("crates/score/src/finestate/predictions.rs", "FineState predictions: Python json semantics (parity); text decoded by input::text"),
    ("crates/score/src/finestate/desktop.rs", "FineState desktop annotations: Python json semantics (parity)"),
    ("crates/score/src/finestate/synthetic.rs", "generates test data"),
    ("crates/score/src/switch/fields.rs", "SWITCH predictions, release rows and video-judge outputs (json_records): duplicates refused by line, text decoded first"),
    ("crates/score/src/switch/load.rs", "SWITCH vqa.json: Python json semantics (parity); files read by input::fs, zips by input::zip"),
    ("crates/score/src/switch/release.rs", "SWITCH release rows and answers: Python json semantics (parity); text decoded by input::text, files read by input::fs and input::zip"),
    ("crates/score/src/switch/judge.rs", "a model's reply body, not a file"),
    ("crates/score/src/detect.rs", "format probing of bytes already read by the input layer"),
    // Not files from users.
    ("crates/core/src/sim/trajectory.rs", "Trajectory::from_json_line, the record type's own parser; files go through metrics::file"),
    ("crates/eval/src/play/baseline.rs", "the page's own saved human-baseline runs"),
    ("crates/eval/src/play/share.rs", "a share link's compressed actions, bounded by the URL"),
    ("crates/eval/src/vlm/reply.rs", "a model's reply body"),
    ("crates/eval/src/vlm/record.rs", "EpisodeRecord::parse_lines, the record type's own parser for text already decoded; files go through metrics::file and eval::output"),
    ("crates/eval/src/vlm/recorded.rs", "episode records written by `knoblab eval`"),
    ("crates/devicegen/src/lib.rs", "the repository's own device descriptions (build time)"),
    ("crates/core/src/bundle/generated.rs", "GeneratedIndex::parse, the manifest type's own parser for bytes already read; the CLI reads the file through cli::read"),
    ("crates/devicegen/src/generated.rs", "the repository's own descriptions, design space and manifest, compiled in; the CLI reads a manifest file through cli::read"),
    ("crates/devicegen/src/vary.rs", "the repository's own design space (data/gen/space/space.json), compiled in"),
    ("src/browser/indexeddb.rs", "the page's own IndexedDB records"),
    ("src/pages/score/files.rs", "the page's own sample index"),
    ("src/pages/score/worker.rs", "messages between the page and its worker"),
    ("src/pages/score/mod.rs", "messages between the page and its worker"),
    ("crates/app/src/job/mod.rs", "the page's EPIC shard messages between its workers"),
    ("crates/app/src/job/workers.rs", "the job options the page serialises for its workers"),
    ("crates/score/src/epic/wire.rs", "EPIC shards the page's workers send each other"),
    ("bindings/python/src/scoring.rs", "the EPIC document KnobLab itself just wrote (String::from_utf8 of serde_json's output)"),
];

/// The readers the CLI and the page use, each with the input-layer call it
/// must make.
const READERS: &[(&str, &str)] = &[
    (
        "crates/cli/src/read.rs",
        "knoblab_core::input::fs::{read_nonempty, read_regular}",
    ),
    (
        "crates/cli/src/read.rs",
        "knoblab_core::input::json::from_bytes",
    ),
    ("crates/cli/src/derive.rs", "write_atomic"),
    ("crates/cli/src/derive.rs", "check_output_not_input"),
    ("crates/cli/src/run.rs", "check_output_not_input"),
    ("crates/cli/src/run.rs", "check_lambda"),
    ("crates/core/src/bundle/source.rs", "BoundedZip"),
    (
        "crates/core/src/bundle/source.rs",
        "crate::input::fs::read_regular",
    ),
    (
        "crates/core/src/bundle/source.rs",
        "crate::input::path::normalize",
    ),
    (
        "crates/core/src/bundle/load.rs",
        "crate::input::json::from_bytes",
    ),
    (
        "crates/core/src/bundle/load.rs",
        "crate::input::fs::read_regular",
    ),
    (
        "crates/score/src/limits.rs",
        "knoblab_core::input::fs::read_regular",
    ),
    ("crates/app/src/job/files.rs", "BoundedZip"),
    ("crates/app/src/job/benchmarks.rs", "read_trajectory_file"),
    (
        "crates/app/src/job/benchmarks.rs",
        "knoblab_core::input::text::decode",
    ),
    ("crates/score/src/finestate/files.rs", "BoundedZip"),
    (
        "crates/score/src/finestate/files.rs",
        "knoblab_core::input::path::resolve_under",
    ),
    (
        "crates/score/src/finestate/predictions.rs",
        "knoblab_core::input::text::decode",
    ),
    (
        "crates/score/src/finestate/loader.rs",
        "knoblab_core::input::text::decode",
    ),
    ("crates/score/src/switch/load.rs", "BoundedZip"),
    (
        "crates/score/src/epic/gt.rs",
        "knoblab_core::input::fs::OnceReader",
    ),
    (
        "crates/score/src/epic/gt.rs",
        "knoblab_core::input::text::decode",
    ),
    (
        "crates/score/src/detect.rs",
        "knoblab_core::input::text::decode",
    ),
    (
        "crates/score/src/switch/fields.rs",
        "knoblab_core::input::text::decode",
    ),
    (
        "crates/core/src/metrics/file.rs",
        "crate::input::json::from_text",
    ),
    (
        "crates/core/src/metrics/file.rs",
        "crate::input::text::decode",
    ),
    // The core entries the CLI and Python call (src/documents).
    (
        "crates/app/src/documents/mod.rs",
        "knoblab_core::input::fs::read_regular",
    ),
    (
        "crates/app/src/documents/mod.rs",
        "knoblab_core::input::fs::read_nonempty",
    ),
    (
        "crates/app/src/documents/mod.rs",
        "knoblab_core::input::text::decode_owned",
    ),
    (
        "crates/app/src/documents/metrics.rs",
        "read_trajectory_file",
    ),
    (
        "crates/app/src/documents/library.rs",
        "knoblab_core::input::path::resolve_under",
    ),
    (
        "crates/app/src/documents/switch.rs",
        "read_nonempty_bounded",
    ),
    ("crates/app/src/documents/finestate.rs", "read_bounded"),
    ("crates/app/src/documents/epic.rs", "read_text_bounded"),
    ("crates/app/src/documents/epic.rs", "intake"),
    // A library index and its devices' files, read natively (`knoblab
    // eval`, `metrics`, Python) through bundle::library's readers.
    (
        "crates/app/src/devices.rs",
        "knoblab_core::input::fs::read_regular",
    ),
    (
        "crates/app/src/devices.rs",
        "knoblab_core::input::path::resolve_under",
    ),
    (
        "crates/app/src/documents/library.rs",
        "knoblab_core::input::json::from_bytes",
    ),
    // `knoblab eval`: the output file read back on a resume, its run
    // description; model replies are bounded.
    (
        "crates/app/src/run/output.rs",
        "knoblab_core::input::fs::read_regular",
    ),
    (
        "crates/app/src/run/output.rs",
        "knoblab_core::input::text::decode",
    ),
    (
        "crates/app/src/run/output.rs",
        "knoblab_core::input::json::from_text",
    ),
    (
        "crates/app/src/run/http.rs",
        "knoblab_core::input::limits::MAX_REPLY_BYTES",
    ),
    // The model-call cache's entries, read back (another process may have
    // written them, or a disk damaged them).
    (
        "crates/app/src/run/cache.rs",
        "knoblab_core::input::fs::read_regular",
    ),
    (
        "crates/app/src/run/cache.rs",
        "knoblab_core::input::json::from_bytes",
    ),
    (
        "crates/eval/src/vlm/batch.rs",
        "knoblab_core::input::json::from_text",
    ),
    (
        "crates/core/src/bundle/library.rs",
        "crate::input::json::from_bytes",
    ),
    (
        "crates/score/src/switch/release.rs",
        "knoblab_core::input::text::decode",
    ),
    // Python reads every file through the core's documents and loader.
    (
        "bindings/python/src/metrics.rs",
        "documents::metrics::metrics",
    ),
    ("bindings/python/src/scoring.rs", "documents::epic::score"),
    (
        "bindings/python/src/scoring.rs",
        "documents::finestate::score",
    ),
    ("bindings/python/src/scoring.rs", "documents::switch::score"),
    ("bindings/python/src/library.rs", "documents::library::list"),
    ("bindings/python/src/library.rs", "load_path"),
];

fn sources(dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.file_name().is_some_and(|n| n == "tests.rs") {
            // A module's tests kept beside it (`#[cfg(test)] mod tests;`):
            // test code, as the part after `#[cfg(test)]` of a file is.
            continue;
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            // The code before the file's test module; comments dropped.
            let code: String = text
                .split("\n#[cfg(test)]")
                .next()
                .unwrap_or("")
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.insert(rel, code);
        }
    }
}

fn all_sources() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    sources(&root.join("src"), &mut out);
    sources(&root.join("bindings/python/src"), &mut out);
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        sources(&entry.unwrap().path().join("src"), &mut out);
    }
    out
}

#[test]
fn no_reader_bypasses_the_input_layer() {
    let files = all_sources();
    let allowed: BTreeMap<&str, &str> = ALLOWED.iter().copied().collect();
    let mut bypass = Vec::new();
    let mut stale = Vec::new();
    for (file, code) in &files {
        if file.starts_with("crates/core/src/input/") {
            continue;
        }
        let hits: Vec<&str> = PATTERNS
            .iter()
            .copied()
            .filter(|p| code.contains(p))
            .collect();
        match (hits.is_empty(), allowed.contains_key(file.as_str())) {
            (false, false) => bypass.push(format!("{file}: {}", hits.join(", "))),
            (true, true) => stale.push(file.clone()),
            _ => {}
        }
    }
    assert!(
        bypass.is_empty(),
        "these files read input by themselves; use knoblab_core::input (or add them to ALLOWED with \
         the reason):\n{}",
        bypass.join("\n")
    );
    assert!(
        stale.is_empty(),
        "ALLOWED lists files that no longer read input by themselves: {stale:?}"
    );
}

#[test]
fn every_listed_reader_calls_the_input_layer() {
    let files = all_sources();
    let missing: Vec<String> = READERS
        .iter()
        .filter(|(file, call)| !files.get(*file).is_some_and(|code| code.contains(call)))
        .map(|(file, call)| format!("{file} does not call {call}"))
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_cli_prints_only_through_its_output_module() {
    let files = all_sources();
    let mut found = Vec::new();
    for (file, code) in files.iter().filter(|(f, _)| f.starts_with("src/cli/")) {
        if file == "crates/cli/src/out.rs" {
            continue;
        }
        for macro_name in ["println!", "print!", "eprintln!", "eprint!", "dbg!"] {
            if code.contains(macro_name) {
                found.push(format!("{file}: {macro_name}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a closed pipe makes these panic; print with cli::out instead:\n{}",
        found.join("\n")
    );
}
