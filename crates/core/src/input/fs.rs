//! Files on disk (native only): open only regular files, read within a
//! cap, read each distinct file at most once, write through a temporary
//! file renamed into place, and refuse an output that is one of the inputs.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::limits::human_bytes;
use super::InputError;

/// What a path names, when it is not a regular file.
fn kind_of(meta: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a folder")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

fn shown(path: &Path) -> String {
    super::text::escape_controls(&path.display().to_string()).into_owned()
}

fn io_error(path: &Path, what: &str, e: &std::io::Error) -> InputError {
    InputError::Io {
        path: shown(path),
        message: format!("{what}: {e}"),
    }
}

/// Opens `path` for reading if it is a regular file (symbolic links
/// followed). A FIFO, a device, a socket or a folder is refused by its
/// kind before it is opened, so opening can never block.
pub fn open_regular(path: &Path) -> Result<(File, u64), InputError> {
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, "cannot open it", &e))?;
    open_checked(path, &meta)
}

/// [`open_regular`] with the path's metadata already read (one `stat` of
/// the path, not two, for a caller that needed it anyway).
fn open_checked(path: &Path, meta: &Metadata) -> Result<(File, u64), InputError> {
    if let Some(kind) = kind_of(meta) {
        return Err(InputError::NotRegular {
            path: shown(path),
            kind,
        });
    }
    #[allow(
        clippy::disallowed_methods,
        reason = "the input layer's one open, after the kind check above"
    )]
    let file = File::open(path).map_err(|e| io_error(path, "cannot open it", &e))?;
    // The path could have been swapped between the two calls: check what
    // was opened.
    let meta = file
        .metadata()
        .map_err(|e| io_error(path, "cannot read it", &e))?;
    if let Some(kind) = kind_of(&meta) {
        return Err(InputError::NotRegular {
            path: shown(path),
            kind,
        });
    }
    Ok((file, meta.len()))
}

/// Whether `path` names a regular file (symbolic links followed).
pub fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Reads a regular file of at most `cap` bytes: a larger one is refused by
/// its size before it is read, and one that grows while read is read no
/// further than the cap.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, InputError> {
    let (file, size) = open_regular(path)?;
    read_opened(path, file, size, cap)
}

/// Reads an opened regular file of `size` bytes within `cap`.
fn read_opened(path: &Path, file: File, size: u64, cap: u64) -> Result<Vec<u8>, InputError> {
    let too_large = |found: String| InputError::TooLarge {
        what: shown(path),
        found,
        cap: human_bytes(cap),
    };
    if size > cap {
        return Err(too_large(human_bytes(size)));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, "cannot read it", &e))?;
    if bytes.len() as u64 > cap {
        return Err(too_large(format!(
            "more than {} (it grew while read)",
            human_bytes(cap)
        )));
    }
    Ok(bytes)
}

/// [`read_regular`], refusing an empty file: `expected` says what it
/// should have held ("one trajectory per line").
pub fn read_nonempty(path: &Path, cap: u64, expected: &str) -> Result<Vec<u8>, InputError> {
    let bytes = read_regular(path, cap)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::Empty {
            what: shown(path),
            expected: expected.to_string(),
        });
    }
    Ok(bytes)
}

/// A file's identity on disk: device and inode.
type FileId = (u64, u64);

/// The identity of a file on disk: device and inode.
fn identity(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().as_ref().map(identity_of)
}

/// The identity of the file `meta` describes.
fn identity_of(meta: &Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// Reads the files that paths inside a results file name, each distinct
/// file (by device and inode, so `a.json`, `./a.json` and a link to it are
/// one) at most once; paths are resolved under `root` by
/// [`super::path::resolve_under`].
#[derive(Debug)]
pub struct OnceReader {
    root: PathBuf,
    cap: u64,
    read: HashMap<FileId, Result<Arc<Vec<u8>>, InputError>>,
}

impl OnceReader {
    /// A reader for paths under `root`, each file within `cap` bytes.
    pub fn new(root: &Path, cap: u64) -> Self {
        OnceReader {
            root: root.to_path_buf(),
            cap,
            read: HashMap::new(),
        }
    }

    /// The folder paths are resolved under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How many distinct files were read.
    pub fn files_read(&self) -> usize {
        self.read.len()
    }

    /// The bytes of the file `path` (written inside a file) names under the
    /// root; `Ok(None)` when there is no such file.
    pub fn read(&mut self, path: &str) -> Result<Option<Arc<Vec<u8>>>, InputError> {
        let full = super::path::resolve_under(&self.root, path)?;
        self.read_path(&full)
    }

    /// The bytes of `full` (already resolved), read at most once.
    /// The path is looked up once (its `stat` gives both the identity and
    /// the kind), and the bytes are kept as read, not copied.
    pub fn read_path(&mut self, full: &Path) -> Result<Option<Arc<Vec<u8>>>, InputError> {
        let Ok(meta) = std::fs::metadata(full) else {
            return Ok(None);
        };
        let cap = self.cap;
        self.read
            .entry(identity_of(&meta))
            .or_insert_with(|| {
                let (file, size) = open_checked(full, &meta)?;
                read_opened(full, file, size, cap).map(Arc::new)
            })
            .clone()
            .map(Some)
    }
}

/// Whether two paths name the same file (same device and inode), or, for
/// an output that does not exist yet, the same canonical path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (identity(a), identity(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        },
    }
}

/// Refuses an output path that is one of the inputs, or, for a folder
/// input, an existing file inside it (a bundle's `ssm.json`). A new file
/// beside a bundle's files overwrites nothing and is allowed.
pub fn check_output_not_input(out: &Path, inputs: &[&Path]) -> Result<(), InputError> {
    for input in inputs {
        let inside = std::fs::canonicalize(input)
            .ok()
            .filter(|c| c.is_dir())
            .is_some_and(|dir| {
                out.parent()
                    .map(|p| {
                        if p.as_os_str().is_empty() {
                            Path::new(".")
                        } else {
                            p
                        }
                    })
                    .and_then(|p| std::fs::canonicalize(p).ok())
                    .is_some_and(|parent| parent.starts_with(&dir))
            });
        let inside = inside && out.exists();
        if same_file(out, input) || inside {
            return Err(InputError::Io {
                path: shown(out),
                message: format!(
                    "is {} {}; an output never overwrites an input: give another --out",
                    if inside {
                        "inside the input"
                    } else {
                        "the input"
                    },
                    shown(input)
                ),
            });
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// flushed to disk and then renamed into place: a reader sees the old file
/// or the whole new one, and an interrupted write leaves no half file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), InputError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_error(path, "cannot write it", &e)
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("knoblab-input-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn only_regular_files_are_opened() {
        let dir = scratch("regular");
        let err = read_regular(&dir, 10).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::NotRegular {
                    kind: "a folder",
                    ..
                }
            ),
            "{err}"
        );
        let err = read_regular(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::NotRegular {
                    kind: "a character device",
                    ..
                }
            ),
            "{err}"
        );
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = read_regular(&fifo, 10).unwrap_err().to_string();
            assert!(
                err.contains("a FIFO (named pipe), not a regular file"),
                "{err}"
            );
        }
        let file = dir.join("f.txt");
        std::fs::write(&file, b"0123456789!").unwrap();
        let err = read_regular(&file, 10).unwrap_err().to_string();
        assert!(
            err.contains("the file takes 11 bytes; at most 10 bytes is read"),
            "{err}"
        );
        assert_eq!(read_regular(&file, 11).unwrap().len(), 11);
        std::fs::write(&file, b" \n").unwrap();
        let err = read_nonempty(&file, 10, "one trajectory per line").unwrap_err();
        assert!(err
            .to_string()
            .contains("is empty; expected one trajectory per line"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn each_file_is_read_once_and_paths_stay_under_the_root() {
        let dir = scratch("once");
        std::fs::create_dir_all(dir.join("gt")).unwrap();
        std::fs::write(dir.join("gt/a.json"), b"{}").unwrap();
        let mut r = OnceReader::new(&dir, 100);
        for p in ["gt/a.json", "./gt/a.json", "gt//a.json", "gt\\a.json"] {
            assert_eq!(&*r.read(p).unwrap().unwrap(), b"{}");
        }
        assert_eq!(r.files_read(), 1);
        assert!(r.read("gt/none.json").unwrap().is_none());
        assert!(r.read("/dev/zero").is_err());
        assert!(r.read("gt/../../etc/passwd").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn outputs_are_renamed_into_place_and_never_an_input() {
        let dir = scratch("write");
        let input = dir.join("ssm.json");
        std::fs::write(&input, b"old").unwrap();
        assert!(check_output_not_input(&input, &[&input]).is_err());
        assert!(check_output_not_input(&dir.join("./ssm.json"), &[&input]).is_err());
        assert!(check_output_not_input(&dir.join("ssm.json"), &[&dir]).is_err());
        check_output_not_input(&dir.join("new.jsonl"), &[&dir]).unwrap();
        let out = dir.join("out.json");
        check_output_not_input(&out, &[&input]).unwrap();
        write_atomic(&out, b"new").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 2, "no temporary file is left behind");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
