//! The views' rules: dashboards, their parents and regions.

use std::collections::BTreeMap;

use super::{list, VIEWS_FILE};
use crate::bundle::diagnostics::{Diagnostic, Location};
use crate::bundle::model::{ViewKind, ViewSpec};

pub(super) fn check_views(
    views: &BTreeMap<String, ViewSpec>,
    image_sizes: &BTreeMap<String, (u32, u32)>,
    out: &mut Vec<Diagnostic>,
) {
    for (name, spec) in views {
        let at = |field: &str| Location::file(VIEWS_FILE).field(format!("{name}.{field}"));
        if spec.kind != ViewKind::Dashboard {
            if spec.parent.is_some() || spec.region.is_some() {
                out.push(Diagnostic::warning(
                    at("kind"),
                    format!(
                        "a {:?} view has no parent or region (only a dashboard has); they are ignored",
                        spec.kind
                    )
                    .to_lowercase(),
                ));
            }
            continue;
        }
        let parent = match spec.parent.as_deref() {
            None => {
                out.push(Diagnostic::error(
                    at("parent"),
                    "a dashboard needs a `parent`: the view whose region it magnifies",
                ));
                None
            }
            Some(parent) => match views.get(parent) {
                None => {
                    out.push(Diagnostic::error(
                        at("parent"),
                        format!(
                            "the parent \"{parent}\" is not a view; the views are: {}",
                            list(views.keys())
                        ),
                    ));
                    None
                }
                Some(p) if p.kind == ViewKind::Dashboard => {
                    out.push(Diagnostic::error(
                        at("parent"),
                        format!(
                            "the parent \"{parent}\" is itself a dashboard; expected an \
                             orthographic view"
                        ),
                    ));
                    None
                }
                Some(_) => Some(parent),
            },
        };
        let Some([x, y, w, h]) = spec.region else {
            out.push(Diagnostic::error(
                at("region"),
                "a dashboard needs a `region` [x, y, w, h]: the part of its parent's image it \
                 magnifies, in pixels of that image",
            ));
            continue;
        };
        if w <= 0.0 || h <= 0.0 {
            out.push(Diagnostic::error(
                at("region"),
                format!("the region is {w}×{h}; its width and height must be positive"),
            ));
            continue;
        }
        if let Some((pw, ph)) = parent.and_then(|p| image_sizes.get(p)) {
            let (pw, ph) = (f64::from(*pw), f64::from(*ph));
            if x < 0.0 || y < 0.0 || x + w > pw || y + h > ph {
                out.push(Diagnostic::error(
                    at("region"),
                    format!(
                        "the region spans x {x}..{} and y {y}..{}, outside the parent's {pw}×{ph} \
                         image; it must lie within x 0..{pw} and y 0..{ph}",
                        x + w,
                        y + h
                    ),
                ));
            }
        }
    }
}
