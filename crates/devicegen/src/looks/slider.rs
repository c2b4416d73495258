//! `Slider`: A slide switch: a track with a thumb (vertical when taller than wide). `Lever`: A lever with a knob at its end.

use super::*;

/// Draws the looks `slider`, `lever`.
pub(super) fn draw(ctx: &Ctx, print: &mut String) -> String {
    let Ctx {
        part,
        variant,
        cx,
        cy,
        w,
        h,
        x,
        y,
        m,
        sw,
        dark,
        face,
        color,
        px,
        ..
    } = *ctx;
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
