//! The path score for FeasiblePath_Ego / _Exo (§10): neighbour filter,
//! start and goal areas, five per-point components, their weights and the
//! exact accumulation order.

use serde_json::{json, Map, Value};

use super::coords::{normalize_points, resolve, CoordMode, ModeRequest};
use super::gt::MaskField;
use super::mask::Mask;
use super::prediction::{parse_points, sentinel};
use super::pyvalue::{float_to_json, PyValue};

/// The official error when the walkable-area mask is missing or does not decode.
pub const ERR_WALKABLE: &str =
    "Failed to decode feasible area mask (masklet_path) or mask is missing";
/// The official error when no point could be read from the prediction.
pub const ERR_NO_POINTS: &str = "No path points parsed";
/// Not an official error: a path longer than
/// [`knoblab_core::input::limits::MAX_PATH_POINTS`] is not scored (the official
/// code would take minutes and gigabytes on it), so that one hostile reply
/// cannot stall a run.
pub const ERR_TOO_MANY_POINTS: &str =
    "The path has more than 10000 points (input::limits::MAX_PATH_POINTS); it is not scored";

const K_SE: f64 = 3.0;
const NEAR: f64 = 1.0 / 30.0;
const CONT_MAX: f64 = 2.0 / 3.0;
const N_SEG: usize = 50;

/// "Third person ("Exo") **only** when `task_type == "FeasiblePath_Exo"`."
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perspective {
    /// Ego: the path starts at the bottom centre and ends in the target area.
    First,
    /// Exo: the target area holds two regions, the start and the goal.
    Third,
}

/// What the path scorer needs for one sample.
pub struct PathInput<'a> {
    /// The predicted `points` field; `None` if absent.
    pub pred: Option<&'a PyValue>,
    /// The GT walkable area, `masklet_path` (COCO RLE), decoded when needed.
    pub walkable: Option<&'a dyn MaskField>,
    /// The GT target area, `masklet_target_area` (the goal, or start and
    /// goal), decoded when needed.
    pub target: Option<&'a dyn MaskField>,
    /// First or third person, from the task type.
    pub perspective: Perspective,
    /// The coordinate system the points are read in.
    pub mode: ModeRequest,
    /// The requested mode as written, for the details.
    pub mode_name: &'a str,
    /// Corrected mode: list-wrapped sentinels count as sentinels.
    pub honour_wrapped: bool,
    /// Whether [`PathOutcome::details`] is filled in (each point's scores
    /// are most of a sample's memory); the score is the same either way.
    pub details: bool,
}

/// The path result.
#[derive(Debug, Clone)]
pub struct PathOutcome {
    /// The path score, 0.0 to 1.0.
    pub score: f64,
    /// The official error message, if the sample could not be scored.
    pub error: Option<&'static str>,
    /// The resolved coordinate system, `None` when never resolved.
    pub resolved: Option<CoordMode>,
    /// Mirrors the official `metric_details.path`.
    pub details: Map<String, Value>,
    /// The official code would have sampled 1000 random pixels per region
    /// here ("QUIRK (non-determinism)"); this port uses the exact minimum.
    pub sampled_distance: bool,
    /// Fewer than 2 points survived the filter: 0, not invalid.
    pub collapsed: bool,
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (a[0] - b[0], a[1] - b[1]);
    // "`diag` and point-to-point distances use `(a)**0.5`, which is C
    // `pow(x, 0.5)`."
    (dx * dx + dy * dy).powf(0.5)
}

/// `d(p, M)`: `+inf` for no region.
fn d(p: [f64; 2], m: Option<&Mask>) -> f64 {
    m.map_or(f64::INFINITY, |m| m.distance_to_point(p[0], p[1]))
}

fn centroid_or(m: Option<&Mask>, fallback: [f64; 2]) -> [f64; 2] {
    m.and_then(Mask::centroid).map_or(fallback, |(x, y)| [x, y])
}

/// The two Exo regions (§10 step 5), or `None` for the single-region
/// fallback.
fn split_regions(t: &Mask) -> Option<(Mask, Mask)> {
    let comps = t.components();
    if comps.len() < 2 {
        return None;
    }
    let cents: Vec<(f64, f64)> = comps.iter().filter_map(Mask::centroid).collect();
    let sq = |a: (f64, f64), b: (f64, f64)| {
        let (dx, dy) = (a.0 - b.0, a.1 - b.1);
        dx * dx + dy * dy
    };
    let (mut bi, mut bj, mut best) = (0, 1, -1.0);
    for i in 0..cents.len() {
        for j in i + 1..cents.len() {
            let s = sq(cents[i], cents[j]);
            if s > best {
                (bi, bj, best) = (i, j, s);
            }
        }
    }
    let (mut r1, mut r2): (Vec<&Mask>, Vec<&Mask>) = (Vec::new(), Vec::new());
    for (k, c) in comps.iter().enumerate() {
        if sq(cents[k], cents[bi]) <= sq(cents[k], cents[bj]) {
            r1.push(c);
        } else {
            r2.push(c);
        }
    }
    if r1.is_empty() || r2.is_empty() {
        return None;
    }
    let merge = |v: Vec<&Mask>| v.iter().skip(1).fold(v[0].clone(), |acc, m| acc.union(m));
    Some((merge(r1), merge(r2)))
}

/// Scores a path.
pub fn score_path(inp: &PathInput) -> PathOutcome {
    let mut out = PathOutcome {
        score: 0.0,
        error: None,
        resolved: None,
        details: Map::new(),
        sampled_distance: false,
        collapsed: false,
    };
    if let Some(stop) = sentinel(inp.pred, inp.honour_wrapped) {
        out.error = stop.error();
        return out;
    }
    let Some(pred) = inp.pred else {
        return out;
    };
    let walkable = inp.walkable.map(|w| w.decode());
    let Some(f) = walkable.as_deref().and_then(|u| u.mask.as_ref()) else {
        out.error = Some(ERR_WALKABLE);
        return out;
    };
    let (h, w) = (f.height(), f.width());
    let raw = parse_points(pred);
    if raw.len() > knoblab_core::input::limits::MAX_PATH_POINTS {
        out.error = Some(ERR_TOO_MANY_POINTS);
        return out;
    }
    let values: Vec<f64> = raw.iter().flatten().copied().collect();
    let mode = resolve(inp.mode, &values, h, w);
    out.resolved = Some(mode);
    let det = &mut out.details;
    det.insert(
        "perspective".into(),
        json!(match inp.perspective {
            Perspective::First => "FirstPerspective",
            Perspective::Third => "ThirdPerspective",
        }),
    );
    det.insert("coord_mode".into(), json!(inp.mode_name));
    det.insert("actual_coord_mode".into(), json!(mode.name()));
    det.insert("num_points_before_filter".into(), json!(raw.len()));
    let null_components = |det: &mut Map<String, Value>| {
        for k in [
            "start_end_score",
            "feasibility_score",
            "away_start_score",
            "toward_end_score",
            "continuity_score",
        ] {
            det.insert(k.into(), Value::Null);
        }
    };
    if raw.is_empty() {
        det.insert("num_points_after_filter".into(), json!(0));
        null_components(det);
        det.insert("point_details".into(), json!([]));
        out.error = Some(ERR_NO_POINTS);
        return out;
    }
    let pts = normalize_points(&raw, mode, h, w);
    // Step 4: the neighbour filter.
    let diag = (f64::from(h) * f64::from(h) + f64::from(w) * f64::from(w)).powf(0.5);
    let min_d = diag * NEAR;
    let mut kept: Vec<usize> = vec![0];
    for i in 1..pts.len() {
        let last = pts[kept[kept.len() - 1]];
        if dist(pts[i], last) >= min_d {
            kept.push(i);
        }
    }
    let n = kept.len();
    det.insert("num_points_after_filter".into(), json!(n));
    let p: Vec<[f64; 2]> = kept.iter().map(|&i| pts[i]).collect();
    let mut point_details: Vec<Value> = if inp.details {
        raw.iter()
            .enumerate()
            .map(|(i, r)| {
                json!({
                    "raw_coord": [r[0], r[1]],
                    "participated_in_scoring": kept.contains(&i),
                    "scores": null,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    if n < 2 {
        null_components(det);
        det.insert("point_details".into(), Value::Array(point_details));
        det.insert(
            "message".into(),
            json!("Fewer than 2 points; score is undefined"),
        );
        out.collapsed = true;
        return out;
    }
    // Step 5: start and goal areas.
    let s0 = [f64::from(w) / 2.0, f64::from(h) - 1.0];
    let target = inp.target.map(|v| v.decode());
    let t: Option<&Mask> = target.as_deref().and_then(|u| u.mask.as_ref());
    let split = match inp.perspective {
        Perspective::Third => t.and_then(split_regions),
        Perspective::First => None,
    };
    let two_regions = split.is_some();
    let (start_region, end_region): (Option<&Mask>, Option<&Mask>) = match &split {
        Some((r1, r2)) if d(p[0], Some(r2)) < d(p[0], Some(r1)) => (Some(r2), Some(r1)),
        Some((r1, r2)) => (Some(r1), Some(r2)),
        None => (None, t),
    };
    // Step 7: the start–end distance.
    let mut se = if two_regions {
        if let (Some(a), Some(b)) = (start_region, end_region) {
            out.sampled_distance = a.area() > 1000 || b.area() > 1000;
            a.min_sq_distance(b)
                .map_or(f64::INFINITY, |s| (s as f64).sqrt())
        } else {
            f64::INFINITY
        }
    } else {
        d(s0, end_region)
    };
    if se.is_infinite() || se <= 0.0 {
        let sp = centroid_or(start_region, s0);
        let centre = [f64::from(w) / 2.0, f64::from(h) / 2.0];
        let ep = centroid_or(end_region, centre);
        se = dist(sp, ep);
    }
    // Step 8: per-point distances.
    let ds: Vec<f64> = p
        .iter()
        .map(|&q| match start_region {
            Some(r) => d(q, Some(r)),
            None => dist(q, s0),
        })
        .collect();
    let de: Vec<f64> = p.iter().map(|&q| d(q, end_region)).collect();
    // Step 9: components.
    let se_first = (1.0 - K_SE * (ds[0] / diag)).max(0.0);
    let se_last = (1.0 - K_SE * (de[n - 1] / diag)).max(0.0);
    let max_seg = if se > 0.0 { CONT_MAX * se } else { diag };
    let fea = |a: [f64; 2], b: [f64; 2]| -> f64 {
        let mut hits = 0usize;
        for k in 0..N_SEG {
            let tt = (k as f64 + 0.5) / N_SEG as f64;
            let x = a[0] * (1.0 - tt) + b[0] * tt;
            let y = a[1] * (1.0 - tt) + b[1] * tt;
            if f.contains(y.round_ties_even() as i64, x.round_ties_even() as i64) {
                hits += 1;
            }
        }
        hits as f64 / N_SEG as f64
    };
    let mut total = 0.0;
    let mut comp_sums = [0.0f64; 4]; // fea, away, toward over i ≥ 1; cont over middle points
    let mut n_middle = 0usize;
    for i in 0..n {
        let (score, parts, weights) = if i == 0 {
            (
                se_first,
                [se_first, 0.0, 0.0, 0.0, 0.0],
                [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            )
        } else {
            let fe = fea(p[i - 1], p[i]);
            let away = if ds[i] > ds[i - 1] { 1.0 } else { 0.0 };
            let toward = if de[i] < de[i - 1] { 1.0 } else { 0.0 };
            let len = dist(p[i], p[i - 1]);
            let cont = if min_d <= len && len <= max_seg {
                1.0
            } else {
                0.0
            };
            comp_sums[0] += fe;
            comp_sums[1] += away;
            comp_sums[2] += toward;
            if i < n - 1 {
                n_middle += 1;
                comp_sums[3] += cont;
                let t = 0.4 * fe + (0.2 * away + 0.2 * toward) + 0.2 * cont;
                let wsum = 0.4 + (0.2 + 0.2) + 0.2;
                (
                    t / wsum,
                    [0.0, fe, away, toward, cont],
                    [wsum, 0.0, 0.4, 0.2, 0.2, 0.2],
                )
            } else {
                let mut t = (0.3 * se_last + 0.4 * fe) + (0.1 * away + 0.1 * toward);
                let mut wsum = (0.3 + 0.4) + (0.1 + 0.1);
                let (cont_part, cont_w) = if n >= 3 {
                    t += 0.1 * cont;
                    wsum += 0.1;
                    (cont, 0.1)
                } else {
                    (0.0, 0.0)
                };
                (
                    t / wsum,
                    [se_last, fe, away, toward, cont_part],
                    [wsum, 0.3, 0.4, 0.1, 0.1, cont_w],
                )
            }
        };
        total += score;
        if !inp.details {
            continue;
        }
        point_details[kept[i]]["scores"] = json!({
            "filtered_idx": i,
            "score": score,
            "start_end": parts[0],
            "feasibility": parts[1],
            "away_start": parts[2],
            "toward_end": parts[3],
            "continuity": parts[4],
            "dist_to_start": float_to_json(ds[i]),
            "dist_to_end": float_to_json(de[i]),
            "weights": {
                "weight_sum": weights[0],
                "start_end_weight": weights[1],
                "feasibility_weight": weights[2],
                "away_start_weight": weights[3],
                "toward_end_weight": weights[4],
                "continuity_weight": weights[5],
            },
        });
    }
    let m = (n - 1) as f64;
    det.insert("start_end_score".into(), json!((se_first + se_last) / 2.0));
    det.insert("feasibility_score".into(), json!(comp_sums[0] / m));
    det.insert("away_start_score".into(), json!(comp_sums[1] / m));
    det.insert("toward_end_score".into(), json!(comp_sums[2] / m));
    det.insert(
        "continuity_score".into(),
        if n_middle > 0 {
            json!(comp_sums[3] / n_middle as f64)
        } else {
            Value::Null
        },
    );
    det.insert("point_details".into(), Value::Array(point_details));
    out.score = total / n as f64;
    if !inp.details {
        out.details = Map::new();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::epic::localization::ERR_NVR;
    use crate::epic::pyjson::loads;
    use crate::epic::rle::encode;

    fn rle(m: &Mask) -> PyValue {
        let s = format!(
            r#"[{{"size": [{}, {}], "counts": "{}"}}]"#,
            m.height(),
            m.width(),
            encode(m).replace('\\', "\\\\")
        );
        loads(&s).unwrap()
    }

    fn input<'a>(
        pred: &'a PyValue,
        f: &'a PyValue,
        t: &'a PyValue,
        p: Perspective,
    ) -> PathInput<'a> {
        PathInput {
            pred: Some(pred),
            walkable: Some(f),
            target: Some(t),
            perspective: p,
            mode: ModeRequest::Auto,
            mode_name: "auto",
            honour_wrapped: false,
            details: true,
        }
    }

    /// The worked example of §10 (fixture `fpe_001/good_straight`).
    #[test]
    fn worked_example_scores_0_9908125() {
        let all = Mask::from_dense(240, 320, &vec![true; 240 * 320]);
        let mut goal = vec![false; 240 * 320];
        goal[97 * 320 + 160] = true;
        let goal = Mask::from_dense(240, 320, &goal);
        let pred = loads("[[160, 235], [160, 190], [160, 140], [160, 100]]").unwrap();
        let (f, t) = (rle(&all), rle(&goal));
        let out = score_path(&input(&pred, &f, &t, Perspective::First));
        assert_eq!(out.error, None);
        assert_eq!(out.score, 0.9908125);
        assert_eq!(out.details["start_end_score"], json!(0.97375));
    }

    #[test]
    fn collapsed_path_scores_zero_without_error() {
        let all = Mask::from_dense(240, 320, &vec![true; 240 * 320]);
        let pred = loads("[[160, 200], [161, 201], [162, 200], [160, 202]]").unwrap();
        let (f, t) = (rle(&all), rle(&all));
        let out = score_path(&input(&pred, &f, &t, Perspective::First));
        assert_eq!((out.score, out.error, out.collapsed), (0.0, None, true));
    }

    #[test]
    fn exo_start_is_the_region_nearer_the_first_point() {
        let (h, w) = (100u32, 200u32);
        let all = Mask::from_dense(h, w, &vec![true; (h * w) as usize]);
        let mut bits = vec![false; (h * w) as usize];
        for y in 45..55 {
            for x in 10..20 {
                bits[(y * w + x) as usize] = true;
            }
            for x in 180..190 {
                bits[(y * w + x) as usize] = true;
            }
        }
        let t = Mask::from_dense(h, w, &bits);
        let (f, tv) = (rle(&all), rle(&t));
        let l2r = loads("[[15, 50], [60, 50], [110, 50], [150, 50], [185, 50]]").unwrap();
        let r2l = loads("[[185, 50], [150, 50], [110, 50], [60, 50], [15, 50]]").unwrap();
        let a = score_path(&input(&l2r, &f, &tv, Perspective::Third));
        let b = score_path(&input(&r2l, &f, &tv, Perspective::Third));
        assert_eq!(a.score, 1.0);
        assert_eq!(b.score, 1.0);
        assert_eq!(a.details["perspective"], json!("ThirdPerspective"));
    }

    #[test]
    fn no_points_is_invalid() {
        let all = Mask::from_dense(10, 10, &[true; 100]);
        let pred = loads(r#"["No Valid Response"]"#).unwrap();
        let (f, t) = (rle(&all), rle(&all));
        let out = score_path(&input(&pred, &f, &t, Perspective::First));
        assert_eq!(out.error, Some(ERR_NO_POINTS));
        let mut inp = input(&pred, &f, &t, Perspective::First);
        inp.honour_wrapped = true;
        assert_eq!(score_path(&inp).error, Some(ERR_NVR));
    }
}
