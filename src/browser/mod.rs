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
/// string, or else the value's debug text: the page's and its workers'
/// one rule (`knoblab-web-fetch`).
pub use knoblab_web_fetch::js_message;
