//! A deterministic, benchmark-sized synthetic EPIC-Bench set: GT files in
//! the official layout and raw model replies, for benchmarks (native and in
//! the browser) and smoke tests. Nothing here is real data.
//!
//! The mix follows the performance anchor of `epic-official.md` §16: 6,661
//! samples (TL 14 × 250, GD 400, FP Ego 400, Exo 350, VM 450, AR 500, CR
//! 300/250/250, PR 261); mask sizes from 640×480 to 1920×1080 (and
//! 1080×1920); star-shaped instances with 8–30 vertices and radius 4–15% of
//! the short side, 0–5 instances for counting tasks; jagged 12-vertex ground
//! polygons over the bottom 30–60%; one goal blob (Ego) or two (Exo); all as
//! compressed COCO RLE. Replies: jittered boxes, 15% miss a box, 20%
//! overcount, 3% unparseable, paths of 4–10 points.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::gt::MapSource;
use super::mask::{Mask, Run};
use super::pyjson;
use super::pyvalue::PyValue;
use super::rle::encode;
use super::taxonomy::LEAVES;

/// A generated set.
pub struct SyntheticSet {
    /// GT files keyed by their path from `EPIC_Bench/` on.
    pub gt: MapSource,
    /// Raw replies, one ms-swift record per line.
    pub raw_jsonl: String,
    /// The number of samples (raw reply lines).
    pub samples: usize,
    /// Total size of the GT JSON files.
    pub gt_bytes: usize,
}

/// Per-leaf sample counts of the full-size set (sum 6,661).
pub fn full_counts() -> Vec<(&'static str, usize)> {
    LEAVES
        .iter()
        .map(|l| {
            let n = match l.leaf {
                "GroundDetection" => 400,
                "FeasiblePath_Ego" => 400,
                "FeasiblePath_Exo" => 350,
                "VisualMatching" => 450,
                "AffordanceRegion" => 500,
                "ContactRelationship_TypeOne" => 300,
                "ContactRelationship_TypeTwo" | "ContactRelationship_TypeThree" => 250,
                "PlacementRegion" => 261,
                _ => 250,
            };
            (l.leaf, n)
        })
        .collect()
}

struct Rng(ChaCha8Rng);

impl Rng {
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
    fn int(&mut self, a: u64, b_inclusive: u64) -> u64 {
        a + self.0.next_u64() % (b_inclusive - a + 1)
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-12), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Fills a polygon column by column (pixel centres inside), as runs.
fn fill_polygon(h: u32, w: u32, poly: &[(f64, f64)]) -> Mask {
    let mut runs = Vec::new();
    for x in 0..w {
        let xc = f64::from(x) + 0.5;
        let mut ys: Vec<f64> = Vec::new();
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            if (a.0 <= xc && xc < b.0) || (b.0 <= xc && xc < a.0) {
                ys.push(a.1 + (xc - a.0) * (b.1 - a.1) / (b.0 - a.0));
            }
        }
        ys.sort_by(f64::total_cmp);
        let mut col: Vec<Run> = Vec::new();
        for pair in ys.chunks(2) {
            if let [y0, y1] = pair {
                let r0 = (y0 - 0.5).ceil().max(0.0) as u32;
                let r1 = ((y1 - 0.5).floor() + 1.0).clamp(0.0, f64::from(h)) as u32;
                if r1 > r0 {
                    match col.last_mut() {
                        Some(last) if r0 <= last.y1 => last.y1 = last.y1.max(r1),
                        _ => col.push(Run { x, y0: r0, y1: r1 }),
                    }
                }
            }
        }
        runs.extend(col);
    }
    Mask::from_runs(h, w, runs)
}

/// A star-shaped polygon around a centre.
fn star(rng: &mut Rng, cx: f64, cy: f64, r: f64) -> Vec<(f64, f64)> {
    let n = rng.int(8, 30) as usize;
    (0..n)
        .map(|k| {
            let a = std::f64::consts::TAU * (k as f64 + rng.range(0.0, 0.6)) / n as f64;
            let rr = r * rng.range(0.55, 1.0);
            (cx + rr * a.cos(), cy + rr * a.sin())
        })
        .collect()
}

fn bounds(poly: &[(f64, f64)], h: u32, w: u32) -> [f64; 4] {
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for &(x, y) in poly {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    [
        x0.max(0.0),
        y0.max(0.0),
        x1.min(f64::from(w)),
        y1.min(f64::from(h)),
    ]
}

fn rle_value(m: &Mask) -> PyValue {
    PyValue::Dict(vec![
        (
            "size".into(),
            PyValue::List(vec![
                PyValue::Int(i128::from(m.height())),
                PyValue::Int(i128::from(m.width())),
            ]),
        ),
        ("counts".into(), PyValue::Str(encode(m))),
    ])
}

fn image_size(rng: &mut Rng) -> (u32, u32) {
    let u = rng.unit();
    let (w, h) = if u < 0.25 {
        (640, 480)
    } else if u < 0.50 {
        (1280, 720)
    } else if u < 0.67 {
        (1920, 1080)
    } else if u < 0.75 {
        (1024, 768)
    } else if u < 0.83 {
        (1440, 1080)
    } else if u < 0.91 {
        (800, 600)
    } else {
        (1080, 1920)
    };
    (h, w)
}

fn jitter_box(rng: &mut Rng, b: [f64; 4]) -> PyValue {
    let s = 0.06 * ((b[2] - b[0]) + (b[3] - b[1])) / 2.0;
    PyValue::List(
        b.iter()
            .map(|v| PyValue::Int((v + s * rng.normal()).round() as i128))
            .collect(),
    )
}

fn ground_polygon(rng: &mut Rng, h: u32, w: u32) -> Vec<(f64, f64)> {
    let (hf, wf) = (f64::from(h), f64::from(w));
    let top = hf * (1.0 - rng.range(0.3, 0.6));
    let mut poly = vec![(0.0, hf), (0.0, top)];
    for k in 1..=10 {
        poly.push((wf * k as f64 / 11.0, top + rng.range(-0.04, 0.04) * hf));
    }
    poly.push((wf, top));
    poly.push((wf, hf));
    poly
}

/// Generates the full 6,661-sample set.
pub fn generate(seed: u64) -> SyntheticSet {
    generate_scaled(seed, 1.0)
}

/// Generates the set with every task's count multiplied by `scale`
/// (at least one sample per task).
pub fn generate_scaled(seed: u64, scale: f64) -> SyntheticSet {
    let mut rng = Rng(ChaCha8Rng::seed_from_u64(seed));
    let mut gt = MapSource::new();
    let mut raw = String::new();
    let mut samples = 0;
    let mut gt_bytes = 0;
    for (leaf, full) in full_counts() {
        let l = LEAVES
            .iter()
            .find(|x| x.leaf == leaf)
            .copied()
            .unwrap_or(LEAVES[0]);
        let n = ((full as f64 * scale).round() as usize).max(1);
        for k in 0..n {
            let sid = format!("syn_{}_{k:04}", leaf.to_lowercase());
            let dir = match l.category {
                "TargetLocalization" => {
                    format!("EPIC_Bench/{}/{}/{}/{sid}", l.category, l.group, l.leaf)
                }
                _ if l.group == l.leaf => format!("EPIC_Bench/{}/{}/{sid}", l.category, l.leaf),
                _ => format!("EPIC_Bench/{}/{}/{}/{sid}", l.category, l.group, l.leaf),
            };
            let (gt_json, images, response) = sample(&mut rng, l.abbr, &dir, &sid);
            let gt_path = if l.abbr == "VM" {
                format!("{dir}/{sid}a__{sid}b_mask_rle.json")
            } else {
                format!("{dir}/{sid}_mask_rle.json")
            };
            let text = pyjson::dumps(&gt_json);
            gt_bytes += text.len();
            gt.insert(&gt_path, text.into_bytes());
            let rec = PyValue::Dict(vec![
                ("response".into(), PyValue::Str(response)),
                (
                    "images".into(),
                    PyValue::List(
                        images
                            .into_iter()
                            .map(|p| {
                                PyValue::Dict(vec![(
                                    "path".into(),
                                    PyValue::Str(format!("/data/{p}")),
                                )])
                            })
                            .collect(),
                    ),
                ),
            ]);
            raw.push_str(&pyjson::dumps(&rec));
            raw.push('\n');
            samples += 1;
        }
    }
    SyntheticSet {
        gt,
        raw_jsonl: raw,
        samples,
        gt_bytes,
    }
}

/// One sample: GT JSON, image paths and the reply.
fn sample(rng: &mut Rng, abbr: &str, dir: &str, sid: &str) -> (PyValue, Vec<String>, String) {
    let (h, w) = image_size(rng);
    let short = f64::from(h.min(w));
    let mut text = vec![("text_label".to_string(), PyValue::Str("synthetic".into()))];
    let mut masks: Vec<(String, PyValue)> = Vec::new();
    let mut images = vec![format!("{dir}/{sid}_image.jpg")];
    let unparseable = rng.chance(0.03);
    let reply_boxes = |rng: &mut Rng, boxes: &[[f64; 4]]| -> Vec<PyValue> {
        let mut out: Vec<PyValue> = Vec::new();
        for b in boxes {
            if !rng.chance(0.15) {
                out.push(jitter_box(rng, *b));
            }
        }
        if rng.chance(0.2) {
            let x = rng.range(0.0, f64::from(w) * 0.8);
            let y = rng.range(0.0, f64::from(h) * 0.8);
            out.push(jitter_box(rng, [x, y, x + short * 0.1, y + short * 0.1]));
        }
        out
    };
    let response = match abbr {
        "GD" | "FP" => {
            let ground = ground_polygon(rng, h, w);
            let gm = fill_polygon(h, w, &ground);
            if abbr == "GD" {
                masks.push(("masklet_ground".into(), PyValue::List(vec![rle_value(&gm)])));
                let b = bounds(&ground, h, w);
                format!(
                    "{{\"bounding_boxes\": {}}}",
                    pyjson::dumps(&PyValue::List(vec![jitter_box(rng, b)]))
                )
            } else {
                masks.push(("masklet_path".into(), PyValue::List(vec![rle_value(&gm)])));
                images.push(format!("{dir}/{sid}_target_area_overlay.png"));
                let exo = dir.contains("_Exo");
                let gy = f64::from(h) * 0.85;
                let r = short * rng.range(0.04, 0.08);
                let (start, goal) = if exo {
                    ((f64::from(w) * 0.15, gy), (f64::from(w) * 0.85, gy))
                } else {
                    (
                        (f64::from(w) / 2.0, f64::from(h) - 1.0),
                        (f64::from(w) * rng.range(0.3, 0.7), gy),
                    )
                };
                let mut blobs = vec![rle_value(&fill_polygon(
                    h,
                    w,
                    &star(rng, goal.0, goal.1, r),
                ))];
                if exo {
                    blobs.push(rle_value(&fill_polygon(
                        h,
                        w,
                        &star(rng, start.0, start.1, r),
                    )));
                }
                masks.push(("masklet_target_area".into(), PyValue::List(blobs)));
                let n = rng.int(4, 10);
                let pts: Vec<PyValue> = (0..n)
                    .map(|i| {
                        let t = i as f64 / (n - 1) as f64;
                        let x = start.0 + (goal.0 - start.0) * t + rng.normal() * short * 0.02;
                        let y = start.1 + (goal.1 - start.1) * t + rng.normal() * short * 0.02;
                        PyValue::List(vec![
                            PyValue::Int(x.round() as i128),
                            PyValue::Int(y.round() as i128),
                        ])
                    })
                    .collect();
                format!("{{\"points\": {}}}", pyjson::dumps(&PyValue::List(pts)))
            }
        }
        "PR" | "AR" => {
            let polys: Vec<Vec<(f64, f64)>> = (0..rng.int(1, 2))
                .map(|_| {
                    let r = short * rng.range(0.04, 0.15);
                    let cx = rng.range(r, f64::from(w) - r);
                    let cy = rng.range(r, f64::from(h) - r);
                    star(rng, cx, cy, r)
                })
                .collect();
            let mut union: Option<Mask> = None;
            let mut inst = Vec::new();
            for p in &polys {
                let m = fill_polygon(h, w, p);
                inst.push(rle_value(&m));
                union = Some(match union {
                    Some(u) => u.union(&m),
                    None => m,
                });
            }
            let boxes: Vec<[f64; 4]> = polys.iter().map(|p| bounds(p, h, w)).collect();
            let b = pyjson::dumps(&PyValue::List(reply_boxes(rng, &boxes)));
            if abbr == "AR" {
                images.push(format!("{dir}/{sid}_reference_area_overlay.png"));
                masks.push(("masklet_affordance_region".into(), PyValue::List(inst)));
                format!("{{\"bounding_boxes\": {b}}}")
            } else {
                images.push(format!("{dir}/{sid}_target_object_mask.png"));
                masks.push(("masklet_placement_region".into(), PyValue::List(inst)));
                let feasible = rng.chance(0.7);
                text.push(("placement_feasibility".into(), PyValue::Bool(feasible)));
                let said = if rng.chance(0.8) { feasible } else { !feasible };
                format!("{{\"bounding_boxes\": {b}, \"placement_feasibility\": {said}}}")
            }
        }
        _ => {
            // Counting tasks: TL, VM, CR.
            let count = rng.int(0, 5);
            let polys: Vec<Vec<(f64, f64)>> = (0..count)
                .map(|_| {
                    let r = short * rng.range(0.04, 0.15);
                    let cx = rng.range(r, f64::from(w) - r);
                    let cy = rng.range(r, f64::from(h) - r);
                    star(rng, cx, cy, r)
                })
                .collect();
            let inst: Vec<PyValue> = polys
                .iter()
                .map(|p| rle_value(&fill_polygon(h, w, p)))
                .collect();
            let boxes: Vec<[f64; 4]> = polys.iter().map(|p| bounds(p, h, w)).collect();
            let said = (count as i64 + if rng.chance(0.2) { 1 } else { 0 }).max(0);
            let b = pyjson::dumps(&PyValue::List(reply_boxes(rng, &boxes)));
            let (mask_key, count_key, reply_key) = match abbr {
                "VM" => (
                    "masklet_matching_area",
                    "count_matching_area",
                    "number_of_instances",
                ),
                "CR" => (
                    "masklet_contact_target",
                    "count_contact_target",
                    "number_of_instances",
                ),
                _ => (
                    "masklet_target",
                    "count_target_instance",
                    "number_of_objects",
                ),
            };
            text.push((count_key.into(), PyValue::Int(i128::from(count as u32))));
            text.push(("precise_count".into(), PyValue::Bool(rng.chance(0.3))));
            text.push((
                "count_in_description".into(),
                PyValue::Bool(rng.chance(0.2)),
            ));
            masks.push((mask_key.into(), PyValue::List(inst)));
            if abbr == "VM" {
                images = vec![
                    format!("{dir}/{sid}a_image.jpg"),
                    format!("{dir}/{sid}a_reference_area_overlay.png"),
                    format!("{dir}/{sid}b_image.jpg"),
                ];
            } else if abbr == "CR" {
                images.push(format!("{dir}/{sid}_reference_object_overlay.png"));
            }
            format!("{{\"{reply_key}\": {said}, \"bounding_boxes\": {b}}}")
        }
    };
    let response = if unparseable {
        "I am not sure where the target is.".to_string()
    } else {
        response
    };
    let gt = PyValue::Dict(vec![
        (
            "image_path_saved".into(),
            PyValue::List(
                images
                    .iter()
                    .filter(|p| p.ends_with(".jpg"))
                    .map(|p| PyValue::Str(p.clone()))
                    .collect(),
            ),
        ),
        ("text_annotation".into(), PyValue::Dict(text)),
        ("mask_annotation".into(), PyValue::Dict(masks)),
    ]);
    (gt, images, response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_counts_sum_to_the_benchmark_size() {
        assert_eq!(full_counts().iter().map(|c| c.1).sum::<usize>(), 6661);
    }

    #[test]
    fn small_set_is_deterministic_and_scores() {
        let a = generate_scaled(7, 0.004);
        let b = generate_scaled(7, 0.004);
        assert_eq!(a.raw_jsonl, b.raw_jsonl);
        let expected: usize = full_counts()
            .iter()
            .map(|c| ((c.1 as f64 * 0.004).round() as usize).max(1))
            .sum();
        assert_eq!(a.samples, expected);
        let rep = crate::epic::score_text(&a.raw_jsonl, &a.gt, &Default::default()).unwrap();
        assert_eq!(rep.gt_found, expected, "{}", rep.gt_coverage_message());
        let avg = rep.official.summary.overall.mean_score;
        assert!(avg > 0.2 && avg < 1.0, "{avg}");
    }
}
