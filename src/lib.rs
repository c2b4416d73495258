//! # knoblab-page
//!
//! The Leptos app (wasm32 only; natively nothing compiles). A thin edge over the core: pages call the
//! core and present what it returns; no rule of a spec is written here.
//!
//! - [`route`]: hash-based routes, so any static host serves the page.
//! - [`panic`]: the panic hook that shows an error banner instead of a blank page.
//! - [`app`]: the shell (header, navigation) and the route switch.
//! - [`pages`]: one file or folder per page (the Score page and its Web
//!   Worker in [`pages::score`], the Agent page in [`pages::agent`],
//!   the Play and Embed pages with the player in [`pages::play`]).
//! - [`browser`]: the browser's services: fetch, IndexedDB, storage, downloads.
//! - [`api`]: `window.knoblab`, the page API for scripts and tests.
//! - [`chunk`]: what a split point returns when its chunk cannot be downloaded.
//! - [`worker`]: the entries the Score page's workers, the device drawer
//!   and the Leaderboard's worker call on this same module, whose scorers,
//!   generator and leaderboard are chunks they download (issue #46).

#[cfg(target_arch = "wasm32")]
pub mod api;
#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
pub mod chunk;
#[cfg(target_arch = "wasm32")]
pub mod pages;
#[cfg(target_arch = "wasm32")]
pub mod panic;
#[cfg(target_arch = "wasm32")]
pub mod route;
#[cfg(target_arch = "wasm32")]
pub mod worker;

#[cfg(target_arch = "wasm32")]
pub use app::App;

/// The web entry: install the panic hook, then mount the app on `<body>`
/// (in a worker, nothing).
#[cfg(target_arch = "wasm32")]
pub fn start() {
    // The page's workers instantiate this module too (`worker`).
    if web_sys::window().is_none() {
        return;
    }
    panic::install_hook();
    browser::offline::register();
    leptos::mount::mount_to_body(App);
}
