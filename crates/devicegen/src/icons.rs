//! Symbols printed on parts, as real appliances have them: power, play,
//! a moon for sleep, a fan, a flame… Each is SVG drawn in a box of side
//! `size` centred on (`cx`, `cy`), in face units, stroked in `color`.

use super::desc::Part;
use super::svg::{num, Rgb};

/// The names [`icon`] knows, for error messages.
pub const ICONS: [&str; 24] = [
    "power", "play", "stop", "pause", "plus", "minus", "moon", "fan", "flame", "snow", "lock",
    "unlock", "timer", "bulb", "drop", "bell", "phone", "mute", "trash", "camera", "menu", "bolt",
    "cup", "wave",
];

/// A part names an icon that [`ICONS`] does not list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("icon {name:?} is unknown; the icons are: {}", ICONS.join(", "))]
pub struct UnknownIcon {
    /// The name as written.
    pub name: String,
}

/// The icon a part names (`part.icon`), centred on (`cx`, `cy`) in a box
/// of side `size`; nothing when the part names none.
pub(super) fn glyph(
    part: &Part,
    cx: f64,
    cy: f64,
    size: f64,
    color: Rgb,
) -> Result<String, UnknownIcon> {
    match part.icon.as_deref() {
        None => Ok(String::new()),
        Some(name) => icon(name, cx, cy, size, &color.hex()).ok_or_else(|| UnknownIcon {
            name: name.to_string(),
        }),
    }
}

/// The SVG of icon `name`, or `None` when there is no such icon.
pub fn icon(name: &str, cx: f64, cy: f64, size: f64, color: &str) -> Option<String> {
    let r = size / 2.0;
    let p = |x: f64, y: f64| format!("{} {}", num(cx + x * r), num(cy + y * r));
    let sw = num(size * 0.12);
    let stroke = format!(
        r#"fill="none" stroke="{color}" stroke-width="{sw}" stroke-linecap="round" stroke-linejoin="round""#
    );
    let fill = format!(r#"fill="{color}""#);
    let path = |d: String, style: &str| format!(r#"<path d="{d}" {style}/>"#);
    Some(match name {
        "power" => format!(
            "{}{}",
            path(
                format!(
                    "M{} A{} {} 0 1 0 {}",
                    p(-0.5, -0.55),
                    num(r * 0.8),
                    num(r * 0.8),
                    p(0.5, -0.55)
                ),
                &stroke
            ),
            path(format!("M{} L{}", p(0.0, -0.9), p(0.0, -0.1)), &stroke)
        ),
        "play" => path(
            format!("M{} L{} L{} Z", p(-0.45, -0.7), p(0.7, 0.0), p(-0.45, 0.7)),
            &fill,
        ),
        "stop" => path(
            format!(
                "M{} L{} L{} L{} Z",
                p(-0.6, -0.6),
                p(0.6, -0.6),
                p(0.6, 0.6),
                p(-0.6, 0.6)
            ),
            &fill,
        ),
        "pause" => format!(
            "{}{}",
            path(format!("M{} L{}", p(-0.35, -0.65), p(-0.35, 0.65)), &stroke),
            path(format!("M{} L{}", p(0.35, -0.65), p(0.35, 0.65)), &stroke)
        ),
        "plus" => path(
            format!(
                "M{} L{} M{} L{}",
                p(-0.7, 0.0),
                p(0.7, 0.0),
                p(0.0, -0.7),
                p(0.0, 0.7)
            ),
            &stroke,
        ),
        "minus" => path(format!("M{} L{}", p(-0.7, 0.0), p(0.7, 0.0)), &stroke),
        "moon" => path(
            format!(
                "M{} A{} {} 0 1 0 {} A{} {} 0 0 1 {} Z",
                p(0.2, -0.8),
                num(r * 0.8),
                num(r * 0.8),
                p(0.75, 0.35),
                num(r * 0.6),
                num(r * 0.6),
                p(0.2, -0.8)
            ),
            &fill,
        ),
        "fan" => {
            let blade = |a: f64| {
                let (s, c) = a.to_radians().sin_cos();
                let (s2, c2) = (a + 50.0).to_radians().sin_cos();
                path(
                    format!(
                        "M{} Q{} {} Z",
                        p(0.0, 0.0),
                        p(c * 0.9, s * 0.9),
                        p(c2 * 0.8, s2 * 0.8)
                    ),
                    &fill,
                )
            };
            [0.0, 120.0, 240.0].iter().map(|a| blade(*a)).collect()
        }
        // A flame with a tongue to one side and a hollow core, so it does
        // not read as a drop.
        "flame" => {
            path(
                format!(
                "M{} C{} {} {} C{} {} {} C{} {} {} C{} {} {} C{} {} {} Z M{} C{} {} {} C{} {} {} Z",
                p(0.05, -0.95), p(0.2, -0.45), p(0.75, -0.3), p(0.62, 0.35),
                p(0.55, 0.78), p(0.25, 0.92), p(0.0, 0.92),
                p(-0.35, 0.92), p(-0.68, 0.65), p(-0.62, 0.22),
                p(-0.58, -0.12), p(-0.35, -0.2), p(-0.3, -0.5),
                p(-0.12, -0.3), p(-0.05, -0.55), p(0.05, -0.95),
                p(0.0, 0.1), p(0.25, 0.35), p(0.25, 0.7), p(0.0, 0.72),
                p(-0.25, 0.7), p(-0.25, 0.35), p(0.0, 0.1)
            ),
                &format!(r#"{fill} fill-rule="evenodd""#),
            )
        }
        "snow" => path(
            format!(
                "M{} L{} M{} L{} M{} L{}",
                p(0.0, -0.8),
                p(0.0, 0.8),
                p(-0.7, -0.4),
                p(0.7, 0.4),
                p(-0.7, 0.4),
                p(0.7, -0.4)
            ),
            &stroke,
        ),
        "lock" | "unlock" => {
            let shackle = if name == "lock" {
                format!(
                    "M{} L{} A{} {} 0 0 1 {} L{}",
                    p(-0.4, 0.0),
                    p(-0.4, -0.4),
                    num(r * 0.4),
                    num(r * 0.4),
                    p(0.4, -0.4),
                    p(0.4, 0.0)
                )
            } else {
                format!(
                    "M{} L{} A{} {} 0 0 1 {}",
                    p(-0.4, 0.0),
                    p(-0.4, -0.5),
                    num(r * 0.4),
                    num(r * 0.4),
                    p(0.4, -0.5)
                )
            };
            format!(
                "{}{}",
                path(shackle, &stroke),
                path(
                    format!(
                        "M{} L{} L{} L{} Z",
                        p(-0.65, 0.0),
                        p(0.65, 0.0),
                        p(0.65, 0.8),
                        p(-0.65, 0.8)
                    ),
                    &fill
                )
            )
        }
        "timer" => format!(
            r#"<circle cx="{}" cy="{}" r="{}" {stroke}/>{}"#,
            num(cx),
            num(cy),
            num(r * 0.75),
            path(
                format!("M{} L{} L{}", p(0.0, -0.45), p(0.0, 0.0), p(0.35, 0.2)),
                &stroke
            )
        ),
        "bulb" => format!(
            r#"<circle cx="{}" cy="{}" r="{}" {stroke}/>{}"#,
            num(cx),
            num(cy - r * 0.2),
            num(r * 0.5),
            path(
                format!(
                    "M{} L{} M{} L{}",
                    p(-0.25, 0.55),
                    p(0.25, 0.55),
                    p(-0.18, 0.8),
                    p(0.18, 0.8)
                ),
                &stroke
            )
        ),
        "drop" => path(
            format!(
                "M{} C{} {} {} C{} {} {} Z",
                p(0.0, -0.9),
                p(0.8, 0.0),
                p(0.6, 0.8),
                p(0.0, 0.8),
                p(-0.6, 0.8),
                p(-0.8, 0.0),
                p(0.0, -0.9)
            ),
            &fill,
        ),
        "bell" => path(
            format!(
                "M{} C{} {} {} L{} L{} C{} {} {} Z M{} L{}",
                p(-0.6, 0.45),
                p(-0.6, -0.7),
                p(0.6, -0.7),
                p(0.6, 0.45),
                p(0.75, 0.6),
                p(-0.75, 0.6),
                p(-0.75, 0.6),
                p(-0.75, 0.6),
                p(-0.6, 0.45),
                p(-0.15, 0.8),
                p(0.15, 0.8)
            ),
            &stroke,
        ),
        "phone" => path(
            format!(
                "M{} C{} {} {} L{} C{} {} {} Z",
                p(-0.7, -0.5),
                p(-0.7, 0.4),
                p(0.0, 0.8),
                p(0.6, 0.7),
                p(0.4, 0.3),
                p(0.1, 0.4),
                p(-0.3, 0.0),
                p(-0.3, -0.3)
            ),
            &fill,
        ),
        "mute" => format!(
            "{}{}",
            path(
                format!(
                    "M{} L{} L{} L{} L{} L{} Z",
                    p(-0.8, -0.25),
                    p(-0.45, -0.25),
                    p(0.0, -0.7),
                    p(0.0, 0.7),
                    p(-0.45, 0.25),
                    p(-0.8, 0.25)
                ),
                &fill
            ),
            path(
                format!(
                    "M{} L{} M{} L{}",
                    p(0.25, -0.3),
                    p(0.8, 0.3),
                    p(0.25, 0.3),
                    p(0.8, -0.3)
                ),
                &stroke
            )
        ),
        "trash" => path(
            format!(
                "M{} L{} M{} L{} L{} L{} M{} L{}",
                p(-0.7, -0.55),
                p(0.7, -0.55),
                p(-0.5, -0.5),
                p(-0.4, 0.8),
                p(0.4, 0.8),
                p(0.5, -0.5),
                p(-0.2, -0.75),
                p(0.2, -0.75)
            ),
            &stroke,
        ),
        "camera" => format!(
            r#"{}<circle cx="{}" cy="{}" r="{}" fill="none" stroke="{color}" stroke-width="{sw}"/>"#,
            path(
                format!(
                    "M{} L{} L{} L{} L{} L{} L{} Z",
                    p(-0.85, -0.4),
                    p(-0.35, -0.4),
                    p(-0.2, -0.65),
                    p(0.2, -0.65),
                    p(0.35, -0.4),
                    p(0.85, -0.4),
                    p(0.85, 0.65)
                ),
                &stroke
            ),
            num(cx),
            num(cy + r * 0.1),
            num(r * 0.3)
        ),
        "menu" => path(
            format!(
                "M{} L{} M{} L{} M{} L{}",
                p(-0.7, -0.5),
                p(0.7, -0.5),
                p(-0.7, 0.0),
                p(0.7, 0.0),
                p(-0.7, 0.5),
                p(0.7, 0.5)
            ),
            &stroke,
        ),
        "bolt" => path(
            format!(
                "M{} L{} L{} L{} L{} L{} Z",
                p(0.15, -0.9),
                p(-0.5, 0.1),
                p(-0.05, 0.1),
                p(-0.2, 0.9),
                p(0.5, -0.15),
                p(0.05, -0.15)
            ),
            &fill,
        ),
        "cup" => path(
            format!(
                "M{} L{} L{} L{} Z M{} A{} {} 0 0 1 {}",
                p(-0.6, -0.5),
                p(0.4, -0.5),
                p(0.3, 0.7),
                p(-0.5, 0.7),
                p(0.4, -0.3),
                num(r * 0.3),
                num(r * 0.3),
                p(0.4, 0.3)
            ),
            &stroke,
        ),
        "wave" => path(
            format!(
                "M{} Q{} {} T{} T{}",
                p(-0.8, 0.0),
                p(-0.6, -0.5),
                p(-0.4, 0.0),
                p(0.0, 0.0),
                p(0.8, 0.0)
            ),
            &stroke,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_icon_draws_and_others_do_not() {
        for name in ICONS {
            let svg = icon(name, 10.0, 10.0, 8.0, "#fff").unwrap();
            assert!(svg.starts_with('<'), "{name}: {svg}");
        }
        assert!(icon("teapot", 0.0, 0.0, 1.0, "#fff").is_none());
    }
}
