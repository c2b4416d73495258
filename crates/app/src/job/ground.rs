//! The ground truth of a job, read from its pool once per benchmark, when
//! a results file first needs it; and the downloads the reports offer.
//!
//! EPIC-Bench reads one mask file per sample, so its ground truth
//! ([`DroppedGt`]) inflates a zip's entry only when a sample reads it: a
//! worker that scores every n-th sample inflates about 1/n of the zip.
//! FineState-Bench and SWITCH read the whole pool, zips unpacked.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::error::GroundError;
use super::files::{in_folder_of, Pool};
use super::{BundleFiles, Download, Failure, SwitchOptions};
use knoblab_core::bundle::{load_files, Bundle};
use knoblab_core::input::zip::BoundedZip;
use knoblab_score::epic::gt::held_key;
use knoblab_score::epic::GroundTruthSource;
use knoblab_score::finestate::files::MemFiles;
use knoblab_score::switch::{self, GroundTruth};

/// The suffix of an EPIC-Bench ground-truth file's name.
const EPIC_GT_SUFFIX: &str = "_mask_rle.json";

/// Where a held EPIC-Bench GT file's bytes are.
enum Held<'a> {
    /// A file dropped as it is.
    File(&'a [u8]),
    /// Entry `entry` of zip `zip` (an index into [`DroppedGt::zips`]).
    Entry { zip: usize, entry: usize },
}

/// EPIC-Bench's ground truth among a job's dropped files: the
/// `*_mask_rle.json` files dropped as they are and those inside dropped
/// zips, by [`held_key`]. A zip entry is inflated when a sample reads it,
/// not before; an entry that cannot be read counts as absent, and why is
/// kept ([`DroppedGt::refused`]).
pub struct DroppedGt<'a> {
    files: HashMap<String, Held<'a>>,
    zips: Vec<(&'a str, RefCell<BoundedZip<'a>>)>,
    refused: RefCell<Vec<Failure>>,
    inflated: Cell<usize>,
}

impl<'a> DroppedGt<'a> {
    /// The GT files of a pool: its mask files, and the mask entries of its
    /// zips (their central directories only are read here).
    pub(super) fn of(pool: &Pool<'a>) -> DroppedGt<'a> {
        let mut files = HashMap::new();
        for &(path, bytes) in pool
            .files
            .iter()
            .filter(|(p, _)| p.ends_with(EPIC_GT_SUFFIX))
        {
            files.insert(held_key(path), Held::File(bytes));
        }
        let mut zips = Vec::new();
        for (path, opened) in &pool.zips {
            // The pool's zip, its central directory read once for the job.
            let zip = opened.fresh();
            for entry in 0..zip.len() {
                let Some(name) = zip.name(entry).filter(|n| n.ends_with(EPIC_GT_SUFFIX)) else {
                    continue;
                };
                let key = held_key(&in_folder_of(path, name.to_string()));
                files.insert(
                    key,
                    Held::Entry {
                        zip: zips.len(),
                        entry,
                    },
                );
            }
            zips.push((*path, RefCell::new(zip)));
        }
        DroppedGt {
            files,
            zips,
            refused: RefCell::new(Vec::new()),
            inflated: Cell::new(0),
        }
    }

    /// How many zip entries were inflated so far.
    #[cfg(test)]
    fn inflated(&self) -> usize {
        self.inflated.get()
    }

    /// The zip entries that could not be read, each named by its zip
    /// with why (once per message).
    pub fn refused(&self) -> Vec<Failure> {
        self.refused.borrow().clone()
    }
}

impl GroundTruthSource for DroppedGt<'_> {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        match self.files.get(path)? {
            Held::File(bytes) => Some(bytes.to_vec()),
            Held::Entry { zip, entry } => {
                let (zip_path, archive) = self.zips.get(*zip)?;
                match archive.borrow_mut().read_index(*entry) {
                    Ok(found) => {
                        self.inflated.set(self.inflated.get() + 1);
                        found.map(|(_, bytes)| bytes)
                    }
                    Err(e) => {
                        let refused = Failure {
                            file: zip_path.to_string(),
                            message: format!("{zip_path}: {e}"),
                        };
                        let mut all = self.refused.borrow_mut();
                        if !all.contains(&refused) {
                            all.push(refused);
                        }
                        None
                    }
                }
            }
        }
    }

    /// A file [`Self::read`] handed out that the input layer's text rules
    /// refused (issue #47): named with why, as a refused zip entry is.
    fn refuse(&self, path: &str, why: String) {
        let path = knoblab_core::input::text::escape_controls(path).into_owned();
        let refused = Failure {
            message: format!("{path}: {why}"),
            file: path,
        };
        let mut all = self.refused.borrow_mut();
        if !all.contains(&refused) {
            all.push(refused);
        }
    }
}

/// The ground-truth pool, read once per benchmark when first needed.
pub(super) struct Ground<'a> {
    pool: &'a Pool<'a>,
    unpacked: Option<Vec<(String, Vec<u8>)>>,
    epic: Option<DroppedGt<'a>>,
    finestate: Option<MemFiles>,
    switch: Option<Result<GroundTruth, GroundError>>,
    bundles: Option<Result<Vec<Bundle>, GroundError>>,
    pub(super) downloads: Vec<Download>,
    /// Zips whose entries could not be read when a benchmark unpacked them.
    pub(super) failures: Vec<Failure>,
}

impl<'a> Ground<'a> {
    pub(super) fn new(pool: &'a Pool<'a>) -> Self {
        Ground {
            pool,
            unpacked: None,
            epic: None,
            finestate: None,
            switch: None,
            bundles: None,
            downloads: Vec::new(),
            failures: Vec::new(),
        }
    }

    pub(super) fn epic(&mut self) -> &DroppedGt<'a> {
        let pool = self.pool;
        self.epic.get_or_insert_with(|| DroppedGt::of(pool))
    }

    /// Every file of the pool, zips unpacked, once.
    fn unpacked(&mut self) -> &[(String, Vec<u8>)] {
        let (pool, failures) = (self.pool, &mut self.failures);
        self.unpacked.get_or_insert_with(|| pool.unpacked(failures))
    }

    pub(super) fn finestate(&mut self) -> &MemFiles {
        if self.finestate.is_none() {
            let mut m = MemFiles::new();
            for (p, b) in self.unpacked() {
                m.insert(p, b.clone());
            }
            self.finestate = Some(m.rooted());
        }
        self.finestate.get_or_insert_with(MemFiles::new)
    }

    pub(super) fn switch(&mut self, options: &SwitchOptions) -> Result<&GroundTruth, GroundError> {
        if self.switch.is_none() {
            let loaded = (|| {
                let mut load = switch::LoadOptions::default();
                for s in &options.splits {
                    load.splits.push(switch::LoadOptions::parse_split(s)?);
                }
                GroundTruth::from_files_with(
                    self.unpacked()
                        .iter()
                        .map(|(p, b)| (p.as_str(), b.as_slice())),
                    &load,
                )
                .map_err(GroundError::Switch)
            })();
            self.switch = Some(loaded);
        }
        match &self.switch {
            Some(Ok(gt)) => Ok(gt),
            Some(Err(e)) => Err(e.clone()),
            None => Err(GroundError::SwitchNotRead),
        }
    }

    pub(super) fn bundles(&mut self, given: &[BundleFiles]) -> Result<&[Bundle], GroundError> {
        self.bundles
            .get_or_insert_with(|| {
                given
                    .iter()
                    .map(|b| {
                        let files = b
                            .files
                            .iter()
                            .map(|f| (f.path.clone(), f.bytes.clone()))
                            .collect();
                        load_files(&b.name, files).map_err(|problem| GroundError::Bundle {
                            name: b.name.clone(),
                            problem: Box::new(problem),
                        })
                    })
                    .collect()
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }

    /// The failures met reading the pool: zips whose entries could not be
    /// unpacked, and EPIC-Bench GT entries that could not be inflated.
    pub(super) fn take_failures(&mut self) -> Vec<Failure> {
        let mut out = std::mem::take(&mut self.failures);
        if let Some(gt) = &self.epic {
            out.extend(gt.refused());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::files::pool;
    use crate::job::{classify, InputFile};
    use knoblab_score::epic::report::{RunOptions, Shard};
    use knoblab_score::epic::shard::digest_shard;
    use knoblab_score::epic::synthetic::generate_scaled;
    use std::io::Write;

    fn zip_of(files: &[(String, Vec<u8>)], method: zip::CompressionMethod) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut out);
            let opts = zip::write::SimpleFileOptions::default().compression_method(method);
            for (name, bytes) in files {
                w.start_file(name.as_str(), opts).unwrap();
                w.write_all(bytes).unwrap();
            }
            w.finish().unwrap();
        }
        out.into_inner()
    }

    fn job_files(raw: &str, zip: Vec<u8>) -> Vec<InputFile> {
        vec![
            InputFile {
                path: "raw.jsonl".into(),
                bytes: raw.as_bytes().to_vec(),
            },
            InputFile {
                path: "data/gt.zip".into(),
                bytes: zip,
            },
        ]
    }

    #[test]
    fn a_shard_inflates_only_the_zip_entries_of_its_samples() {
        let set = generate_scaled(9, 0.02);
        let mut entries: Vec<(String, Vec<u8>)> = set
            .gt
            .files()
            .map(|(p, b)| (format!("EPIC_Bench_v1/{p}"), b.to_vec()))
            .collect();
        entries.sort();
        // A file that is not ground truth is never inflated.
        entries.push(("EPIC_Bench_v1/README.md".into(), b"hello".to_vec()));
        let files = job_files(
            &set.raw_jsonl,
            zip_of(&entries, zip::CompressionMethod::Deflated),
        );
        let classified = classify(&files, &Default::default());
        let mut failures = Vec::new();
        let pool = pool(&files, &classified, &mut failures);
        assert!(failures.is_empty(), "{failures:?}");
        let whole =
            knoblab_score::epic::score_text(&set.raw_jsonl, &set.gt, &RunOptions::default())
                .unwrap();
        for of in [1, 2, 3] {
            for index in 0..of {
                let gt = DroppedGt::of(&pool);
                assert_eq!(gt.inflated(), 0, "opening reads the central directory only");
                let shard = Shard { index, of };
                let d = digest_shard(&set.raw_jsonl, &gt, &RunOptions::default(), shard).unwrap();
                let mut needed: Vec<&str> = whole
                    .official
                    .samples
                    .iter()
                    .filter(|s| shard.has(s.index))
                    .filter_map(|s| s.gt_path.as_deref())
                    .collect();
                needed.sort_unstable();
                needed.dedup();
                assert_eq!(gt.inflated(), needed.len(), "shard {index} of {of}");
                assert!(
                    d.official.iter().all(|s| s.gt_found),
                    "shard {index} of {of}"
                );
                assert!(gt.refused().is_empty());
            }
        }
    }

    #[test]
    fn a_zip_entry_that_cannot_be_read_is_absent_and_named() {
        let content = vec![b'A'; 64];
        let entries = vec![
            ("EPIC_Bench/a/x_mask_rle.json".to_string(), content.clone()),
            ("EPIC_Bench/b/y_mask_rle.json".to_string(), b"{}".to_vec()),
        ];
        let mut zip = zip_of(&entries, zip::CompressionMethod::Stored);
        // Spoil the stored bytes of the first entry: its checksum fails.
        let at = zip
            .windows(64)
            .position(|w| w == content.as_slice())
            .unwrap();
        zip[at + 10] = b'B';
        let files = job_files("", zip);
        let classified = classify(&files, &Default::default());
        let mut failures = Vec::new();
        let pool = pool(&files, &classified, &mut failures);
        let gt = DroppedGt::of(&pool);
        assert_eq!(
            gt.read("EPIC_Bench/b/y_mask_rle.json"),
            Some(b"{}".to_vec())
        );
        assert_eq!(gt.read("EPIC_Bench/a/x_mask_rle.json"), None);
        assert_eq!(gt.read("EPIC_Bench/c/z_mask_rle.json"), None);
        let refused = gt.refused();
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert_eq!(refused[0].file, "data/gt.zip");
        assert!(
            refused[0].message.starts_with(
                "data/gt.zip: zip entry `EPIC_Bench/a/x_mask_rle.json` could not be read"
            ),
            "{}",
            refused[0].message
        );
    }
}
