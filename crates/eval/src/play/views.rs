//! What the player draws about views: the tabs (which views exist, in the
//! order an agent is given them, which are look-only, which is locked), and
//! on a picture the locked dashboard's region and, in practice, the parts'
//! boxes, all as fractions of the picture so any displayed size fits.

use serde::Serialize;

use knoblab_core::bundle::{Bundle, ViewKind};
use knoblab_core::geom::PixelBox;
use knoblab_core::sim::Device;

/// One view tab.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ViewTab {
    /// The view's name in the bundle.
    pub name: String,
    /// Its kind: orthographic, axonometric (look only) or a dashboard.
    pub kind: ViewKind,
    /// Axonometric: physical actions are refused there.
    pub look_only: bool,
    /// The dashboard while it is still locked.
    pub locked: bool,
}

/// The tabs of a bundle's views, in listing order.
pub fn view_tabs(bundle: &Bundle, dashboard_unlocked: bool) -> Vec<ViewTab> {
    Device::new(bundle)
        .views
        .iter()
        .map(|v| ViewTab {
            name: v.name.to_string(),
            kind: v.kind,
            look_only: v.kind == ViewKind::Axonometric,
            locked: v.kind == ViewKind::Dashboard && !dashboard_unlocked,
        })
        .collect()
}

/// A box as fractions of its picture's width and height (0–1), for drawing
/// over a picture shown at any size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FractionBox {
    /// The left edge, as a fraction of the width.
    pub left: f64,
    /// The top edge, as a fraction of the height.
    pub top: f64,
    /// The width, as a fraction of the picture's.
    pub width: f64,
    /// The height, as a fraction of the picture's.
    pub height: f64,
}

impl FractionBox {
    fn of(b: PixelBox, width: u32, height: u32) -> FractionBox {
        let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
        FractionBox {
            left: b.x / w,
            top: b.y / h,
            width: b.w / w,
            height: b.h / h,
        }
    }
}

/// The region of `view`'s picture that the dashboard magnifies, when
/// `view` is the dashboard's parent.
pub fn dashboard_region(bundle: &Bundle, view: &str) -> Option<FractionBox> {
    let device = Device::new(bundle);
    let d = device.dashboard?;
    let parent = device.views.get(d.parent)?;
    (parent.name == view).then(|| FractionBox::of(d.region, parent.width, parent.height))
}

/// Every part's box on `view`'s picture, with the part's name: the answer
/// overlay that practice may reveal (names are otherwise never shown).
pub fn part_boxes(bundle: &Bundle, view: &str) -> Vec<(String, FractionBox)> {
    let device = Device::new(bundle);
    let Some(v) = device.views.iter().find(|v| v.name == view) else {
        return Vec::new();
    };
    v.boxes
        .iter()
        .filter_map(|&(c, b)| {
            let name = device.components.get(c)?;
            Some((name.to_string(), FractionBox::of(b, v.width, v.height)))
        })
        .collect()
}

/// [`part_boxes`] as the picture of `state` in `mode` shows them: in live
/// mode a part that moved (an open door) has its box where it is now
/// ([`knoblab_core::sim::render::live_boxes`]).
pub fn part_boxes_in(
    bundle: &Bundle,
    view: &str,
    state: &str,
    mode: knoblab_core::sim::RenderMode,
) -> Vec<(String, FractionBox)> {
    let Some(image) = bundle.views.get(view).map(|v| &v.image) else {
        return Vec::new();
    };
    knoblab_core::sim::render::live_boxes(bundle, state, view, mode)
        .into_iter()
        .map(|(name, b)| {
            (
                name.to_string(),
                FractionBox::of(b, image.width, image.height),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::kettle;

    #[test]
    fn tabs_mark_look_only_and_locked_views() {
        let bundle = kettle();
        let tabs = view_tabs(&bundle, false);
        assert_eq!(tabs[0].name, "front");
        let axo = tabs.iter().find(|t| t.name == "front_top").unwrap();
        assert!(axo.look_only && !axo.locked);
        let dash = tabs.iter().find(|t| t.name == "dashboard").unwrap();
        assert!(dash.locked && !dash.look_only);
        assert!(!view_tabs(&bundle, true).iter().any(|t| t.locked));
    }

    #[test]
    fn the_dashboard_region_is_drawn_on_its_parent_only() {
        let bundle = kettle();
        let r = dashboard_region(&bundle, "front").unwrap();
        assert!(r.left > 0.0 && r.left + r.width <= 1.0 && r.top + r.height <= 1.0);
        assert_eq!(dashboard_region(&bundle, "top"), None);
    }

    #[test]
    fn part_boxes_fit_their_picture() {
        let bundle = kettle();
        let boxes = part_boxes(&bundle, "front");
        assert!(boxes.iter().any(|(n, _)| n == "power_button"));
        for (_, b) in &boxes {
            assert!(b.left >= 0.0 && b.left + b.width <= 1.0 + 1e-9);
        }
        assert!(part_boxes(&bundle, "nowhere").is_empty());
    }
}
