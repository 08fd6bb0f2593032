//! Rectangle swept spheres: every point within `radius` of a rectangle.
//!
//! PQP's distance volume (Larsen, Gottschalk, Lin, Manocha, "Fast Proximity
//! Queries with Swept Sphere Volumes", 1999): two of them lie at least the
//! distance of their rectangles less both radii apart, an exact bound
//! with rounded rims, where boxes only bound by their slabs. Fitting lives
//! in [`crate::fit::rss_with_axes`], the rectangle distance in
//! [`crate::intersect::rectangle_distance`].

use crate::bounding_volume::{Aabb, Obb};
use crate::intersect::rectangle_distance;
use crate::math::{Matrix, Point, Real, Vector};
use crate::shape::Rectangle;
use std::f32::consts::PI;

/// A rectangle swept sphere: the points within `radius` of `rectangle`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rss {
    /// The core rectangle.
    pub rectangle: Rectangle,
    /// How far the volume reaches beyond the rectangle (non-negative).
    pub radius: Real,
}

impl Rss {
    /// A swept rectangle from its core and radius.
    #[must_use]
    pub fn new(rectangle: Rectangle, radius: Real) -> Self {
        debug_assert!(radius >= 0.0 || radius.is_nan());
        Rss { rectangle, radius }
    }

    /// The frame: the rectangle's axes, then its normal, as columns.
    #[must_use]
    pub fn axes(&self) -> Matrix {
        let [u, v] = self.rectangle.axes;
        Matrix::from_columns(&[u, v, self.rectangle.normal()])
    }

    /// Squared distance from `p` to the volume, 0 inside; NaN for a NaN point.
    #[must_use]
    pub fn distance_squared(&self, p: &Point) -> Real {
        let outside = self.rectangle.distance(p) - self.radius;
        if outside > 0.0 {
            outside * outside
        } else if outside.is_nan() {
            outside
        } else {
            0.0
        }
    }

    /// True when `p` lies within the volume, allowing `tolerance`.
    #[must_use]
    pub fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        self.rectangle.distance(p) <= self.radius + tolerance
    }

    /// The distance between the volumes, 0 when they touch.
    #[must_use]
    pub fn distance(&self, other: &Rss) -> Real {
        (rectangle_distance(&self.rectangle, &other.rectangle) - self.radius - other.radius)
            .max(0.0)
    }

    /// The box around the volume, in the rectangle's frame: half-extents
    /// the half lengths plus the radius, and the radius along the normal.
    #[must_use]
    pub fn oriented_box(&self) -> Obb {
        let [hu, hv] = self.rectangle.half_lengths;
        let r = self.radius;
        Obb::new(
            self.rectangle.center,
            self.axes(),
            Vector::new(hu + r, hv + r, r),
        )
    }

    /// The axis-aligned box around the volume.
    #[must_use]
    pub fn to_aabb(&self) -> Aabb {
        let [u, v] = self.rectangle.axes;
        let [hu, hv] = self.rectangle.half_lengths;
        let half = u.abs() * hu + v.abs() * hv;
        Aabb::from_center_half_extents(self.rectangle.center, half.add_scalar(self.radius))
    }

    /// Enclosed volume: a slab, four half-cylinders along the sides, a sphere at the corners.
    #[must_use]
    pub fn volume(&self) -> Real {
        let (lu, lv, r) = self.lengths();
        2.0 * lu * lv * r + PI * r * r * (lu + lv) + 4.0 / 3.0 * PI * r * r * r
    }

    /// Surface area: two faces, four half-cylinders, a sphere.
    #[must_use]
    pub fn surface_area(&self) -> Real {
        let (lu, lv, r) = self.lengths();
        2.0 * lu * lv + 2.0 * PI * r * (lu + lv) + 4.0 * PI * r * r
    }

    fn lengths(&self) -> (Real, Real, Real) {
        let [hu, hv] = self.rectangle.half_lengths;
        (2.0 * hu, 2.0 * hv, self.radius)
    }
}
