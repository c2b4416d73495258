//! Where things are in a loaded bundle's pictures, in real image pixels:
//! what the simulator matches points against and the page draws.

use std::collections::BTreeSet;

use crate::geom::PixelBox;

use super::image::encode_data_url;
use super::model::{
    BboxOrigin, Bundle, Task, Transition, ViewBox, ViewKind, IMMEDIATE, TIMED_WAIT,
};

impl ViewBox {
    /// The box in pixels of a `width` × `height` image, its top-left corner
    /// first (the [`PixelBox`] convention).
    ///
    /// **Decision:** x, y is the top-left corner (the COCO convention); the
    /// published description does not say, so the manifest may declare
    /// `"bbox_origin": "center"` for data that means the centre. If the view
    /// image's real size differs from W×H, boxes are scaled to it.
    ///
    /// ```
    /// use knoblab_core::bundle::{BboxOrigin, ViewBox};
    /// use knoblab_core::geom::PixelBox;
    /// let b = ViewBox { coordinate: [100.0, 50.0, 20.0, 10.0, 1000.0, 500.0], view: "front".into() };
    /// // Declared for 1000×500, shown at 500×250: everything halves.
    /// assert_eq!(b.to_pixels(BboxOrigin::TopLeft, 500, 250),
    ///            PixelBox { x: 50.0, y: 25.0, w: 10.0, h: 5.0 });
    /// // The same numbers read as a centre.
    /// assert_eq!(b.to_pixels(BboxOrigin::Center, 1000, 500),
    ///            PixelBox { x: 90.0, y: 45.0, w: 20.0, h: 10.0 });
    /// ```
    pub fn to_pixels(&self, origin: BboxOrigin, width: u32, height: u32) -> PixelBox {
        let [x, y, w, h, declared_w, declared_h] = self.coordinate;
        let (left, top) = match origin {
            BboxOrigin::TopLeft => (x, y),
            BboxOrigin::Center => (x - w / 2.0, y - h / 2.0),
        };
        // A non-positive declared size (refused by validation) leaves the box unscaled.
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
            x: left * sx,
            y: top * sy,
            w: w * sx,
            h: h * sy,
        }
    }
}

impl Bundle {
    /// Every component's boxes in `view`, in pixels of that view's real
    /// image: what a point on the picture may hit, whatever the state.
    ///
    /// Gathered over every state's transitions (a component's box may differ
    /// between transitions), scaled from the declared W×H to the image and
    /// honouring the manifest's `bbox_origin`; a box identical to one already
    /// listed for the same component is listed once. Sorted by component
    /// name, then in file order. Empty for a view the bundle does not have.
    /// For the boxes of one transition (what may fire in the current state),
    /// see [`Bundle::transition_boxes`].
    pub fn component_boxes(&self, view: &str) -> Vec<(&str, PixelBox)> {
        let Some(image) = self.views.get(view).map(|v| &v.image) else {
            return Vec::new();
        };
        let origin = self.manifest.bbox_origin;
        let mut out: Vec<(&str, PixelBox)> = Vec::new();
        let mut by_component: Vec<(&str, &Transition)> = self
            .ssm
            .states
            .values()
            .flat_map(|s| s.on.iter())
            .filter(|(key, _)| *key != IMMEDIATE && *key != TIMED_WAIT)
            .flat_map(|(key, ts)| ts.iter().map(move |t| (key.as_str(), t)))
            .collect();
        // Stable: keeps file order within a component.
        by_component.sort_by_key(|(component, _)| *component);
        for (component, transition) in by_component {
            for b in transition.bbox.iter().filter(|b| b.view == view) {
                let pixel_box = b.to_pixels(origin, image.width, image.height);
                if !out.iter().any(|(c, p)| *c == component && *p == pixel_box) {
                    out.push((component, pixel_box));
                }
            }
        }
        out
    }

    /// The boxes of one transition in `view`, in pixels of that view's real
    /// image (see [`ViewBox::to_pixels`]). Empty when the transition has no
    /// box there or the view does not exist.
    pub fn transition_boxes(&self, transition: &Transition, view: &str) -> Vec<PixelBox> {
        let Some(image) = self.views.get(view).map(|v| &v.image) else {
            return Vec::new();
        };
        transition
            .bbox
            .iter()
            .filter(|b| b.view == view)
            .map(|b| b.to_pixels(self.manifest.bbox_origin, image.width, image.height))
            .collect()
    }

    /// A dashboard's region, in pixels of its parent's image, with the
    /// parent's name. `None` for a view that is not a dashboard.
    pub fn dashboard_region(&self, dashboard: &str) -> Option<(&str, PixelBox)> {
        let spec = &self.views.get(dashboard)?.spec;
        if spec.kind != ViewKind::Dashboard {
            return None;
        }
        let [x, y, w, h] = spec.region?;
        Some((spec.parent.as_deref()?, PixelBox { x, y, w, h }))
    }

    /// The dashboards that magnify a region of `parent`, sorted by name.
    pub fn dashboards_of(&self, parent: &str) -> Vec<&str> {
        self.views
            .iter()
            .filter(|(_, v)| {
                v.spec.kind == ViewKind::Dashboard && v.spec.parent.as_deref() == Some(parent)
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The device's physical components (every `on` key but `immediate`
    /// and `timed_wait`), sorted.
    pub fn components(&self) -> BTreeSet<&str> {
        self.ssm
            .states
            .values()
            .flat_map(|s| s.on.keys())
            .filter(|k| *k != IMMEDIATE && *k != TIMED_WAIT)
            .map(String::as_str)
            .collect()
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Where a task starts: its `initial_state`, else the SSM's.
    pub fn task_initial_state<'a>(&'a self, task: &'a Task) -> &'a str {
        task.initial_state
            .as_deref()
            .unwrap_or(&self.ssm.initial_state)
    }

    /// The view a task starts in: its `initial_view`, else the manifest's.
    pub fn task_initial_view<'a>(&'a self, task: &'a Task) -> &'a str {
        task.initial_view
            .as_deref()
            .unwrap_or(&self.manifest.initial_view)
    }

    /// [`super::logic_hash`] of this bundle.
    pub fn logic_hash(&self) -> String {
        super::hash::logic_hash(self)
    }

    /// The same device without its pictures: each view's bytes dropped
    /// (its size kept), no live layer. All that the metrics and the planner
    /// read, and the same logic hash, for a fraction of the memory: what a
    /// long batch keeps of the devices it has played.
    pub fn without_pictures(&self) -> Bundle {
        let mut out = Bundle {
            manifest: self.manifest.clone(),
            ssm: self.ssm.clone(),
            views: self.views.clone(),
            tasks: self.tasks.clone(),
            live: None,
        };
        for view in out.views.values_mut() {
            view.image.bytes = Vec::new().into();
        }
        out
    }

    /// The single-file form of this bundle: `{"manifest", "ssm", "views",
    /// "tasks"}` with each view's `file` a `data:` URL of its image. Loading
    /// it with [`super::load_bytes`] gives an equal bundle (views' `file`
    /// aside, which then holds the data URL).
    pub fn to_single_json(&self) -> serde_json::Value {
        let views: serde_json::Map<String, serde_json::Value> = self
            .views
            .iter()
            .map(|(name, view)| {
                let mut spec = view.spec.clone();
                spec.file = encode_data_url(&view.image);
                let value = serde_json::to_value(spec).unwrap_or(serde_json::Value::Null);
                (name.clone(), value)
            })
            .collect();
        let mut out = serde_json::json!({
            "manifest": self.manifest,
            "ssm": self.ssm,
            "views": views,
            "tasks": {"tasks": self.tasks},
        });
        if let (Some(live), Some(object)) = (&self.live, out.as_object_mut()) {
            let mut spec = live.spec.clone();
            for (view, file) in spec.sheets.iter_mut() {
                if let Some(sheet) = live.sheets.get(view) {
                    *file = encode_data_url(sheet);
                }
            }
            object.insert(
                "live".to_string(),
                serde_json::to_value(spec).unwrap_or(serde_json::Value::Null),
            );
        }
        out
    }
}
