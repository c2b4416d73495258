//! The browser's services, in one place: what the core cannot do because
//! it needs the browser. Everything here returns bytes, text or a message;
//! what they mean is the core's business.
//!
//! - [`fetch`]: GETs without credentials (bundles, the library), and
//!   reading files the visitor picked or dropped, a dropped folder included.
//! - [`http`]: the model API's POST with a timeout and abort, the clock and
//!   a sleep.
//! - [`indexeddb`]: batches and finished episodes in IndexedDB.
//! - [`storage`]: the human-baseline run in `localStorage`.
//! - [`key`]: the API key in `localStorage`, only when asked to remember.
//! - [`files`]: downloads made in the page, a chosen file's text, the
//!   Score page hand-off (`sessionStorage`).

pub mod fetch;
pub mod files;
pub mod http;
pub mod indexeddb;
pub mod key;
pub mod storage;
