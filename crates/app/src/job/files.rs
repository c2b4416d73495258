//! How dropped files are sorted: each is detected ([`knoblab_score::detect`])
//! or taken as the format the user chose for it; results files are scored,
//! one unit each (official FineState `result_<i>.json` files of one folder
//! form one unit); everything else is the ground-truth pool, zips opened
//! but read entry by entry as each benchmark needs.

use std::collections::BTreeMap;

use super::error::ZipError;
use super::{BundleFiles, Failure, FileEntry, InputFile, Job, JobOptions};
use knoblab_core::input::zip::{BoundedZip, ZipLimits};
use knoblab_score::detect::{detect, Format};

/// Sorts the dropped files into results and the ground-truth pool.
pub fn classify(files: &[InputFile], overrides: &BTreeMap<String, Format>) -> Vec<FileEntry> {
    files
        .iter()
        .map(|f| {
            let found = detect(&f.path, &f.bytes);
            let (format, label, warnings) = match (overrides.get(&f.path), found) {
                (Some(o), found) => {
                    let items = found.as_ref().map_or(0, |d| d.items);
                    let label = knoblab_score::detect::Detected {
                        format: *o,
                        items,
                        warnings: Vec::new(),
                    }
                    .label();
                    (Some(*o), format!("{label} (chosen)"), Vec::new())
                }
                (None, Ok(d)) => (Some(d.format), d.label(), d.warnings),
                (None, Err(e)) => (None, e.to_string(), Vec::new()),
            };
            FileEntry {
                path: f.path.clone(),
                results: format.and_then(Format::scores).is_some(),
                format,
                label,
                warnings,
            }
        })
        .collect()
}

/// The ground-truth pool: every dropped file that is not a results file,
/// as dropped, and the dropped zips, opened but not unpacked: each
/// benchmark reads what it needs (EPIC-Bench one mask file per sample it
/// scores, [`Pool::unpacked`] everything).
#[derive(Default)]
pub(super) struct Pool<'a> {
    /// The files that are not zips: their paths and bytes.
    pub(super) files: Vec<(&'a str, &'a [u8])>,
    /// The zips whose central directory reads: their paths and the zips
    /// opened, once for every reader ([`BoundedZip::fresh`]).
    pub(super) zips: Vec<(&'a str, BoundedZip<'a>)>,
}

impl Pool<'_> {
    /// Every file of the pool, zips unpacked (entries under the zip's
    /// folder); a zip whose entries cannot be read is a failure.
    pub(super) fn unpacked(&self, failures: &mut Vec<Failure>) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = self
            .files
            .iter()
            .map(|(p, b)| (p.to_string(), b.to_vec()))
            .collect();
        for (path, zip) in &self.zips {
            match entries_of(path, zip.fresh()) {
                Ok(entries) => out.extend(entries),
                Err(problem) => failures.push(Failure {
                    file: path.to_string(),
                    message: problem.to_string(),
                }),
            }
        }
        out
    }
}

/// Sorts the files that are not results into the pool; a zip that cannot
/// be opened is a failure.
pub(super) fn pool<'a>(
    files: &'a [InputFile],
    entries: &[FileEntry],
    failures: &mut Vec<Failure>,
) -> Pool<'a> {
    let mut out = Pool {
        files: Vec::new(),
        zips: Vec::new(),
    };
    for (f, e) in files.iter().zip(entries) {
        if e.results {
            continue;
        }
        if e.format == Some(Format::Zip) {
            match open_zip(&f.path, &f.bytes) {
                Ok(zip) => out.zips.push((f.path.as_str(), zip)),
                Err(problem) => failures.push(Failure {
                    file: f.path.clone(),
                    message: problem.to_string(),
                }),
            }
        } else {
            out.files.push((f.path.as_str(), f.bytes.as_slice()));
        }
    }
    out
}

/// A dropped zip opened (its central directory read) within the results
/// bounds, or why it cannot be.
pub(super) fn open_zip<'a>(path: &str, bytes: &'a [u8]) -> Result<BoundedZip<'a>, ZipError> {
    BoundedZip::open(bytes, ZipLimits::RESULTS).map_err(|problem| ZipError::Open {
        path: path.to_string(),
        problem,
    })
}

/// The entries of a zip, with the zip's folder before their paths.
pub fn unzip(path: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, ZipError> {
    entries_of(path, open_zip(path, bytes)?)
}

/// The entries of the opened zip `path`, with the zip's folder before
/// their paths.
fn entries_of(path: &str, mut archive: BoundedZip<'_>) -> Result<Vec<(String, Vec<u8>)>, ZipError> {
    let entries = archive
        .entries(|_| true)
        .map_err(|problem| ZipError::Entries {
            path: path.to_string(),
            problem,
        })?;
    let out = entries
        .into_iter()
        .map(|(name, data)| (in_folder_of(path, name), data))
        .collect::<Vec<_>>();
    Ok(out)
}

/// A zip entry's path in the job: under the zip's own folder.
pub(super) fn in_folder_of(zip_path: &str, name: String) -> String {
    match folder_of(zip_path) {
        "" => name,
        folder => format!("{folder}/{name}"),
    }
}

/// The folder a path sits in ("" at the top).
pub(super) fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The file name of a path.
pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A unit of scoring: one results file, or the `result_<i>.json` files
/// of one folder.
pub(super) struct Unit<'a> {
    pub(super) name: String,
    pub(super) format: Format,
    pub(super) label: String,
    pub(super) files: Vec<&'a InputFile>,
}

pub(super) fn units<'a>(files: &'a [InputFile], entries: &[FileEntry]) -> Vec<Unit<'a>> {
    let mut out: Vec<Unit<'a>> = Vec::new();
    for (f, e) in files.iter().zip(entries) {
        let Some(format) = e.format.filter(|_| e.results) else {
            continue;
        };
        if format == Format::FineStateResultFile {
            let name = format!("{}/", folder_of(&f.path));
            if let Some(u) = out.iter_mut().find(|u| u.name == name) {
                u.files.push(f);
                u.label = format!("FineState-Bench result files, {} instances", u.files.len());
                continue;
            }
            out.push(Unit {
                name,
                format,
                label: "FineState-Bench result files, 1 instance".into(),
                files: vec![f],
            });
            continue;
        }
        out.push(Unit {
            name: f.path.clone(),
            format,
            label: e.label.clone(),
            files: vec![f],
        });
    }
    out
}

/// Paths under this prefix are the files of a library bundle
/// (`knoblab-bundle:<name>/<file>`), for trajectory metrics: the page
/// sends them with the dropped files, and [`Job::from_files`] sets them
/// apart.
pub const BUNDLE_PREFIX: &str = "knoblab-bundle:";

impl Job {
    /// The job of these files and options: files under [`BUNDLE_PREFIX`]
    /// are grouped into bundles by name (in the order each first appears,
    /// with the path inside the bundle), every other file is a dropped file.
    /// It holds every scorer ([`super::Scorers::all`]).
    pub fn from_files(files: Vec<InputFile>, options: JobOptions) -> Job {
        Job {
            scorers: super::Scorers::all(),
            ..Job::sorted(files, options)
        }
    }

    /// [`Job::from_files`] with EPIC-Bench's scorer alone.
    pub(super) fn sorted(files: Vec<InputFile>, options: JobOptions) -> Job {
        let mut job = Job {
            options,
            ..Job::default()
        };
        job.add_files(files);
        job
    }

    /// Adds files as [`Job::from_files`] sorts them (the library's bundle
    /// files, which the page fetches once it knows a job needs them).
    pub fn add_files(&mut self, files: Vec<InputFile>) {
        for file in files {
            match file
                .path
                .strip_prefix(BUNDLE_PREFIX)
                .and_then(|rest| rest.split_once('/'))
            {
                Some((name, inner)) => {
                    let inner = InputFile {
                        path: inner.to_string(),
                        bytes: file.bytes,
                    };
                    match self.bundles.iter_mut().find(|b| b.name == name) {
                        Some(b) => b.files.push(inner),
                        None => self.bundles.push(BundleFiles {
                            name: name.to_string(),
                            files: vec![inner],
                        }),
                    }
                }
                None => self.files.push(file),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, bytes: &[u8]) -> InputFile {
        InputFile {
            path: path.into(),
            bytes: bytes.to_vec(),
        }
    }

    fn entry(path: &str, format: Option<Format>, results: bool) -> FileEntry {
        FileEntry {
            path: path.into(),
            format,
            label: format!("label of {path}"),
            warnings: Vec::new(),
            results,
        }
    }

    #[test]
    fn library_bundle_files_are_grouped_by_bundle_and_the_rest_is_dropped() {
        let files = vec![
            file("knoblab-bundle:kettle/manifest.json", b"m"),
            file("run/pred.jsonl", b"p"),
            file("knoblab-bundle:oven/manifest.json", b"o"),
            file("knoblab-bundle:kettle/views/front.png", b"v"),
            // No file inside a bundle: a dropped file with an odd name.
            file("knoblab-bundle:lonely", b"x"),
        ];
        let job = Job::from_files(files, JobOptions::default());
        let dropped: Vec<&str> = job.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(dropped, ["run/pred.jsonl", "knoblab-bundle:lonely"]);
        let bundles: Vec<(&str, Vec<&str>)> = job
            .bundles
            .iter()
            .map(|b| {
                (
                    b.name.as_str(),
                    b.files.iter().map(|f| f.path.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            bundles,
            [
                ("kettle", vec!["manifest.json", "views/front.png"]),
                ("oven", vec!["manifest.json"])
            ]
        );
        assert_eq!(job.bundles[0].files[1].bytes, b"v");
    }

    #[test]
    fn result_files_of_one_folder_are_one_unit_and_ground_truth_is_no_unit() {
        let files = vec![
            file("a/result_0.json", b"{}"),
            file("b/pred.jsonl", b"{}"),
            file("a/result_1.json", b"{}"),
            file("gt/mask_rle.json", b"{}"),
            file("c/result_0.json", b"{}"),
        ];
        let entries = vec![
            entry("a/result_0.json", Some(Format::FineStateResultFile), true),
            entry("b/pred.jsonl", Some(Format::EpicStd), true),
            entry("a/result_1.json", Some(Format::FineStateResultFile), true),
            entry("gt/mask_rle.json", None, false),
            entry("c/result_0.json", Some(Format::FineStateResultFile), true),
        ];
        let units = units(&files, &entries);
        let names: Vec<(&str, usize)> = units
            .iter()
            .map(|u| (u.name.as_str(), u.files.len()))
            .collect();
        assert_eq!(names, [("a/", 2), ("b/pred.jsonl", 1), ("c/", 1)]);
        assert_eq!(units[0].label, "FineState-Bench result files, 2 instances");
        assert_eq!(units[1].label, "label of b/pred.jsonl");

        let mut failures = Vec::new();
        let pooled = pool(&files, &entries, &mut failures);
        assert_eq!(pooled.files, [("gt/mask_rle.json", &b"{}"[..])]);
        assert!(pooled.zips.is_empty());
        assert!(failures.is_empty());
    }

    #[test]
    fn a_zip_that_cannot_be_read_is_a_failure_named_by_its_path() {
        let files = vec![file("gt/data.zip", b"not a zip")];
        let entries = vec![entry("gt/data.zip", Some(Format::Zip), false)];
        let mut failures = Vec::new();
        let pooled = pool(&files, &entries, &mut failures);
        assert!(pooled.files.is_empty() && pooled.zips.is_empty());
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].file, "gt/data.zip");
        assert!(
            failures[0]
                .message
                .starts_with("gt/data.zip: not a readable zip"),
            "{}",
            failures[0].message
        );
    }

    #[test]
    fn paths_split_into_folder_and_name() {
        assert_eq!(folder_of("a/b/c.json"), "a/b");
        assert_eq!(folder_of("c.json"), "");
        assert_eq!(file_name("a/b/c.json"), "c.json");
        assert_eq!(file_name("c.json"), "c.json");
    }

    #[test]
    fn a_chosen_format_overrides_detection_and_says_so() {
        let files = vec![file("x.txt", b"hello")];
        let overrides = BTreeMap::from([("x.txt".to_string(), Format::EpicStd)]);
        let entries = classify(&files, &overrides);
        assert_eq!(entries[0].format, Some(Format::EpicStd));
        assert!(entries[0].results);
        assert!(
            entries[0].label.ends_with("(chosen)"),
            "{}",
            entries[0].label
        );
        let detected = classify(&files, &BTreeMap::new());
        assert!(!detected[0].results);
    }
}
