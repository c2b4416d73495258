//! A flat coloured panel.

use super::*;

/// Draws the look `plate`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        m,
        sw,
        face,
        color,
        ..
    } = *ctx;
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
