//! A binary mask as its vertical 1-runs, the form COCO RLE decodes to, and
//! the exact geometric queries the path score needs (pixel lookup,
//! point-to-mask and mask-to-mask distance, 4-connected components,
//! centroids). Every query is exact: no sampling, no dense bitmap.

/// A vertical run of set pixels: column `x`, rows `y0..y1` (half-open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The column, 0-based.
    pub x: u32,
    /// The first row of the run.
    pub y0: u32,
    /// The row just past the run's last.
    pub y1: u32,
}

impl Run {
    fn len(&self) -> u64 {
        u64::from(self.y1 - self.y0)
    }
}

/// An H×W binary mask. Runs are sorted by column then row, disjoint and
/// never touching within a column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mask {
    height: u32,
    width: u32,
    runs: Vec<Run>,
    /// The first column that holds a run (0 for an empty mask).
    x0: u32,
    /// `col_start[x-x0]..col_start[x-x0+1]` indexes the runs of column `x`,
    /// for the columns `x0..x0 + col_start.len() - 1` between the first and
    /// the last column with a run: the index spans the runs' bounding box,
    /// never the whole frame.
    col_start: Vec<u32>,
    area: u64,
}

impl Mask {
    /// Builds a mask from sorted, disjoint 1-intervals of the column-major
    /// pixel index `p = x*H + y`.
    pub fn from_flat(height: u32, width: u32, ones: &[(u64, u64)]) -> Mask {
        let h = u64::from(height);
        let mut runs = Vec::with_capacity(ones.len());
        if let Some(nz) = std::num::NonZeroU64::new(h) {
            for &(s, e) in ones {
                let mut p = s;
                while p < e {
                    let x = p / nz;
                    let y0 = p % nz;
                    let col_end = (x + 1) * h;
                    let end = e.min(col_end);
                    push_run(
                        &mut runs,
                        Run {
                            x: x as u32,
                            y0: y0 as u32,
                            y1: (end - x * h) as u32,
                        },
                    );
                    p = end;
                }
            }
        }
        Mask::from_runs(height, width, runs)
    }

    /// Builds a mask from a dense row-major bitmap (`bits[row * width + col]`).
    pub fn from_dense(height: u32, width: u32, bits: &[bool]) -> Mask {
        let mut runs = Vec::new();
        for x in 0..width {
            for y in 0..height {
                let i = y as usize * width as usize + x as usize;
                if bits.get(i).copied().unwrap_or(false) {
                    push_run(
                        &mut runs,
                        Run {
                            x,
                            y0: y,
                            y1: y + 1,
                        },
                    );
                }
            }
        }
        Mask::from_runs(height, width, runs)
    }

    /// Builds a mask from runs already sorted by (x, y0) and merged. Runs
    /// at or beyond `width` are kept in `runs()` but belong to no column.
    ///
    /// The runs inside the frame come first (they are sorted by column), so
    /// the index is one pass that marks where each column's runs end, and
    /// one that carries the end over the columns without runs.
    pub fn from_runs(height: u32, width: u32, runs: Vec<Run>) -> Mask {
        let inside = runs.partition_point(|r| r.x < width);
        let (x0, x1) = match (runs.first(), runs[..inside].last()) {
            (Some(first), Some(last)) => (first.x, last.x + 1),
            _ => (0, 0),
        };
        let span = x1.saturating_sub(x0) as usize;
        let mut col_start = vec![0u32; span + 1];
        let mut area = 0u64;
        for (i, r) in runs[..inside].iter().enumerate() {
            area += r.len();
            if let Some(end) = col_start.get_mut(r.x.wrapping_sub(x0) as usize + 1) {
                *end = i as u32 + 1;
            }
        }
        area += runs[inside..].iter().map(Run::len).sum::<u64>();
        // A column without runs ends where the one before it ends.
        for k in 1..col_start.len() {
            col_start[k] = col_start[k].max(col_start[k - 1]);
        }
        Mask {
            height,
            width,
            runs,
            x0,
            col_start,
            area,
        }
    }

    /// The columns `x0..x1` between the first and the last one holding a
    /// run (empty for an empty mask).
    pub fn column_span(&self) -> std::ops::Range<u32> {
        self.x0..self.x0 + (self.col_start.len() as u32).saturating_sub(1)
    }

    /// The number of rows (H).
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The number of columns (W).
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The number of set pixels.
    pub fn area(&self) -> u64 {
        self.area
    }

    /// The runs, sorted by column then row.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The runs, giving up the mask.
    pub fn into_runs(self) -> Vec<Run> {
        self.runs
    }

    /// The runs of one column.
    pub fn column(&self, x: u32) -> &[Run] {
        if !self.column_span().contains(&x) {
            return &[];
        }
        let k = (x - self.x0) as usize;
        let a = self.col_start[k] as usize;
        let b = self.col_start[k + 1] as usize;
        &self.runs[a..b]
    }

    /// The runs of the columns `columns` (within the frame), column by
    /// column.
    pub fn runs_in_columns(&self, columns: std::ops::Range<u32>) -> &[Run] {
        let span = self.column_span();
        let (a, b) = (columns.start.max(span.start), columns.end.min(span.end));
        if a >= b {
            return &[];
        }
        let k = |x: u32| self.col_start[(x - self.x0) as usize] as usize;
        &self.runs[k(a)..k(b)]
    }

    /// The runs at or past the frame's width, which belong to no column
    /// (only [`Mask::from_runs`] given such runs makes them).
    pub fn runs_past_width(&self) -> &[Run] {
        let inside = self.col_start.last().map_or(0, |&n| n as usize);
        self.runs.get(inside..).unwrap_or(&[])
    }

    /// Whether pixel (row, col) is set; false outside the image.
    pub fn contains(&self, row: i64, col: i64) -> bool {
        if row < 0 || col < 0 || row >= i64::from(self.height) || col >= i64::from(self.width) {
            return false;
        }
        let (row, col) = (row as u32, col as u32);
        let runs = self.column(col);
        let k = runs.partition_point(|r| r.y1 <= row);
        runs.get(k).is_some_and(|r| r.y0 <= row)
    }

    /// The union with a mask of the same shape.
    pub fn union(&self, other: &Mask) -> Mask {
        Mask::from_runs(self.height, self.width, merge_runs(&self.runs, &other.runs))
    }

    /// The centroid `(mean x, mean y)` of the set pixels, as the official
    /// code computes it: "`(Σx)/count` as an f64 division of exact integer
    /// sums" (§13). `None` for an empty mask.
    pub fn centroid(&self) -> Option<(f64, f64)> {
        centroid_of(self.runs.iter())
    }

    /// `d(p, M)` of §10 step 6: "If `(row, col) = (round(p.y), round(p.x))`
    /// is inside the image and `M[row, col]` is set → 0. **`round` is
    /// round-half-to-even.** Otherwise the minimum over the set pixels
    /// `(x=col, y=row)` of `sqrt((x-p.x)^2 + (y-p.y)^2)`". `+inf` when empty.
    ///
    /// Exact without visiting every pixel: within a column the nearest run
    /// end minimises the (monotone) float sum, and columns are visited
    /// outwards from `p.x` until `dx²` alone exceeds the best, within the
    /// runs' bounding columns only.
    ///
    /// Official numeric path: each pixel's `(x-px)**2 + (y-py)**2` is one
    /// f64 sum of two f64 squares, and `sqrt` is correctly rounded and
    /// monotone, so `sqrt(min(sum))` is `min(sqrt(sum))` bit for bit; the
    /// candidates here are computed with the same two operations in the
    /// same order. Kept by `point_distance_equals_every_pixel` in
    /// `tests/epic_runs.rs` (`to_bits`, .5 ties and points off the frame).
    pub fn distance_to_point(&self, px: f64, py: f64) -> f64 {
        if self.area == 0 {
            return f64::INFINITY;
        }
        let (r, c) = (py.round_ties_even(), px.round_ties_even());
        if r.is_finite() && c.is_finite() && self.contains(r as i64, c as i64) {
            return 0.0;
        }
        let mut best = f64::INFINITY;
        // Only the columns that hold runs can hold the nearest pixel.
        let span = self.column_span();
        let (lo, hi) = (i64::from(span.start), i64::from(span.end));
        let start = if px.is_finite() {
            (px.floor() as i64).clamp(lo - 1, hi)
        } else {
            lo
        };
        let visit = |x: i64, best: &mut f64| -> bool {
            let dx = x as f64 - px;
            let dx2 = dx * dx;
            if dx2 > *best {
                return false;
            }
            for run in self.column(x as u32) {
                let y = if py < f64::from(run.y0) {
                    f64::from(run.y0)
                } else if py > f64::from(run.y1 - 1) {
                    f64::from(run.y1 - 1)
                } else {
                    py.round_ties_even()
                        .clamp(f64::from(run.y0), f64::from(run.y1 - 1))
                };
                // Inside a run the nearest integer row is the nearest pixel;
                // check both neighbours to stay exact around .5.
                for cand in [y, y.floor(), y.ceil()] {
                    if cand >= f64::from(run.y0) && cand <= f64::from(run.y1 - 1) {
                        let dy = cand - py;
                        let s = dx2 + dy * dy;
                        if s < *best {
                            *best = s;
                        }
                    }
                }
            }
            true
        };
        let mut left = start;
        let mut left_alive = true;
        let mut right = start + 1;
        let mut right_alive = true;
        while left_alive || right_alive {
            if left_alive {
                if left < lo {
                    left_alive = false;
                } else {
                    if left < hi {
                        left_alive = visit(left, &mut best);
                    }
                    left -= 1;
                }
            }
            if right_alive {
                if right >= hi {
                    right_alive = false;
                } else {
                    if right >= lo {
                        right_alive = visit(right, &mut best);
                    }
                    right += 1;
                }
            }
        }
        best.sqrt()
    }

    /// The smallest squared pixel-to-pixel distance to another mask (exact
    /// integers), `None` if either is empty.
    pub fn min_sq_distance(&self, other: &Mask) -> Option<u64> {
        if self.area == 0 || other.area == 0 {
            return None;
        }
        let (a, b) = if self.runs.len() <= other.runs.len() {
            (self, other)
        } else {
            (other, self)
        };
        let b_cols: Vec<u32> = b
            .column_span()
            .filter(|&x| !b.column(x).is_empty())
            .collect();
        let mut best = u64::MAX;
        for ra in &a.runs {
            let k = b_cols.partition_point(|&x| x < ra.x);
            // Walk outwards from column ra.x in both directions.
            let mut l = k as i64 - 1;
            let mut r = k;
            loop {
                let dl = (l >= 0).then(|| u64::from(ra.x - b_cols[l as usize]));
                let dr = (r < b_cols.len()).then(|| u64::from(b_cols[r] - ra.x));
                let (dx, x, go_left) = match (dl, dr) {
                    (Some(a), Some(b)) if a <= b => (a, b_cols[l as usize], true),
                    (Some(a), None) => (a, b_cols[l as usize], true),
                    (_, Some(b)) => (b, b_cols[r], false),
                    (None, None) => break,
                };
                if dx * dx >= best {
                    break;
                }
                for rb in b.column(x) {
                    let dy = if rb.y1 <= ra.y0 {
                        u64::from(ra.y0 - (rb.y1 - 1))
                    } else if ra.y1 <= rb.y0 {
                        u64::from(rb.y0 - (ra.y1 - 1))
                    } else {
                        0
                    };
                    best = best.min(dx * dx + dy * dy);
                }
                if go_left {
                    l -= 1;
                } else {
                    r += 1;
                }
            }
        }
        Some(best)
    }

    /// The 4-connected components, labelled like scipy `ndimage.label`:
    /// "labels in raster-scan order of each component's first pixel".
    pub fn components(&self) -> Vec<Mask> {
        let n = self.runs.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        for k in 1..self.col_start.len().saturating_sub(1) {
            let prev = self.col_start[k - 1] as usize..self.col_start[k] as usize;
            let cur = self.col_start[k] as usize..self.col_start[k + 1] as usize;
            let (mut i, mut j) = (prev.start, cur.start);
            while i < prev.end && j < cur.end {
                let (a, b) = (self.runs[i], self.runs[j]);
                if a.y0 < b.y1 && b.y0 < a.y1 {
                    let (ra, rb) = (find(&mut parent, i), find(&mut parent, j));
                    if ra != rb {
                        parent[ra.max(rb)] = ra.min(rb);
                    }
                }
                if a.y1 <= b.y1 {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
        let mut groups: Vec<(usize, (u32, u32), Vec<Run>)> = Vec::new();
        let mut slot: Vec<usize> = vec![usize::MAX; n];
        for i in 0..n {
            let root = find(&mut parent, i);
            if slot[root] == usize::MAX {
                slot[root] = groups.len();
                groups.push((root, (u32::MAX, u32::MAX), Vec::new()));
            }
            let g = &mut groups[slot[root]];
            let r = self.runs[i];
            g.1 = g.1.min((r.y0, r.x));
            g.2.push(r);
        }
        groups.sort_by_key(|g| g.1);
        groups
            .into_iter()
            .map(|(_, _, runs)| Mask::from_runs(self.height, self.width, runs))
            .collect()
    }
}

/// The centroid of a set of runs, `None` if they hold no pixel.
pub fn centroid_of<'a>(runs: impl Iterator<Item = &'a Run>) -> Option<(f64, f64)> {
    let (mut n, mut sx, mut sy) = (0u128, 0u128, 0u128);
    for r in runs {
        let len = u128::from(r.y1 - r.y0);
        n += len;
        sx += u128::from(r.x) * len;
        // Σ y for y in y0..y1.
        sy += (u128::from(r.y0) + u128::from(r.y1) - 1) * len / 2;
    }
    (n > 0).then(|| (sx as f64 / n as f64, sy as f64 / n as f64))
}

/// The runs of the union of two masks' runs (each sorted by column then
/// row, as [`Mask::runs`] gives them), merged in one linear pass: the
/// runs of a union of several instances. Where only one side has runs, a
/// stretch of columns is copied whole (instances seldom share columns).
pub fn merge_runs(a: &[Run], b: &[Run]) -> Vec<Run> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    loop {
        let (from, at, until) = match (a.get(i), b.get(j)) {
            (Some(p), Some(q)) if p.x == q.x => {
                if p.y0 <= q.y0 {
                    push_run(&mut out, *p);
                    i += 1;
                } else {
                    push_run(&mut out, *q);
                    j += 1;
                }
                continue;
            }
            (Some(p), Some(q)) if p.x < q.x => (a, &mut i, Some(q.x)),
            (Some(p), Some(_)) => (b, &mut j, Some(p.x)),
            (Some(_), None) => (a, &mut i, None),
            (None, Some(_)) => (b, &mut j, None),
            (None, None) => break,
        };
        // The side with the lower column, up to the other side's column.
        let end = match until {
            Some(x) => *at + from[*at..].partition_point(|r| r.x < x),
            None => from.len(),
        };
        copy_runs(&mut out, &from[*at..end]);
        *at = end;
    }
    out
}

/// Appends sorted, merged runs: those in the column `out` ends with run
/// by run (they may touch its last run), the rest as they are.
fn copy_runs(out: &mut Vec<Run>, runs: &[Run]) {
    let last = out.last().map(|r| r.x);
    let shared = runs.iter().take_while(|r| Some(r.x) == last).count();
    for r in &runs[..shared] {
        push_run(out, *r);
    }
    out.extend(runs[shared..].iter().filter(|r| r.y1 > r.y0));
}

/// Appends a run, merging it with the previous one when they touch.
fn push_run(runs: &mut Vec<Run>, r: Run) {
    if r.y1 <= r.y0 {
        return;
    }
    if let Some(last) = runs.last_mut() {
        if last.x == r.x && r.y0 <= last.y1 {
            last.y1 = last.y1.max(r.y1);
            return;
        }
    }
    runs.push(r);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(h: u32, w: u32, set: &[(u32, u32)]) -> Mask {
        let mut flat: Vec<u64> = set
            .iter()
            .map(|&(r, c)| u64::from(c) * u64::from(h) + u64::from(r))
            .collect();
        flat.sort();
        let ones: Vec<(u64, u64)> = flat.iter().map(|&p| (p, p + 1)).collect();
        Mask::from_flat(h, w, &ones)
    }

    #[test]
    fn distance_matches_brute_force() {
        let m = dense(10, 12, &[(2, 3), (2, 4), (7, 9), (8, 9), (0, 11)]);
        for &(px, py) in &[
            (0.0, 0.0),
            (5.5, 5.5),
            (3.2, 2.0),
            (11.0, 9.0),
            (-3.0, 20.0),
        ] {
            let brute = m
                .runs()
                .iter()
                .flat_map(|r| (r.y0..r.y1).map(move |y| (r.x, y)))
                .map(|(x, y)| {
                    let (dx, dy) = (f64::from(x) - px, f64::from(y) - py);
                    (dx * dx + dy * dy).sqrt()
                })
                .fold(f64::INFINITY, f64::min);
            let fast = m.distance_to_point(px, py);
            let in_mask = m.contains(py.round_ties_even() as i64, px.round_ties_even() as i64);
            assert_eq!(fast, if in_mask { 0.0 } else { brute }, "{px},{py}");
        }
    }

    #[test]
    fn components_in_raster_order() {
        // Component A at (row 5, col 0), component B at (row 1, col 3).
        let m = dense(8, 6, &[(5, 0), (6, 0), (1, 3), (1, 4), (2, 4)]);
        let comps = m.components();
        assert_eq!(comps.len(), 2);
        assert_eq!(comps[0].area(), 3);
        assert_eq!(comps[1].area(), 2);
        // Diagonal neighbours are separate under 4-connectivity.
        let d = dense(4, 4, &[(0, 0), (1, 1)]);
        assert_eq!(d.components().len(), 2);
    }

    #[test]
    fn region_distance_is_exact() {
        let a = dense(10, 10, &[(0, 0), (1, 0)]);
        let b = dense(10, 10, &[(4, 3), (9, 9)]);
        assert_eq!(a.min_sq_distance(&b), Some(9 + 9));
    }
}
