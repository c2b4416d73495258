//! The page's module as its workers run it: each worker instantiates this
//! very module (the page posts it compiled, with its glue's URL and the
//! chunks that worker calls), then calls these entries. Nothing of the page
//! starts there ([`crate::start`] returns in a worker). Three kinds of
//! worker:
//!
//! - the Score page's (`www/score-worker.js`): the job and the scorers
//!   (`job`);
//! - the device drawer (`www/device-worker.js`): generated devices
//!   (`draw`);
//! - the Leaderboard page's (`www/board-worker.js`): runs ranked, rows
//!   compared (`board`).
//!
//! **Decision** (issue #46, each route loads what it uses): the scorers and
//! the generator are code of this module, not of modules of their own. In
//! the release (feature `split`) the job's code with EPIC-Bench's scorer is
//! the chunk `score_job`, which the page downloads and compiles for its
//! workers; each other benchmark's scorer is a chunk that the merging
//! worker downloads only for a job with such a file ([`knoblab_give_scorers`]:
//! `score_finestate`, `score_switch`, `score_trajectories`). The generator
//! and its picture code are the chunk `draw_device`, which the page
//! downloads for the device worker when a generated device is first
//! opened, and which the Score and Leaderboard workers download only for a
//! file played on a generated device ([`knoblab_give_generator`]); the
//! leaderboard's computation is the chunk `board`, for the Leaderboard's
//! worker. A module of their own carried its own
//! copy of the standard library, serde_json and the picture code, and a
//! route downloaded both that and the page's: docs/performance.md, "What
//! each route downloads".
//!
//! Every entry is async (the first call of a chunk downloads it) and
//! rejects with a message when its chunk cannot be downloaded.

mod board;
mod draw;
mod job;

use wasm_bindgen::prelude::*;

use crate::chunk::Missing;

/// What each kind of worker's chunks hold, as its messages name it.
const SCORERS: &str = "the scorers' code";
const GENERATOR: &str = "the device generator's code";
const BOARD: &str = "the leaderboard's code";

/// Why an entry did not run, as the worker's script reads it: `what` (its
/// chunk) could not be downloaded.
fn unavailable(what: &str) -> impl FnOnce(Missing) -> JsValue + '_ {
    move |_| {
        JsValue::from_str(&format!(
            "{what} could not be downloaded: the network is off and this browser had \
             not kept it, or the server is gone; reload to try again"
        ))
    }
}

/// Each entry's body, in its chunk: a split point of the release, a plain
/// function elsewhere (the browser tests' builds are one module).
/// `call!(what, f(..))` awaits a split point and calls a plain function,
/// saying that `what` could not be downloaded when its chunk cannot be.
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
    ($what:expr, $e:expr) => {
        $e.await.map_err(unavailable($what))
    };
}

#[cfg(not(feature = "split"))]
macro_rules! call {
    ($what:expr, $e:expr) => {
        $e.map_err(unavailable($what))
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
    fn give_trajectories() -> () {
        job::give_trajectories()
    }
    fn needs_generator() -> bool {
        job::needs_generator()
    }
}

chunk_fn! { draw_device:
    fn draw(id: String) -> Result<js_sys::Array, JsValue> {
        draw::device(&id)
    }
    fn font(bytes: Vec<u8>) -> Result<(), JsValue> {
        draw::font(bytes)
    }
    fn generator(bytes: Vec<u8>) -> Result<(), JsValue> {
        draw::generator(bytes)
    }
}

/// A generated device's files, made by the library's rule, as `[name,
/// bytes]` pairs (the device worker's request).
#[wasm_bindgen]
pub async fn knoblab_draw_device(id: String) -> Result<js_sys::Array, JsValue> {
    call!(GENERATOR, draw(id))?
}

/// Gives the generator its font (the device worker fetches it before its
/// first drawing).
#[wasm_bindgen]
pub async fn knoblab_provide_font(bytes: Vec<u8>) -> Result<(), JsValue> {
    call!(GENERATOR, font(bytes))?
}

/// Gives the generator its font, and the code that makes generated
/// devices' logic (scoring trajectories, ranking runs) the generator: the
/// Score and Leaderboard workers' call before a file that played a
/// generated device is scored.
#[wasm_bindgen]
pub async fn knoblab_give_generator(font: Vec<u8>) -> Result<(), JsValue> {
    call!(GENERATOR, generator(font))?
}

/// The leaderboard's build, a future made in its chunk (the chunk's code
/// runs when it is awaited).
type Building = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Vec<u8>, JsValue>>>>;

chunk_fn! { board:
    fn board_build(
        files: js_sys::Array,
        options: String,
        plan_name: Option<String>,
        plan_bytes: Option<Vec<u8>>,
        library: String
    ) -> Building {
        Box::pin(board::build_board(files, options, plan_name, plan_bytes, library))
    }
    fn board_traces(row: usize, file: String, lines: Vec<usize>) -> Result<Vec<u8>, JsValue> {
        board::traces(row, file, lines)
    }
    fn board_saved() -> Result<Vec<u8>, JsValue> {
        board::saved()
    }
    fn board_compare(a: usize, b: usize) -> Result<Vec<u8>, JsValue> {
        board::compare_rows(a, b)
    }
}

/// The board of `files` (an array of `{path, file | url}`, read one at a
/// time), with `options` (JSON of `knoblab_app::leaderboard::Options`) and
/// a plan file (`plan_name`, `plan_bytes`), the devices they played fetched
/// from the library index at `library` (absolute URL): the JSON of
/// `knoblab_app::leaderboard::publish::Built`. The board is kept for the
/// calls below. Rejects with a message that says what went wrong and where.
#[wasm_bindgen]
pub async fn knoblab_board_build(
    files: js_sys::Array,
    options: String,
    plan_name: Option<String>,
    plan_bytes: Option<Vec<u8>>,
    library: String,
) -> Result<Vec<u8>, JsValue> {
    call!(
        BOARD,
        board_build(files, options, plan_name, plan_bytes, library)
    )?
    .await
}

/// The traces of row `row`'s records at `lines`, from the board the last
/// build made, whose row `row` must be `file`: JSON of a list of
/// `knoblab_app::leaderboard::publish::Trace`.
#[wasm_bindgen]
pub async fn knoblab_board_traces(
    row: usize,
    file: String,
    lines: Vec<usize>,
) -> Result<Vec<u8>, JsValue> {
    call!(BOARD, board_traces(row, file, lines))?
}

/// The board the last build made, with its traces, as the file the page
/// saves and reopens, in UTF-8 bytes.
#[wasm_bindgen]
pub async fn knoblab_board_saved() -> Result<Vec<u8>, JsValue> {
    call!(BOARD, board_saved())?
}

/// Rows `a` and `b` (0-based) of the board the last build made, compared
/// with its seed and resamples: the JSON of
/// `knoblab_app::leaderboard::Comparison`.
#[wasm_bindgen]
pub async fn knoblab_board_compare(a: usize, b: usize) -> Result<Vec<u8>, JsValue> {
    call!(BOARD, board_compare(a, b))?
}

/// A Score worker's first entry for a job: its files (paths and bytes in the
/// same order) and options (JSON), kept for the calls that follow.
#[wasm_bindgen]
pub async fn knoblab_take_job(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
    options: String,
) -> Result<(), JsValue> {
    call!(SCORERS, take_job(paths, buffers, options))
}

/// Adds files to the kept job (the library's bundles, fetched once the
/// job is known to need them).
#[wasm_bindgen]
pub async fn knoblab_add_job_files(
    paths: Vec<String>,
    buffers: Vec<js_sys::Uint8Array>,
) -> Result<(), JsValue> {
    call!(SCORERS, add_job_files(paths, buffers))
}

/// Whether the kept job has trajectories, scored against bundles.
#[wasm_bindgen]
pub async fn knoblab_job_needs_bundles() -> Result<bool, JsValue> {
    call!(SCORERS, needs_bundles())
}

/// Gives the kept job the scorers its FineState-Bench and SWITCH files
/// need (each its own chunk): before it is scored. A scorer whose chunk
/// cannot be downloaded is left out: the job then scores the other files
/// and says of each of that benchmark's that it has no scorer, and why.
#[wasm_bindgen]
pub async fn knoblab_give_scorers() -> Result<(), JsValue> {
    use knoblab_score::detect::Benchmark;
    for benchmark in call!(SCORERS, missing_scorers())? {
        let _given: Result<(), JsValue> = match benchmark {
            Benchmark::FineState => call!(SCORERS, give_finestate()),
            Benchmark::Switch => call!(SCORERS, give_switch()),
            Benchmark::Trajectories => call!(SCORERS, give_trajectories()),
            // EPIC-Bench's is the job's own.
            Benchmark::Epic => Ok(()),
        };
    }
    Ok(())
}

/// Whether the kept job's trajectories were played on generated devices:
/// the worker then fetches the generator's font and calls
/// [`knoblab_give_generator`] before scoring.
#[wasm_bindgen]
pub async fn knoblab_job_needs_generator() -> Result<bool, JsValue> {
    call!(SCORERS, needs_generator())
}

/// A spare worker's round of warming the scoring code up: says how many
/// samples it scored.
#[wasm_bindgen]
pub async fn knoblab_warm_up(scale: f64) -> Result<usize, JsValue> {
    call!(SCORERS, warm_up(scale))
}

/// A helper's shard `index` of `of` of the kept job's EPIC-Bench files,
/// as UTF-8 JSON.
#[wasm_bindgen]
pub async fn knoblab_score_shard(index: usize, of: usize) -> Result<Vec<u8>, JsValue> {
    call!(SCORERS, score_shard(index, of))
}

/// The merging worker's own shard (the first of `of`), scored and merged.
#[wasm_bindgen]
pub async fn knoblab_merge_own_shard(of: usize) -> Result<(), JsValue> {
    call!(SCORERS, merge_own_shard(of))
}

/// A helper's shard list (UTF-8 JSON), merged as it comes.
#[wasm_bindgen]
pub async fn knoblab_merge_shard(shard: Vec<u8>) -> Result<(), JsValue> {
    call!(SCORERS, merge_shard(shard))
}

/// Runs the kept job, calling `progress` with JSON progress values: the
/// outcome's JSON in UTF-8 bytes.
#[wasm_bindgen]
pub async fn knoblab_score_job(progress: js_sys::Function) -> Result<Vec<u8>, JsValue> {
    call!(SCORERS, score_job(progress))
}

/// Item `index` of the kept job's EPIC-Bench file `file`, as JSON.
#[wasm_bindgen]
pub async fn knoblab_epic_item(file: String, index: usize) -> Result<String, JsValue> {
    call!(SCORERS, epic_item(file, index))
}
