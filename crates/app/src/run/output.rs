//! A run's output file: JSON Lines of [`EpisodeRecord`]s, the trajectory
//! format the Agent page exports, appended one whole line per finished
//! episode, and its run description beside it (`FILE.run.json`, a
//! [`RunSpec`]).
//!
//! **Writing.** The file is opened with `O_APPEND`; each record is one
//! `write` of the whole line with its `\n`, then `fsync`ed before the
//! episode counts as finished. Several processes (shards of one plan,
//! Ray tasks) may append to the same file at once: each write holds the
//! file's lock, and a record whose item another writer put in the file
//! meanwhile is not written again (see [`Output`]).
//!
//! **Reading.** Every line that parses is a finished episode. A last line
//! that is torn (no `\n` at its end, or not a record: a crash or power
//! loss in the middle of a write) is not an episode: it is reported and
//! cut off before this process appends, so the next line starts clean. A
//! bad line anywhere else is an error naming it. An item found twice
//! keeps its first record, and the repeat is reported.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use knoblab_core::input::limits::MAX_EVAL_OUTPUT_BYTES;
use knoblab_eval::vlm::{EpisodeRecord, RunSpec};

use super::{EvalError, SpecProblem};

/// The run description's path beside an output file: `FILE.run.json`.
pub fn spec_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_os_string();
    name.push(".run.json");
    PathBuf::from(name)
}

/// What an output file holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finished {
    /// The records, in file order, each item once.
    pub records: Vec<EpisodeRecord>,
    /// What was dropped, for the user: a torn last line, repeated items.
    pub notes: Vec<String>,
    /// Where the whole lines end (the length to cut a torn tail to).
    pub whole_len: u64,
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> EvalError {
    EvalError::Io {
        path: path.display().to_string(),
        message: format!("{what}: {e}"),
    }
}

/// The bytes of a file the run reads back (its output, its description)
/// through the input layer: a regular file only (a FIFO or a device named
/// as `--out` is refused, never opened: it could block), within
/// [`MAX_EVAL_OUTPUT_BYTES`]; an absent file is `None`.
fn read_back(path: &Path) -> Result<Option<Vec<u8>>, EvalError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(path, "reading", e)),
        Ok(_) => {}
    }
    knoblab_core::input::fs::read_regular(path, MAX_EVAL_OUTPUT_BYTES)
        .map(Some)
        .map_err(|e| EvalError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })
}

/// Reads an output file (an absent file holds nothing). Each whole line
/// is decoded by the input layer's rule (invalid UTF-8 located, never
/// replaced) and parsed with duplicate keys refused.
pub fn read_finished(path: &Path) -> Result<Finished, EvalError> {
    let Some(bytes) = read_back(path)? else {
        return Ok(Finished::default());
    };
    let mut out = Finished::default();
    let mut seen = BTreeSet::new();
    let mut start = 0usize;
    let mut line_no = 0usize;
    while start < bytes.len() {
        line_no += 1;
        let end = bytes[start..].iter().position(|&b| b == b'\n');
        let (line, next, whole) = match end {
            Some(i) => (&bytes[start..start + i], start + i + 1, true),
            None => (&bytes[start..], bytes.len(), false),
        };
        let is_last = next >= bytes.len();
        let decoded = knoblab_core::input::text::decode(line);
        let text = decoded.as_deref().unwrap_or("");
        if decoded.is_ok() && text.trim().is_empty() {
            if whole {
                out.whole_len = next as u64;
            }
            start = next;
            continue;
        }
        let parsed = decoded.map_err(|e| e.to_string()).and_then(|t| {
            knoblab_core::input::json::from_text::<EpisodeRecord>(t).map_err(|e| e.to_string())
        });
        match (parsed, whole) {
            (Ok(record), true) => {
                if seen.insert(record.item.clone()) {
                    out.records.push(record);
                } else {
                    out.notes.push(format!(
                        "{}:{line_no}: {} is already in the file; the first record is kept",
                        path.display(),
                        record.item
                    ));
                }
                out.whole_len = next as u64;
            }
            _ if is_last => {
                out.notes.push(format!(
                    "{}:{line_no}: the last line is torn ({} bytes{}, written when a run was \
                     stopped); it is dropped and its episode runs again",
                    path.display(),
                    line.len(),
                    if whole { "" } else { " without a line end" }
                ));
            }
            (Ok(_), false) => {
                return Err(EvalError::BadLine {
                    path: path.display().to_string(),
                    line: line_no,
                    message: "no line end".into(),
                })
            }
            (Err(message), _) => {
                return Err(EvalError::BadLine {
                    path: path.display().to_string(),
                    line: line_no,
                    message,
                })
            }
        }
        start = next;
    }
    Ok(out)
}

/// An output file open for appending.
///
/// **Several writers.** Every write holds an exclusive advisory lock on
/// the file (`flock`, which Linux also maps onto NFS byte-range locks)
/// from before it looks at the file's end until after its `fsync`. Under
/// the lock a writer first reads what others appended since it last
/// looked (only those bytes, for their `item`): an item that another
/// process wrote meanwhile is not written again, so the file holds each
/// episode once even when two processes played it (a retried task whose
/// first attempt is still alive); and a tail without its `\n` can only be
/// the line of a writer that died in its write (the lock is released when
/// a process dies), so it is cut off safely before the next line goes on.
/// `O_APPEND` and one `write` per line remain, so a writer that does not
/// lock (an older `knoblab`) still never interleaves on a local disk.
#[derive(Debug)]
pub struct Output {
    file: File,
    path: PathBuf,
    /// Where this writer last looked at the file: the end of its whole lines.
    scanned: u64,
    /// The items of the file up to `scanned`.
    items: BTreeSet<String>,
    /// Torn tails cut while writing, for the caller.
    notes: Vec<String>,
}

/// Just the item of a record line.
#[derive(serde::Deserialize)]
struct ItemOnly {
    item: String,
}

/// Holds the file's lock until dropped.
struct Locked<'f>(&'f File);

impl<'f> Locked<'f> {
    fn new(file: &'f File, path: &Path) -> Result<Locked<'f>, EvalError> {
        file.lock().map_err(|e| io_error(path, "locking", e))?;
        Ok(Locked(file))
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl Output {
    /// Opens (creating) `path` for appending. With `repair`, whatever
    /// others appended since [`read_finished`] is read and a torn last
    /// line is cut off now (under the lock); [`Output::append`] does the
    /// same before each line in any case.
    pub fn open(path: &Path, finished: &Finished, repair: bool) -> Result<Output, EvalError> {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| io_error(path, "opening", e))?;
        let mut output = Output {
            file,
            path: path.to_path_buf(),
            scanned: finished.whole_len,
            items: finished.records.iter().map(|r| r.item.clone()).collect(),
            notes: Vec::new(),
        };
        if repair {
            let file = output
                .file
                .try_clone()
                .map_err(|e| io_error(path, "opening", e))?;
            let _lock = Locked::new(&file, path)?;
            output.catch_up()?;
        }
        Ok(output)
    }

    /// Under the lock: reads the lines appended since `scanned`, and cuts
    /// a torn tail (a dead writer's).
    fn catch_up(&mut self) -> Result<(), EvalError> {
        let len = self
            .file
            .metadata()
            .map_err(|e| io_error(&self.path, "reading the size of", e))?
            .len();
        if len < self.scanned {
            // Cut by someone else's repair: read it all again.
            self.scanned = 0;
            self.items.clear();
        }
        if len == self.scanned {
            return Ok(());
        }
        let mut tail = Vec::new();
        (&self.file)
            .seek(SeekFrom::Start(self.scanned))
            .and_then(|_| (&self.file).read_to_end(&mut tail))
            .map_err(|e| io_error(&self.path, "reading", e))?;
        let mut start = 0usize;
        while let Some(i) = tail[start..].iter().position(|&b| b == b'\n') {
            let line = &tail[start..start + i];
            // Lines other writers of this run appended; one that does not
            // parse is reported by the resume reader (read_finished), not here.
            if let Ok(r) = knoblab_core::input::json::from_bytes::<ItemOnly>(line) {
                self.items.insert(r.item);
            }
            start += i + 1;
        }
        let whole = self.scanned + start as u64;
        if whole < len {
            self.file
                .set_len(whole)
                .map_err(|e| io_error(&self.path, "cutting the torn last line of", e))?;
            self.file
                .sync_all()
                .map_err(|e| io_error(&self.path, "syncing", e))?;
            self.notes.push(format!(
                "{}: a torn last line ({} bytes, a writer stopped in its write) was cut off; \
                 its episode runs again",
                self.path.display(),
                len - whole
            ));
        }
        self.scanned = whole;
        Ok(())
    }

    /// Appends one record as one whole line, synced to disk before this
    /// returns, unless its item is in the file already (another writer
    /// put it there): `false` then, and nothing is written.
    pub fn append(&mut self, record: &EpisodeRecord) -> Result<bool, EvalError> {
        let file = self
            .file
            .try_clone()
            .map_err(|e| io_error(&self.path, "opening", e))?;
        let _lock = Locked::new(&file, &self.path)?;
        self.catch_up()?;
        if self.items.contains(&record.item) {
            return Ok(false);
        }
        self.write_line(record)?;
        self.items.insert(record.item.clone());
        self.scanned = self
            .file
            .metadata()
            .map_err(|e| io_error(&self.path, "reading the size of", e))?
            .len();
        Ok(true)
    }

    /// Appends any value as one whole JSON line, under the lock, synced to
    /// disk before this returns (`knoblab run` writes bare trajectories).
    pub fn append_line(&mut self, value: &impl serde::Serialize) -> Result<(), EvalError> {
        let file = self
            .file
            .try_clone()
            .map_err(|e| io_error(&self.path, "opening", e))?;
        let _lock = Locked::new(&file, &self.path)?;
        self.write_line(value)
    }

    /// What was cut while writing (torn tails of dead writers).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn write_line(&mut self, value: &impl serde::Serialize) -> Result<(), EvalError> {
        let mut line = serde_json::to_string(value).map_err(|e| EvalError::Io {
            path: self.path.display().to_string(),
            message: format!("writing a record: {e}"),
        })?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(|e| io_error(&self.path, "appending to", e))?;
        self.file
            .sync_data()
            .map_err(|e| io_error(&self.path, "syncing", e))
    }
}

/// Reads the run description beside `out`, if there is one.
pub fn read_spec(out: &Path) -> Result<Option<RunSpec>, EvalError> {
    let path = spec_path(out);
    let spec_error = |problem: SpecProblem| EvalError::Spec {
        path: path.display().to_string(),
        problem,
    };
    let Some(bytes) = read_back(&path)? else {
        return Ok(None);
    };
    let text =
        knoblab_core::input::text::decode(&bytes).map_err(|e| spec_error(SpecProblem::Text(e)))?;
    RunSpec::parse(text)
        .map(Some)
        .map_err(|e| spec_error(SpecProblem::Spec(e)))
}

/// Writes the run description beside `out`, whole or not at all (a
/// temporary file renamed over it).
pub fn write_spec(out: &Path, spec: &RunSpec) -> Result<(), EvalError> {
    let path = spec_path(out);
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let text = serde_json::to_string_pretty(spec).map_err(|e| EvalError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let mut file = File::create(&tmp).map_err(|e| io_error(&tmp, "creating", e))?;
    file.write_all(text.as_bytes())
        .and_then(|_| file.write_all(b"\n"))
        .and_then(|_| file.sync_all())
        .map_err(|e| io_error(&tmp, "writing", e))?;
    std::fs::rename(&tmp, &path).map_err(|e| io_error(&path, "renaming into", e))
}
