//! The Leaderboard page's computation, in its worker
//! (`www/board-worker.js`; [`knoblab_app::leaderboard`] does the work):
//! reading the dropped runs one at a time, fetching the library devices
//! they played, scoring, the bootstraps, and the paired comparison of two
//! rows of the board it made last. Each function is the body of one entry
//! of [`super`], in the chunk `board` (issue #46): it holds the metrics,
//! which the library page and the player never need, and a leaderboard of
//! thousands of episodes does not hold the page's thread. The device
//! generator, for the generated devices a run played, is its own chunk,
//! downloaded only for such a run ([`font_for`]).
//!
//! Each entry answers UTF-8 JSON bytes (a board can weigh tens of
//! megabytes: bytes are transferred to the page, not copied as a string).

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::File;

use knoblab_app::devices::{has_generator, names_generated, open_entry_logic};
use knoblab_app::leaderboard::plan::read_plan;
use knoblab_app::leaderboard::publish::{read_dropped, traces_of, Built, Dropped, Published};
use knoblab_app::leaderboard::{self, compare, Options};
use knoblab_core::bundle::{Bundle, LibraryIndex};
use knoblab_devicegen::render::FONT_PATH;
use knoblab_web_fetch::{fetch_bytes, js_message, read_file};

thread_local! {
    /// The board the last build made: what a comparison compares.
    static BOARD: RefCell<Option<Published>> = const { RefCell::new(None) };
}

/// A file the page handed over: `{path, file}` (a dropped or chosen
/// `File`, read when its turn comes) or `{path, url}` (absolute).
struct Given {
    path: String,
    source: JsValue,
}

impl Given {
    fn from_js(value: &JsValue) -> Result<Given, String> {
        let field = |k: &str| js_sys::Reflect::get(value, &JsValue::from_str(k)).ok();
        let path = field("path")
            .and_then(|p| p.as_string())
            .ok_or("a file handed to the leaderboard has no path")?;
        let source = field("file")
            .filter(|f| f.is_instance_of::<File>())
            .or_else(|| field("url").filter(JsValue::is_string))
            .ok_or_else(|| format!("{path}: handed over with neither a file nor a URL"))?;
        Ok(Given { path, source })
    }

    async fn bytes(&self) -> Result<Vec<u8>, String> {
        if let Some(url) = self.source.as_string() {
            return fetch_bytes(&url).await;
        }
        read_file(self.source.unchecked_ref()).await
    }
}

/// The body of [`super::knoblab_board_build`]: the JSON of [`Built`], the
/// board kept for [`compare_rows`].
pub async fn build_board(
    files: js_sys::Array,
    options: String,
    plan_name: Option<String>,
    plan_bytes: Option<Vec<u8>>,
    library: String,
) -> Result<Vec<u8>, JsValue> {
    let run = async {
        let mut options: Options = knoblab_core::input::json::from_text(&options)
            .map_err(|e| format!("the leaderboard's options: {e}"))?;
        if let (Some(name), Some(bytes)) = (plan_name, plan_bytes) {
            options.plan = Some(read_plan(&name, &bytes).map_err(|e| e.to_string())?);
        }
        let files = files
            .iter()
            .map(|f| Given::from_js(&f))
            .collect::<Result<Vec<_>, _>>()?;
        let mut built = build(&files, &options, &library).await?;
        // The traces stay here: the page asks for them a list at a time.
        let traces = built
            .board
            .as_mut()
            .map(|b| std::mem::take(&mut b.traces))
            .unwrap_or_default();
        built.traced = !traces.is_empty();
        let bytes =
            serde_json::to_vec(&built).map_err(|e| format!("the leaderboard as JSON: {e}"))?;
        // The board on screen: a build that made none leaves it there.
        if let Some(mut board) = built.board {
            board.traces = traces;
            BOARD.with(|b| *b.borrow_mut() = Some(board));
        }
        Ok::<_, String>(bytes)
    };
    run.await.map_err(|e| JsValue::from_str(&e))
}

/// `answer` of the board the last build made; the error of either, as
/// JavaScript's.
fn with_board(
    answer: impl FnOnce(&Published) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, JsValue> {
    BOARD
        .with(|board| match board.borrow().as_ref() {
            Some(board) => answer(board),
            None => Err("no leaderboard has been made in this worker".to_string()),
        })
        .map_err(|e| JsValue::from_str(&e))
}

/// The traces of row `row`'s records at `lines` (in that order, `null`
/// where the board has none), from the board the last build made, whose
/// row `row` must be `file` (the page asks of the board it shows; a build
/// since may have put another file there): JSON of a list of
/// [`knoblab_app::leaderboard::publish::Trace`].
pub fn traces(row: usize, file: String, lines: Vec<usize>) -> Result<Vec<u8>, JsValue> {
    with_board(|board| {
        if board.leaderboard.runs.get(row).map(|r| r.file.as_str()) != Some(file.as_str()) {
            return Err(format!(
                "the leaderboard changed since it was shown: row {} is no longer {file}; open the list again",
                row + 1
            ));
        }
        let traces: Vec<_> = lines.iter().map(|&l| board.trace(row, l)).collect();
        serde_json::to_vec(&traces).map_err(|e| format!("the traces as JSON: {e}"))
    })
}

/// The board the last build made, with its traces, as the file the page
/// saves and reopens ([`Published::to_text`]), in UTF-8 bytes.
pub fn saved() -> Result<Vec<u8>, JsValue> {
    with_board(|board| {
        board
            .to_text()
            .map(String::into_bytes)
            .map_err(|e| format!("the leaderboard could not be written: {e}"))
    })
}

/// Rows `a` and `b` (0-based) of the board the last build made, compared
/// with its seed and resamples: the JSON of
/// [`knoblab_app::leaderboard::Comparison`].
pub fn compare_rows(a: usize, b: usize) -> Result<Vec<u8>, JsValue> {
    with_board(|board| {
        let options = Options {
            seed: board.leaderboard.seed,
            resamples: board.leaderboard.resamples,
            compare: Vec::new(),
            plan: None,
        };
        let c = compare(&board.leaderboard, a, b, &options).map_err(|e| e.to_string())?;
        serde_json::to_vec(&c).map_err(|e| format!("the comparison as JSON: {e}"))
    })
}

async fn build(files: &[Given], options: &Options, library: &str) -> Result<Built, String> {
    let mut refused = Vec::new();
    let mut names = Vec::new();
    let mut prepared = Vec::new();
    let mut traces = Vec::new();
    let mut bundles: Vec<Bundle> = Vec::new();
    let mut saved: Option<Box<Published>> = None;
    let mut index: Option<LibraryIndex> = None;
    // One file at a time: read, score, keep its rows and traces, drop it,
    // so the worker holds one file's trajectories at once.
    for f in files {
        let bytes = match f.bytes().await {
            Ok(b) => b,
            Err(e) => {
                refused.push(e);
                continue;
            }
        };
        let run = match read_dropped(&f.path, &bytes) {
            Ok(Dropped::Run(run)) => run,
            Ok(Dropped::Board(board)) => {
                saved = Some(board);
                continue;
            }
            Err(e) => {
                refused.push(e.to_string());
                continue;
            }
        };
        drop(bytes);
        let more = library_devices(
            &leaderboard::played_ids(&run).collect::<Vec<_>>(),
            &bundles,
            library,
            &mut index,
        )
        .await?;
        bundles.extend(more);
        font_for(&leaderboard::played_ids(&run).collect::<Vec<_>>(), library).await?;
        bundles = leaderboard::with_generated(std::slice::from_ref(&run), bundles)
            .map_err(|e| e.to_string())?;
        prepared.push(leaderboard::prepare(&run, &bundles));
        traces.push(traces_of(&run));
        names.push(run.name);
    }
    if let Some(board) = saved {
        for name in &names {
            refused.push(format!(
                "{name}: not ranked: a saved leaderboard was opened with it; drop runs on their own to rank them"
            ));
        }
        return Ok(Built {
            board: Some(*board),
            traced: false,
            refused,
            runs: Vec::new(),
        });
    }
    if prepared.is_empty() {
        return Ok(Built {
            board: None,
            traced: false,
            refused,
            runs: names,
        });
    }
    if let Some(keys) = &options.plan {
        let ids: Vec<&str> = keys
            .iter()
            .filter_map(|k| leaderboard::split_key(k).map(|(b, _)| b))
            .collect();
        let more = library_devices(&ids, &bundles, library, &mut index).await?;
        bundles.extend(more);
        font_for(&ids, library).await?;
    }
    let board =
        leaderboard::from_prepared(prepared, bundles, options).map_err(|e| e.to_string())?;
    Ok(Built {
        board: Some(Published::new(board, traces)),
        traced: false,
        refused,
        runs: names,
    })
}

/// The hand-described library devices among `ids` that `have` lacks,
/// fetched (the index at `library` once, into `index`) and opened without
/// their pictures ([`open_entry_logic`]); the generated ones are made by
/// [`leaderboard::with_generated`].
async fn library_devices(
    ids: &[&str],
    have: &[Bundle],
    library: &str,
    index: &mut Option<LibraryIndex>,
) -> Result<Vec<Bundle>, String> {
    let mut wanted: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| !have.iter().any(|b| b.manifest.id == *id))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    // A generated device is made here, not fetched ([`font_for`]).
    wanted.retain(|id| !names_generated(id));
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    if index.is_none() {
        let bytes = fetch_bytes(library).await?;
        *index = Some(LibraryIndex::parse(&bytes).map_err(|e| format!("{library}: {e}"))?);
    }
    let Some(index) = index.as_ref() else {
        return Ok(Vec::new());
    };
    let base = library.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut out = Vec::new();
    for entry in index
        .devices
        .iter()
        .filter(|e| wanted.contains(&e.id.as_str()))
    {
        let mut files = Vec::with_capacity(entry.files.len());
        for file in &entry.files {
            let url = format!("{base}/{}", entry.file_url(file));
            files.push((file.clone(), fetch_bytes(&url).await?));
        }
        out.push(open_entry_logic(entry, files).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// Gives the leaderboard the generator (its own chunk, `draw_device`) and
/// the generator its font (`data/` + [`FONT_PATH`], fetched beside the
/// library's index at `library`) the first time a device among `ids` is a
/// generated one: its logic is made by drawing it, since its parts' boxes
/// are measured on the drawing, labels included. A board of hand-made
/// devices downloads neither.
async fn font_for(ids: &[&str], library: &str) -> Result<(), String> {
    if has_generator() || !ids.iter().copied().any(names_generated) {
        return Ok(());
    }
    let base = library.rsplit_once('/').map_or("", |(dir, _)| dir);
    let url = format!("{base}/{FONT_PATH}");
    let bytes = fetch_bytes(&url).await?;
    super::knoblab_give_generator(bytes)
        .await
        .map_err(|e| js_message(&e))
}
