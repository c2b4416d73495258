//! The seeded, device-stratified bootstrap behind every interval of the
//! leaderboard.
//!
//! - **Seeded.** The generator is SplitMix64, written here so that the
//!   numbers do not depend on a crate's version: the same seed gives the
//!   same intervals on every machine, natively and in the page. Each
//!   bootstrap's stream starts from the seed mixed with a label saying
//!   what is resampled (`run`, `category:Kettle`, `pair:sr`…), so a
//!   number does not change when another run is added, removed or
//!   reordered; runs resampled under one label share their stream (common
//!   random numbers).
//! - **Stratified by device.** A resample draws, for each device, as many
//!   episodes as the device has, with replacement, from that device's
//!   episodes. See `docs/leaderboard.md` for why.
//! - **Percentile intervals.** The 2.5th and 97.5th percentiles of the
//!   statistic over the resamples where it is defined, by linear
//!   interpolation between order statistics.
//!
//! Indices are drawn by multiplying a 64-bit draw by the stratum's size
//! and keeping the high 64 bits (a bias below size / 2^64, nothing at
//! these sizes).

use knoblab_core::metrics::pool::Summands;

/// SplitMix64: small, fast, and fully determined by its seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A stream for `label` under `seed`.
    pub fn new(seed: u64, label: &str) -> SplitMix64 {
        SplitMix64(seed ^ fnv1a(label))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// FNV-1a of a label, to mix it into a seed.
fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Episodes grouped by stratum (device), each episode as the row it adds.
pub type Strata<'a> = Vec<Vec<&'a Summands>>;

/// `resamples` resamples of `strata`, each pooled and passed to `stat`,
/// which writes its values into the slots it is given (`None` where the
/// statistic is undefined on that resample). Returns, per slot, the
/// defined values of every resample.
pub fn resample<const K: usize>(
    strata: &Strata<'_>,
    seed: u64,
    label: &str,
    resamples: usize,
    stat: impl Fn(&Summands) -> [Option<f64>; K],
) -> Vec<Vec<f64>> {
    let mut rng = SplitMix64::new(seed, label);
    let mut out: Vec<Vec<f64>> = (0..K).map(|_| Vec::with_capacity(resamples)).collect();
    for _ in 0..resamples {
        let mut sum = Summands::default();
        for stratum in strata {
            for _ in 0..stratum.len() {
                sum.add(stratum[rng.below(stratum.len())], 1.0);
            }
        }
        for (slot, v) in out.iter_mut().zip(stat(&sum)) {
            if let Some(v) = v {
                slot.push(v);
            }
        }
    }
    out
}

/// The 95% percentile interval of `values` (`None` when empty).
pub fn interval(mut values: Vec<f64>) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some((quantile(&values, 0.025), quantile(&values, 0.975)))
}

/// The `p` quantile of sorted `values`, linear between order statistics.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let last = sorted.len() - 1;
    let at = p * last as f64;
    let lo = at.floor() as usize;
    let hi = at.ceil() as usize;
    let frac = at - lo as f64;
    let (a, b) = (sorted[lo.min(last)], sorted[hi.min(last)]);
    if a == b {
        a
    } else {
        a + (b - a) * frac
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_and_label_give_the_same_stream_and_another_label_another() {
        let a: Vec<u64> = {
            let mut r = SplitMix64::new(7, "run");
            (0..5).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = SplitMix64::new(7, "run");
            (0..5).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = SplitMix64::new(7, "category:Kettle");
            (0..5).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn indices_stay_below_the_size_and_cover_it() {
        let mut r = SplitMix64::new(1, "x");
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let i = r.below(5);
            assert!(i < 5);
            seen[i] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn the_interval_of_a_constant_is_that_constant_and_of_a_range_its_percentiles() {
        assert_eq!(interval(vec![0.5; 10]), Some((0.5, 0.5)));
        assert_eq!(interval(vec![]), None);
        let values: Vec<f64> = (0..=100).map(f64::from).collect();
        let (lo, hi) = interval(values).unwrap();
        assert!((lo - 2.5).abs() < 1e-9 && (hi - 97.5).abs() < 1e-9);
    }
}
