//! A round door with a glass window (a washing machine's).

use super::*;

/// Draws the look `porthole`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        cx,
        cy,
        m,
        face,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(face.shade(-0.08));
    let r = m / 2.0;
    format!(
        "{}{}{}{}",
        circle(cx, cy, r, &c.hex(), &stroke(c.shade(-0.5), 2.0 * px)),
        circle(
            cx,
            cy,
            r * 0.72,
            &Rgb(0x2c, 0x3e, 0x50).hex(),
            &stroke(c.shade(0.3), 4.0 * px)
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
