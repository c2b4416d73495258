//! The localization score (§7): the IoU of the union of predicted boxes
//! against the union of GT instances, with the official empty-GT rules.

use serde_json::{json, Map, Value};

use super::coords::{normalize_boxes, resolve, CoordMode, ModeRequest};
use super::gt::MaskField;
use super::mask::Mask;
use super::prediction::{parse_boxes, sentinel};
use super::pyvalue::PyValue;
use super::raster::union_iou;
use super::rle::{decode_union, DecodedUnion};
use std::rc::Rc;

pub use super::prediction::ERR_NVR;
/// The official error when the GT mask is missing or does not decode.
pub const ERR_GT_DECODE: &str = "Failed to decode GT mask or GT mask is missing";
/// The official error when a mask-mode prediction does not decode.
pub const ERR_PRED_DECODE: &str = "Failed to decode predicted mask response";
/// The official error when the predicted mask's size differs from the GT's.
pub const ERR_SHAPE: &str = "Pred mask shape does not match GT mask shape";

/// What the localization scorer needs for one sample.
pub struct LocInput<'a> {
    /// The predicted field (boxes, or a mask in mask mode); `None` if absent.
    pub pred: Option<&'a PyValue>,
    /// The GT mask field (COCO RLE) as found, decoded when needed
    /// (a GT file's field once for both passes); `None` if absent.
    pub gt: Option<&'a dyn MaskField>,
    /// The record's format type: `mask` scores a predicted mask, anything else boxes.
    pub format_type: &'a str,
    /// The coordinate system the boxes are read in.
    pub mode: ModeRequest,
    /// The requested mode as written, for the details.
    pub mode_name: &'a str,
    /// The GT count for TL, VM and CR; `None` for GD, AR and PR.
    pub gt_count: Option<i128>,
    /// Corrected mode: list-wrapped sentinels count as sentinels.
    pub honour_wrapped: bool,
    /// Whether [`LocOutcome::details`] is filled in: a caller that drops
    /// the details (the printed document carries none) saves building them.
    pub details: bool,
}

/// The localization result.
#[derive(Debug, Clone)]
pub struct LocOutcome {
    /// The IoU score, 0.0 to 1.0.
    pub score: f64,
    /// The official error message, if the sample could not be scored.
    pub error: Option<&'static str>,
    /// The resolved coordinate system, `None` when never resolved.
    pub resolved: Option<CoordMode>,
    /// `true` in mask mode (the report then says "n/a").
    pub mask_mode: bool,
    /// Mirrors the official `metric_details.localization`.
    pub details: Map<String, Value>,
    /// "gt_count == 0 forces the GT to empty even if mask pixels exist."
    pub gt_count_zero_with_pixels: bool,
    /// GT instances of another size dropped from the union.
    pub dropped_gt_instances: usize,
    /// Auto-detection picked 0–1000 because a value exceeds `max(H, W)`.
    pub flipped_to_1000: bool,
}

/// Scores localization.
pub fn score_localization(inp: &LocInput) -> LocOutcome {
    let mut out = LocOutcome {
        score: 0.0,
        error: None,
        resolved: None,
        mask_mode: false,
        details: Map::new(),
        gt_count_zero_with_pixels: false,
        dropped_gt_instances: 0,
        flipped_to_1000: false,
    };
    if let Some(stop) = sentinel(inp.pred, inp.honour_wrapped) {
        out.error = stop.error();
        return out;
    }
    let Some(pred) = inp.pred else {
        return out;
    };
    let field_empty = inp.gt.is_none_or(|g| g.is_empty_field());
    let gt_empty = field_empty || inp.gt_count == Some(0);
    let mut decoded: Option<Rc<DecodedUnion>> = None;
    if !field_empty {
        if let Some(g) = inp.gt {
            let u = g.decode();
            out.dropped_gt_instances = u.dropped_other_size;
            decoded = Some(u);
        }
    }
    let gt_mask: Option<&Mask> = decoded.as_deref().and_then(|u| u.mask.as_ref());
    if gt_empty && gt_mask.is_some_and(|m| m.area() > 0) {
        out.gt_count_zero_with_pixels = true;
    }
    let gt_mask = if gt_empty { None } else { gt_mask };
    if inp.details {
        let d = &mut out.details;
        d.insert("format_type".into(), json!(inp.format_type));
        d.insert("coord_mode".into(), json!(inp.mode_name));
    }
    if !gt_empty && gt_mask.is_none() {
        out.error = Some(ERR_GT_DECODE);
        return out;
    }
    if inp.format_type == "mask" {
        out.mask_mode = true;
        let mut out = score_mask_mode(pred, gt_mask, gt_empty, out);
        if !inp.details {
            out.details = Map::new();
        }
        return out;
    }
    let boxes = parse_boxes(pred);
    let (h, w) = gt_mask.map_or((1, 1), |m| (m.height(), m.width()));
    let values: Vec<f64> = boxes.iter().flatten().copied().collect();
    let mode = resolve(inp.mode, &values, h, w);
    out.resolved = Some(mode);
    if inp.details {
        let d = &mut out.details;
        d.insert("actual_coord_mode".into(), json!(mode.name()));
        d.insert("gt_count".into(), json!(inp.gt_count.map(|c| c as i64)));
        d.insert("pred_bbox_count".into(), json!(boxes.len()));
        d.insert("pred_mask_decoded".into(), json!(false));
        d.insert("gt_mask_decoded".into(), json!(gt_mask.is_some()));
        d.insert("gt_is_empty".into(), json!(gt_empty));
        d.insert("pred_is_empty".into(), json!(boxes.is_empty()));
    }
    let mut normalized_count = None;
    let iou = match (gt_mask, boxes.is_empty()) {
        (_, true) => {
            if gt_empty {
                1.0
            } else {
                0.0
            }
        }
        (None, false) => 0.0,
        (Some(m), false) => {
            let px = normalize_boxes(&boxes, mode, h, w);
            // "Auto-detection is per sample over all boxes. One out-of-image
            // box rescales every box in the sample as 0–1000."
            out.flipped_to_1000 =
                inp.mode == ModeRequest::Auto && mode == CoordMode::Normalized01000;
            normalized_count = Some(px.len());
            union_iou(&px, m)
        }
    };
    if inp.details {
        out.details.insert("iou".into(), json!(iou));
        if let Some(n) = normalized_count {
            out.details
                .insert("pred_bbox_normalized_count".into(), json!(n));
        }
    }
    out.score = iou;
    out
}

/// Mask mode (§7 step 5), never produced by the official formatter.
fn score_mask_mode(
    pred: &PyValue,
    gt: Option<&Mask>,
    gt_empty: bool,
    mut out: LocOutcome,
) -> LocOutcome {
    let empty_pred = matches!(pred, PyValue::List(v) if v.is_empty())
        || matches!(pred, PyValue::Dict(v) if v.is_empty());
    let empty_score = if gt_empty { 1.0 } else { 0.0 };
    if empty_pred {
        out.score = empty_score;
        return out;
    }
    let Some(pm) = decode_union(pred).mask else {
        out.error = Some(ERR_PRED_DECODE);
        return out;
    };
    out.details.insert("pred_mask_decoded".into(), json!(true));
    if pm.area() == 0 {
        out.score = empty_score;
        return out;
    }
    let Some(g) = gt else {
        return out;
    };
    if pm.height() != g.height() || pm.width() != g.width() {
        out.error = Some(ERR_SHAPE);
        return out;
    }
    // Run against run per column; the official path is the same integer
    // counts over two H×W arrays and one division (`mask_iou_equals_pixel_count`
    // in `tests/epic_runs.rs`).
    let inter = pm.runs().iter().map(|r| {
        g.column(r.x)
            .iter()
            .map(|q| u64::from(q.y1.min(r.y1).saturating_sub(q.y0.max(r.y0))))
            .sum::<u64>()
    });
    let inter: u64 = inter.sum();
    let union = pm.area() + g.area() - inter;
    out.score = if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    };
    out.details.insert("iou".into(), json!(out.score));
    out
}
