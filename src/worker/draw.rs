//! The device worker's calls ([`knoblab_app::devices::generated_files`]
//! does the work): each function is the body of one entry of [`super`],
//! which `www/device-worker.js` calls. The page checks what comes back with
//! its one loader (`knoblab_core::bundle::open_made`).

use wasm_bindgen::prelude::*;

/// A generated device's files, made by the library's rule
/// ([`knoblab_app::devices::generated_files`]), as an array of `[name,
/// bytes]` pairs (each `Uint8Array` its own buffer, to be transferred).
pub fn device(id: &str) -> Result<js_sys::Array, JsValue> {
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
pub fn font(bytes: Vec<u8>) -> Result<(), JsValue> {
    knoblab_devicegen::render::provide_font(bytes).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Gives the generator its font, and the code that scores trajectories or
/// ranks runs the generator ([`knoblab_app::devices::provide_generator`]):
/// the Score and Leaderboard workers' call, before a file that played a
/// generated device is scored.
pub fn generator(bytes: Vec<u8>) -> Result<(), JsValue> {
    font(bytes)?;
    knoblab_app::devices::provide_generator();
    Ok(())
}
