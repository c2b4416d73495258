//! Drawing a device in SVG: a body face, and each part on it, in the face's
//! own coordinates. A component is one `<g id="component">` holding exactly
//! the pixels of the part; its printed label and scale are drawn outside
//! it, so the component's box (measured on this group, [`super::render`])
//! is the part itself.
//!
//! `px` is the size of one output pixel in face units, so that strokes,
//! shadows and text keep their pixel size whatever the view's scale.

use super::desc::{Body, Face, Look, Part, Shape};
use super::icons::{icon, ICONS};
use super::svg::{escape, num, Rgb};

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
) -> Result<String, String> {
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
    pub part: String,
    pub print: String,
}

/// How a part is drawn in one state of the device (live pictures); the
/// static views draw every part [`Variant::Static`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Variant {
    /// As the description draws it.
    Static,
    /// A knob or dial pointing at this mark.
    Pointer(usize),
    /// A slide switch or lever at step `.0` of `.1` along its track.
    Thumb(u32, u32),
    /// A door, lid or drawer open (`lift`: hinged at its top edge, else at
    /// its left edge); any other part pulled out of its seat.
    Open { lift: bool },
    /// A plug in the port.
    Plugged,
    /// A display showing this text.
    Text(String),
    /// A dimmed display showing this text.
    DimText(String),
    /// A light lit dimly, a part glowing faintly.
    Dim,
    /// A display that is off.
    Blank,
    /// A light that is off.
    Off,
    /// A lamp lit, an element glowing.
    Glow,
    /// Blades spinning behind a grille, blurred.
    Spin,
}

/// Draws `part` on a face whose colour is `face_color`.
pub fn part(part: &Part, face_color: Rgb, px: f64) -> Result<PartSvg, String> {
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
) -> Result<PartSvg, String> {
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
            let screen = part
                .color
                .as_deref()
                .map(Rgb::parse)
                .transpose()?
                .unwrap_or(Rgb(0x9c, 0xc4, 0x9a));
            owned = Part {
                label: Some(t.clone()),
                color: Some(screen.shade(-0.35).hex()),
                ..part.clone()
            };
            &owned
        }
        Variant::Blank => {
            let screen = part
                .color
                .as_deref()
                .map(Rgb::parse)
                .transpose()?
                .unwrap_or(Rgb(0x9c, 0xc4, 0x9a));
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
        return Err(format!("size {w}×{h}: width and height must be positive"));
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

fn text(label: &str, x: f64, y: f64, size: f64, ink: Rgb) -> String {
    format!(
        r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" fill="{}">{}</text>"#,
        num(x),
        num(y),
        num(size),
        ink.hex(),
        escape(label)
    )
}

fn glyph(part: &Part, cx: f64, cy: f64, size: f64, color: Rgb) -> Result<String, String> {
    match part.icon.as_deref() {
        None => Ok(String::new()),
        Some(name) => icon(name, cx, cy, size, &color.hex()).ok_or_else(|| {
            format!(
                "icon {name:?} is unknown; the icons are: {}",
                ICONS.join(", ")
            )
        }),
    }
}

fn rect(x: f64, y: f64, w: f64, h: f64, r: f64, fill: &str, extra: &str) -> String {
    format!(
        r#"<rect x="{}" y="{}" width="{}" height="{}" rx="{}" fill="{fill}" {extra}/>"#,
        num(x),
        num(y),
        num(w),
        num(h),
        num(r)
    )
}

fn circle(cx: f64, cy: f64, r: f64, fill: &str, extra: &str) -> String {
    format!(
        r#"<circle cx="{}" cy="{}" r="{}" fill="{fill}" {extra}/>"#,
        num(cx),
        num(cy),
        num(r)
    )
}

/// Angle (degrees, 0 = up, clockwise) of scale mark `i` of `n` on a knob:
/// spread over 270°, as on an oven or a fan.
fn mark_angle(i: usize, n: usize) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    -135.0 + 270.0 * i as f64 / (n - 1) as f64
}

fn polar(cx: f64, cy: f64, r: f64, degrees: f64) -> (f64, f64) {
    let (s, c) = degrees.to_radians().sin_cos();
    (cx + r * s, cy - r * c)
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
                    &format!(
                        r#"stroke="{}" stroke-width="{}""#,
                        dim.shade(-0.4).hex(),
                        num(1.2 * px)
                    )
                )
            )
        }
        Variant::Dim if part.look == Look::Light => {
            let c = color.unwrap_or(Rgb(0x3c, 0xd0, 0x5a)).shade(-0.45);
            circle(
                cx,
                cy,
                m * 0.3,
                &c.hex(),
                &format!(
                    r#"stroke="{}" stroke-width="{}""#,
                    c.shade(-0.4).hex(),
                    num(1.2 * px)
                ),
            )
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
                let edge = format!(
                    r#"stroke="{}" stroke-width="{}""#,
                    c.shade(-0.5).hex(),
                    num(2.0 * px)
                );
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
) -> Result<Drawn, String> {
    let (x, y) = (cx - w / 2.0, cy - h / 2.0);
    let m = w.min(h);
    let sw = num(1.2 * px);
    let mut print = String::new();
    let dark = Rgb(0x2b, 0x2e, 0x33);
    let drawn = match part.look {
        Look::Button | Look::RoundButton => {
            let c = color.unwrap_or(dark);
            let shadow = c.shade(-0.45).hex();
            let (base, top) = if part.look == Look::Button {
                (
                    rect(x, y + 1.5 * px, w, h, m * 0.25, &shadow, ""),
                    rect(
                        x,
                        y,
                        w,
                        h - 1.5 * px,
                        m * 0.25,
                        &c.hex(),
                        &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
                    ),
                )
            } else {
                (
                    circle(cx, cy + 1.5 * px, m / 2.0, &shadow, ""),
                    circle(
                        cx,
                        cy,
                        m / 2.0 - 0.5 * px,
                        &c.hex(),
                        &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
                    ),
                )
            };
            let shine = rect(
                x + w * 0.15,
                y + h * 0.1,
                w * 0.7,
                h * 0.18,
                h * 0.09,
                "#ffffff",
                r#"fill-opacity="0.25""#,
            );
            format!(
                "{base}{top}{shine}{}",
                glyph(part, cx, cy, m * 0.55, c.ink())?
            )
        }
        Look::Rocker => {
            let c = color.unwrap_or(dark);
            let frame = rect(x, y, w, h, m * 0.15, &c.shade(-0.4).hex(), "");
            let up = rect(
                x + 2.0 * px,
                y + 2.0 * px,
                w - 4.0 * px,
                h / 2.0 - 2.0 * px,
                m * 0.1,
                &c.shade(0.15).hex(),
                "",
            );
            let down = rect(
                x + 2.0 * px,
                cy,
                w - 4.0 * px,
                h / 2.0 - 2.0 * px,
                m * 0.1,
                &c.hex(),
                "",
            );
            let marks = format!(
                r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/>{}"#,
                num(cx),
                num(y + h * 0.12),
                num(cx),
                num(y + h * 0.36),
                c.ink().hex(),
                num(m * 0.08),
                circle(
                    cx,
                    y + h * 0.75,
                    m * 0.12,
                    "none",
                    &format!(
                        r#"stroke="{}" stroke-width="{}""#,
                        c.ink().hex(),
                        num(m * 0.07)
                    )
                )
            );
            format!("{frame}{up}{down}{marks}")
        }
        Look::Slider | Look::Lever => {
            let c = color.unwrap_or(Rgb(0xe0, 0xe0, 0xe0));
            let vertical = h >= w;
            let track = rect(x, y, w, h, m * 0.5, &dark.hex(), "");
            let (tw, th) = if vertical {
                (w * 1.1, h * 0.42)
            } else {
                (w * 0.42, h * 1.1)
            };
            // How far along its track the thumb is (0 at the start).
            let t = match variant {
                Variant::Thumb(step, steps) if *steps > 0 => f64::from(*step) / f64::from(*steps),
                _ => 0.0,
            };
            let (tx, ty) = if vertical {
                (cx - tw / 2.0, y - h * 0.02 + t * (h * 1.04 - th))
            } else {
                (x - w * 0.02 + t * (w * 1.04 - tw), cy - th / 2.0)
            };
            let thumb = if part.look == Look::Lever {
                let (bx, by) = if vertical {
                    (cx, y + m * 0.5 + t * (h - m))
                } else {
                    (x + m * 0.5 + t * (w - m), cy)
                };
                circle(
                    bx,
                    by,
                    m * 0.75,
                    &c.hex(),
                    &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
                )
            } else {
                let grip = (1..4)
                    .map(|i| {
                        let f = i as f64 / 4.0;
                        if vertical {
                            format!(
                                r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{sw}"/>"#,
                                num(tx + tw * 0.2),
                                num(ty + th * f),
                                num(tx + tw * 0.8),
                                num(ty + th * f),
                                c.shade(-0.4).hex()
                            )
                        } else {
                            format!(
                                r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{sw}"/>"#,
                                num(tx + tw * f),
                                num(ty + th * 0.2),
                                num(tx + tw * f),
                                num(ty + th * 0.8),
                                c.shade(-0.4).hex()
                            )
                        }
                    })
                    .collect::<String>();
                format!(
                    "{}{grip}",
                    rect(
                        tx,
                        ty,
                        tw,
                        th,
                        m * 0.2,
                        &c.hex(),
                        &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex())
                    )
                )
            };
            // Position names beside the track, from its start to its end.
            let n = part.marks.len();
            for (i, mark) in part.marks.iter().enumerate() {
                let f = if n <= 1 {
                    0.0
                } else {
                    i as f64 / (n - 1) as f64
                };
                let (lx, ly) = if vertical {
                    (
                        x + w + 4.0 * px + mark.len() as f64 * 3.3 * px,
                        y + h * 0.1 + h * 0.8 * f + 4.0 * px,
                    )
                } else {
                    (x + w * 0.1 + w * 0.8 * f, y - 5.0 * px)
                };
                print.push_str(&text(mark, lx, ly, 10.0 * px, face.ink()));
            }
            format!("{track}{thumb}")
        }
        Look::Knob | Look::Dial => {
            let c = color.unwrap_or(dark);
            let n = part.marks.len();
            let knob_r = if part.look == Look::Knob {
                m * 0.34
            } else {
                m * 0.5
            };
            let ink = face.ink();
            for (i, mark) in part.marks.iter().enumerate() {
                let a = mark_angle(i, n);
                let (x1, y1) = polar(cx, cy, m * 0.38, a);
                let (x2, y2) = polar(cx, cy, m * 0.42, a);
                let tick = format!(
                    r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/>"#,
                    num(x1),
                    num(y1),
                    num(x2),
                    num(y2),
                    ink.hex(),
                    num(1.5 * px)
                );
                if part.look == Look::Knob {
                    let (lx, ly) = polar(cx, cy, m * 0.5 + 4.0 * px, a);
                    // Long words stand further out to the side, clear of the ticks.
                    let lx = lx + a.to_radians().sin() * mark.chars().count() as f64 * 2.6 * px;
                    print.push_str(&tick);
                    print.push_str(&text(mark, lx, ly + 4.0 * px, 10.0 * px, ink));
                }
            }
            let body = format!(
                "{}{}",
                circle(cx, cy + 2.0 * px, knob_r, &c.shade(-0.5).hex(), ""),
                circle(
                    cx,
                    cy,
                    knob_r,
                    &c.hex(),
                    &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex())
                )
            );
            let cap = circle(
                cx - knob_r * 0.15,
                cy - knob_r * 0.15,
                knob_r * 0.6,
                &c.shade(0.18).hex(),
                "",
            );
            let a = mark_angle(part.pointer.min(n.saturating_sub(1)), n);
            let (ix, iy) = polar(cx, cy, knob_r * 0.25, a);
            let (ox, oy) = polar(cx, cy, knob_r * 0.92, a);
            let pointer = format!(
                r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}" stroke-linecap="round"/>"#,
                num(ix),
                num(iy),
                num(ox),
                num(oy),
                c.ink().hex(),
                num(knob_r * 0.16)
            );
            let numbers: String = if part.look == Look::Dial {
                part.marks
                    .iter()
                    .enumerate()
                    .map(|(i, mark)| {
                        // The dial is turned so that its current mark sits under the index.
                        let a =
                            mark_angle(i, n) - mark_angle(part.pointer.min(n.saturating_sub(1)), n);
                        let (lx, ly) = polar(cx, cy, knob_r * 0.72, a);
                        text(mark, lx, ly + 3.5 * px, 9.0 * px, c.ink())
                    })
                    .collect()
            } else {
                String::new()
            };
            let pointer = if part.look == Look::Dial {
                print.push_str(&format!(
                    r#"<path d="M{} {} L{} {} L{} {} Z" fill="{}"/>"#,
                    num(cx - 5.0 * px),
                    num(cy - knob_r - 8.0 * px),
                    num(cx + 5.0 * px),
                    num(cy - knob_r - 8.0 * px),
                    num(cx),
                    num(cy - knob_r - 1.0 * px),
                    face.ink().hex()
                ));
                circle(cx, cy, knob_r * 0.3, &c.shade(0.25).hex(), "")
            } else {
                pointer
            };
            format!("{body}{cap}{numbers}{pointer}")
        }
        Look::Port => {
            let c = color.unwrap_or(Rgb(0x1a, 0x1a, 0x1a));
            format!(
                "{}{}",
                rect(
                    x,
                    y,
                    w,
                    h,
                    m * 0.3,
                    &c.shade(0.35).hex(),
                    &format!(r#"stroke="{}" stroke-width="{sw}""#, c.hex())
                ),
                rect(
                    x + w * 0.18,
                    y + h * 0.3,
                    w * 0.64,
                    h * 0.4,
                    m * 0.12,
                    &c.hex(),
                    ""
                )
            )
        }
        Look::Porthole => {
            let c = color.unwrap_or(face.shade(-0.08));
            let r = m / 2.0;
            format!(
                "{}{}{}{}",
                circle(
                    cx,
                    cy,
                    r,
                    &c.hex(),
                    &format!(
                        r#"stroke="{}" stroke-width="{}""#,
                        c.shade(-0.5).hex(),
                        num(2.0 * px)
                    )
                ),
                circle(
                    cx,
                    cy,
                    r * 0.72,
                    &Rgb(0x2c, 0x3e, 0x50).hex(),
                    &format!(
                        r#"stroke="{}" stroke-width="{}""#,
                        c.shade(0.3).hex(),
                        num(4.0 * px)
                    )
                ),
                format_args!(
                    r##"<path d="M{} {} A{} {} 0 0 1 {} {}" fill="none" stroke="#ffffff" stroke-opacity="0.35" stroke-width="{}" stroke-linecap="round"/>"##,
                    num(cx - r * 0.45),
                    num(cy - r * 0.3),
                    num(r * 0.55),
                    num(r * 0.55),
                    num(cx - r * 0.05),
                    num(cy - r * 0.55),
                    num(r * 0.08)
                ),
                rect(
                    cx + r * 0.78,
                    cy - r * 0.25,
                    r * 0.14,
                    r * 0.5,
                    r * 0.07,
                    &c.shade(-0.35).hex(),
                    ""
                )
            )
        }
        Look::Door | Look::Drawer => {
            let c = color.unwrap_or(face.shade(-0.06));
            let panel = rect(
                x,
                y,
                w,
                h,
                m * 0.06,
                &c.hex(),
                &format!(
                    r#"stroke="{}" stroke-width="{}""#,
                    c.shade(-0.5).hex(),
                    num(2.0 * px)
                ),
            );
            let inner = if part.look == Look::Door && m > 60.0 * px {
                rect(
                    x + w * 0.12,
                    y + h * 0.12,
                    w * 0.62,
                    h * 0.76,
                    m * 0.08,
                    &Rgb(0x30, 0x38, 0x40).hex(),
                    r#"fill-opacity="0.85""#,
                )
            } else {
                String::new()
            };
            let grip = if part.look == Look::Door {
                rect(
                    x + w * 0.82,
                    cy - h * 0.2,
                    w * 0.08,
                    h * 0.4,
                    w * 0.04,
                    &c.shade(-0.35).hex(),
                    "",
                )
            } else {
                rect(
                    cx - w * 0.25,
                    y + h * 0.22,
                    w * 0.5,
                    h * 0.22,
                    h * 0.1,
                    &c.shade(-0.45).hex(),
                    "",
                )
            };
            format!("{panel}{inner}{grip}")
        }
        Look::Handle => {
            let c = color.unwrap_or(dark);
            format!(
                "{}{}",
                rect(
                    x,
                    y,
                    w,
                    h,
                    m * 0.45,
                    &c.hex(),
                    &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex())
                ),
                rect(
                    x + w * 0.15,
                    y + h * 0.12,
                    w * 0.7,
                    h * 0.2,
                    m * 0.1,
                    "#ffffff",
                    r#"fill-opacity="0.25""#
                )
            )
        }
        Look::Chain => {
            let c = color.unwrap_or(Rgb(0xb8, 0x9a, 0x4a));
            let links = ((h - w) / (4.0 * px)).max(1.0) as usize;
            let mut s = String::new();
            for i in 0..links {
                s.push_str(&circle(
                    cx,
                    y + 2.0 * px + i as f64 * 4.0 * px,
                    1.6 * px,
                    &c.hex(),
                    "",
                ));
            }
            s.push_str(&circle(
                cx,
                y + h - w / 2.0,
                w / 2.0,
                &c.hex(),
                &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
            ));
            s
        }
        Look::Trigger => {
            let c = color.unwrap_or(dark);
            format!(
                r#"<path d="M{} {} L{} {} Q{} {} {} {} L{} {} Z" fill="{}" stroke="{}" stroke-width="{sw}"/>"#,
                num(x),
                num(y),
                num(x + w),
                num(y),
                num(x + w),
                num(y + h),
                num(x + w * 0.3),
                num(y + h),
                num(x),
                num(y + h * 0.35),
                c.hex(),
                c.shade(-0.5).hex()
            )
        }
        Look::Keypad => {
            let c = color.unwrap_or(Rgb(0xee, 0xee, 0xea));
            let keys: Vec<String> = if part.marks.is_empty() {
                "1 2 3 4 5 6 7 8 9 * 0 #"
                    .split(' ')
                    .map(String::from)
                    .collect()
            } else {
                part.marks.clone()
            };
            let cols = 3usize;
            let rows = keys.len().div_ceil(cols).max(1);
            let (kw, kh) = (w / cols as f64, h / rows as f64);
            let mut s = String::new();
            for (i, key) in keys.iter().enumerate() {
                let (kx, ky) = (x + (i % cols) as f64 * kw, y + (i / cols) as f64 * kh);
                s.push_str(&rect(
                    kx + kw * 0.08,
                    ky + kh * 0.08,
                    kw * 0.84,
                    kh * 0.84,
                    kh * 0.2,
                    &c.hex(),
                    &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
                ));
                s.push_str(&text(
                    key,
                    kx + kw / 2.0,
                    ky + kh / 2.0 + kh * 0.18,
                    kh * 0.45,
                    c.ink(),
                ));
            }
            s
        }
        Look::Wheel => {
            let c = color.unwrap_or(Rgb(0x70, 0x70, 0x70));
            let mut s = rect(
                x,
                y,
                w,
                h,
                m * 0.2,
                &c.hex(),
                &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
            );
            let ribs = (w / (4.0 * px)).max(2.0) as usize;
            for i in 1..ribs {
                let rx = x + w * i as f64 / ribs as f64;
                s.push_str(&format!(
                    r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{sw}"/>"#,
                    num(rx),
                    num(y + h * 0.1),
                    num(rx),
                    num(y + h * 0.9),
                    c.shade(-0.45).hex()
                ));
            }
            s
        }
        Look::Key => {
            let c = color.unwrap_or(Rgb(0xb0, 0x8d, 0x3c));
            // The two lobes of the grip, either side of the stem.
            let lobe = |dx: f64| {
                format!(
                    r#"<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="{}" stroke="{}" stroke-width="{sw}"/>"#,
                    num(cx + dx),
                    num(cy - h * 0.1),
                    num(w * 0.25),
                    num(h * 0.3),
                    c.hex(),
                    c.shade(-0.5).hex()
                )
            };
            format!(
                "{}{}{}",
                rect(
                    cx - w * 0.08,
                    cy,
                    w * 0.16,
                    h / 2.0,
                    w * 0.04,
                    &c.shade(-0.2).hex(),
                    ""
                ),
                lobe(-w * 0.25),
                lobe(w * 0.25)
            )
        }
        Look::Platform => {
            let c = color.unwrap_or(Rgb(0xdd, 0xe3, 0xe6));
            format!(
                "{}{}",
                rect(
                    x,
                    y,
                    w,
                    h,
                    m * 0.08,
                    &c.hex(),
                    &format!(
                        r#"stroke="{}" stroke-width="{}""#,
                        c.shade(-0.4).hex(),
                        num(2.0 * px)
                    )
                ),
                rect(
                    x + w * 0.06,
                    y + h * 0.06,
                    w * 0.88,
                    h * 0.3,
                    m * 0.05,
                    "#ffffff",
                    r#"fill-opacity="0.35""#
                )
            )
        }
        Look::Display => {
            let c = color.unwrap_or(Rgb(0x9c, 0xc4, 0x9a));
            let label = part.label.as_deref().unwrap_or("");
            let size = (h * 0.62).min(w * 1.6 / label.chars().count().max(1) as f64);
            format!(
                "{}{}{}",
                rect(x, y, w, h, m * 0.12, &dark.hex(), ""),
                rect(
                    x + 3.0 * px,
                    y + 3.0 * px,
                    w - 6.0 * px,
                    h - 6.0 * px,
                    m * 0.08,
                    &c.hex(),
                    ""
                ),
                text(label, cx, cy + size * 0.36, size, c.shade(-0.75))
            )
        }
        Look::Light => {
            let c = color.unwrap_or(Rgb(0x3c, 0xd0, 0x5a));
            format!(
                "{}{}",
                circle(cx, cy, m / 2.0, &c.hex(), r#"fill-opacity="0.3""#),
                circle(
                    cx,
                    cy,
                    m * 0.3,
                    &c.hex(),
                    &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.4).hex())
                )
            )
        }
        Look::Text => {
            let ink = color.unwrap_or(face.ink());
            text(
                part.label.as_deref().unwrap_or(""),
                cx,
                cy + h * 0.35,
                h,
                ink,
            )
        }
        Look::Grille => {
            let c = color.unwrap_or(face.shade(-0.5));
            let slots = (h / (6.0 * px)).max(2.0) as usize;
            (0..slots)
                .map(|i| {
                    rect(
                        x,
                        y + i as f64 * h / slots as f64,
                        w,
                        h / slots as f64 * 0.5,
                        h / slots as f64 * 0.25,
                        &c.hex(),
                        "",
                    )
                })
                .collect()
        }
        Look::Plate => {
            let c = color.unwrap_or(face.shade(-0.1));
            rect(
                x,
                y,
                w,
                h,
                m * 0.12,
                &c.hex(),
                &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.3).hex()),
            )
        }
        Look::Clock => {
            let c = color.unwrap_or(Rgb(0xfb, 0xf7, 0xee));
            let ink = c.ink();
            let r = m / 2.0;
            let mut s = circle(
                cx,
                cy,
                r,
                &c.hex(),
                &format!(
                    r#"stroke="{}" stroke-width="{}""#,
                    c.shade(-0.5).hex(),
                    num(3.0 * px)
                ),
            );
            for hour in 0..12 {
                let a = f64::from(hour) * 30.0;
                let (x1, y1) = polar(cx, cy, r * 0.86, a);
                let (x2, y2) = polar(cx, cy, r * 0.95, a);
                s.push_str(&format!(
                    r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/>"#,
                    num(x1),
                    num(y1),
                    num(x2),
                    num(y2),
                    ink.hex(),
                    num(2.0 * px)
                ));
            }
            for (i, mark) in part.marks.iter().enumerate() {
                let (lx, ly) = polar(cx, cy, r * 0.7, 360.0 * i as f64 / part.marks.len() as f64);
                s.push_str(&text(mark, lx, ly + r * 0.06, r * 0.18, ink));
            }
            let hand = |a: f64, len: f64, width: f64| {
                let (x, y) = polar(cx, cy, r * len, a);
                format!(
                    r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}" stroke-linecap="round"/>"#,
                    num(cx),
                    num(cy),
                    num(x),
                    num(y),
                    ink.hex(),
                    num(width)
                )
            };
            s.push_str(&hand(225.0, 0.5, r * 0.06));
            s.push_str(&hand(0.0, 0.75, r * 0.04));
            s.push_str(&format!(
                r##"<path d="M{} {} L{} {}" stroke="#c0392b" stroke-width="{}"/>"##,
                num(cx),
                num(cy),
                num(polar(cx, cy, r * 0.6, 90.0).0),
                num(polar(cx, cy, r * 0.6, 90.0).1),
                num(1.5 * px)
            ));
            s.push_str(&circle(cx, cy, r * 0.05, &ink.hex(), ""));
            s
        }
        Look::Lens => {
            let c = color.unwrap_or(Rgb(0x22, 0x22, 0x26));
            format!(
                "{}{}{}",
                circle(
                    cx,
                    cy,
                    m / 2.0,
                    &c.shade(0.3).hex(),
                    &format!(r#"stroke="{}" stroke-width="{}""#, c.hex(), num(2.0 * px))
                ),
                circle(cx, cy, m * 0.32, &c.hex(), ""),
                circle(
                    cx - m * 0.1,
                    cy - m * 0.1,
                    m * 0.08,
                    "#ffffff",
                    r#"fill-opacity="0.6""#
                )
            )
        }
    };
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
