//! The live layer's rules (`live.json`, see [`crate::bundle::live`]): its
//! format, sheets only for views the bundle has, PNG sheets over PNG
//! pictures, every patch inside its sheet and its view's picture, states of
//! the state machine, patches that exist.

use std::collections::BTreeMap;

use super::list;
use crate::bundle::diagnostics::{Diagnostic, Location};
use crate::bundle::image::ViewImage;
use crate::bundle::live::{LiveSpec, LIVE_FILE, LIVE_FORMAT};
use crate::bundle::model::{StateMachine, ViewSpec};

/// Every problem of a live layer, given the bundle's views (and their
/// pictures, by view), its state machine, and each sheet read.
pub(crate) fn check_live(
    spec: &LiveSpec,
    views: Option<&BTreeMap<String, ViewSpec>>,
    pictures: &BTreeMap<String, ViewImage>,
    ssm: Option<&StateMachine>,
    sheets: &BTreeMap<String, ViewImage>,
    out: &mut Vec<Diagnostic>,
) {
    let at = |field: String| Location::file(LIVE_FILE).field(field);
    // A sheet's transparent pixels leave the picture as it is, and its
    // patches are cut from the same drawing as the picture: both PNG.
    for (view, sheet) in sheets {
        if !sheet.is_png() {
            out.push(Diagnostic::error(
                at(format!("sheets.{view}")),
                format!(
                    "the sheet is {}; a live layer's sheet must be PNG (its transparent pixels leave the picture as it is)",
                    sheet.media_type
                ),
            ));
        }
        if let Some(picture) = pictures.get(view).filter(|p| !p.is_png()) {
            out.push(Diagnostic::error(
                at(format!("sheets.{view}")),
                format!(
                    "view \"{view}\"'s picture is {}; a live layer draws over PNG pictures only (its patches are cut from the same drawing)",
                    picture.media_type
                ),
            ));
        }
    }
    if spec.format != LIVE_FORMAT {
        out.push(Diagnostic::error(
            at("format".into()),
            format!(
                "found format \"{}\"; this version reads \"{LIVE_FORMAT}\"",
                spec.format
            ),
        ));
    }
    if let Some(views) = views {
        for view in spec.sheets.keys() {
            if !views.contains_key(view) {
                out.push(Diagnostic::error(
                    at(format!("sheets.{view}")),
                    format!(
                        "a sheet for view \"{view}\", which views.json does not have; the views are: {}",
                        list(views.keys())
                    ),
                ));
            }
        }
    }
    for (i, p) in spec.patches.iter().enumerate() {
        let field = |f: &str| at(format!("patches[{i}].{f}"));
        let Some(&ViewImage {
            width: sw,
            height: sh,
            ..
        }) = sheets.get(&p.view)
        else {
            if !spec.sheets.contains_key(&p.view) {
                out.push(Diagnostic::error(
                    field("view"),
                    format!(
                        "the patch is on view \"{}\", which has no sheet; the sheets are: {}",
                        p.view,
                        list(spec.sheets.keys())
                    ),
                ));
            }
            continue;
        };
        let [x, y, w, h] = p.from;
        if w == 0
            || h == 0
            || u64::from(x) + u64::from(w) > u64::from(sw)
            || u64::from(y) + u64::from(h) > u64::from(sh)
        {
            out.push(Diagnostic::error(
                field("from"),
                format!(
                    "the rectangle [{x}, {y}, {w}, {h}] is not inside the {sw}×{sh} sheet of view \"{}\"",
                    p.view
                ),
            ));
        }
        if let Some(&ViewImage {
            width: vw,
            height: vh,
            ..
        }) = pictures.get(&p.view)
        {
            let [ax, ay] = p.at;
            if u64::from(ax) + u64::from(w) > u64::from(vw)
                || u64::from(ay) + u64::from(h) > u64::from(vh)
            {
                out.push(Diagnostic::error(
                    field("at"),
                    format!(
                        "a {w}×{h} patch at [{ax}, {ay}] goes past the {vw}×{vh} picture of view \"{}\"",
                        p.view
                    ),
                ));
            }
        }
    }
    for (state, look) in &spec.states {
        if let Some(ssm) = ssm {
            if !ssm.states.contains_key(state) {
                out.push(Diagnostic::error(
                    at(format!("states.{state}")),
                    format!(
                        "the state \"{state}\" is not in ssm.json; the states are: {}",
                        list(ssm.states.keys())
                    ),
                ));
            }
        }
        for &i in &look.patches {
            if i >= spec.patches.len() {
                out.push(Diagnostic::error(
                    at(format!("states.{state}.patches")),
                    format!(
                        "patch {i} does not exist; there are {} patches",
                        spec.patches.len()
                    ),
                ));
            }
        }
    }
}
