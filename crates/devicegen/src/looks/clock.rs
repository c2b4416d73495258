//! An analogue clock face with hands.

use super::*;

/// Draws the look `clock`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        part,
        cx,
        cy,
        m,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(Rgb(0xfb, 0xf7, 0xee));
    let ink = c.ink();
    let r = m / 2.0;
    let mut s = circle(cx, cy, r, &c.hex(), &stroke(c.shade(-0.5), 3.0 * px));
    for hour in 0..12 {
        let a = f64::from(hour) * 30.0;
        s.push_str(&tick(cx, cy, r * 0.86, r * 0.95, a, ink, 2.0 * px));
    }
    for (i, mark) in part.marks.iter().enumerate() {
        let (lx, ly) = polar(cx, cy, r * 0.7, 360.0 * i as f64 / part.marks.len() as f64);
        s.push_str(&text(mark, lx, ly + r * 0.06, r * 0.18, ink));
    }
    let hand = |a: f64, len: f64, width: f64| {
        let (x, y) = polar(cx, cy, r * len, a);
        format!(
            r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}" stroke-linecap="round"/>"#,
            num(cx),
            num(cy),
            num(x),
            num(y),
            ink.hex(),
            num(width)
        )
    };
    s.push_str(&hand(225.0, 0.5, r * 0.06));
    s.push_str(&hand(0.0, 0.75, r * 0.04));
    s.push_str(&format!(
        r##"<path d="M{} {} L{} {}" stroke="#c0392b" stroke-width="{}"/>"##,
        num(cx),
        num(cy),
        num(polar(cx, cy, r * 0.6, 90.0).0),
        num(polar(cx, cy, r * 0.6, 90.0).1),
        num(1.5 * px)
    ));
    s.push_str(&circle(cx, cy, r * 0.05, &ink.hex(), ""));
    s
}
