//! The library's identity, so that results of two versions of the
//! benchmark never pool (issue #19): a version number and a content hash
//! over the whole library, and the logic hash of each of its devices,
//! committed beside the index as `data/library-version.json` and compiled
//! into every native build ([`shipped`]; the page fetches it instead).
//!
//! - **The content hash** covers the hand-described devices (every file
//!   the index lists, bytes included, in index order) and the generated
//!   devices' manifest (`data/generated.json`, whose own hash covers the
//!   generator's inputs and each generated device's JSON files). It is
//!   computed from committed files without drawing anything
//!   ([`compute_hash`]); a test recomputes it.
//! - **The version** counts the library's changes: `knoblab library
//!   generate` writes the file again and adds one to the version whenever
//!   the content hash changed ([`LibraryVersion::next`]).
//! - **Which trajectories record it** ([`library_of`]): an episode played
//!   on a device of the library, that is, a bundle whose id the library
//!   lists with the bundle's logic hash. The rule reads only the bundle, so
//!   it is the same for a device opened by id, a library folder given by
//!   path, the page, Python and the CLI; a user's own bundle (or a changed
//!   copy of a library device) records none.
//!
//! ```
//! use knoblab_core::bundle::stamp::{shipped, LibraryStamp};
//! let library = shipped().expect("data/library-version.json is compiled in");
//! let stamp: LibraryStamp = library.stamp();
//! assert_eq!(stamp.hash.len(), 64);
//! assert!(stamp.to_string().starts_with(&format!("library version {} (", stamp.version)));
//! // A library device records the stamp; a device of another logic does not.
//! let (id, logic) = library.devices.iter().next().unwrap();
//! assert_eq!(library.stamp_of(id, logic), Some(stamp));
//! assert_eq!(library.stamp_of(id, "0000"), None);
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::Bundle;

/// Where the library's identity is committed, relative to `data/`.
pub const VERSION_FILE: &str = "library-version.json";
/// The `format` of [`VERSION_FILE`].
pub const VERSION_FORMAT: &str = "knoblab-library-version/1";
/// The form of the content hash; part of what is hashed, so that a change
/// of the form changes the hash instead of colliding.
const HASH_FORM: &str = "knoblab-library-hash/1";

/// What a trajectory records of the library its device belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryStamp {
    /// The library's version (1, 2, …).
    pub version: u32,
    /// Its content hash (SHA-256, lowercase hex).
    pub hash: String,
}

impl fmt::Display for LibraryStamp {
    /// `library version 3 (0123456789ab…)`: the version and the hash's
    /// first twelve digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short: String = self.hash.chars().take(12).collect();
        write!(f, "library version {} ({short}…)", self.version)
    }
}

/// What a record says of its library, for a message: the stamp, or that
/// it records none.
pub fn describe(library: Option<&LibraryStamp>) -> String {
    match library {
        Some(stamp) => stamp.to_string(),
        None => "no library (a bundle of its own, or a file from before the library was recorded)"
            .to_string(),
    }
}

/// The committed identity of a library (`data/library-version.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryVersion {
    /// Always [`VERSION_FORMAT`].
    pub format: String,
    /// The version: one more each time the content hash changed.
    pub version: u32,
    /// The content hash ([`compute_hash`]).
    pub hash: String,
    /// Every device's logic hash ([`super::logic_hash`]), by id: hand
    /// described and generated.
    pub devices: BTreeMap<String, String>,
}

/// Why a library's identity could not be read or computed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StampError {
    /// The file is not the version file's JSON.
    #[error("{VERSION_FILE}: {error}; expected {{\"format\": \"{VERSION_FORMAT}\", \"version\", \"hash\", \"devices\"}}")]
    Json {
        /// The input layer's error.
        error: crate::input::json::JsonError,
    },
    /// The file is of another format.
    #[error("{VERSION_FILE}: format is {found:?}; expected {VERSION_FORMAT:?}")]
    Format {
        /// The `format` found.
        found: String,
    },
    /// A file of the library could not be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// A hand-described device of the index does not load.
    #[error("device {id}: {message}")]
    Device {
        /// The device's id.
        id: String,
        /// Why it does not load.
        message: String,
    },
}

impl LibraryVersion {
    /// Reads a version file through the input layer (duplicate keys
    /// refused), checking its format.
    pub fn parse(bytes: &[u8]) -> Result<LibraryVersion, StampError> {
        let file: LibraryVersion =
            crate::input::json::from_bytes(bytes).map_err(|e| StampError::Json { error: e })?;
        if file.format != VERSION_FORMAT {
            return Err(StampError::Format { found: file.format });
        }
        Ok(file)
    }

    /// The stamp its devices' trajectories record.
    pub fn stamp(&self) -> LibraryStamp {
        LibraryStamp {
            version: self.version,
            hash: self.hash.clone(),
        }
    }

    /// The stamp of a device of this id and logic hash: the library's when
    /// it lists the id with that logic, else none.
    pub fn stamp_of(&self, id: &str, logic_hash: &str) -> Option<LibraryStamp> {
        (self.devices.get(id).map(String::as_str) == Some(logic_hash)).then(|| self.stamp())
    }

    /// The identity to commit for a library of content hash `hash` and
    /// these devices, after `previous` (the one committed before, if any):
    /// the same version when the hash is the same, else one more (1 for
    /// the first).
    pub fn next(
        previous: Option<&LibraryVersion>,
        hash: String,
        devices: BTreeMap<String, String>,
    ) -> LibraryVersion {
        let version = match previous {
            Some(p) if p.hash == hash => p.version,
            Some(p) => p.version + 1,
            None => 1,
        };
        LibraryVersion {
            format: VERSION_FORMAT.to_string(),
            version,
            hash,
            devices,
        }
    }

    /// The file's text: pretty JSON, one device a line, so that a change
    /// of the library reads as the devices it changed.
    pub fn to_text(&self) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

/// The library this build ships (`data/library-version.json`, compiled
/// in), read once; `None` only if the compiled-in file does not parse,
/// which a test rules out.
#[cfg(not(target_arch = "wasm32"))]
pub fn shipped() -> Option<&'static LibraryVersion> {
    static SHIPPED: std::sync::OnceLock<Option<LibraryVersion>> = std::sync::OnceLock::new();
    SHIPPED
        .get_or_init(|| {
            LibraryVersion::parse(include_bytes!("../../../../data/library-version.json")).ok()
        })
        .as_ref()
}

/// The browser's copy of the shipped library's version, once [`provide`]d.
#[cfg(target_arch = "wasm32")]
static PROVIDED: std::sync::OnceLock<LibraryVersion> = std::sync::OnceLock::new();

/// The library this page ships: in the browser the file is not compiled in
/// (it would be 42 KB of every first visit's download, issue #46); the page
/// fetches `data/library-version.json` beside the library's index and gives
/// it with [`provide`] before it opens a device. `None` until then.
#[cfg(target_arch = "wasm32")]
pub fn shipped() -> Option<&'static LibraryVersion> {
    PROVIDED.get()
}

/// Gives the browser build the shipped library's version file (what
/// [`shipped`] returns from then on). The first file given stays: a page
/// serves one release (its service worker replaces a release whole).
#[cfg(target_arch = "wasm32")]
pub fn provide(bytes: &[u8]) -> Result<&'static LibraryVersion, StampError> {
    if let Some(given) = PROVIDED.get() {
        return Ok(given);
    }
    let version = LibraryVersion::parse(bytes)?;
    Ok(PROVIDED.get_or_init(|| version))
}

/// The library stamp an episode on the device of this id and logic hash
/// records: the shipped library's when it lists that device with that
/// logic ([`LibraryVersion::stamp_of`]), else none. Every recorder (the
/// CLI's `run` and `eval`, Python's env and `evaluate`, the page's play
/// and Agent pages) sets its episodes' `settings.library` by this rule.
pub fn library_of(id: &str, logic_hash: &str) -> Option<LibraryStamp> {
    shipped()?.stamp_of(id, logic_hash)
}

/// [`library_of`] a loaded bundle (its logic hash computed now).
pub fn library_of_bundle(bundle: &Bundle) -> Option<LibraryStamp> {
    let library = shipped()?;
    // Only a listed id is worth hashing.
    if !library.devices.contains_key(&bundle.manifest.id) {
        return None;
    }
    library.stamp_of(&bundle.manifest.id, &bundle.logic_hash())
}

/// The content hash of a library: SHA-256 over [`HASH_FORM`], each
/// hand-described device (its id, then each of its files' name, length
/// and bytes, in the order given) and the generated devices' manifest
/// hash, every piece preceded by its length so that no two libraries
/// write the same stream.
pub fn content_hash<'a>(
    hand: impl IntoIterator<Item = (&'a str, Vec<(&'a str, &'a [u8])>)>,
    generated_hash: &str,
) -> String {
    let mut hasher = Sha256::new();
    let mut piece = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    piece(HASH_FORM.as_bytes());
    for (id, files) in hand {
        piece(id.as_bytes());
        piece(&(files.len() as u64).to_le_bytes());
        for (name, bytes) in files {
            piece(name.as_bytes());
            piece(bytes);
        }
    }
    piece(b"generated");
    piece(generated_hash.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A device's files: each name with its bytes.
#[cfg(not(target_arch = "wasm32"))]
type Files = Vec<(String, Vec<u8>)>;

/// The content hash of the library in `data` (its `library.json`, the
/// files each hand-described device lists, and `generated.json`'s hash),
/// with each hand-described device's logic hash, by id. Read through the
/// input layer; nothing is drawn.
#[cfg(not(target_arch = "wasm32"))]
pub fn compute_hash(
    data: &std::path::Path,
) -> Result<(String, BTreeMap<String, String>), StampError> {
    use super::generated::{GeneratedIndex, GENERATED_FILE};
    use super::limits::MAX_FILE_BYTES;
    use crate::input::limits::MAX_RESULTS_FILE_BYTES;
    let read = |path: &std::path::Path, cap: u64| {
        crate::input::fs::read_regular(path, cap).map_err(|e| StampError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })
    };
    let index_path = data.join("library.json");
    let index =
        super::LibraryIndex::parse(&read(&index_path, MAX_RESULTS_FILE_BYTES)?).map_err(|e| {
            StampError::Read {
                path: index_path.display().to_string(),
                message: e.to_string(),
            }
        })?;
    let generated_path = data.join(GENERATED_FILE);
    let generated = GeneratedIndex::parse(&read(&generated_path, MAX_RESULTS_FILE_BYTES)?)
        .map_err(|e| StampError::Read {
            path: generated_path.display().to_string(),
            message: e.to_string(),
        })?;
    let mut hand: Vec<(String, Files)> = Vec::new();
    let mut logic = BTreeMap::new();
    for entry in &index.devices {
        let mut files = Vec::with_capacity(entry.files.len());
        for file in &entry.files {
            let path =
                crate::input::path::resolve_under(data, &entry.file_url(file)).map_err(|e| {
                    StampError::Read {
                        path: entry.file_url(file),
                        message: e.to_string(),
                    }
                })?;
            files.push((file.clone(), read(&path, MAX_FILE_BYTES as u64)?));
        }
        let bundle = super::check_files_in_memory(&entry.id, files.clone())
            .into_result()
            .map_err(|e| StampError::Device {
                id: entry.id.clone(),
                message: e.to_string(),
            })?;
        logic.insert(entry.id.clone(), bundle.logic_hash());
        hand.push((entry.id.clone(), files));
    }
    let hash = content_hash(
        hand.iter().map(|(id, files)| {
            (
                id.as_str(),
                files
                    .iter()
                    .map(|(n, b)| (n.as_str(), b.as_slice()))
                    .collect(),
            )
        }),
        &generated.hash,
    );
    Ok((hash, logic))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(n: u32, hash: &str) -> LibraryVersion {
        LibraryVersion {
            format: VERSION_FORMAT.into(),
            version: n,
            hash: hash.into(),
            devices: BTreeMap::from([("lamp-0001".to_string(), "abc".to_string())]),
        }
    }

    #[test]
    fn the_version_goes_up_by_one_when_and_only_when_the_hash_changes() {
        let first = LibraryVersion::next(None, "h1".into(), BTreeMap::new());
        assert_eq!(first.version, 1);
        let same = LibraryVersion::next(Some(&version(4, "h1")), "h1".into(), BTreeMap::new());
        assert_eq!(same.version, 4);
        let changed = LibraryVersion::next(Some(&version(4, "h1")), "h2".into(), BTreeMap::new());
        assert_eq!((changed.version, changed.hash.as_str()), (5, "h2"));
    }

    #[test]
    fn a_device_is_the_librarys_only_with_its_id_and_its_logic() {
        let v = version(2, "0123456789abcdef");
        assert_eq!(
            v.stamp_of("lamp-0001", "abc"),
            Some(LibraryStamp {
                version: 2,
                hash: "0123456789abcdef".into()
            })
        );
        assert_eq!(v.stamp_of("lamp-0001", "abd"), None);
        assert_eq!(v.stamp_of("lamp-0002", "abc"), None);
        assert_eq!(v.stamp().to_string(), "library version 2 (0123456789ab…)");
        assert!(describe(None).starts_with("no library"));
    }

    #[test]
    fn the_content_hash_separates_its_pieces() {
        let a = content_hash([("ab", vec![("c", &b"d"[..])])], "g");
        let b = content_hash([("a", vec![("bc", &b"d"[..])])], "g");
        let c = content_hash([("ab", vec![("c", &b"d"[..])])], "h");
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, content_hash([("ab", vec![("c", &b"d"[..])])], "g"));
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn a_wrong_format_or_bad_json_is_named() {
        let err =
            LibraryVersion::parse(br#"{"format": "x", "version": 1, "hash": "", "devices": {}}"#)
                .unwrap_err();
        assert!(err.to_string().contains(VERSION_FORMAT), "{err}");
        let err = LibraryVersion::parse(b"{").unwrap_err();
        assert!(err.to_string().starts_with(VERSION_FILE), "{err}");
    }

    #[test]
    fn the_shipped_library_is_compiled_in_and_lists_968_devices() {
        let library = shipped().expect("data/library-version.json parses");
        assert_eq!(library.devices.len(), 968);
        assert!(library.version >= 1);
    }
}
