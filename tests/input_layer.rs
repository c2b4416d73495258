//! Every reader the CLI, the page and the Python package use goes through
//! the input layer (`knoblab::input`, issue #23). A source-level check:
//! outside `src/input/`, no code of `src/` or `bindings/python/src/`
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
    ("src/score/finestate/loader.rs", "FineState annotations: Python json semantics (parity)"),
    ("src/score/finestate/predictions.rs", "FineState predictions: Python json semantics (parity); text decoded by input::text"),
    ("src/score/finestate/desktop.rs", "FineState desktop annotations: Python json semantics (parity)"),
    ("src/score/finestate/synthetic.rs", "generates test data"),
    ("src/score/switch/fields.rs", "SWITCH predictions, release rows and video-judge outputs (json_records): duplicates refused by line, text decoded first"),
    ("src/score/switch/load.rs", "SWITCH vqa.json: Python json semantics (parity); files read by input::fs, zips by input::zip"),
    ("src/score/switch/release.rs", "SWITCH release rows and answers: Python json semantics (parity); text decoded by input::text, files read by input::fs and input::zip"),
    ("src/score/switch/judge.rs", "a model's reply body, not a file"),
    ("src/score/detect.rs", "format probing of bytes already read by the input layer"),
    // Not files from users.
    ("src/sim/trajectory.rs", "Trajectory::from_json_line, the record type's own parser; files go through metrics::file"),
    ("src/play/baseline.rs", "the page's own saved human-baseline runs"),
    ("src/play/share.rs", "a share link's compressed actions, bounded by the URL"),
    ("src/vlm/reply.rs", "a model's reply body"),
    ("src/vlm/record.rs", "EpisodeRecord::parse_lines, the record type's own parser for text already decoded; files go through metrics::file and eval::output"),
    ("src/vlm/recorded.rs", "episode records written by `knoblab eval`"),
    ("src/devicegen/mod.rs", "the repository's own device descriptions (build time)"),
    ("src/bundle/generated.rs", "GeneratedIndex::parse, the manifest type's own parser for bytes already read; the CLI reads the file through cli::read"),
    ("src/devicegen/generated.rs", "the repository's own descriptions, design space and manifest, compiled in; the CLI reads a manifest file through cli::read"),
    ("src/devicegen/vary.rs", "the repository's own design space (data/gen/space/space.json), compiled in"),
    ("src/ui/browser/indexeddb.rs", "the page's own IndexedDB records"),
    ("src/ui/pages/score/files.rs", "the page's own sample index"),
    ("src/ui/pages/score/worker.rs", "messages between the page and its worker"),
    ("src/ui/pages/score/mod.rs", "messages between the page and its worker"),
    ("src/score/job/mod.rs", "the page's EPIC shard messages between its workers"),
    ("src/score/job/workers.rs", "the job options the page serialises for its workers"),
    ("src/score/epic/wire.rs", "EPIC shards the page's workers send each other"),
    ("bindings/python/src/lib.rs", "the EPIC document KnobLab itself just wrote (String::from_utf8 of serde_json's output)"),
];

/// The readers the CLI and the page use, each with the input-layer call it
/// must make.
const READERS: &[(&str, &str)] = &[
    (
        "src/cli/read.rs",
        "crate::input::fs::{read_nonempty, read_regular}",
    ),
    ("src/cli/read.rs", "crate::input::json::from_bytes"),
    ("src/cli/derive.rs", "write_atomic"),
    ("src/cli/derive.rs", "check_output_not_input"),
    ("src/cli/run.rs", "check_output_not_input"),
    ("src/cli/run.rs", "check_lambda"),
    ("src/bundle/source.rs", "BoundedZip"),
    ("src/bundle/source.rs", "crate::input::fs::read_regular"),
    ("src/bundle/source.rs", "crate::input::path::normalize"),
    ("src/bundle/load.rs", "crate::input::json::from_bytes"),
    ("src/bundle/load.rs", "crate::input::fs::read_regular"),
    ("src/score/limits.rs", "crate::input::fs::read_regular"),
    ("src/score/job/files.rs", "BoundedZip"),
    ("src/score/job/benchmarks.rs", "read_trajectory_file"),
    ("src/score/job/benchmarks.rs", "crate::input::text::decode"),
    ("src/score/finestate/files.rs", "BoundedZip"),
    (
        "src/score/finestate/files.rs",
        "crate::input::path::resolve_under",
    ),
    (
        "src/score/finestate/predictions.rs",
        "crate::input::text::decode",
    ),
    (
        "src/score/finestate/loader.rs",
        "crate::input::text::decode",
    ),
    ("src/score/switch/load.rs", "BoundedZip"),
    ("src/score/epic/gt.rs", "crate::input::fs::OnceReader"),
    ("src/score/epic/gt.rs", "crate::input::text::decode"),
    ("src/score/detect.rs", "crate::input::text::decode"),
    ("src/score/switch/fields.rs", "crate::input::text::decode"),
    ("src/metrics/file.rs", "crate::input::json::from_text"),
    ("src/metrics/file.rs", "crate::input::text::decode"),
    // The core entries the CLI and Python call (src/documents).
    ("src/documents/mod.rs", "crate::input::fs::read_regular"),
    ("src/documents/mod.rs", "crate::input::fs::read_nonempty"),
    ("src/documents/mod.rs", "crate::input::text::decode_owned"),
    ("src/documents/metrics.rs", "read_trajectory_file"),
    (
        "src/documents/library.rs",
        "crate::input::path::resolve_under",
    ),
    ("src/documents/switch.rs", "read_nonempty_bounded"),
    ("src/documents/finestate.rs", "read_bounded"),
    ("src/documents/epic.rs", "read_text_bounded"),
    ("src/documents/epic.rs", "intake"),
    // A library index and its devices' files, read natively (`knoblab
    // eval`, `metrics`, Python) through bundle::library's readers.
    ("src/bundle/library.rs", "crate::input::fs::read_regular"),
    ("src/bundle/library.rs", "crate::input::path::resolve_under"),
    ("src/documents/library.rs", "crate::input::json::from_bytes"),
    // `knoblab eval`: the output file read back on a resume, its run
    // description; model replies are bounded.
    ("src/eval/output.rs", "crate::input::fs::read_regular"),
    ("src/eval/output.rs", "crate::input::text::decode"),
    ("src/eval/output.rs", "crate::input::json::from_text"),
    ("src/eval/http.rs", "crate::input::limits::MAX_REPLY_BYTES"),
    ("src/vlm/batch.rs", "crate::input::json::from_text"),
    ("src/bundle/library.rs", "crate::input::json::from_bytes"),
    ("src/score/switch/release.rs", "crate::input::text::decode"),
    // Python reads every file through the core's documents and loader.
    ("bindings/python/src/lib.rs", "documents::metrics::metrics"),
    ("bindings/python/src/lib.rs", "documents::epic::score"),
    ("bindings/python/src/lib.rs", "documents::finestate::score"),
    ("bindings/python/src/lib.rs", "documents::switch::score"),
    ("bindings/python/src/lib.rs", "documents::library::list"),
    ("bindings/python/src/lib.rs", "load_path"),
];

fn sources(dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
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
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.insert(rel, code);
        }
    }
}

fn all_sources() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    sources(&root.join("src"), &mut out);
    sources(&root.join("bindings/python/src"), &mut out);
    out
}

#[test]
fn no_reader_bypasses_the_input_layer() {
    let files = all_sources();
    let allowed: BTreeMap<&str, &str> = ALLOWED.iter().copied().collect();
    let mut bypass = Vec::new();
    let mut stale = Vec::new();
    for (file, code) in &files {
        if file.starts_with("src/input/") {
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
        "these files read input by themselves; use knoblab::input (or add them to ALLOWED with \
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
        if file == "src/cli/out.rs" {
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
