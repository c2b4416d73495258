//! Coordinate conventions. Models are not agreed on what a coordinate means
//! (`notes-users-and-apis.md`, item 4): Qwen2-VL, Qwen3-VL, Gemini and
//! InternVL answer on 0–1000, Qwen2.5-VL in pixels of the image it was
//! sent, others in fractions of 0–1. The simulator reads 0–1000 only, so a
//! reply's coordinate is rewritten onto that scale before the simulator's
//! parser reads it; the raw reply is kept as it was.

use super::error::VlmError;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use knoblab_core::geom::SCALE_MAX;
use knoblab_core::sim::action::action_text;

/// What a model's coordinates mean.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordConvention {
    /// Integers 0–1000 on both axes, as the simulator reads them.
    #[default]
    Scale1000,
    /// Fractions 0–1 of the width and height.
    Unit,
    /// Pixels of the image sent.
    Pixels,
}

impl CoordConvention {
    /// The name used in settings and files.
    pub fn name(self) -> &'static str {
        match self {
            CoordConvention::Scale1000 => "0-1000",
            CoordConvention::Unit => "0-1",
            CoordConvention::Pixels => "pixels",
        }
    }

    /// Reads `0-1000`, `0-1` or `pixels`.
    pub fn parse(text: &str) -> Result<CoordConvention, VlmError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "0-1000" => Ok(CoordConvention::Scale1000),
            "0-1" => Ok(CoordConvention::Unit),
            "pixels" => Ok(CoordConvention::Pixels),
            other => Err(VlmError::UnknownCoords {
                found: other.to_string(),
            }),
        }
    }

    /// One coordinate on 0–1000, from this convention, along an axis of
    /// `size` pixels. Rounded to the nearest integer; a value off the
    /// scale stays off it, so the simulator's parser reports it.
    pub fn to_scale(self, value: f64, size: u32) -> f64 {
        let max = f64::from(SCALE_MAX);
        match self {
            CoordConvention::Scale1000 => value,
            CoordConvention::Unit => value * max,
            CoordConvention::Pixels if size > 0 => value * max / f64::from(size),
            CoordConvention::Pixels => value,
        }
        .round()
    }
}

/// A `coord=[x, y]` (or `(x, y)`) argument. `None` only if the constant
/// pattern did not compile, which `the_coord_pattern_compiles` rules out;
/// the text is then passed on as found.
fn coord_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)(coord\s*=\s*)[\[(]\s*(-?[0-9]*\.?[0-9]+)\s*,\s*(-?[0-9]*\.?[0-9]+)\s*[\])]",
        )
        .ok()
    })
    .as_ref()
}

/// The action text of a reply (what follows its last `Action:`, as the
/// simulator's parser finds it), with its coordinate rewritten from
/// `convention` onto 0–1000 for an image of `width` × `height` pixels.
/// Text without a readable coordinate is returned as found, for the
/// simulator's parser to judge.
///
/// ```
/// use knoblab_eval::vlm::coords::{normalize_action, CoordConvention};
/// let reply = "The dial is left.\nAction: Rotate(coord=[0.25, 0.5], params=[0, 1])";
/// assert_eq!(normalize_action(reply, CoordConvention::Unit, 640, 480),
///            "Rotate(coord=[250, 500], params=[0, 1])");
/// assert_eq!(normalize_action("Action: Press(coord=(320, 120), params=[0])",
///                             CoordConvention::Pixels, 640, 480),
///            "Press(coord=[500, 250], params=[0])");
/// ```
pub fn normalize_action(
    reply: &str,
    convention: CoordConvention,
    width: u32,
    height: u32,
) -> String {
    let text = action_text(reply);
    if convention == CoordConvention::Scale1000 {
        return text.to_string();
    }
    let Some(caps) = coord_re().and_then(|re| re.captures(text)) else {
        return text.to_string();
    };
    let (Some(whole), Some(prefix), Some(x), Some(y)) =
        (caps.get(0), caps.get(1), caps.get(2), caps.get(3))
    else {
        return text.to_string();
    };
    let (Ok(x), Ok(y)) = (x.as_str().parse::<f64>(), y.as_str().parse::<f64>()) else {
        return text.to_string();
    };
    format!(
        "{}{}[{}, {}]{}",
        &text[..whole.start()],
        prefix.as_str(),
        convention.to_scale(x, width),
        convention.to_scale(y, height),
        &text[whole.end()..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_coord_pattern_compiles() {
        assert!(coord_re().is_some());
    }

    #[test]
    fn scale_1000_passes_the_action_through() {
        let r = "Reasoning.\nAction: Push(coord=[780, 711], params=[1]).";
        assert_eq!(
            normalize_action(r, CoordConvention::Scale1000, 10, 10),
            "Push(coord=[780, 711], params=[1])"
        );
    }

    #[test]
    fn unit_and_pixels_land_on_the_scale() {
        assert_eq!(CoordConvention::Unit.to_scale(0.0, 1), 0.0);
        assert_eq!(CoordConvention::Unit.to_scale(1.0, 1), 1000.0);
        assert_eq!(CoordConvention::Unit.to_scale(0.4567, 1), 457.0);
        assert_eq!(CoordConvention::Pixels.to_scale(799.0, 800), 999.0);
        assert_eq!(CoordConvention::Pixels.to_scale(800.0, 800), 1000.0);
        // A zero size cannot happen (bundles refuse it) but must not divide by zero.
        assert_eq!(CoordConvention::Pixels.to_scale(5.0, 0), 5.0);
    }

    #[test]
    fn axes_use_their_own_size() {
        let out = normalize_action(
            "Action: Switch_view(coord=[100, 100])",
            CoordConvention::Pixels,
            200,
            400,
        );
        assert_eq!(out, "Switch_view(coord=[500, 250])");
    }

    #[test]
    fn off_scale_values_stay_off_for_the_parser_to_report() {
        let out = normalize_action(
            "Action: Press(coord=[1.5, 0.5], params=[0])",
            CoordConvention::Unit,
            10,
            10,
        );
        assert_eq!(out, "Press(coord=[1500, 500], params=[0])");
        assert!(knoblab_core::sim::parse_action(&out).is_err());
    }

    #[test]
    fn text_without_a_coordinate_is_left_alone() {
        for r in [
            "Action: Timed_wait()",
            "no idea",
            "Action: Press(coord=[a, b])",
        ] {
            assert_eq!(
                normalize_action(r, CoordConvention::Unit, 10, 10),
                knoblab_core::sim::action::action_text(r)
            );
        }
    }

    #[test]
    fn names_read_back() {
        for c in [
            CoordConvention::Scale1000,
            CoordConvention::Unit,
            CoordConvention::Pixels,
        ] {
            assert_eq!(CoordConvention::parse(c.name()), Ok(c));
        }
        assert!(CoordConvention::parse("0-100")
            .unwrap_err()
            .to_string()
            .contains("0-1000"));
    }
}
