//! Printed text (`label`).

use super::*;

/// Draws the look `text`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        part,
        cx,
        cy,
        h,
        face,
        color,
        ..
    } = *ctx;
    let ink = color.unwrap_or(face.ink());
    text(
        part.label.as_deref().unwrap_or(""),
        cx,
        cy + h * 0.35,
        h,
        ink,
    )
}
