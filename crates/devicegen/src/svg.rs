//! Small helpers for writing SVG text: numbers, colours, affine maps and
//! the plain elements (text, rectangles, circles) every drawing is made of.

/// A number as SVG text: at most two decimals, no trailing zeros, so the
/// same drawing always gives the same bytes.
pub fn num(x: f64) -> String {
    let rounded = (x * 100.0).round() / 100.0;
    let text = format!("{rounded:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => "0".to_string(),
        t => t.to_string(),
    }
}

/// A colour written otherwise than `#rrggbb`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("colour {text:?} is not of the form #rrggbb")]
pub struct ColourError {
    /// The colour as written.
    pub text: String,
}

/// An `#rrggbb` colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Reads `#rrggbb`.
    pub fn parse(text: &str) -> Result<Rgb, ColourError> {
        let hex = text.strip_prefix('#').filter(|h| h.len() == 6);
        let channel = |i: usize| {
            hex.and_then(|h| h.get(i..i + 2))
                .and_then(|c| u8::from_str_radix(c, 16).ok())
        };
        match (channel(0), channel(2), channel(4)) {
            (Some(r), Some(g), Some(b)) => Ok(Rgb(r, g, b)),
            _ => Err(ColourError {
                text: text.to_string(),
            }),
        }
    }

    /// Lighter (`amount` > 0, toward white) or darker (< 0, toward black).
    pub fn shade(self, amount: f64) -> Rgb {
        let mix = |c: u8| {
            let c = f64::from(c);
            let target = if amount > 0.0 { 255.0 } else { 0.0 };
            (c + (target - c) * amount.abs()).round().clamp(0.0, 255.0) as u8
        };
        Rgb(mix(self.0), mix(self.1), mix(self.2))
    }

    /// Relative brightness in 0..1 (Rec. 709 weights), to choose ink.
    pub fn luma(self) -> f64 {
        (0.2126 * f64::from(self.0) + 0.7152 * f64::from(self.1) + 0.0722 * f64::from(self.2))
            / 255.0
    }

    /// Dark ink on a light colour, light ink on a dark one.
    pub fn ink(self) -> Rgb {
        if self.luma() > 0.55 {
            Rgb(0x22, 0x24, 0x28)
        } else {
            Rgb(0xf2, 0xf2, 0xee)
        }
    }

    /// As `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// An affine map `x' = a x + c y + e`, `y' = b x + d y + f` (SVG's
/// `matrix(a b c d e f)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine(pub [f64; 6]);

impl Affine {
    /// A move by `x` right and `y` down.
    pub fn translate(x: f64, y: f64) -> Affine {
        Affine([1.0, 0.0, 0.0, 1.0, x, y])
    }

    /// A uniform scale by `s` about the origin.
    pub fn scale(s: f64) -> Affine {
        Affine([s, 0.0, 0.0, s, 0.0, 0.0])
    }

    /// `self` after `inner`: first `inner`, then `self`.
    pub fn then_after(self, inner: Affine) -> Affine {
        let [a, b, c, d, e, f] = self.0;
        let [a2, b2, c2, d2, e2, f2] = inner.0;
        Affine([
            a * a2 + c * b2,
            b * a2 + d * b2,
            a * c2 + c * d2,
            b * c2 + d * d2,
            a * e2 + c * f2 + e,
            b * e2 + d * f2 + f,
        ])
    }

    /// Where it takes the point (`x`, `y`).
    pub fn apply(self, x: f64, y: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.0;
        (a * x + c * y + e, b * x + d * y + f)
    }

    /// As an SVG `transform` attribute value.
    pub fn svg(self) -> String {
        let [a, b, c, d, e, f] = self.0.map(|v| (v * 10000.0).round() / 10000.0);
        format!("matrix({a} {b} {c} {d} {e} {f})")
    }
}

/// Escapes text for an SVG text node.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A `<text>` element: `label` centred on (`x`, `y`) at `size`, in `ink`.
pub(super) fn text(label: &str, x: f64, y: f64, size: f64, ink: Rgb) -> String {
    format!(
        r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="{}">{}</text>"#,
        num(x),
        num(y),
        num(size),
        ink.hex(),
        escape(label)
    )
}

/// A `<rect>` element with corner radius `r`; `extra` is more attributes.
pub(super) fn rect(x: f64, y: f64, w: f64, h: f64, r: f64, fill: &str, extra: &str) -> String {
    format!(
        r#"<rect x="{}" y="{}" width="{}" height="{}" rx="{}" fill="{fill}" {extra}/>"#,
        num(x),
        num(y),
        num(w),
        num(h),
        num(r)
    )
}

/// A `<circle>` element; `extra` is more attributes.
pub(super) fn circle(cx: f64, cy: f64, r: f64, fill: &str, extra: &str) -> String {
    format!(
        r#"<circle cx="{}" cy="{}" r="{}" fill="{fill}" {extra}/>"#,
        num(cx),
        num(cy),
        num(r)
    )
}

/// An outline's attributes: `stroke="#rrggbb" stroke-width="…"`.
pub(super) fn stroke(color: Rgb, width: f64) -> String {
    format!(r#"stroke="{}" stroke-width="{}""#, color.hex(), num(width))
}

/// A radial tick of a scale: the line at `degrees` (0 = up, clockwise)
/// from radius `r1` to `r2` around (`cx`, `cy`), in `ink`, `width` wide.
pub(super) fn tick(
    cx: f64,
    cy: f64,
    r1: f64,
    r2: f64,
    degrees: f64,
    ink: Rgb,
    width: f64,
) -> String {
    let (x1, y1) = polar(cx, cy, r1, degrees);
    let (x2, y2) = polar(cx, cy, r2, degrees);
    format!(
        r#"<path d="M{} {} L{} {}" {}/>"#,
        num(x1),
        num(y1),
        num(x2),
        num(y2),
        stroke(ink, width)
    )
}

/// The point at distance `r` from (`cx`, `cy`) in direction `degrees`
/// (0 = up, clockwise), in SVG's y-down coordinates.
pub(super) fn polar(cx: f64, cy: f64, r: f64, degrees: f64) -> (f64, f64) {
    let (s, c) = degrees.to_radians().sin_cos();
    (cx + r * s, cy - r * c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(2.456), "2.46");
        assert_eq!(num(-0.001), "0");
    }

    #[test]
    fn colours_parse_shade_and_name_what_is_wrong() {
        let grey = Rgb::parse("#808080").unwrap();
        assert_eq!(grey.shade(1.0), Rgb(255, 255, 255));
        assert_eq!(grey.shade(-1.0), Rgb(0, 0, 0));
        assert!(Rgb::parse("red")
            .unwrap_err()
            .to_string()
            .contains("#rrggbb"));
    }

    #[test]
    fn composition_applies_the_inner_map_first() {
        let m = Affine::translate(10.0, 0.0).then_after(Affine::scale(2.0));
        assert_eq!(m.apply(1.0, 1.0), (12.0, 2.0));
    }
}
