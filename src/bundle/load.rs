//! Loading a bundle from a folder, a `.zip` of it, or one JSON file whose
//! images are `data:` URLs, validating it on the way.
//!
//! NOT BUILT YET: these are the signatures the rest of the crate calls. The
//! bundle issue fills them in.

use super::diagnostics::LoadError;
use super::model::Bundle;

/// Loads a bundle from the bytes of a `.zip` or of a single JSON file.
/// `name` is what error messages call the input (a file name or a URL).
pub fn load_bytes(name: &str, bytes: &[u8]) -> Result<Bundle, LoadError> {
    let _ = bytes;
    Err(LoadError::not_built(name))
}

/// Loads a bundle from a folder, a `.zip` or a single JSON file on disk.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_path(path: &std::path::Path) -> Result<Bundle, LoadError> {
    Err(LoadError::not_built(&path.display().to_string()))
}

/// A stable hash of what decides the device's behaviour, carried by every
/// trajectory so that one is never scored against a changed device.
pub fn logic_hash(bundle: &Bundle) -> String {
    let _ = bundle;
    String::from("not-built-yet")
}
