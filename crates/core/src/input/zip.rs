//! The one bounded zip reader. Bundles, results zips, ground-truth zips
//! and the page's dropped zips all read through it: the number of entries,
//! the bytes of each entry once decompressed (refused by its declared size,
//! then read through the cap whatever the header claims) and the bytes read
//! in all are bounded, so a zip bomb stops with a message naming the entry
//! and the bound.

use std::io::{Cursor, Read};
use std::sync::Arc;

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
///
/// A plain zip's central directory is read here ([`Plain`]); any other zip
/// is read by the zip crate, and so is any entry that the one-pass read
/// does not take ([`Self::read_index`]).
pub struct BoundedZip<'a> {
    bytes: &'a [u8],
    listing: Listing<'a>,
    /// A plain zip's reading by the zip crate, opened when an entry is
    /// first read the streamed way.
    streamed: Option<Archive<'a>>,
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
        let listing = match Plain::read(bytes) {
            Some(plain) => Listing::Plain(Arc::new(plain)),
            None => Listing::Crate(open_archive(bytes)?),
        };
        Self::listed(bytes, listing, limits)
    }

    /// The reader of a zip listed as `listing`, when it lists no more
    /// entries than `limits` accept.
    fn listed(
        bytes: &'a [u8],
        listing: Listing<'a>,
        limits: ZipLimits,
    ) -> Result<Self, InputError> {
        let zip = BoundedZip {
            bytes,
            listing,
            streamed: None,
            limits,
            total: 0,
            inflater: None,
            compressed: Vec::new(),
        };
        if zip.len() > limits.entries {
            return Err(InputError::Zip(format!(
                "the zip lists {} entries; at most {} are accepted",
                zip.len(),
                limits.entries
            )));
        }
        Ok(zip)
    }

    /// Another reader of the same zip: the central directory already read
    /// is shared, not read again (it is most of opening a zip of many
    /// small entries); its read total and its inflater are its own.
    pub fn fresh(&self) -> BoundedZip<'a> {
        BoundedZip {
            bytes: self.bytes,
            listing: self.listing.clone(),
            streamed: self.streamed.clone(),
            limits: self.limits,
            total: 0,
            inflater: None,
            compressed: Vec::new(),
        }
    }

    /// How many entries the zip lists (folders included).
    pub fn len(&self) -> usize {
        match &self.listing {
            Listing::Plain(plain) => plain.entries.len(),
            Listing::Crate(archive) => archive.len(),
        }
    }

    /// Whether the zip lists no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of entry `index` (a folder's ends in `/`).
    pub fn name(&self, index: usize) -> Option<&str> {
        match &self.listing {
            Listing::Plain(plain) => plain.entries.get(index).map(|e| e.name),
            Listing::Crate(archive) => archive.name_for_index(index),
        }
    }

    /// The names of the entries, in the zip's order (folders end in `/`).
    pub fn names(&self) -> Vec<String> {
        (0..self.len())
            .filter_map(|i| self.name(i).map(str::to_string))
            .collect()
    }

    /// Reads the entry called `name`, `Ok(None)` when there is none.
    pub fn read_name(&mut self, name: &str) -> Result<Option<Vec<u8>>, InputError> {
        let index = match &self.listing {
            Listing::Plain(plain) => plain.index_of(name),
            Listing::Crate(archive) => archive.index_for_name(name),
        };
        match index {
            Some(i) => self.read_index(i).map(|e| e.map(|(_, bytes)| bytes)),
            None => Ok(None),
        }
    }

    /// Reads entry `index`: its name and bytes, `Ok(None)` for a folder.
    pub fn read_index(&mut self, index: usize) -> Result<Option<(String, Vec<u8>)>, InputError> {
        if let Listing::Plain(plain) = &self.listing {
            // A folder whose header the zip crate would read without fault.
            let folder = plain.entries.get(index).is_some_and(|e| {
                e.is_dir() && matches!(e.method, STORED | DEFLATED) && e.data(self.bytes).is_some()
            });
            if folder {
                return Ok(None);
            }
        }
        if let Some((name, bytes)) = self.read_whole(index) {
            self.total += bytes.len() as u64;
            return Ok(Some((name, bytes)));
        }
        self.read_streamed(index)
    }

    /// The zip crate's reading of the zip, opened now if it was not yet.
    fn archive(&mut self) -> Result<&mut Archive<'a>, InputError> {
        match &mut self.listing {
            Listing::Crate(archive) => Ok(archive),
            Listing::Plain(_) => match &mut self.streamed {
                Some(archive) => Ok(archive),
                opened => Ok(opened.insert(open_archive(self.bytes)?)),
            },
        }
    }

    /// [`Self::read_index`] through zip's reader, for any entry, read
    /// through the cap whatever its header claims.
    fn read_streamed(&mut self, index: usize) -> Result<Option<(String, Vec<u8>)>, InputError> {
        let limits = self.limits;
        let entry = self
            .archive()?
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
        let (limits, total) = (self.limits, self.total);
        let too_big = |size: u64| {
            size > limits.entry_bytes
                || size > PREALLOCATE
                || total.saturating_add(size) > limits.total_bytes
        };
        let archive = match &mut self.listing {
            Listing::Crate(archive) => archive,
            Listing::Plain(plain) => {
                // The entry's data sits in the zip's bytes: nothing is copied
                // before it is inflated.
                let entry = plain.entries.get(index)?;
                if entry.is_dir() || too_big(entry.size) {
                    return None;
                }
                let data = entry.data(self.bytes)?;
                let bytes = inflate_whole(&mut self.inflater, entry.method, data, entry.size)?;
                return (crc32fast::hash(&bytes) == entry.crc)
                    .then(|| (entry.name.to_string(), bytes));
            }
        };
        let mut entry = archive.by_index_raw(index).ok()?;
        let size = entry.size();
        if entry.is_dir() || entry.encrypted() || too_big(size) {
            return None;
        }
        let method = match entry.compression() {
            zip::CompressionMethod::Stored => STORED,
            zip::CompressionMethod::Deflated => DEFLATED,
            _ => return None,
        };
        let crc = entry.crc32();
        let name = entry.name().to_string();
        // The raw reader stops at the declared compressed size.
        self.compressed.clear();
        entry.read_to_end(&mut self.compressed).ok()?;
        let bytes = inflate_whole(&mut self.inflater, method, &self.compressed, size)?;
        (crc32fast::hash(&bytes) == crc).then_some((name, bytes))
    }

    /// Every file entry, in the zip's order: its name, and its bytes when
    /// `keep(name)` says so (an empty vector otherwise, so that a listing
    /// of images costs nothing).
    pub fn entries(
        &mut self,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, Vec<u8>)>, InputError> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            let name = match self.name(i) {
                Some(name) if !zip_is_dir(name) => name.to_string(),
                Some(_) => continue,
                None => {
                    return Err(InputError::Zip(format!("zip entry {i} could not be read")));
                }
            };
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
impl<'a> BoundedZip<'a> {
    /// [`Self::open`] through the zip crate alone, as before [`Plain`].
    fn open_with_crate(bytes: &'a [u8], limits: ZipLimits) -> Result<Self, InputError> {
        Self::listed(bytes, Listing::Crate(open_archive(bytes)?), limits)
    }
}

/// A zip read by the zip crate.
type Archive<'a> = zip::ZipArchive<Cursor<&'a [u8]>>;

/// Where a zip's entries are listed.
#[derive(Clone)]
enum Listing<'a> {
    /// The zip is plain: its central directory, read here.
    Plain(Arc<Plain<'a>>),
    /// Any other zip: the zip crate's reading.
    Crate(Archive<'a>),
}

/// Opens `bytes` with the zip crate.
fn open_archive(bytes: &[u8]) -> Result<Archive<'_>, InputError> {
    zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| InputError::Zip(format!("the zip could not be opened: {e}")))
}

/// The compression methods read in one pass.
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// The bytes of an entry stored or deflated (`method`) as `data`, when
/// they are exactly `size` bytes; `None` for anything else.
fn inflate_whole(
    inflater: &mut Option<Box<zlib_rs::Inflate>>,
    method: u16,
    data: &[u8],
    size: u64,
) -> Option<Vec<u8>> {
    let bytes = match method {
        STORED => data.to_vec(),
        DEFLATED => {
            use zlib_rs::{Inflate, InflateFlush, Status};
            // A raw deflate stream (no zlib header), up to a 32 KB window.
            let inflater = inflater.get_or_insert_with(|| Box::new(Inflate::new(false, 15)));
            inflater.reset(false);
            // One byte of room more than declared: an entry that inflates
            // to more fills it, and is not taken. The stream ends within
            // this one call (`Finish`), so the inflater never copies its
            // output into its window.
            let mut out = vec![0u8; usize::try_from(size).ok()? + 1];
            match inflater.decompress(data, &mut out, InflateFlush::Finish) {
                Ok(Status::StreamEnd) => {}
                _ => return None,
            }
            out.truncate(usize::try_from(inflater.total_out()).ok()?);
            out
        }
        _ => return None,
    };
    (bytes.len() as u64 == size).then_some(bytes)
}

/// Whether an entry's name is a folder's, as the zip crate decides it.
fn zip_is_dir(name: &str) -> bool {
    name.ends_with('/') || name.ends_with('\\')
}

/// The signatures of a zip's records.
const LOCAL_HEADER: [u8; 4] = *b"PK\x03\x04";
const CENTRAL_HEADER: [u8; 4] = *b"PK\x01\x02";
const END_OF_DIRECTORY: [u8; 4] = *b"PK\x05\x06";
const ZIP64_LOCATOR: [u8; 4] = *b"PK\x06\x07";

/// The central directory of a plain zip, read without the zip crate: its
/// names borrowed from the zip's bytes, nothing parsed that reading an
/// entry does not need. On this project's machine the zip crate took about
/// 23 ms of each Score worker's half to read the synthetic GT zip's 6,661
/// entries in wasm, allocating a dozen times an entry.
///
/// A zip is plain when every record is where it says and means nothing
/// else to the zip crate: one end-of-directory record, at the end after
/// its comment; no Zip64, no disks, no encryption; the directory right
/// before that record, starting where it says, its entries laid out back
/// to back; names in UTF-8 (flagged) or ASCII, no two the same; extra
/// fields that the zip crate skips, or a well-formed timestamp. Any other
/// zip is read by the zip crate as before, so what the two read is the
/// same, entry for entry (`plain_listing_equals_the_zip_crates`).
struct Plain<'a> {
    entries: Vec<Listed<'a>>,
    /// Each entry's [`name_hash`] and index, ordered by hash, then name:
    /// names are compared only where their hashes are equal, and a run of
    /// equal hashes (made on purpose) still sorts in n log n comparisons.
    by_name: Vec<(u64, u32)>,
}

/// One entry of a [`Plain`] central directory.
struct Listed<'a> {
    name: &'a str,
    /// Where its local header starts.
    header: usize,
    method: u16,
    crc: u32,
    compressed: usize,
    size: u64,
}

/// The little-endian `u16` at `at`.
fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

/// The little-endian `u32` at `at`.
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

impl<'a> Plain<'a> {
    /// The central directory of `bytes`, when the zip is plain.
    fn read(bytes: &'a [u8]) -> Option<Plain<'a>> {
        // The last end-of-directory signature, its comment reaching the end.
        let last = bytes.len().checked_sub(22)?;
        let end = (last.saturating_sub(0xFFFF)..=last)
            .rev()
            .find(|&p| bytes[p..p + 4] == END_OF_DIRECTORY)?;
        let count = u16_at(bytes, end + 10)?;
        let size = u32_at(bytes, end + 12)? as usize;
        let start = u32_at(bytes, end + 16)? as usize;
        let plain_end = end + 22 + usize::from(u16_at(bytes, end + 20)?) == bytes.len()
            && u16_at(bytes, end + 4)? == 0
            && u16_at(bytes, end + 6)? == 0
            && u16_at(bytes, end + 8)? == count
            && count != u16::MAX
            && size != u32::MAX as usize
            && start != u32::MAX as usize
            && start.checked_add(size)? == end
            && end.checked_sub(20).and_then(|p| bytes.get(p..p + 4)) != Some(&ZIP64_LOCATOR[..]);
        if !plain_end {
            return None;
        }
        let mut entries = Vec::with_capacity(usize::from(count));
        let mut at = start;
        for _ in 0..count {
            let (entry, next) = Listed::read(bytes, at, start)?;
            entries.push(entry);
            at = next;
        }
        if at != end {
            return None;
        }
        let name = |i: u32| entries[i as usize].name;
        let mut by_name: Vec<(u64, u32)> = (0..entries.len() as u32)
            .map(|i| (name_hash(name(i)), i))
            .collect();
        by_name.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1).cmp(name(b.1))));
        let unique = by_name
            .windows(2)
            .all(|w| w[0].0 != w[1].0 || name(w[0].1) != name(w[1].1));
        unique.then_some(Plain { entries, by_name })
    }

    /// The index of the entry called `name`.
    fn index_of(&self, name: &str) -> Option<usize> {
        let hash = name_hash(name);
        let found = self
            .by_name
            .binary_search_by(|&(h, i)| {
                h.cmp(&hash)
                    .then_with(|| self.entries[i as usize].name.cmp(name))
            })
            .ok()?;
        Some(self.by_name[found].1 as usize)
    }
}

/// A quick hash of a name, 8 bytes at a time (the multiply-rotate step of
/// rustc's FxHash). Only orders names for [`Plain`]'s lookups; equal
/// hashes fall back to comparing the names.
fn name_hash(name: &str) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let step = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let mut chunks = name.as_bytes().chunks_exact(8);
    let mut h = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = step(h, u64::from_le_bytes(word));
    }
    let mut rest = [0u8; 8];
    rest[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    step(step(h, u64::from_le_bytes(rest)), name.len() as u64)
}

impl<'a> Listed<'a> {
    /// The central directory entry at `at` and where the next one starts,
    /// when it is plain; local headers start before `directory`.
    fn read(bytes: &'a [u8], at: usize, directory: usize) -> Option<(Listed<'a>, usize)> {
        if bytes.get(at..at + 4)? != CENTRAL_HEADER {
            return None;
        }
        let flags = u16_at(bytes, at + 8)?;
        let method = u16_at(bytes, at + 10)?;
        let crc = u32_at(bytes, at + 16)?;
        let compressed = u32_at(bytes, at + 20)?;
        let size = u32_at(bytes, at + 24)?;
        let name_len = usize::from(u16_at(bytes, at + 28)?);
        let extra_len = usize::from(u16_at(bytes, at + 30)?);
        let comment_len = usize::from(u16_at(bytes, at + 32)?);
        let header = u32_at(bytes, at + 42)? as usize;
        let name_at = at + 46;
        let extra_at = name_at + name_len;
        let next = extra_at + extra_len + comment_len;
        let raw_name = bytes.get(name_at..extra_at)?;
        // Encrypted (bit 0), AES (method 99) and Zip64 sizes are the zip
        // crate's to read.
        let plain = flags & 1 == 0
            && method != 99
            && compressed != u32::MAX
            && size != u32::MAX
            && header < directory
            && next <= bytes.len()
            && (flags & (1 << 11) != 0 || raw_name.is_ascii())
            && plain_extra(bytes.get(extra_at..extra_at + extra_len)?);
        if !plain {
            return None;
        }
        let name = std::str::from_utf8(raw_name).ok()?;
        let entry = Listed {
            name,
            header,
            method,
            crc,
            compressed: compressed as usize,
            size: u64::from(size),
        };
        Some((entry, next))
    }

    fn is_dir(&self) -> bool {
        zip_is_dir(self.name)
    }

    /// The entry's data (still compressed), after its local header.
    fn data<'b>(&self, bytes: &'b [u8]) -> Option<&'b [u8]> {
        let at = self.header;
        if bytes.get(at..at.checked_add(4)?)? != LOCAL_HEADER {
            return None;
        }
        let name_len = usize::from(u16_at(bytes, at + 26)?);
        let extra_len = usize::from(u16_at(bytes, at + 28)?);
        let start = at + 30 + name_len + extra_len;
        bytes.get(start..start.checked_add(self.compressed)?)
    }
}

/// Whether a central directory entry's extra fields are ones the zip crate
/// skips, or well-formed times (Info-ZIP's extended timestamp 0x5455, as
/// `zip -r` writes it; NTFS times 0x000a, as 7-Zip writes them), laid out
/// back to back to the end. Zip64 (0x0001), AES (0x9901) and Info-ZIP's
/// Unicode path and comment (0x7075, 0x6375) are the crate's to read: they
/// change what an entry is or can fail.
fn plain_extra(mut extra: &[u8]) -> bool {
    while !extra.is_empty() {
        let (Some(kind), Some(len)) = (u16_at(extra, 0), u16_at(extra, 2)) else {
            return false;
        };
        let Some(data) = extra.get(4..4 + usize::from(len)) else {
            return false;
        };
        let skipped = match kind {
            0x0001 | 0x9901 | 0x6375 | 0x7075 => false,
            0x000a => len == 32 && data.get(4..8) == Some(&[1, 0, 24, 0][..]),
            0x5455 => data.first().is_some_and(|&flags| {
                flags & 0b1111_1000 == 0
                    && (len == 5 || u32::from(len) == 1 + 4 * flags.count_ones())
            }),
            _ => true,
        };
        if !skipped {
            return false;
        }
        extra = &extra[4 + usize::from(len)..];
    }
    true
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
                let mut opts =
                    zip::write::FileOptions::<zip::write::ExtendedFileOptions>::default()
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
}
