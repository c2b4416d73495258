//! The one resolver of device names, for every command and face: a
//! library id becomes a bundle here, whether the device is hand-described
//! (its files read from the library) or generated (made now by
//! `knoblab-devicegen` from the inputs compiled into this build), and a
//! path given by a user is a bundle folder, zip or file, or else the id of
//! a generated device ([`load_device`]).

use thiserror::Error;

use knoblab_core::bundle::generated::{is_generated, ManifestError};
#[cfg(not(target_arch = "wasm32"))]
use knoblab_core::bundle::generated::{GeneratedIndex, GENERATED_FILE};
use knoblab_core::bundle::{
    check_files_in_memory, open_made, Bundle, Checked, LibraryEntry, LibraryError, LoadError,
};
#[cfg(not(target_arch = "wasm32"))]
use knoblab_core::bundle::{Diagnostic, LibraryIndex, Location};
use knoblab_core::input::InputError;

/// Why a library could not be read from disk, or a device of it made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum OpenError {
    /// The generator could not make the device.
    #[error(transparent)]
    Generator(Box<knoblab_devicegen::GeneratedError>),
    /// A generated device's logic could not be made without pictures.
    #[error("the generated device {id} could not be made: {problem}")]
    Made {
        /// The device's id.
        id: String,
        /// The generator's error.
        problem: Box<knoblab_devicegen::GeneratedError>,
    },
    /// A generated device's logic was asked for where this build's
    /// generator has not been given yet (the page's workers: see
    /// [`provide_generator`]).
    #[error(
        "the generated device {id} could not be made: the device generator is not loaded here"
    )]
    NoGenerator {
        /// The device's id.
        id: String,
    },
    /// A device was opened, and the loader refused it.
    #[error("device {id}: {problem}")]
    Device {
        /// The device's id.
        id: String,
        /// The loader's report.
        problem: Box<LoadError>,
    },
    /// A bundle given by path was refused by the loader (its report names
    /// the path).
    #[error("{0}")]
    Load(LoadError),
    /// A generated device opened by id could not be made or loaded.
    #[error("{id}: {problem}")]
    Generated {
        /// The device's id.
        id: String,
        /// The loader's report.
        problem: LoadError,
    },
    /// The index could not be read (the input layer names the file).
    #[error(transparent)]
    Read(InputError),
    /// The index was refused.
    #[error(transparent)]
    Index(LibraryError),
    /// The generated devices' manifest beside the index could not be read.
    #[error("{path}: {problem}")]
    ManifestRead {
        /// The manifest's path.
        path: String,
        /// The input layer's error.
        problem: InputError,
    },
    /// The generated devices' manifest beside the index was refused.
    #[error("{path}: {problem}")]
    Manifest {
        /// The manifest's path.
        path: String,
        /// What is wrong with it.
        problem: ManifestError,
    },
}

/// Opens a device of the library: the one rule by which a library id
/// becomes a bundle, for the page, the CLI and Python alike. `files` are
/// the files `entry` lists, read by the caller (from disk natively, fetched
/// in the page); a hand-described device is those files, checked. A
/// generated device lists none: it is made now, pictures and live layer
/// included, from the inputs compiled into this build
/// (`devicegen::generated::Inputs::embedded`), and checked the same way.
pub fn open_entry(entry: &LibraryEntry, files: Vec<(String, Vec<u8>)>) -> Checked {
    if !is_generated(entry) {
        return open_described(entry, files);
    }
    open_made(entry, generated_files(&entry.id))
}

/// [`open_entry`]'s half for a hand-described device: its files, checked.
/// The web page calls it alone, as its module holds no generator (a
/// generated device is made in its device worker, then checked with
/// [`open_made`]).
pub fn open_described(entry: &LibraryEntry, files: Vec<(String, Vec<u8>)>) -> Checked {
    check_files_in_memory(&entry.id, files)
}

/// A device of the library without its pictures, for scoring the
/// trajectories recorded on it: a hand-described device is its files,
/// opened by [`open_entry`], with the pictures then dropped
/// ([`Bundle::without_pictures`]); a generated one is made without
/// drawing (its JSON files, each view standing in at the size it is drawn
/// at: `devicegen::generated::Inputs::logic`), in a fraction of
/// [`open_entry`]'s time. Either way its logic hash is the device's.
pub fn open_entry_logic(
    entry: &LibraryEntry,
    files: Vec<(String, Vec<u8>)>,
) -> Result<Bundle, OpenError> {
    if !is_generated(entry) {
        // Not `open_entry`: this path never draws, and a build that opens
        // logic alone (the Score page's worker) holds no drawing code.
        return open_described(entry, files)
            .into_result()
            .map(|b| b.without_pictures())
            .map_err(|problem| OpenError::Device {
                id: entry.id.clone(),
                problem: Box::new(problem),
            });
    }
    generated_logic(&entry.id)
}

/// The library card of a generated device's id, when this build's
/// generator makes it: what [`open_entry`] opens for an id that no index at hand lists, such as a
/// trajectory's device on the Score page.
pub fn generated_entry(id: &str) -> Option<LibraryEntry> {
    knoblab_devicegen::generated::library_entry(id)
}

/// Whether `id` is written as a generated device's id (`lamp-g0012`),
/// read without the generator's inputs: what a page's worker asks before
/// it loads the generator ([`provide_generator`]); [`generated_entry`]
/// says whether this build makes such a device.
pub fn names_generated(id: &str) -> bool {
    knoblab_devicegen::generated::id_parts(id).is_some()
}

/// The generated devices among `ids` (a run's devices, say) that `given`
/// lacks, each made once without its pictures ([`open_entry_logic`]: all
/// that scoring reads); ids that are neither are left to the caller to
/// report.
pub fn open_missing_generated<'a>(
    ids: impl IntoIterator<Item = &'a str>,
    given: &[Bundle],
) -> Result<Vec<Bundle>, OpenError> {
    let mut wanted: Vec<&str> = ids
        .into_iter()
        .filter(|id| !given.iter().any(|b| b.manifest.id == *id))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut out = Vec::new();
    // An id not written as a generated one is the caller's to report, and
    // needs no generator ([`generator`]).
    for id in wanted.into_iter().filter(|id| names_generated(id)) {
        if let Some(entry) = (generator(id)?.entry)(id) {
            let bundle = open_entry_logic(&entry, Vec::new())?;
            out.push(bundle);
        }
    }
    Ok(out)
}

/// A generated device's files (pictures and live layer included), made
/// now from the inputs compiled into this build: what [`open_entry`]
/// checks for a generated id.
pub fn generated_files(id: &str) -> Result<Vec<(String, Vec<u8>)>, OpenError> {
    knoblab_devicegen::generated::Inputs::embedded()
        .and_then(|inputs| inputs.open(id))
        .map(|made| made.files.into_iter().collect())
        .map_err(|e| OpenError::Generator(Box::new(e)))
}

/// This build's generator as the code that makes generated devices' logic
/// reaches it: natively the generator itself; in WebAssembly the one given
/// by [`provide_generator`], so that the code that scores trajectories or
/// ranks runs (the page's chunks `score_trajectories` and `board`) holds
/// neither the generator, its inputs nor its picture code (their own
/// chunk, `draw_device`), which a worker loads only for a file that
/// played a generated device. `id` is the device wanted, for the message.
fn generator(id: &str) -> Result<&'static Generator, OpenError> {
    #[cfg(target_arch = "wasm32")]
    return GENERATOR
        .get()
        .ok_or_else(|| OpenError::NoGenerator { id: id.to_string() });
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = id;
        Ok(&THIS_GENERATOR)
    }
}

/// What [`generator`] gives: the two calls that read the generator's inputs.
struct Generator {
    /// [`generated_entry`].
    entry: fn(&str) -> Option<LibraryEntry>,
    /// A generated device's logic, made without drawing.
    logic: fn(&str) -> Result<Bundle, OpenError>,
}

/// This build's generator.
const THIS_GENERATOR: Generator = Generator {
    entry: generated_entry,
    logic: make_logic,
};

/// A generated device's logic, made now without drawing, by
/// [`generator`].
fn generated_logic(id: &str) -> Result<Bundle, OpenError> {
    (generator(id)?.logic)(id)
}

/// The generator [`generator`] gives in WebAssembly, once given.
#[cfg(target_arch = "wasm32")]
static GENERATOR: std::sync::OnceLock<Generator> = std::sync::OnceLock::new();

/// Gives [`generator`] this build's generator (WebAssembly only: natively
/// it is always at hand). The page's workers call it from the generator's
/// own chunk, before anything makes a generated device.
#[cfg(target_arch = "wasm32")]
pub fn provide_generator() {
    let _first = GENERATOR.set(THIS_GENERATOR);
}

/// Whether [`provide_generator`] was called (always true natively).
pub fn has_generator() -> bool {
    #[cfg(target_arch = "wasm32")]
    return GENERATOR.get().is_some();
    #[cfg(not(target_arch = "wasm32"))]
    true
}

/// A generated device's logic, made now by the generator.
fn make_logic(id: &str) -> Result<Bundle, OpenError> {
    knoblab_devicegen::generated::Inputs::embedded()
        .and_then(|inputs| inputs.logic(id))
        .map_err(|problem| OpenError::Made {
            id: id.to_string(),
            problem: Box::new(problem),
        })
}

/// Reads the library natively: the index at `index` and, when a
/// generated manifest (`generated.json`) lies beside it, its devices too
/// ([`LibraryIndex::with_generated`]). Through the input layer (regular
/// files within the bound). Messages about the index leave its path to the
/// caller; those about the manifest name it.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_library(index: &std::path::Path) -> Result<LibraryIndex, OpenError> {
    use knoblab_core::input::limits::MAX_RESULTS_FILE_BYTES;
    let read = |path: &std::path::Path| {
        knoblab_core::input::fs::read_regular(path, MAX_RESULTS_FILE_BYTES)
    };
    let library =
        LibraryIndex::parse(&read(index).map_err(OpenError::Read)?).map_err(OpenError::Index)?;
    let beside = index
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join(GENERATED_FILE);
    if !beside.exists() {
        return Ok(library);
    }
    let path = || beside.display().to_string();
    let bytes = read(&beside).map_err(|problem| OpenError::ManifestRead {
        path: path(),
        problem,
    })?;
    let generated = GeneratedIndex::parse(&bytes).map_err(|problem| OpenError::Manifest {
        path: path(),
        problem,
    })?;
    Ok(library.with_generated(&generated))
}

/// Opens a device of a library read from disk ([`read_library`]): its
/// listed files read from under `root` (the index's folder, paths kept
/// under it), then [`open_entry`].
#[cfg(not(target_arch = "wasm32"))]
pub fn open_entry_in(root: &std::path::Path, entry: &LibraryEntry) -> Checked {
    let mut files = Vec::with_capacity(entry.files.len());
    for file in &entry.files {
        let read = knoblab_core::input::path::resolve_under(root, &entry.file_url(file))
            .map_err(|e| e.to_string())
            .and_then(|path| {
                knoblab_core::input::fs::read_regular(
                    &path,
                    knoblab_core::bundle::limits::MAX_FILE_BYTES as u64,
                )
                .map_err(|e| format!("{}: {e}", path.display()))
            });
        match read {
            Ok(bytes) => files.push((file.clone(), bytes)),
            Err(message) => {
                return Checked {
                    source: entry.id.clone(),
                    bundle: None,
                    diagnostics: vec![Diagnostic::error(Location::file(file.clone()), message)],
                }
            }
        }
    }
    open_entry(entry, files)
}

/// What a device name given by a user names: the bundle at a path (a
/// folder, a zip or a single JSON file), or, when nothing is at that path
/// and the name is a generated device's id (`lamp-g0001`), that device.
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceName {
    /// A bundle on disk (or nothing there: the loader then says so).
    Path(std::path::PathBuf),
    /// A generated device of this build's library, made when opened.
    Generated(LibraryEntry),
}

impl DeviceName {
    /// The one reading of a device name, for every command and face.
    pub fn resolve(name: &std::path::Path) -> DeviceName {
        if !name.exists() {
            if let Some(entry) = name.to_str().and_then(|id| generated_entry(id.trim())) {
                return DeviceName::Generated(entry);
            }
        }
        DeviceName::Path(name.to_path_buf())
    }
}

/// A device name checked: the bundle and every problem found, for
/// `knoblab validate` (a generated id is made and checked like a folder).
#[cfg(not(target_arch = "wasm32"))]
pub fn check_device(name: &std::path::Path) -> Checked {
    match DeviceName::resolve(name) {
        DeviceName::Generated(entry) => open_entry(&entry, Vec::new()),
        DeviceName::Path(path) => knoblab_core::bundle::check_path(&path),
    }
}

/// The bundle a device name names ([`DeviceName::resolve`]), loaded: the
/// one place a path or an id becomes a device, for `validate`, `run`,
/// `eval`, Python and whatever else is given devices by name.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_device(name: &std::path::Path) -> Result<Bundle, OpenError> {
    match DeviceName::resolve(name) {
        DeviceName::Generated(entry) => {
            open_entry(&entry, Vec::new())
                .into_result()
                .map_err(|problem| OpenError::Generated {
                    id: entry.id.clone(),
                    problem,
                })
        }
        DeviceName::Path(path) => knoblab_core::bundle::load_path(&path).map_err(OpenError::Load),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_id_and_a_folder_are_both_device_names() {
        assert!(matches!(
            DeviceName::resolve(std::path::Path::new("lamp-g0003")),
            DeviceName::Generated(e) if e.id == "lamp-g0003"
        ));
        let kettle = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/kettle");
        assert!(matches!(
            DeviceName::resolve(std::path::Path::new(kettle)),
            DeviceName::Path(_)
        ));
        // Neither: left to the loader, which names the path.
        assert!(matches!(
            DeviceName::resolve(std::path::Path::new("lamp-x9999")),
            DeviceName::Path(_)
        ));
        let checked = check_device(std::path::Path::new("lamp-g0003"));
        assert!(checked.bundle.is_some(), "{:?}", checked.diagnostics);
        assert_eq!(
            load_device(std::path::Path::new("lamp-g0003")).map(|b| b.manifest.id),
            Ok("lamp-g0003".to_string())
        );
    }
}
