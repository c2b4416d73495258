//! Module Web Workers, each a small script of its own (`www/*.js`, copied
//! beside `index.html` by Trunk and started by its URL relative to the
//! page, so the same build runs at any path), all running the page's own
//! module ([`spawn_page`]), whose code each calls comes in chunks that the
//! page never fetches for itself (`crate::worker`): the Score page's
//! workers ([`crate::pages::score::worker`]), the device drawer
//! ([`super::device_worker`]) and the Leaderboard's
//! (`crate::pages::leaderboard`). A route downloads only what it uses
//! (issue #46).
//!
//! **Decision:** the page fetches and compiles the chunks its workers call
//! once per page load and posts the compiled `WebAssembly.Module`s to every
//! worker that runs them, so that the Score page's two or more workers
//! neither download nor compile them twice (when each downloaded the
//! scorers' chunk itself, a cold Score route downloaded it twice: 1.3 MB
//! instead of 0.65).

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Url, Worker, WorkerOptions, WorkerType};

use super::js_message;

#[wasm_bindgen(inline_js = r#"
export function knoblab_compile_module(url) {
  const compiled = fetch(url).then(async (response) => {
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    // A host that serves .wasm with another type: compiled from its bytes.
    const type = response.headers.get('content-type') || '';
    if (type.split(';')[0].trim() === 'application/wasm') return WebAssembly.compileStreaming(response);
    return WebAssembly.compile(await response.arrayBuffer());
  });
  // Awaited later, maybe after it failed: not an unhandled rejection meanwhile.
  compiled.catch(() => {});
  return compiled;
}
"#)]
extern "C" {
    /// Fetches the `.wasm` at `url` and compiles it: a promise of its
    /// `WebAssembly.Module`.
    fn knoblab_compile_module(url: &str) -> js_sys::Promise;
}

thread_local! {
    /// Each chunk being compiled or compiled in this page load, by URL (one
    /// that failed is dropped, so the next worker tries again).
    static COMPILED: RefCell<HashMap<String, js_sys::Promise>> = RefCell::new(HashMap::new());
}

/// The compiled chunk at `url`: compiled once per page load.
fn compiled(url: &str) -> js_sys::Promise {
    COMPILED.with(|c| {
        c.borrow_mut()
            .entry(url.to_string())
            .or_insert_with(|| knoblab_compile_module(url))
            .clone()
    })
}

/// Sets a field of a plain object (a message).
pub fn set(o: &js_sys::Object, k: &str, v: &JsValue) {
    let _ = js_sys::Reflect::set(o, &JsValue::from_str(k), v);
}

/// A text field of a message, when it has one.
pub fn string_field(data: &JsValue, k: &str) -> Option<String> {
    js_sys::Reflect::get(data, &JsValue::from_str(k))
        .ok()
        .and_then(|v| v.as_string())
}

/// A bytes field of a message (a `Uint8Array`), when it has one.
pub fn bytes_field(data: &JsValue, k: &str) -> Option<js_sys::Uint8Array> {
    js_sys::Reflect::get(data, &JsValue::from_str(k))
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
}

/// The absolute URL of `file`, a path relative to the page (the folder
/// `index.html` was loaded from, whatever its path on the host).
pub fn page_relative(file: &str) -> Result<String, String> {
    let base = window().location().href().map_err(|e| js_message(&e))?;
    Url::new_with_base(file, &base)
        .map(|u| u.href())
        .map_err(|e| js_message(&e))
}

/// A module worker running the script `file`, a path relative to the page.
fn start(file: &str) -> Result<Worker, String> {
    let worker_options = WorkerOptions::new();
    worker_options.set_type(WorkerType::Module);
    Worker::new_with_options(&page_relative(file)?, &worker_options).map_err(|e| js_message(&e))
}

/// Posts a worker `{init}`, what its script waits for before anything else.
fn post_init(worker: &Worker, init: &js_sys::Object) {
    let message = js_sys::Object::new();
    set(&message, "init", init);
    // A worker stopped meanwhile takes no message: nothing to do.
    let _ = worker.post_message(&message);
}

/// The `<meta>` of index.html that names the page's glue
/// (`knoblab-page-HASH.js`), written by scripts/split_page.py.
const GLUE_META: &str = "knoblab-page-glue";

/// The kinds of worker that run the page's module, each with the `<meta>`
/// of index.html that lists the chunks it calls (space-separated), written
/// by scripts/split_page.py.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageWorker {
    /// The Score page's: the job and EPIC-Bench's scorer.
    Score,
    /// The device drawer: the generator and its picture code.
    Device,
    /// The Leaderboard's: the leaderboard's computation and the generator.
    Board,
}

impl PageWorker {
    fn chunks_meta(self) -> &'static str {
        match self {
            PageWorker::Score => "knoblab-score-chunks",
            PageWorker::Device => "knoblab-device-chunks",
            PageWorker::Board => "knoblab-board-chunks",
        }
    }
}

/// The content of index.html's `<meta name=…>`, when it has one.
fn meta(name: &str) -> Option<String> {
    window()
        .document()?
        .query_selector(&format!("meta[name={name}]"))
        .ok()
        .flatten()?
        .get_attribute("content")
}

/// A module worker running the script `file` (a path relative to the page)
/// on the page's own module. Once the chunks that `kind` of worker calls
/// are compiled (downloaded and compiled once per page load), it is posted `{init: {module, glue, chunks}}`: the module this
/// page runs, the absolute URL of its glue, which the worker imports, and
/// the chunks, `[URL, WebAssembly.Module]` pairs, which its split loader
/// instantiates instead of downloading them (`crate::worker`). A chunk
/// that cannot be had is left out: the worker's call of it then says so.
pub fn spawn_page(file: &str, kind: PageWorker) -> Result<Worker, String> {
    let glue = meta(GLUE_META).ok_or_else(|| {
        format!("index.html has no <meta name=\"{GLUE_META}\">: scripts/split_page.py writes it")
    })?;
    let glue = page_relative(&glue)?;
    let chunks = meta(kind.chunks_meta())
        .unwrap_or_default()
        .split_whitespace()
        .map(page_relative)
        .collect::<Result<Vec<_>, _>>()?;
    let worker = start(file)?;
    let to = worker.clone();
    // All are requested at once (a worker's code is a few dozen chunks).
    let pending: Vec<(String, js_sys::Promise)> = chunks
        .into_iter()
        .map(|url| {
            let promise = compiled(&url);
            (url, promise)
        })
        .collect();
    wasm_bindgen_futures::spawn_local(async move {
        let compiled_chunks = js_sys::Array::new();
        for (url, promise) in pending {
            match JsFuture::from(promise).await {
                Ok(module) => {
                    compiled_chunks.push(&js_sys::Array::of2(&JsValue::from_str(&url), &module));
                }
                Err(_) => {
                    COMPILED.with(|c| c.borrow_mut().remove(&url));
                }
            }
        }
        let init = js_sys::Object::new();
        set(&init, "module", &wasm_bindgen::module());
        set(&init, "glue", &JsValue::from_str(&glue));
        set(&init, "chunks", &compiled_chunks);
        post_init(&to, &init);
    });
    Ok(worker)
}
