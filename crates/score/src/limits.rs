//! The bounds on results files and benchmark ground truth, so that a hostile
//! file (a zip bomb, a 1 GB results file) is refused with a message instead
//! of exhausting memory (issue #12). The values and the reason for each are
//! set in one place, [`knoblab_core::input::limits`]; files are read by
//! [`knoblab_core::input::fs`] and zips by [`knoblab_core::input::zip`].

pub use knoblab_core::input::limits::{
    MAX_PATH_POINTS, MAX_RESULTS_FILE_BYTES, MAX_SAMPLES_PER_FILE, MAX_ZIP_READ_BYTES,
};

/// Reads a regular file of at most [`MAX_RESULTS_FILE_BYTES`] from disk
/// (the CLI, native only): a FIFO, a device or a folder is refused by its
/// kind, a larger file by its size before it is read, and a file that grows
/// while read is read no further than the bound. The error names the file.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, knoblab_core::input::InputError> {
    knoblab_core::input::fs::read_regular(path, MAX_RESULTS_FILE_BYTES)
}
