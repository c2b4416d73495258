//! A socket or port.

use super::*;

/// Draws the look `port`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        m,
        sw,
        color,
        ..
    } = *ctx;
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
