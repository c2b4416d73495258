//! A ribbed wheel seen edge on.

use super::*;

/// Draws the look `wheel`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        m,
        sw,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(Rgb(0x70, 0x70, 0x70));
    let mut s = rect(
        x,
        y,
        w,
        h,
        m * 0.2,
        &c.hex(),
        &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
    );
    let ribs = (w / (4.0 * px)).max(2.0) as usize;
    for i in 1..ribs {
        let rx = x + w * i as f64 / ribs as f64;
        s.push_str(&format!(
            r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{sw}"/>"#,
            num(rx),
            num(y + h * 0.1),
            num(rx),
            num(y + h * 0.9),
            c.shade(-0.45).hex()
        ));
    }
    s
}
