//! The Leptos app (wasm32 only). A thin edge over the core: pages call the
//! core and present what it returns; no rule of a spec is written here.
//!
//! - [`route`]: hash-based routes, so any static host serves the page.
//! - [`panic`]: the panic hook that shows an error banner instead of a blank page.
//! - [`app`]: the shell (header, navigation) and the route switch.
//! - [`pages`]: one file per page.
//! - [`score`]: the scoring page and its Web Worker.

pub mod app;
pub mod pages;
pub mod panic;
pub mod route;
pub mod score;

pub use app::App;

/// The web entry: install the panic hook, then mount the app on `<body>`
/// (in a worker, nothing).
pub fn start() {
    // The scoring worker loads this same module: there is no page to mount.
    if web_sys::window().is_none() {
        return;
    }
    panic::install_hook();
    leptos::mount::mount_to_body(App);
}
