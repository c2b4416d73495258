//! The page's module as the Score page's workers run it
//! (`www/score-worker.js`): each worker instantiates this very module (the
//! page posts it compiled, with its glue's URL and the job's chunks), then
//! calls these entries.
//! Nothing of the page starts there ([`crate::start`] returns in a worker).
//!
//! **Decision** (issue #46, each route loads what it uses): the scorers are
//! code of this module, not of a module of their own. In the release
//! (feature `split`) the job's code with EPIC-Bench's scorer is the chunk
//! `score_job`, which the page downloads and compiles for its workers; each
//! other benchmark's scorer is a chunk that the merging worker downloads
//! only for a job with such a file ([`knoblab_give_scorers`]:
//! `score_finestate`, `score_switch`; [`knoblab_give_trajectories`]:
//! `score_trajectories`, with the generator that trajectories of generated
//! devices need). A module of their own carried its own copy of the
//! standard library, serde_json and the picture code, and the Score route
//! downloaded both: docs/performance.md, "What each route downloads".
//!
//! Every entry is async (the first call of a chunk downloads it) and
//! rejects with a message when its chunk cannot be downloaded.

mod job;

use wasm_bindgen::prelude::*;

use crate::chunk::Missing;

/// Why an entry did not run, as the worker's script reads it.
impl From<Missing> for JsValue {
    fn from(_: Missing) -> JsValue {
        JsValue::from_str(
            "the scorers' code could not be downloaded: the network is off and this \
             browser had not kept it, or the server is gone; reload to try again",
        )
    }
}

/// Each entry's body, in its chunk: a split point of the release, a plain
/// function elsewhere (the browser tests' builds are one module). `call!`
/// awaits a split point and calls a plain function.
macro_rules! chunk_fn {
    ($chunk:ident: $(fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block)*) => {
        $(
            #[cfg_attr(feature = "split", wasm_split_helpers::wasm_split($chunk, fallible))]
            fn $name($($arg: $ty),*) -> Result<$ret, Missing> {
                Ok($body)
            }
        )*
    };
}

#[cfg(feature = "split")]
macro_rules! call {
    ($e:expr) => {
        $e.await
    };
}

#[cfg(not(feature = "split"))]
macro_rules! call {
    ($e:expr) => {
        $e
    };
}

chunk_fn! { score_job:
    fn take_job(paths: Vec<String>, buffers: Vec<js_sys::Uint8Array>, options: String) -> () {
        job::take_job(paths, buffers, &options)
    }
    fn add_job_files(paths: Vec<String>, buffers: Vec<js_sys::Uint8Array>) -> () {
        job::add_job_files(paths, buffers)
    }
    fn needs_bundles() -> bool {
        job::needs_bundles()
    }
    fn warm_up(scale: f64) -> usize {
        job::warm_up(scale)
    }
    fn score_shard(index: usize, of: usize) -> Vec<u8> {
        job::score_shard(index, of)
    }
    fn merge_own_shard(of: usize) -> () {
        job::merge_own_shard(of)
    }
    fn merge_shard(shard: Vec<u8>) -> () {
        job::merge_shard(&shard)
    }
    fn score_job(progress: js_sys::Function) -> Vec<u8> {
        job::score_job(&progress)
    }
    fn epic_item(file: String, index: usize) -> String {
        job::epic_item(&file, index)
    }
    fn missing_scorers() -> Vec<knoblab_score::detect::Benchmark> {
        job::missing_scorers()
    }
}

chunk_fn! { score_finestate:
    fn give_finestate() -> () {
        job::give_finestate()
    }
}

chunk_fn! { score_switch:
    fn give_switch() -> () {
        job::give_switch()
    }
}

chunk_fn! { score_trajectories:
    fn give_trajectories(font: Vec<u8>) -> Result<(), JsValue> {
        job::give_trajectories(font)
    }
}

/// A worker's first entry for a job: its files (paths and bytes in the
/// same order) and options (JSON), kept for the calls that follow.
#[wasm_bindgen]
pub async fn knoblab_take_job(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: String,
) -> Result<(), JsValue> {
    Ok(call!(take_job(paths, buffers, options))?)
}

/// Adds files to the kept job (the library's bundles, fetched once the
/// job is known to need them).
#[wasm_bindgen]
pub async fn knoblab_add_job_files(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
) -> Result<(), JsValue> {
    Ok(call!(add_job_files(paths, buffers))?)
}

/// Whether the kept job has trajectories, scored against bundles.
#[wasm_bindgen]
pub async fn knoblab_job_needs_bundles() -> Result<bool, JsValue> {
    Ok(call!(needs_bundles())?)
}

/// Gives the kept job the scorers its FineState-Bench and SWITCH files
/// need (each its own chunk): before it is scored. A scorer whose chunk
/// cannot be downloaded is left out: the job then scores the other files
/// and says of each of that benchmark's that it has no scorer, and why.
#[wasm_bindgen]
pub async fn knoblab_give_scorers() -> Result<(), JsValue> {
    use knoblab_score::detect::Benchmark;
    for benchmark in call!(missing_scorers())? {
        let _given: Result<(), Missing> = match benchmark {
            Benchmark::FineState => call!(give_finestate()),
            Benchmark::Switch => call!(give_switch()),
            // EPIC-Bench's is the job's own; the trajectories' comes with
            // the library's bundles (`knoblab_give_trajectories`).
            Benchmark::Epic | Benchmark::Trajectories => Ok(()),
        };
    }
    Ok(())
}

/// Gives the kept job the trajectories' scorer (its own chunk, with the
/// generator) and the generator its font: for a job with trajectories,
/// before it is scored.
#[wasm_bindgen]
pub async fn knoblab_give_trajectories(font: Vec<u8>) -> Result<(), JsValue> {
    call!(give_trajectories(font))?
}

/// A spare worker's round of warming the scoring code up: says how many
/// samples it scored.
#[wasm_bindgen]
pub async fn knoblab_warm_up(scale: f64) -> Result<usize, JsValue> {
    Ok(call!(warm_up(scale))?)
}

/// A helper's shard `index` of `of` of the kept job's EPIC-Bench files,
/// as UTF-8 JSON.
#[wasm_bindgen]
pub async fn knoblab_score_shard(index: usize, of: usize) -> Result<Vec<u8>, JsValue> {
    Ok(call!(score_shard(index, of))?)
}

/// The merging worker's own shard (the first of `of`), scored and merged.
#[wasm_bindgen]
pub async fn knoblab_merge_own_shard(of: usize) -> Result<(), JsValue> {
    Ok(call!(merge_own_shard(of))?)
}

/// A helper's shard list (UTF-8 JSON), merged as it comes.
#[wasm_bindgen]
pub async fn knoblab_merge_shard(shard: Vec<u8>) -> Result<(), JsValue> {
    Ok(call!(merge_shard(shard))?)
}

/// Runs the kept job, calling `progress` with JSON progress values: the
/// outcome's JSON in UTF-8 bytes.
#[wasm_bindgen]
pub async fn knoblab_score_job(progress: js_sys::Function) -> Result<Vec<u8>, JsValue> {
    Ok(call!(score_job(progress))?)
}

/// Item `index` of the kept job's EPIC-Bench file `file`, as JSON.
#[wasm_bindgen]
pub async fn knoblab_epic_item(file: String, index: usize) -> Result<String, JsValue> {
    Ok(call!(epic_item(file, index))?)
}
