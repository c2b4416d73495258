//! The bounds a bundle must stay within, so that a hostile file (a zip
//! bomb, a PNG whose header declares 100000×100000 pixels, a JSON file
//! nested 100000 deep) is refused with a message instead of exhausting
//! memory. The page runs in a browser tab, where running out of memory
//! kills the page: every bound is checked before the memory is spent.

/// The most pixels (width × height) a view image may declare: 40
/// megapixels, about four times a 12-megapixel photo. Checked from the
/// image header, before anything is decoded; a decoded RGBA image this size
/// takes 160 MB.
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;

/// The most bytes one view image may take encoded (32 MiB). A real view is
/// a few hundred KB; this bounds what a data URL or a file may make us hold.
pub const MAX_IMAGE_BYTES: usize = 32 * 1024 * 1024;

/// The most bytes any one file of a bundle may take once read (32 MiB):
/// a JSON file, an image, a zip entry after decompression. A zip entry is
/// read through a limit of this size, whatever size its header claims, so a
/// zip bomb stops here.
pub const MAX_FILE_BYTES: usize = 32 * 1024 * 1024;

/// The most bytes a whole bundle may take (256 MiB): a zip or single JSON
/// file as given, and the sum of the files read out of a folder or a zip.
pub const MAX_BUNDLE_BYTES: usize = 256 * 1024 * 1024;

/// The most entries a bundle zip may list (its central directory is read
/// whole when the zip is opened).
pub const MAX_ZIP_ENTRIES: usize = 10_000;

/// How deep JSON may nest: `serde_json`'s own recursion limit (128), left
/// on. Deeper input is refused with "recursion limit exceeded" and its line
/// and column; no bundle file needs more than about ten levels.
pub const MAX_JSON_DEPTH: usize = 128;

/// The most problems one check reports (1000); past it, one last line says
/// how many more there were. A broken generator can write a file with a
/// problem on every line; nobody reads more, and the page must stay light.
pub const MAX_DIAGNOSTICS: usize = 1000;

pub(crate) use super::source::read_capped;

/// Human-readable size, for messages: `32 MiB`, `512 KiB`, `100 bytes`.
pub(crate) fn human_bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= MIB {
        format!("{:.1} MiB", n as f64 / MIB as f64)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}
