//! What the EPIC readers leave out or count twice, reported line by line
//! (issue #23: nothing dropped silently).
//!
//! The official reader skips a line that is not a JSON object without a
//! word, and scores every record, copies included; the scores here do the
//! same (parity), and this module says which lines were skipped and which
//! records repeat a sample already given, so that the CLI prints them on
//! stderr and in its `--json` document, and the page shows them.

use std::collections::HashMap;

use serde::Serialize;

use super::pyjson;
use super::pyvalue::PyValue;

/// A line (or, for a JSON array, an item) the reader skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    /// 1-based line of the file (for an array, the item's 1-based index).
    pub line: usize,
    /// Why it was skipped ("not a JSON object", or the JSON parse error).
    pub reason: String,
}

/// A record that repeats a sample an earlier line already gave (same
/// `gt_json_path` and task, or the very same line); it is scored again, as
/// the official code does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DuplicateLine {
    /// 1-based line of the repeat (for an array, the item's 1-based index).
    pub line: usize,
    /// The line that first gave the sample.
    pub first: usize,
}

/// What the intake of one predictions file found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Intake {
    /// Whether `line` means an item of a JSON array rather than a line.
    pub array: bool,
    /// The lines skipped, in file order.
    pub skipped: Vec<SkippedLine>,
    /// The records that repeat an earlier sample, in file order.
    pub duplicates: Vec<DuplicateLine>,
}

impl Intake {
    /// Whether there is nothing to report.
    pub fn is_clean(&self) -> bool {
        self.skipped.is_empty() && self.duplicates.is_empty()
    }

    /// The warnings for people, one per kind, each listing where (the first
    /// 20 places, then how many more).
    pub fn warnings(&self) -> Vec<String> {
        const SHOWN: usize = 20;
        let unit = if self.array { "item" } else { "line" };
        let mut out = Vec::new();
        if !self.skipped.is_empty() {
            let mut list: Vec<String> = self
                .skipped
                .iter()
                .take(SHOWN)
                .map(|s| format!("{unit} {} ({})", s.line, s.reason))
                .collect();
            if self.skipped.len() > SHOWN {
                list.push(format!("and {} more", self.skipped.len() - SHOWN));
            }
            out.push(format!(
                "{} {unit}(s) skipped, as the official reader skips them (not scored, not \
                 counted): {}",
                self.skipped.len(),
                list.join("; ")
            ));
        }
        if !self.duplicates.is_empty() {
            let mut list: Vec<String> = self
                .duplicates
                .iter()
                .take(SHOWN)
                .map(|d| format!("{unit} {} repeats {unit} {}", d.line, d.first))
                .collect();
            if self.duplicates.len() > SHOWN {
                list.push(format!("and {} more", self.duplicates.len() - SHOWN));
            }
            out.push(format!(
                "{} record(s) repeat a sample given earlier; each is scored and counted, as the \
                 official code does, so the sample weighs more than once: {}",
                self.duplicates.len(),
                list.join("; ")
            ));
        }
        out
    }
}

/// The record fields that say which sample a record is about.
const KEY_FIELDS: [&str; 5] = ["gt_json_path", "task_type", "question", "prompt", "images"];

/// The sample a record is about: its GT file and task, or (without a GT
/// path) the record's whole text. `get` gives a field of the record.
fn sample_key<'v>(get: impl Fn(&str) -> Option<&'v PyValue>, text: &str) -> String {
    let field = |k: &str| match get(k) {
        Some(PyValue::Str(s)) => Some(s.clone()),
        Some(PyValue::List(items)) => match items.first() {
            Some(PyValue::Str(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    // A raw reply names its sample by its image (`images[0].path`).
    let image = || match get("images") {
        Some(PyValue::List(items)) => match items.first().and_then(|i| i.get("path")) {
            Some(PyValue::Str(s)) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    };
    match field("gt_json_path").or_else(image) {
        Some(gt) => format!(
            "{gt}\u{0}{}\u{0}{}",
            field("task_type").unwrap_or_default(),
            field("question")
                .or_else(|| field("prompt"))
                .unwrap_or_default()
        ),
        None => format!("\u{1}{}", text.trim()),
    }
}

/// What one line of a JSON Lines file is.
enum Line {
    /// A JSON object, with the values of its [`KEY_FIELDS`] (a repeated
    /// key keeps its last value, as in a Python dict).
    Object([Option<PyValue>; 5]),
    /// JSON, but not an object.
    NotAnObject,
    /// Not JSON.
    Invalid(pyjson::JsonError),
}

/// Reads a line as `json.loads` does, building only the fields that name
/// its sample: the rest of the object is checked (by the same grammar,
/// [`pyjson::Reader`]) but not built, so a reply's text is not copied.
fn read_line(line: &str) -> Line {
    let mut r = pyjson::Reader::new(line);
    r.ws();
    if r.peek() != Some(b'{') {
        return match pyjson::loads(line) {
            Ok(_) => Line::NotAnObject,
            Err(e) => Line::Invalid(e),
        };
    }
    let mut fields: [Option<PyValue>; 5] = Default::default();
    let walked = (|| {
        let mut members = r.begin_object()?;
        while let Some(key) = r.next_member(&mut members)? {
            let name = r.key_text(&key);
            match KEY_FIELDS.iter().position(|k| *k == name) {
                Some(at) => fields[at] = Some(r.value()?),
                None => {
                    r.skip_value()?;
                }
            }
        }
        r.finish()
    })();
    match walked {
        Ok(()) => Line::Object(fields),
        Err(e) => Line::Invalid(e),
    }
}

/// The intake of a JSON Lines file told one line at a time, for a reader
/// that parses every line anyway (a page worker's formatter,
/// [`super::formatter::format_jsonl_both_picked`]): the same [`Intake`] as
/// [`intake`] of the file, without reading the file a second time.
#[derive(Debug, Default)]
pub struct LineIntake {
    out: Intake,
    /// Each sample's key, with the line that first gave it.
    first: HashMap<String, usize>,
}

impl LineIntake {
    /// No line yet.
    pub fn new() -> LineIntake {
        LineIntake::default()
    }

    /// Line `line` (1-based, not blank), already parsed by [`pyjson::loads`].
    pub fn parsed(&mut self, line: usize, text: &str, read: &Result<PyValue, pyjson::JsonError>) {
        match read {
            Ok(v @ PyValue::Dict(_)) => self.object(line, sample_key(|k| v.get(k), text)),
            Ok(_) => self.not_an_object(line),
            Err(e) => self.invalid(line, e),
        }
    }

    /// Line `line` (1-based, not blank), read here for the fields that name
    /// its sample only ([`read_line`]); says whether it is a JSON object.
    pub fn read(&mut self, line: usize, text: &str) -> bool {
        match read_line(text) {
            Line::Object(fields) => {
                let get = |k: &str| {
                    let at = KEY_FIELDS.iter().position(|f| *f == k)?;
                    fields[at].as_ref()
                };
                let key = sample_key(get, text);
                self.object(line, key);
                true
            }
            Line::NotAnObject => {
                self.not_an_object(line);
                false
            }
            Line::Invalid(e) => {
                self.invalid(line, &e);
                false
            }
        }
    }

    /// What the lines told so far found.
    pub fn finish(self) -> Intake {
        self.out
    }

    fn object(&mut self, line: usize, key: String) {
        match self.first.get(&key) {
            Some(&first) => self.out.duplicates.push(DuplicateLine { line, first }),
            None => {
                self.first.insert(key, line);
            }
        }
    }

    fn not_an_object(&mut self, line: usize) {
        self.out.skipped.push(SkippedLine {
            line,
            reason: "not a JSON object".into(),
        });
    }

    fn invalid(&mut self, line: usize, e: &pyjson::JsonError) {
        self.out.skipped.push(SkippedLine {
            line,
            reason: format!("not valid JSON: {e}"),
        });
    }
}

/// The intake of a JSON Lines or JSON array predictions file (raw replies
/// or std records).
pub fn intake(text: &str) -> Intake {
    let t = text.trim_start_matches('\u{feff}');
    let mut lines = LineIntake::new();
    if t.trim_start().starts_with('[') {
        lines.out.array = true;
        if let Ok(PyValue::List(items)) = pyjson::loads(t.trim()) {
            for (i, item) in items.iter().enumerate() {
                if matches!(item, PyValue::Dict(_)) {
                    let key = sample_key(|k| item.get(k), &format!("{item:?}"));
                    lines.object(i + 1, key);
                } else {
                    lines.not_an_object(i + 1);
                }
            }
        }
        return lines.finish();
    }
    for (i, line) in t.lines().enumerate() {
        if !line.trim().is_empty() {
            lines.read(i + 1, line);
        }
    }
    lines.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_lines_and_copies_are_reported_by_line() {
        let rec = r#"{"gt_json_path": "EPIC_Bench/a.json", "task_type": "T", "response": "x"}"#;
        let mut text = String::new();
        text.push_str(rec);
        text.push_str("\n{broken\n\n[1, 2]\n");
        for _ in 0..99 {
            text.push_str(rec);
            text.push('\n');
        }
        let got = intake(&text);
        assert_eq!(got.skipped.len(), 2);
        assert_eq!(got.skipped[0].line, 2);
        assert!(got.skipped[0].reason.starts_with("not valid JSON"));
        assert_eq!(got.skipped[1].line, 4);
        assert_eq!(got.duplicates.len(), 99);
        assert_eq!(got.duplicates[0], DuplicateLine { line: 5, first: 1 });
        let warnings = got.warnings().join("\n");
        assert!(warnings.contains("line 2 (not valid JSON"), "{warnings}");
        assert!(warnings.contains("99 record(s) repeat"), "{warnings}");
        assert!(warnings.contains("and 79 more"), "{warnings}");
    }

    /// A reader that parses some lines itself and leaves the rest to the
    /// intake (a page worker's) finds what [`intake`] finds in the file.
    #[test]
    fn lines_told_parsed_or_read_give_the_files_intake() {
        let lines = [
            r#"{"gt_json_path": "a", "task_type": "T"}"#,
            "{broken",
            "[1, 2]",
            r#"{"images": [{"path": "p.jpg"}], "response": "x"}"#,
            r#"{"gt_json_path": "a", "task_type": "T", "gt_json_path": "b"}"#,
            r#"{"a": 1} x"#,
            r#"{"a": NaN, "question": ["q"]}"#,
            "3",
            r#"{"gt_json_path": "b", "task_type": "T"}"#,
            r#"{"images": [{"path": "p.jpg"}], "response": "y"}"#,
            r#"{"a": NaN, "question": ["q"]}"#,
            r#"{"a":"#,
        ];
        let whole = intake(&lines.join("\n"));
        assert_eq!(whole.skipped.len(), 5);
        assert_eq!(whole.duplicates.len(), 3);
        for parse in [
            |_: usize| true,
            |_: usize| false,
            |i: usize| i.is_multiple_of(2),
        ] {
            let mut told = LineIntake::new();
            for (i, line) in lines.iter().enumerate() {
                if parse(i) {
                    told.parsed(i + 1, line, &pyjson::loads(line));
                } else {
                    assert_eq!(
                        told.read(i + 1, line),
                        pyjson::loads(line).is_ok_and(|v| matches!(v, PyValue::Dict(_)))
                    );
                }
            }
            assert_eq!(told.finish(), whole);
        }
    }

    #[test]
    fn distinct_samples_are_not_duplicates() {
        let text = "{\"gt_json_path\": \"a\", \"response\": 1}\n{\"gt_json_path\": \"b\", \"response\": 1}\n";
        assert!(intake(text).is_clean());
        let arr = "[{\"a\": 1}, 3, {\"a\": 1}]";
        let got = intake(arr);
        assert!(got.array);
        assert_eq!(
            got.skipped,
            vec![SkippedLine {
                line: 2,
                reason: "not a JSON object".into()
            }]
        );
        assert_eq!(got.duplicates, vec![DuplicateLine { line: 3, first: 1 }]);
    }
}
