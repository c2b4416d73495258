//! The bounds a bundle must stay within, so that a hostile file (a zip
//! bomb, a PNG whose header declares 100000×100000 pixels, a JSON file
//! nested 100000 deep) is refused with a message instead of exhausting
//! memory. The values and the reason for each are set in one place,
//! [`crate::input::limits`]; this module names the ones bundles use.

pub use crate::input::limits::{
    MAX_BUNDLE_BYTES, MAX_DIAGNOSTICS, MAX_FILE_BYTES, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS,
    MAX_JSON_DEPTH, MAX_STATES, MAX_ZIP_ENTRIES,
};

pub(crate) use crate::input::limits::human_bytes;
