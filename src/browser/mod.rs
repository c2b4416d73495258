//! The browser's services, in one place: what the core cannot do because
//! it needs the browser. Everything here returns bytes, text or a message;
//! what they mean is the core's business.
//!
//! - [`fetch`]: GETs without credentials (bundles, the library), and
//!   reading files the visitor picked or dropped, a dropped folder included.
//! - [`device_worker`]: generated devices and their cards' pictures drawn
//!   in a Web Worker, off the main thread.
//! - [`module_worker`]: starting a Web Worker on a wasm module of its own.
//! - [`http`]: the model API's POST with a timeout and abort, the clock and
//!   a sleep.
//! - [`indexeddb`]: batches and finished episodes in IndexedDB.
//! - [`storage`]: the human-baseline run in `localStorage`.
//! - [`offline`]: the service worker that keeps the page for offline use.
//! - [`key`]: the API key in `localStorage`, only when asked to remember.
//! - [`files`]: the one download, a chosen file's text, the
//!   Score page hand-off (`sessionStorage`).

use wasm_bindgen::{JsCast, JsValue};

pub mod device_worker;
pub mod fetch;
pub mod files;
pub mod http;
pub mod indexeddb;
pub mod key;
pub mod module_worker;
pub mod offline;
pub mod storage;

/// A JavaScript error as a message: an `Error`'s message, a thrown
/// string, or else the value's debug text. The one place the page turns a
/// `JsValue` error into text.
pub fn js_message(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}
