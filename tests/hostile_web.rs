//! Hostile files in the page (issue #12): the core compiled to WebAssembly
//! and run in headless Chromium refuses them with the same messages and
//! bounds as natively, so a dropped or fetched file cannot take the tab's
//! memory. These are the functions the page calls on a bundle (`load_bytes`,
//! `load_files`), the library index, a dataset zip and an RLE mask.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(target_arch = "wasm32")]
#![allow(clippy::disallowed_methods)] // tests, benches and tools read their own fixtures and files directly (#47)

use std::io::Write;

use base64::Engine as _;
use knoblab_core::bundle::{load_bytes, load_files, LibraryIndex};
use knoblab_score::epic::{pyjson, rle};
use knoblab_score::finestate::files::MemFiles;
use serde_json::{json, Value};
use wasm_bindgen_test::*;

#[path = "support/bomb.rs"]
mod bomb;
#[path = "support/png.rs"]
mod png;

wasm_bindgen_test_configure!(run_in_browser);

/// The lamp's single-file form with `front` replaced by `front_png`; the
/// other views are one-pixel PNGs (their boxes do not matter here).
fn lamp_with_front(front_png: &[u8]) -> Vec<u8> {
    let url = |bytes: &[u8]| {
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    };
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let mut views = parse(include_str!("fixtures/lamp/views.json"));
    views["front"]["file"] = json!(url(front_png));
    views["top"]["file"] = json!(url(&png::png_header(1, 1)));
    views["front_top"]["file"] = json!(url(&png::png_header(1, 1)));
    serde_json::to_vec(&json!({
        "manifest": parse(include_str!("fixtures/lamp/manifest.json")),
        "ssm": parse(include_str!("fixtures/lamp/ssm.json")),
        "views": views,
        "tasks": parse(include_str!("fixtures/lamp/tasks.json")),
    }))
    .unwrap()
}

#[wasm_bindgen_test]
fn a_png_declaring_100000_by_100000_pixels_is_refused_in_the_browser() {
    let err = load_bytes(
        "huge.json",
        &lamp_with_front(&png::png_header(100_000, 100_000)),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains(
            "views.json, field front.file: the data: URL: the image header declares \
             100000×100000 = 10000000000 pixels; at most 40000000"
        ),
        "{err}"
    );
}

#[wasm_bindgen_test]
fn a_bundle_zip_bomb_is_refused_at_the_per_file_cap_in_the_browser() {
    let err = load_bytes("bomb.zip", &bomb::zip_bomb("manifest.json", 33))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "manifest.json: zip entry `manifest.json` declares 33 MiB once decompressed; at most \
             32 MiB is read per file"
        ),
        "{err}"
    );
}

#[wasm_bindgen_test]
fn json_nested_100000_deep_is_refused_in_the_browser() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let err = load_bytes("deep.json", deep.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("recursion limit exceeded"), "{err}");
    // A dropped folder whose manifest nests as deep.
    let object = format!("{}{}", r#"{"a":"#.repeat(100_000), "}".repeat(100_000));
    let err = load_files(
        "dropped",
        vec![("manifest.json".into(), object.into_bytes())],
    )
    .unwrap_err()
    .to_string();
    // Its unknown key is skipped without recursion, to the end of the line.
    assert!(
        err.contains("manifest.json:1:500001: not valid JSON"),
        "{err}"
    );
    let err = LibraryIndex::parse(deep.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("library index: invalid type: sequence"),
        "{err}"
    );
}

#[wasm_bindgen_test]
fn a_dataset_zip_entry_declaring_1_gib_is_refused_before_inflating() {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    zip.start_file("web_en/web.jsonl", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"{}\n").unwrap();
    zip.finish().unwrap();
    // Make both headers declare 1 GiB uncompressed.
    let mut bytes = out.into_inner();
    let at = |sig: &[u8], bytes: &[u8]| bytes.windows(4).position(|w| w == sig).unwrap();
    let local = at(b"PK\x03\x04", &bytes);
    bytes[local + 22..local + 26].copy_from_slice(&(1u32 << 30).to_le_bytes());
    let central = at(b"PK\x01\x02", &bytes);
    bytes[central + 24..central + 28].copy_from_slice(&(1u32 << 30).to_le_bytes());
    let err = MemFiles::from_zip(&bytes).unwrap_err().to_string();
    assert_eq!(
        err,
        "zip entry `web_en/web.jsonl` declares 1024 MiB once decompressed; at most 256 MiB is \
         read per file"
    );
}

#[wasm_bindgen_test]
fn an_rle_past_its_declared_size_is_refused_in_the_browser() {
    let v = pyjson::loads(r#"{"size": [2, 2], "counts": [1, 5, 1000000]}"#).unwrap();
    assert_eq!(
        rle::decode_instance(&v).unwrap_err().to_string(),
        "RLE runs cover 1000006 pixels but the size 2×2 has only 4"
    );
}

// ---- the input layer (issue #23), as the page runs it ------------------------

/// The lamp bundle as dropped folder files, `ssm.json` replaced.
fn lamp_files(ssm: Vec<u8>) -> Vec<(String, Vec<u8>)> {
    vec![
        (
            "manifest.json".into(),
            include_bytes!("fixtures/lamp/manifest.json").to_vec(),
        ),
        ("ssm.json".into(), ssm),
        (
            "views.json".into(),
            include_bytes!("fixtures/lamp/views.json").to_vec(),
        ),
        (
            "tasks.json".into(),
            include_bytes!("fixtures/lamp/tasks.json").to_vec(),
        ),
    ]
}

#[wasm_bindgen_test]
fn a_bom_is_stripped_utf16_named_and_duplicate_keys_refused_in_the_browser() {
    let ssm = include_str!("fixtures/lamp/ssm.json");
    // With a BOM, the ssm reads as without one: the errors left are only
    // the missing images of this in-memory copy.
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(ssm.as_bytes());
    let err = load_files("lamp", lamp_files(with_bom))
        .unwrap_err()
        .to_string();
    assert!(!err.contains("ssm.json: not valid JSON"), "{err}");

    let mut utf16 = vec![0xFF, 0xFE];
    for unit in ssm.encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    let err = load_files("lamp", lamp_files(utf16))
        .unwrap_err()
        .to_string();
    assert!(err.contains("the text is UTF-16 LE"), "{err}");

    let doubled = ssm.replacen(
        "\"states\": {",
        "\"states\": {\"X\": {\"on\": {}}, \"X\": {\"on\": {}},",
        1,
    );
    let err = load_files("lamp", lamp_files(doubled.into_bytes()))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the key \"X\" appears twice in one object"),
        "{err}"
    );
}

#[wasm_bindgen_test]
fn trajectory_files_are_refused_when_empty_or_copied_in_the_browser() {
    use knoblab_core::metrics::file::read_trajectory_file;
    let err = read_trajectory_file("run.jsonl", b"")
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds no episode"), "{err}");
    let err = read_trajectory_file("run.jsonl", b"{\"a\": 1, \"a\": 2}\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("run.jsonl:1:") && err.contains("appears twice"),
        "{err}"
    );
}

#[wasm_bindgen_test]
fn paths_inside_files_stay_under_their_root_in_the_browser() {
    use knoblab_core::input::path::normalize;
    for bad in ["/dev/zero", "../x", "a/../../b", "C:/x"] {
        assert!(normalize(bad).is_err(), "{bad}");
    }
    let lines = "{\"response\": 1, \"images\": [{\"path\": \"a.jpg\"}]}\nbroken\n{\"response\": 1, \"images\": [{\"path\": \"a.jpg\"}]}\n";
    let intake = knoblab_score::epic::intake::intake(lines);
    assert_eq!(intake.skipped.len(), 1);
    assert_eq!(intake.duplicates.len(), 1);
}
