//! Hostile results files and ground truth for the scorers (issue #12):
//! refused with a message that states the bound, never a panic, never an
//! out-of-memory. The bounds are in `knoblab_score::limits`; bundles have
//! theirs in `knoblab_core::bundle::limits` (see `tests/bundle_hostile.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests: a panic here is a failed test
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;

use knoblab_core::bundle::LibraryIndex;
use knoblab_score::epic::pyjson;
use knoblab_score::epic::rle::{decode_instance, RleError, MAX_PIXELS};
use knoblab_score::finestate::files::MemFiles;
use knoblab_score::finestate::predictions::read_predictions;
use knoblab_score::limits::MAX_RESULTS_FILE_BYTES;
use knoblab_score::switch::{predictions, GroundTruth};
use support::bomb::zip_bomb;

#[path = "../../../tests/support/mod.rs"]
mod support;

/// Rewrites the uncompressed size that `bytes`' local and central headers
/// declare for its one entry, so the header lies about what the data
/// decompresses to.
fn declare_size(mut bytes: Vec<u8>, size: u32) -> Vec<u8> {
    let find = |sig: &[u8], bytes: &[u8]| bytes.windows(4).position(|w| w == sig).unwrap();
    let local = find(b"PK\x03\x04", &bytes);
    bytes[local + 22..local + 26].copy_from_slice(&size.to_le_bytes());
    let central = find(b"PK\x01\x02", &bytes);
    bytes[central + 24..central + 28].copy_from_slice(&size.to_le_bytes());
    bytes
}

/// More than [`MAX_RESULTS_FILE_BYTES`] once decompressed.
const BOMB_MIB: usize = (MAX_RESULTS_FILE_BYTES / (1024 * 1024)) as usize + 1;

/// A web annotation file of [`BOMB_MIB`] MiB in a dataset zip, built once
/// (deflating 257 MiB takes a few seconds) for the tests that share it.
fn dataset_bomb() -> &'static [u8] {
    static BOMB: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BOMB.get_or_init(|| zip_bomb("dataset/web_en/web.jsonl", BOMB_MIB))
}

#[test]
fn a_dataset_zip_bomb_is_refused_by_its_declared_size() {
    let bomb = dataset_bomb();
    assert!(bomb.len() < 400_000, "the bomb is small: {}", bomb.len());
    let err = MemFiles::from_zip(bomb).unwrap_err().to_string();
    assert_eq!(
        err,
        "zip entry `dataset/web_en/web.jsonl` declares 257 MiB once decompressed; at most \
         256 MiB is read per file"
    );
    let err = GroundTruth::from_bytes("gt.zip", &zip_bomb("root/a/b/vqa.json", BOMB_MIB))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gt.zip") && err.contains("declares 257 MiB") && err.contains("256 MiB"),
        "{err}"
    );
}

#[test]
fn a_zip_bomb_whose_header_lies_stops_at_the_cap() {
    // The header says 100 bytes; the data inflates past the cap. Reading
    // stops one byte past it, whatever the header says.
    let bomb = declare_size(dataset_bomb().to_vec(), 100);
    let err = MemFiles::from_zip(&bomb).unwrap_err().to_string();
    assert_eq!(
        err,
        "zip entry `dataset/web_en/web.jsonl` decompresses to more than 256 MiB; at most \
         256 MiB is accepted per file"
    );
}

#[test]
fn a_small_dataset_zip_still_reads() {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    zip.start_file(
        "root/vqa_task/img2txt/vqa.json",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip.write_all(br#"{"data": [{"id": 0, "query": "Which?\nA. Red\nB. Blue", "GT": "B", "output_schema": {"type": "choice"}}]}"#)
        .unwrap();
    zip.finish().unwrap();
    let gt = GroundTruth::from_bytes("gt.zip", &out.into_inner()).unwrap();
    assert_eq!(gt.items.len(), 1);
}

/// `[[[…]]]`, `depth` deep.
fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn json_nested_100000_deep_is_refused_by_every_reader() {
    let deep = nested(100_000);
    // The library index (the page fetches it first) is typed all the way
    // down, so the nesting is refused at its first level.
    let err = LibraryIndex::parse(deep.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("library index: invalid type: sequence"),
        "{err}"
    );
    let index = format!(r#"{{"format": "knoblab-library/1", "devices": {deep}}}"#);
    let err = LibraryIndex::parse(index.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("invalid type: sequence") && err.contains("column 45"),
        "{err}"
    );
    // SWITCH ground truth and predictions.
    let err = GroundTruth::from_bytes("vqa.json", deep.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("recursion limit exceeded"), "{err}");
    let err = predictions::read_predictions("pred.jsonl", deep.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("recursion limit exceeded"), "{err}");
    // FineState results.
    let err = read_predictions("m_results.json", deep.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(err.contains("recursion limit exceeded"), "{err}");
    // EPIC's Python-compatible reader, which stops at 512 levels.
    let err = pyjson::loads(&deep).unwrap_err();
    assert!(
        err.to_string().contains("invalid JSON at byte 512"),
        "{err}"
    );
    assert!(pyjson::loads(&nested(512)).is_ok());
}

#[test]
fn an_rle_that_decodes_past_its_declared_size_is_refused() {
    // 2×2 = 4 pixels declared; the runs cover 1 + 5 + 1000000 of them.
    let v = pyjson::loads(r#"{"size": [2, 2], "counts": [1, 5, 1000000]}"#).unwrap();
    let err = decode_instance(&v).unwrap_err();
    assert_eq!(
        err,
        RleError::PastDeclaredSize {
            covered: 1_000_006,
            height: 2,
            width: 2,
            total: 4
        }
    );
    assert_eq!(
        err.to_string(),
        "RLE runs cover 1000006 pixels but the size 2×2 has only 4"
    );
    // The same in the compressed string form: "1" "5" then a long run.
    let v = pyjson::loads(r#"{"size": [2, 2], "counts": "15o@1"}"#).unwrap();
    assert!(matches!(
        decode_instance(&v),
        Err(RleError::PastDeclaredSize { total: 4, .. })
    ));
    // A declared size past the pixel bound is refused before anything is
    // allocated for it.
    let v = pyjson::loads(r#"{"size": [100000, 100000], "counts": [0]}"#).unwrap();
    assert_eq!(
        decode_instance(&v).unwrap_err().to_string(),
        format!("RLE size 100000×100000 exceeds the limit of {MAX_PIXELS} pixels")
    );
}
