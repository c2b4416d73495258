//! A flat platform or plate.

use super::*;

/// Draws the look `platform`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        m,
        color,
        px,
        ..
    } = *ctx;
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
            &stroke(c.shade(-0.4), 2.0 * px)
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
