//! Where a bundle's files come from: a folder, a `.zip` of it (possibly
//! under one top folder), or a single JSON file. Every read goes through the
//! bounds of [`super::limits`].

use super::limits::{human_bytes, MAX_FILE_BYTES};
use crate::input::zip::{BoundedZip, ZipLimits};

/// Something that hands out a bundle's files by their path inside it.
pub(crate) trait FileSource {
    /// The file's bytes, `Ok(None)` when there is no such file, or a message
    /// saying why it could not be read.
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, String>;
}

/// Checks a path written in a bundle file (`views/front.png`) and returns it
/// in the form used to look it up: `/`-separated, without `./`. A path that
/// is absolute or climbs out of the bundle (`..`) is refused, so a bundle
/// can never make us read a file outside it. The rule is the input layer's
/// ([`crate::input::path::normalize`]).
pub(crate) fn normalize_path(path: &str) -> Result<String, String> {
    crate::input::path::normalize(path).map_err(|e| match e {
        // The caller shows the path already.
        crate::input::InputError::Path { reason, .. } => format!("the path {reason}"),
        other => other.to_string(),
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
    pub(crate) fn open(bytes: &'a [u8]) -> Result<Self, String> {
        let archive = BoundedZip::open(bytes, ZipLimits::BUNDLE).map_err(|e| e.to_string())?;
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
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let name = format!("{}{path}", self.prefix);
        self.archive.read_name(&name).map_err(|e| e.to_string())
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
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let bytes = self.files.get(&format!("{}{path}", self.prefix)).cloned();
        if let Some(bytes) = &bytes {
            if bytes.len() > MAX_FILE_BYTES {
                return Err(format!(
                    "takes {}; at most {} is accepted per file",
                    human_bytes(bytes.len() as u64),
                    human_bytes(MAX_FILE_BYTES as u64)
                ));
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
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, String> {
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
                crate::input::InputError::NotRegular { kind, .. } => {
                    format!("is {kind}; expected a regular file")
                }
                crate::input::InputError::TooLarge { found, cap, .. } => {
                    format!("takes {found}; at most {cap} is accepted per file")
                }
                other => other.to_string(),
            })?;
        self.total = self.total.saturating_add(bytes.len());
        if self.total > super::limits::MAX_BUNDLE_BYTES {
            return Err(format!(
                "the bundle's files take more than {} in all; at most that is accepted",
                human_bytes(super::limits::MAX_BUNDLE_BYTES as u64)
            ));
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
            normalize_path("../secret.png").unwrap_err(),
            "the path leaves its folder (`..`); expected a path inside it, such as \
             `views/front.png`"
        );
        assert!(normalize_path("views/../../x").is_err());
        assert!(normalize_path("/etc/passwd")
            .unwrap_err()
            .contains("absolute"));
        assert!(normalize_path("C:/x.png").is_err());
        assert!(normalize_path("").is_err());
    }
}
