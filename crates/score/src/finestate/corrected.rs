//! Corrected mode: what the paper means, beside the official numbers
//! (`specs/finestate.md`, "Two modes").
//!
//! > A reply parser that reads the point the model clearly gave (signs,
//! > exponents, an explicit coordinate convention chosen by the user: 0–1,
//! > 0–1000, or pixels of W×H), no conversion keyed on a model's name; ES-SR@Loc
//! > and ES-SR@Int computed as exact-state success *conditioned on* correct
//! > localisation / interaction, using the goal-configuration boxes.
//!
//! **Decision (this file).** A LOCATE point is correctly localised when it
//! lies on the component: inside B_loc or inside its current-state box B_now
//! (which is part of the component); it is exact-state when it lies inside
//! B_now. An INTERACT point is a correct interaction when it lies inside
//! B_loc or the goal-configuration box B_tgt; it reaches the exact state when
//! it lies inside B_tgt. So ES ⊆ SR for every query and the ES rates never
//! exceed the SR rates (same denominators). Boxes that are not four numbers
//! are unusable, never a reason to drop a query; a query counts whenever it
//! was asked (non-empty instruction) and a reply exists.

use std::sync::OnceLock;

use crate::pattern::Regex;
use serde::Serialize;

use super::boxes::{contains, numeric_box};
use super::evaluate::{QueryKind, Reply};
use super::loader::Instance;
use super::python::{digit_value, truthy};

/// The coordinate convention the user says the model answers in.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Convention {
    /// Fractions of the image, 0–1 (what the official prompt asks for).
    #[default]
    Unit,
    /// Thousandths of the image, 0–1000.
    Permille,
    /// Pixels of a `width` × `height` screenshot.
    Pixels {
        /// The screenshot's width in pixels.
        width: f64,
        /// Its height in pixels.
        height: f64,
    },
}

/// A corrected-mode convention that is not one (`--convention`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConventionError {
    /// Neither `unit`, `permille` nor `pixels:…`.
    #[error("unknown convention `{0}`: expected unit, permille or pixels:WxH")]
    Unknown(String),
    /// `pixels:` without `WxH` after it.
    #[error("`{0}`: expected WxH, e.g. 1920x1080")]
    NotWxH(String),
    /// A width or height that is not a number.
    #[error("bad {which} `{given}`")]
    NotANumber {
        /// `width` or `height`.
        which: &'static str,
        /// What was given.
        given: String,
    },
    /// A width or height of zero or less.
    #[error("pixel dimensions must be positive (got {0})")]
    NotPositive(String),
}

impl std::str::FromStr for Convention {
    type Err = ConventionError;
    /// `unit` (or `0-1`), `permille` (or `0-1000`), `pixels:WxH`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "unit" | "0-1" => Ok(Self::Unit),
            "permille" | "0-1000" => Ok(Self::Permille),
            other => {
                let dims = other
                    .strip_prefix("pixels:")
                    .ok_or_else(|| ConventionError::Unknown(other.to_string()))?;
                let (w, h) = dims
                    .split_once(['x', 'X'])
                    .ok_or_else(|| ConventionError::NotWxH(dims.to_string()))?;
                let number = |which: &'static str, given: &str| {
                    given
                        .parse::<f64>()
                        .map_err(|_| ConventionError::NotANumber {
                            which,
                            given: given.to_string(),
                        })
                };
                let (width, height) = (number("width", w)?, number("height", h)?);
                // `!(x > 0)` also refuses NaN.
                if !(width > 0.0 && height > 0.0 && width.is_finite() && height.is_finite()) {
                    return Err(ConventionError::NotPositive(dims.to_string()));
                }
                Ok(Self::Pixels { width, height })
            }
        }
    }
}

impl Convention {
    fn to_unit(self, x: f64, y: f64) -> (f64, f64) {
        match self {
            Self::Unit => (x, y),
            Self::Permille => (x / 1000.0, y / 1000.0),
            Self::Pixels { width, height } => (x / width, y / height),
        }
    }
}

/// What the corrected parser read, and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorrectedParse {
    /// The point in 0–1, if one was clearly given and lies on the image.
    pub point: Option<[f64; 2]>,
    /// The numbers as written, before the convention was applied.
    pub raw: Option<[f64; 2]>,
    /// Which form the point was read from.
    pub form: &'static str,
    /// Why no point was taken, or what was noticed.
    pub note: Option<String>,
}

struct Forms {
    list: Vec<(&'static str, Regex)>,
    bare: Regex,
}

const NUM: &str = r"([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)";

fn forms() -> &'static Forms {
    static FORMS: OnceLock<Forms> = OnceLock::new();
    FORMS.get_or_init(|| {
        let pair = format!(r"{NUM}\s*,\s*{NUM}");
        let build = |p: String| {
            #[allow(clippy::expect_used)]
            Regex::new(&p).expect("constant pattern compiles")
        };
        Forms {
            list: vec![
                (
                    "labelled",
                    build(format!(
                        r"(?i)coordinates\s*[:：]\s*[\[(]?\s*{pair}\s*[\])]?"
                    )),
                ),
                (
                    "point_tag",
                    build(format!(r"<point>\s*\[\[?\s*{pair}\s*\]?\]\s*</point>")),
                ),
                (
                    "points_tag",
                    build(format!(r#"<points\s+x1="{NUM}"\s+y1="{NUM}""#)),
                ),
                (
                    "box",
                    build(format!(
                        r"<\|box_start\|>\s*[\[(]{{1,2}}\s*{pair}\s*,\s*{pair}\s*[\])]{{1,2}}"
                    )),
                ),
                (
                    "json",
                    build(format!(
                        r#"(?i)"(?:coordinate|coordinates|point)"\s*:\s*\[\s*{pair}\s*\]"#
                    )),
                ),
                (
                    "labelled_zh",
                    build(format!(r"坐标\s*[:：]\s*[\[(]?\s*{pair}")),
                ),
                ("bracketed", build(format!(r"[\[(]\s*{pair}\s*[\])]"))),
            ],
            bare: build(format!(r"^\s*[\[(]?\s*{pair}\s*[\])]?\s*\.?\s*$")),
        }
    })
}

/// Unicode decimal digits to ASCII, full-width punctuation to ASCII.
fn ascii_digits(text: &str) -> String {
    text.chars()
        .map(
            |c| match digit_value(c).and_then(|d| char::from_digit(d, 10)) {
                Some(ascii) => ascii,
                None => match c {
                    '，' => ',',
                    '［' => '[',
                    '］' => ']',
                    '（' => '(',
                    '）' => ')',
                    '．' => '.',
                    '－' | '−' => '-',
                    other => other,
                },
            },
        )
        .collect()
}

/// The corrected reply parser. Never panics.
pub fn parse_corrected(text: &str, convention: Convention) -> CorrectedParse {
    let none = |form, note: &str| CorrectedParse {
        point: None,
        raw: None,
        form,
        note: Some(note.to_string()),
    };
    if text.trim_start().starts_with("Error:") {
        return none(
            "none",
            "the reply is a client error message, not a model answer",
        );
    }
    let text = ascii_digits(text);
    let f = forms();
    let mut found: Option<(&'static str, f64, f64)> = None;
    for (form, re) in &f.list {
        // A labelled answer wins wherever it is; among bare brackets the last
        // one is the answer (models reason first, answer last).
        let caps = if *form == "bracketed" {
            re.captures_iter(&text).last()
        } else {
            re.captures(&text)
        };
        let Some(caps) = caps else { continue };
        let num = |i: usize| caps.get(i).and_then(|m| m.as_str().parse::<f64>().ok());
        let point = if *form == "box" {
            match (num(1), num(2), num(3), num(4)) {
                (Some(a), Some(b), Some(c), Some(d)) => Some(((a + c) / 2.0, (b + d) / 2.0)),
                _ => None,
            }
        } else {
            num(1).zip(num(2))
        };
        if let Some((x, y)) = point {
            found = Some((form, x, y));
            break;
        }
    }
    if found.is_none() {
        if let Some(caps) = f.bare.captures(&text) {
            let num = |i: usize| caps.get(i).and_then(|m| m.as_str().parse::<f64>().ok());
            if let (Some(x), Some(y)) = (num(1), num(2)) {
                found = Some(("bare_pair", x, y));
            }
        }
    }
    let Some((form, x, y)) = found else {
        return none("none", "no point is clearly given");
    };
    let (ux, uy) = convention.to_unit(x, y);
    let on_image =
        ux.is_finite() && uy.is_finite() && (0.0..=1.0).contains(&ux) && (0.0..=1.0).contains(&uy);
    CorrectedParse {
        point: on_image.then_some([ux, uy]),
        raw: Some([x, y]),
        form,
        note: (!on_image)
            .then(|| format!("({x}, {y}) lies outside the image under the chosen convention")),
    }
}

/// The corrected result of one query.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum CorrectedOutcome {
    /// No instruction: the query was never asked.
    NotSent,
    /// Asked, but no reply is recorded (cannot be scored).
    NoReply,
    /// Scored by the corrected rules.
    Scored {
        /// The point in 0–1 (none when no point was clearly given on the image).
        point: Option<[f64; 2]>,
        /// Which form of reply the point was read from (`labelled`, …).
        form: &'static str,
        /// Correct localisation / interaction.
        hit: bool,
        /// Exact state (implies `hit`).
        exact_state: bool,
        /// What the corrected reading did differently from the official one.
        notes: Vec<String>,
    },
}

impl CorrectedOutcome {
    /// Whether it counts in the denominators (it was scored).
    pub fn counted(&self) -> bool {
        matches!(self, Self::Scored { .. })
    }
    /// Whether it was a correct localisation or interaction.
    pub fn hit(&self) -> bool {
        matches!(self, Self::Scored { hit: true, .. })
    }
    /// Whether it also reached the exact state.
    pub fn exact_state(&self) -> bool {
        matches!(
            self,
            Self::Scored {
                exact_state: true,
                ..
            }
        )
    }
}

/// Scores one query in corrected mode.
pub fn evaluate_corrected(
    instance: &Instance,
    kind: QueryKind,
    reply: Option<&Reply>,
    convention: Convention,
) -> CorrectedOutcome {
    let instruction = match kind {
        QueryKind::Locate => &instance.locate,
        QueryKind::Interact => &instance.interact,
    };
    if !truthy(instruction) {
        return CorrectedOutcome::NotSent;
    }
    let Some(reply) = reply else {
        return CorrectedOutcome::NoReply;
    };
    let mut notes = Vec::new();
    let (point, form) = match reply {
        Reply::Text(text) => {
            let parsed = parse_corrected(text, convention);
            notes.extend(parsed.note);
            (parsed.point, parsed.form)
        }
        Reply::Point(p) => {
            let p = p.filter(|[x, y]| (0.0..=1.0).contains(x) && (0.0..=1.0).contains(y));
            (p, "given_point")
        }
        Reply::Json(_) => {
            notes.push("the reply is not text".to_string());
            (None, "none")
        }
    };
    let (component, state_box, state_name) = match kind {
        QueryKind::Locate => (
            numeric_box(&instance.bbox),
            numeric_box(&instance.now),
            "current-state box (B_now)",
        ),
        QueryKind::Interact => (
            numeric_box(&instance.bbox),
            numeric_box(&instance.target),
            "goal-configuration box (B_tgt)",
        ),
    };
    if component.is_none() && truthy(&instance.bbox) {
        notes.push("component box (B_loc) is not four numbers".to_string());
    }
    if state_box.is_none() {
        notes.push(format!("no usable {state_name}"));
    }
    let (hit, exact_state) = match point {
        Some(p) => {
            let in_state = state_box.is_some_and(|b| contains(b, p));
            let in_component = component.is_some_and(|b| contains(b, p));
            (in_component || in_state, in_state)
        }
        None => (false, false),
    };
    CorrectedOutcome::Scored {
        point,
        form,
        hit,
        exact_state,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_signs_exponents_and_labels() {
        let p = parse_corrected("[5e-1, 0.3]", Convention::Unit);
        assert_eq!(p.point, Some([0.5, 0.3]));
        let p = parse_corrected("[-0.2, 0.3]", Convention::Unit);
        assert_eq!(p.point, None);
        let p = parse_corrected(
            "I first considered [0.9, 0.9]. Then: 2. Interaction Coordinates: [0.2, 0.3]",
            Convention::Unit,
        );
        assert_eq!(p.point, Some([0.2, 0.3]));
        let p = parse_corrected("<point>[[816, 480]]</point>", Convention::Permille);
        assert_eq!(p.point, Some([0.816, 0.48]));
        let p = parse_corrected("Set volume to 40, 60 percent", Convention::Unit);
        assert_eq!(p.point, None);
    }

    #[test]
    fn pixels_convention() {
        let c: Convention = "pixels:1920x1080".parse().unwrap();
        let p = parse_corrected("Interaction Coordinates: [960, 540]", c);
        assert_eq!(p.point, Some([0.5, 0.5]));
    }
}
