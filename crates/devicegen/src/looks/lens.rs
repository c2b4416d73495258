//! A lens.

use super::*;

/// Draws the look `lens`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        cx,
        cy,
        m,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(Rgb(0x22, 0x22, 0x26));
    format!(
        "{}{}{}",
        circle(cx, cy, m / 2.0, &c.shade(0.3).hex(), &stroke(c, 2.0 * px)),
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
