//! What the EPIC-Bench drill-down draws on a sample's image: the GT masks
//! of its file (every `masklet_*` of `mask_annotation`, united), and the
//! predicted boxes or path in pixels, converted from the coordinate system
//! the scorer actually used for the sample.

use serde_json::Value;

use super::{Overlay, Shape};
use crate::epic::gt::GtCache;
use crate::epic::mask::Mask;
use crate::epic::pyvalue::PyValue;
use crate::epic::rle::decode_instance;
use crate::epic::scorer::SampleResult;

/// The union of the GT file's masks of the image's size.
fn gt_mask(root: &PyValue) -> Option<Mask> {
    let Some(PyValue::Dict(fields)) = root.get("mask_annotation") else {
        return None;
    };
    let mut union: Option<Mask> = None;
    for (key, value) in fields {
        if !key.starts_with("masklet") {
            continue;
        }
        let instances: Vec<&PyValue> = match value {
            PyValue::List(items) => items.iter().collect(),
            one @ PyValue::Dict(_) => vec![one],
            _ => Vec::new(),
        };
        for m in instances
            .into_iter()
            .filter_map(|v| decode_instance(v).ok())
        {
            union = match union {
                None => Some(m),
                Some(u) if (u.height(), u.width()) == (m.height(), m.width()) => Some(u.union(&m)),
                keep => keep,
            };
        }
    }
    union
}

/// The factor from a coordinate system to pixels.
fn scale(mode: Option<&str>, width: f64, height: f64) -> (f64, f64) {
    match mode {
        Some("normalized_0_1000") => (width / 1000.0, height / 1000.0),
        Some("normalized_0_1") => (width, height),
        _ => (1.0, 1.0),
    }
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?.iter().map(Value::as_f64).collect()
}

/// The overlay of one sample; `record` is its formatted record (for the
/// image path), when the input was raw.
pub fn overlay(s: &SampleResult, record: Option<&PyValue>, cache: &mut GtCache) -> Option<Overlay> {
    let file = cache.load(s.gt_path.as_deref()?)?;
    let mask = gt_mask(file.root())?;
    let (w, h) = (f64::from(mask.width()), f64::from(mask.height()));
    let mut shapes = vec![Shape::Mask {
        runs: mask.runs().iter().map(|r| [r.x, r.y0, r.y1]).collect(),
    }];
    let mode = |part: &str| {
        s.metric_details
            .get(part)
            .and_then(|d| d.get("actual_coord_mode"))
            .and_then(Value::as_str)
    };
    let (sx, sy) = scale(mode("localization"), w, h);
    if let Some(Value::Array(boxes)) = s.response_details.get("formatted_response_localization") {
        for b in boxes.iter().filter_map(numbers) {
            if let [x0, y0, x1, y1] = b.as_slice() {
                shapes.push(Shape::Box {
                    rect: [x0 * sx, y0 * sy, x1 * sx, y1 * sy],
                    gt: false,
                });
            }
        }
    }
    let (px, py) = scale(mode("path"), w, h);
    if let Some(Value::Array(points)) = s.response_details.get("formatted_response_path") {
        let points: Vec<[f64; 2]> = points
            .iter()
            .filter_map(numbers)
            .filter_map(|p| match p.as_slice() {
                [x, y] => Some([x * px, y * py]),
                _ => None,
            })
            .collect();
        if !points.is_empty() {
            shapes.push(Shape::Path { points });
        }
    }
    let image = record
        .and_then(|r| r.get("images"))
        .and_then(PyValue::first)
        .and_then(PyValue::as_str)
        .map(str::to_string);
    Some(Overlay {
        image,
        width: Some(w),
        height: Some(h),
        shapes,
    })
}
