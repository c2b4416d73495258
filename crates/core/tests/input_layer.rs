//! Every reader the CLI, the page and the Python package use goes through
//! the input layer (`knoblab_core::input`, issue #23). A source-level check:
//! outside `crates/core/src/input/`, no code of a crate's `src/`, the page's or
//! `bindings/python/src/`
//! (tests excluded) reads a file, decodes bytes as
//! text, parses JSON or opens a zip by itself, except the places listed in
//! [`ALLOWED`] with the reason; and each reader listed in [`READERS`]
//! calls the layer. Adding a reader means adding it to one of the lists.
//! The same for writers: an output is written through
//! `input::fs::write_atomic` (the older file stays whole until the new one
//! is complete), or listed in [`WRITERS`] with why it is safe.
//!
//! Since issue #47 the lint is the wall (`clippy::disallowed_methods` in
//! `clippy.toml`, run by `scripts/dev.sh lint` with `-D warnings`): a new
//! `std::fs::read` or `serde_json::from_str` outside the layer fails the
//! lint. This file keeps what the lint cannot see: the decoding, zip and
//! UTF-8 calls of [`PATTERNS`] it does not forbid, that each reader of
//! [`READERS`] does call the layer, that the wall itself stands, and that
//! each hole in it ([`WALL_HOLES`]) is listed with its reason.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

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
    // The benchmark readers parse through `input::json` (a key twice in
    // one object refused, #47); these remain.
    (
        "crates/score/src/finestate/synthetic.rs",
        "generates test data",
    ),
    (
        "crates/score/src/switch/judge.rs",
        "a model's reply body, not a file",
    ),
    (
        "crates/score/src/detect.rs",
        "format probing of bytes already read by the input layer",
    ),
    // Not files from users.
    (
        "crates/eval/src/play/share.rs",
        "a share link's compressed actions, bounded by the URL",
    ),
    ("crates/eval/src/vlm/reply.rs", "a model's reply body"),
    (
        "src/pages/score/worker.rs",
        "messages between the page and its worker",
    ),
    (
        "src/pages/score/mod.rs",
        "messages between the page and its worker",
    ),
    (
        "crates/app/src/job/mod.rs",
        "the page's EPIC shard messages between its workers",
    ),
    (
        "src/worker/job.rs",
        "the EPIC shard digests the page's workers send each other",
    ),
    (
        "crates/app/src/job/workers.rs",
        "the job options the page serialises for its workers",
    ),
    (
        "crates/score/src/epic/wire.rs",
        "EPIC shards the page's workers send each other",
    ),
    (
        "bindings/python/src/scoring.rs",
        "the EPIC document KnobLab itself just wrote (String::from_utf8 of serde_json's output)",
    ),
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
    (
        "crates/score/src/epic/gt/source.rs",
        "knoblab_core::input::fs::OnceReader",
    ),
    (
        "crates/score/src/epic/gt/source.rs",
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
    // The core entries the CLI and Python call (crates/app/src/documents).
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
    ("crates/app/src/documents/switch.rs", "read_nonempty_input"),
    ("crates/app/src/documents/finestate.rs", "read_input"),
    ("crates/app/src/documents/epic.rs", "read_text_bounded"),
    // The one scoring entry point reads what the intake skipped.
    ("crates/app/src/scoring/epic.rs", "intake(text)"),
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
    let cli: Vec<_> = files
        .iter()
        .filter(|(f, _)| f.starts_with("crates/cli/src/"))
        .collect();
    // The CLI's sources moved with the workspace split: a filter that
    // matches nothing would check nothing.
    assert!(cli.len() > 5, "the CLI's sources were not found: {cli:?}");
    for (file, code) in cli {
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

/// Calls that write a file.
const WRITES: &[&str] = &["fs::write(", "File::create(", "OpenOptions::new()"];

/// Where a file is written other than through `input::fs::write_atomic`
/// (which writes a temporary file beside the output and renames it into
/// place, so an older output stays whole until the new one is), and why
/// that is safe too (issue #47: outputs replace atomically).
const WRITERS: &[(&str, &str)] = &[
    (
        "crates/app/src/run/output.rs",
        "`knoblab eval`'s results: appended one whole line (fsync'd) per episode under the file's lock; its run description is written to a temporary file and renamed",
    ),
    (
        "crates/app/src/run/cache.rs",
        "the model-call cache: each entry written to a temporary file and renamed; a probe file tests that the folder is writable",
    ),
];

#[test]
fn every_output_is_replaced_whole() {
    let files = all_sources();
    let allowed: BTreeMap<&str, &str> = WRITERS.iter().copied().collect();
    let mut unsafe_writes = Vec::new();
    let mut stale = Vec::new();
    for (file, code) in &files {
        if file == "crates/core/src/input/fs.rs" {
            continue;
        }
        let hits: Vec<&str> = WRITES
            .iter()
            .copied()
            .filter(|p| code.contains(p))
            .collect();
        match (hits.is_empty(), allowed.contains_key(file.as_str())) {
            (false, false) => unsafe_writes.push(format!("{file}: {}", hits.join(", "))),
            (true, true) => stale.push(file.clone()),
            _ => {}
        }
    }
    assert!(
        unsafe_writes.is_empty(),
        "these files write outputs in place; use knoblab_core::input::fs::write_atomic (or add \
         them to WRITERS with why they are safe):\n{}",
        unsafe_writes.join("\n")
    );
    assert!(
        stale.is_empty(),
        "WRITERS lists files that no longer write: {stale:?}"
    );
}

/// The holes in the lint's wall (issue #47): `clippy.toml` forbids
/// `std::fs::read`, `read_to_string`, `File::open` and `serde_json`'s
/// `from_str`, `from_slice` and `from_reader` everywhere; outside tests,
/// only these files allow it, each on one function or statement with a
/// `reason`. Each entry must still have its allow, so the list stays true.
const WALL_HOLES: &[(&str, &str)] = &[
    ("crates/core/src/input/fs.rs", "the layer's one open"),
    (
        "crates/core/src/input/json.rs",
        "the layer's one JSON parse",
    ),
    (
        "crates/score/src/detect.rs",
        "format probing of bytes the layer read",
    ),
    (
        "crates/score/src/epic/wire.rs",
        "the page's workers' shard digests",
    ),
    (
        "crates/score/src/finestate/synthetic.rs",
        "its own generated data",
    ),
    (
        "crates/score/src/switch/judge.rs",
        "a judge model's reply body",
    ),
    ("crates/eval/src/vlm/reply.rs", "a model's reply body"),
    (
        "crates/app/src/job/mod.rs",
        "the shard lists the page's workers send each other",
    ),
    (
        "crates/app/src/job/workers.rs",
        "the job options the page sends its workers",
    ),
    (
        "src/pages/score/mod.rs",
        "the page's worker's outcome and errors",
    ),
    ("src/pages/score/worker.rs", "the page's worker's messages"),
];

/// What `clippy.toml` must forbid.
const WALLED: &[&str] = &[
    "std::fs::read",
    "std::fs::read_to_string",
    "std::fs::File::open",
    "serde_json::from_str",
    "serde_json::from_slice",
    "serde_json::from_reader",
];

#[test]
fn the_lint_wall_stands_and_each_hole_is_listed_with_a_reason() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let config = std::fs::read_to_string(root.join("clippy.toml")).unwrap();
    for path in WALLED {
        assert!(
            config.contains(&format!("path = \"{path}\"")),
            "clippy.toml no longer forbids {path}"
        );
    }
    let holes: BTreeMap<&str, &str> = WALL_HOLES.iter().copied().collect();
    let mut unlisted = Vec::new();
    let mut without_reason = Vec::new();
    let mut found = std::collections::BTreeSet::new();
    for (file, code) in all_sources() {
        let lines: Vec<&str> = code.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("clippy::disallowed_methods") {
                continue;
            }
            found.insert(file.clone());
            if !holes.contains_key(file.as_str()) {
                unlisted.push(format!("{file}: {}", line.trim()));
            }
            let attribute = lines[i..lines.len().min(i + 3)].join(" ");
            if !attribute.contains("reason =") {
                without_reason.push(format!("{file}: {}", line.trim()));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "allows of clippy::disallowed_methods outside WALL_HOLES (route the read through \
         knoblab_core::input instead):\n{}",
        unlisted.join("\n")
    );
    assert!(
        without_reason.is_empty(),
        "each allow says why, with `reason = \"…\"`:\n{}",
        without_reason.join("\n")
    );
    let stale: Vec<&str> = holes
        .keys()
        .copied()
        .filter(|f| !found.contains(*f))
        .collect();
    assert!(
        stale.is_empty(),
        "WALL_HOLES lists files without an allow: {stale:?}"
    );
}
