//! Getting bytes into the page: fetching a URL (always without credentials:
//! a bundle named by a link must not carry the visitor's cookies anywhere),
//! the library index and a library device file by file, and reading files
//! the visitor picked or dropped, a dropped folder included.
//!
//! Everything here returns bytes or a message; what the bytes mean is the
//! core's business ([`knoblab_core::bundle`]).

use leptos::wasm_bindgen::{JsCast, JsValue};

use super::js_message;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    ErrorCallback, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry,
};

use super::device_worker::{self, Asker, DrawError};
use knoblab_app::devices::open_described;
use knoblab_core::bundle::generated::{is_generated, GeneratedIndex};
use knoblab_core::bundle::{check_bytes, open_made, Checked, LibraryEntry, LibraryIndex};

/// Where the library index is, relative to the page.
pub const LIBRARY_URL: &str = "data/library.json";
/// Where the generated devices' manifest is, relative to the page.
pub const GENERATED_URL: &str = "data/generated.json";

/// The bytes at a URL, fetched with `credentials: "omit"`: the page's and
/// its workers' one fetch (`knoblab-web-fetch`).
pub use knoblab_web_fetch::fetch_bytes;

/// Where the library's version file is, relative to the page.
pub const LIBRARY_VERSION_URL: &str = "data/library-version.json";

/// The shipped library's index: the hand-described devices of
/// `library.json`, then the generated ones of `generated.json`
/// ([`LibraryIndex::with_generated`]); the library's version is read
/// beside it ([`library_version`]), so that a device opened from the
/// index records its library.
pub async fn fetch_library() -> Result<LibraryIndex, String> {
    let bytes = fetch_bytes(LIBRARY_URL).await?;
    let hand = LibraryIndex::parse(&bytes).map_err(|e| e.to_string())?;
    let generated = GeneratedIndex::parse(&fetch_bytes(GENERATED_URL).await?)
        .map_err(|e| format!("{GENERATED_URL}: {e}"))?;
    library_version().await?;
    Ok(hand.with_generated(&generated))
}

/// Reads the shipped library's version file once and gives it to the core
/// ([`knoblab_core::bundle::stamp::provide`]): the page's module does not
/// hold it (issue #46), and an episode's `settings.library` comes from it
/// ([`knoblab_core::bundle::library_of`]). Awaited before any device opens:
/// by the index ([`fetch_library`]), a bundle given as JSON text, and a
/// dropped or picked bundle.
pub async fn library_version() -> Result<(), String> {
    use knoblab_core::bundle::stamp;
    if stamp::shipped().is_some() {
        return Ok(());
    }
    let bytes = fetch_bytes(LIBRARY_VERSION_URL).await?;
    stamp::provide(&bytes)
        .map(|_| ())
        .map_err(|e| format!("{LIBRARY_VERSION_URL}: {e}"))
}

/// A library device, by the library's one rule
/// (`knoblab_app::devices::open_entry`): every file its entry lists
/// fetched and checked as a bundle ([`open_described`], its half for a
/// hand-described device, which holds no generator); a generated
/// device (no files) made in the device worker
/// ([`device_worker::draw_device`], off the main thread) and its files
/// checked here ([`open_made`]). `asker` is the page that wants it: leaving
/// that page cancels the drawing ([`device_worker::cancel`]).
pub async fn fetch_library_device(
    entry: &LibraryEntry,
    asker: Asker,
) -> Result<Checked, DrawError> {
    if is_generated(entry) {
        let (files, ms) = device_worker::draw_device(&entry.id, asker).await?;
        if let Some(ms) = ms {
            // The time to draw a generated device in the page, for the
            // docs/performance.md's figure and whoever reads the console.
            leptos::logging::log!(
                "knoblab: drew the device {} in {ms:.0} ms (in the device worker)",
                entry.id
            );
        }
        // The font it was drawn with, kept for offline use.
        super::offline::keep(vec![format!(
            "data/{}",
            knoblab_devicegen::render::FONT_PATH
        )]);
        return Ok(open_made(entry, Ok::<_, String>(files)));
    }
    let base = LIBRARY_URL.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut files = Vec::with_capacity(entry.files.len());
    let mut urls = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        let url = format!("{base}/{}", entry.file_url(file));
        files.push((file.clone(), fetch_bytes(&url).await?));
        urls.push(url);
    }
    // The device's files, kept for offline use.
    super::offline::keep(urls);
    Ok(open_described(entry, files))
}

/// A bundle at a URL (a zip or a single JSON file), checked.
pub async fn fetch_bundle(url: &str) -> Result<Checked, String> {
    let bytes = fetch_bytes(url).await?;
    Ok(check_bytes(url, &bytes))
}

/// A file's bytes: the page's and its workers' one reader
/// (`knoblab-web-fetch`).
pub use knoblab_web_fetch::read_file;

/// The path of a file picked from a folder (`webkitRelativePath`), or its
/// name.
pub fn relative_path(file: &File) -> String {
    js_sys::Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}

/// Every file under a dropped entry, with its path from the entry's
/// parent (a dropped folder `kettle/` gives `kettle/manifest.json`; the
/// core accepts one common top folder).
pub async fn read_entry(entry: FileSystemEntry) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut files = Vec::new();
    let mut pending = vec![entry];
    while let Some(entry) = pending.pop() {
        if entry.is_directory() {
            let dir: FileSystemDirectoryEntry = entry.unchecked_into();
            let reader = dir.create_reader();
            // readEntries answers in batches until an empty one.
            loop {
                let batch = JsFuture::from(js_sys::Promise::new(&mut |resolve, reject| {
                    let _ = reader.read_entries_with_callback_and_error_callback(
                        &resolve,
                        reject.unchecked_ref::<ErrorCallback>(),
                    );
                }))
                .await
                .map_err(|e| {
                    format!(
                        "{}: could not be listed ({})",
                        dir.full_path(),
                        js_message(&e)
                    )
                })?;
                let batch: js_sys::Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                pending.extend(batch.iter().map(JsCast::unchecked_into::<FileSystemEntry>));
            }
        } else if entry.is_file() {
            let path = entry.full_path().trim_start_matches('/').to_string();
            let file_entry: FileSystemFileEntry = entry.unchecked_into();
            let file = JsFuture::from(js_sys::Promise::new(&mut |resolve, reject| {
                file_entry.file_with_callback_and_error_callback(
                    &resolve,
                    reject.unchecked_ref::<ErrorCallback>(),
                );
            }))
            .await
            .map_err(|e| format!("{path}: could not be read ({})", js_message(&e)))?;
            let file: File = file.unchecked_into();
            files.push((path, read_file(&file).await?));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}
