//! A handle bar.

use super::*;

/// Draws the look `handle`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        m,
        sw,
        dark,
        color,
        ..
    } = *ctx;
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
