//! Where each component is in each view, in pixels of the view's real
//! image (`specs/devices.md` section 1, "The state machine").

use std::collections::{BTreeMap, BTreeSet};

use crate::bundle::model::{BboxOrigin, Bundle, IMMEDIATE, TIMED_WAIT};
use crate::geom::{PixelBox, PixelPoint};

/// One box of one component in one view.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentBox {
    pub component: String,
    pub bbox: PixelBox,
}

/// The simulator's index of component boxes: for each view, the boxes of
/// every component, built once per bundle.
///
/// A component's boxes in a view are the union over all its transitions in
/// all states (a component is where it is, whatever the state), deduplicated,
/// converted from `[x, y, w, h, W, H]` (with `bbox_origin`) to a top-left
/// box and scaled from the declared W×H to the view image's real size.
/// Boxes on views the bundle has no image for are left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ComponentBoxIndex {
    views: BTreeMap<String, Vec<ComponentBox>>,
}

impl ComponentBoxIndex {
    /// Builds the index. Order inside a view: components by name, then
    /// boxes in the order they first appear in the SSM (states by name).
    pub fn build(bundle: &Bundle) -> ComponentBoxIndex {
        let mut seen: BTreeSet<(String, String, [u64; 6])> = BTreeSet::new();
        let mut per_component: BTreeMap<&str, Vec<(&str, PixelBox)>> = BTreeMap::new();
        for state in bundle.ssm.states.values() {
            for (component, transitions) in &state.on {
                if component == IMMEDIATE || component == TIMED_WAIT {
                    continue;
                }
                for t in transitions {
                    for vb in &t.bbox {
                        let Some(view) = bundle.views.get(&vb.view) else {
                            continue;
                        };
                        let key = (
                            component.clone(),
                            vb.view.clone(),
                            vb.coordinate.map(f64::to_bits),
                        );
                        if !seen.insert(key) {
                            continue;
                        }
                        let b = pixel_box(
                            vb.coordinate,
                            bundle.manifest.bbox_origin,
                            view.image.width,
                            view.image.height,
                        );
                        per_component
                            .entry(component.as_str())
                            .or_default()
                            .push((vb.view.as_str(), b));
                    }
                }
            }
        }
        let mut views: BTreeMap<String, Vec<ComponentBox>> = BTreeMap::new();
        for (component, boxes) in per_component {
            for (view, bbox) in boxes {
                views
                    .entry(view.to_string())
                    .or_default()
                    .push(ComponentBox {
                        component: component.to_string(),
                        bbox,
                    });
            }
        }
        ComponentBoxIndex { views }
    }

    /// The boxes in a view (empty for a view with none).
    pub fn in_view(&self, view: &str) -> &[ComponentBox] {
        self.views.get(view).map_or(&[], Vec::as_slice)
    }

    /// The component whose box in `view` contains the pixel.
    ///
    /// **Decision:** if several do, the smallest box wins. (Equal areas:
    /// the first in the index's order.)
    pub fn component_at(&self, view: &str, p: PixelPoint) -> Option<&str> {
        smallest_containing(self.in_view(view).iter().map(|b| (&b.bbox, b)), p)
            .map(|b| b.component.as_str())
    }
}

/// The smallest box containing the point; the first one on equal areas.
pub(crate) fn smallest_containing<'a, T>(
    boxes: impl Iterator<Item = (&'a PixelBox, T)>,
    p: PixelPoint,
) -> Option<T> {
    let mut best: Option<(f64, T)> = None;
    for (b, item) in boxes {
        if b.contains(p) && best.as_ref().is_none_or(|(area, _)| b.area() < *area) {
            best = Some((b.area(), item));
        }
    }
    best.map(|(_, item)| item)
}

/// `[x, y, w, h, W, H]` as a top-left box in pixels of a `width` × `height`
/// image. A declared size of zero is taken as the real size.
///
/// **Decision:** x, y is the top-left corner (the COCO convention); the
/// published description does not say, so the manifest may declare
/// `"bbox_origin": "center"` for data that means the centre. If the view
/// image's real size differs from W×H, boxes are scaled to it.
pub fn pixel_box(coordinate: [f64; 6], origin: BboxOrigin, width: u32, height: u32) -> PixelBox {
    let [x, y, w, h, declared_w, declared_h] = coordinate;
    let (x, y) = match origin {
        BboxOrigin::TopLeft => (x, y),
        BboxOrigin::Center => (x - w / 2.0, y - h / 2.0),
    };
    let sx = if declared_w > 0.0 {
        f64::from(width) / declared_w
    } else {
        1.0
    };
    let sy = if declared_h > 0.0 {
        f64::from(height) / declared_h
    } else {
        1.0
    };
    PixelBox {
        x: x * sx,
        y: y * sy,
        w: w * sx,
        h: h * sy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_origin_moves_the_box_by_half_its_size() {
        let b = pixel_box(
            [100.0, 100.0, 20.0, 10.0, 200.0, 200.0],
            BboxOrigin::Center,
            400,
            400,
        );
        assert_eq!(
            b,
            PixelBox {
                x: 180.0,
                y: 190.0,
                w: 40.0,
                h: 20.0
            }
        );
    }
}
