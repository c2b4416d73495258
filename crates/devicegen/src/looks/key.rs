//! A winding key.

use super::*;

/// Draws the look `key`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        cx,
        cy,
        w,
        h,
        sw,
        color,
        ..
    } = *ctx;
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
