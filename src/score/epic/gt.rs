//! Ground truth: where a record's GT file is found, and how its fields are
//! read (§3.1–§3.3).
//!
//! The core never touches the file system: a [`GroundTruthSource`] hands out
//! bytes by relative path, so the page can serve dropped files from memory
//! and the CLI can read a folder ([`DirSource`], native only).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::pyjson;
use super::pyvalue::{py_float_from_str, py_int, py_strip, PyError, PyValue};
use super::rle::{decode_union, DecodedUnion};

/// Hands out GT files by path.
pub trait GroundTruthSource {
    /// The bytes of the file at `path` (relative to the GT root, or as
    /// written in the record), or `None` when there is no such file.
    fn read(&self, path: &str) -> Option<Vec<u8>>;
}

/// GT files held in memory, keyed by their path from `EPIC_Bench/` on (or
/// any path; both the `EPIC_Bench/` suffix and the path as written are
/// tried).
#[derive(Debug, Default, Clone)]
pub struct MapSource {
    files: HashMap<String, Vec<u8>>,
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
}

/// GT files under a folder on disk (native only), read through the input
/// layer: a record's path is resolved under the root (an absolute path or
/// one that climbs out with `..` reads as absent, never outside the root),
/// only regular files are opened (a FIFO or `/dev/zero` is never read), and
/// each distinct file (by device and inode, whatever its spelling) is read
/// at most once, within [`crate::score::limits::MAX_RESULTS_FILE_BYTES`].
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug)]
pub struct DirSource {
    /// The folder the record paths are resolved under (the one holding `EPIC_Bench/`).
    pub root: std::path::PathBuf,
    files: std::cell::RefCell<crate::input::fs::OnceReader>,
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
            files: std::cell::RefCell::new(crate::input::fs::OnceReader::new(
                &root,
                crate::score::limits::MAX_RESULTS_FILE_BYTES,
            )),
            root,
            refused: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// How many distinct files were read.
    pub fn files_read(&self) -> usize {
        self.files.borrow().files_read()
    }

    /// Why each refused path was refused (outside the root, not a regular
    /// file, too large), once per message, for the report.
    pub fn refused(&self) -> Vec<String> {
        self.refused.borrow().clone()
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl GroundTruthSource for DirSource {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        match self.files.borrow_mut().read(path) {
            Ok(found) => found.map(|bytes| bytes.to_vec()),
            Err(e) => {
                let message = e.to_string();
                let mut refused = self.refused.borrow_mut();
                if refused.len() < 100 && !refused.contains(&message) {
                    refused.push(message);
                }
                None
            }
        }
    }
}

/// The key a GT file held in memory is found under ([`MapSource`], the
/// page's dropped files and zips): its path from `EPIC_Bench/` on when it
/// has that folder, else the path as given with `/`.
pub fn held_key(path: &str) -> String {
    epic_suffix(path).unwrap_or_else(|| path.replace('\\', "/"))
}

/// The part of a path from its `EPIC_Bench` component on, with `/`.
pub fn epic_suffix(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
    let i = parts.iter().position(|c| *c == "EPIC_Bench")?;
    Some(parts[i..].join("/"))
}

/// The candidate keys for a record's GT path: "resolved by their part from
/// `EPIC_Bench/` on, under the root the user gave, falling back to the path
/// as written" (`epic.md`, Inputs).
pub fn candidate_keys(gt_path: &str) -> Vec<String> {
    let mut keys = Vec::new();
    if let Some(s) = epic_suffix(gt_path) {
        keys.push(s);
    }
    if !keys.iter().any(|k| k == gt_path) {
        keys.push(gt_path.to_string());
    }
    keys
}

/// A parsed GT JSON file.
#[derive(Debug, Clone)]
pub struct GtFile {
    /// The file's top-level JSON value.
    pub root: PyValue,
}

/// How many parsed GT files [`GtCache`] keeps. The official code keeps an
/// LRU cache too; here it only has to span the two passes over one sample
/// (official and corrected are scored sample by sample), so a small window
/// keeps a run's memory bounded by its largest files, not by its size.
const KEEP_FILES: usize = 64;

/// How many decoded masks [`GtCache`] keeps (a sample has at most two).
const KEEP_MASKS: usize = 8;

/// GT files loaded once per sample for both passes, like the official LRU
/// cache, and their decoded masks, so each GT mask is decoded once.
pub struct GtCache<'a> {
    source: &'a dyn GroundTruthSource,
    files: HashMap<String, Option<Rc<GtFile>>>,
    /// `(gt path, field, union)`, newest last.
    masks: RefCell<Vec<(String, &'static str, Rc<DecodedUnion>)>>,
}

impl<'a> GtCache<'a> {
    /// An empty cache reading from `source`.
    pub fn new(source: &'a dyn GroundTruthSource) -> Self {
        GtCache {
            source,
            files: HashMap::new(),
            masks: RefCell::new(Vec::new()),
        }
    }

    /// The GT file of a record path; `None` if missing or unreadable (the
    /// official code then treats the GT as empty, §14 item 2).
    pub fn load(&mut self, gt_path: &str) -> Option<Rc<GtFile>> {
        if let Some(hit) = self.files.get(gt_path) {
            return hit.clone();
        }
        let loaded = candidate_keys(gt_path).iter().find_map(|k| {
            let bytes = self.source.read(k)?;
            let text = crate::input::text::decode(&bytes).ok()?;
            match pyjson::loads(text) {
                Ok(root @ PyValue::Dict(_)) => Some(Rc::new(GtFile { root })),
                _ => None,
            }
        });
        if self.files.len() >= KEEP_FILES {
            self.files.clear();
        }
        self.files.insert(gt_path.to_string(), loaded.clone());
        loaded
    }

    /// The union of the instances of `value`, the GT field `field` as
    /// [`lookup`] found it for the file at `gt_path`. A value read from the
    /// file itself is decoded once and shared by both passes; a value from
    /// the record's own `ground_truth` (which the passes may not share) is
    /// decoded each time.
    pub fn mask(
        &self,
        gt_path: Option<&str>,
        file: Option<&GtFile>,
        field: &'static str,
        value: &PyValue,
    ) -> Rc<DecodedUnion> {
        let from_file = file
            .and_then(|f| lookup(Some(f), None, field))
            .is_some_and(|v| std::ptr::eq(v, value));
        let Some(path) = gt_path.filter(|_| from_file) else {
            return Rc::new(decode_union(value));
        };
        let mut masks = self.masks.borrow_mut();
        if let Some((_, _, hit)) = masks.iter().find(|(p, f, _)| *f == field && p == path) {
            return hit.clone();
        }
        let decoded = Rc::new(decode_union(value));
        if masks.len() >= KEEP_MASKS {
            masks.remove(0);
        }
        masks.push((path.to_string(), field, decoded.clone()));
        decoded
    }
}

/// Finds a GT field (§3.3 "Field lookup order"): `text_annotation` if it has
/// the key (even `null`), else `mask_annotation`, else for
/// `placement_feasibility` the key `placement_feasible`; then, if the value
/// is `null` or the file is missing, the record's own `ground_truth`.
pub fn lookup<'v>(
    gt: Option<&'v GtFile>,
    inline: Option<&'v PyValue>,
    field: &str,
) -> Option<&'v PyValue> {
    let mut found: Option<&PyValue> = None;
    if let Some(g) = gt {
        let text = g.root.get("text_annotation");
        let mask = g.root.get("mask_annotation");
        let has = |d: Option<&'v PyValue>, k: &str| -> Option<&'v PyValue> {
            match d {
                Some(PyValue::Dict(items)) => items.iter().find(|(kk, _)| kk == k).map(|(_, v)| v),
                _ => None,
            }
        };
        found = has(text, field).or_else(|| has(mask, field));
        if found.is_none() && field == "placement_feasibility" {
            found = has(text, "placement_feasible");
        }
    }
    if found.is_none_or(PyValue::is_none) {
        if let Some(v) = inline.and_then(|i| i.get(field)).filter(|v| !v.is_none()) {
            return Some(v);
        }
    }
    found
}

/// "Any scalar GT value may also appear as a one-element list. The code
/// takes the first element."
fn scalar(v: Option<&PyValue>) -> Option<&PyValue> {
    match v? {
        PyValue::List(items) => items.first(),
        other => Some(other),
    }
}

/// A GT count: bool → 0/1, number → `int()`, string → digits or
/// `int(float(s))`, else `None`. An infinite count raises, like Python.
pub fn parse_count(v: Option<&PyValue>) -> Result<Option<i128>, PyError> {
    match scalar(v) {
        Some(PyValue::Bool(b)) => Ok(Some(i128::from(*b))),
        Some(n @ (PyValue::Int(_) | PyValue::Float(_))) => match py_int(n) {
            Ok(i) => Ok(Some(i)),
            Err(e @ PyError::Overflow(_)) => Err(e),
            Err(_) => Ok(None),
        },
        Some(PyValue::Str(s)) => {
            let t = py_strip(s);
            if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
                return Ok(t.parse().ok());
            }
            match py_float_from_str(s) {
                Ok(f) => match super::pyvalue::float_to_int(f) {
                    Ok(i) => Ok(Some(i)),
                    Err(e @ PyError::Overflow(_)) => Err(e),
                    Err(_) => Ok(None),
                },
                Err(_) => Ok(None),
            }
        }
        _ => Ok(None),
    }
}

/// A flag (`precise_count`, `count_in_description`): the first field that
/// is present, non-null and parses; bool, number ≠ 0, or a string in
/// {"true","yes","1"}; default `False`.
pub fn parse_flag(values: &[Option<&PyValue>]) -> bool {
    for v in values {
        match scalar(*v) {
            Some(PyValue::Bool(b)) => return *b,
            Some(PyValue::Int(i)) => return *i != 0,
            Some(PyValue::Float(f)) => return *f != 0.0,
            Some(PyValue::Str(s)) => {
                return matches!(py_strip(s).to_lowercase().as_str(), "true" | "yes" | "1")
            }
            _ => {}
        }
    }
    false
}

/// Placement feasibility: bool, number ≠ 0, "true"/"yes"/"1" or
/// "false"/"no"/"0"; any other string tries the next field; else `None`.
pub fn parse_feasibility(values: &[Option<&PyValue>]) -> Option<bool> {
    for v in values {
        match scalar(*v) {
            Some(PyValue::Bool(b)) => return Some(*b),
            Some(PyValue::Int(i)) => return Some(*i != 0),
            Some(PyValue::Float(f)) => return Some(*f != 0.0),
            Some(PyValue::Str(s)) => match py_strip(s).to_lowercase().as_str() {
                "true" | "yes" | "1" => return Some(true),
                "false" | "no" | "0" => return Some(false),
                _ => {}
            },
            _ => {}
        }
    }
    None
}

/// Whether a mask field is "empty": missing, null, `[]` or `{}`.
pub fn mask_field_empty(v: Option<&PyValue>) -> bool {
    match v {
        None | Some(PyValue::None) => true,
        Some(PyValue::List(items)) => items.is_empty(),
        Some(PyValue::Dict(items)) => items.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_epic_bench_on() {
        assert_eq!(
            candidate_keys("/home/x/dataset/annotation/EPIC_Bench/Navigation/a.json"),
            vec![
                "EPIC_Bench/Navigation/a.json".to_string(),
                "/home/x/dataset/annotation/EPIC_Bench/Navigation/a.json".to_string()
            ]
        );
        assert_eq!(candidate_keys("a.json"), vec!["a.json".to_string()]);
    }

    #[test]
    fn counts_and_flags() {
        let s = |t: &str| PyValue::Str(t.into());
        assert_eq!(parse_count(Some(&s("3"))), Ok(Some(3)));
        assert_eq!(parse_count(Some(&s("2.7"))), Ok(Some(2)));
        assert_eq!(parse_count(Some(&s("x"))), Ok(None));
        assert!(parse_count(Some(&s("inf"))).is_err());
        assert!(parse_flag(&[Some(&s(" True "))]));
        assert!(!parse_flag(&[None, Some(&PyValue::None)]));
        assert_eq!(
            parse_feasibility(&[Some(&s("maybe")), Some(&PyValue::Bool(false))]),
            Some(false)
        );
    }
}
