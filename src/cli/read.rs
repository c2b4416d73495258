//! Reading the files the CLI is given within the core's bound
//! ([`crate::score::limits::read_file`]), so that a hostile or mistaken
//! file (a 1 GB results file) is refused by its size before it is read
//! (issue #12). Bundles go through their own loader and bounds.

use std::path::Path;

use anyhow::Context;

use crate::score::limits::read_file;

/// A file's bytes, within the bound.
pub fn read_bounded(path: &Path) -> anyhow::Result<Vec<u8>> {
    read_file(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// A file's text, within the bound.
pub fn read_text_bounded(path: &Path) -> anyhow::Result<String> {
    String::from_utf8(read_bounded(path)?)
        .with_context(|| format!("{} is not UTF-8 text", path.display()))
}
