//! Where a bundle's files come from: a folder, a `.zip` of it (possibly
//! under one top folder), or a single JSON file. Every read goes through the
//! bounds of [`super::limits`].

use thiserror::Error;

use super::image::ImageError;
use super::limits::{human_bytes, MAX_FILE_BYTES};
use crate::input::zip::{BoundedZip, ZipLimits};
use crate::input::InputError;

/// Why a bundle's file could not be read. The caller names the file (a
/// diagnostic's location), so the messages do not repeat it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SourceError {
    /// A path written in the bundle is absolute or leaves the bundle.
    #[error("the path {reason}")]
    Path {
        /// The path as written.
        path: String,
        /// What is wrong with it, and what would be valid.
        reason: &'static str,
    },
    /// The bundle names a file that it does not hold.
    #[error("no such file in the bundle")]
    Missing {
        /// The path inside the bundle.
        path: String,
    },
    /// A file of a bundle folder is a FIFO, a device or the like.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    #[error("is {kind}; expected a regular file")]
    NotRegular {
        /// What the file is.
        kind: &'static str,
    },
    /// One file is larger than [`MAX_FILE_BYTES`].
    #[error("takes {found}; at most {cap} is accepted per file")]
    FileTooLarge {
        /// The file's size, for people.
        found: String,
        /// The cap, for people.
        cap: String,
    },
    /// The files read so far take more than
    /// [`MAX_BUNDLE_BYTES`](super::limits::MAX_BUNDLE_BYTES).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    #[error("the bundle's files take more than {cap} in all; at most that is accepted")]
    BundleTooLarge {
        /// The cap, for people.
        cap: String,
    },
    /// In the single-file form, a view's file is not a `data:` URL.
    #[error(
        "in the single-file form a view's file must be a data: URL (`data:image/png;base64,...`)"
    )]
    NotDataUrl {
        /// The file as written.
        file: String,
    },
    /// The zip, or a file in it or on disk, could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A view image, or its `data:` URL, was refused.
    #[error(transparent)]
    Image(#[from] ImageError),
}

/// Something that hands out a bundle's files by their path inside it.
pub(crate) trait FileSource {
    /// The file's bytes, `Ok(None)` when there is no such file, or why it
    /// could not be read.
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, SourceError>;
}

/// Checks a path written in a bundle file (`views/front.png`) and returns it
/// in the form used to look it up: `/`-separated, without `./`. A path that
/// is absolute or climbs out of the bundle (`..`) is refused, so a bundle
/// can never make us read a file outside it. The rule is the input layer's
/// ([`crate::input::path::normalize`]).
pub(crate) fn normalize_path(path: &str) -> Result<String, SourceError> {
    crate::input::path::normalize(path).map_err(|e| match e {
        InputError::Path { path, reason } => SourceError::Path { path, reason },
        other => SourceError::Input(other),
    })
}

/// A `.zip` of a bundle folder, read lazily entry by entry through the one
/// bounded zip reader ([`crate::input::zip`]) within the bundle's bounds.
pub(crate) struct ZipSource<'a> {
    archive: BoundedZip<'a>,
    /// `folder/` when the zip holds the bundle under one top folder.
    prefix: String,
}

impl<'a> ZipSource<'a> {
    /// Opens the zip and finds where `manifest.json` sits: at the root, or
    /// under one top folder.
    pub(crate) fn open(bytes: &'a [u8]) -> Result<Self, SourceError> {
        let archive = BoundedZip::open(bytes, ZipLimits::BUNDLE)?;
        let names = archive.names();
        let prefix = if names.iter().any(|n| n == "manifest.json") {
            String::new()
        } else {
            let tops: Vec<&str> = names
                .iter()
                .filter_map(|n| n.strip_suffix("/manifest.json"))
                .filter(|top| !top.contains('/') && !top.starts_with("__MACOSX"))
                .collect();
            match tops.as_slice() {
                [top] => format!("{top}/"),
                _ => String::new(),
            }
        };
        Ok(ZipSource { archive, prefix })
    }
}

impl FileSource for ZipSource<'_> {
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, SourceError> {
        let name = format!("{}{path}", self.prefix);
        Ok(self.archive.read_name(&name)?)
    }
}

/// A bundle's files already in memory, by their path inside the bundle: a
/// folder dropped on the page, or the files of a library device fetched one
/// by one. Paths are normalised as [`normalize_path`] does, and a common top
/// folder (`kettle/manifest.json`) is looked through, as for a zip.
pub(crate) struct MapSource {
    files: std::collections::BTreeMap<String, Vec<u8>>,
    prefix: String,
}

impl MapSource {
    pub(crate) fn new(files: Vec<(String, Vec<u8>)>) -> Self {
        let files: std::collections::BTreeMap<String, Vec<u8>> = files
            .into_iter()
            .filter_map(|(path, bytes)| normalize_path(&path).ok().map(|p| (p, bytes)))
            .collect();
        let prefix = if files.contains_key("manifest.json") {
            String::new()
        } else {
            let tops: Vec<&str> = files
                .keys()
                .filter_map(|n| n.strip_suffix("/manifest.json"))
                .filter(|top| !top.contains('/'))
                .collect();
            match tops.as_slice() {
                [top] => format!("{top}/"),
                _ => String::new(),
            }
        };
        MapSource { files, prefix }
    }
}

impl FileSource for MapSource {
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, SourceError> {
        let bytes = self.files.get(&format!("{}{path}", self.prefix)).cloned();
        if let Some(bytes) = &bytes {
            if bytes.len() > MAX_FILE_BYTES {
                return Err(SourceError::FileTooLarge {
                    found: human_bytes(bytes.len() as u64),
                    cap: human_bytes(MAX_FILE_BYTES as u64),
                });
            }
        }
        Ok(bytes)
    }
}

/// A bundle folder on disk.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) struct DirSource {
    root: std::path::PathBuf,
    total: usize,
}

#[cfg(not(target_arch = "wasm32"))]
impl DirSource {
    pub(crate) fn new(root: &std::path::Path) -> Self {
        DirSource {
            root: root.to_path_buf(),
            total: 0,
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSource for DirSource {
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, SourceError> {
        let full = path
            .split('/')
            .fold(self.root.clone(), |p, part| p.join(part));
        if !full.exists() {
            return Ok(None);
        }
        // Only regular files: a FIFO or a device in a bundle folder is named
        // and refused, never opened.
        let bytes =
            crate::input::fs::read_regular(&full, MAX_FILE_BYTES as u64).map_err(|e| match e {
                InputError::NotRegular { kind, .. } => SourceError::NotRegular { kind },
                InputError::TooLarge { found, cap, .. } => SourceError::FileTooLarge { found, cap },
                other => SourceError::Input(other),
            })?;
        self.total = self.total.saturating_add(bytes.len());
        if self.total > super::limits::MAX_BUNDLE_BYTES {
            return Err(SourceError::BundleTooLarge {
                cap: human_bytes(super::limits::MAX_BUNDLE_BYTES as u64),
            });
        }
        Ok(Some(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_bundle() {
        assert_eq!(
            normalize_path("./views/front.png").unwrap(),
            "views/front.png"
        );
        assert_eq!(
            normalize_path("views\\front.png").unwrap(),
            "views/front.png"
        );
        assert_eq!(
            normalize_path("../secret.png").unwrap_err().to_string(),
            "the path leaves its folder (`..`); expected a path inside it, such as \
             `views/front.png`"
        );
        assert!(normalize_path("views/../../x").is_err());
        assert!(normalize_path("/etc/passwd")
            .unwrap_err()
            .to_string()
            .contains("absolute"));
        assert!(normalize_path("C:/x.png").is_err());
        assert!(normalize_path("").is_err());
    }
}
