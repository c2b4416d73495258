//! The page's one way into the leaderboard computation: [`compute`], which
//! asks the Leaderboard's worker (`www/board-worker.js`, on the page's own
//! module, whose chunk `board` calls [`knoblab_app::leaderboard`]:
//! `crate::worker`). Everything heavy (reading the dropped runs, opening
//! the devices they played, scoring, the bootstraps, a paired comparison)
//! happens there, off the page's thread and out of the page's main module,
//! which holds neither the metrics nor the device generator (issue #46). The page reads the answer (JSON bytes) into the
//! types it shows.
//!
//! **Decision:** one worker, started at the first request and kept while
//! the page lives; it answers requests in the order they were posted, and
//! keeps the board of its last build, which is what a comparison compares
//! (the board on screen: a build that made none keeps the one before).

use std::cell::RefCell;
use std::collections::HashMap;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker};

use knoblab_app::leaderboard::publish::{Built, Published, Trace};
use knoblab_app::leaderboard::{Comparison, Options};

use crate::browser::fetch::LIBRARY_URL;
use crate::browser::js_message;
use crate::browser::module_worker::{
    bytes_field, page_relative, set, spawn_page, string_field, PageWorker,
};
use crate::pages::score::worker::{JobFile, Source};

/// The worker's script, beside the page (`www/board-worker.js`).
const WORKER_JS: &str = "board-worker.js";

/// What the page asks.
pub enum Request {
    /// The leaderboard of these files: runs, or a saved
    /// leaderboard (the last one given wins; runs given with it are not
    /// ranked).
    Build {
        /// The files, in the order given (read one at a time).
        files: Vec<JobFile>,
        /// Seed and resamples.
        options: Options,
        /// A plan file (name, bytes): the episodes the runs were meant to
        /// cover (`knoblab_app::leaderboard::plan::read_plan`).
        plan: Option<(String, Vec<u8>)>,
    },
    /// Rows `a` and `b` (0-based) of the board on screen (the worker's
    /// last), compared.
    Compare {
        /// Row A.
        a: usize,
        /// Row B.
        b: usize,
    },
    /// The traces of row `row`'s records at `lines`, from the board on
    /// screen (they stay in the worker).
    Traces {
        /// The row (0-based).
        row: usize,
        /// Its file, as the page shows it (a board made since, whose row
        /// `row` is another file, answers with an error).
        file: String,
        /// The records' lines.
        lines: Vec<usize>,
    },
    /// The board on screen with its traces, as the file Save writes.
    Save,
}

/// What it answers.
pub enum Reply {
    /// A board (none when no file could be read), with the files that
    /// were refused (each message names its file) and the names of those
    /// read as runs (the page keeps them for the next drop).
    Board {
        /// The leaderboard, without its traces (they stay in the worker).
        board: Option<Box<Published>>,
        /// Whether it has traces.
        traced: bool,
        /// Files not taken, each with why.
        refused: Vec<String>,
        /// The files read as runs.
        runs: Vec<String>,
    },
    /// A comparison.
    Compared(Box<Comparison>),
    /// The traces asked for, in the order of the lines (none where the
    /// board has none).
    Traces(Vec<Option<Trace>>),
    /// The saved file's text.
    Saved(String),
}

/// The running worker, its handlers, and the requests it has not answered
/// (by number: how to settle each caller's promise).
struct Running {
    worker: Worker,
    waiting: HashMap<u64, (js_sys::Function, js_sys::Function)>,
    numbered: u64,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(JsValue)>,
}

thread_local! {
    static WORKER: RefCell<Option<Running>> = const { RefCell::new(None) };
}

/// Starts the worker; its answers settle the waiting requests.
fn start() -> Result<Running, String> {
    let worker = spawn_page(WORKER_JS, PageWorker::Board)?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let Some(number) = js_sys::Reflect::get(&data, &JsValue::from_str("job"))
            .ok()
            .and_then(|n| n.as_f64())
        else {
            return;
        };
        let settle = WORKER.with(|w| {
            w.borrow_mut()
                .as_mut()
                .and_then(|r| r.waiting.remove(&(number as u64)))
        });
        if let Some((resolve, reject)) = settle {
            match string_field(&data, "error") {
                Some(error) => {
                    let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(&error));
                }
                None => {
                    let _ = resolve.call1(&JsValue::NULL, &data);
                }
            }
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let message = string_field(&event, "message")
            .unwrap_or_else(|| "the leaderboard's worker stopped".to_string());
        let message = JsValue::from_str(&format!("the leaderboard's worker failed: {message}"));
        // Every request waiting fails with the reason; the next one starts
        // a new worker.
        if let Some(running) = WORKER.with(|w| w.borrow_mut().take()) {
            running.worker.terminate();
            for (_, (_, reject)) in running.waiting {
                let _ = reject.call1(&JsValue::NULL, &message);
            }
        }
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Running {
        worker,
        waiting: HashMap::new(),
        numbered: 0,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// Posts `message` (its `job` set here) and awaits the answer's bytes.
async fn ask(message: js_sys::Object, transfer: &js_sys::Array) -> Result<Vec<u8>, String> {
    let mut settle = None;
    let promise = js_sys::Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    let (resolve, reject) = settle.ok_or("the browser ran no promise executor")?;
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        if w.is_none() {
            *w = Some(start()?);
        }
        let running = w.as_mut().ok_or("the leaderboard's worker did not start")?;
        running.numbered += 1;
        let number = running.numbered;
        set(&message, "job", &JsValue::from_f64(number as f64));
        running
            .worker
            .post_message_with_transfer(&message, transfer)
            .map_err(|e| js_message(&e))?;
        running.waiting.insert(number, (resolve, reject));
        Ok::<_, String>(())
    })?;
    let data = JsFuture::from(promise).await.map_err(|e| js_message(&e))?;
    bytes_field(&data, "done")
        .map(|b| b.to_vec())
        .ok_or_else(|| "the leaderboard's worker answered without a result".to_string())
}

/// Computes what `request` asks; an error says what went wrong and where.
pub async fn compute(request: Request) -> Result<Reply, String> {
    let message = js_sys::Object::new();
    let transfer = js_sys::Array::new();
    match request {
        Request::Build {
            files,
            options,
            plan,
        } => {
            let list = js_sys::Array::new();
            for f in &files {
                let item = js_sys::Object::new();
                set(&item, "path", &JsValue::from_str(&f.path));
                match &f.source {
                    Source::File(file) => set(&item, "file", file),
                    // Relative to the page, so any sub-path works.
                    Source::Url(url) => set(&item, "url", &JsValue::from_str(&page_relative(url)?)),
                }
                list.push(&item);
            }
            let options = serde_json::to_string(&options)
                .map_err(|e| format!("the leaderboard's options: {e}"))?;
            let build = js_sys::Object::new();
            set(&build, "files", &list);
            set(&build, "options", &JsValue::from_str(&options));
            set(
                &build,
                "library",
                &JsValue::from_str(&page_relative(LIBRARY_URL)?),
            );
            if let Some((name, bytes)) = plan {
                set(&build, "plan_name", &JsValue::from_str(&name));
                let bytes = js_sys::Uint8Array::from(bytes.as_slice());
                set(&build, "plan_bytes", &bytes);
                transfer.push(&bytes.buffer());
            }
            set(&message, "build", &build);
            let bytes = ask(message, &transfer).await?;
            let built: Built = knoblab_core::input::json::from_bytes(&bytes).map_err(|e| {
                format!("the leaderboard's worker answered what is not a board: {e}")
            })?;
            Ok(Reply::Board {
                board: built.board.map(Box::new),
                traced: built.traced,
                refused: built.refused,
                runs: built.runs,
            })
        }
        Request::Compare { a, b } => {
            let compare = js_sys::Object::new();
            set(&compare, "a", &JsValue::from_f64(a as f64));
            set(&compare, "b", &JsValue::from_f64(b as f64));
            set(&message, "compare", &compare);
            let bytes = ask(message, &transfer).await?;
            let c: Comparison = knoblab_core::input::json::from_bytes(&bytes).map_err(|e| {
                format!("the leaderboard's worker answered what is not a comparison: {e}")
            })?;
            Ok(Reply::Compared(Box::new(c)))
        }
        Request::Traces { row, file, lines } => {
            let traces = js_sys::Object::new();
            set(&traces, "row", &JsValue::from_f64(row as f64));
            set(&traces, "file", &JsValue::from_str(&file));
            let list = js_sys::Array::new();
            for l in lines {
                list.push(&JsValue::from_f64(l as f64));
            }
            set(&traces, "lines", &list);
            set(&message, "traces", &traces);
            let bytes = ask(message, &transfer).await?;
            let t: Vec<Option<Trace>> =
                knoblab_core::input::json::from_bytes(&bytes).map_err(|e| {
                    format!("the leaderboard's worker answered what are not traces: {e}")
                })?;
            Ok(Reply::Traces(t))
        }
        Request::Save => {
            set(&message, "save", &JsValue::TRUE);
            let bytes = ask(message, &transfer).await?;
            knoblab_core::input::text::decode_owned(bytes)
                .map(Reply::Saved)
                .map_err(|e| format!("the leaderboard's worker wrote a file that is not text: {e}"))
        }
    }
}
