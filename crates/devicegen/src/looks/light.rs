//! An indicator light (`color`).

use super::*;

/// Draws the look `light`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        cx,
        cy,
        m,
        sw,
        color,
        ..
    } = *ctx;
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
