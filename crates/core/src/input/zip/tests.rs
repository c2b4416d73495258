//! Tests of `zip` (kept apart so that the module reads as one idea).

use super::*;
use std::io::Write;

fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut out);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, bytes) in files {
            w.start_file(*name, opts).unwrap();
            w.write_all(bytes).unwrap();
        }
        w.finish().unwrap();
    }
    out.into_inner()
}

#[test]
fn entries_are_read_within_the_bounds() {
    let zip = zip_of(&[("a.json", b"{}"), ("b.png", b"PNG"), ("big", &[0u8; 5000])]);
    let small = ZipLimits {
        entries: 3,
        entry_bytes: 4096,
        total_bytes: 4100,
    };
    let mut z = BoundedZip::open(&zip, small).unwrap();
    assert_eq!(z.read_name("a.json").unwrap(), Some(b"{}".to_vec()));
    assert_eq!(z.read_name("missing").unwrap(), None);
    let err = z.read_name("big").unwrap_err().to_string();
    assert!(
        err.contains("`big` declares 5000 bytes once decompressed; at most 4 KiB"),
        "{err}"
    );
    let listed = z.entries(|n| n.ends_with(".json")).unwrap();
    assert_eq!(listed[0], ("a.json".to_string(), b"{}".to_vec()));
    assert_eq!(listed[1], ("b.png".to_string(), Vec::new()));

    let few = ZipLimits {
        entries: 2,
        ..small
    };
    let err = BoundedZip::open(&zip, few).err().unwrap().to_string();
    assert!(err.contains("lists 3 entries; at most 2"), "{err}");

    let tight = ZipLimits {
        total_bytes: 4,
        ..small
    };
    let mut z = BoundedZip::open(&zip, tight).unwrap();
    z.read_name("a.json").unwrap();
    let err = z.read_name("b.png").unwrap_err().to_string();
    assert!(err.contains("more than 4 bytes in all"), "{err}");

    // A fresh reader shares the central directory, not the count of
    // bytes read: it starts again at zero, within the same limits.
    let mut again = z.fresh();
    assert_eq!(again.names(), z.names());
    assert_eq!(again.read_name("b.png").unwrap(), Some(b"PNG".to_vec()));
    let err = again.read_name("a.json").unwrap_err().to_string();
    assert!(err.contains("more than 4 bytes in all"), "{err}");
}

#[test]
fn an_entry_read_in_one_pass_equals_the_streamed_one_and_faults_go_the_streamed_way() {
    let text = "{\"counts\": \"PQ3a1\"}\n".repeat(400);
    let mut out = Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut out);
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let stored = deflated.compression_method(zip::CompressionMethod::Stored);
        for (name, opts, bytes) in [
            ("s.txt", stored, &b"stored bytes"[..]),
            ("d.json", deflated, text.as_bytes()),
            ("empty", deflated, b""),
            ("empty-stored", stored, b""),
        ] {
            w.start_file(name, opts).unwrap();
            w.write_all(bytes).unwrap();
        }
        w.add_directory("folder/", deflated).unwrap();
        w.finish().unwrap();
    }
    let zip = out.into_inner();
    let mut z = BoundedZip::open(&zip, ZipLimits::RESULTS).unwrap();
    let mut whole = 0;
    for i in 0..z.len() {
        let fast = z.read_whole(i);
        let streamed = z.read_streamed(i).unwrap();
        match streamed {
            Some(entry) => {
                assert_eq!(fast.as_ref(), Some(&entry), "entry {i}");
                whole += 1;
            }
            None => assert_eq!(fast, None, "entry {i} is a folder"),
        }
    }
    assert_eq!(whole, 4);
    assert_eq!(z.read_name("d.json").unwrap(), Some(text.into_bytes()));

    // A stored entry whose bytes no longer match its CRC-32: not taken
    // in one pass, and the streamed read names the entry.
    let mut bad = zip.clone();
    let at = bad.windows(12).position(|w| w == b"stored bytes").unwrap();
    bad[at] = b'S';
    let mut z = BoundedZip::open(&bad, ZipLimits::RESULTS).unwrap();
    assert_eq!(z.read_whole(0), None);
    let err = z.read_name("s.txt").unwrap_err().to_string();
    assert!(err.contains("zip entry `s.txt` could not be read"), "{err}");
    // The other entries still read, in one pass.
    assert!(z.read_whole(1).is_some());

    // `d.json` declaring 10 bytes in the central directory (it inflates
    // to 8,000): never taken in one pass; read_index reads it the
    // streamed way, with the streamed way's result.
    let mut lying = zip.clone();
    let cd = lying
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == [0x50, 0x4b, 0x01, 0x02])
        .map(|(i, _)| i)
        .nth(1)
        .unwrap();
    lying[cd + 24..cd + 28].copy_from_slice(&10u32.to_le_bytes());
    let mut z = BoundedZip::open(&lying, ZipLimits::RESULTS).unwrap();
    assert!(matches!(&z.listing, Listing::Plain(p) if p.entries[1].size == 10));
    assert_eq!(z.read_whole(1), None);
    let streamed = z.read_streamed(1).map_err(|e| e.to_string());
    let mut z = BoundedZip::open(&lying, ZipLimits::RESULTS).unwrap();
    assert_eq!(z.read_index(1).map_err(|e| e.to_string()), streamed);
}

/// What a reader makes of a zip: its names and, for each entry, what
/// reading it by index and by name gives (errors as their messages).
type Seen = Result<Vec<(Option<String>, ReadSeen, ReadSeen)>, String>;
type ReadSeen = Result<Option<Vec<u8>>, String>;

fn seen(opened: Result<BoundedZip<'_>, InputError>) -> Seen {
    let mut z = opened.map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for i in 0..z.len() + 1 {
        let name = z.name(i).map(str::to_string);
        let by_index = z
            .read_index(i)
            .map(|e| e.map(|(_, bytes)| bytes))
            .map_err(|e| e.to_string());
        let by_name = z
            .read_name(name.as_deref().unwrap_or("not in the zip"))
            .map_err(|e| e.to_string());
        out.push((name, by_index, by_name));
    }
    Ok(out)
}

/// A zip of `files` (name, bytes, deflated?), folders for names ending
/// in `/`, and a comment; with `extras`, each entry's central header
/// carries the extra fields common zip tools write: 7-Zip's NTFS
/// times, Info-ZIP's timestamp and Unix ids.
fn zip_with(files: &[(String, Vec<u8>, bool)], comment: &str, extras: bool) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut out);
        for (name, bytes, deflated) in files {
            let mut opts = zip::write::FileOptions::<zip::write::ExtendedFileOptions>::default()
                .compression_method(if *deflated {
                    zip::CompressionMethod::Deflated
                } else {
                    zip::CompressionMethod::Stored
                });
            if extras {
                // The writer refuses NTFS's id: the field goes in under
                // a stand-in id, swapped below.
                let mut ntfs = vec![0u8; 32];
                ntfs[4..8].copy_from_slice(&[1, 0, 24, 0]);
                let fields = [
                    (NTFS_STAND_IN, ntfs),
                    (0x5455, vec![1, 0, 0, 0, 0]),
                    (0x7875, vec![1, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0]),
                ];
                for (id, data) in fields {
                    opts.add_extra_data(id, data.into_boxed_slice(), true)
                        .unwrap();
                }
            }
            if name.ends_with('/') {
                w.add_directory(name.as_str(), opts).unwrap();
            } else {
                w.start_file(name.as_str(), opts).unwrap();
                w.write_all(bytes).unwrap();
            }
        }
        w.set_comment(comment);
        w.finish().unwrap();
    }
    let mut zip = out.into_inner();
    let stand_in = [
        &NTFS_STAND_IN.to_le_bytes()[..],
        &[32, 0, 0, 0, 0, 0, 1, 0, 24, 0],
    ]
    .concat();
    for at in 0..zip.len().saturating_sub(stand_in.len()) {
        if zip[at..].starts_with(&stand_in) {
            zip[at..at + 2].copy_from_slice(&0x000au16.to_le_bytes());
        }
    }
    zip
}

/// The id [`zip_with`] writes NTFS times under, then swaps for theirs.
const NTFS_STAND_IN: u16 = 0x4e54;

#[test]
fn a_plain_zip_is_read_without_the_zip_crate_and_others_with_it() {
    let files = vec![
        (
            "gt/a_mask_rle.json".to_string(),
            b"{\"a\": 1}".repeat(50),
            true,
        ),
        ("gt/".to_string(), Vec::new(), true),
        ("gt/é.txt".to_string(), b"stored".to_vec(), false),
    ];
    let plain = zip_with(&files, "", false);
    let z = BoundedZip::open(&plain, ZipLimits::RESULTS).unwrap();
    assert!(matches!(z.listing, Listing::Plain(_)));
    assert_eq!(z.names(), ["gt/a_mask_rle.json", "gt/", "gt/é.txt"]);
    let mut z = z.fresh();
    assert_eq!(z.read_name("gt/é.txt").unwrap(), Some(b"stored".to_vec()));
    assert_eq!(z.read_index(1).unwrap(), None, "a folder");
    assert!(
        z.streamed.is_none(),
        "read in one pass, without the zip crate"
    );
    assert_eq!(
        seen(BoundedZip::open(&plain, ZipLimits::RESULTS)),
        seen(BoundedZip::open_with_crate(&plain, ZipLimits::RESULTS))
    );

    // A zip's comment keeps it plain.
    let commented = zip_with(&files, "made by hand", false);
    let z = BoundedZip::open(&commented, ZipLimits::RESULTS).unwrap();
    assert!(matches!(z.listing, Listing::Plain(_)));
    assert_eq!(
        seen(Ok(z)),
        seen(BoundedZip::open_with_crate(&commented, ZipLimits::RESULTS))
    );

    // A comment that looks like the end of a zip, bytes before the zip
    // (as a self-extracting one has) and Zip64 fields: the zip crate
    // reads them, as before.
    let signed = zip_with(&files, "PK\x05\x06 is where a zip's directory ends", false);
    let mut prefixed = b"#!/bin/sh\n".to_vec();
    prefixed.extend_from_slice(&plain);
    let mut zip64 = Cursor::new(Vec::new());
    {
        let mut w = zip::ZipWriter::new(&mut zip64);
        let opts = zip::write::SimpleFileOptions::default().large_file(true);
        w.start_file("x", opts).unwrap();
        w.write_all(b"zip64").unwrap();
        w.finish().unwrap();
    }
    let zip64 = zip64.into_inner();
    for (label, zip) in [
        ("signed", &signed),
        ("prefixed", &prefixed),
        ("zip64", &zip64),
    ] {
        let z = BoundedZip::open(zip, ZipLimits::RESULTS).unwrap();
        assert!(matches!(z.listing, Listing::Crate(_)), "{label}");
        assert_eq!(
            seen(Ok(z)),
            seen(BoundedZip::open_with_crate(zip, ZipLimits::RESULTS)),
            "{label}"
        );
    }
    assert_eq!(
        BoundedZip::open(&prefixed, ZipLimits::RESULTS)
            .unwrap()
            .read_name("gt/é.txt")
            .unwrap(),
        Some(b"stored".to_vec())
    );

    // Two entries of one name (the second's renamed in the central
    // directory): the zip crate lists the name once, so it reads them.
    let mut twice = zip_with(
        &[
            ("a1".to_string(), b"first".to_vec(), true),
            ("a2".to_string(), b"second".to_vec(), true),
        ],
        "",
        false,
    );
    let directory = twice.windows(4).position(|w| w == CENTRAL_HEADER).unwrap();
    let renamed = directory
        + twice[directory..]
            .windows(2)
            .position(|w| w == b"a2")
            .unwrap();
    twice[renamed + 1] = b'1';
    let z = BoundedZip::open(&twice, ZipLimits::RESULTS).unwrap();
    assert!(matches!(z.listing, Listing::Crate(_)));
    assert_eq!(z.len(), 1);
    assert_eq!(
        seen(Ok(z)),
        seen(BoundedZip::open_with_crate(&twice, ZipLimits::RESULTS))
    );

    // Extra fields the zip crate skips or reads without fault keep a
    // zip plain: 7-Zip's NTFS times, Info-ZIP's timestamp and Unix ids.
    let extras = zip_with(&files, "", true);
    assert!(
        extras.windows(4).any(|w| w == [0x0a, 0, 32, 0]),
        "NTFS times"
    );
    let z = BoundedZip::open(&extras, ZipLimits::RESULTS).unwrap();
    assert!(matches!(z.listing, Listing::Plain(_)));
    assert_eq!(
        seen(Ok(z)),
        seen(BoundedZip::open_with_crate(&extras, ZipLimits::RESULTS))
    );
}

/// A file for [`plain_listing_equals_the_zip_crates`]: a name from a
/// small alphabet (folders and multi-byte letters among them), bytes
/// that compress, stored or deflated.
fn file() -> impl proptest::strategy::Strategy<Value = (String, Vec<u8>, bool)> {
    use proptest::prelude::*;
    (
        "[ab/é]{1,6}",
        proptest::collection::vec(prop_oneof![Just(b'a'), any::<u8>()], 0..300),
        any::<bool>(),
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// Whenever a zip is plain, reading it without the zip crate gives
    /// what reading it with the crate gives, entry by entry, by index
    /// and by name, errors included; over zips with bytes changed at
    /// random, mostly in the central directory, where plainness is
    /// decided, with and without extra fields.
    #[test]
    fn plain_listing_equals_the_zip_crates(
        files in proptest::collection::vec(file(), 0..6),
        changes in proptest::collection::vec((0.0f64..1.0, proptest::prelude::any::<u8>(), proptest::prelude::any::<bool>()), 0..3),
        tight in proptest::prelude::any::<bool>(),
        extras in proptest::prelude::any::<bool>(),
    ) {
        let mut unique = files.clone();
        unique.sort_by(|a, b| a.0.cmp(&b.0));
        unique.dedup_by(|a, b| a.0 == b.0);
        let mut zip = zip_with(&unique, "", extras);
        let directory = zip.windows(4).position(|w| w == CENTRAL_HEADER).unwrap_or(zip.len() - 22);
        for (at, byte, anywhere) in changes {
            let from = if anywhere { 0 } else { directory };
            let last = zip.len() - 1;
            let i = from + ((zip.len() - from) as f64 * at) as usize;
            zip[i.min(last)] = byte;
        }
        let limits = if tight {
            ZipLimits { entries: 4, entry_bytes: 200, total_bytes: 400 }
        } else {
            ZipLimits::RESULTS
        };
        if Plain::read(&zip).is_some() {
            proptest::prop_assert_eq!(
                seen(BoundedZip::open(&zip, limits)),
                seen(BoundedZip::open_with_crate(&zip, limits))
            );
        }
    }
}
