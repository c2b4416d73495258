#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
//! Each shortcut the EPIC-Bench scorer takes gives what the long way
//! gives, on random input:
//!
//! - the GT reader keeps a file as text (members looked up by span, masks
//!   decoded straight from the text): every field it finds, and every mask
//!   it decodes, equals the lookup of `epic-official.md` §3.3 on the file
//!   parsed whole, and it refuses exactly the files `json.loads` refuses;
//! - the corrected pass takes the official pass's result for a record the
//!   two read alike: scoring it again gives the same result;
//! - both dialects of the formatter are read at once: each record equals
//!   the one the dialect alone writes;
//! - the intake builds only the fields that name a sample: it reports what
//!   parsing every line whole reports.

use std::collections::HashMap;

use knoblab_score::epic::extract::Dialect;
use knoblab_score::epic::formatter::{format_jsonl_both, format_jsonl_each, FormatOptions};
use knoblab_score::epic::gt::{lookup, mask_field_empty, GtCache, GtFile, MapSource, MaskField};
use knoblab_score::epic::intake::{intake, DuplicateLine, SkippedLine};
use knoblab_score::epic::mask::Mask;
use knoblab_score::epic::pyjson;
use knoblab_score::epic::pyvalue::PyValue;
use knoblab_score::epic::rle::{decode_union, encode, DecodedUnion};
use knoblab_score::epic::scorer::{passes_agree, score_record, ScoreOptions};
use knoblab_score::epic::synthetic::generate_scaled;
use knoblab_score::epic::DirSource;
use proptest::prelude::*;

/// The field lookup of §3.3 on a GT file parsed whole: `text_annotation`
/// if it has the key (even `null`), else `mask_annotation`, else for
/// `placement_feasibility` the key `placement_feasible`; then, if the value
/// is `null` or there is no file, the record's own `ground_truth`.
fn lookup_whole<'v>(
    root: Option<&'v PyValue>,
    inline: Option<&'v PyValue>,
    field: &str,
) -> Option<&'v PyValue> {
    let has = |d: Option<&'v PyValue>, k: &str| match d {
        Some(PyValue::Dict(items)) => items.iter().find(|(kk, _)| kk == k).map(|(_, v)| v),
        _ => None,
    };
    let mut found = None;
    if let Some(g) = root {
        found =
            has(g.get("text_annotation"), field).or_else(|| has(g.get("mask_annotation"), field));
        if found.is_none() && field == "placement_feasibility" {
            found = has(g.get("text_annotation"), "placement_feasible");
        }
    }
    if found.is_none_or(PyValue::is_none) {
        if let Some(v) = inline.and_then(|i| i.get(field)).filter(|v| !v.is_none()) {
            return Some(v);
        }
    }
    found
}

fn same_union(a: &DecodedUnion, b: &DecodedUnion) -> bool {
    a.mask == b.mask && a.dropped_other_size == b.dropped_other_size && a.failed == b.failed
}

/// The fields looked up (and two the files never hold).
const FIELDS: [&str; 8] = [
    "count_target_instance",
    "precise_count",
    "masklet_target",
    "masklet_path",
    "placement_feasibility",
    "placement_feasible",
    "absent",
    "masklet_absent",
];

/// A JSON string literal of `s`, escaping what JSON requires and, when
/// `u_escape`, every `0` as `\u0030` (a form the fast mask reader leaves
/// to the parser).
fn json_str(s: &str, u_escape: bool) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '0' if u_escape => out.push_str("\\u0030"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A mask of a small frame: a few filled rectangles.
fn small_mask() -> impl Strategy<Value = Mask> {
    (
        (1u32..12, 1u32..12),
        prop::collection::vec(any::<(u8, u8, u8, u8)>(), 0..3),
    )
        .prop_map(|((h, w), rects)| {
            let mut on = vec![false; (h * w) as usize];
            for (a, b, c, d) in rects {
                let (x0, x1) = (u32::from(a) % w, u32::from(c) % (w + 1));
                let (y0, y1) = (u32::from(b) % h, u32::from(d) % (h + 1));
                for y in y0.min(y1)..y0.max(y1) {
                    for x in x0.min(x1)..x0.max(x1) {
                        on[(y * w + x) as usize] = true;
                    }
                }
            }
            Mask::from_dense(h, w, &on)
        })
}

/// One RLE instance's text, in one of the forms files hold (and some they
/// should not): spacing, key order, escapes, uncompressed counts, floats,
/// extra keys, a negative size.
fn instance_text() -> impl Strategy<Value = String> {
    (small_mask(), 0u8..10, any::<bool>()).prop_map(|(m, form, spaced)| {
        let (h, w) = (m.height(), m.width());
        let sp = if spaced { " \n\t" } else { "" };
        let counts = json_str(&encode(&m), false);
        match form {
            0 => format!("{{\"size\": [{h}, {w}], \"counts\": {counts}}}"),
            1 => format!("{{{sp}\"counts\"{sp}:{sp}{counts}{sp},{sp}\"size\"{sp}:{sp}[{sp}{h}{sp},{sp}{w}{sp}]{sp}}}"),
            2 => format!("{{\"size\": [{h}, {w}], \"counts\": {}}}", json_str(&encode(&m), true)),
            3 => {
                // Uncompressed counts.
                let flat = knoblab_score::epic::rle::counts_from_string(&encode(&m)).unwrap();
                let list: Vec<String> = flat.iter().map(i64::to_string).collect();
                format!("{{\"size\": [{h}, {w}], \"counts\": [{}]}}", list.join(", "))
            }
            4 => format!("{{\"size\": [{h}.0, {w}], \"counts\": {counts}}}"),
            5 => format!("{{\"size\": [{h}, {w}], \"counts\": {counts}, \"extra\": 1}}"),
            6 => format!("{{\"size\": [-{h}, {w}], \"counts\": {counts}}}"),
            7 => format!("{{\"size\": [{h}, {w}, 1], \"counts\": {counts}}}"),
            8 => format!("{{\"size\": [{h}, {w}], \"counts\": \"{}\"}}", "o".repeat(14)),
            _ => format!("{{\"size\": [{}, {w}], \"counts\": {counts}}}", h + 1),
        }
    })
}

/// A member value of an annotation object.
fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "null",
            "[]",
            "{}",
            " [ \n] ",
            "{ }",
            "3",
            "-1",
            "0",
            "2.5",
            "1e3",
            "\"4\"",
            "\" 2 \"",
            "\"x\"",
            "true",
            "false",
            "[1]",
            "[\"2\"]",
            "[null]",
            "[true]",
            "\"yes\"",
            "\"No\"",
            "[[1, 2]]",
            "{\"a\": 1}",
            "Infinity",
            "\"\\u0033\"",
        ])
        .prop_map(str::to_string),
        prop::collection::vec(instance_text(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
        instance_text(),
    ]
}

/// A key as written: plainly, or with an escape.
fn key_text(key: &str, escaped: bool) -> String {
    if escaped && key.contains('_') {
        format!("\"{}\"", key.replacen('_', "\\u005f", 1))
    } else {
        format!("\"{key}\"")
    }
}

/// An annotation object: members from [`FIELDS`] (repeats allowed).
fn section_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(FIELDS.to_vec()),
            any::<bool>(),
            value_text(),
        ),
        0..6,
    )
    .prop_map(|members| {
        let items: Vec<String> = members
            .into_iter()
            .map(|(k, esc, v)| format!("{}: {v}", key_text(k, esc)))
            .collect();
        format!("{{{}}}", items.join(", "))
    })
}

/// A whole GT file's text, sometimes broken.
fn gt_text() -> impl Strategy<Value = String> {
    let top = prop::collection::vec(
        (
            prop::sample::select(vec![
                "text_annotation",
                "mask_annotation",
                "image_path_saved",
            ]),
            any::<bool>(),
            prop_oneof![3 => section_text(), 1 => value_text()],
        ),
        0..5,
    );
    (top, 0u8..12, any::<usize>()).prop_map(|(members, damage, at)| {
        let items: Vec<String> = members
            .into_iter()
            .map(|(k, esc, v)| format!("{}: {v}", key_text(k, esc)))
            .collect();
        let text = format!(" {{{}}}\n", items.join(", "));
        let cut = at % (text.len() + 1);
        match damage {
            0 if text.is_char_boundary(cut) => text[..cut].to_string(),
            1 => text.replacen('}', ",}", 1),
            2 => format!("[{text}]"),
            3 => format!("{text} x"),
            _ => text,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The GT reader that keeps the file as text finds every field, says
    /// whether a mask field is empty and decodes it, as the lookup on the
    /// parsed file does; it refuses exactly what `json.loads` refuses.
    #[test]
    fn gt_text_reader_equals_whole_parse(text in gt_text(), inline_text in section_text()) {
        let whole = pyjson::loads(&text);
        let file = GtFile::parse(text.clone());
        prop_assert_eq!(file.is_some(), matches!(whole, Ok(PyValue::Dict(_))), "{}", text);
        let (Some(file), Ok(root)) = (file, whole) else {
            return Ok(());
        };
        prop_assert_eq!(file.root(), &root);
        let inline = pyjson::loads(&inline_text).unwrap();
        for inline in [None, Some(&inline)] {
            for field in FIELDS {
                let ours = lookup(Some(&file), inline, field);
                let theirs = lookup_whole(Some(&root), inline, field);
                prop_assert_eq!(ours.map(|f| f.value()), theirs, "{} in {}", field, text);
                if let (Some(ours), Some(theirs)) = (ours, theirs) {
                    prop_assert_eq!(ours.is_empty_field(), mask_field_empty(Some(theirs)));
                    prop_assert!(same_union(&ours.decode(), &decode_union(theirs)), "{} in {}", field, text);
                }
            }
        }
    }
}

/// The std records of the synthetic set and of the official fixtures, with
/// their ground truth.
fn scored_sets() -> Vec<(
    Vec<PyValue>,
    Box<dyn knoblab_score::epic::GroundTruthSource>,
)> {
    let set = generate_scaled(11, 0.05);
    let both = format_jsonl_both(&set.raw_jsonl, &FormatOptions::default());
    let synthetic: Vec<PyValue> = (0..both.official.records.len())
        .flat_map(|i| {
            [
                both.official.records[i].record.clone(),
                both.corrected_record(i).unwrap().clone(),
            ]
        })
        .collect();
    let fix = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/official/epic"
    );
    let mut fixtures = Vec::new();
    for model in ["Custom/probe-auto", "Qwen3-VL/probe-q3"] {
        let std = std::fs::read_to_string(format!("{fix}/std/{model}.jsonl")).unwrap();
        fixtures.extend(knoblab_score::epic::report::read_std(&std));
    }
    let dir = DirSource::at(std::path::Path::new(&format!("{fix}/dataset/annotation")));
    vec![(synthetic, Box::new(set.gt)), (fixtures, Box::new(dir))]
}

/// A record the two passes read alike scores alike in both: the
/// corrected pass may take the official pass's result.
#[test]
fn agreeing_passes_score_alike() {
    let (mut agreeing, mut differing) = (0, 0);
    for (records, gt) in scored_sets() {
        let mut cache = GtCache::new(gt.as_ref());
        let official = ScoreOptions {
            corrected: false,
            ..ScoreOptions::default()
        };
        let corrected = ScoreOptions {
            corrected: true,
            ..ScoreOptions::default()
        };
        for (i, rec) in records.iter().enumerate() {
            if !passes_agree(rec) {
                differing += 1;
                continue;
            }
            agreeing += 1;
            let a = score_record(i, rec, &mut cache, &official);
            let b = score_record(i, rec, &mut cache, &corrected);
            assert_eq!(a.to_official_json(), b.to_official_json(), "record {i}");
            assert_eq!(a.quirks, b.quirks, "record {i}");
            assert_eq!(a.metric_details, b.metric_details, "record {i}");
            assert_eq!(
                (a.leaf, &a.gt_path, a.gt_found),
                (b.leaf, &b.gt_path, b.gt_found),
                "record {i}"
            );
        }
    }
    // Both kinds occur, so the rule is exercised both ways.
    assert!(
        agreeing > 100 && differing > 10,
        "{agreeing} agreeing, {differing} differing"
    );
}

/// A reply built from the pieces the two dialects read differently.
fn reply() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "```json\n",
        "```JSON\n",
        "```\n",
        "```python\n",
        "```js ",
        "\n```",
        "<think>",
        "</think>",
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        ",",
        ", ",
        ",\n]",
        ", }",
        ":",
        "'",
        "\"",
        "\\'",
        "True",
        "None",
        "False",
        "Truex",
        "1",
        "2.5",
        "-3",
        "\"number_of_objects\"",
        "'number_of_objects'",
        "\"bounding_boxes\"",
        "\"points\"",
        "\"placement_feasibility\"",
        "\"number_of_instances\"",
        "[1, 2, 3, 4]",
        "(1, 2)",
        "[[1, 2], [3, 4]]",
        " ",
        "\u{3000}",
        "é",
        "x",
    ]);
    prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
}

fn raw_line(reply: &str, image: &str) -> String {
    let rec = PyValue::Dict(vec![
        ("response".into(), PyValue::Str(reply.into())),
        (
            "images".into(),
            PyValue::List(vec![PyValue::Str(image.into())]),
        ),
    ]);
    pyjson::dumps(&rec)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Formatting both dialects at once gives each dialect's own records.
    #[test]
    fn both_dialects_read_as_each(replies in prop::collection::vec(reply(), 1..4), pick in 0usize..5) {
        let images = [
            "EPIC_Bench/TargetLocalization/BasicAttributes/Color/s/s_image.jpg",
            "EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Exo/s/s_image.jpg",
            "EPIC_Bench/Navigation/VisualMatching/s/s_image.jpg",
            "EPIC_Bench/Manipulation/PlacementRegion/s/s_image.jpg",
            "EPIC_Bench/Navigation/GroundDetection/s/s_image.jpg",
        ];
        let text: String = replies
            .iter()
            .enumerate()
            .map(|(k, r)| raw_line(r, images[(pick + k) % images.len()]) + "\n")
            .collect();
        let opts = |dialect| FormatOptions { dialect, ..FormatOptions::default() };
        let each = format_jsonl_each(&text, &[opts(Dialect::Official), opts(Dialect::Corrected)]);
        let both = format_jsonl_both(&text, &FormatOptions::default());
        prop_assert_eq!(&both.official.skipped_lines, &each[0].skipped_lines);
        prop_assert_eq!(both.official.records.len(), each[0].records.len());
        for (i, (o, c)) in each[0].records.iter().zip(&each[1].records).enumerate() {
            let b = &both.official.records[i];
            // NaN is not equal to itself: records are compared as written.
            prop_assert_eq!(pyjson::dumps(&b.record), pyjson::dumps(&o.record));
            prop_assert_eq!(b.failure, o.failure);
            prop_assert_eq!(&b.response, &o.response);
            prop_assert_eq!(pyjson::dumps(both.corrected_record(i).unwrap()), pyjson::dumps(&c.record));
            if let Some(Some(bc)) = both.corrected.get(i) {
                prop_assert_eq!(bc.failure, c.failure);
            } else {
                prop_assert_eq!(o.failure, c.failure);
            }
        }
    }
}

/// The intake of a JSON Lines text, parsing every line whole: what
/// [`intake`] reports, the long way.
fn intake_whole(text: &str) -> (Vec<SkippedLine>, Vec<DuplicateLine>) {
    let (mut skipped, mut duplicates) = (Vec::new(), Vec::new());
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.trim_start_matches('\u{feff}').lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record = match pyjson::loads(line) {
            Ok(v @ PyValue::Dict(_)) => v,
            Ok(_) => {
                skipped.push(SkippedLine {
                    line: i + 1,
                    reason: "not a JSON object".into(),
                });
                continue;
            }
            Err(e) => {
                skipped.push(SkippedLine {
                    line: i + 1,
                    reason: format!("not valid JSON: {e}"),
                });
                continue;
            }
        };
        let field = |k: &str| match record.get(k) {
            Some(PyValue::Str(s)) => Some(s.clone()),
            Some(PyValue::List(items)) => match items.first() {
                Some(PyValue::Str(s)) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        };
        let image = || match record.get("images") {
            Some(PyValue::List(items)) => match items.first().and_then(|i| i.get("path")) {
                Some(PyValue::Str(s)) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        };
        let key = match field("gt_json_path").or_else(image) {
            Some(gt) => format!(
                "{gt}\u{0}{}\u{0}{}",
                field("task_type").unwrap_or_default(),
                field("question")
                    .or_else(|| field("prompt"))
                    .unwrap_or_default()
            ),
            None => format!("\u{1}{}", line.trim()),
        };
        match first.get(&key) {
            Some(&f) => duplicates.push(DuplicateLine {
                line: i + 1,
                first: f,
            }),
            None => {
                first.insert(key, i + 1);
            }
        }
    }
    (skipped, duplicates)
}

/// A line of a predictions file: records naming a few samples in several
/// ways, with repeats, non-objects and broken JSON.
fn prediction_line() -> impl Strategy<Value = String> {
    let value = prop::sample::select(vec![
        "\"a\"",
        "\"b\"",
        "[\"a\"]",
        "[\"b\", \"c\"]",
        "[]",
        "1",
        "null",
        "[{\"path\": \"p\"}]",
        "[{\"path\": \"q\"}, 3]",
        "[\"p\"]",
        "{\"path\": \"p\"}",
        "\"x\\u0041\"",
        "[1, {\"k\": [2]}]",
    ]);
    let key = prop::sample::select(vec![
        "gt_json_path",
        "task_type",
        "question",
        "prompt",
        "images",
        "response",
        "gt_json\\u005fpath",
    ]);
    prop_oneof![
        4 => prop::collection::vec((key, value), 0..5).prop_map(|m| {
            let items: Vec<String> = m.into_iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", items.join(", "))
        }),
        1 => prop::sample::select(vec!["", "  ", "[1]", "3", "{", "{\"a\": }", "{\"a\": 1,}", "{\"a\": 1} x", "\"s\"", "{\"a\" 1}"])
            .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The intake, which builds only the fields naming a sample, reports
    /// the skipped and repeated lines that parsing each line whole gives.
    #[test]
    fn intake_equals_whole_parse(lines in prop::collection::vec(prediction_line(), 0..12)) {
        let text = lines.join("\n");
        // A text that starts with `[` is read as one JSON array, whole.
        prop_assume!(!text.trim_start().starts_with('['));
        let got = intake(&text);
        let (skipped, duplicates) = intake_whole(&text);
        prop_assert_eq!(got.skipped, skipped);
        prop_assert_eq!(got.duplicates, duplicates);
    }
}

/// The GT of a synthetic set, decoded through a GT file's text, equals
/// decoding its parsed masks (every mask of every file).
#[test]
fn synthetic_masks_decode_alike_from_text() {
    let set = generate_scaled(5, 0.02);
    let mut masks = 0;
    for (_, bytes) in set.gt.files() {
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let root = pyjson::loads(&text).unwrap();
        let file = GtFile::parse(text).unwrap();
        let Some(PyValue::Dict(fields)) = root.get("mask_annotation") else {
            panic!("no mask_annotation");
        };
        for (key, value) in fields {
            let ours = lookup(Some(&file), None, key).unwrap();
            assert!(same_union(&ours.decode(), &decode_union(value)), "{key}");
            masks += 1;
        }
    }
    assert!(masks > 100, "{masks} masks");
}

#[test]
fn map_source_files_are_gt_files() {
    // A MapSource serves bytes; the cache reads them as GT files.
    let mut src = MapSource::new();
    src.insert(
        "EPIC_Bench/a.json",
        br#"{"text_annotation": {"count_target_instance": 2}, "mask_annotation": {"masklet_target": [{"size": [2, 2], "counts": "03"}]}}"#.to_vec(),
    );
    src.insert("EPIC_Bench/b.json", b"[1, 2]".to_vec());
    let mut cache = GtCache::new(&src);
    let a = cache.load("x/EPIC_Bench/a.json").unwrap();
    let m = lookup(Some(&a), None, "masklet_target").unwrap().decode();
    assert_eq!(m.mask.as_ref().map(Mask::area), Some(3));
    assert!(cache.load("EPIC_Bench/b.json").is_none());
}
