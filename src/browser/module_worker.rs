//! Module Web Workers that run a wasm module of their own: the scorers'
//! (`knoblab-score-worker`) or the device generator's
//! (`knoblab-device-worker`), each a binary that Trunk builds beside the
//! page (`data-type="worker"` in `index.html`), so that the page's module
//! holds neither and a route downloads only what it uses (issue #46). A
//! worker is a small script of its own (`www/*.js`, copied beside
//! `index.html` by Trunk and started by its URL relative to the page, so
//! the same build runs at any path) that imports its module's glue from
//! beside itself.
//! The Score page's workers ([`crate::pages::score::worker`]) and the
//! device worker ([`super::device_worker`]) start this way.
//!
//! **Decision:** the page fetches and compiles each worker module once per
//! page load ([`spawn`]) and posts the compiled `WebAssembly.Module` to
//! every worker that runs it, so that the Score page's two or more workers
//! neither download nor compile it twice (as they did the page's own
//! module before it was split).

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Url, Worker, WorkerOptions, WorkerType};

use super::js_message;

#[wasm_bindgen(inline_js = r#"
export function knoblab_compile_module(url) {
  return fetch(url).then(async (response) => {
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    // A host that serves .wasm with another type: compiled from its bytes.
    const type = response.headers.get('content-type') || '';
    if (type.split(';')[0].trim() === 'application/wasm') return WebAssembly.compileStreaming(response);
    return WebAssembly.compile(await response.arrayBuffer());
  });
}
"#)]
extern "C" {
    /// Fetches the `.wasm` at `url` and compiles it: a promise of its
    /// `WebAssembly.Module`.
    fn knoblab_compile_module(url: &str) -> js_sys::Promise;
}

thread_local! {
    /// Each worker module being compiled or compiled in this page load, by
    /// URL (one that failed is dropped, so the next worker tries again).
    static COMPILED: RefCell<HashMap<String, js_sys::Promise>> = RefCell::new(HashMap::new());
}

/// The compiled module at `url`: compiled once per page load.
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

/// A module worker running the script `file` (a path relative to the
/// page) on the wasm module `wasm` (a path relative to the page): the
/// worker starts at once, and is posted the compiled module
/// (`{init: {module}}`) when it is ready, or why it is not
/// (`{init: {error}}`); its script waits for it before running anything.
pub fn spawn(file: &str, wasm: &str) -> Result<Worker, String> {
    let url = page_relative(file)?;
    let wasm_url = page_relative(wasm)?;
    let worker_options = WorkerOptions::new();
    worker_options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&url, &worker_options).map_err(|e| js_message(&e))?;
    let module = compiled(&wasm_url);
    let to = worker.clone();
    let name = wasm.to_string();
    wasm_bindgen_futures::spawn_local(async move {
        let init = js_sys::Object::new();
        match JsFuture::from(module).await {
            Ok(module) => set(&init, "module", &module),
            Err(e) => {
                COMPILED.with(|c| c.borrow_mut().remove(&wasm_url));
                let why = format!("{name} could not be loaded: {}", js_message(&e));
                set(&init, "error", &JsValue::from_str(&why));
            }
        }
        let message = js_sys::Object::new();
        set(&message, "init", &init);
        // A worker stopped meanwhile takes no message: nothing to do.
        let _ = to.post_message(&message);
    });
    Ok(worker)
}
