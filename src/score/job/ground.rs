//! The ground truth of a job, read from its pool once per benchmark, when
//! a results file first needs it; and the downloads the reports offer.

use super::{BundleFiles, Download, SwitchOptions};
use crate::bundle::{load_files, Bundle};
use crate::score::epic::MapSource;
use crate::score::finestate::files::MemFiles;
use crate::score::switch::{self, GroundTruth};

/// The ground-truth pool, read once per benchmark when first needed.
pub(super) struct Ground<'a> {
    pool: &'a [(String, Vec<u8>)],
    epic: Option<MapSource>,
    finestate: Option<MemFiles>,
    switch: Option<Result<GroundTruth, String>>,
    bundles: Option<Result<Vec<Bundle>, String>>,
    pub(super) downloads: Vec<Download>,
}

impl<'a> Ground<'a> {
    pub(super) fn new(pool: &'a [(String, Vec<u8>)]) -> Self {
        Ground {
            pool,
            epic: None,
            finestate: None,
            switch: None,
            bundles: None,
            downloads: Vec::new(),
        }
    }

    pub(super) fn epic(&mut self) -> &MapSource {
        self.epic.get_or_insert_with(|| {
            let mut m = MapSource::new();
            for (p, b) in self
                .pool
                .iter()
                .filter(|(p, _)| p.ends_with("_mask_rle.json"))
            {
                m.insert(p, b.clone());
            }
            m
        })
    }

    pub(super) fn finestate(&mut self) -> &MemFiles {
        self.finestate.get_or_insert_with(|| {
            let mut m = MemFiles::new();
            for (p, b) in self.pool {
                m.insert(p, b.clone());
            }
            m.rooted()
        })
    }

    pub(super) fn switch(&mut self, options: &SwitchOptions) -> Result<&GroundTruth, String> {
        let pool = self.pool;
        self.switch
            .get_or_insert_with(|| {
                let mut load = switch::LoadOptions::default();
                for s in &options.splits {
                    load.splits.push(switch::LoadOptions::parse_split(s)?);
                }
                GroundTruth::from_files_with(
                    pool.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
                    &load,
                )
                .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    pub(super) fn bundles(&mut self, given: &[BundleFiles]) -> Result<&[Bundle], String> {
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
                        load_files(&b.name, files).map_err(|e| format!("bundle {}: {e}", b.name))
                    })
                    .collect()
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(Clone::clone)
    }
}
