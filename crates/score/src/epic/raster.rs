//! The union of pixel boxes against a mask, in integer arithmetic.
//!
//! The official code paints every box into an H×W array and counts pixels:
//! "The box covers pixel columns `[x1, x2)` and rows `[y1, y2)`, half-open"
//! and "IoU = |P∧G| / |P∨G|, where G is the union of all GT instances. If the
//! union is 0 the IoU is 1.0" (§6, §7). Here the boxes are cut into vertical
//! stripes at their x edges, each stripe holding merged row intervals, and
//! the mask's runs are intersected with the stripe they fall in: the same
//! integer counts without touching every pixel.

use super::mask::{Mask, Run};

/// A box in whole pixels, half-open: columns `x1..x2`, rows `y1..y2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelBox {
    /// The first column.
    pub x1: u32,
    /// The first row.
    pub y1: u32,
    /// The column just past the last.
    pub x2: u32,
    /// The row just past the last.
    pub y2: u32,
}

/// The union of a set of boxes as stripes of merged row intervals.
#[derive(Debug, Clone)]
pub struct BoxUnion {
    /// Stripe edges: stripe `k` covers columns `xs[k]..xs[k+1]`.
    xs: Vec<u32>,
    /// The merged row intervals of every stripe, one stripe after another.
    rows: Vec<(u32, u32)>,
    /// Stripe `k`'s intervals are `rows[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
}

impl BoxUnion {
    /// The union of `boxes`; boxes with no area are left out.
    pub fn new(boxes: &[PixelBox]) -> BoxUnion {
        let live = || boxes.iter().filter(|b| b.x2 > b.x1 && b.y2 > b.y1);
        let mut xs: Vec<u32> = live().flat_map(|b| [b.x1, b.x2]).collect();
        xs.sort_unstable();
        xs.dedup();
        let stripes = xs.len().saturating_sub(1);
        let mut rows: Vec<(u32, u32)> = Vec::new();
        let mut starts: Vec<usize> = Vec::with_capacity(stripes + 1);
        let mut iv: Vec<(u32, u32)> = Vec::new();
        starts.push(0);
        for k in 0..stripes {
            let (a, b) = (xs[k], xs[k + 1]);
            iv.clear();
            iv.extend(
                live()
                    .filter(|bx| bx.x1 <= a && bx.x2 >= b)
                    .map(|bx| (bx.y1, bx.y2)),
            );
            iv.sort_unstable();
            let first = rows.len();
            for &(s, e) in &iv {
                // Merged with the stripe's last interval when they touch.
                match rows[first..].last_mut() {
                    Some(last) if s <= last.1 => last.1 = last.1.max(e),
                    _ => rows.push((s, e)),
                }
            }
            starts.push(rows.len());
        }
        BoxUnion { xs, rows, starts }
    }

    /// Stripe `k`'s merged row intervals.
    fn stripe(&self, k: usize) -> &[(u32, u32)] {
        &self.rows[self.starts[k]..self.starts[k + 1]]
    }

    /// The number of pixels covered by at least one box.
    pub fn area(&self) -> u64 {
        (0..self.starts.len() - 1)
            .map(|k| {
                let w = u64::from(self.xs[k + 1] - self.xs[k]);
                w * self
                    .stripe(k)
                    .iter()
                    .map(|&(s, e)| u64::from(e - s))
                    .sum::<u64>()
            })
            .sum()
    }

    /// The number of mask pixels covered by the union: each stripe meets
    /// only the mask's runs in the columns under it (through the mask's
    /// column index), each run against the stripe's rows.
    pub fn intersection(&self, mask: &Mask) -> u64 {
        let mut total = 0u64;
        for k in 0..self.starts.len() - 1 {
            let runs = mask.runs_in_columns(self.xs[k]..self.xs[k + 1]);
            total += covered(runs, self.stripe(k));
        }
        // Runs past the frame's width belong to no column (a mask decoded
        // from RLE has none); they are counted against their stripe too.
        for run in mask.runs_past_width() {
            let k = self.xs.partition_point(|&x| x <= run.x);
            if k == 0 || k == self.xs.len() {
                continue;
            }
            total += covered(std::slice::from_ref(run), self.stripe(k - 1));
        }
        total
    }
}

/// The pixels of `runs` inside the row intervals `rows` (disjoint, so
/// each run's overlaps add up).
fn covered(runs: &[Run], rows: &[(u32, u32)]) -> u64 {
    let overlap = |r: &Run, s: u32, e: u32| u64::from(r.y1.min(e).saturating_sub(r.y0.max(s)));
    match rows {
        [] => 0,
        // One box over these columns: the common case.
        [(s, e)] => runs.iter().map(|r| overlap(r, *s, *e)).sum(),
        _ => runs
            .iter()
            .map(|r| rows.iter().map(|&(s, e)| overlap(r, s, e)).sum::<u64>())
            .sum(),
    }
}

/// The IoU of the boxes' union against the mask: `inter / union` as f64 of
/// integer counts, 1.0 when both are empty.
pub fn union_iou(boxes: &[PixelBox], mask: &Mask) -> f64 {
    // Official numeric path: numpy counts the painted array's pixels as
    // integers and divides once (`inter / union`, both exact below 2^53),
    // so one f64 division of the same two integers is bit-identical; no
    // pixel is visited here. Kept by `tests/epic_runs.rs`
    // (`box_iou_equals_pixel_count`, compared with `to_bits`).
    let u = BoxUnion::new(boxes);
    let inter = u.intersection(mask);
    let union = u.area() + mask.area() - inter;
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full_box_mask(h: u32, w: u32, b: PixelBox) -> Mask {
        let hh = u64::from(h);
        let ones: Vec<(u64, u64)> = (b.x1..b.x2)
            .map(|x| {
                (
                    u64::from(x) * hh + u64::from(b.y1),
                    u64::from(x) * hh + u64::from(b.y2),
                )
            })
            .collect();
        Mask::from_flat(h, w, &ones)
    }

    #[test]
    fn half_open_box_is_80_by_80() {
        let b = PixelBox {
            x1: 100,
            y1: 60,
            x2: 180,
            y2: 140,
        };
        assert_eq!(BoxUnion::new(&[b]).area(), 6400);
        let m = full_box_mask(240, 320, b);
        assert_eq!(union_iou(&[b], &m), 1.0);
    }

    #[test]
    fn overlapping_boxes_count_once() {
        let a = PixelBox {
            x1: 0,
            y1: 0,
            x2: 10,
            y2: 10,
        };
        let b = PixelBox {
            x1: 5,
            y1: 5,
            x2: 15,
            y2: 15,
        };
        assert_eq!(BoxUnion::new(&[a, b]).area(), 175);
        let m = full_box_mask(20, 20, a);
        assert_eq!(union_iou(&[a, b], &m), 100.0 / 175.0);
    }
}
