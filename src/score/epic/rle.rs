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

use super::mask::{merge_sorted_runs, Mask, Run};
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
    let bytes = s.as_bytes();
    let mut counts: Vec<i64> = Vec::with_capacity(bytes.len() / 2 + 1);
    let mut p = 0;
    while p < bytes.len() {
        let start = p;
        let mut x: i64 = 0;
        let mut k: u32 = 0;
        while let Some(&b) = bytes.get(p) {
            if k >= MAX_GROUPS {
                return Err(RleError::ValueTooLong { at: start });
            }
            let c = i64::from(b) - 48;
            x |= (c & 0x1f) << (5 * k);
            let more = c & 0x20 != 0;
            p += 1;
            k += 1;
            if !more {
                if c & 0x10 != 0 {
                    x |= -1i64 << (5 * k);
                }
                break;
            }
        }
        let m = counts.len();
        if m > 2 {
            x = x.saturating_add(counts[m - 2]);
        }
        counts.push(x);
    }
    Ok(counts)
}

/// Decodes one RLE instance into a [`Mask`].
pub fn decode_instance(v: &PyValue) -> Result<Mask, RleError> {
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
    let (height, width) = (dim(0)?, dim(1)?);
    if height.max(1).saturating_mul(width.max(1)) > MAX_PIXELS {
        return Err(RleError::TooLarge { height, width });
    }
    // Both sides are now at most MAX_PIXELS, so they fit in u32.
    let total = height * width;
    let counts: Vec<i64> = match counts {
        PyValue::Str(s) => counts_from_string(s)?,
        PyValue::List(items) => items
            .iter()
            .map(|c| match c {
                PyValue::Int(n) if *n >= 0 && *n <= i128::from(u32::MAX) => Ok(*n as i64),
                _ => Err(RleError::BadCounts),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(RleError::BadCounts),
    };
    // The 1-runs go straight into column runs: no list of flat intervals,
    // no bitmap.
    let mut runs: Vec<Run> = Vec::with_capacity(counts.len() / 2 + 1);
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
                height,
                width,
                total,
            });
        }
        if index % 2 == 1 && len > 0 {
            push_flat(&mut runs, height, pos, end);
        }
        pos = end;
    }
    Ok(Mask::from_runs(height as u32, width as u32, runs))
}

/// Appends the flat column-major interval `s..e` (`p = x*H + y`) as the
/// column runs it spans, merging with the previous run of its column.
fn push_flat(runs: &mut Vec<Run>, height: u64, s: u64, e: u64) {
    let Some(h) = std::num::NonZeroU64::new(height) else {
        return;
    };
    let mut p = s;
    while p < e {
        let x = p / h;
        let y0 = p % h;
        let end = e.min((x + 1) * height);
        let run = Run {
            x: x as u32,
            y0: y0 as u32,
            y1: (end - x * height) as u32,
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
    let mut out = DecodedUnion {
        mask: None,
        dropped_other_size: 0,
        failed: Vec::new(),
    };
    // The kept instances' runs are gathered, then sorted and merged once:
    // one pass for any number of instances, not one union per instance.
    let mut shape: Option<(u32, u32)> = None;
    let mut gathered: Vec<Run> = Vec::new();
    let mut kept = 0usize;
    for item in items {
        match decode_instance(item) {
            Ok(m) => {
                let hw = (m.height(), m.width());
                match shape {
                    None => shape = Some(hw),
                    Some(s) if s == hw => {}
                    Some(_) => {
                        out.dropped_other_size += 1;
                        continue;
                    }
                }
                kept += 1;
                if gathered.is_empty() {
                    gathered = m.into_runs();
                } else {
                    gathered.extend_from_slice(m.runs());
                }
            }
            Err(e) => out.failed.push(e),
        }
    }
    if let Some((h, w)) = shape {
        let runs = if kept > 1 {
            merge_sorted_runs(gathered)
        } else {
            gathered
        };
        out.mask = Some(Mask::from_runs(h, w, runs));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::epic::pyjson::loads;

    #[test]
    fn uncompressed_counts_are_column_major() {
        // 3×2 image: pixels (col 0: rows 0..3), (col 1: rows 0..3).
        let v = loads(r#"{"size": [3, 2], "counts": [1, 3, 2]}"#).unwrap();
        let m = decode_instance(&v).unwrap();
        assert_eq!(m.area(), 3);
        assert!(!m.contains(0, 0));
        assert!(m.contains(1, 0) && m.contains(2, 0) && m.contains(0, 1));
        assert!(!m.contains(1, 1));
    }

    #[test]
    fn compressed_round_values() {
        // "0" is 0; small values are one character each up to 15.
        assert_eq!(counts_from_string("").unwrap(), Vec::<i64>::new());
        assert_eq!(counts_from_string("12").unwrap(), vec![1, 2]);
        // 4th value is a delta against the 2nd: 1, 2, 3, (2 + 1) = 3.
        assert_eq!(counts_from_string("1231").unwrap(), vec![1, 2, 3, 3]);
    }

    #[test]
    fn encode_round_trips() {
        let v = loads(r#"{"size": [5, 4], "counts": [2, 3, 4, 1, 0, 6]}"#).unwrap();
        let m = decode_instance(&v).unwrap();
        let s = encode(&m);
        let back = PyValue::Dict(vec![
            (
                "size".into(),
                PyValue::List(vec![PyValue::Int(5), PyValue::Int(4)]),
            ),
            ("counts".into(), PyValue::Str(s)),
        ]);
        assert_eq!(decode_instance(&back).unwrap(), m);
    }

    #[test]
    fn past_declared_size_is_an_error() {
        let v = loads(r#"{"size": [2, 2], "counts": [1, 5]}"#).unwrap();
        let e = decode_instance(&v).unwrap_err();
        assert!(e.to_string().contains("only 4"), "{e}");
    }

    #[test]
    fn absurd_size_is_an_error() {
        let v = loads(r#"{"size": [100000, 100000], "counts": "0"}"#).unwrap();
        assert!(matches!(
            decode_instance(&v),
            Err(RleError::TooLarge { .. })
        ));
    }

    #[test]
    fn union_drops_other_sizes() {
        let v = loads(
            r#"[{"size": [2, 2], "counts": [0, 1]}, {"size": [3, 3], "counts": [0, 9]},
                {"size": [2, 2], "counts": [3, 1]}, "junk"]"#,
        )
        .unwrap();
        let u = decode_union(&v);
        let m = u.mask.unwrap();
        assert_eq!(m.area(), 2);
        assert_eq!(u.dropped_other_size, 1);
        assert_eq!(u.failed.len(), 1);
    }

    #[test]
    fn garbage_strings_do_not_panic() {
        for s in [
            "\u{ff}\u{ff}\u{ff}",
            "ooooooooooooooooooooooo",
            "~~~~~~~~",
            "!!",
        ] {
            let _ = counts_from_string(s);
            let v = PyValue::Dict(vec![
                (
                    "size".into(),
                    PyValue::List(vec![PyValue::Int(10), PyValue::Int(10)]),
                ),
                ("counts".into(), PyValue::Str(s.into())),
            ]);
            let _ = decode_instance(&v);
        }
    }
}
