//! # knoblab-web-fetch
//!
//! The one fetch of KnobLab's page: [`fetch_bytes`], the same on the
//! page's thread (a `Window`) and in its workers (a `WorkerGlobalScope`), always without credentials (a bundle or a run
//! named by a link must not carry the visitor's cookies anywhere). Every
//! failure is a message that names the URL and says what went wrong;
//! and [`read_file`], a dropped or chosen file's bytes.
//! Natively the crate is empty.

#[cfg(target_arch = "wasm32")]
mod fetch;

#[cfg(target_arch = "wasm32")]
pub use fetch::{fetch_bytes, js_message, read_file};
