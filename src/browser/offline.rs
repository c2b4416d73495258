//! Offline use after one visit: the service worker (`www/sw.js`) that
//! keeps this release's files, registered, asked and cleared through
//! `www/offline.js` (bundled by wasm-bindgen as a snippet beside the glue).
//! What it keeps and when it replaces a release is written there.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_message;

#[wasm_bindgen(module = "/www/offline.js")]
extern "C" {
    fn knoblab_offline_register() -> js_sys::Promise;
    fn knoblab_offline_status() -> js_sys::Promise;
    fn knoblab_offline_clear() -> js_sys::Promise;
    fn knoblab_offline_keep(urls: Vec<String>);
}

/// Asks the service worker to keep these files (URLs relative to the
/// page) for offline use, when it does not hold them yet: the files of a
/// device just opened.
pub fn keep(urls: Vec<String>) {
    knoblab_offline_keep(urls);
}

/// Whether this copy of the page is kept for offline use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// A service worker keeps the release `version` (its build hash).
    Active {
        /// The release the service worker keeps.
        version: String,
    },
    /// The service worker is being installed (the files are being kept).
    Installing,
    /// No service worker: never registered here, or cleared.
    None,
    /// This browser (or this origin: plain HTTP other than localhost) has none.
    Unsupported,
}

/// The release this page was built as (`scripts/release.py` writes it
/// into `<meta name="knoblab-release">`), or `None` in a build without
/// the hook.
pub fn release() -> Option<String> {
    let meta = web_sys::window()?
        .document()?
        .query_selector("meta[name=knoblab-release]")
        .ok()??;
    let version = meta.get_attribute("content")?;
    (!version.is_empty() && !version.starts_with("{{")).then_some(version)
}

/// Registers the service worker (once per page load); a browser that
/// cannot keep the page offline is told on the About page, not here.
pub fn register() {
    wasm_bindgen_futures::spawn_local(async {
        let _ = JsFuture::from(knoblab_offline_register()).await;
    });
}

/// Whether the page is kept for offline use, and which release.
pub async fn status() -> Result<Status, String> {
    let value = JsFuture::from(knoblab_offline_status())
        .await
        .map_err(|e| js_message(&e))?;
    let field = |k: &str| {
        js_sys::Reflect::get(&value, &JsValue::from_str(k))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    Ok(match field("state").as_str() {
        "active" => Status::Active {
            version: field("version"),
        },
        "installing" => Status::Installing,
        "unsupported" => Status::Unsupported,
        _ => Status::None,
    })
}

/// Deletes this copy's offline caches and unregisters its service worker;
/// says how many caches were deleted.
pub async fn clear() -> Result<u32, String> {
    let value = JsFuture::from(knoblab_offline_clear())
        .await
        .map_err(|e| js_message(&e))?;
    Ok(value.as_f64().map_or(0, |n| n as u32))
}
