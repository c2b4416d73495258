//! What each fuzz target does with one input, in one place: the targets in
//! `fuzz_targets/` call these functions, and so does the native regression
//! test `tests/fuzz_regressions.rs` with every crash input kept under
//! `tests/fuzz_regressions/<target>/`, so a fixed crash stays fixed.
//!
//! Each function feeds the input to the same core function the page and the
//! CLI call, and asserts what must hold for any input: no panic, no
//! unbounded allocation (libFuzzer's `-rss_limit_mb` and `-malloc_limit_mb`
//! watch that), and a property that a wrong answer would break (a round
//! trip, a range, a shape). Where one input byte picks an option (a parser
//! build, a model name, a question), it is the first byte.

#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)
use std::collections::BTreeMap;

use knoblab_core::bundle::check_bytes;
use knoblab_core::sim::parse_action;
use knoblab_score::detect::detect as detect_format;
use knoblab_score::epic::formatter::{format_jsonl, FormatOptions};
use knoblab_score::epic::pyvalue::PyValue;
use knoblab_score::epic::{extract::Dialect, pyjson, rle};
use knoblab_score::finestate::files::MemFiles;
use knoblab_score::finestate::loader::{
    load_annotation_jsonl, load_dataset, ImagePolicy, Platform,
};
use knoblab_score::finestate::parser::{parse_reply, parse_value, ParserBuild};
use knoblab_score::finestate::predictions::read_predictions;
use knoblab_score::switch::extract::{extract_choice, extract_from_answer, ChoiceQuestion};

/// What a target does with one input.
pub type Harness = fn(&[u8]);

/// The name each target's harness is known by (the fuzz target's name, the
/// folder of its regression inputs), with the function.
pub const TARGETS: [(&str, Harness); 9] = [
    ("bundle_json", bundle_json),
    ("bundle_zip", bundle_zip),
    ("action", action),
    ("epic_formatter", epic_formatter),
    ("epic_rle", epic_rle),
    ("finestate_parser", finestate_parser),
    ("finestate_loaders", finestate_loaders),
    ("switch_extract", switch_extract),
    ("detect", detect),
];

/// A bundle in the single-JSON form, as dropped on the page or fetched from
/// a URL.
pub fn bundle_json(data: &[u8]) {
    if data.starts_with(b"PK") {
        return; // the zip target's input
    }
    check_bundle("fuzz.json", data);
}

/// A bundle `.zip`.
pub fn bundle_zip(data: &[u8]) {
    if !data.starts_with(b"PK") {
        return; // the JSON target's input
    }
    check_bundle("fuzz.zip", data);
}

/// A bundle that loads must carry no error, and must survive the trip
/// through the single-JSON form unchanged ("loading it gives an equal
/// bundle", `Bundle::to_single_json`).
fn check_bundle(name: &str, data: &[u8]) {
    let checked = check_bytes(name, data);
    let has_errors = checked.has_errors();
    let Some(bundle) = checked.bundle else {
        assert!(has_errors, "refused without an error");
        return;
    };
    assert!(!has_errors, "loaded with an error");
    let single = bundle.to_single_json();
    let text = serde_json::to_vec(&single).expect("a Value serialises");
    let again = check_bytes("again.json", &text);
    let reloaded = again.bundle.unwrap_or_else(|| {
        panic!(
            "the single-JSON form of a loaded bundle does not load: {:?}",
            again.diagnostics
        )
    });
    assert_eq!(reloaded.logic_hash(), bundle.logic_hash());
    assert_eq!(reloaded.to_single_json(), single);
}

/// A model's reply read as an action. A parsed action's canonical text
/// reads back as the same action, when its parameters are ones the text
/// form can carry (see `Action`'s `Display`).
pub fn action(data: &[u8]) {
    let Ok(reply) = std::str::from_utf8(data) else {
        return;
    };
    let carried =
        |p: &String| !p.contains(['[', ']', '(', ')']) && !p.to_lowercase().contains("action");
    if let Ok(parsed) = parse_action(reply) {
        if !parsed.params.iter().all(carried) {
            return;
        }
        let text = parsed.to_string();
        assert_eq!(
            parse_action(&text).as_ref(),
            Ok(&parsed),
            "canonical text {text:?}"
        );
    }
}

/// Raw model records through the official formatter (first byte: the
/// dialect). Every record it writes is one valid JSON object.
pub fn epic_formatter(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let opts = FormatOptions {
        dialect: if pick & 1 == 0 {
            Dialect::Official
        } else {
            Dialect::Corrected
        },
        ..FormatOptions::default()
    };
    let out = format_jsonl(text, &opts);
    for line in out.to_jsonl().lines() {
        let value = pyjson::loads(line)
            .unwrap_or_else(|e| panic!("the formatter wrote invalid JSON {line:?}: {e}"));
        assert!(matches!(value, PyValue::Dict(_)));
    }
}

/// COCO RLE: the input as a compressed counts string, and as a JSON value
/// holding RLE instances (a `masklet_*` value). Every decoded mask encodes
/// back to counts that decode to the same mask.
pub fn epic_rle(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = rle::counts_from_string(text);
    let Ok(value) = pyjson::loads(text) else {
        return;
    };
    let union = rle::decode_union(&value);
    if let Some(mask) = union.mask {
        let encoded = PyValue::Dict(vec![
            (
                "size".into(),
                PyValue::List(vec![
                    PyValue::Int(mask.height().into()),
                    PyValue::Int(mask.width().into()),
                ]),
            ),
            ("counts".into(), PyValue::Str(rle::encode(&mask))),
        ]);
        assert_eq!(rle::decode_instance(&encoded).as_ref(), Ok(&mask));
    }
}

/// The model names whose substrings steer FineState's parser rules.
const FINESTATE_MODELS: [Option<&str>; 6] = [
    None,
    Some("OS-Atlas-Pro-7B"),
    Some("UGround-V1-7B"),
    Some("Qwen2-VL-7B"),
    Some("Qwen2.5-VL-3B-UI-R1"),
    Some("Jedi-7B-1080p"),
];

/// A FineState reply through the official parser (first byte: build and
/// model). A point is found exactly when there is no error, and lies in the
/// unit square.
pub fn finestate_parser(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let build = if pick & 1 == 0 {
        ParserBuild::Py
    } else {
        ParserBuild::Pyc
    };
    let model = FINESTATE_MODELS[usize::from(pick >> 1) % FINESTATE_MODELS.len()];
    let parsed = parse_reply(text, model, build);
    assert_eq!(parsed.coordinates.is_some(), parsed.success);
    assert_eq!(parsed.coordinates.is_some(), parsed.error.is_none());
    if let Some([x, y]) = parsed.coordinates {
        assert!((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y));
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = parse_value(&value, model, build);
    }
}

/// FineState's ground-truth loaders and results readers (first byte: which
/// one): a dataset zip, one annotation JSONL per platform and image policy,
/// and a results file.
pub fn finestate_loaders(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    match pick % 4 {
        0 => {
            if let Ok(files) = MemFiles::from_zip(rest) {
                let _ = load_dataset(&files, ImagePolicy::Check);
                let _ = load_dataset(&files, ImagePolicy::AssumePresent);
            }
        }
        1 | 2 => {
            let platform = Platform::ALL[usize::from(pick >> 2) % Platform::ALL.len()];
            let policy = if pick % 4 == 1 {
                ImagePolicy::Check
            } else {
                ImagePolicy::AssumePresent
            };
            let data =
                load_annotation_jsonl(&MemFiles::new(), platform, "fuzz.jsonl", rest, policy);
            for (n, instance) in data.instances.iter().enumerate() {
                assert!(n == 0 || instance.index > data.instances[n - 1].index);
            }
        }
        _ => {
            let _ = read_predictions("fuzz_results.json", rest);
        }
    }
}

/// A SWITCH reply, or a provided `answer` value, read as letters (first
/// byte: single or multiple choice). What is extracted is a non-empty set
/// of the question's labels, one for single choice.
pub fn switch_extract(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut question = if pick & 1 == 0 {
        ChoiceQuestion::single()
    } else {
        ChoiceQuestion::multi()
    };
    if pick & 2 != 0 {
        question.options = BTreeMap::from([
            ('A', "Turn the knob to the left".to_string()),
            ('B', "Press the red button".to_string()),
            ('C', "Press the blue button".to_string()),
            ('D', "Open the lid".to_string()),
        ]);
    }
    let check = |extraction: &knoblab_score::switch::extract::Extraction| {
        assert!(!extraction.letters.is_empty());
        assert!(extraction.letters.is_subset(&question.labels));
        assert!(question.multi || extraction.letters.len() == 1);
    };
    if let Ok(extraction) = extract_choice(text, &question) {
        check(&extraction);
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        if let Ok(extraction) = extract_from_answer(&value, &question) {
            check(&extraction);
        }
    }
}

/// A dropped file's format detection, as the scoring page runs it on every
/// file (first byte: the file name's extension). A detected file has a
/// label that names its item count, and a count no larger than its bytes
/// allow (every item takes at least one byte).
pub fn detect(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let names = [
        "results.jsonl",
        "results.json",
        "data.zip",
        "view.png",
        "file",
    ];
    let name = names[usize::from(pick) % names.len()];
    if let Ok(detected) = detect_format(name, rest) {
        assert!(
            detected.items <= rest.len(),
            "{} items in {} bytes",
            detected.items,
            rest.len()
        );
        assert!(detected.label().contains(&detected.items.to_string()));
    }
}
