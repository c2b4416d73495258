//! A display showing `label`.

use super::*;

/// Draws the look `display`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        part,
        cx,
        cy,
        w,
        h,
        x,
        y,
        m,
        dark,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(SCREEN);
    let label = part.label.as_deref().unwrap_or("");
    let size = (h * 0.62).min(w * 1.6 / label.chars().count().max(1) as f64);
    format!(
        "{}{}{}",
        rect(x, y, w, h, m * 0.12, &dark.hex(), ""),
        rect(
            x + 3.0 * px,
            y + 3.0 * px,
            w - 6.0 * px,
            h - 6.0 * px,
            m * 0.08,
            &c.hex(),
            ""
        ),
        text(label, cx, cy + size * 0.36, size, c.shade(-0.75))
    )
}
