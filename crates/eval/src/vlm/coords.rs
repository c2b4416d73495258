//! Coordinate conventions. Models are not agreed on what a coordinate means
//! (`notes-users-and-apis.md`, item 4): Qwen2-VL, Qwen3-VL, Gemini and
//! InternVL answer on 0–1000, Qwen2.5-VL in pixels of the image it was
//! sent, others in fractions of 0–1. The simulator reads 0–1000 only, so a
//! reply's coordinate is rewritten onto that scale before the simulator's
//! parser reads it; the raw reply is kept as it was.

use super::error::VlmError;

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

/// A `coord=[x, y]` (or `(x, y)`) argument found in a text: byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CoordArg {
    /// Where `coord` starts.
    start: usize,
    /// Where `coord =` and its spaces end (the bracket).
    bracket: usize,
    /// The two numbers.
    x: (usize, usize),
    y: (usize, usize),
    /// After the closing bracket.
    end: usize,
}

/// The byte offset after a number `-?[0-9]*\.?[0-9]+` at `at`, when one
/// starts there and what follows it is no digit and no point (a longer or
/// shorter reading could then not be followed by a space, a comma or a
/// bracket, which every use of a number here needs).
fn number_end(text: &[u8], at: usize) -> Option<usize> {
    let digits = |from: usize| {
        from + text
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let start = if text.get(at) == Some(&b'-') {
        at + 1
    } else {
        at
    };
    let whole = digits(start);
    let end =
        if text.get(whole) == Some(&b'.') && text.get(whole + 1).is_some_and(u8::is_ascii_digit) {
            digits(whole + 1)
        } else if whole > start {
            whole
        } else {
            return None;
        };
    (!matches!(text.get(end), Some(b) if b.is_ascii_digit() || *b == b'.')).then_some(end)
}

/// The first `coord=[x, y]` (or `(x, y)`) of `text`, in any case and with
/// any whitespace between its parts: what the regex
/// `(?i)(coord\s*=\s*)[\[(]\s*(-?[0-9]*\.?[0-9]+)\s*,\s*(-?[0-9]*\.?[0-9]+)\s*[\])]`
/// finds first (a test holds it to that regex).
fn find_coord(text: &str) -> Option<CoordArg> {
    use knoblab_core::sim::action::{skip_whitespace, starts_with_ignore_case};
    let bytes = text.as_bytes();
    // Each candidate start is an ASCII letter: a character boundary.
    (0..bytes.len())
        .filter(|&at| bytes[at].eq_ignore_ascii_case(&b'c'))
        .find_map(|start| {
            let at = skip_whitespace(text, starts_with_ignore_case(text, start, "coord")?);
            (bytes.get(at) == Some(&b'=')).then_some(())?;
            let bracket = skip_whitespace(text, at + 1);
            matches!(bytes.get(bracket), Some(b'[' | b'(')).then_some(())?;
            let x0 = skip_whitespace(text, bracket + 1);
            let x1 = number_end(bytes, x0)?;
            let comma = skip_whitespace(text, x1);
            (bytes.get(comma) == Some(&b',')).then_some(())?;
            let y0 = skip_whitespace(text, comma + 1);
            let y1 = number_end(bytes, y0)?;
            let close = skip_whitespace(text, y1);
            matches!(bytes.get(close), Some(b']' | b')')).then_some(CoordArg {
                start,
                bracket,
                x: (x0, x1),
                y: (y0, y1),
                end: close + 1,
            })
        })
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
    let Some(arg) = find_coord(text) else {
        return text.to_string();
    };
    let part = |(from, to): (usize, usize)| text.get(from..to).unwrap_or("");
    let (Ok(x), Ok(y)) = (part(arg.x).parse::<f64>(), part(arg.y).parse::<f64>()) else {
        return text.to_string();
    };
    format!(
        "{}{}[{}, {}]{}",
        part((0, arg.start)),
        part((arg.start, arg.bracket)),
        convention.to_scale(x, width),
        convention.to_scale(y, height),
        part((arg.end, text.len()))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The argument as the regex it replaced finds it.
    fn coord_by_regex(text: &str) -> Option<CoordArg> {
        let re = regex::Regex::new(
            r"(?i)(coord\s*=\s*)[\[(]\s*(-?[0-9]*\.?[0-9]+)\s*,\s*(-?[0-9]*\.?[0-9]+)\s*[\])]",
        )
        .unwrap();
        let c = re.captures(text)?;
        let (whole, prefix, x, y) = (c.get(0)?, c.get(1)?, c.get(2)?, c.get(3)?);
        Some(CoordArg {
            start: whole.start(),
            bracket: prefix.end(),
            x: (x.start(), x.end()),
            y: (y.start(), y.end()),
            end: whole.end(),
        })
    }

    #[test]
    fn the_coord_argument_is_found_where_the_regex_finds_it() {
        for text in [
            "Press(coord=[1, 2])",
            "Press(COORD = ( -0.5 ,.25 ), params=[1])",
            "coord=[1., 2]",
            "coord=[1.2.3, 4] coord=[5, 6]",
            "coord=[-, 1] Coord=[7,8]",
            "coord\u{a0}=\u{3000}[1,2]",
            "coordinate=[1, 2]",
            "coord=[1, 2}",
            "coord=[12, 34",
            "ccoord=[0,0]",
            "é coord=[5,5]é",
        ] {
            assert_eq!(find_coord(text), coord_by_regex(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_coord_reader_agrees_with_the_regex(text in r"(coord|COORD|Coord|coor|[ \x{a0}]|=|\[|\(|\]|\)|-|[0-9]|\.|,|x|é){0,24}") {
            proptest::prop_assert_eq!(find_coord(&text), coord_by_regex(&text));
        }
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
