//! # knoblab-device-worker
//!
//! The module that the device drawer's worker (`www/device-worker.js`)
//! loads: a wasm32 binary of its own, so that the page's module holds
//! neither the device generator nor its picture code, and a visitor
//! downloads them only where a generated device is shown (issue #46).
//! The page asks and checks what comes back (`src/browser/device_worker.rs`
//! of the page); this binary draws.
//!
//! - [`draw`]: a generated device's files,
//!   the generator's font.

#[cfg(target_arch = "wasm32")]
pub mod draw;
