//! A rocker switch, pressed on one side.

use super::*;

/// Draws the look `rocker`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
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
    let c = color.unwrap_or(dark);
    let frame = rect(x, y, w, h, m * 0.15, &c.shade(-0.4).hex(), "");
    let up = rect(
        x + 2.0 * px,
        y + 2.0 * px,
        w - 4.0 * px,
        h / 2.0 - 2.0 * px,
        m * 0.1,
        &c.shade(0.15).hex(),
        "",
    );
    let down = rect(
        x + 2.0 * px,
        cy,
        w - 4.0 * px,
        h / 2.0 - 2.0 * px,
        m * 0.1,
        &c.hex(),
        "",
    );
    let marks = format!(
        r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}"/>{}"#,
        num(cx),
        num(y + h * 0.12),
        num(cx),
        num(y + h * 0.36),
        c.ink().hex(),
        num(m * 0.08),
        circle(
            cx,
            y + h * 0.75,
            m * 0.12,
            "none",
            &stroke(c.ink(), m * 0.07)
        )
    );
    format!("{frame}{up}{down}{marks}")
}
