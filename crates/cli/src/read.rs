//! Reading the files the CLI is given, through the core's input layer
//! ([`knoblab_core::input`]): only regular files (a FIFO or a device is named and
//! refused, never opened), within [`knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES`]
//! (refused by size before reading), text decoded by the one rule (BOM
//! stripped, UTF-16 named, invalid UTF-8 located), JSON with duplicate keys
//! refused. Bundles go through their own loader, which uses the same layer.

use std::path::Path;

use serde::de::DeserializeOwned;

use knoblab_core::input::fs::{read_nonempty, read_regular};
use knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES;
use knoblab_core::input::text::escape_controls;

/// A file's name for messages, control characters escaped.
pub fn shown(path: &Path) -> String {
    escape_controls(&path.display().to_string()).into_owned()
}

/// A file's bytes, within the bound.
pub fn read_bounded(path: &Path) -> anyhow::Result<Vec<u8>> {
    Ok(read_regular(path, MAX_RESULTS_FILE_BYTES)?)
}

/// A file's bytes, within the bound; an empty file (or only whitespace) is
/// an error saying what it should have held.
pub fn read_nonempty_bounded(path: &Path, expected: &str) -> anyhow::Result<Vec<u8>> {
    Ok(read_nonempty(path, MAX_RESULTS_FILE_BYTES, expected)?)
}

/// A file's text, within the bound, decoded by the one rule.
pub fn read_text_bounded(path: &Path) -> anyhow::Result<String> {
    let bytes = read_bounded(path)?;
    knoblab_core::input::text::decode_owned(bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", shown(path)))
}

/// A file's JSON document as `T`: within the bound, decoded, duplicate
/// keys refused; `what` names what it should be ("a state machine").
pub fn read_json<T: DeserializeOwned>(path: &Path, what: &str) -> anyhow::Result<T> {
    let bytes = read_nonempty_bounded(path, what)?;
    knoblab_core::input::json::from_bytes(&bytes)
        .map_err(|e| anyhow::anyhow!("{} is not {what}: {e}", shown(path)))
}
