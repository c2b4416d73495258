//! A pull chain with a bead.

use super::*;

/// Draws the look `chain`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        cx,
        w,
        h,
        y,
        sw,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(Rgb(0xb8, 0x9a, 0x4a));
    let links = ((h - w) / (4.0 * px)).max(1.0) as usize;
    let mut s = String::new();
    for i in 0..links {
        s.push_str(&circle(
            cx,
            y + 2.0 * px + i as f64 * 4.0 * px,
            1.6 * px,
            &c.hex(),
            "",
        ));
    }
    s.push_str(&circle(
        cx,
        y + h - w / 2.0,
        w / 2.0,
        &c.hex(),
        &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
    ));
    s
}
