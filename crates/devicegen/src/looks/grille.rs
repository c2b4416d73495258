//! A vent grille.

use super::*;

/// Draws the look `grille`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        face,
        color,
        px,
        ..
    } = *ctx;
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
