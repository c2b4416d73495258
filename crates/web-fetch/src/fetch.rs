//! [`fetch_bytes`], [`read_file`] and the message of a JavaScript error.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, RequestCredentials, RequestInit, Response, Window, WorkerGlobalScope};

/// The message of a JavaScript error (an `Error`'s message, else the value
/// as text).
pub fn js_message(error: &JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| format!("{error:?}"))
}

/// The bytes at `url` (relative URLs resolve against the page, or against
/// the worker's script), fetched with `credentials: "omit"`.
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let init = RequestInit::new();
    init.set_credentials(RequestCredentials::Omit);
    let global = js_sys::global();
    let request = if let Some(window) = global.dyn_ref::<Window>() {
        window.fetch_with_str_and_init(url, &init)
    } else if let Some(scope) = global.dyn_ref::<WorkerGlobalScope>() {
        scope.fetch_with_str_and_init(url, &init)
    } else {
        return Err(format!(
            "{url}: this scope can fetch nothing (neither a page nor a worker)"
        ));
    };
    let response = JsFuture::from(request)
        .await
        .map_err(|e| format!("{url}: could not be fetched ({})", js_message(&e)))?;
    let response: Response = response
        .dyn_into()
        .map_err(|_| format!("{url}: the fetch returned no response"))?;
    if !response.ok() {
        return Err(format!(
            "{url}: the server answered {} {}",
            response.status(),
            response.status_text()
        ));
    }
    let buffer = response
        .array_buffer()
        .map_err(|e| format!("{url}: the body could not be read ({})", js_message(&e)))?;
    let buffer = JsFuture::from(buffer)
        .await
        .map_err(|e| format!("{url}: the body could not be read ({})", js_message(&e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A dropped or chosen file's bytes (on the page or in a worker it was
/// posted to).
pub async fn read_file(file: &File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|e| format!("{}: could not be read ({})", file.name(), js_message(&e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
