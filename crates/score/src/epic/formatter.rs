//! The official formatter (`tools/formatting/format_response.py`, §4): raw
//! model records (ms-swift JSONL `{"response", "images"}`, or the lmms-eval
//! merged form of the same shape) → std_format records.

use super::extract::{extract_object, extract_object_both, Dialect, Failure, KeySpec};
use super::intake::LineIntake;
use super::normalize::{feasibility, normalize_boxes, normalize_points};
use super::pyjson;
use super::pyvalue::{py_int, PyValue};
pub use super::task_paths::{derive_gt_path, detect_task, image_paths};
use super::taxonomy::{MANIPULATION, NAVIGATION, TARGET_LOCALIZATION};

/// The failure marker the formatter writes: `["No Valid Response"]`.
pub const NVR: &str = "No Valid Response";
/// The marker for a field the task does not use: `["Not Required"]`.
pub const NOT_REQUIRED: &str = "Not Required";

/// Options of `format_response.py`.
#[derive(Debug, Clone)]
pub struct FormatOptions {
    /// `--format-type`: `None` is `auto` (point for FeasiblePath, else bbox).
    pub format_type: Option<String>,
    /// `--coordinate-system`, written into every record (default `auto`).
    pub coordinate_system: String,
    /// Which parser reads the replies: the official one or the corrected one.
    pub dialect: Dialect,
}

impl Default for FormatOptions {
    fn default() -> Self {
        FormatOptions {
            format_type: None,
            coordinate_system: "auto".into(),
            dialect: Dialect::Official,
        }
    }
}

/// One formatted record and how its reply was read.
#[derive(Debug, Clone)]
pub struct Formatted {
    /// The std_format record, keys in the official order.
    pub record: PyValue,
    /// Why the reply became "No Valid Response", if it did.
    pub failure: Option<Failure>,
    /// The reply text as read.
    pub response: String,
}

/// What formatting a whole file gave.
#[derive(Debug, Clone, Default)]
pub struct FormatOutput {
    /// The formatted records, in file order.
    pub records: Vec<Formatted>,
    /// Lines skipped because they are not JSON objects ("lines that are not
    /// valid JSON are skipped with a warning"), 1-based.
    pub skipped_lines: Vec<usize>,
}

impl FormatOutput {
    /// The std_format JSONL text, exactly as the formatter writes it
    /// (`ensure_ascii=False`, no trailing newline).
    pub fn to_jsonl(&self) -> String {
        self.records
            .iter()
            .map(|f| pyjson::dumps(&f.record))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Formats raw JSONL text.
pub fn format_jsonl(text: &str, opts: &FormatOptions) -> FormatOutput {
    let mut outs = format_jsonl_each(text, std::slice::from_ref(opts));
    outs.pop().unwrap_or_default()
}

/// Formats raw JSONL text once per set of options (the official and the
/// corrected dialect of a run), parsing each line once for all of them:
/// the same outputs as [`format_jsonl`] with each, in the same order.
pub fn format_jsonl_each(text: &str, opts: &[FormatOptions]) -> Vec<FormatOutput> {
    let picked = format_jsonl_picked(text, opts, |_| true);
    picked
        .records
        .into_iter()
        .map(|records| FormatOutput {
            records: records.into_iter().flatten().collect(),
            skipped_lines: picked.skipped_lines.clone(),
        })
        .collect()
}

/// What [`format_jsonl_picked`] gives: per set of options, a slot per
/// record of the file.
#[derive(Debug, Clone, Default)]
pub struct Picked {
    /// Per set of options, each record of the file in order: formatted
    /// when picked, `None` when not.
    pub records: Vec<Vec<Option<Formatted>>>,
    /// The lines skipped because they are not JSON objects, 1-based.
    pub skipped_lines: Vec<usize>,
}

/// [`format_jsonl_each`] for the records `pick` chooses, by their 0-based
/// position among the file's records: every line is parsed (to know which
/// lines are records), only the picked records are formatted. A worker
/// that scores every n-th sample of a run formats only those.
pub fn format_jsonl_picked(
    text: &str,
    opts: &[FormatOptions],
    pick: impl Fn(usize) -> bool,
) -> Picked {
    let mut out = Picked {
        records: opts.iter().map(|_| Vec::new()).collect(),
        skipped_lines: Vec::new(),
    };
    let mut index = 0;
    for (n, line) in text.lines().enumerate() {
        match parse_line(line, pick(index), None) {
            Line::Blank => {}
            Line::Record(v) => {
                let reading = v.as_ref().map(Reading::of);
                for (records, o) in out.records.iter_mut().zip(opts) {
                    records.push(reading.as_ref().map(|r| r.build(r.parse(o.dialect), o)));
                }
                index += 1;
            }
            Line::Skipped => out.skipped_lines.push(n + 1),
        }
    }
    out
}

/// Raw JSONL formatted in both dialects by [`format_jsonl_both`].
#[derive(Debug, Clone, Default)]
pub struct BothDialects {
    /// The official formatter's output.
    pub official: FormatOutput,
    /// For each official record, the corrected dialect's record where it
    /// differs; `None` where the corrected dialect reads the reply the
    /// same way (most replies: no fence, no comma before a bracket).
    pub corrected: Vec<Option<Formatted>>,
}

impl BothDialects {
    /// The corrected dialect's `i`-th record.
    pub fn corrected_record(&self, i: usize) -> Option<&PyValue> {
        match self.corrected.get(i)? {
            Some(f) => Some(&f.record),
            None => self.official.records.get(i).map(|f| &f.record),
        }
    }
}

/// Formats raw JSONL text in the official dialect and in the corrected
/// one (the dialect of `opts` is not read), each line parsed once and each
/// reply read once where the dialects read it alike
/// ([`super::extract::extract_object_both`]): the records of
/// [`format_jsonl_each`] with both dialects, the corrected one kept only
/// where it differs.
pub fn format_jsonl_both(text: &str, opts: &FormatOptions) -> BothDialects {
    let picked = format_jsonl_both_picked(text, opts, |_| true, None);
    BothDialects {
        official: FormatOutput {
            records: picked.official.into_iter().flatten().collect(),
            skipped_lines: picked.skipped_lines,
        },
        corrected: picked.corrected,
    }
}

/// What [`format_jsonl_both_picked`] gives: a slot per record of the file.
#[derive(Debug, Clone, Default)]
pub struct PickedBoth {
    /// Each record in order as the official formatter formats it; `None`
    /// for a record `pick` did not choose.
    pub official: Vec<Option<Formatted>>,
    /// Each record in the corrected dialect where it differs from the
    /// official one; `None` where it reads alike or was not chosen.
    pub corrected: Vec<Option<Formatted>>,
    /// The lines skipped because they are not JSON objects, 1-based.
    pub skipped_lines: Vec<usize>,
}

impl PickedBoth {
    /// The corrected dialect's `i`-th record, when chosen: its own where it
    /// differs, else the official one (the same value, so a caller may
    /// tell the two apart by address).
    pub fn corrected_record(&self, i: usize) -> Option<&PyValue> {
        match self.corrected.get(i)? {
            Some(f) => Some(&f.record),
            None => self.official.get(i)?.as_ref().map(|f| &f.record),
        }
    }
}

/// [`format_jsonl_both`] for the records `pick` chooses, by their 0-based
/// position among the file's records: every line is parsed (to know which
/// lines are records), only the chosen records are formatted. A worker
/// that scores every n-th sample of a run formats only those. `intake`,
/// when given, is told every line that is not blank, as it is read (the
/// file's [`super::intake::intake`] in the same reading).
pub fn format_jsonl_both_picked(
    text: &str,
    opts: &FormatOptions,
    pick: impl Fn(usize) -> bool,
    mut intake: Option<&mut LineIntake>,
) -> PickedBoth {
    let official_opts = FormatOptions {
        dialect: Dialect::Official,
        ..opts.clone()
    };
    let corrected_opts = FormatOptions {
        dialect: Dialect::Corrected,
        ..opts.clone()
    };
    let mut out = PickedBoth::default();
    let mut index = 0;
    for (n, line) in text.lines().enumerate() {
        match parse_line(line, pick(index), intake.as_deref_mut().map(|i| (i, n + 1))) {
            Line::Blank => {}
            Line::Record(v) => {
                if let Some(v) = v {
                    let reading = Reading::of(&v);
                    let (official, corrected) = reading.parse_both();
                    let corrected = corrected.map(|c| reading.build(c, &corrected_opts));
                    out.official
                        .push(Some(reading.build(official, &official_opts)));
                    out.corrected.push(corrected);
                } else {
                    out.official.push(None);
                    out.corrected.push(None);
                }
                index += 1;
            }
            Line::Skipped => out.skipped_lines.push(n + 1),
        }
    }
    out
}

/// One line of raw JSONL.
enum Line {
    /// Only whitespace.
    Blank,
    /// A JSON object: its value when it was wanted, else `None` (only
    /// checked to be one).
    Record(Option<PyValue>),
    /// Not a JSON object: "skipped with a warning".
    Skipped,
}

/// Reads a line as `json.loads` does, and tells `intake` of it (with its
/// 1-based number) when there is one. A line whose record is not `wanted`
/// (another worker's sample) is only checked, by the same grammar
/// ([`pyjson::Reader::skip_value`]), building nothing but what the intake
/// reads of it: a worker of two then builds half the file's values
/// instead of all of them.
fn parse_line(line: &str, wanted: bool, intake: Option<(&mut LineIntake, usize)>) -> Line {
    if line.trim().is_empty() {
        return Line::Blank;
    }
    if wanted {
        let read = pyjson::loads(line);
        if let Some((intake, n)) = intake {
            intake.parsed(n, line, &read);
        }
        return match read {
            Ok(v @ PyValue::Dict(_)) => Line::Record(Some(v)),
            _ => Line::Skipped,
        };
    }
    let object = match intake {
        Some((intake, n)) => intake.read(n, line),
        None => {
            let mut r = pyjson::Reader::new(line);
            r.ws();
            r.peek() == Some(b'{') && r.skip_value().is_ok() && r.finish().is_ok()
        }
    };
    if object {
        Line::Record(None)
    } else {
        Line::Skipped
    }
}

/// The task family that picks the extractor and the required fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Tl,
    GroundOrAffordance,
    Path,
    Counted,
    Placement,
}

fn family(cat: Option<&str>, ty: Option<&str>) -> Option<Family> {
    let base = ty.map(|t| {
        t.trim_end_matches("_Ego")
            .trim_end_matches("_Exo")
            .trim_end_matches("_TypeOne")
            .trim_end_matches("_TypeTwo")
            .trim_end_matches("_TypeThree")
    });
    match (cat?, base) {
        (TARGET_LOCALIZATION, _) => Some(Family::Tl),
        (NAVIGATION, Some("GroundDetection")) | (MANIPULATION, Some("AffordanceRegion")) => {
            Some(Family::GroundOrAffordance)
        }
        (NAVIGATION, Some("FeasiblePath")) => Some(Family::Path),
        (NAVIGATION, Some("VisualMatching")) | (MANIPULATION, Some("ContactRelationship")) => {
            Some(Family::Counted)
        }
        (MANIPULATION, Some("PlacementRegion")) => Some(Family::Placement),
        _ => None,
    }
}

fn keys(f: Family) -> KeySpec {
    match f {
        Family::Tl => KeySpec {
            must_have: &["number_of_objects", "bounding_boxes"],
            any_of: &["number_of_objects"],
            list_key: "bounding_boxes",
        },
        Family::GroundOrAffordance => KeySpec {
            must_have: &[],
            any_of: &["bounding_boxes"],
            list_key: "bounding_boxes",
        },
        Family::Path => KeySpec {
            must_have: &[],
            any_of: &["points"],
            list_key: "points",
        },
        Family::Counted => KeySpec {
            must_have: &["number_of_instances", "bounding_boxes"],
            any_of: &["number_of_instances", "bounding_boxes"],
            list_key: "bounding_boxes",
        },
        Family::Placement => KeySpec {
            must_have: &["bounding_boxes", "placement_feasibility"],
            any_of: &["placement_feasibility"],
            list_key: "bounding_boxes",
        },
    }
}

fn present<'a>(obj: &'a [(String, PyValue)], key: &str) -> Option<&'a PyValue> {
    obj.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
        .filter(|v| !v.is_none())
}

/// The four std fields of a task, from its parsed object (§4.3 step 5, §4.4).
struct Fields {
    localization: Option<PyValue>,
    count: Option<PyValue>,
    path: Option<PyValue>,
    binary: Option<PyValue>,
}

fn task_fields(f: Family, obj: &[(String, PyValue)]) -> Option<Fields> {
    let list = |v: Vec<PyValue>| Some(PyValue::List(v));
    let count = |v: &PyValue| py_int(v).ok().map(|n| PyValue::List(vec![PyValue::Int(n)]));
    match f {
        Family::Tl => {
            let n = count(present(obj, "number_of_objects")?)?;
            let boxes = present(obj, "bounding_boxes")
                .map(normalize_boxes)
                .unwrap_or_default();
            Some(Fields {
                localization: list(boxes),
                count: Some(n),
                path: None,
                binary: None,
            })
        }
        Family::GroundOrAffordance => Some(Fields {
            localization: list(normalize_boxes(present(obj, "bounding_boxes")?)),
            count: None,
            path: None,
            binary: None,
        }),
        Family::Path => {
            let pts = normalize_points(present(obj, "points")?);
            if pts.len() < 3 {
                return None;
            }
            Some(Fields {
                localization: None,
                count: None,
                path: list(pts),
                binary: None,
            })
        }
        Family::Counted => {
            let n = present(obj, "number_of_instances");
            let b = present(obj, "bounding_boxes");
            if n.is_none() && b.is_none() {
                return None;
            }
            let n = match n {
                Some(v) => Some(count(v)?),
                None => None,
            };
            Some(Fields {
                localization: list(b.map(normalize_boxes).unwrap_or_default()),
                count: n,
                path: None,
                binary: None,
            })
        }
        Family::Placement => {
            let b = present(obj, "bounding_boxes")?;
            let p = present(obj, "placement_feasibility")?;
            Some(Fields {
                localization: list(normalize_boxes(b)),
                count: None,
                path: None,
                binary: Some(PyValue::List(vec![PyValue::Bool(feasibility(p))])),
            })
        }
    }
}

fn marker(s: &str) -> PyValue {
    PyValue::List(vec![PyValue::Str(s.into())])
}

/// Formats one raw record.
pub fn format_record(record: &PyValue, opts: &FormatOptions) -> Formatted {
    let reading = Reading::of(record);
    let parsed = reading.parse(opts.dialect);
    reading.build(parsed, opts)
}

/// What a reply gave: the task's fields, or why it gave none; `None` when
/// the task is not known (no field is required then).
type Parsed = Option<Result<Fields, Failure>>;

/// The parts of a raw record that do not depend on the dialect: the
/// reply, the image paths, the task and the GT path.
struct Reading<'r> {
    /// The reply text (`""` when absent or null); `None` when it is not a
    /// string.
    response: Option<&'r str>,
    images: Vec<String>,
    cat: Option<&'static str>,
    ty: Option<String>,
    fam: Option<Family>,
    gt: Option<String>,
}

impl<'r> Reading<'r> {
    fn of(record: &'r PyValue) -> Reading<'r> {
        let response = match record.get("response") {
            Some(PyValue::Str(s)) => Some(s.as_str()),
            None | Some(PyValue::None) => Some(""),
            _ => None,
        };
        let images = image_paths(record);
        let (cat, ty) = detect_task(&images);
        let fam = family(cat, ty.as_deref());
        let gt = derive_gt_path(&images, ty.as_deref());
        Reading {
            response,
            images,
            cat,
            ty,
            fam,
            gt,
        }
    }

    /// The reply's fields in one dialect.
    fn parse(&self, dialect: Dialect) -> Parsed {
        let f = self.fam?;
        Some(match self.response {
            Some(text) => extract_object(text, &keys(f), dialect)
                .and_then(|obj| task_fields(f, &obj).ok_or(Failure::KeysMissing)),
            None => Err(Failure::Empty),
        })
    }

    /// The reply's fields in the official dialect, and in the corrected
    /// one where it may read differently (`None`: the same).
    fn parse_both(&self) -> (Parsed, Option<Parsed>) {
        let Some(f) = self.fam else {
            return (None, None);
        };
        let Some(text) = self.response else {
            return (Some(Err(Failure::Empty)), None);
        };
        let fields = |obj: Result<Vec<(String, PyValue)>, Failure>| {
            obj.and_then(|obj| task_fields(f, &obj).ok_or(Failure::KeysMissing))
        };
        let (official, corrected) = extract_object_both(text, &keys(f));
        (Some(fields(official)), corrected.map(|c| Some(fields(c))))
    }

    /// The std_format record, keys in the official order.
    fn build(&self, parsed: Parsed, opts: &FormatOptions) -> Formatted {
        let fam = self.fam;
        let (fields, failure) = match parsed {
            Some(Ok(fields)) => (Some(fields), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        let required = |which: usize| -> bool {
            matches!(
                (fam, which),
                (Some(Family::Tl | Family::Counted), 0 | 1)
                    | (Some(Family::GroundOrAffordance), 0)
                    | (Some(Family::Path), 2)
                    | (Some(Family::Placement), 0 | 3)
            )
        };
        let field = |which: usize, value: Option<Option<PyValue>>| -> PyValue {
            if !required(which) {
                return marker(NOT_REQUIRED);
            }
            match value {
                Some(Some(v)) => v,
                _ => marker(NVR),
            }
        };
        let (loc, count, path, binary) = match fields {
            Some(f) => (
                Some(f.localization),
                Some(f.count),
                Some(f.path),
                Some(f.binary),
            ),
            None => (None, None, None, None),
        };
        let is_path = self.cat == Some(NAVIGATION)
            && self
                .ty
                .as_deref()
                .is_some_and(|t| t.starts_with("FeasiblePath"));
        let format_type =
            opts.format_type
                .as_deref()
                .unwrap_or(if is_path { "point" } else { "bbox" });
        let str_list = |v: Option<&str>| {
            PyValue::List(v.map(|s| PyValue::Str(s.into())).into_iter().collect())
        };
        let rec = PyValue::Dict(vec![
            ("task_category".into(), str_list(self.cat)),
            ("task_type".into(), str_list(self.ty.as_deref())),
            ("format_type".into(), str_list(Some(format_type))),
            (
                "coordinate_system".into(),
                str_list(Some(&opts.coordinate_system)),
            ),
            ("formatted_response_localization".into(), field(0, loc)),
            ("formatted_response_count".into(), field(1, count)),
            ("formatted_response_path".into(), field(2, path)),
            ("formatted_response_binary".into(), field(3, binary)),
            (
                "images".into(),
                PyValue::List(
                    self.images
                        .iter()
                        .map(|s| PyValue::Str(s.clone()))
                        .collect(),
                ),
            ),
            (
                "ground_truth".into(),
                PyValue::Dict(vec![("gt_json_path".into(), str_list(self.gt.as_deref()))]),
            ),
        ]);
        Formatted {
            record: rec,
            failure,
            response: self.response.unwrap_or_default().to_string(),
        }
    }
}

#[cfg(test)]
mod tests;
