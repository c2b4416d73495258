//! `Knob`: A knob with a pointer and a scale. `Dial`: A large dial ring with numbers.

use super::*;

/// Draws the looks `knob`, `dial`.
pub(super) fn draw(ctx: &Ctx, print: &mut String) -> String {
    let Ctx {
        part,
        cx,
        cy,
        m,
        sw,
        dark,
        face,
        color,
        px,
        ..
    } = *ctx;
    let c = color.unwrap_or(dark);
    let n = part.marks.len();
    let knob_r = if part.look == Look::Knob {
        m * 0.34
    } else {
        m * 0.5
    };
    let ink = face.ink();
    for (i, mark) in part.marks.iter().enumerate() {
        let a = mark_angle(i, n);
        if part.look == Look::Knob {
            let (lx, ly) = polar(cx, cy, m * 0.5 + 4.0 * px, a);
            // Long words stand further out to the side, clear of the ticks.
            let lx = lx + a.to_radians().sin() * mark.chars().count() as f64 * 2.6 * px;
            print.push_str(&tick(cx, cy, m * 0.38, m * 0.42, a, ink, 1.5 * px));
            print.push_str(&text(mark, lx, ly + 4.0 * px, 10.0 * px, ink));
        }
    }
    let body = format!(
        "{}{}",
        circle(cx, cy + 2.0 * px, knob_r, &c.shade(-0.5).hex(), ""),
        circle(
            cx,
            cy,
            knob_r,
            &c.hex(),
            &format!(r#"stroke="{}" stroke-width="{sw}""#, c.shade(-0.5).hex())
        )
    );
    let cap = circle(
        cx - knob_r * 0.15,
        cy - knob_r * 0.15,
        knob_r * 0.6,
        &c.shade(0.18).hex(),
        "",
    );
    let a = mark_angle(part.pointer.min(n.saturating_sub(1)), n);
    let (ix, iy) = polar(cx, cy, knob_r * 0.25, a);
    let (ox, oy) = polar(cx, cy, knob_r * 0.92, a);
    let pointer = format!(
        r#"<path d="M{} {} L{} {}" stroke="{}" stroke-width="{}" stroke-linecap="round"/>"#,
        num(ix),
        num(iy),
        num(ox),
        num(oy),
        c.ink().hex(),
        num(knob_r * 0.16)
    );
    let numbers: String = if part.look == Look::Dial {
        part.marks
            .iter()
            .enumerate()
            .map(|(i, mark)| {
                // The dial is turned so that its current mark sits under the index.
                let a = mark_angle(i, n) - mark_angle(part.pointer.min(n.saturating_sub(1)), n);
                let (lx, ly) = polar(cx, cy, knob_r * 0.72, a);
                text(mark, lx, ly + 3.5 * px, 9.0 * px, c.ink())
            })
            .collect()
    } else {
        String::new()
    };
    let pointer = if part.look == Look::Dial {
        print.push_str(&format!(
            r#"<path d="M{} {} L{} {} L{} {} Z" fill="{}"/>"#,
            num(cx - 5.0 * px),
            num(cy - knob_r - 8.0 * px),
            num(cx + 5.0 * px),
            num(cy - knob_r - 8.0 * px),
            num(cx),
            num(cy - knob_r - 1.0 * px),
            face.ink().hex()
        ));
        circle(cx, cy, knob_r * 0.3, &c.shade(0.25).hex(), "")
    } else {
        pointer
    };
    format!("{body}{cap}{numbers}{pointer}")
}

/// Angle (degrees, 0 = up, clockwise) of scale mark `i` of `n` on a knob:
/// spread over 270°, as on an oven or a fan.
fn mark_angle(i: usize, n: usize) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    -135.0 + 270.0 * i as f64 / (n - 1) as f64
}
