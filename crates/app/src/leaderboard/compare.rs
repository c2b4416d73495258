//! The paired comparison of two rows: the difference in SR and SSR over
//! the episodes both played (A − B), with a paired bootstrap interval
//! (the same episodes drawn for both, stratified by device), and the
//! episodes where one succeeded and the other failed.
//!
//! It reads the rows' episode lists (each episode's SR and SSR as the
//! core scored it), so the page compares any two rows of a document it
//! was given, without the trajectories.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::bootstrap::{interval, SplitMix64};
use super::{EpisodeState, Leaderboard, LeaderboardError, Options, RunStatus};

/// A difference with its paired interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// A's mean minus B's over the shared episodes.
    pub value: Option<f64>,
    /// The 2.5th percentile of the paired resamples.
    pub ci_low: Option<f64>,
    /// The 97.5th percentile.
    pub ci_high: Option<f64>,
    /// The shared episodes.
    pub n: usize,
}

/// Two rows compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Row A (0-based) and its file.
    pub a: usize,
    /// Row B.
    pub b: usize,
    /// A's file.
    pub a_file: String,
    /// B's file.
    pub b_file: String,
    /// Episodes both played.
    pub shared: usize,
    /// Planned episodes that only one of them played, or neither.
    pub not_shared: usize,
    /// SR(A) − SR(B).
    pub sr: Difference,
    /// SSR(A) − SSR(B).
    pub ssr: Difference,
    /// Episodes (keys) A solved and B did not.
    pub only_a: Vec<String>,
    /// Episodes B solved and A did not.
    pub only_b: Vec<String>,
}

/// Compares rows `a` and `b` (0-based) of `board`.
pub fn compare(
    board: &Leaderboard,
    a: usize,
    b: usize,
    options: &Options,
) -> Result<Comparison, LeaderboardError> {
    let row = |i: usize| {
        board.runs.get(i).ok_or(LeaderboardError::NoRow {
            row: i,
            rows: board.runs.len(),
        })
    };
    let (ra, rb) = (row(a)?, row(b)?);
    for r in [ra, rb] {
        if r.status == RunStatus::OtherLibrary {
            return Err(LeaderboardError::OtherLibrary {
                file: r.file.clone(),
            });
        }
    }
    let b_of: HashMap<&str, (Option<f64>, Option<f64>)> = rb
        .episodes
        .iter()
        .filter(|e| e.state == EpisodeState::Played)
        .map(|e| (e.key.as_str(), (e.sr, e.ssr)))
        .collect();
    // Per device: (SR_A, SR_B, SSR_A, SSR_B) of each shared episode.
    let mut strata: BTreeMap<&str, Vec<[f64; 4]>> = BTreeMap::new();
    let mut only_a = Vec::new();
    let mut only_b = Vec::new();
    let mut shared = 0;
    for e in ra
        .episodes
        .iter()
        .filter(|e| e.state == EpisodeState::Played)
    {
        let Some(&(sr_b, ssr_b)) = b_of.get(e.key.as_str()) else {
            continue;
        };
        shared += 1;
        let v = [
            e.sr.unwrap_or(0.0),
            sr_b.unwrap_or(0.0),
            e.ssr.unwrap_or(0.0),
            ssr_b.unwrap_or(0.0),
        ];
        if v[0] > v[1] {
            only_a.push(e.key.clone());
        } else if v[1] > v[0] {
            only_b.push(e.key.clone());
        }
        strata.entry(e.bundle_id.as_str()).or_default().push(v);
    }
    let mean_diff =
        |sum: &[f64; 4], n: f64| (n > 0.0).then(|| ((sum[0] - sum[1]) / n, (sum[2] - sum[3]) / n));
    let mut total = [0.0; 4];
    for v in strata.values().flatten() {
        for (t, x) in total.iter_mut().zip(v) {
            *t += x;
        }
    }
    let point = mean_diff(&total, shared as f64);
    let mut rng = SplitMix64::new(options.seed, "pair");
    let mut draws_sr = Vec::with_capacity(options.resamples);
    let mut draws_ssr = Vec::with_capacity(options.resamples);
    if shared > 0 {
        for _ in 0..options.resamples {
            let mut sum = [0.0; 4];
            for stratum in strata.values() {
                for _ in 0..stratum.len() {
                    let v = &stratum[rng.below(stratum.len())];
                    for (t, x) in sum.iter_mut().zip(v) {
                        *t += x;
                    }
                }
            }
            if let Some((sr, ssr)) = mean_diff(&sum, shared as f64) {
                draws_sr.push(sr);
                draws_ssr.push(ssr);
            }
        }
    }
    let diff = |value: Option<f64>, draws: Vec<f64>| {
        let ci = value.and_then(|_| interval(draws));
        Difference {
            value,
            ci_low: ci.map(|x| x.0),
            ci_high: ci.map(|x| x.1),
            n: shared,
        }
    };
    Ok(Comparison {
        a,
        b,
        a_file: ra.file.clone(),
        b_file: rb.file.clone(),
        shared,
        not_shared: board.plan.episodes.saturating_sub(shared),
        sr: diff(point.map(|p| p.0), draws_sr),
        ssr: diff(point.map(|p| p.1), draws_ssr),
        only_a,
        only_b,
    })
}
