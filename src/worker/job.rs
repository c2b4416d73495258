//! The Score page's job, as its workers run it ([`knoblab_app::job`] does
//! the work): each function is the body of one entry of [`super`], which
//! `www/score-worker.js` calls. A worker keeps its job in the module
//! ([`take_job`]) for every call after (its shard, the merge, the
//! drill-down). A helper's shard and the job's outcome (about a megabyte of
//! JSON each on a benchmark-sized set) travel as UTF-8 bytes, never as a JS
//! string: a string going into the module is copied a character at a time
//! by wasm-bindgen's glue, and cloned again at each `postMessage`.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use knoblab_app::job::{self, InputFile, Job, Scorers};
use knoblab_score::detect::Benchmark;
use knoblab_score::epic::report::Shard;

/// Gives the kept job the trajectories' scorer (the chunk
/// `score_trajectories` of [`super`], fetched only for such a job).
pub fn give_trajectories() {
    give(Scorers::with_trajectories);
}

/// Whether the kept job's trajectories were played on generated devices
/// ([`Job::plays_generated`]): the worker then gives the job the generator
/// (the chunk `draw_device`) before scoring.
pub fn needs_generator() -> bool {
    JOB.with(|j| j.borrow().as_ref().is_ok_and(Job::plays_generated))
}

/// Gives the kept job FineState-Bench's scorer (the chunk `score_finestate`).
pub fn give_finestate() {
    give(Scorers::with_finestate);
}

/// Gives the kept job SWITCH's scorer (the chunk `score_switch`).
pub fn give_switch() {
    give(Scorers::with_switch);
}

/// Adds a scorer to the kept job's.
fn give(with: fn(Scorers) -> Scorers) {
    JOB.with(|j| {
        if let Ok(job) = j.borrow_mut().as_mut() {
            job.scorers = with(job.scorers);
        }
    });
}

/// The benchmarks of the kept job's files whose scorer it does not hold
/// yet ([`Job::missing_scorers`]).
pub fn missing_scorers() -> Vec<Benchmark> {
    JOB.with(|j| {
        j.borrow()
            .as_ref()
            .map(Job::missing_scorers)
            .unwrap_or_default()
    })
}

/// The dropped files from their paths and bytes (in the same order).
fn input_files(paths: Vec<String>, buffers: Vec<js_sys::Uint8Array>) -> Vec<InputFile> {
    paths
        .into_iter()
        .zip(buffers)
        .map(|(path, bytes)| InputFile {
            path,
            bytes: bytes.to_vec(),
        })
        .collect()
}

thread_local! {
    /// This worker's job, read once ([`take_job`]) and kept for
    /// every call after (its shard, the merge, the drill-down): or why its
    /// options could not be read.
    static JOB: RefCell<Result<Job, String>> = RefCell::new(Err("no job was given to this worker".into()));
    /// The merging worker's EPIC-Bench shards, merged as they come
    /// ([`merge_shard`]) until the job is run ([`score_job`]).
    static MERGING: RefCell<Option<job::Merging>> = const { RefCell::new(None) };
    /// The warm-up's set ([`warm_up`]), made once.
    static WARM_UP: RefCell<Option<job::WarmUpSet>> = const { RefCell::new(None) };
}

/// A worker's first entry for a job: its files (paths and bytes in the
/// same order, bundle files under [`job::BUNDLE_PREFIX`]) and options
/// (JSON of [`job::JobOptions`]), read by the core ([`Job::from_worker`]) and
/// kept in the module for the calls that follow.
pub fn take_job(paths: Vec<String>, buffers: Vec<js_sys::Uint8Array>, options: &str) {
    let job = Job::from_worker(input_files(paths, buffers), options).map_err(|e| e.to_string());
    JOB.with(|j| *j.borrow_mut() = job);
    MERGING.with(|m| *m.borrow_mut() = None);
}

/// Adds files to the kept job (the library's bundles, fetched once the
/// job is known to need them).
pub fn add_job_files(paths: Vec<String>, buffers: Vec<js_sys::Uint8Array>) {
    JOB.with(|j| {
        if let Ok(job) = j.borrow_mut().as_mut() {
            job.add_files(input_files(paths, buffers));
        }
    });
}

/// Whether any of the kept job's files is scored against bundles
/// (trajectories): [`Job::needs_bundles`].
pub fn needs_bundles() -> bool {
    JOB.with(|j| j.borrow().as_ref().is_ok_and(Job::needs_bundles))
}

/// A spare worker's entry before any job, called once a round: scores the
/// small synthetic EPIC-Bench set of a [`job::WarmUpSet`] (`scale` of the
/// benchmark-sized one, made at the first call and kept) and keeps nothing
/// else, so that the browser optimizes the scoring code before the first
/// job needs it. Says how many samples were scored.
pub fn warm_up(scale: f64) -> usize {
    WARM_UP.with(|w| {
        let mut w = w.borrow_mut();
        let set = w.get_or_insert_with(|| job::WarmUpSet::new(scale));
        set.score();
        set.samples()
    })
}

/// A worker's entry for its shard: shard `index` of `of` of every
/// EPIC-Bench results file of the kept job, as the JSON list of
/// [`job::EpicShardText`] the merging worker reads (`[]` when there is
/// none, or the options are invalid: the merging worker then scores alone),
/// in UTF-8 bytes.
pub fn score_shard(index: usize, of: usize) -> Vec<u8> {
    let shards = JOB.with(|j| {
        j.borrow()
            .as_ref()
            .map(|job| job::epic_shard(job, Shard { index, of }))
            .unwrap_or_default()
    });
    serde_json::to_vec(&shards).unwrap_or_else(|_| b"[]".to_vec())
}

/// The merging worker's entry for its own shard (the first of `of`):
/// scored and merged as it is, not written as text
/// ([`job::Merging::score_own`]).
pub fn merge_own_shard(of: usize) {
    JOB.with(|j| {
        MERGING.with(|m| {
            let mut m = m.borrow_mut();
            let merging = m.get_or_insert_with(job::Merging::new);
            match j.borrow().as_ref() {
                Ok(job) => merging.score_own(job, Shard { index: 0, of }),
                // No job: an empty list, as a helper without one sends.
                Err(_) => merging.add("[]"),
            }
        })
    });
}

/// The merging worker's entry for each helper's shard list (its UTF-8
/// bytes), as it comes: merged at once ([`job::Merging::add`]). Bytes that
/// are not UTF-8 are a list that cannot be read: still the worker's.
pub fn merge_shard(shard: &[u8]) {
    let text = std::str::from_utf8(shard).unwrap_or("");
    MERGING.with(|m| {
        m.borrow_mut()
            .get_or_insert_with(job::Merging::new)
            .add(text)
    });
}

/// The merging worker's entry that runs the kept job, calling `progress`
/// with JSON [`job::Progress`] values, with the shards merged so far
/// ([`merge_shard`]; none when one worker scores alone). Returns
/// the JSON of [`job::Outcome`], or of `{"error": …}` when the options are
/// invalid, in UTF-8 bytes.
pub fn score_job(progress: &js_sys::Function) -> Vec<u8> {
    let merging = MERGING.with(|m| m.borrow_mut().take()).unwrap_or_default();
    let outcome = JOB.with(|j| {
        j.borrow().as_ref().map_err(Clone::clone).map(|job| {
            merging.finish(job, &mut |p| {
                if let Ok(text) = serde_json::to_string(p) {
                    let _ = progress.call1(&JsValue::NULL, &JsValue::from_str(&text));
                }
            })
        })
    });
    match outcome {
        Ok(o) => serde_json::to_vec(&o).unwrap_or_else(|e| {
            serde_json::json!({ "error": e.to_string() })
                .to_string()
                .into()
        }),
        Err(e) => serde_json::json!({ "error": e }).to_string().into(),
    }
}

/// The merging worker's entry for a drill-down: item `index` of the
/// EPIC-Bench results file `file` of the kept job ([`job::epic_item`]), as
/// the JSON of its [`knoblab_score::view::ItemView`], or of `{"error": …}`.
pub fn epic_item(file: &str, index: usize) -> String {
    let item = JOB.with(|j| {
        j.borrow()
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|job| job::epic_item(job, file, index).map_err(|e| e.to_string()))
    });
    match item {
        Ok(item) => serde_json::to_string(&item)
            .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string()),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}
