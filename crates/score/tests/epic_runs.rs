#![cfg(not(target_arch = "wasm32"))]
//! Scoring on RLE runs equals scoring on bitmaps: for random masks (blobs
//! and noise, several instances, masks reaching the frame's edges) and
//! random boxes, every run-based query of the EPIC-Bench scorer is checked
//! against a brute-force count over a dense H×W bitmap, the way the
//! official code paints and counts pixels (`epic-official.md` §6, §7, §10,
//! §13). Floats are compared bit for bit.

use knoblab_score::epic::coords::ModeRequest;
use knoblab_score::epic::localization::{score_localization, LocInput};
use knoblab_score::epic::mask::Mask;
use knoblab_score::epic::pyvalue::PyValue;
use knoblab_score::epic::raster::{union_iou, PixelBox};
use knoblab_score::epic::rle::{
    counts_from_string, decode_instance, decode_union, encode, RleError,
};
use proptest::prelude::*;

/// A dense bitmap, row-major.
#[derive(Debug, Clone)]
struct Bits {
    h: u32,
    w: u32,
    on: Vec<bool>,
}

impl Bits {
    fn get(&self, row: i64, col: i64) -> bool {
        row >= 0
            && col >= 0
            && row < i64::from(self.h)
            && col < i64::from(self.w)
            && self.on[(row as u32 * self.w + col as u32) as usize]
    }
    fn pixels(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.h)
            .flat_map(move |y| (0..self.w).map(move |x| (x, y)))
            .filter(move |&(x, y)| self.on[(y * self.w + x) as usize])
    }
    fn mask(&self) -> Mask {
        Mask::from_dense(self.h, self.w, &self.on)
    }
    fn rle(&self) -> PyValue {
        PyValue::Dict(vec![
            (
                "size".into(),
                PyValue::List(vec![
                    PyValue::Int(self.h.into()),
                    PyValue::Int(self.w.into()),
                ]),
            ),
            ("counts".into(), PyValue::Str(encode(&self.mask()))),
        ])
    }
}

/// A frame size, then a mask of it: sparse noise, dense noise, or a few
/// filled rectangles (some at the frame's edges).
fn bits_of(h: u32, w: u32) -> impl Strategy<Value = Bits> {
    let n = (h * w) as usize;
    prop_oneof![
        prop::collection::vec(prop::bool::weighted(0.08), n),
        prop::collection::vec(prop::bool::weighted(0.6), n),
        prop::collection::vec((0..=w, 0..=h, 0..=w, 0..=h), 0..4).prop_map(move |rects| {
            let mut on = vec![false; (h * w) as usize];
            for (a, b, c, d) in rects {
                for y in b.min(d)..b.max(d) {
                    for x in a.min(c)..a.max(c) {
                        on[(y * w + x) as usize] = true;
                    }
                }
            }
            on
        }),
    ]
    .prop_map(move |on| Bits { h, w, on })
}

fn frame() -> impl Strategy<Value = (u32, u32)> {
    (1u32..20, 1u32..24)
}

fn bits() -> impl Strategy<Value = Bits> {
    frame().prop_flat_map(|(h, w)| bits_of(h, w))
}

fn two_bits() -> impl Strategy<Value = (Bits, Bits)> {
    frame().prop_flat_map(|(h, w)| (bits_of(h, w), bits_of(h, w)))
}

fn boxes(h: u32, w: u32) -> impl Strategy<Value = Vec<PixelBox>> {
    prop::collection::vec((0..=w, 0..=h, 0..=w, 0..=h), 0..5).prop_map(|v| {
        v.into_iter()
            .map(|(a, b, c, d)| PixelBox {
                x1: a.min(c),
                y1: b.min(d),
                x2: a.max(c),
                y2: b.max(d),
            })
            .collect()
    })
}

/// |A∧B| / |A∨B| of two bitmaps, 1.0 when the union is empty (§7).
fn brute_iou(a: &[bool], b: &[bool]) -> f64 {
    let inter = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let union = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

/// The official `d(p, M)` (§10 step 6) over every set pixel.
fn brute_distance(b: &Bits, px: f64, py: f64) -> f64 {
    let (r, c) = (py.round_ties_even(), px.round_ties_even());
    if b.get(r as i64, c as i64) {
        return 0.0;
    }
    b.pixels()
        .map(|(x, y)| {
            let (dx, dy) = (f64::from(x) - px, f64::from(y) - py);
            (dx * dx + dy * dy).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

/// 4-connected components by flood fill, in raster-scan order of each
/// component's first pixel (scipy `ndimage.label`).
fn brute_components(b: &Bits) -> Vec<Vec<(u32, u32)>> {
    let mut seen = vec![false; b.on.len()];
    let mut out = Vec::new();
    for y in 0..b.h {
        for x in 0..b.w {
            let i = (y * b.w + x) as usize;
            if !b.on[i] || seen[i] {
                continue;
            }
            seen[i] = true;
            let mut stack = vec![(x, y)];
            let mut comp = Vec::new();
            while let Some((cx, cy)) = stack.pop() {
                comp.push((cx, cy));
                let n = [
                    (i64::from(cx) - 1, i64::from(cy)),
                    (i64::from(cx) + 1, i64::from(cy)),
                    (i64::from(cx), i64::from(cy) - 1),
                    (i64::from(cx), i64::from(cy) + 1),
                ];
                for (nx, ny) in n {
                    if b.get(ny, nx) {
                        let j = (ny as u32 * b.w + nx as u32) as usize;
                        if !seen[j] {
                            seen[j] = true;
                            stack.push((nx as u32, ny as u32));
                        }
                    }
                }
            }
            comp.sort_unstable();
            out.push(comp);
        }
    }
    out
}

fn mask_pixels(m: &Mask) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = m
        .runs()
        .iter()
        .flat_map(|r| (r.y0..r.y1).map(move |y| (r.x, y)))
        .collect();
    v.sort_unstable();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Decoding the RLE gives the bitmap's pixels, area and lookups.
    #[test]
    fn runs_hold_the_bitmaps_pixels(b in bits()) {
        let m = decode_union(&b.rle()).mask.expect("decodes");
        prop_assert_eq!(m.area(), b.pixels().count() as u64);
        for row in -1..=i64::from(b.h) {
            for col in -1..=i64::from(b.w) {
                prop_assert_eq!(m.contains(row, col), b.get(row, col), "({}, {})", row, col);
            }
        }
    }

    /// The union of several instances is the OR of their bitmaps.
    #[test]
    fn instance_union_is_the_or((a, b) in two_bits()) {
        let list = PyValue::List(vec![a.rle(), b.rle(), a.rle()]);
        let u = decode_union(&list).mask.expect("decodes");
        let or: Vec<bool> = a.on.iter().zip(&b.on).map(|(x, y)| *x || *y).collect();
        prop_assert_eq!(&u, &Mask::from_dense(a.h, a.w, &or));
        // Either side may start at the later column (`mask::merge_runs`).
        prop_assert_eq!(&a.mask().union(&b.mask()), &u);
        prop_assert_eq!(&b.mask().union(&a.mask()), &u);
    }

    /// Box-union IoU on runs equals painting the boxes and counting.
    #[test]
    fn box_iou_equals_pixel_count((b, bx) in bits().prop_flat_map(|b| { let (h, w) = (b.h, b.w); (Just(b), boxes(h, w)) })) {
        let mut painted = vec![false; b.on.len()];
        for r in &bx {
            for y in r.y1..r.y2 {
                for x in r.x1..r.x2 {
                    painted[(y * b.w + x) as usize] = true;
                }
            }
        }
        prop_assert_eq!(union_iou(&bx, &b.mask()).to_bits(), brute_iou(&painted, &b.on).to_bits());
    }

    /// Mask-mode IoU (a predicted RLE against the GT) on runs equals the
    /// bitmaps' count.
    #[test]
    fn mask_iou_equals_pixel_count((p, g) in two_bits()) {
        let pred = PyValue::List(vec![p.rle()]);
        let gt = PyValue::List(vec![g.rle()]);
        let out = score_localization(&LocInput {
            pred: Some(&pred),
            gt: Some(&gt),
            format_type: "mask",
            mode: ModeRequest::Auto,
            mode_name: "auto",
            gt_count: None,
            honour_wrapped: false,
            details: true,
        });
        // The GT field holds an instance, so the GT is not "empty" (§7): an
        // empty prediction scores 0 even against a mask without pixels.
        let expected = if p.pixels().next().is_none() {
            0.0
        } else {
            brute_iou(&p.on, &g.on)
        };
        prop_assert_eq!(out.score.to_bits(), expected.to_bits());
    }

    /// Point-to-region distance on runs equals the minimum over every pixel,
    /// bit for bit, including points outside the frame and on .5 ties.
    #[test]
    fn point_distance_equals_every_pixel(
        b in bits(),
        px in prop_oneof![-6.0f64..30.0, (-12i32..60).prop_map(|v| f64::from(v) / 2.0)],
        py in prop_oneof![-6.0f64..26.0, (-12i32..52).prop_map(|v| f64::from(v) / 2.0)],
    ) {
        let m = b.mask();
        let fast = m.distance_to_point(px, py);
        prop_assert_eq!(fast.to_bits(), brute_distance(&b, px, py).to_bits(), "({}, {})", px, py);
    }

    /// Region-to-region distance, components and centroids on runs equal
    /// their pixel-wise definitions.
    #[test]
    fn regions_equal_their_pixels((a, b) in two_bits()) {
        let (ma, mb) = (a.mask(), b.mask());
        let brute_sq = a.pixels()
            .flat_map(|p| b.pixels().map(move |q| (p, q)))
            .map(|((x1, y1), (x2, y2))| {
                let (dx, dy) = (i64::from(x1) - i64::from(x2), i64::from(y1) - i64::from(y2));
                (dx * dx + dy * dy) as u64
            })
            .min();
        prop_assert_eq!(ma.min_sq_distance(&mb), brute_sq);
        let comps: Vec<Vec<(u32, u32)>> = ma.components().iter().map(mask_pixels).collect();
        prop_assert_eq!(comps, brute_components(&a));
        let n = a.pixels().count() as u64;
        let centroid = (n > 0).then(|| {
            let sx: u64 = a.pixels().map(|(x, _)| u64::from(x)).sum();
            let sy: u64 = a.pixels().map(|(_, y)| u64::from(y)).sum();
            (sx as f64 / n as f64, sy as f64 / n as f64)
        });
        prop_assert_eq!(ma.centroid(), centroid);
    }
}

/// An RLE instance value of a frame with the given counts.
fn instance(h: u32, w: u32, counts: PyValue) -> PyValue {
    PyValue::Dict(vec![
        (
            "size".into(),
            PyValue::List(vec![PyValue::Int(h.into()), PyValue::Int(w.into())]),
        ),
        ("counts".into(), counts),
    ])
}

/// The long way from counts to a mask: every run checked (a negative one,
/// or one past the frame, is the error), then each pixel of each 1-run set
/// in a bitmap, column-major (`epic-official.md` §3.4).
fn mask_from_counts(counts: &[i64], h: u32, w: u32) -> Result<Mask, RleError> {
    let total = u64::from(h) * u64::from(w);
    let mut pos = 0u64;
    let mut on = vec![false; total as usize];
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
                    .fold(0, u64::saturating_add),
                height: h.into(),
                width: w.into(),
                total,
            });
        }
        if index % 2 == 1 {
            for p in pos..end {
                let (row, col) = (p % u64::from(h), p / u64::from(h));
                on[(row * u64::from(w) + col) as usize] = true;
            }
        }
        pos = end;
    }
    Ok(Mask::from_dense(h, w, &on))
}

/// A counts string: a mask's encoding, maybe with a character changed or
/// added (anything from the 5-bit alphabet and beyond it).
fn counts_text() -> impl Strategy<Value = (u32, u32, String)> {
    let odd = prop_oneof![
        8 => (48u8..112).prop_map(char::from),
        1 => prop::sample::select(vec!['!', '~', '\u{e9}', ' ', '\u{7f}']),
    ];
    (
        bits(),
        prop::option::of((any::<prop::sample::Index>(), odd, any::<bool>())),
    )
        .prop_map(|(b, change)| {
            let mut s: Vec<char> = encode(&b.mask()).chars().collect();
            if let Some((at, c, insert)) = change {
                let k = at.index(s.len() + 1);
                if insert || k == s.len() {
                    s.insert(k, c);
                } else {
                    s[k] = c;
                }
            }
            (b.h, b.w, s.into_iter().collect())
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Decoding a counts string straight into runs gives the mask (or the
    /// error) that decoding it into counts, then painting them, gives.
    #[test]
    fn streamed_counts_equal_listed_counts((h, w, s) in counts_text()) {
        let ours = decode_instance(&instance(h, w, PyValue::Str(s.clone())));
        let theirs = counts_from_string(&s).and_then(|c| mask_from_counts(&c, h, w));
        prop_assert_eq!(ours, theirs, "{:?} over {}x{}", s, h, w);
    }
}
