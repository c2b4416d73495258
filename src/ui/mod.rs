//! The Leptos app (wasm32 only). A thin edge over the core: pages call the
//! core and present what it returns; no rule of a spec is written here.
//!
//! - [`route`]: hash-based routes, so any static host serves the page.
//! - [`panic`]: the panic hook that shows an error banner instead of a blank page.
//! - [`app`]: the shell (header, navigation) and the route switch.
//! - [`pages`]: one file per page.
//! - [`agent`]: the model agent's browser side: transport, storage, batch runner.

pub mod agent;
pub mod app;
pub mod pages;
pub mod panic;
pub mod route;

pub use app::App;

/// The web entry: install the panic hook, then mount the app on `<body>`.
pub fn start() {
    panic::install_hook();
    leptos::mount::mount_to_body(App);
}
