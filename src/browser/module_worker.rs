//! Module Web Workers that run this page's own wasm module: the page's
//! JS glue and `.wasm` (whose hashed URLs Trunk writes into `index.html`
//! as preload links), loaded by a small script of their own (`www/*.js`,
//! copied beside `index.html` by Trunk and started by its URL relative to
//! the page, so the same build runs at any path).
//! The Score page's workers ([`crate::pages::score::worker`]) and the
//! device worker ([`super::device_worker`]) start this way.
//!
//! **Decision:** one wasm build, not Trunk's `data-type="worker"` second
//! binary: a second release build of the whole core would double the
//! page's build time and download, for the same code.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Url, Worker, WorkerOptions, WorkerType};

use super::js_message;

/// The URLs of this page's wasm-bindgen JS and `.wasm`, from the preload
/// links Trunk writes into `index.html`.
pub fn module_urls() -> Result<(String, String), String> {
    let doc = document();
    let href = |selector: &str| -> Option<String> {
        doc.query_selector(selector)
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlLinkElement>().ok())
            .map(|l| l.href())
    };
    let js = href("link[rel=modulepreload][href$='.js']:not([href*='/snippets/'])")
        .ok_or("the page's module link is missing (built without Trunk?)")?;
    let wasm = href("link[rel=preload][href$='.wasm']")
        .ok_or("the page's wasm preload link is missing (built without Trunk?)")?;
    Ok((js, wasm))
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
/// page), told to load this page's module (`{init: {js, wasm, module}}`,
/// its first message; the script imports the JS glue and instantiates the
/// `.wasm`, or the compiled `module`, on it).
pub fn spawn(file: &str) -> Result<Worker, String> {
    let (js, wasm) = module_urls()?;
    let url = page_relative(file)?;
    let worker_options = WorkerOptions::new();
    worker_options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&url, &worker_options).map_err(|e| js_message(&e))?;
    let init = js_sys::Object::new();
    let paths = js_sys::Object::new();
    set(&paths, "js", &JsValue::from_str(&js));
    set(&paths, "wasm", &JsValue::from_str(&wasm));
    // The page's own compiled `WebAssembly.Module`: a script that passes
    // it to the glue instantiates it without fetching and compiling the
    // `.wasm` again (the Score page's workers do).
    set(&paths, "module", &wasm_bindgen::module());
    set(&init, "init", &paths);
    worker.post_message(&init).map_err(|e| js_message(&e))?;
    Ok(worker)
}
