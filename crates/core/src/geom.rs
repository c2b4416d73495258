//! Points, boxes and the 0–1000 scale.
//!
//! Agents and models speak in integer coordinates on a 0–1000 scale in both
//! axes of the current image, whatever its pixel size (`specs/devices.md`,
//! section 2): 0–1000 maps onto 0..W and 0..H, origin top left, y down.
//! Bundles speak in pixels of a declared image size. This module converts
//! between the two and answers "is this point in that box".

use serde::{Deserialize, Serialize};

/// The largest coordinate on the agent's scale; the smallest is 0.
pub const SCALE_MAX: u32 = 1000;

/// A point on the 0–1000 scale of the current image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScaledPoint {
    /// Across, from the left edge (0) to the right (1000).
    pub x: u32,
    /// Down, from the top edge (0) to the bottom (1000).
    pub y: u32,
}

impl ScaledPoint {
    /// A point on the scale, or `None` when either coordinate is outside 0–1000.
    ///
    /// ```
    /// use knoblab_core::geom::ScaledPoint;
    /// assert!(ScaledPoint::new(0, 1000).is_some());
    /// assert!(ScaledPoint::new(-1, 5).is_none());
    /// assert!(ScaledPoint::new(5, 1001).is_none());
    /// ```
    pub fn new(x: i64, y: i64) -> Option<Self> {
        let on_scale = |v: i64| (0..=i64::from(SCALE_MAX)).contains(&v);
        (on_scale(x) && on_scale(y)).then_some(ScaledPoint {
            x: x as u32,
            y: y as u32,
        })
    }

    /// The pixel this point names in an image of `width` × `height` pixels.
    ///
    /// ```
    /// use knoblab_core::geom::{PixelPoint, ScaledPoint};
    /// let p = ScaledPoint::new(500, 250).unwrap().to_pixels(800, 600);
    /// assert_eq!(p, PixelPoint { x: 400.0, y: 150.0 });
    /// ```
    pub fn to_pixels(self, width: u32, height: u32) -> PixelPoint {
        PixelPoint {
            x: f64::from(self.x) * f64::from(width) / f64::from(SCALE_MAX),
            y: f64::from(self.y) * f64::from(height) / f64::from(SCALE_MAX),
        }
    }

    /// Where the point sits on any picture, as fractions of its width and
    /// height (0–1): what a page positions a marker by.
    ///
    /// ```
    /// use knoblab_core::geom::ScaledPoint;
    /// assert_eq!(ScaledPoint::new(500, 250).unwrap().fractions(), (0.5, 0.25));
    /// ```
    pub fn fractions(self) -> (f64, f64) {
        let p = self.to_pixels(1, 1);
        (p.x, p.y)
    }

    /// The nearest point on the scale to a pixel of a `width` × `height`
    /// image, clamped onto 0–1000. Used when a person clicks on a picture.
    ///
    /// ```
    /// use knoblab_core::geom::{PixelPoint, ScaledPoint};
    /// let p = ScaledPoint::from_pixels(PixelPoint { x: 400.0, y: 150.0 }, 800, 600);
    /// assert_eq!(p, ScaledPoint::new(500, 250).unwrap());
    /// ```
    pub fn from_pixels(p: PixelPoint, width: u32, height: u32) -> Self {
        let scale = |v: f64, size: u32| {
            if size == 0 {
                return 0;
            }
            let s = (v * f64::from(SCALE_MAX) / f64::from(size)).round();
            s.clamp(0.0, f64::from(SCALE_MAX)) as u32
        };
        ScaledPoint {
            x: scale(p.x, width),
            y: scale(p.y, height),
        }
    }
}

/// A point in pixels of an image (sub-pixel positions allowed).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PixelPoint {
    /// Pixels from the left edge.
    pub x: f64,
    /// Pixels from the top edge.
    pub y: f64,
}

/// An axis-aligned box in pixels: top-left corner `x, y`, size `w × h`
/// (the COCO convention).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PixelBox {
    /// The left edge, in pixels.
    pub x: f64,
    /// The top edge, in pixels.
    pub y: f64,
    /// The width, in pixels.
    pub w: f64,
    /// The height, in pixels.
    pub h: f64,
}

impl PixelBox {
    /// Whether the point lies in the box, edges included.
    ///
    /// ```
    /// use knoblab_core::geom::{PixelBox, PixelPoint};
    /// let b = PixelBox { x: 10.0, y: 10.0, w: 5.0, h: 5.0 };
    /// assert!(b.contains(PixelPoint { x: 15.0, y: 10.0 }));
    /// assert!(!b.contains(PixelPoint { x: 15.1, y: 10.0 }));
    /// ```
    pub fn contains(&self, p: PixelPoint) -> bool {
        p.x >= self.x && p.x <= self.x + self.w && p.y >= self.y && p.y <= self.y + self.h
    }

    /// The box's area in square pixels.
    pub fn area(&self) -> f64 {
        self.w * self.h
    }

    /// The same box in an image of `to_w` × `to_h` pixels, when it was
    /// declared for an image of `from_w` × `from_h`. A zero declared size
    /// leaves the box as it is.
    pub fn rescale(&self, from_w: u32, from_h: u32, to_w: u32, to_h: u32) -> PixelBox {
        if from_w == 0 || from_h == 0 {
            return *self;
        }
        let sx = f64::from(to_w) / f64::from(from_w);
        let sy = f64::from(to_h) / f64::from(from_h);
        PixelBox {
            x: self.x * sx,
            y: self.y * sy,
            w: self.w * sx,
            h: self.h * sy,
        }
    }

    /// Euclidean distance from the point to the box: 0 inside or on an edge.
    pub fn distance_to(&self, p: PixelPoint) -> f64 {
        let dx = (self.x - p.x).max(0.0).max(p.x - (self.x + self.w));
        let dy = (self.y - p.y).max(0.0).max(p.y - (self.y + self.h));
        dx.hypot(dy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_round_trips_through_pixels_of_any_size() {
        for (w, h) in [(1000, 1000), (1138, 1122), (390, 844), (1, 1)] {
            for (x, y) in [(0, 0), (1000, 1000), (500, 500), (1, 999)] {
                let p = ScaledPoint::new(x, y).unwrap();
                let back = ScaledPoint::from_pixels(p.to_pixels(w, h), w, h);
                assert_eq!(back, p, "{x},{y} in {w}x{h}");
            }
        }
    }

    #[test]
    fn from_pixels_clamps_points_outside_the_image() {
        let p = ScaledPoint::from_pixels(PixelPoint { x: -20.0, y: 900.0 }, 800, 600);
        assert_eq!(p, ScaledPoint { x: 0, y: 1000 });
    }

    #[test]
    fn rescale_maps_a_box_to_the_real_image_size() {
        let b = PixelBox {
            x: 100.0,
            y: 50.0,
            w: 20.0,
            h: 10.0,
        };
        let r = b.rescale(1000, 500, 500, 1000);
        assert_eq!(
            r,
            PixelBox {
                x: 50.0,
                y: 100.0,
                w: 10.0,
                h: 20.0
            }
        );
    }

    #[test]
    fn distance_is_zero_inside_and_euclidean_outside() {
        let b = PixelBox {
            x: 0.0,
            y: 0.0,
            w: 10.0,
            h: 10.0,
        };
        assert_eq!(b.distance_to(PixelPoint { x: 5.0, y: 5.0 }), 0.0);
        assert_eq!(b.distance_to(PixelPoint { x: 13.0, y: 14.0 }), 5.0);
    }
}
