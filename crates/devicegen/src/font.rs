//! Text as outlines: the vendored TrueType font read directly (`cmap`,
//! `hmtx`, `glyf`, `kern`), so that a label is drawn as the paths of its
//! glyphs with no text engine. The drawing's `<text>` elements become
//! `<path>`s before resvg parses it ([`outline_text`]); natively and in
//! the page alike, so a device is the same picture in both.
//!
//! **Decision** (issue #46, each route loads what it uses): resvg's text
//! engine (a shaper, two font readers and a font database, about 760 KB of
//! wasm) drew a few short labels in one font. The labels are Latin
//! (digits, marks, words), so laying them out needs each glyph's advance
//! and the font's pair kerning, which this file reads from the font's own
//! tables; nothing else of shaping applies to them.
//!
//! The reader refuses a font it cannot read with a message naming the
//! table; a glyph that cannot be read draws nothing and is said so by
//! [`Font::outline`].

use std::fmt::Write as _;

use crate::svg::Affine;

/// Why a font's bytes could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FontError {
    /// A table the reader needs is absent.
    #[error("the font has no `{0}` table")]
    NoTable(&'static str),
    /// A table ends before what it declares.
    #[error("the font's `{0}` table is cut short")]
    Short(&'static str),
    /// No character map the reader knows (Windows Unicode BMP, format 4).
    #[error("the font has no Unicode character map of format 4")]
    NoCharacterMap,
}

/// Big-endian reads that say which table was cut short.
#[derive(Clone, Copy)]
struct Table<'a> {
    tag: &'static str,
    bytes: &'a [u8],
}

impl<'a> Table<'a> {
    fn u16(self, at: usize) -> Result<u16, FontError> {
        self.bytes
            .get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or(FontError::Short(self.tag))
    }

    fn i16(self, at: usize) -> Result<i16, FontError> {
        self.u16(at).map(|v| v as i16)
    }

    fn u32(self, at: usize) -> Result<u32, FontError> {
        self.bytes
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(FontError::Short(self.tag))
    }

    fn u8(self, at: usize) -> Result<u8, FontError> {
        self.bytes
            .get(at)
            .copied()
            .ok_or(FontError::Short(self.tag))
    }

    fn slice(self, from: usize, to: usize) -> Result<Table<'a>, FontError> {
        let bytes = self.bytes.get(from..to).ok_or(FontError::Short(self.tag))?;
        Ok(Table {
            tag: self.tag,
            bytes,
        })
    }
}

/// A TrueType font, read for drawing labels.
pub struct Font<'a> {
    units_per_em: u16,
    glyph_count: u16,
    long_loca: bool,
    cmap: Table<'a>,
    hmtx: Table<'a>,
    metrics: u16,
    loca: Table<'a>,
    glyf: Table<'a>,
    /// The first horizontal kerning subtable's pairs (format 0), if any.
    kern: Option<Table<'a>>,
}

/// A glyph's outline in font units (y up), as a pen draws it.
pub trait Pen {
    /// Starts a contour at (`x`, `y`).
    fn move_to(&mut self, x: f64, y: f64);
    /// A straight segment to (`x`, `y`).
    fn line_to(&mut self, x: f64, y: f64);
    /// A quadratic segment through control (`cx`, `cy`) to (`x`, `y`).
    fn quad_to(&mut self, cx: f64, cy: f64, x: f64, y: f64);
    /// Closes the contour.
    fn close(&mut self);
}

/// How deep composite glyphs may nest (fonts use one or two levels).
const MAX_DEPTH: u8 = 8;

impl<'a> Font<'a> {
    /// Reads the tables of a TrueType font (`bytes`, one face).
    pub fn parse(bytes: &'a [u8]) -> Result<Font<'a>, FontError> {
        let file = Table {
            tag: "table directory",
            bytes,
        };
        let count = usize::from(file.u16(4)?);
        let table = |tag: &'static str| -> Result<Option<Table<'a>>, FontError> {
            for i in 0..count {
                let record = 12 + 16 * i;
                if file.slice(record, record + 4)?.bytes == tag.as_bytes() {
                    let offset = file.u32(record + 8)? as usize;
                    let length = file.u32(record + 12)? as usize;
                    let bytes = bytes
                        .get(offset..offset.saturating_add(length))
                        .ok_or(FontError::Short(tag))?;
                    return Ok(Some(Table { tag, bytes }));
                }
            }
            Ok(None)
        };
        let need = |tag: &'static str| table(tag)?.ok_or(FontError::NoTable(tag));
        let head = need("head")?;
        let maxp = need("maxp")?;
        let hhea = need("hhea")?;
        let cmap = need("cmap")?;
        let font = Font {
            units_per_em: head.u16(18)?,
            glyph_count: maxp.u16(4)?,
            long_loca: head.i16(50)? != 0,
            cmap: unicode_map(cmap)?,
            hmtx: need("hmtx")?,
            metrics: hhea.u16(34)?,
            loca: need("loca")?,
            glyf: need("glyf")?,
            kern: table("kern")?.map(horizontal_pairs).transpose()?.flatten(),
        };
        if font.metrics == 0 || font.units_per_em == 0 {
            return Err(FontError::Short("hhea"));
        }
        Ok(font)
    }

    /// Font units per em: a glyph at size `s` is scaled by `s / units_per_em`.
    pub fn units_per_em(&self) -> u16 {
        self.units_per_em
    }

    /// The glyph of `c`, or 0 (the font's "missing glyph") when it has none.
    pub fn glyph(&self, c: char) -> u16 {
        let code = u32::from(c);
        if code > 0xFFFF {
            return 0;
        }
        self.map_bmp(code as u16).unwrap_or(0)
    }

    fn map_bmp(&self, c: u16) -> Result<u16, FontError> {
        let t = self.cmap;
        let segments = usize::from(t.u16(6)? / 2);
        let ends = 14;
        let starts = ends + 2 * segments + 2;
        let deltas = starts + 2 * segments;
        let ranges = deltas + 2 * segments;
        // The first segment whose end is at or after `c` (ends are sorted).
        let (mut lo, mut hi) = (0, segments);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if t.u16(ends + 2 * mid)? < c {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == segments {
            return Ok(0);
        }
        let start = t.u16(starts + 2 * lo)?;
        if c < start {
            return Ok(0);
        }
        let delta = t.u16(deltas + 2 * lo)?;
        let range_at = ranges + 2 * lo;
        let range = t.u16(range_at)?;
        if range == 0 {
            return Ok(c.wrapping_add(delta));
        }
        let at = range_at + usize::from(range) + 2 * usize::from(c - start);
        let glyph = t.u16(at)?;
        Ok(if glyph == 0 {
            0
        } else {
            glyph.wrapping_add(delta)
        })
    }

    /// The advance width of `glyph`, in font units.
    pub fn advance(&self, glyph: u16) -> u16 {
        let index = glyph.min(self.metrics - 1);
        self.hmtx.u16(4 * usize::from(index)).unwrap_or(0)
    }

    /// The kerning between `left` and `right` (font units, added to the
    /// left glyph's advance), from the font's `kern` table; 0 without one.
    pub fn kerning(&self, left: u16, right: u16) -> i16 {
        let Some(t) = self.kern else {
            return 0;
        };
        let key = (u32::from(left) << 16) | u32::from(right);
        let pairs = t.bytes.len() / 6;
        let (mut lo, mut hi) = (0, pairs);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let Ok(at) = t.u32(6 * mid) else {
                return 0;
            };
            match at.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return t.i16(6 * mid + 4).unwrap_or(0),
            }
        }
        0
    }

    /// Draws `glyph`'s outline with `pen`, in font units (y up).
    pub fn outline(&self, glyph: u16, pen: &mut impl Pen) -> Result<(), FontError> {
        self.outline_at(glyph, Affine::scale(1.0), pen, 0)
    }

    /// The bytes of `glyph` in `glyf` (empty for a glyph with no outline).
    fn glyph_data(&self, glyph: u16) -> Result<Table<'a>, FontError> {
        if glyph >= self.glyph_count {
            return self.glyf.slice(0, 0);
        }
        let i = usize::from(glyph);
        let (from, to) = if self.long_loca {
            (
                self.loca.u32(4 * i)? as usize,
                self.loca.u32(4 * i + 4)? as usize,
            )
        } else {
            (
                2 * usize::from(self.loca.u16(2 * i)?),
                2 * usize::from(self.loca.u16(2 * i + 2)?),
            )
        };
        if to <= from {
            return self.glyf.slice(0, 0);
        }
        self.glyf.slice(from, to)
    }

    /// Draws `glyph` transformed by `m`.
    fn outline_at(
        &self,
        glyph: u16,
        m: Affine,
        pen: &mut impl Pen,
        depth: u8,
    ) -> Result<(), FontError> {
        let g = self.glyph_data(glyph)?;
        if g.bytes.is_empty() {
            return Ok(());
        }
        let contours = g.i16(0)?;
        if contours >= 0 {
            simple(g, contours as usize, m, pen)
        } else if depth < MAX_DEPTH {
            self.composite(g, m, pen, depth)
        } else {
            Ok(())
        }
    }

    /// A composite glyph: its components, each moved and scaled.
    fn composite(
        &self,
        g: Table<'a>,
        m: Affine,
        pen: &mut impl Pen,
        depth: u8,
    ) -> Result<(), FontError> {
        const WORDS: u16 = 0x0001;
        const XY_VALUES: u16 = 0x0002;
        const SCALE: u16 = 0x0008;
        const MORE: u16 = 0x0020;
        const X_AND_Y_SCALE: u16 = 0x0040;
        const TWO_BY_TWO: u16 = 0x0080;
        let f2dot14 = |v: i16| f64::from(v) / 16384.0;
        let mut at = 10;
        loop {
            let flags = g.u16(at)?;
            let component = g.u16(at + 2)?;
            at += 4;
            let (dx, dy) = if flags & WORDS != 0 {
                at += 4;
                (g.i16(at - 4)?, g.i16(at - 2)?)
            } else {
                at += 2;
                (
                    i16::from(g.u8(at - 2)? as i8),
                    i16::from(g.u8(at - 1)? as i8),
                )
            };
            let (mut a, mut b, mut c, mut d) = (1.0, 0.0, 0.0, 1.0);
            if flags & SCALE != 0 {
                a = f2dot14(g.i16(at)?);
                d = a;
                at += 2;
            } else if flags & X_AND_Y_SCALE != 0 {
                a = f2dot14(g.i16(at)?);
                d = f2dot14(g.i16(at + 2)?);
                at += 4;
            } else if flags & TWO_BY_TWO != 0 {
                a = f2dot14(g.i16(at)?);
                b = f2dot14(g.i16(at + 2)?);
                c = f2dot14(g.i16(at + 4)?);
                d = f2dot14(g.i16(at + 6)?);
                at += 8;
            }
            // Point-matched components (offsets that are point numbers)
            // are not placed: none of the labels' glyphs has one.
            if flags & XY_VALUES != 0 {
                let local = [a, b, c, d, f64::from(dx), f64::from(dy)];
                self.outline_at(component, m.then_after(Affine(local)), pen, depth + 1)?;
            }
            if flags & MORE == 0 {
                return Ok(());
            }
        }
    }
}

/// The Windows Unicode BMP character map (format 4) of a `cmap` table.
fn unicode_map(cmap: Table<'_>) -> Result<Table<'_>, FontError> {
    let count = usize::from(cmap.u16(2)?);
    for i in 0..count {
        let record = 4 + 8 * i;
        let (platform, encoding) = (cmap.u16(record)?, cmap.u16(record + 2)?);
        let offset = cmap.u32(record + 4)? as usize;
        let unicode = (platform, encoding) == (3, 1) || platform == 0;
        if unicode && cmap.u16(offset)? == 4 {
            let length = usize::from(cmap.u16(offset + 2)?);
            return cmap.slice(offset, offset + length);
        }
    }
    Err(FontError::NoCharacterMap)
}

/// The pairs of a `kern` table's first horizontal subtable of format 0
/// (`[left, right, value]`, 6 bytes each, sorted), if it has one.
fn horizontal_pairs(kern: Table<'_>) -> Result<Option<Table<'_>>, FontError> {
    let count = usize::from(kern.u16(2)?);
    let mut at = 4;
    for _ in 0..count {
        let length = usize::from(kern.u16(at + 2)?);
        let coverage = kern.u16(at + 4)?;
        let format = coverage >> 8;
        let horizontal = coverage & 0x1 != 0 && coverage & 0x6 == 0;
        if format == 0 && horizontal {
            let pairs = usize::from(kern.u16(at + 6)?);
            let from = at + 14;
            return kern.slice(from, from + 6 * pairs).map(Some);
        }
        at += length;
    }
    Ok(None)
}

/// A simple glyph's contours: quadratic B-splines, points on and off the
/// curve, two off-curve points in a row implying the on-curve one between.
fn simple(g: Table<'_>, contours: usize, m: Affine, pen: &mut impl Pen) -> Result<(), FontError> {
    const ON_CURVE: u8 = 0x01;
    const X_SHORT: u8 = 0x02;
    const Y_SHORT: u8 = 0x04;
    const REPEAT: u8 = 0x08;
    const X_SAME: u8 = 0x10;
    const Y_SAME: u8 = 0x20;
    let mut ends = Vec::with_capacity(contours);
    for i in 0..contours {
        ends.push(usize::from(g.u16(10 + 2 * i)?));
    }
    let Some(&last) = ends.last() else {
        return Ok(());
    };
    let points = last + 1;
    let instructions = usize::from(g.u16(10 + 2 * contours)?);
    let mut at = 12 + 2 * contours + instructions;
    let mut flags = Vec::with_capacity(points);
    while flags.len() < points {
        let flag = g.u8(at)?;
        at += 1;
        flags.push(flag);
        if flag & REPEAT != 0 {
            let times = g.u8(at)?;
            at += 1;
            for _ in 0..times {
                flags.push(flag);
            }
        }
    }
    flags.truncate(points);
    let mut read = |short: u8, same: u8| -> Result<Vec<i32>, FontError> {
        let mut value = 0i32;
        let mut out = Vec::with_capacity(points);
        for &flag in &flags {
            if flag & short != 0 {
                let step = i32::from(g.u8(at)?);
                at += 1;
                value += if flag & same != 0 { step } else { -step };
            } else if flag & same == 0 {
                value += i32::from(g.i16(at)?);
                at += 2;
            }
            out.push(value);
        }
        Ok(out)
    };
    let xs = read(X_SHORT, X_SAME)?;
    let ys = read(Y_SHORT, Y_SAME)?;
    let at_point = |i: usize| {
        let (x, y) = m.apply(f64::from(xs[i]), f64::from(ys[i]));
        (x, y, flags[i] & ON_CURVE != 0)
    };
    let mut first = 0;
    for &end in &ends {
        if end < first || end >= points {
            return Err(FontError::Short("glyf"));
        }
        contour(&(first..=end).map(at_point).collect::<Vec<_>>(), pen);
        first = end + 1;
    }
    Ok(())
}

/// One closed contour of points `(x, y, on_curve)`.
fn contour(points: &[(f64, f64, bool)], pen: &mut impl Pen) {
    let n = points.len();
    if n == 0 {
        return;
    }
    let mid = |p: (f64, f64, bool), q: (f64, f64, bool)| ((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0);
    // Start on a point on the curve: the first, else the last, else the
    // midpoint of the two (all off the curve).
    let (start, from) = if points[0].2 {
        ((points[0].0, points[0].1), 1)
    } else if points[n - 1].2 {
        ((points[n - 1].0, points[n - 1].1), 0)
    } else {
        (mid(points[n - 1], points[0]), 0)
    };
    pen.move_to(start.0, start.1);
    let mut control: Option<(f64, f64)> = None;
    let end = if !points[0].2 && points[n - 1].2 {
        n - 1
    } else {
        n
    };
    for &p in &points[from..end] {
        match (control, p.2) {
            (None, true) => pen.line_to(p.0, p.1),
            (None, false) => control = Some((p.0, p.1)),
            (Some(c), true) => {
                pen.quad_to(c.0, c.1, p.0, p.1);
                control = None;
            }
            (Some(c), false) => {
                let m = ((c.0 + p.0) / 2.0, (c.1 + p.1) / 2.0);
                pen.quad_to(c.0, c.1, m.0, m.1);
                control = Some((p.0, p.1));
            }
        }
    }
    match control {
        Some(c) => pen.quad_to(c.0, c.1, start.0, start.1),
        None => pen.line_to(start.0, start.1),
    }
    pen.close();
}

/// A pen that writes SVG path data in a drawing's coordinates: font units
/// scaled by `scale`, y flipped, moved to (`x`, `y`).
struct SvgPen {
    d: String,
    scale: f64,
    x: f64,
    y: f64,
}

impl SvgPen {
    fn point(&mut self, px: f64, py: f64) {
        let _ = write!(
            self.d,
            " {} {}",
            coord(self.x + px * self.scale),
            coord(self.y - py * self.scale)
        );
    }
}

/// A coordinate with three decimals, trailing zeros dropped.
fn coord(v: f64) -> String {
    let text = format!("{:.3}", (v * 1000.0).round() / 1000.0);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => "0".to_string(),
        t => t.to_string(),
    }
}

impl Pen for SvgPen {
    fn move_to(&mut self, x: f64, y: f64) {
        self.d.push('M');
        self.point(x, y);
    }
    fn line_to(&mut self, x: f64, y: f64) {
        self.d.push('L');
        self.point(x, y);
    }
    fn quad_to(&mut self, cx: f64, cy: f64, x: f64, y: f64) {
        self.d.push('Q');
        self.point(cx, cy);
        self.point(x, y);
    }
    fn close(&mut self) {
        self.d.push('Z');
    }
}

/// Where a label sits on its anchor point, as SVG's `text-anchor` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The label starts at the point.
    Start,
    /// The label is centred on the point.
    Middle,
    /// The label ends at the point.
    End,
}

impl Font<'_> {
    /// The path data (SVG `d`) of `label` set at `size` on the baseline
    /// `y`, anchored at `x`: each glyph's advance and the pair kerning.
    pub fn label_path(&self, label: &str, x: f64, y: f64, size: f64, anchor: Anchor) -> String {
        let glyphs: Vec<u16> = label.chars().map(|c| self.glyph(c)).collect();
        let mut pens = Vec::with_capacity(glyphs.len());
        let mut pen = 0.0;
        for (i, &g) in glyphs.iter().enumerate() {
            pens.push(pen);
            pen += f64::from(self.advance(g));
            if let Some(&next) = glyphs.get(i + 1) {
                pen += f64::from(self.kerning(g, next));
            }
        }
        let scale = size / f64::from(self.units_per_em);
        let width = pen * scale;
        let left = match anchor {
            Anchor::Start => x,
            Anchor::Middle => x - width / 2.0,
            Anchor::End => x - width,
        };
        let mut out = SvgPen {
            d: String::new(),
            scale,
            x: left,
            y,
        };
        for (&g, &at) in glyphs.iter().zip(&pens) {
            out.x = left + at * scale;
            // A glyph that cannot be read draws nothing (the font is the
            // vendored one: checked when given, tested whole natively).
            let _ = self.outline(g, &mut out);
        }
        out.d.trim_start().to_string()
    }
}
