//! `Door`: A hinged door or cover: a panel with a seam and a grip. `Drawer`: A drawer, tray or basket front with a handle slot.

use super::*;

/// Draws the looks `door`, `drawer`.
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
        face,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(face.shade(-0.06));
    let panel = rect(
        x,
        y,
        w,
        h,
        m * 0.06,
        &c.hex(),
        &stroke(c.shade(-0.5), 2.0 * px),
    );
    let inner = if part.look == Look::Door && m > 60.0 * px {
        rect(
            x + w * 0.12,
            y + h * 0.12,
            w * 0.62,
            h * 0.76,
            m * 0.08,
            &Rgb(0x30, 0x38, 0x40).hex(),
            r#"fill-opacity="0.85""#,
        )
    } else {
        String::new()
    };
    let grip = if part.look == Look::Door {
        rect(
            x + w * 0.82,
            cy - h * 0.2,
            w * 0.08,
            h * 0.4,
            w * 0.04,
            &c.shade(-0.35).hex(),
            "",
        )
    } else {
        rect(
            cx - w * 0.25,
            y + h * 0.22,
            w * 0.5,
            h * 0.22,
            h * 0.1,
            &c.shade(-0.45).hex(),
            "",
        )
    };
    format!("{panel}{inner}{grip}")
}
