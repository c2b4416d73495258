//! Where GT files come from ([`GroundTruthSource`]): held in memory
//! ([`MapSource`]) or under a folder on disk ([`DirSource`], native only),
//! and the text rules every GT file is read by ([`gt_text`]).

use std::collections::HashMap;

use super::held_key;

/// Hands out GT files by path.
pub trait GroundTruthSource {
    /// The bytes of the file at `path` (relative to the GT root, or as
    /// written in the record), or `None` when there is no such file.
    fn read(&self, path: &str) -> Option<Vec<u8>>;

    /// Told when a file [`Self::read`] handed out was refused by a rule of
    /// the input layer ([`gt_text`]: its encoding, its line endings, a key
    /// twice in one object); the sample then reads as without its GT file,
    /// and a source that keeps a report names `path` and `why` there.
    fn refuse(&self, path: &str, why: String) {
        let _ = (path, why);
    }

    /// Why each path this source refused was refused (outside its root,
    /// not a regular file, too large, or its text by [`gt_text`]), once per
    /// message: they are read as missing, and the report names them. None,
    /// for a source that keeps no report.
    fn refused(&self) -> Vec<String> {
        Vec::new()
    }

    /// How many files were read, where the source counts them.
    fn files_read(&self) -> Option<usize> {
        None
    }
}

/// A GT file's text by the input layer's rules: UTF-8 (a byte-order mark
/// stripped; UTF-16 or UTF-32 named), lines not ending in a lone CR, and
/// no key twice in one object (with both positions). Python's `json.load`
/// would keep the last of two equal keys; a GT file that has them is
/// broken, and which value is the ground truth is not defined, so it is
/// refused rather than read either way.
pub fn gt_text(bytes: Vec<u8>) -> Result<String, knoblab_core::input::InputError> {
    let text = knoblab_core::input::text::decode_owned(bytes)?;
    knoblab_core::input::json::check_unique_keys(&text)?;
    Ok(text)
}

/// The refusals a source keeps: at most 100 distinct messages.
fn keep_refusal(list: &std::cell::RefCell<Vec<String>>, message: String) {
    let mut refused = list.borrow_mut();
    if refused.len() < 100 && !refused.contains(&message) {
        refused.push(message);
    }
}

/// GT files held in memory, keyed by their path from `EPIC_Bench/` on (or
/// any path; both the `EPIC_Bench/` suffix and the path as written are
/// tried).
#[derive(Debug, Default, Clone)]
pub struct MapSource {
    files: HashMap<String, Vec<u8>>,
    refused: std::cell::RefCell<Vec<String>>,
}

impl MapSource {
    /// An empty source.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file. Its key is normalised to the part from `EPIC_Bench/` on
    /// when the path contains it, so dropped folders match any root.
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        self.files.insert(held_key(path), bytes);
    }

    /// The number of files held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Every file, by key (for writing a generated set to disk).
    pub fn files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }
}

impl GroundTruthSource for MapSource {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        self.files.get(path).cloned()
    }

    fn refuse(&self, path: &str, why: String) {
        let path = knoblab_core::input::text::escape_controls(path);
        keep_refusal(&self.refused, format!("{path}: {why}"));
    }

    fn refused(&self) -> Vec<String> {
        self.refused.borrow().clone()
    }
}

/// GT files under a folder on disk (native only), read through the input
/// layer: a record's path is resolved under the root (an absolute path or
/// one that climbs out with `..` reads as absent, never outside the root),
/// only regular files are opened (a FIFO or `/dev/zero` is never read), and
/// each distinct file (by device and inode, whatever its spelling) is read
/// at most once, within [`crate::limits::MAX_RESULTS_FILE_BYTES`].
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug)]
pub struct DirSource {
    /// The folder the record paths are resolved under (the one holding `EPIC_Bench/`).
    pub root: std::path::PathBuf,
    files: std::cell::RefCell<knoblab_core::input::fs::OnceReader>,
    refused: std::cell::RefCell<Vec<String>>,
}

#[cfg(not(target_arch = "wasm32"))]
impl DirSource {
    /// GT under `root`, where `root` may be the folder holding `EPIC_Bench/`,
    /// `EPIC_Bench/` itself, or a dataset download that has it at
    /// `annotation/EPIC_Bench/` or `dataset/annotation/EPIC_Bench/`: people
    /// point at whichever folder they unpacked.
    pub fn locate(root: &std::path::Path) -> DirSource {
        let holder = if root.file_name().is_some_and(|n| n == "EPIC_Bench") {
            root.parent().map(std::path::Path::to_path_buf)
        } else {
            ["", "annotation", "dataset/annotation"]
                .iter()
                .map(|sub| root.join(sub))
                .find(|dir| dir.join("EPIC_Bench").is_dir())
        };
        DirSource::at(&holder.unwrap_or_else(|| root.to_path_buf()))
    }

    /// GT under exactly `root` (the folder holding `EPIC_Bench/`).
    pub fn at(root: &std::path::Path) -> DirSource {
        let root = root.to_path_buf();
        DirSource {
            files: std::cell::RefCell::new(knoblab_core::input::fs::OnceReader::new(
                &root,
                crate::limits::MAX_RESULTS_FILE_BYTES,
            )),
            root,
            refused: std::cell::RefCell::new(Vec::new()),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl GroundTruthSource for DirSource {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        match self.files.borrow_mut().read(path) {
            Ok(found) => found.map(|bytes| bytes.to_vec()),
            Err(e) => {
                keep_refusal(&self.refused, e.to_string());
                None
            }
        }
    }

    fn refuse(&self, path: &str, why: String) {
        let path = knoblab_core::input::text::escape_controls(path);
        keep_refusal(&self.refused, format!("{path}: {why}"));
    }
    fn refused(&self) -> Vec<String> {
        self.refused.borrow().clone()
    }

    fn files_read(&self) -> Option<usize> {
        Some(self.files.borrow().files_read())
    }
}
