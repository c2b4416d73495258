//! The views of a drawn device: where each face of the body lands in each
//! picture. The six orthographic views show one face straight on; the two
//! axonometric views show three faces each, so that every face, and every
//! part on it, is seen in two views: `front_top` shows front, top and
//! right, `back_bottom` back, bottom and left. A dashboard is the front
//! view magnified onto a region.
//!
//! The axonometric views are oblique (cabinet) projections: the face
//! facing the viewer is undistorted, depth recedes at 30° at half scale.
//! Each face keeps its own coordinates (see [`Face`]) and is placed by one
//! affine map, so a part drawn once lands correctly in every view.

use std::collections::BTreeMap;

use knoblab_core::bundle::ViewKind;

use super::desc::{Body, DeviceDesc, Face, Look, Part};
use super::draw::{body_face, part_in, DrawError, Variant};
use super::svg::{num, Affine, ColourError, Rgb};

/// Why a view of a device could not be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ViewError {
    /// The body's colour (or its trim's) is not `#rrggbb`.
    #[error(transparent)]
    Colour(#[from] ColourError),
    /// One part could not be drawn.
    #[error("{device}: parts[{index}] ({component}): {problem}")]
    Part {
        /// The device's id.
        device: String,
        /// The part's index in the description's `parts`.
        index: usize,
        /// The part's component, or `decoration`.
        component: String,
        /// What is wrong with the part.
        problem: DrawError,
    },
}

/// Every view picture is this size, in pixels.
pub const CANVAS: (f64, f64) = (640.0, 480.0);
/// Room kept free around the device, in pixels.
const MARGIN: (f64, f64) = (40.0, 48.0);
/// Depth scale and angle of the oblique projection.
const DEPTH_SCALE: f64 = 0.5;
const DEPTH_ANGLE_DEGREES: f64 = 30.0;
/// The background of every view.
const BACKGROUND: &str = "#f3f2ee";

/// One picture to draw: which faces, where, and how lit.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The view's name (`front`, `front_top`, `dashboard`, …).
    pub name: String,
    /// Orthographic, axonometric or dashboard.
    pub kind: ViewKind,
    /// Each face shown, its map from face to world coordinates, and its
    /// lighting (see [`body_face`]).
    pub faces: Vec<(Face, Affine, f64)>,
    /// From world coordinates to the picture's pixels.
    pub root: Affine,
    /// The size of one pixel in world units.
    pub px: f64,
}

/// A face's width and height in body units.
pub fn face_size(body: &Body, face: Face) -> (f64, f64) {
    let [w, h, d] = body.size;
    match face {
        Face::Front | Face::Back => (w, h),
        Face::Left | Face::Right => (d, h),
        Face::Top | Face::Bottom => (w, d),
    }
}

/// Fits `extent` (world units) into the canvas: the root map and pixel size.
fn fit(extent: (f64, f64), scale: f64) -> (Affine, f64) {
    let (cw, ch) = CANVAS;
    let root = Affine::translate((cw - extent.0 * scale) / 2.0, (ch - extent.1 * scale) / 2.0)
        .then_after(Affine::scale(scale));
    (root, 1.0 / scale)
}

/// The six orthographic and two axonometric scenes, in the order
/// `views.json` lists them.
pub fn scenes(body: &Body) -> Vec<Scene> {
    let [w, h, d] = body.size;
    let (cw, ch) = CANVAS;
    let (avail_w, avail_h) = (cw - 2.0 * MARGIN.0, ch - 2.0 * MARGIN.1);
    // One scale for all orthographic views, so they show the same device.
    let ortho = (avail_w / w.max(d)).min(avail_h / h.max(d));
    let mut out: Vec<Scene> = Face::ALL
        .iter()
        .map(|&face| {
            let (root, px) = fit(face_size(body, face), ortho);
            Scene {
                name: face.view().to_string(),
                kind: ViewKind::Orthographic,
                faces: vec![(face, Affine::translate(0.0, 0.0), 0.0)],
                root,
                px,
            }
        })
        .collect();
    let (sin, cos) = DEPTH_ANGLE_DEGREES.to_radians().sin_cos();
    let (cs, sn) = (DEPTH_SCALE * cos, DEPTH_SCALE * sin);
    let extent = (w + d * cs, h + d * sn);
    let axo = (avail_w / extent.0).min(avail_h / extent.1);
    let (root, px) = fit(extent, axo);
    out.push(Scene {
        name: "front_top".to_string(),
        kind: ViewKind::Axonometric,
        faces: vec![
            (Face::Front, Affine::translate(0.0, d * sn), 0.0),
            (Face::Top, Affine([1.0, 0.0, -cs, sn, cs * d, 0.0]), 0.12),
            (Face::Right, Affine([cs, -sn, 0.0, 1.0, w, d * sn]), -0.14),
        ],
        root,
        px,
    });
    out.push(Scene {
        name: "back_bottom".to_string(),
        kind: ViewKind::Axonometric,
        faces: vec![
            (Face::Back, Affine::translate(0.0, 0.0), -0.04),
            (Face::Bottom, Affine([1.0, 0.0, cs, sn, 0.0, h]), -0.22),
            (Face::Left, Affine([cs, sn, 0.0, 1.0, w, 0.0]), -0.12),
        ],
        root,
        px,
    });
    out
}

/// The dashboard: `front` magnified so that `region` ([x, y, w, h] pixels
/// of the front picture) fills the canvas.
pub fn dashboard(front: &Scene, region: [f64; 4]) -> Scene {
    let [x, y, w, _] = region;
    let zoom = CANVAS.0 / w;
    Scene {
        name: "dashboard".to_string(),
        kind: ViewKind::Dashboard,
        faces: front.faces.clone(),
        root: Affine::scale(zoom)
            .then_after(Affine::translate(-x, -y))
            .then_after(front.root),
        px: front.px / zoom,
    }
}

/// What of a scene to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only<'a> {
    /// The whole picture.
    Everything,
    /// One component alone, nothing else: its mask.
    Component(&'a str),
}

/// How each part is drawn, by its index in the description's `parts`;
/// parts not listed are drawn [`Variant::Static`].
pub type Variants = BTreeMap<usize, Variant>;

/// The scene's drawing without the `<svg>` element, ids prefixed with
/// `prefix` (so several drawings can share one document).
pub fn content(
    desc: &DeviceDesc,
    scene: &Scene,
    prefix: &str,
    only: Only<'_>,
) -> Result<String, ViewError> {
    content_in(desc, scene, prefix, only, &Variants::new())
}

/// [`content`] with some parts drawn as one state shows them.
pub fn content_in(
    desc: &DeviceDesc,
    scene: &Scene,
    prefix: &str,
    only: Only<'_>,
    variants: &Variants,
) -> Result<String, ViewError> {
    let mut out = String::new();
    let face_color = Rgb::parse(&desc.body.color)?;
    for (face, map, light) in &scene.faces {
        let (fw, fh) = face_size(&desc.body, *face);
        let to_pixels = scene.root.then_after(*map);
        let mut parts = String::new();
        for (i, p) in desc
            .parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.face == *face)
        {
            let wanted = match only {
                Only::Everything => true,
                Only::Component(c) => p.component.as_deref() == Some(c),
            };
            if !wanted {
                continue;
            }
            let under = backdrop(desc, i).unwrap_or(face_color);
            let variant = variants.get(&i).unwrap_or(&Variant::Static);
            let drawn = part_in(p, variant, under.shade(*light), scene.px).map_err(|problem| {
                ViewError::Part {
                    device: desc.id.clone(),
                    index: i,
                    component: p.component.as_deref().unwrap_or("decoration").to_string(),
                    problem,
                }
            })?;
            if only == Only::Everything {
                parts.push_str(&drawn.under);
            }
            parts.push_str(&drawn.part);
            if only == Only::Everything {
                parts.push_str(&drawn.print);
            }
        }
        let body = match only {
            Only::Everything => {
                let shadow = if scene.kind != ViewKind::Axonometric
                    && !matches!(face, Face::Top | Face::Bottom)
                {
                    format!(
                        r##"<ellipse cx="{}" cy="{}" rx="{}" ry="{}" fill="#000000" fill-opacity="0.12"/>"##,
                        num(fw / 2.0),
                        num(fh + 2.0 * scene.px),
                        num(fw * 0.52),
                        num(7.0 * scene.px)
                    )
                } else {
                    String::new()
                };
                let id = format!("{prefix}{}-{}", scene.name, face.view());
                format!(
                    "{shadow}{}",
                    body_face(&desc.body, *face, (fw, fh), &id, *light, scene.px)?
                )
            }
            Only::Component(_) => String::new(),
        };
        out.push_str(&format!(
            r#"<g transform="{}">{body}{parts}</g>"#,
            to_pixels.svg()
        ));
    }
    Ok(out)
}

/// A complete SVG document of the scene.
pub fn document(desc: &DeviceDesc, scene: &Scene, only: Only<'_>) -> Result<String, ViewError> {
    document_in(desc, scene, only, &Variants::new())
}

/// [`document`] with some parts drawn as one state shows them.
pub fn document_in(
    desc: &DeviceDesc,
    scene: &Scene,
    only: Only<'_>,
    variants: &Variants,
) -> Result<String, ViewError> {
    let (w, h) = CANVAS;
    let background = match only {
        Only::Everything => format!(r#"<rect width="{w}" height="{h}" fill="{BACKGROUND}"/>"#),
        Only::Component(_) => String::new(),
    };
    Ok(format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans">{background}{}</svg>"#,
        content_in(desc, scene, "", only, variants)?
    ))
}

/// The colour a part sits on: the last plate drawn before it on its face
/// that holds its centre, if any. Labels and scales are inked for it.
fn backdrop(desc: &DeviceDesc, index: usize) -> Option<Rgb> {
    let p = desc.parts.get(index)?;
    desc.parts[..index]
        .iter()
        .rev()
        .filter(|q| q.face == p.face && q.look == Look::Plate)
        .find(|q| {
            let ([qx, qy], [qw, qh]) = (q.at, q.size);
            (p.at[0] - qx).abs() <= qw / 2.0 && (p.at[1] - qy).abs() <= qh / 2.0
        })
        .and_then(|q| q.color.as_deref().and_then(|c| Rgb::parse(c).ok()))
}

/// Where a part's rectangle lands in a scene's picture: `[x, y, w, h]`
/// pixels around the mapped corners.
pub fn part_rect(scene: &Scene, part: &Part) -> Option<[f64; 4]> {
    let (_, map, _) = scene.faces.iter().find(|(f, ..)| *f == part.face)?;
    let to_pixels = scene.root.then_after(*map);
    let ([cx, cy], [w, h]) = (part.at, part.size);
    let corners = [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)]
        .map(|(dx, dy)| to_pixels.apply(cx + dx * w, cy + dy * h));
    let xs = corners.map(|c| c.0);
    let ys = corners.map(|c| c.1);
    let min = |v: [f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: [f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some([min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)])
}
