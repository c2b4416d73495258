//! Coordinate systems (§6): the four modes, per-sample auto-detection, and
//! the scaling, sorting, clipping and truncation of boxes and points.

use super::raster::PixelBox;
use thiserror::Error;

/// A resolved coordinate system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordMode {
    /// Pixel coordinates of the image.
    Absolute,
    /// Fractions of the width and height, 0 to 1.
    Normalized01,
    /// Thousandths of the width and height, 0 to 1000.
    Normalized01000,
}

impl CoordMode {
    /// The official name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            CoordMode::Absolute => "absolute",
            CoordMode::Normalized01 => "normalized_0_1",
            CoordMode::Normalized01000 => "normalized_0_1000",
        }
    }
}

/// A requested mode: a fixed one, or auto-detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeRequest {
    /// Detect the mode from each sample's values.
    Auto,
    /// Use this mode for every sample.
    Fixed(CoordMode),
}

/// The names a run's coordinate override (`--coord-mode`, the page's
/// choice) may take, in the order messages list them.
pub const MODE_NAMES: [&str; 4] = ["auto", "normalized_0_1000", "absolute", "normalized_0_1"];

/// A coordinate override that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{given:?} is not a coordinate mode; expected one of auto, normalized_0_1000, absolute, normalized_0_1")]
pub struct UnknownMode {
    /// The name as given.
    pub given: String,
}

impl ModeRequest {
    /// The official name of the request (`auto` or the mode's).
    pub fn name(self) -> &'static str {
        match self {
            ModeRequest::Auto => "auto",
            ModeRequest::Fixed(m) => m.name(),
        }
    }
}

/// A run's override, parsed once where it enters (the CLI, Python, the
/// page): one of [`MODE_NAMES`] exactly, unlike a record's own field,
/// which [`parse_mode`] reads with the official leniency.
///
/// ```
/// use knoblab_score::epic::coords::{CoordMode, ModeRequest};
/// assert_eq!("absolute".parse(), Ok(ModeRequest::Fixed(CoordMode::Absolute)));
/// assert_eq!("auto".parse(), Ok(ModeRequest::Auto));
/// let e = "pixels".parse::<ModeRequest>().unwrap_err();
/// assert!(e.to_string().contains("expected one of auto, normalized_0_1000"));
/// ```
impl std::str::FromStr for ModeRequest {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(ModeRequest::Auto),
            "absolute" => Ok(ModeRequest::Fixed(CoordMode::Absolute)),
            "normalized_0_1" => Ok(ModeRequest::Fixed(CoordMode::Normalized01)),
            "normalized_0_1000" => Ok(ModeRequest::Fixed(CoordMode::Normalized01000)),
            _ => Err(UnknownMode {
                given: s.to_string(),
            }),
        }
    }
}

/// Parses a mode name: "The aliases `normalized` → `normalized_0_1` and
/// `normalized_1000` → `normalized_0_1000` are accepted. An empty mode means
/// `auto`. **QUIRK:** any other unknown string behaves like `auto`."
pub fn parse_mode(name: &str) -> ModeRequest {
    match name.trim().to_ascii_lowercase().as_str() {
        "absolute" => ModeRequest::Fixed(CoordMode::Absolute),
        "normalized_0_1" | "normalized" => ModeRequest::Fixed(CoordMode::Normalized01),
        "normalized_0_1000" | "normalized_1000" => ModeRequest::Fixed(CoordMode::Normalized01000),
        _ => ModeRequest::Auto,
    }
}

/// Resolves a request against the sample's values: "`M = max(H, W)` of the
/// reference mask. 1. `max ≤ 1.0` and `min ≥ 0` → 0–1. 2. Else `max > M` →
/// 0–1000. 3. Else → absolute. An empty value list → absolute."
pub fn resolve(request: ModeRequest, values: &[f64], height: u32, width: u32) -> CoordMode {
    match request {
        ModeRequest::Fixed(m) => m,
        ModeRequest::Auto => {
            if values.is_empty() {
                return CoordMode::Absolute;
            }
            let max = values.iter().copied().fold(f64::NEG_INFINITY, py_max);
            let min = values.iter().copied().fold(f64::INFINITY, py_min);
            let m = f64::from(height.max(width));
            if max <= 1.0 && min >= 0.0 {
                CoordMode::Normalized01
            } else if max > m {
                CoordMode::Normalized01000
            } else {
                CoordMode::Absolute
            }
        }
    }
}

/// Python's `max(a, b)` on floats (keeps `a` unless `b > a`).
fn py_max(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

fn py_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// The scale factors: "`(1, 1)` for absolute; `(W, H)` for 0–1; `(W/1000.0,
/// H/1000.0)` for 0–1000. The factor is computed first, then multiplied".
pub fn scale(mode: CoordMode, height: u32, width: u32) -> (f64, f64) {
    match mode {
        CoordMode::Absolute => (1.0, 1.0),
        CoordMode::Normalized01 => (f64::from(width), f64::from(height)),
        CoordMode::Normalized01000 => (f64::from(width) / 1000.0, f64::from(height) / 1000.0),
    }
}

/// Normalises boxes (§6 "Boxes"): scale, sort corners, clip x to `[0, W]`
/// and y to `[0, H]`, drop unless `x2 > x1` and `y2 > y1`, truncate toward
/// zero with `int()`.
pub fn normalize_boxes(
    boxes: &[[f64; 4]],
    mode: CoordMode,
    height: u32,
    width: u32,
) -> Vec<PixelBox> {
    let (sx, sy) = scale(mode, height, width);
    let (w, h) = (f64::from(width), f64::from(height));
    let mut out = Vec::with_capacity(boxes.len());
    for b in boxes {
        let (x1, y1, x2, y2) = (b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy);
        let (x1, x2) = (py_min(x1, x2), py_max(x1, x2));
        let (y1, y2) = (py_min(y1, y2), py_max(y1, y2));
        let clip = |v: f64, hi: f64| py_max(0.0, py_min(hi, v));
        let (x1, x2, y1, y2) = (clip(x1, w), clip(x2, w), clip(y1, h), clip(y2, h));
        if !(x2 > x1 && y2 > y1) {
            continue;
        }
        // All four are in [0, W] or [0, H] here, so truncation is a floor.
        out.push(PixelBox {
            x1: x1 as u32,
            y1: y1 as u32,
            x2: x2 as u32,
            y2: y2 as u32,
        });
    }
    out
}

/// Normalises points (§6 "Points"): scale, clip x to `[0, W-1]` and y to
/// `[0, H-1]` ("Note the `-1`, unlike boxes"), keep them as floats.
pub fn normalize_points(
    points: &[[f64; 2]],
    mode: CoordMode,
    height: u32,
    width: u32,
) -> Vec<[f64; 2]> {
    let (sx, sy) = scale(mode, height, width);
    let (wm, hm) = (f64::from(width) - 1.0, f64::from(height) - 1.0);
    points
        .iter()
        .map(|p| {
            let (x, y) = (p[0] * sx, p[1] * sy);
            [py_max(0.0, py_min(wm, x)), py_max(0.0, py_min(hm, y))]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_detection_rules() {
        let r = |v: &[f64]| resolve(ModeRequest::Auto, v, 240, 320);
        assert_eq!(r(&[0.1, 0.9]), CoordMode::Normalized01);
        assert_eq!(r(&[0.0, 0.0, 1.0, 1.0]), CoordMode::Normalized01);
        assert_eq!(r(&[10.0, 321.0]), CoordMode::Normalized01000);
        assert_eq!(r(&[10.0, 320.0]), CoordMode::Absolute);
        assert_eq!(r(&[-0.1, 0.5]), CoordMode::Absolute);
        assert_eq!(r(&[]), CoordMode::Absolute);
    }

    #[test]
    fn mode_names_and_aliases() {
        assert_eq!(
            parse_mode("normalized"),
            ModeRequest::Fixed(CoordMode::Normalized01)
        );
        assert_eq!(
            parse_mode("normalized_1000"),
            ModeRequest::Fixed(CoordMode::Normalized01000)
        );
        assert_eq!(parse_mode("pixels"), ModeRequest::Auto);
        assert_eq!(parse_mode(""), ModeRequest::Auto);
    }

    #[test]
    fn boxes_sort_clip_and_truncate() {
        let b = normalize_boxes(
            &[[180.0, 140.0, 100.0, 60.0], [-50.0, -20.0, 99.6, 59.5]],
            CoordMode::Absolute,
            240,
            320,
        );
        assert_eq!(
            b[0],
            PixelBox {
                x1: 100,
                y1: 60,
                x2: 180,
                y2: 140
            }
        );
        assert_eq!(
            b[1],
            PixelBox {
                x1: 0,
                y1: 0,
                x2: 99,
                y2: 59
            }
        );
        assert!(normalize_boxes(
            &[[100.0, 60.0, 100.0, 140.0]],
            CoordMode::Absolute,
            240,
            320
        )
        .is_empty());
    }

    #[test]
    fn points_clip_to_last_pixel() {
        let p = normalize_points(&[[500.0, 1000.0]], CoordMode::Normalized01000, 240, 320);
        assert_eq!(p[0], [160.0, 239.0]);
    }
}
