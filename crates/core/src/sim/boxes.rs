//! Where each component is in each view, in pixels of the view's real
//! image (`specs/devices.md` section 1, "The state machine"), indexed
//! once per bundle for matching points.

use std::collections::BTreeMap;

use crate::bundle::model::Bundle;
use crate::geom::{PixelBox, PixelPoint};

/// One box of one component in one view.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentBox {
    /// The component's name.
    pub component: String,
    /// Its box, in pixels of the view's image.
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
    /// Builds the index from [`Bundle::component_boxes`], which owns the
    /// rule for turning `[x, y, w, h, W, H]` into pixels of the real image.
    /// Order inside a view: components by name, then their boxes in file order.
    pub fn build(bundle: &Bundle) -> ComponentBoxIndex {
        let views = bundle
            .views
            .keys()
            .map(|view| {
                let boxes = bundle
                    .component_boxes(view)
                    .into_iter()
                    .map(|(component, bbox)| ComponentBox {
                        component: component.to_string(),
                        bbox,
                    })
                    .collect();
                (view.clone(), boxes)
            })
            .collect();
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
