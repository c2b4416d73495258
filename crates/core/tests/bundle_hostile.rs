//! Hostile input: refused with a message, never a panic, never an
//! out-of-memory. The bounds are in `knoblab_core::bundle::limits`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::path::Path;

use knoblab_core::bundle::limits::{MAX_FILE_BYTES, MAX_IMAGE_PIXELS};
use knoblab_core::bundle::{check_bytes, load_bytes, load_path, Checked};
use proptest::prelude::*;
use support::png::png_header;

#[path = "../../../tests/support/mod.rs"]
mod support;

fn messages(checked: &Checked) -> String {
    checked
        .diagnostics
        .iter()
        .map(|d| format!("{d}\n"))
        .collect()
}

fn lamp() -> knoblab_core::bundle::Bundle {
    load_path(&Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/lamp"))
        .unwrap()
}

/// The lamp in single-JSON form, with one view's file replaced.
fn lamp_with_front_image(png: &[u8]) -> Vec<u8> {
    use base64::Engine;
    let mut single = lamp().to_single_json();
    single["views"]["front"]["file"] = serde_json::Value::String(format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    ));
    serde_json::to_vec(&single).unwrap()
}

#[test]
fn a_png_declaring_100000_by_100000_pixels_is_refused_from_its_header() {
    let checked = check_bytes(
        "huge.json",
        &lamp_with_front_image(&png_header(100_000, 100_000)),
    );
    assert!(checked.has_errors());
    let text = messages(&checked);
    assert!(
        text.contains(
            "views.json, field front.file: the data: URL: the image header declares 100000×100000"
        ),
        "{text}"
    );
    assert!(text.contains(&MAX_IMAGE_PIXELS.to_string()), "{text}");
}

#[test]
fn a_png_just_under_the_pixel_cap_is_read_from_its_header() {
    // 40 megapixels exactly: accepted, and never decoded (the header-only
    // file has no pixel data at all).
    let checked = check_bytes("big.json", &lamp_with_front_image(&png_header(8000, 5000)));
    let text = messages(&checked);
    // Accepted as an image; its boxes are scaled to it.
    assert!(!text.contains("front.file"), "{text}");
    let bundle = checked.bundle.unwrap();
    assert_eq!(bundle.views["front"].image.width, 8000);
}

#[test]
fn a_zip_bomb_entry_is_refused_at_the_per_file_cap() {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(false);
    zip.start_file("manifest.json", options).unwrap();
    // Zeros compress about 1000:1; one more byte than the cap allows.
    let zeros = vec![b' '; 1024 * 1024];
    for _ in 0..(MAX_FILE_BYTES / zeros.len()) {
        zip.write_all(&zeros).unwrap();
    }
    zip.write_all(b" ").unwrap();
    zip.finish().unwrap();
    let bytes = out.into_inner();
    assert!(bytes.len() < 200_000, "the bomb is small: {}", bytes.len());
    let checked = check_bytes("bomb.zip", &bytes);
    let text = messages(&checked);
    assert!(
        text.contains(
            "manifest.json: zip entry `manifest.json` declares 32.0 MiB (33554433 bytes) once \
             decompressed; at most 32 MiB is read per file"
        ),
        "{text}"
    );
}

#[test]
fn json_nested_100000_deep_is_refused_cleanly() {
    let mut deep = "[".repeat(100_000);
    deep.push_str(&"]".repeat(100_000));
    let checked = check_bytes("deep.json", deep.as_bytes());
    let text = messages(&checked);
    assert!(text.contains("recursion limit exceeded"), "{text}");
    assert!(text.contains("deep.json:1:"), "{text}");

    // The same, as the manifest of a zip.
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    zip.start_file("manifest.json", zip::write::SimpleFileOptions::default())
        .unwrap();
    let object = format!("{}{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    zip.write_all(object.as_bytes()).unwrap();
    zip.finish().unwrap();
    let checked = check_bytes("deep.zip", &out.into_inner());
    assert!(
        messages(&checked).contains("manifest.json:1:"),
        "{}",
        messages(&checked)
    );
}

#[test]
fn garbage_is_refused_with_a_message() {
    for (name, bytes) in [
        ("empty", &b""[..]),
        ("nul", &b"\0\0\0\0"[..]),
        ("text", &b"hello"[..]),
        ("number", &b"42"[..]),
        ("array", &b"[]"[..]),
        ("object", &b"{}"[..]),
        ("fake zip", &b"PK\x03\x04 and then nothing"[..]),
        ("utf8 bom", &b"\xef\xbb\xbf{}"[..]),
    ] {
        let err = load_bytes(name, bytes).unwrap_err();
        assert!(!err.diagnostics.is_empty(), "{name}");
        assert!(err.to_string().starts_with(name), "{name}: {err}");
    }
    let err = load_bytes("object", b"{}").unwrap_err();
    assert_eq!(err.diagnostics.len(), 4, "each missing key: {err}");
}

#[test]
fn a_single_json_view_must_be_a_data_url() {
    let mut single = lamp().to_single_json();
    single["views"]["top"]["file"] = "views/top.png".into();
    let checked = check_bytes("b.json", &serde_json::to_vec(&single).unwrap());
    assert!(
        messages(&checked).contains("in the single-file form a view's file must be a data: URL")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = load_bytes("fuzz", &bytes);
    }

    #[test]
    fn arbitrary_zip_like_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = b"PK\x03\x04".to_vec();
        bytes.extend(tail);
        let _ = load_bytes("fuzz.zip", &bytes);
    }

    #[test]
    fn arbitrary_json_never_panics(value in arb_json()) {
        let _ = load_bytes("fuzz.json", value.to_string().as_bytes());
        // And shaped like a bundle, with the arbitrary value in each place.
        for key in ["manifest", "ssm", "views", "tasks"] {
            let mut single = serde_json::json!({
                "manifest": {}, "ssm": {}, "views": {}, "tasks": {}
            });
            single[key] = value.clone();
            let _ = load_bytes("fuzz.json", single.to_string().as_bytes());
        }
    }

    #[test]
    fn mutated_lamp_bundles_never_panic(
        path in proptest::collection::vec(0usize..8, 1..6),
        replacement in arb_json(),
    ) {
        // Replace one value somewhere inside the lamp's single-JSON form.
        let mut single = lamp().to_single_json();
        replace_at(&mut single, &path, replacement);
        let _ = check_bytes("mutated.json", single.to_string().as_bytes());
    }
}

/// Replaces the value found by following `path` (each step picks a key or
/// an item, modulo their count) as far as it goes.
fn replace_at(value: &mut serde_json::Value, path: &[usize], replacement: serde_json::Value) {
    let Some((&step, rest)) = path.split_first() else {
        *value = replacement;
        return;
    };
    let child = match value {
        serde_json::Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(step % map.len()).cloned();
            key.and_then(|k| map.get_mut(&k))
        }
        serde_json::Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            items.get_mut(step % n)
        }
        _ => None,
    };
    match child {
        Some(child) => replace_at(child, rest, replacement),
        None => *value = replacement,
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1e6f64..1e6).prop_map(serde_json::Value::from),
        "[a-zA-Z_:/ .0-9]{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            proptest::collection::btree_map("[a-z_]{1,8}", inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn a_zip_listing_too_many_entries_is_refused() {
    use knoblab_core::bundle::limits::MAX_ZIP_ENTRIES;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..=MAX_ZIP_ENTRIES {
        zip.start_file(format!("f{i}"), options).unwrap();
    }
    zip.finish().unwrap();
    let text = messages(&check_bytes("many.zip", &out.into_inner()));
    assert!(
        text.contains("the zip lists 10001 entries; at most 10000"),
        "{text}"
    );
}

#[test]
fn a_file_with_thousands_of_problems_lists_a_bounded_number() {
    use knoblab_core::bundle::limits::MAX_DIAGNOSTICS;
    let mut single = lamp().to_single_json();
    let mut states = serde_json::Map::new();
    for i in 0..3000 {
        states.insert(
            format!("S{i}"),
            serde_json::json!({"description": "", "on": {
                "immediate": [{"next_state": format!("Missing{i}")}]}}),
        );
    }
    single["ssm"]["states"] = serde_json::Value::Object(states);
    single["ssm"]["initial_state"] = "S0".into();
    let checked = check_bytes("many.json", single.to_string().as_bytes());
    assert_eq!(checked.diagnostics.len(), MAX_DIAGNOSTICS + 1);
    let last = checked.diagnostics.last().unwrap();
    assert!(last.is_error());
    assert!(last.message.starts_with("… and "), "{}", last.message);
    // Each message lists a bounded number of state names.
    let first = &checked.diagnostics[0].message;
    assert!(
        first.len() < 400 && first.ends_with("… and 2980 more"),
        "{first}"
    );
}
