//! The device worker's entries, each a call of `www/device-worker.js`: a
//! whole device made by the library's rule
//! ([`knoblab_app::devices::generated_files`], the half of
//! [`knoblab_app::devices::open_entry`] that draws), as its files' bytes (the
//! page checks them with its one loader, `knoblab_core::bundle::open_made`).

use wasm_bindgen::prelude::*;

/// A generated device's files, made by the library's rule
/// ([`knoblab_app::devices::generated_files`]), as an array of `[name,
/// bytes]` pairs (each `Uint8Array` its own buffer, to be transferred).
#[wasm_bindgen]
pub fn knoblab_draw_device(id: &str) -> Result<js_sys::Array, JsValue> {
    let files =
        knoblab_app::devices::generated_files(id).map_err(|e| JsValue::from_str(&e.to_string()))?;
    let out = js_sys::Array::new();
    for (name, bytes) in files {
        let pair = js_sys::Array::of2(
            &JsValue::from_str(&name),
            &js_sys::Uint8Array::from(&bytes[..]),
        );
        out.push(&pair);
    }
    Ok(out)
}

/// Gives the generator its font (fetched by the worker's script before the
/// first drawing: it is not compiled into the module).
#[wasm_bindgen]
pub fn knoblab_provide_font(bytes: Vec<u8>) -> Result<(), JsValue> {
    knoblab_devicegen::render::provide_font(bytes).map_err(|e| JsValue::from_str(&e.to_string()))
}
