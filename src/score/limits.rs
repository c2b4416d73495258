//! The bounds on results files and benchmark ground truth, so that a hostile
//! file (a zip bomb, a 1 GB results file) is refused with a message instead
//! of exhausting memory (issue #12). Bundles have their own bounds, in
//! [`crate::bundle::limits`]; the reading-through-a-cap rule is shared.

use std::io::Read;

use crate::bundle::limits::{human_bytes, read_capped};

/// The most bytes one results or ground-truth file may take (256 MiB),
/// whole or as a zip entry once decompressed. Real ones take a few MB (a
/// full EPIC-Bench run of raw replies, a FineState results list, a SWITCH
/// `vqa.json`); the bound only keeps a hostile file from taking the
/// machine's memory. The CLI checks a file's size before reading it; a zip
/// entry is refused by its declared size, and read through this cap
/// whatever its header claims.
pub const MAX_RESULTS_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The most bytes the entries read out of one zip may take together
/// (512 MiB).
pub const MAX_ZIP_READ_BYTES: u64 = 512 * 1024 * 1024;

/// Reads a file of at most [`MAX_RESULTS_FILE_BYTES`] from disk (the CLI,
/// native only). A larger file is refused from its size on disk, before it
/// is read; a file that grows while read (a pipe, a file being written) is
/// read no further than the bound either way. The message says why; the
/// caller names the file.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let cap = MAX_RESULTS_FILE_BYTES;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let size = file
        .metadata()
        .map_err(|e| format!("cannot read it: {e}"))?
        .len();
    if size > cap {
        return Err(format!(
            "the file takes {}; at most {} is read (a results or data file larger than \
             that is refused before reading)",
            human_bytes(size),
            human_bytes(cap)
        ));
    }
    read_capped(file, cap as usize, "grew while read to")
}

/// Reads one zip entry within [`MAX_RESULTS_FILE_BYTES`], adding what it
/// read to `total`, which must stay within [`MAX_ZIP_READ_BYTES`]. The
/// message names the entry and the bound.
pub(crate) fn read_zip_entry(
    entry: &mut zip::read::ZipFile<'_, impl Read>,
    total: &mut u64,
) -> Result<Vec<u8>, String> {
    let name = entry.name().to_string();
    let cap = MAX_RESULTS_FILE_BYTES;
    if entry.size() > cap {
        return Err(format!(
            "zip entry `{name}` declares {} once decompressed; at most {} is read per file",
            human_bytes(entry.size()),
            human_bytes(cap)
        ));
    }
    let bytes = read_capped(entry, cap as usize, "decompresses to")
        .map_err(|e| format!("zip entry `{name}` {e}"))?;
    *total = total.saturating_add(bytes.len() as u64);
    if *total > MAX_ZIP_READ_BYTES {
        return Err(format!(
            "the zip's files decompress to more than {} in all (at zip entry `{name}`); at most \
             that is read",
            human_bytes(MAX_ZIP_READ_BYTES)
        ));
    }
    Ok(bytes)
}
