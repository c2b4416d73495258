// Over 600 lines: the compressed-counts decoders (whole and streaming), the encoder and the
// union decoder all work on one run representation within one set of bounds
// (MAX_PIXELS, the frame check); the property tests hold them against each other.

//! COCO run-length encoding, written from the format (`epic-official.md`
//! §3.4): "Every `masklet_*` value is a list of RLE dicts, one per instance.
//! A single dict is also accepted. Each dict is `{"size": [H, W], "counts":
//! ...}`", counts compressed (a string) or uncompressed (a list of ints),
//! "run lengths that alternate 0-runs and 1-runs, starting with 0s, over the
//! H×W pixels in **column-major** order".
//!
//! Decoding never builds a dense bitmap: a mask is the list of its 1-runs
//! ([`Mask`]), which is what every later step (IoU, distances, components)
//! works on.

use super::mask::{merge_runs, Mask, Run};
use super::pyjson::string_stop;
use super::pyvalue::PyValue;
use thiserror::Error;

/// The largest mask accepted, in pixels (H × W ≤ 100,000,000, e.g.
/// 10,000 × 10,000). Real EPIC-Bench images are at most 1920 × 1080; the cap
/// only keeps hostile sizes from turning into huge allocations. A side of 0
/// counts as 1 here: a mask keeps an index entry per column, so an empty
/// `[0, 4294967295]` mask would otherwise take 16 GiB.
pub const MAX_PIXELS: u64 = 100_000_000;

/// The longest compressed value accepted, in 5-bit groups (60 bits).
const MAX_GROUPS: u32 = 12;

/// Why one RLE instance cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RleError {
    /// The instance is not a `{"size", "counts"}` object.
    #[error("an RLE instance must be an object with \"size\" and \"counts\"")]
    NotAnObject,
    /// `size` is not two non-negative integers.
    #[error("RLE \"size\" must be [height, width] as two non-negative integers")]
    BadSize,
    /// `size` asks for more pixels than [`MAX_PIXELS`].
    #[error("RLE size {height}×{width} exceeds the limit of {MAX_PIXELS} pixels")]
    TooLarge {
        /// The declared height in pixels.
        height: u64,
        /// The declared width in pixels.
        width: u64,
    },
    /// `counts` is neither a string nor a list of non-negative integers.
    #[error("RLE \"counts\" must be a string or a list of non-negative integers")]
    BadCounts,
    /// A compressed value is longer than any real count.
    #[error("RLE counts string has a value longer than {MAX_GROUPS} characters at character {at}")]
    ValueTooLong {
        /// 0-based byte offset in the counts string where the value starts.
        at: usize,
    },
    /// A decoded run length is negative.
    #[error("RLE run {index} has negative length {value}")]
    NegativeRun {
        /// 0-based index of the run in the counts.
        index: usize,
        /// The decoded length.
        value: i64,
    },
    /// The runs cover more pixels than the declared size.
    #[error("RLE runs cover {covered} pixels but the size {height}×{width} has only {total}")]
    PastDeclaredSize {
        /// The pixels the runs add up to.
        covered: u64,
        /// The declared height in pixels.
        height: u64,
        /// The declared width in pixels.
        width: u64,
        /// The declared pixel count, height × width.
        total: u64,
    },
}

/// Decodes a compressed counts string into run lengths (pycocotools
/// `rleFrString`): "Read the string one character at a time: `c = ord(ch) -
/// 48`. Build each value from 5-bit groups, least significant first ... A
/// value continues while `c & 0x20` is set. When a value ends, if `c & 0x10`
/// is set, sign-extend it", then add the value two positions earlier.
///
/// The delta applies from the fourth value on (index > 2), as pycocotools
/// writes it (`if (m > 2) x += cnts[m-2]`); the fixtures' masks confirm it.
pub fn counts_from_string(s: &str) -> Result<Vec<i64>, RleError> {
    counts_from_bytes(s.as_bytes())
}

/// [`counts_from_string`] over the string's bytes.
fn counts_from_bytes(bytes: &[u8]) -> Result<Vec<i64>, RleError> {
    let mut counts: Vec<i64> = Vec::with_capacity(bytes.len() / 2 + 1);
    let mut p = 0;
    while p < bytes.len() {
        let mut x = next_value(bytes, &mut p).map_err(|at| RleError::ValueTooLong { at })?;
        let m = counts.len();
        if m > 2 {
            x = x.saturating_add(counts[m - 2]);
        }
        counts.push(x);
    }
    Ok(counts)
}

/// The value of a compressed counts string that starts at `b[*p]` (there
/// must be one), before the delta: "Build each value from 5-bit groups,
/// least significant first ... A value continues while `c & 0x20` is set.
/// When a value ends, if `c & 0x10` is set, sign-extend it". Leaves `p`
/// after it; a value longer than [`MAX_GROUPS`] characters is `Err` with
/// its start. Most values are one character, read without the loop over
/// groups. Both decoders read values here.
#[inline]
fn next_value(b: &[u8], p: &mut usize) -> Result<i64, usize> {
    let start = *p;
    let c = b.get(start).map_or(0, |&first| i64::from(first) - 48);
    let mut x: i64 = c & 0x1f;
    *p += 1;
    if c & 0x20 == 0 {
        if c & 0x10 != 0 {
            x |= -1i64 << 5;
        }
        return Ok(x);
    }
    let mut k: u32 = 1;
    while let Some(&byte) = b.get(*p) {
        if k >= MAX_GROUPS {
            return Err(start);
        }
        let c = i64::from(byte) - 48;
        x |= (c & 0x1f) << (5 * k);
        *p += 1;
        k += 1;
        if c & 0x20 == 0 {
            if c & 0x10 != 0 {
                x |= -1i64 << (5 * k);
            }
            break;
        }
    }
    Ok(x)
}

/// Decodes one RLE instance into a [`Mask`].
pub fn decode_instance(v: &PyValue) -> Result<Mask, RleError> {
    let (height, width, runs) = instance_runs(v)?;
    Ok(Mask::from_runs(height, width, runs))
}

/// The frame `(height, width)` of an RLE `size`, within [`MAX_PIXELS`].
pub fn frame(height: u64, width: u64) -> Result<(u32, u32), RleError> {
    if height.max(1).saturating_mul(width.max(1)) > MAX_PIXELS {
        return Err(RleError::TooLarge { height, width });
    }
    // Both sides are now at most MAX_PIXELS, so they fit in u32.
    Ok((height as u32, width as u32))
}

/// The frame and the 1-runs of one RLE instance, sorted and merged but
/// not yet indexed by column (a union indexes its merged runs once).
fn instance_runs(v: &PyValue) -> Result<(u32, u32, Vec<Run>), RleError> {
    if !matches!(v, PyValue::Dict(_)) {
        return Err(RleError::NotAnObject);
    }
    let (size, counts) = match (v.get("size"), v.get("counts")) {
        (Some(s), Some(c)) => (s, c),
        _ => return Err(RleError::NotAnObject),
    };
    let dims = size.as_list().ok_or(RleError::BadSize)?;
    let dim = |i: usize| match dims.get(i) {
        Some(PyValue::Int(n)) if *n >= 0 => u64::try_from(*n).map_err(|_| RleError::BadSize),
        _ => Err(RleError::BadSize),
    };
    if dims.len() != 2 {
        return Err(RleError::BadSize);
    }
    let (height, width) = frame(dim(0)?, dim(1)?)?;
    let runs = match counts {
        PyValue::Str(s) => runs_from_compressed(s.as_bytes(), height, width)?,
        PyValue::List(items) => {
            let counts = items
                .iter()
                .map(|c| match c {
                    PyValue::Int(n) if *n >= 0 && *n <= i128::from(u32::MAX) => Ok(*n as i64),
                    _ => Err(RleError::BadCounts),
                })
                .collect::<Result<Vec<i64>, _>>()?;
            runs_from_counts(&counts, height, width)?
        }
        _ => return Err(RleError::BadCounts),
    };
    Ok((height, width, runs))
}

/// The 1-runs of a compressed counts string (given as its bytes, so a
/// reader can feed them straight from a file), decoded as
/// [`counts_from_string`] reads them and laid out as uncompressed counts
/// are, without the list of counts in between.
///
/// On the first value that does not fit, the string is decoded again the
/// long way for the exact error: [`counts_from_string`] reports an
/// over-long value anywhere in the string before any run's error, as
/// pycocotools reads the whole string before it checks a run.
pub fn runs_from_compressed(chars: &[u8], height: u32, width: u32) -> Result<Vec<Run>, RleError> {
    match runs_from_compressed_fast(chars, height, width) {
        Some(runs) => Ok(runs),
        None => runs_from_counts(&counts_from_bytes(chars)?, height, width),
    }
}

/// [`runs_from_compressed`] while every value fits; `None` at the first
/// that does not (too long, negative, or past the frame).
fn runs_from_compressed_fast(b: &[u8], height: u32, width: u32) -> Option<Vec<Run>> {
    let h = u64::from(height);
    let total = h * u64::from(width);
    // A run takes two values of one or two characters each, mostly.
    let mut runs: Vec<Run> = Vec::with_capacity(b.len() / 3 + 1);
    let mut at = Cursor::default();
    // The two values before this one: pycocotools adds the one two places
    // back (`if (m > 2) x += cnts[m-2]`).
    let (mut back2, mut back1) = (0i64, 0i64);
    let mut m = 0usize;
    let mut pos = 0u64;
    let mut p = 0usize;
    while p < b.len() {
        let mut x = next_value(b, &mut p).ok()?;
        if m > 2 {
            x = x.saturating_add(back2);
        }
        (back2, back1) = (back1, x);
        if x < 0 {
            return None;
        }
        let end = pos.saturating_add(x as u64);
        if end > total {
            return None;
        }
        if m % 2 == 1 && x > 0 {
            push_flat(&mut runs, &mut at, h, pos, end);
        }
        pos = end;
        m += 1;
    }
    Some(runs)
}

/// The 1-runs of uncompressed (or already decoded) counts over an H×W
/// frame: "run lengths that alternate 0-runs and 1-runs, starting with
/// 0s, over the H×W pixels in column-major order". The 1-runs go straight
/// into column runs: no list of flat intervals, no bitmap.
fn runs_from_counts(counts: &[i64], height: u32, width: u32) -> Result<Vec<Run>, RleError> {
    let (h, w) = (u64::from(height), u64::from(width));
    let total = h * w;
    let mut runs: Vec<Run> = Vec::with_capacity(counts.len() / 2 + 1);
    let mut at = Cursor::default();
    let mut pos: u64 = 0;
    for (index, &len) in counts.iter().enumerate() {
        if len < 0 {
            return Err(RleError::NegativeRun { index, value: len });
        }
        let end = pos.saturating_add(len as u64);
        if end > total {
            return Err(RleError::PastDeclaredSize {
                covered: counts
                    .iter()
                    .map(|&r| r.max(0) as u64)
                    .fold(0u64, u64::saturating_add),
                height: h,
                width: w,
                total,
            });
        }
        if index % 2 == 1 && len > 0 {
            push_flat(&mut runs, &mut at, h, pos, end);
        }
        pos = end;
    }
    Ok(runs)
}

/// Where the decoder stands in the column-major frame: column `x` starts
/// at the flat index `base = x * H`. Flat positions only grow, so the
/// column is found by stepping, and by one division only on a jump of
/// more than a column.
#[derive(Default)]
struct Cursor {
    x: u64,
    base: u64,
}

/// Appends the flat column-major interval `s..e` (`p = x*H + y`) as the
/// column runs it spans, merging with the previous run of its column.
fn push_flat(runs: &mut Vec<Run>, at: &mut Cursor, height: u64, s: u64, e: u64) {
    if height == 0 {
        return;
    }
    let mut p = s;
    while p < e {
        let ahead = p - at.base;
        if ahead >= height {
            let columns = if ahead < 2 * height {
                1
            } else {
                ahead / height
            };
            at.x += columns;
            at.base += columns * height;
        }
        let end = e.min(at.base + height);
        let run = Run {
            x: at.x as u32,
            y0: (p - at.base) as u32,
            y1: (end - at.base) as u32,
        };
        match runs.last_mut() {
            Some(last) if last.x == run.x && run.y0 <= last.y1 => last.y1 = last.y1.max(run.y1),
            _ => runs.push(run),
        }
        p = end;
    }
}

/// Encodes a mask as a compressed counts string (pycocotools
/// `rleToString`), the inverse of [`counts_from_string`].
pub fn encode(mask: &Mask) -> String {
    let h = u64::from(mask.height());
    let total = h * u64::from(mask.width());
    let mut counts: Vec<i64> = Vec::new();
    let mut pos = 0u64;
    for r in mask.runs() {
        let s = u64::from(r.x) * h + u64::from(r.y0);
        let e = u64::from(r.x) * h + u64::from(r.y1);
        if s == pos && !counts.is_empty() {
            // Touching the previous run across a column edge: extend it.
            if let Some(last) = counts.last_mut() {
                *last += (e - s) as i64;
            }
        } else {
            counts.push((s - pos) as i64);
            counts.push((e - s) as i64);
        }
        pos = e;
    }
    if pos < total || counts.is_empty() {
        counts.push((total - pos) as i64);
    }
    let mut out = String::new();
    for i in 0..counts.len() {
        let mut x = counts[i];
        if i > 2 {
            x -= counts[i - 2];
        }
        loop {
            let mut c = x & 0x1f;
            x >>= 5;
            let more = if c & 0x10 != 0 { x != -1 } else { x != 0 };
            if more {
                c |= 0x20;
            }
            out.push(char::from((c + 48) as u8));
            if !more {
                break;
            }
        }
    }
    out
}

/// What decoding a `masklet_*` value gave.
#[derive(Debug, Clone)]
pub struct DecodedUnion {
    /// The union, or `None` when no instance decoded.
    pub mask: Option<Mask>,
    /// Instances dropped because their size differs from the first one.
    pub dropped_other_size: usize,
    /// Instances dropped because they did not decode, with the reason.
    pub failed: Vec<RleError>,
}

/// The union of all instances with the official shape rule: "The first
/// instance that decodes successfully fixes (H, W). Every later instance with
/// the same shape is OR-ed in. **QUIRK:** instances with a different shape,
/// and instances that fail to decode, are silently dropped".
pub fn decode_union(v: &PyValue) -> DecodedUnion {
    let items: &[PyValue] = match v {
        PyValue::List(items) => items,
        PyValue::Dict(_) => std::slice::from_ref(v),
        _ => &[],
    };
    union_of(items.iter().map(instance_runs))
}

/// [`decode_union`] of a `masklet_*` value given as its JSON text, decoded
/// straight from the text into runs: no value tree, no copy of a counts
/// string. Only the form every RLE writer uses is read this way, a list
/// of (or one) `{"size": [H, W], "counts": "…"}` objects with those two
/// keys once each, sizes as plain non-negative integers, and counts
/// strings whose only escapes are `\\`, `\"` and `\/`; for any other
/// text it gives `None` and the caller decodes the parsed value, which
/// gives the same union for these texts (`tests/epic_shortcuts.rs`,
/// `gt_text_reader_equals_whole_parse` and
/// `synthetic_masks_decode_alike_from_text`).
pub fn decode_union_text(text: &str) -> Option<DecodedUnion> {
    let mut t = Text {
        b: text.as_bytes(),
        i: 0,
    };
    let mut found: Vec<(u64, u64, std::ops::Range<usize>, bool)> = Vec::new();
    t.ws();
    if t.eat(b'[') {
        t.ws();
        if !t.eat(b']') {
            loop {
                found.push(t.instance()?);
                t.ws();
                if t.eat(b']') {
                    break;
                }
                if !t.eat(b',') {
                    return None;
                }
                t.ws();
            }
        }
    } else {
        found.push(t.instance()?);
    }
    t.ws();
    if t.i != t.b.len() {
        return None;
    }
    let b = t.b;
    let mut unescaped: Vec<u8> = Vec::new();
    Some(union_of(found.into_iter().map(
        |(h, w, counts, escaped)| {
            let (height, width) = frame(h, w)?;
            let raw = &b[counts];
            let chars = if escaped {
                // `\\`, `\"` and `\/` each stand for their second byte.
                unescaped.clear();
                let mut i = 0;
                while let Some(&c) = raw.get(i) {
                    let c = if c == b'\\' {
                        i += 1;
                        raw.get(i).copied().unwrap_or(c)
                    } else {
                        c
                    };
                    unescaped.push(c);
                    i += 1;
                }
                &unescaped[..]
            } else {
                raw
            };
            Ok((height, width, runs_from_compressed(chars, height, width)?))
        },
    )))
}

/// A cursor over the text [`decode_union_text`] reads.
struct Text<'a> {
    b: &'a [u8],
    i: usize,
}

impl Text<'_> {
    fn ws(&mut self) {
        while self
            .b
            .get(self.i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        self.i += usize::from(hit);
        hit
    }

    fn eat_all(&mut self, lit: &[u8]) -> bool {
        let hit = self.b[self.i..].starts_with(lit);
        if hit {
            self.i += lit.len();
        }
        hit
    }

    /// `{"size": [H, W], "counts": "…"}`, the two keys in either order:
    /// the size, the span of the counts text between its quotes and
    /// whether it holds an escape.
    fn instance(&mut self) -> Option<(u64, u64, std::ops::Range<usize>, bool)> {
        if !self.eat(b'{') {
            return None;
        }
        let (mut size, mut counts) = (None, None);
        for k in 0..2 {
            self.ws();
            if k == 1 {
                if !self.eat(b',') {
                    return None;
                }
                self.ws();
            }
            if size.is_none() && self.eat_all(b"\"size\"") {
                self.colon()?;
                size = Some(self.size()?);
            } else if counts.is_none() && self.eat_all(b"\"counts\"") {
                self.colon()?;
                counts = Some(self.counts()?);
            } else {
                return None;
            }
        }
        self.ws();
        if !self.eat(b'}') {
            return None;
        }
        let (h, w) = size?;
        let (counts, escaped) = counts?;
        Some((h, w, counts, escaped))
    }

    fn colon(&mut self) -> Option<()> {
        self.ws();
        if !self.eat(b':') {
            return None;
        }
        self.ws();
        Some(())
    }

    /// `[H, W]` as plain non-negative integers of at most 18 digits.
    fn size(&mut self) -> Option<(u64, u64)> {
        if !self.eat(b'[') {
            return None;
        }
        self.ws();
        let h = self.uint()?;
        self.ws();
        if !self.eat(b',') {
            return None;
        }
        self.ws();
        let w = self.uint()?;
        self.ws();
        self.eat(b']').then_some((h, w))
    }

    /// A JSON integer with no sign, fraction or exponent (an int for
    /// Python, not a float).
    fn uint(&mut self) -> Option<u64> {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        let digits = &self.b[start..self.i];
        let plain = !digits.is_empty()
            && digits.len() <= 18
            && (digits == b"0" || digits[0] != b'0')
            && !matches!(self.b.get(self.i), Some(b'.' | b'e' | b'E'));
        if !plain {
            return None;
        }
        Some(
            digits
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
        )
    }

    /// A counts string: the span between its quotes and whether it holds
    /// an escape, when its only escapes are `\\\\`, `\\"` and `\\/`
    /// (each stands for its second byte).
    fn counts(&mut self) -> Option<(std::ops::Range<usize>, bool)> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        let mut escaped = false;
        loop {
            self.i += string_stop(&self.b[self.i..]);
            match *self.b.get(self.i)? {
                b'"' => break,
                b'\\' => {
                    if !matches!(self.b.get(self.i + 1), Some(b'\\' | b'"' | b'/')) {
                        return None;
                    }
                    escaped = true;
                    self.i += 2;
                }
                // A control character.
                _ => return None,
            }
        }
        let span = start..self.i;
        self.i += 1;
        Some((span, escaped))
    }
}

/// The union of decoded instances (`(H, W, runs)` or why one failed), by
/// the shape rule of [`decode_union`].
fn union_of(
    instances: impl Iterator<Item = Result<(u32, u32, Vec<Run>), RleError>>,
) -> DecodedUnion {
    let mut out = DecodedUnion {
        mask: None,
        dropped_other_size: 0,
        failed: Vec::new(),
    };
    // The kept instances' runs are merged as they come (each is sorted),
    // and the union is indexed by column once.
    let mut shape: Option<(u32, u32)> = None;
    let mut gathered: Vec<Run> = Vec::new();
    for instance in instances {
        match instance {
            Ok((h, w, runs)) => {
                match shape {
                    None => shape = Some((h, w)),
                    Some(s) if s == (h, w) => {}
                    Some(_) => {
                        out.dropped_other_size += 1;
                        continue;
                    }
                }
                gathered = if gathered.is_empty() {
                    runs
                } else {
                    merge_runs(&gathered, &runs)
                };
            }
            Err(e) => out.failed.push(e),
        }
    }
    if let Some((h, w)) = shape {
        out.mask = Some(Mask::from_runs(h, w, gathered));
    }
    out
}

#[cfg(test)]
mod tests;
