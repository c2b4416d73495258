//! The one bounded zip reader. Bundles, results zips, ground-truth zips
//! and the page's dropped zips all read through it: the number of entries,
//! the bytes of each entry once decompressed (refused by its declared size,
//! then read through the cap whatever the header claims) and the bytes read
//! in all are bounded, so a zip bomb stops with a message naming the entry
//! and the bound.

use std::io::{Cursor, Read};

use super::limits::{
    human_bytes, MAX_BUNDLE_BYTES, MAX_FILE_BYTES, MAX_RESULTS_FILE_BYTES, MAX_RESULTS_ZIP_ENTRIES,
    MAX_ZIP_ENTRIES, MAX_ZIP_READ_BYTES,
};
use super::InputError;

/// The most room reserved for an entry on its declared size alone (8 MiB).
const PREALLOCATE: u64 = 8 << 20;

/// The bounds one zip is read within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipLimits {
    /// The most entries the central directory may list.
    pub entries: usize,
    /// The most bytes one entry may decompress to.
    pub entry_bytes: u64,
    /// The most bytes all the entries read may decompress to together.
    pub total_bytes: u64,
}

impl ZipLimits {
    /// A bundle zip: [`MAX_ZIP_ENTRIES`], [`MAX_FILE_BYTES`] per entry,
    /// [`MAX_BUNDLE_BYTES`] in all.
    pub const BUNDLE: ZipLimits = ZipLimits {
        entries: MAX_ZIP_ENTRIES,
        entry_bytes: MAX_FILE_BYTES as u64,
        total_bytes: MAX_BUNDLE_BYTES as u64,
    };
    /// A results or ground-truth zip: [`MAX_RESULTS_ZIP_ENTRIES`],
    /// [`MAX_RESULTS_FILE_BYTES`] per entry, [`MAX_ZIP_READ_BYTES`] in all.
    pub const RESULTS: ZipLimits = ZipLimits {
        entries: MAX_RESULTS_ZIP_ENTRIES,
        entry_bytes: MAX_RESULTS_FILE_BYTES,
        total_bytes: MAX_ZIP_READ_BYTES,
    };
}

/// A zip held in memory, read entry by entry within its [`ZipLimits`].
pub struct BoundedZip<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    limits: ZipLimits,
    total: u64,
    /// [`Self::read_whole`]'s inflater (its state and 32 KB window) and its
    /// buffer of compressed bytes, kept from entry to entry.
    inflater: Option<Box<zlib_rs::Inflate>>,
    compressed: Vec<u8>,
}

impl<'a> BoundedZip<'a> {
    /// Opens the zip (reads its central directory) and checks its number
    /// of entries.
    pub fn open(bytes: &'a [u8], limits: ZipLimits) -> Result<Self, InputError> {
        let archive = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| InputError::Zip(format!("the zip could not be opened: {e}")))?;
        if archive.len() > limits.entries {
            return Err(InputError::Zip(format!(
                "the zip lists {} entries; at most {} are accepted",
                archive.len(),
                limits.entries
            )));
        }
        Ok(BoundedZip {
            archive,
            limits,
            total: 0,
            inflater: None,
            compressed: Vec::new(),
        })
    }

    /// Another reader of the same zip: the central directory already read
    /// is shared, not read again (it is most of opening a zip of many
    /// small entries); its read total and its inflater are its own.
    pub fn fresh(&self) -> BoundedZip<'a> {
        BoundedZip {
            archive: self.archive.clone(),
            limits: self.limits,
            total: 0,
            inflater: None,
            compressed: Vec::new(),
        }
    }

    /// How many entries the zip lists (folders included).
    pub fn len(&self) -> usize {
        self.archive.len()
    }

    /// Whether the zip lists no entries.
    pub fn is_empty(&self) -> bool {
        self.archive.len() == 0
    }

    /// The names of the entries, in the zip's order (folders end in `/`).
    pub fn names(&self) -> Vec<String> {
        self.archive.file_names().map(str::to_string).collect()
    }

    /// Reads the entry called `name`, `Ok(None)` when there is none.
    pub fn read_name(&mut self, name: &str) -> Result<Option<Vec<u8>>, InputError> {
        let index = match self.archive.index_for_name(name) {
            Some(i) => i,
            None => return Ok(None),
        };
        self.read_index(index).map(|e| e.map(|(_, bytes)| bytes))
    }

    /// Reads entry `index`: its name and bytes, `Ok(None)` for a folder.
    pub fn read_index(&mut self, index: usize) -> Result<Option<(String, Vec<u8>)>, InputError> {
        if let Some((name, bytes)) = self.read_whole(index) {
            self.total += bytes.len() as u64;
            return Ok(Some((name, bytes)));
        }
        self.read_streamed(index)
    }

    /// [`Self::read_index`] through zip's reader, for any entry, read
    /// through the cap whatever its header claims.
    fn read_streamed(&mut self, index: usize) -> Result<Option<(String, Vec<u8>)>, InputError> {
        let limits = self.limits;
        let entry = self
            .archive
            .by_index(index)
            .map_err(|e| InputError::Zip(format!("zip entry {index} could not be read: {e}")))?;
        if entry.is_dir() {
            return Ok(None);
        }
        let name = entry.name().to_string();
        let shown = super::text::escape_controls(&name).into_owned();
        if entry.size() > limits.entry_bytes {
            let size = entry.size();
            let declared = if size < 1024 * 1024 || size.is_multiple_of(1024 * 1024) {
                human_bytes(size)
            } else {
                format!("{} ({size} bytes)", human_bytes(size))
            };
            return Err(InputError::Zip(format!(
                "zip entry `{shown}` declares {declared} once decompressed; at most {} is read \
                 per file",
                human_bytes(limits.entry_bytes)
            )));
        }
        // Room for the declared size and one byte more: an honest entry is
        // read in one pass, without the small probing reads and zeroed
        // growth of an empty vector. The size is the zip's word, so at most
        // `PREALLOCATE` is taken on it; a larger entry grows as it is read.
        let room = entry.size().min(PREALLOCATE) as usize + 1;
        let mut bytes = Vec::with_capacity(room);
        entry
            .take(limits.entry_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| InputError::Zip(format!("zip entry `{shown}` could not be read: {e}")))?;
        if bytes.len() as u64 > limits.entry_bytes {
            return Err(InputError::Zip(format!(
                "zip entry `{shown}` decompresses to more than {}; at most {} is accepted per file",
                human_bytes(limits.entry_bytes),
                human_bytes(limits.entry_bytes)
            )));
        }
        self.total = self.total.saturating_add(bytes.len() as u64);
        if self.total > limits.total_bytes {
            return Err(InputError::Zip(format!(
                "the zip's files decompress to more than {} in all (at zip entry `{shown}`); at \
                 most that is read",
                human_bytes(limits.total_bytes)
            )));
        }
        Ok(Some((name, bytes)))
    }

    /// Entry `index` read in one pass, when it is a stored or deflated file
    /// and everything checks out: its declared size is within the limits,
    /// its data inflates to exactly that many bytes, and their CRC-32 is the
    /// declared one. The bytes are inflated straight into a vector of the
    /// declared size, with one inflater kept for the whole zip: no stream
    /// of small reads, no window copy, no reader set up per entry (in wasm,
    /// the 6,661 small files of the synthetic GT zip inflated in about 12%
    /// less time than through zip's reader, both with miniz_oxide). The
    /// inflater is zlib-rs's, not zip's miniz_oxide: in wasm it inflated
    /// those files in about a fifth less time (86 against 111 ms median),
    /// and a Score worker spent about a fifth of its half inflating.
    ///
    /// `None` for anything else, folders and lies included: the entry is
    /// then read again through zip's reader, which finds the same fault and
    /// says what it is. So this path never decides an error, and accepts
    /// only what that path accepts.
    fn read_whole(&mut self, index: usize) -> Option<(String, Vec<u8>)> {
        let limits = self.limits;
        let mut entry = self.archive.by_index_raw(index).ok()?;
        let size = entry.size();
        if entry.is_dir()
            || entry.encrypted()
            || size > limits.entry_bytes
            || size > PREALLOCATE
            || self.total.saturating_add(size) > limits.total_bytes
        {
            return None;
        }
        let (method, crc) = (entry.compression(), entry.crc32());
        let name = entry.name().to_string();
        // The raw reader stops at the declared compressed size.
        self.compressed.clear();
        entry.read_to_end(&mut self.compressed).ok()?;
        let bytes = match method {
            zip::CompressionMethod::Stored => self.compressed.clone(),
            zip::CompressionMethod::Deflated => {
                use zlib_rs::{Inflate, InflateFlush, Status};
                // A raw deflate stream (no zlib header), up to a 32 KB window.
                let inflater = self
                    .inflater
                    .get_or_insert_with(|| Box::new(Inflate::new(false, 15)));
                inflater.reset(false);
                // One byte of room more than declared: an entry that
                // inflates to more fills it, and is not taken. The stream
                // ends within this one call (`Finish`), so the inflater
                // never copies its output into its window.
                let mut out = vec![0u8; size as usize + 1];
                match inflater.decompress(&self.compressed, &mut out, InflateFlush::Finish) {
                    Ok(Status::StreamEnd) => {}
                    _ => return None,
                }
                out.truncate(usize::try_from(inflater.total_out()).ok()?);
                out
            }
            _ => return None,
        };
        (bytes.len() as u64 == size && crc32fast::hash(&bytes) == crc).then_some((name, bytes))
    }

    /// Every file entry, in the zip's order: its name, and its bytes when
    /// `keep(name)` says so (an empty vector otherwise, so that a listing
    /// of images costs nothing).
    pub fn entries(
        &mut self,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, Vec<u8>)>, InputError> {
        let mut out = Vec::new();
        for i in 0..self.archive.len() {
            let (is_dir, name) = {
                let entry = self.archive.by_index_raw(i).map_err(|e| {
                    InputError::Zip(format!("zip entry {i} could not be read: {e}"))
                })?;
                (entry.is_dir(), entry.name().to_string())
            };
            if is_dir {
                continue;
            }
            if keep(&name) {
                if let Some(entry) = self.read_index(i)? {
                    out.push(entry);
                }
            } else {
                out.push((name, Vec::new()));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(z.archive.by_index_raw(1).unwrap().size(), 10);
        assert_eq!(z.read_whole(1), None);
        let streamed = z.read_streamed(1).map_err(|e| e.to_string());
        let mut z = BoundedZip::open(&lying, ZipLimits::RESULTS).unwrap();
        assert_eq!(z.read_index(1).map_err(|e| e.to_string()), streamed);
    }
}
