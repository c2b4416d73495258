//! Where a bundle's files come from: a folder, a `.zip` of it (possibly
//! under one top folder), or a single JSON file. Every read goes through the
//! bounds of [`super::limits`].

use std::io::{Cursor, Read};

use super::limits::{human_bytes, MAX_BUNDLE_BYTES, MAX_FILE_BYTES, MAX_ZIP_ENTRIES};

/// Something that hands out a bundle's files by their path inside it.
pub(crate) trait FileSource {
    /// The file's bytes, `Ok(None)` when there is no such file, or a message
    /// saying why it could not be read.
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, String>;
}

/// Checks a path written in a bundle file (`views/front.png`) and returns it
/// in the form used to look it up: `/`-separated, without `./`. A path that
/// is absolute or climbs out of the bundle (`..`) is refused, so a bundle
/// can never make us read a file outside it.
pub(crate) fn normalize_path(path: &str) -> Result<String, String> {
    let unified = path.replace('\\', "/");
    if unified.starts_with('/') || unified.contains(':') {
        return Err(
            "the path is absolute; expected a path inside the bundle such as `views/front.png`"
                .to_string(),
        );
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(
                    "the path leaves the bundle (`..`); expected a path inside it such as \
                            `views/front.png`"
                        .to_string(),
                )
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return Err("the path is empty; expected a path such as `views/front.png`".into());
    }
    Ok(parts.join("/"))
}

/// A `.zip` of a bundle folder, read lazily entry by entry.
pub(crate) struct ZipSource<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// `folder/` when the zip holds the bundle under one top folder.
    prefix: String,
    /// Bytes read out so far, against [`MAX_BUNDLE_BYTES`].
    total: usize,
}

impl<'a> ZipSource<'a> {
    /// Opens the zip and finds where `manifest.json` sits: at the root, or
    /// under one top folder.
    pub(crate) fn open(bytes: &'a [u8]) -> Result<Self, String> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| format!("the zip could not be opened: {e}"))?;
        if archive.len() > MAX_ZIP_ENTRIES {
            return Err(format!(
                "the zip lists {} entries; at most {MAX_ZIP_ENTRIES} are accepted",
                archive.len()
            ));
        }
        let names: Vec<&str> = archive.file_names().collect();
        let prefix = if names.contains(&"manifest.json") {
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
        Ok(ZipSource {
            archive,
            prefix,
            total: 0,
        })
    }
}

impl FileSource for ZipSource<'_> {
    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let name = format!("{}{path}", self.prefix);
        let entry = match self.archive.by_name(&name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(format!("the zip entry could not be read: {e}")),
        };
        let bytes = read_capped(entry, MAX_FILE_BYTES, "decompresses to")
            .map_err(|e| format!("the zip entry {e}"))?;
        self.total = self.total.saturating_add(bytes.len());
        if self.total > MAX_BUNDLE_BYTES {
            return Err(format!(
                "the zip's files decompress to more than {} in all; at most that is accepted",
                human_bytes(MAX_BUNDLE_BYTES as u64)
            ));
        }
        Ok(Some(bytes))
    }
}

/// Reads at most `cap` bytes; more is an error, whatever a header claimed.
pub(crate) fn read_capped(reader: impl Read, cap: usize, verb: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    reader
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("could not be read: {e}"))?;
    if bytes.len() > cap {
        return Err(format!(
            "{verb} more than {}; at most {} is accepted per file",
            human_bytes(cap as u64),
            human_bytes(cap as u64)
        ));
    }
    Ok(bytes)
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
        let file = match std::fs::File::open(&full) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("could not be opened: {e}")),
        };
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err("is a folder; expected a file".into());
        }
        let bytes = read_capped(file, MAX_FILE_BYTES, "takes")?;
        self.total = self.total.saturating_add(bytes.len());
        if self.total > MAX_BUNDLE_BYTES {
            return Err(format!(
                "the bundle's files take more than {} in all; at most that is accepted",
                human_bytes(MAX_BUNDLE_BYTES as u64)
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
        assert!(normalize_path("../secret.png")
            .unwrap_err()
            .contains("leaves"));
        assert!(normalize_path("views/../../x").is_err());
        assert!(normalize_path("/etc/passwd")
            .unwrap_err()
            .contains("absolute"));
        assert!(normalize_path("C:/x.png").is_err());
        assert!(normalize_path("").is_err());
    }

    #[test]
    fn reading_stops_at_the_cap() {
        let data = [0u8; 100];
        assert_eq!(read_capped(&data[..], 100, "takes").unwrap().len(), 100);
        let err = read_capped(&data[..], 99, "takes").unwrap_err();
        assert!(err.contains("more than 99 bytes"), "{err}");
    }
}
