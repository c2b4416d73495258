#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! The frozen, versioned benchmark (issue #19): the library's identity
//! (`data/library-version.json`: a version, a content hash over the hand
//! devices' files and the generated manifest, each device's logic hash)
//! is what its committed files give now; every recorder writes it into
//! the episodes of the library's devices and into none other; and
//! `knoblab metrics`, the Score page's job and `knoblab eval`'s resume
//! refuse to mix episodes of two libraries (or of the library and off
//! it), naming both, with files and lines.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use knoblab_app::job::{InputFile, Job, JobOptions, BUNDLE_PREFIX};
use knoblab_app::run::{evaluate, make_plan, spec_path, EvalError, EvalOptions};
use knoblab_core::bundle::generated::GeneratedIndex;
use knoblab_core::bundle::stamp::{compute_hash, shipped, LibraryVersion, VERSION_FILE};
use knoblab_core::bundle::{library_of_bundle, load_path, Bundle, LibraryIndex, LibraryStamp};
use knoblab_core::metrics::MetricsError;
use knoblab_core::sim::{Settings, Trajectory};
use knoblab_eval::agents::{run_tasks, Oracle};
use knoblab_eval::vlm::{AgentSettings, ApiKey, Source};
use knoblab_score::detect::Benchmark;

fn data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data")
}

fn stamp() -> LibraryStamp {
    shipped().unwrap().stamp()
}

/// Another library's stamp: the next version, another hash.
fn other_stamp() -> LibraryStamp {
    LibraryStamp {
        version: stamp().version + 1,
        hash: "f".repeat(64),
    }
}

fn lamp() -> Bundle {
    load_path(&data().join("devices/lamp-0001")).unwrap()
}

fn oracle_run(bundle: &Bundle) -> Vec<Trajectory> {
    let mut oracle = Oracle::new(bundle);
    run_tasks(bundle, None, &mut oracle, &Settings::default()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("knoblab-stamp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_committed_identity_is_what_the_librarys_files_give() {
    let committed =
        LibraryVersion::parse(&std::fs::read(data().join(VERSION_FILE)).unwrap()).unwrap();
    // The compiled-in copy is the committed file.
    assert_eq!(shipped(), Some(&committed));
    let started = std::time::Instant::now();
    let (hash, hand) = compute_hash(&data()).unwrap();
    // A figure for docs/performance.md (no assert on time): read, hash and load the 52.
    println!(
        "content hash and 52 logic hashes computed in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        hash, committed.hash,
        "the library's content hash changed: run `knoblab library generate` (it writes \
         data/{VERSION_FILE} with the next version)"
    );
    for (id, logic) in &hand {
        assert_eq!(committed.devices.get(id), Some(logic), "{id}'s logic hash");
    }
    // Every device of the library is listed, and nothing else: the 52 of
    // the index and the 916 of the manifest (whose logic hashes the test
    // that regenerates the manifest recomputes).
    let index = LibraryIndex::parse(&std::fs::read(data().join("library.json")).unwrap()).unwrap();
    let generated =
        GeneratedIndex::parse(&std::fs::read(data().join("generated.json")).unwrap()).unwrap();
    let mut ids: Vec<&str> = index
        .devices
        .iter()
        .map(|d| d.id.as_str())
        .chain(generated.devices.iter().map(|d| d.id.as_str()))
        .collect();
    ids.sort_unstable();
    let listed: Vec<&str> = committed.devices.keys().map(String::as_str).collect();
    assert_eq!(listed, ids);
    assert_eq!((hand.len(), listed.len()), (52, 968));
    println!("{}", committed.stamp());
}

#[test]
fn library_devices_record_the_stamp_and_other_bundles_none() {
    // A hand-described device given by its folder.
    let lamp = lamp();
    assert_eq!(library_of_bundle(&lamp), Some(stamp()));
    for t in oracle_run(&lamp) {
        assert_eq!(t.settings.library, Some(stamp()), "{}", t.task_id);
    }
    // A bundle of one's own with a library id (the test fixture is called
    // kettle-0001 too) but another logic records none, and writes no key.
    let own = load_path(
        &PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/kettle"),
    )
    .unwrap();
    assert_eq!(own.manifest.id, "kettle-0001");
    assert_eq!(library_of_bundle(&own), None);
    let t = &oracle_run(&own)[0];
    assert_eq!(t.settings.library, None);
    assert!(!t.to_json_line().unwrap().contains("\"library\""));
    // A generated device (its logic made without pictures: the same hash
    // as the drawn device, which `library_open` and `library_generated`
    // check).
    let made = knoblab_devicegen::generated::Inputs::embedded()
        .unwrap()
        .logic("lamp-g0001")
        .unwrap();
    assert_eq!(library_of_bundle(&made), Some(stamp()));
    // The human player's sessions record it too.
    let session = knoblab_eval::play::Session::start(
        std::sync::Arc::new(lamp.clone()),
        &lamp.tasks[0].id,
        knoblab_eval::play::Mode::Baseline.settings(5),
    )
    .unwrap();
    assert_eq!(session.settings().library, Some(stamp()));
    // The stamp is in the line as written, and a line from before the
    // field existed reads as no library.
    let line = oracle_run(&lamp)[0].to_json_line().unwrap();
    assert!(
        line.contains(&format!(
            "\"library\":{{\"version\":{},\"hash\":\"{}\"}}",
            stamp().version,
            stamp().hash
        )),
        "{line}"
    );
    let old: Settings = serde_json::from_str(r#"{"lambda": 5, "agent": "oracle"}"#).unwrap();
    assert_eq!(old.library, None);
}

#[test]
fn metrics_refuse_to_pool_or_compare_two_libraries_naming_both() {
    let lamp = lamp();
    let runs = oracle_run(&lamp);
    // Within one run: line 2 of another library.
    let mut mixed = runs.clone();
    mixed[1].settings.library = Some(other_stamp());
    let err = knoblab_core::metrics::run(std::slice::from_ref(&lamp), &mixed).unwrap_err();
    assert!(matches!(err, MetricsError::MixedLibrary { .. }), "{err}");
    let text = err.to_string();
    for part in [
        "line 2) was recorded on library version",
        &other_stamp().to_string(),
        "line 1) was recorded on",
        &stamp().to_string(),
        "not pooled",
    ] {
        assert!(text.contains(part), "{part:?} not in {text}");
    }
    // A file of no library (an older file) beside the library's.
    let mut old = runs.clone();
    old[2].settings.library = None;
    let text = knoblab_core::metrics::run(std::slice::from_ref(&lamp), &old)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("line 3) was recorded on no library"),
        "{text}"
    );
    // One library: scored.
    assert!(knoblab_core::metrics::run(std::slice::from_ref(&lamp), &runs).is_ok());

    // `knoblab metrics` with two files side by side: the second file is
    // named, with its line, against the first's.
    let dir = temp_dir("metrics");
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    std::fs::write(&a, Trajectory::to_json_lines(&runs).unwrap()).unwrap();
    let mut other = runs.clone();
    for t in &mut other {
        t.settings.library = Some(other_stamp());
    }
    std::fs::write(&b, Trajectory::to_json_lines(&other).unwrap()).unwrap();
    let err =
        knoblab_app::documents::metrics::metrics(&[a.clone(), b.clone()], &data().join("devices"))
            .unwrap_err()
            .to_string();
    assert!(
        err.contains(&format!("{}: episode (bundle lamp-0001", b.display()))
            && err.contains(&format!("{}: episode (bundle lamp-0001", a.display()))
            && err.contains(&other_stamp().to_string())
            && err.contains(&stamp().to_string()),
        "{err}"
    );
    // The same two files one at a time are each scored.
    for f in [&a, &b] {
        knoblab_app::documents::metrics::metrics(std::slice::from_ref(f), &data().join("devices"))
            .unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Score page's job: the files a person drops, a device's files among
/// them as the page's library sends them.
fn score_job(trajectories: &[(&str, &[Trajectory])]) -> Job {
    let mut files = Vec::new();
    let root = data().join("devices/lamp-0001");
    let index = LibraryIndex::parse(&std::fs::read(data().join("library.json")).unwrap()).unwrap();
    for file in &index.entry("lamp-0001").unwrap().files {
        files.push(InputFile {
            path: format!("{BUNDLE_PREFIX}lamp-0001/{file}"),
            bytes: std::fs::read(root.join(file)).unwrap(),
        });
    }
    for (name, ts) in trajectories {
        files.push(InputFile {
            path: name.to_string(),
            bytes: Trajectory::to_json_lines(ts).unwrap().into_bytes(),
        });
    }
    Job::from_files(files, JobOptions::default())
}

#[test]
fn the_score_pages_job_refuses_a_run_of_another_library_beside_the_first() {
    let runs = oracle_run(&lamp());
    let mut other = runs.clone();
    for t in &mut other {
        t.settings.library = Some(other_stamp());
    }
    let outcome = knoblab_app::job::run(
        &score_job(&[("first.jsonl", &runs), ("second.jsonl", &other)]),
        &mut |_| {},
    );
    assert_eq!(outcome.reports.len(), 1, "{:?}", outcome.failures);
    assert_eq!(outcome.reports[0].file, "first.jsonl");
    let failure = outcome
        .failures
        .iter()
        .find(|f| f.file == "second.jsonl")
        .unwrap();
    for part in [
        "second.jsonl: episode (bundle lamp-0001",
        "first.jsonl: episode (bundle lamp-0001",
        &other_stamp().to_string(),
        &stamp().to_string(),
    ] {
        assert!(
            failure.message.contains(part),
            "{part:?} not in {}",
            failure.message
        );
    }
    // Within one file: the run is refused, naming its lines.
    let mut mixed = runs.clone();
    mixed[3].settings.library = None;
    let outcome = knoblab_app::job::run(&score_job(&[("mixed.jsonl", &mixed)]), &mut |_| {});
    assert!(outcome.reports.is_empty());
    let message = &outcome.failures[0].message;
    assert!(
        message.contains("line 4) was recorded on no library") && message.contains("line 1)"),
        "{message}"
    );
}

fn oracle_plan(bundle: &Bundle) -> knoblab_app::run::EvalPlan {
    make_plan(
        Source::Oracle,
        AgentSettings::default(),
        vec![bundle.clone()],
        &[],
        1,
        None,
    )
    .unwrap()
}

fn options() -> EvalOptions {
    EvalOptions {
        key: ApiKey::default(),
        concurrency: 1,
        max_cost: None,
        shard: None,
        select: None,
        send_to: None,
        cache: None,
    }
}

fn run_eval(plan: &knoblab_app::run::EvalPlan, out: &Path) -> Result<usize, EvalError> {
    evaluate(plan, &options(), out, &|_| {}, &AtomicBool::new(false)).map(|o| o.ran)
}

#[test]
fn eval_resume_refuses_a_file_or_description_of_another_library() {
    let lamp = lamp();
    let plan = oracle_plan(&lamp);
    assert_eq!(plan.spec.library, Some(stamp()));
    let dir = temp_dir("eval");
    let out = dir.join("run.jsonl");
    let n = run_eval(&plan, &out).unwrap();
    assert_eq!(n, lamp.tasks.len());
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.lines().count(),
        n,
        "every record written, each with the stamp"
    );
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["settings"]["library"]["version"], stamp().version);
        assert_eq!(v["settings"]["library"]["hash"], stamp().hash.as_str());
    }
    // The same run resumes (nothing left to do).
    assert_eq!(run_eval(&plan, &out).unwrap(), 0);

    // The description beside the file says another library: refused, both named.
    let spec_file = spec_path(&out);
    let spec_text = std::fs::read_to_string(&spec_file).unwrap();
    let mut spec: serde_json::Value = serde_json::from_str(&spec_text).unwrap();
    spec["library"] = serde_json::to_value(other_stamp()).unwrap();
    std::fs::write(&spec_file, spec.to_string()).unwrap();
    let err = run_eval(&plan, &out).unwrap_err();
    assert!(matches!(err, EvalError::Refused { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains(&format!(
            "library: {} before, {} now",
            other_stamp(),
            stamp()
        )),
        "{message}"
    );

    // No description, records of no library (a file from before the
    // field): refused too.
    std::fs::remove_file(&spec_file).unwrap();
    let old: String = text
        .lines()
        .map(|line| {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["settings"].as_object_mut().unwrap().remove("library");
            v.to_string() + "\n"
        })
        .collect();
    std::fs::write(&out, old).unwrap();
    let message = run_eval(&plan, &out).unwrap_err().to_string();
    assert!(
        message.contains("library: no library (a bundle of its own")
            && message.contains(&format!("before, {} now", stamp())),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Score page's workers hold a scorer other than EPIC-Bench's only
/// when a job needs it (`job::Scorers`): a worker's job without the
/// trajectories' scorer names it among those it lacks and refuses the file
/// with why, and once given it scores the same file as the CLI does,
/// making the generated device the run was played on.
#[test]
fn a_workers_job_scores_trajectories_once_given_their_scorer() {
    let index: GeneratedIndex =
        serde_json::from_slice(&std::fs::read(data().join("generated.json")).unwrap()).unwrap();
    let id = &index.devices[0].id;
    let entry = knoblab_app::devices::generated_entry(id).unwrap();
    let bundle = knoblab_app::devices::open_entry_logic(&entry, Vec::new()).unwrap();
    let runs = oracle_run(&bundle);
    let file = InputFile {
        path: "generated.jsonl".into(),
        bytes: Trajectory::to_json_lines(&runs).unwrap().into_bytes(),
    };

    let mut job = Job::from_worker(vec![file.clone()], "{}").unwrap();
    assert_eq!(job.missing_scorers(), [Benchmark::Trajectories]);
    let without = knoblab_app::job::run(&job, &mut |_| {});
    assert!(without.reports.is_empty());
    assert_eq!(without.failures.len(), 1);
    assert!(
        without.failures[0]
            .message
            .contains("no KnobLab trajectories scorer in this job"),
        "{}",
        without.failures[0].message
    );

    job.scorers = job.scorers.with_trajectories();
    assert_eq!(job.missing_scorers(), []);
    let with = knoblab_app::job::run(&job, &mut |_| {});
    assert!(with.failures.is_empty(), "{:?}", with.failures);
    assert_eq!(with.reports.len(), 1);
    let cli = knoblab_app::job::run(
        &Job::from_files(vec![file], JobOptions::default()),
        &mut |_| {},
    );
    assert_eq!(
        serde_json::to_value(&with.reports).unwrap(),
        serde_json::to_value(&cli.reports).unwrap()
    );
}
