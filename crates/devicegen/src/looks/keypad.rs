//! A grid of keys.

use super::*;

/// Draws the look `keypad`.
pub(super) fn draw(ctx: &Ctx) -> String {
    let Ctx {
        part,
        w,
        h,
        x,
        y,
        sw,
        color,
        ..
    } = *ctx;
    let c = color.unwrap_or(Rgb(0xee, 0xee, 0xea));
    let keys: Vec<String> = if part.marks.is_empty() {
        "1 2 3 4 5 6 7 8 9 * 0 #"
            .split(' ')
            .map(String::from)
            .collect()
    } else {
        part.marks.clone()
    };
    let cols = 3usize;
    let rows = keys.len().div_ceil(cols).max(1);
    let (kw, kh) = (w / cols as f64, h / rows as f64);
    let mut s = String::new();
    for (i, key) in keys.iter().enumerate() {
        let (kx, ky) = (x + (i % cols) as f64 * kw, y + (i / cols) as f64 * kh);
        s.push_str(&rect(
            kx + kw * 0.08,
            ky + kh * 0.08,
            kw * 0.84,
            kh * 0.84,
            kh * 0.2,
            &c.hex(),
            &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex()),
        ));
        s.push_str(&text(
            key,
            kx + kw / 2.0,
            ky + kh / 2.0 + kh * 0.18,
            kh * 0.45,
            c.ink(),
        ));
    }
    s
}
