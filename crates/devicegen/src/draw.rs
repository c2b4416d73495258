//! Drawing a device in SVG: a body face, and each part on it, in the face's
//! own coordinates. A component is one `<g id="component">` holding exactly
//! the pixels of the part; its printed label and scale are drawn outside
//! it, so the component's box (measured on this group, [`super::render`])
//! is the part itself.
//!
//! `px` is the size of one output pixel in face units, so that strokes,
//! shadows and text keep their pixel size whatever the view's scale.

use super::desc::{Body, Face, Look, Part, Shape};
use super::icons::{glyph, UnknownIcon};
use super::looks::screen_colour;
use super::svg::{circle, num, polar, rect, stroke, text, ColourError, Rgb};

pub use super::looks::Variant;

/// Why a part could not be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DrawError {
    /// The part's colour is not `#rrggbb`.
    #[error(transparent)]
    Colour(#[from] ColourError),
    /// The part names an icon there is no drawing of.
    #[error(transparent)]
    Icon(#[from] UnknownIcon),
    /// The part's width or height is zero or negative.
    #[error("size {width}×{height}: width and height must be positive")]
    Size {
        /// The width given.
        width: f64,
        /// The height given.
        height: f64,
    },
}

/// Label text size, in pixels.
const LABEL_PX: f64 = 11.0;

/// The SVG of one face of the body, `fw`×`fh`, its fill defined under
/// `id` (unique in the document); `light` brightens (> 0) or darkens the
/// face as an axonometric view's lighting does.
pub fn body_face(
    body: &Body,
    face: Face,
    (fw, fh): (f64, f64),
    id: &str,
    light: f64,
    px: f64,
) -> Result<String, ColourError> {
    let color = Rgb::parse(&body.color)?.shade(light);
    let outline = color.shade(-0.45).hex();
    let round_top = body.shape == Shape::Cylinder && matches!(face, Face::Top | Face::Bottom);
    let side_round = body.shape == Shape::Cylinder && !round_top;
    let gradient = if side_round {
        format!(
            r#"<linearGradient id="{id}" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="{}"/><stop offset="0.4" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
            color.shade(-0.3).hex(),
            color.shade(0.15).hex(),
            color.shade(-0.35).hex()
        )
    } else {
        format!(
            r#"<linearGradient id="{id}" x1="0" y1="0" x2="0.3" y2="1"><stop offset="0" stop-color="{}"/><stop offset="1" stop-color="{}"/></linearGradient>"#,
            color.shade(0.16).hex(),
            color.shade(-0.14).hex()
        )
    };
    let shape = if round_top {
        format!(
            r#"<ellipse cx="{}" cy="{}" rx="{}" ry="{}""#,
            num(fw / 2.0),
            num(fh / 2.0),
            num(fw / 2.0),
            num(fh / 2.0)
        )
    } else {
        let r = body.round.clamp(0.0, 1.0) * fw.min(fh) / 2.0;
        format!(
            r#"<rect x="0" y="0" width="{}" height="{}" rx="{}""#,
            num(fw),
            num(fh),
            num(r)
        )
    };
    let mut out = format!(
        r#"<defs>{gradient}<clipPath id="{id}-clip">{shape}/></clipPath></defs>{shape} fill="url(#{id})" stroke="{outline}" stroke-width="{}"/>"#,
        num(1.5 * px)
    );
    let trim = body.trim.as_deref().map(Rgb::parse).transpose()?;
    if let (Some(trim), true) = (
        trim,
        body.base > 0.0 && !matches!(face, Face::Top | Face::Bottom),
    ) {
        out.push_str(&format!(
            r#"<rect x="0" y="{}" width="{}" height="{}" fill="{}" clip-path="url(#{id}-clip)"/>"#,
            num(fh - body.base),
            num(fw),
            num(body.base),
            trim.shade(light).hex()
        ));
    }
    // A soft highlight along the upper edge: the face reads as lit from above.
    out.push_str(&format!(
        r##"<rect x="{}" y="{}" width="{}" height="{}" rx="{}" fill="#ffffff" fill-opacity="0.18" clip-path="url(#{id}-clip)"/>"##,
        num(fw * 0.06),
        num(3.0 * px),
        num(fw * 0.88),
        num((fh * 0.05).min(8.0 * px)),
        num(2.0 * px)
    ));
    Ok(out)
}

/// A part's drawing: the part itself (wrapped in `<g id=…>` when it is a
/// component) and what is printed around it.
pub struct PartSvg {
    /// What lies under the part and is not the part: the empty seat or
    /// opening a part was taken out of (live pictures only).
    pub under: String,
    /// The part itself, as SVG (wrapped in `<g id=…>` when it is a component).
    pub part: String,
    /// What is printed around it (its label, scale marks), as SVG.
    pub print: String,
}

/// Draws `part` on a face whose colour is `face_color`.
pub fn part(part: &Part, face_color: Rgb, px: f64) -> Result<PartSvg, DrawError> {
    part_in(part, &Variant::Static, face_color, px)
}

/// Draws `part` as it looks in one state (see [`Variant`]). Everything a
/// variant changes stays inside the part's own rectangle, so a state's
/// sign never spills onto its neighbours.
pub fn part_in(
    part: &Part,
    variant: &Variant,
    face_color: Rgb,
    px: f64,
) -> Result<PartSvg, DrawError> {
    let owned;
    let part = match variant {
        Variant::Pointer(i) => {
            owned = Part {
                pointer: *i,
                ..part.clone()
            };
            &owned
        }
        Variant::Text(t) => {
            owned = Part {
                label: Some(t.clone()),
                ..part.clone()
            };
            &owned
        }
        Variant::DimText(t) => {
            let screen = screen_colour(part)?;
            owned = Part {
                label: Some(t.clone()),
                color: Some(screen.shade(-0.35).hex()),
                ..part.clone()
            };
            &owned
        }
        Variant::Blank => {
            let screen = screen_colour(part)?;
            owned = Part {
                label: None,
                color: Some(screen.shade(-0.62).hex()),
                ..part.clone()
            };
            &owned
        }
        _ => part,
    };
    let [cx, cy] = part.at;
    let [w, h] = part.size;
    if w <= 0.0 || h <= 0.0 {
        return Err(DrawError::Size {
            width: w,
            height: h,
        });
    }
    let color = part.color.as_deref().map(Rgb::parse).transpose()?;
    let ink = face_color.ink();
    let mut drawn = look(part, variant, (cx, cy, w, h), color, face_color, px)?;
    let (under, over_part) = over(part, variant, drawn.part, (cx, cy, w, h), color, px);
    drawn.part = over_part;
    let mut print = drawn.print;
    if let Some(label) = part
        .label
        .as_deref()
        .filter(|_| !matches!(part.look, Look::Display | Look::Text))
    {
        print.push_str(&text(
            label,
            cx,
            cy + h / 2.0 + (LABEL_PX + 3.0) * px,
            LABEL_PX * px,
            ink,
        ));
    }
    let body = match &part.component {
        Some(id) => format!(r#"<g id="{id}">{}</g>"#, drawn.part),
        None => drawn.part,
    };
    Ok(PartSvg {
        under,
        part: body,
        print,
    })
}

struct Drawn {
    part: String,
    print: String,
}

/// What a variant draws instead of, or over, the part's static drawing:
/// what lies under the part (an opening, a seat) and the part itself.
fn over(
    part: &Part,
    variant: &Variant,
    drawn: String,
    (cx, cy, w, h): (f64, f64, f64, f64),
    color: Option<Rgb>,
    px: f64,
) -> (String, String) {
    let under = match variant {
        Variant::Open { .. } => {
            let (x, y) = (cx - w / 2.0, cy - h / 2.0);
            let m = w.min(h);
            let cavity = Rgb(0x1c, 0x1f, 0x24).hex();
            match part.look {
                Look::Porthole => circle(cx, cy, m / 2.0 * 0.8, &cavity, ""),
                Look::Door | Look::Drawer => rect(x, y, w, h, m * 0.06, &cavity, ""),
                _ => rect(x, y, w, h, m * 0.15, &cavity, r#"fill-opacity="0.7""#),
            }
        }
        _ => String::new(),
    };
    (
        under,
        part_over(part, variant, drawn, (cx, cy, w, h), color, px),
    )
}

fn part_over(
    part: &Part,
    variant: &Variant,
    drawn: String,
    (cx, cy, w, h): (f64, f64, f64, f64),
    color: Option<Rgb>,
    px: f64,
) -> String {
    let (x, y) = (cx - w / 2.0, cy - h / 2.0);
    let m = w.min(h);
    match variant {
        Variant::Off => {
            let dim = Rgb(0x55, 0x59, 0x5e);
            format!(
                "{}{}",
                circle(cx, cy, m * 0.42, &dim.shade(0.35).hex(), ""),
                circle(
                    cx,
                    cy,
                    m * 0.3,
                    &dim.hex(),
                    &stroke(dim.shade(-0.4), 1.2 * px)
                )
            )
        }
        Variant::Dim if part.look == Look::Light => {
            let c = color.unwrap_or(Rgb(0x3c, 0xd0, 0x5a)).shade(-0.45);
            circle(cx, cy, m * 0.3, &c.hex(), &stroke(c.shade(-0.4), 1.2 * px))
        }
        Variant::Dim => format!(
            r##"{drawn}{}"##,
            rect(x, y, w, h, m * 0.2, "#ffd54f", r#"fill-opacity="0.3""#)
        ),
        Variant::Glow => format!(
            r##"{drawn}{}{}"##,
            rect(x, y, w, h, m * 0.2, "#ffd54f", r#"fill-opacity="0.55""#),
            format_args!(
                r##"<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="#fffbe6" fill-opacity="0.8"/>"##,
                num(cx),
                num(cy),
                num(w * 0.3),
                num(h * 0.3)
            )
        ),
        Variant::Spin => {
            let r = m / 2.0;
            let mut s = format!(
                r##"{drawn}<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="#8a939c" fill-opacity="0.45"/>"##,
                num(cx),
                num(cy),
                num(w * 0.48),
                num(h * 0.48)
            );
            for k in 0..3 {
                let a = f64::from(k) * 120.0;
                let (x1, y1) = polar(cx, cy, r * 0.8, a);
                let (x2, y2) = polar(cx, cy, r * 0.8, a + 70.0);
                s.push_str(&format!(
                    r##"<path d="M{} {} A{} {} 0 0 1 {} {}" fill="none" stroke="#ffffff" stroke-opacity="0.7" stroke-width="{}" stroke-linecap="round"/>"##,
                    num(x1),
                    num(y1),
                    num(r * 0.8),
                    num(r * 0.8),
                    num(x2),
                    num(y2),
                    num((m * 0.05).max(1.5 * px))
                ));
            }
            s
        }
        Variant::Plugged => format!(
            "{drawn}{}{}",
            rect(
                x + w * 0.08,
                y + h * 0.1,
                w * 0.84,
                h * 0.8,
                m * 0.2,
                "#3b3f45",
                r##"stroke="#15171a" stroke-width="1""##
            ),
            rect(
                x + w * 0.2,
                y + h * 0.22,
                w * 0.6,
                h * 0.16,
                m * 0.06,
                "#ffffff",
                r#"fill-opacity="0.3""#
            )
        ),
        Variant::Open { lift } => match part.look {
            Look::Door | Look::Drawer | Look::Porthole => {
                let c = color.unwrap_or(Rgb(0xd8, 0xd8, 0xd4));
                let edge = stroke(c.shade(-0.5), 2.0 * px);
                let panel = match (part.look, lift) {
                    (Look::Drawer, _) => format!(
                        "{}{}",
                        rect(x, y + h * 0.3, w, h * 0.7, m * 0.06, &c.hex(), &edge),
                        rect(
                            cx - w * 0.25,
                            y + h * 0.45,
                            w * 0.5,
                            h * 0.16,
                            h * 0.08,
                            &c.shade(-0.45).hex(),
                            ""
                        )
                    ),
                    (Look::Porthole, _) => format!(
                        r#"<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="{}" {edge}/>"#,
                        num(x + w * 0.14),
                        num(cy),
                        num(w * 0.13),
                        num(h * 0.48),
                        c.hex()
                    ),
                    (_, true) => rect(x, y, w, h * 0.3, m * 0.06, &c.hex(), &edge),
                    (_, false) => rect(x, y, w * 0.3, h, m * 0.06, &c.hex(), &edge),
                };
                panel
            }
            _ => {
                // Out of its seat: the empty seat, and the part smaller
                // (further away), still over it.
                format!(
                    r#"<g transform="translate({} {}) scale(0.7) translate({} {})">{drawn}</g>"#,
                    num(cx),
                    num(cy),
                    num(-cx),
                    num(-cy)
                )
            }
        },
        _ => drawn,
    }
}

fn look(
    part: &Part,
    variant: &Variant,
    (cx, cy, w, h): (f64, f64, f64, f64),
    color: Option<Rgb>,
    face: Rgb,
    px: f64,
) -> Result<Drawn, DrawError> {
    let (x, y) = (cx - w / 2.0, cy - h / 2.0);
    let m = w.min(h);
    let sw = num(1.2 * px);
    let mut print = String::new();
    let dark = Rgb(0x2b, 0x2e, 0x33);
    let drawn = super::looks::draw(
        &super::looks::Ctx {
            part,
            variant,
            cx,
            cy,
            w,
            h,
            x,
            y,
            m,
            sw: &sw,
            color,
            face,
            px,
            dark,
        },
        &mut print,
    )?;
    let icon_only = matches!(part.look, Look::Button | Look::RoundButton);
    if !icon_only && part.icon.is_some() && !matches!(part.look, Look::Display | Look::Text) {
        // A symbol beside the part, printed on the body.
        print.push_str(&glyph(
            part,
            cx,
            cy - h / 2.0 - 9.0 * px,
            12.0 * px,
            face.ink(),
        )?);
    }
    Ok(Drawn { part: drawn, print })
}
