//! A trigger under a grip.

use super::*;

/// Draws the look `trigger`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        w,
        h,
        x,
        y,
        sw,
        dark,
        color,
        ..
    } = *ctx;
    let c = color.unwrap_or(dark);
    format!(
        r#"<path d="M{} {} L{} {} Q{} {} {} {} L{} {} Z" fill="{}" stroke="{}" stroke-width="{sw}"/>"#,
        num(x),
        num(y),
        num(x + w),
        num(y),
        num(x + w),
        num(y + h),
        num(x + w * 0.3),
        num(y + h),
        num(x),
        num(y + h * 0.35),
        c.hex(),
        c.shade(-0.5).hex()
    )
}
