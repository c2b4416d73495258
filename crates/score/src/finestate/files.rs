//! The file set the loaders read: paths relative to the dataset root (the
//! folder holding `desktop_en/`, `web_en/`, `mobile_en/`), which is also the
//! official code's working directory, so relative image paths resolve the
//! same way (spec §2.5).
//!
//! The browser fills a [`MemFiles`] from dropped files or a zip; the CLI uses
//! [`DiskFiles`]. Images need only exist: their bytes are never read.

use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

use knoblab_core::input::zip::{BoundedZip, ZipLimits};
use knoblab_core::input::InputError;

/// Why a file of the dataset cannot be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReadError {
    /// Not in the dataset.
    #[error("{path}: no such file in the dataset")]
    Missing {
        /// The path asked for.
        path: String,
    },
    /// A rule of the input layer refused it (not a regular file, too
    /// large, a path that climbs out of the dataset).
    #[error(transparent)]
    Input(#[from] InputError),
}

/// Read access to a dataset, by `/`-separated path relative to its root.
pub trait FileSet {
    /// `os.path.exists`: a file or a folder. A trailing `/` asks for a folder.
    fn exists(&self, path: &str) -> bool;
    /// Whether `path` is a folder.
    fn is_dir(&self, path: &str) -> bool;
    /// The names of the files directly inside folder `dir`, sorted.
    fn list_files(&self, dir: &str) -> Vec<String>;
    /// A file's bytes, or `None` if it is missing or unreadable.
    fn read(&self, path: &str) -> Option<Vec<u8>>;
    /// A file's bytes, or why it cannot be read (missing, not a regular
    /// file, too large), for a reader that names what it could not use.
    fn read_checked(&self, path: &str) -> Result<Vec<u8>, ReadError> {
        self.read(path).ok_or_else(|| ReadError::Missing {
            path: path.to_string(),
        })
    }
}

/// Lexical clean-up of a relative path the way the OS would resolve it:
/// `.` and empty segments vanish, `..` pops. `None` for absolute paths and
/// paths that climb above the root.
pub fn normalise(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Files held in memory: path → bytes.
#[derive(Debug, Clone, Default)]
pub struct MemFiles {
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
}

/// Why a zip could not be opened.
#[derive(Debug, Error)]
pub enum ZipError {
    #[error("not a readable zip archive: {0}")]
    /// The bytes are not a zip (the reader's message).
    Archive(String),
    /// An entry that could not be read, or is past the bounds of
    /// [`crate::limits`]; the message names it.
    #[error("{0}")]
    Entry(String),
}

impl MemFiles {
    /// No files.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file (an image may be added with empty bytes: only its
    /// existence matters).
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        let Some(path) = normalise(&path.replace('\\', "/")) else {
            return;
        };
        let mut dir = path.as_str();
        while let Some(i) = dir.rfind('/') {
            dir = &dir[..i];
            self.dirs.insert(dir.to_string());
        }
        self.files.insert(path, bytes);
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether it holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Every path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Reads a zip archive. If the dataset folders sit under a top folder
    /// (`dataset/desktop_en/...`), that prefix is removed. Images are kept
    /// without their bytes. The JSON entries are read within the bounds of
    /// [`crate::limits`], so a zip bomb is refused.
    pub fn from_zip(bytes: &[u8]) -> Result<Self, ZipError> {
        let mut archive = BoundedZip::open(bytes, ZipLimits::RESULTS)
            .map_err(|e| ZipError::Archive(e.to_string()))?;
        let mut raw = Self::new();
        let keep = |name: &str| name.ends_with(".json") || name.ends_with(".jsonl");
        for (name, data) in archive
            .entries(keep)
            .map_err(|e| ZipError::Entry(e.to_string()))?
        {
            raw.insert(&name, data);
        }
        Ok(raw.rooted())
    }

    /// Moves the root to the folder that holds `desktop_en/`, `web_en/` or
    /// `mobile_en/`, if those sit deeper.
    pub fn rooted(self) -> Self {
        let prefix = self
            .files
            .keys()
            .filter_map(|p| {
                ["desktop_en/", "web_en/", "mobile_en/"]
                    .iter()
                    .filter_map(|root| {
                        if p.starts_with(root) {
                            Some(0)
                        } else {
                            p.find(&format!("/{root}")).map(|i| i + 1)
                        }
                    })
                    .min()
                    .map(|i| p[..i].to_string())
            })
            .min_by_key(String::len);
        match prefix {
            Some(prefix) if !prefix.is_empty() => {
                let mut out = Self::new();
                for (path, bytes) in self.files {
                    if let Some(rest) = path.strip_prefix(&prefix) {
                        out.insert(rest, bytes);
                    }
                }
                out
            }
            _ => self,
        }
    }
}

impl FileSet for MemFiles {
    fn exists(&self, path: &str) -> bool {
        let want_dir = path.ends_with('/');
        let Some(p) = normalise(path) else {
            return false;
        };
        if p.is_empty() {
            return !path.is_empty();
        }
        self.dirs.contains(&p) || (!want_dir && self.files.contains_key(&p))
    }

    fn is_dir(&self, path: &str) -> bool {
        normalise(path).is_some_and(|p| self.dirs.contains(&p))
    }

    fn list_files(&self, dir: &str) -> Vec<String> {
        let Some(dir) = normalise(dir) else {
            return Vec::new();
        };
        let prefix = format!("{dir}/");
        self.files
            .range(prefix.clone()..)
            .take_while(|(p, _)| p.starts_with(&prefix))
            .filter_map(|(p, _)| {
                let rest = &p[prefix.len()..];
                (!rest.contains('/')).then(|| rest.to_string())
            })
            .collect()
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        self.files.get(&normalise(path)?).cloned()
    }
}

/// The dataset on disk, rooted at a folder (native only).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone)]
pub struct DiskFiles {
    root: std::path::PathBuf,
}

#[cfg(not(target_arch = "wasm32"))]
impl DiskFiles {
    /// The files under `root`; paths are resolved inside it.
    pub fn new(root: impl Into<std::path::PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// A path written in an annotation, under the root (input layer): an
    /// absolute path or one that climbs out with `..` names nothing, so an
    /// annotation cannot make us read outside the dataset folder.
    fn resolve(&self, path: &str) -> std::path::PathBuf {
        match knoblab_core::input::path::resolve_under(&self.root, path) {
            Ok(p) => p,
            // An empty path is the root itself (listing the top folder).
            Err(_) if path.trim_matches(['/', '.']).is_empty() && !path.starts_with('/') => {
                self.root.clone()
            }
            // A path that cannot exist: no file is ever found there.
            Err(_) => self.root.join("\u{0}refused"),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSet for DiskFiles {
    fn exists(&self, path: &str) -> bool {
        !path.is_empty() && self.resolve(path).exists()
    }

    fn is_dir(&self, path: &str) -> bool {
        self.resolve(path).is_dir()
    }

    fn list_files(&self, dir: &str) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.resolve(dir)) else {
            return Vec::new();
        };
        // Every entry but folders: a FIFO, a socket or a device is listed
        // too, so that the reader names it (`read_checked` refuses it by
        // its kind, never opening it) instead of passing over it.
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| std::fs::metadata(e.path()).map_or(true, |m| !m.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        // Within the bound of `score::limits`; a larger file reads as absent.
        self.read_checked(path).ok()
    }

    fn read_checked(&self, path: &str) -> Result<Vec<u8>, ReadError> {
        let full = knoblab_core::input::path::resolve_under(&self.root, path)?;
        Ok(crate::limits::read_file(&full)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_exist_and_list() {
        let mut f = MemFiles::new();
        f.insert("top/desktop_en/A/x.png", vec![]);
        f.insert("top/desktop_en/Ajson/a.json", b"{}".to_vec());
        let f = f.rooted();
        assert!(f.exists("desktop_en/A"));
        assert!(f.exists("desktop_en/./A/x.png"));
        assert!(!f.exists("desktop_en/A/x.png/"));
        assert_eq!(f.list_files("desktop_en/Ajson"), ["a.json"]);
    }
}
