// Over 600 lines: the bounded reader and its fast path over a plain central directory must
// agree entry for entry and apply the caps in one place; the property test
// compares the two.

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
mod tests;
