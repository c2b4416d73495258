//! Ground truth: where a record's GT file is found, and how its fields are
//! read (§3.1–§3.3).
//!
//! The core never touches the file system: a [`GroundTruthSource`] hands out
//! bytes by relative path, so the page can serve dropped files from memory
//! and the CLI can read a folder ([`DirSource`], native only).

use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use super::pyjson;
use super::pyvalue::{py_float_from_str, py_int, py_strip, PyError, PyValue};
use super::rle::{decode_union, decode_union_text, DecodedUnion};

mod source;
#[cfg(not(target_arch = "wasm32"))]
pub use source::DirSource;
pub use source::{gt_text, GroundTruthSource, MapSource};

/// The key a GT file held in memory is found under ([`MapSource`], the
/// page's dropped files and zips): its path from `EPIC_Bench/` on when it
/// has that folder, else the path as given with `/`.
pub fn held_key(path: &str) -> String {
    match plain_epic_suffix(path) {
        Some(suffix) => suffix.to_string(),
        None => epic_suffix(path).unwrap_or_else(|| path.replace('\\', "/")),
    }
}

/// The part of a path from its `EPIC_Bench` component on, with `/`.
pub fn epic_suffix(path: &str) -> Option<String> {
    let parts = super::taxonomy::components(path);
    let i = parts.iter().position(|c| *c == "EPIC_Bench")?;
    Some(parts[i..].join("/"))
}

/// [`epic_suffix`] without building it, when the path's part from its
/// `EPIC_Bench` component on is already written with single `/`
/// separators (a generated path always is).
fn plain_epic_suffix(path: &str) -> Option<&str> {
    let start = path
        .match_indices("EPIC_Bench")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || matches!(path.as_bytes()[i - 1], b'/' | b'\\'))?;
    let suffix = &path[start..];
    // The first text `EPIC_Bench` after a separator: when it is a whole
    // component, it is the first such component, the one `epic_suffix`
    // takes; otherwise the long way decides.
    let plain = suffix.split('/').next() == Some("EPIC_Bench")
        && suffix
            .split('/')
            .all(|c| !c.is_empty() && !c.contains('\\'));
    plain.then_some(suffix)
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

/// A GT JSON file as the scorer reads it: the file's text, checked once
/// as a whole (`json.loads` semantics: a file that is not one JSON object
/// is no file), and the members of its `text_annotation` and
/// `mask_annotation` objects as spans of that text. A member's value is
/// parsed when first read, and a `masklet_*` list of RLE instances is
/// decoded straight from the text into runs
/// ([`super::rle::decode_union_text`]), once for both passes: no value
/// tree of the file, no copy of its counts strings.
#[derive(Debug, Clone)]
pub struct GtFile {
    text: String,
    /// `text_annotation`'s members, when it is an object.
    text_annotation: Option<Vec<Member>>,
    /// `mask_annotation`'s members, when it is an object.
    mask_annotation: Option<Vec<Member>>,
    /// The whole file as a value, for a reader that wants all of it.
    root: OnceCell<PyValue>,
}

/// One member of a GT file's annotation object: where its value is in
/// the file's text, and the value (and mask) read from it.
#[derive(Debug, Clone)]
pub struct Member {
    key: MemberKey,
    /// The span of its value in the file's text.
    value: Range<usize>,
    parsed: OnceCell<PyValue>,
    decoded: OnceCell<Rc<DecodedUnion>>,
}

/// A member's key: the span of its text, or the text an escape made.
#[derive(Debug, Clone)]
enum MemberKey {
    Plain(Range<usize>),
    Escaped(String),
}

impl GtFile {
    /// Reads a GT file's text; `None` when it is not one JSON object (the
    /// official code then treats the GT as empty, §14 item 2).
    pub fn parse(text: String) -> Option<GtFile> {
        let (text_annotation, mask_annotation) = read_annotations(&text).ok()??;
        Some(GtFile {
            text,
            text_annotation,
            mask_annotation,
            root: OnceCell::new(),
        })
    }

    /// The file's top-level value (parsed on first use).
    pub fn root(&self) -> &PyValue {
        self.root
            .get_or_init(|| pyjson::loads(&self.text).unwrap_or(PyValue::None))
    }

    /// The member `key` of the annotation object `section`.
    fn member(&self, section: Section, key: &str) -> Option<&Member> {
        let members = match section {
            Section::Text => self.text_annotation.as_ref(),
            Section::Mask => self.mask_annotation.as_ref(),
        }?;
        members.iter().find(|m| m.key(&self.text) == key)
    }
}

impl Member {
    fn key<'t>(&'t self, text: &'t str) -> &'t str {
        match &self.key {
            MemberKey::Plain(span) => &text[span.clone()],
            MemberKey::Escaped(k) => k,
        }
    }
}

#[derive(Clone, Copy)]
enum Section {
    Text,
    Mask,
}

/// The members of the two annotation objects of a GT file's text; `None`
/// when the text is JSON but not an object, an error when it is not JSON.
/// The whole text is checked as `json.loads` reads it (by the same
/// grammar, [`pyjson::Reader`]); a repeated key keeps its last value, as in
/// a Python dict.
#[allow(clippy::type_complexity)] // the two sections, each maybe an object
fn read_annotations(
    text: &str,
) -> Result<Option<(Option<Vec<Member>>, Option<Vec<Member>>)>, pyjson::JsonError> {
    let mut r = pyjson::Reader::new(text);
    r.ws();
    if r.peek() != Some(b'{') {
        // Not an object: not a GT file, whether it is JSON or not.
        return Ok(None);
    }
    let (mut text_annotation, mut mask_annotation) = (None, None);
    let mut top = r.begin_object()?;
    while let Some(key) = r.next_member(&mut top)? {
        let slot = match &*r.key_text(&key) {
            "text_annotation" => Some(&mut text_annotation),
            "mask_annotation" => Some(&mut mask_annotation),
            _ => None,
        };
        match slot {
            Some(slot) if r.peek() == Some(b'{') => *slot = Some(read_members(&mut r)?),
            Some(slot) => {
                r.skip_value()?;
                *slot = None;
            }
            None => {
                r.skip_value()?;
            }
        }
    }
    r.finish()?;
    Ok(Some((text_annotation, mask_annotation)))
}

/// The members of the object at the reader's cursor, each value checked
/// and kept as its span.
fn read_members(r: &mut pyjson::Reader) -> Result<Vec<Member>, pyjson::JsonError> {
    let mut members: Vec<Member> = Vec::new();
    let mut walk = r.begin_object()?;
    while let Some(key) = r.next_member(&mut walk)? {
        let value = r.skip_value()?;
        let key = if key.escaped {
            MemberKey::Escaped(r.key_text(&key).into_owned())
        } else {
            MemberKey::Plain(key.span)
        };
        let member = Member {
            key,
            value,
            parsed: OnceCell::new(),
            decoded: OnceCell::new(),
        };
        // Keys are compared as text: a Python dict keeps the last value.
        let text = r.text();
        match members.iter_mut().find(|m| m.key(text) == member.key(text)) {
            Some(old) => *old = member,
            None => members.push(member),
        }
    }
    Ok(members)
}

/// How many parsed GT files [`GtCache`] keeps. The official code keeps an
/// LRU cache too; here it only has to span the two passes over one sample
/// (official and corrected are scored sample by sample), so a small window
/// keeps a run's memory bounded by its largest files, not by its size.
/// A file keeps the masks decoded from it, so each GT mask is decoded once
/// for both passes.
const KEEP_FILES: usize = 64;

/// GT files loaded once per sample for both passes, like the official LRU
/// cache, with the masks decoded from them.
pub struct GtCache<'a> {
    source: &'a dyn GroundTruthSource,
    files: HashMap<String, Option<Rc<GtFile>>>,
}

impl<'a> GtCache<'a> {
    /// An empty cache reading from `source`.
    pub fn new(source: &'a dyn GroundTruthSource) -> Self {
        GtCache {
            source,
            files: HashMap::new(),
        }
    }

    /// The GT file of a record path; `None` if missing or unreadable (the
    /// official code then treats the GT as empty, §14 item 2).
    pub fn load(&mut self, gt_path: &str) -> Option<Rc<GtFile>> {
        if let Some(hit) = self.files.get(gt_path) {
            return hit.clone();
        }
        let read = |k: &str| {
            let bytes = self.source.read(k)?;
            match gt_text(bytes) {
                Ok(text) => GtFile::parse(text).map(Rc::new),
                Err(why) => {
                    self.source.refuse(k, why.to_string());
                    None
                }
            }
        };
        // The keys of `candidate_keys`, borrowed from the path when it is
        // already written with single `/`.
        let loaded = match plain_epic_suffix(gt_path) {
            Some(suffix) => {
                read(suffix).or_else(|| (suffix != gt_path).then(|| read(gt_path)).flatten())
            }
            None => candidate_keys(gt_path).iter().find_map(|k| read(k)),
        };
        if self.files.len() >= KEEP_FILES {
            self.files.clear();
        }
        self.files.insert(gt_path.to_string(), loaded.clone());
        loaded
    }
}

/// A GT field as [`lookup`] finds it: in the GT file, or in the record's
/// own `ground_truth`.
#[derive(Clone, Copy)]
pub enum Found<'v> {
    /// A member of the file's annotations.
    File(&'v GtFile, &'v Member),
    /// A value of the record's `ground_truth`.
    Record(&'v PyValue),
}

impl<'v> Found<'v> {
    /// The field's value (a file's member is parsed on first use).
    pub fn value(self) -> &'v PyValue {
        match self {
            Found::File(file, m) => m.parsed.get_or_init(|| {
                // The span was checked with the whole file, so it parses.
                pyjson::loads(&file.text[m.value.clone()]).unwrap_or(PyValue::None)
            }),
            Found::Record(v) => v,
        }
    }

    /// Whether the value is `null` (Python's `None`).
    pub fn is_null(self) -> bool {
        match self {
            // A checked value that starts with `n` is `null`.
            Found::File(file, m) => file.text.as_bytes()[m.value.start] == b'n',
            Found::Record(v) => v.is_none(),
        }
    }
}

/// A GT mask field, as the localization and path scorers read it.
pub trait MaskField {
    /// Whether the field is "empty": `null`, `[]` or `{}`
    /// ([`mask_field_empty`]).
    fn is_empty_field(&self) -> bool;

    /// The union of its instances ([`decode_union`]).
    fn decode(&self) -> Rc<DecodedUnion>;
}

/// A value (a record's own field, a test's): decoded each time it is asked.
impl MaskField for PyValue {
    fn is_empty_field(&self) -> bool {
        mask_field_empty(Some(self))
    }

    fn decode(&self) -> Rc<DecodedUnion> {
        Rc::new(decode_union(self))
    }
}

/// A field of the GT file is decoded once, from the file's text, and kept
/// with the file for both passes; a field of the record is decoded each
/// time (the passes may not share it).
impl MaskField for Found<'_> {
    fn is_empty_field(&self) -> bool {
        match *self {
            Found::File(file, m) => {
                let b = &file.text.as_bytes()[m.value.clone()];
                let inner = |open: u8, close: u8| {
                    b.first() == Some(&open)
                        && b[1..]
                            .iter()
                            .find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
                            == Some(&close)
                };
                self.is_null() || inner(b'[', b']') || inner(b'{', b'}')
            }
            Found::Record(v) => v.is_empty_field(),
        }
    }

    fn decode(&self) -> Rc<DecodedUnion> {
        match *self {
            Found::File(file, m) => m
                .decoded
                .get_or_init(|| {
                    Rc::new(
                        decode_union_text(&file.text[m.value.clone()])
                            .unwrap_or_else(|| decode_union(self.value())),
                    )
                })
                .clone(),
            Found::Record(v) => v.decode(),
        }
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
) -> Option<Found<'v>> {
    let mut found: Option<Found<'v>> = None;
    if let Some(g) = gt {
        let has = |section: Section, k: &str| g.member(section, k).map(|m| Found::File(g, m));
        found = has(Section::Text, field).or_else(|| has(Section::Mask, field));
        if found.is_none() && field == "placement_feasibility" {
            found = has(Section::Text, "placement_feasible");
        }
    }
    if found.is_none_or(Found::is_null) {
        if let Some(v) = inline.and_then(|i| i.get(field)).filter(|v| !v.is_none()) {
            return Some(Found::Record(v));
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
mod tests;
