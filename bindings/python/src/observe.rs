//! What crosses to Python at each step, built here as Python values: the
//! picture as a `numpy.uint8` array (H×W×3) at the environment's size,
//! the views as an index and a mask, the texts within the observation
//! space's charset and length, and `info` as a dict. No JSON per step.

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyByteArray, PyDict};

use knoblab_core::bundle::ViewImage;
use knoblab_core::sim::{Info, Observation};

use crate::errors::{Kind, Raised};

/// The characters an observation's text may hold (Gymnasium's `Text`
/// charset): printable ASCII, Latin-1's letters and signs (`°`, `µ`,
/// `±`, accented letters) and common typography. Anything else becomes
/// `?` in the observation (`info` keeps the texts whole).
pub(crate) const TEXT_CHARSET: &str = concat!(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    "\n",
    "¡¢£¤¥¦§¨©ª«¬®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ",
    "–—‘’“”…•€™→←↑↓"
);

/// The longest text an observation's `feedback` or `instruction` holds,
/// in characters (the library's longest instruction is 85; a longer text
/// is cut and ends in `...`).
pub(crate) const MAX_TEXT_CHARS: usize = 512;

/// A text within [`TEXT_CHARSET`] and [`MAX_TEXT_CHARS`].
pub(crate) fn observed_text(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if TEXT_CHARSET.contains(c) { c } else { '?' })
        .take(MAX_TEXT_CHARS + 1)
        .collect();
    if out.chars().count() > MAX_TEXT_CHARS {
        out = out.chars().take(MAX_TEXT_CHARS - 3).collect();
        out.push_str("...");
    }
    out
}

/// An RGB picture (row-major, 3 bytes a pixel) and its size.
#[derive(Debug, Clone)]
pub(crate) struct Rgb {
    /// The pixels.
    pub(crate) bytes: Vec<u8>,
    /// Width in pixels.
    pub(crate) width: u32,
    /// Height in pixels.
    pub(crate) height: u32,
}

/// An encoded picture (the bundle's file, or the core's live PNG) decoded
/// to RGB and scaled to `size` (width, height) when it differs (a
/// triangle filter, as the page's browser scales).
pub(crate) fn decode(
    image: &ViewImage,
    what: &str,
    size: Option<(u32, u32)>,
) -> Result<Rgb, Raised> {
    let rgb = image::load_from_memory(&image.bytes)
        .map_err(|e| {
            Raised::new(
                Kind::Bundle,
                format!("{what}: the picture cannot be decoded: {e}"),
            )
        })?
        .to_rgb8();
    let rgb = match size {
        Some((w, h)) if (w, h) != rgb.dimensions() => {
            image::imageops::resize(&rgb, w, h, image::imageops::FilterType::Triangle)
        }
        _ => rgb,
    };
    let (width, height) = rgb.dimensions();
    Ok(Rgb {
        bytes: rgb.into_raw(),
        width,
        height,
    })
}

/// Pixels the core drew (RGBA, opaque) as RGB, scaled to `size` (width,
/// height) when it differs, as [`decode`] scales.
pub(crate) fn from_rgba(pixels: image::RgbaImage, size: (u32, u32)) -> Rgb {
    let rgb = image::DynamicImage::ImageRgba8(pixels).to_rgb8();
    let rgb = if rgb.dimensions() == size {
        rgb
    } else {
        image::imageops::resize(&rgb, size.0, size.1, image::imageops::FilterType::Triangle)
    };
    let (width, height) = rgb.dimensions();
    Rgb {
        bytes: rgb.into_raw(),
        width,
        height,
    }
}

/// `numpy.frombuffer`, looked up once.
fn frombuffer(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static FROMBUFFER: GILOnceCell<Py<PyAny>> = GILOnceCell::new();
    FROMBUFFER
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("numpy")?.getattr("frombuffer")?.unbind())
        })
        .map(|f| f.bind(py))
}

/// A fresh, writable `numpy` array over a copy of `bytes`, of `dtype` and
/// `shape`.
pub(crate) fn array<'py>(
    py: Python<'py>,
    bytes: &[u8],
    dtype: &str,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let buffer = PyByteArray::new(py, bytes);
    let flat = frombuffer(py)?.call1((buffer, dtype))?;
    flat.call_method1("reshape", (shape.to_vec(),))
}

/// A picture as a `uint8` array, H×W×3.
pub(crate) fn picture_array<'py>(py: Python<'py>, rgb: &Rgb) -> PyResult<Bound<'py, PyAny>> {
    array(
        py,
        &rgb.bytes,
        "uint8",
        &[rgb.height as usize, rgb.width as usize, 3],
    )
}

/// The observation as a dict: `view` (index into `view_names`), `views`
/// (an `int8` mask over `view_names`: the views one may switch to),
/// `feedback`, `instruction` and, if given, `picture`.
pub(crate) fn observation<'py>(
    py: Python<'py>,
    o: &Observation,
    view_names: &[String],
    picture: Option<&Rgb>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let view = view_names
        .iter()
        .position(|v| *v == o.view)
        .ok_or_else(|| {
            Raised::new(
                Kind::Episode,
                format!("the view {:?} is not among the bundle's views", o.view),
            )
        })?;
    d.set_item("view", view)?;
    let mask: Vec<u8> = view_names
        .iter()
        .map(|v| u8::from(o.views.iter().any(|w| w == v)))
        .collect();
    d.set_item("views", array(py, &mask, "int8", &[mask.len()])?)?;
    d.set_item(
        "feedback",
        observed_text(o.feedback.as_deref().unwrap_or("")),
    )?;
    d.set_item(
        "instruction",
        observed_text(o.instruction.as_deref().unwrap_or("")),
    )?;
    if let Some(rgb) = picture {
        d.set_item("picture", picture_array(py, rgb)?)?;
    }
    Ok(d)
}

/// `info` as a dict: the core's diagnostics, and the observation's texts
/// whole (the observation may have cut them) and the view names the agent
/// may switch to.
pub(crate) fn info<'py>(
    py: Python<'py>,
    i: &Info,
    o: &Observation,
    task: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("state", &i.state)?;
    d.set_item("view", &i.view)?;
    d.set_item("dashboard_unlocked", i.dashboard_unlocked)?;
    d.set_item("goal_index", i.goal_index)?;
    d.set_item("goals_total", i.goals_total)?;
    d.set_item("steps", i.steps)?;
    d.set_item("budget_global", i.budget_global)?;
    d.set_item("budget_global_total", i.budget_global_total)?;
    d.set_item("budget_local", i.budget_local)?;
    d.set_item("c_opt", i.c_opt)?;
    d.set_item("outcome", i.outcome.map(|x| x.as_str()))?;
    d.set_item("task", task)?;
    d.set_item("views", o.views.clone())?;
    d.set_item("feedback", o.feedback.as_deref().unwrap_or(""))?;
    d.set_item("instruction", o.instruction.as_deref().unwrap_or(""))?;
    Ok(d)
}
