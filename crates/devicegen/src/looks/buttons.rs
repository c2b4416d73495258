//! `Button`: A rounded rectangular push button. `RoundButton`: A round push button.

use super::*;

/// Draws the looks `button`, `round_button`.
pub(super) fn draw(ctx: &Ctx) -> Result<String, UnknownIcon> {
    let Ctx {
        part,
        cx,
        cy,
        w,
        h,
        x,
        y,
        m,
        sw,
        dark,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(dark);
    let shadow = c.shade(-0.45).hex();
    let (base, top) = if part.look == Look::Button {
        (
            rect(x, y + 1.5 * px, w, h, m * 0.25, &shadow, ""),
            rect(
                x,
                y,
                w,
                h - 1.5 * px,
                m * 0.25,
                &c.hex(),
                &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
            ),
        )
    } else {
        (
            circle(cx, cy + 1.5 * px, m / 2.0, &shadow, ""),
            circle(
                cx,
                cy,
                m / 2.0 - 0.5 * px,
                &c.hex(),
                &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
            ),
        )
    };
    let shine = rect(
        x + w * 0.15,
        y + h * 0.1,
        w * 0.7,
        h * 0.18,
        h * 0.09,
        "#ffffff",
        r#"fill-opacity="0.25""#,
    );
    Ok(format!(
        "{base}{top}{shine}{}",
        glyph(part, cx, cy, m * 0.55, c.ink())?
    ))
}
