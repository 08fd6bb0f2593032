//! Rectangle swept spheres: every point within `radius` of a rectangle.
//!
//! PQP's distance volume (Larsen, Gottschalk, Lin, Manocha, "Fast Proximity
//! Queries with Swept Sphere Volumes", 1999): two of them lie at least the
//! distance of their rectangles less both radii apart, with rounded rims
//! where boxes have corners. Fitting lives in [`crate::fit::rss_with_axes`],
//! the distance of two of them in [`crate::intersect::rss_distance`]; the
//! core as a shape is [`crate::shape::Rectangle`]'s `From<&Rss>`.

use crate::bounding_volume::{Aabb, Obb};
use crate::math::{Matrix, Point, Real, Vector};
use std::f32::consts::PI;

/// A rectangle swept sphere: the points within `radius` of the rectangle
/// centred at `center`, spanning `half_lengths` along the unit, orthogonal
/// `axes`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rss {
    /// Centre of the core rectangle.
    pub center: Point,
    /// Unit in-plane axes of the rectangle, orthogonal to each other.
    pub axes: [Vector; 2],
    /// Half the rectangle's side lengths along `axes` (non-negative).
    pub half_lengths: [Real; 2],
    /// How far the volume reaches beyond the rectangle (non-negative).
    pub radius: Real,
}

impl Rss {
    /// A swept rectangle from its core (centre, orthonormal axes, half side
    /// lengths) and radius.
    #[must_use]
    pub fn new(center: Point, axes: [Vector; 2], half_lengths: [Real; 2], radius: Real) -> Self {
        debug_assert!(half_lengths.iter().all(|h| *h >= 0.0 || h.is_nan()));
        debug_assert!(radius >= 0.0 || radius.is_nan());
        Rss {
            center,
            axes,
            half_lengths,
            radius,
        }
    }

    /// The rectangle's unit normal `axes[0] × axes[1]`.
    #[must_use]
    pub fn normal(&self) -> Vector {
        self.axes[0].cross(&self.axes[1])
    }

    /// The frame: the rectangle's axes, then its normal, as columns.
    #[must_use]
    pub fn frame(&self) -> Matrix {
        let [u, v] = self.axes;
        Matrix::from_columns(&[u, v, self.normal()])
    }

    /// The rectangle's four corners, in order around it.
    #[must_use]
    pub fn corners(&self) -> [Point; 4] {
        let u = self.axes[0] * self.half_lengths[0];
        let v = self.axes[1] * self.half_lengths[1];
        let c = self.center;
        [c - u - v, c + u - v, c + u + v, c - u + v]
    }

    /// The distance from `p` to the core rectangle: `p`'s in-plane
    /// coordinates clamped to the sides.
    #[must_use]
    pub fn rectangle_distance(&self, p: &Point) -> Real {
        let offset = p - self.center;
        let [u, v] = self.axes;
        let [hu, hv] = self.half_lengths;
        let nearest = u * offset.dot(&u).clamp(-hu, hu) + v * offset.dot(&v).clamp(-hv, hv);
        (offset - nearest).norm()
    }

    /// Squared distance from `p` to the volume, 0 inside; NaN for a NaN point.
    #[must_use]
    pub fn distance_squared(&self, p: &Point) -> Real {
        let outside = self.rectangle_distance(p) - self.radius;
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
        self.rectangle_distance(p) <= self.radius + tolerance
    }

    /// The box around the volume, in the rectangle's frame: half-extents
    /// the half lengths plus the radius, and the radius along the normal.
    #[must_use]
    pub fn oriented_box(&self) -> Obb {
        let [hu, hv] = self.half_lengths;
        let r = self.radius;
        Obb::new(self.center, self.frame(), Vector::new(hu + r, hv + r, r))
    }

    /// The flat box of the core rectangle (no thickness), in its frame.
    #[must_use]
    pub fn core_box(&self) -> Obb {
        let [hu, hv] = self.half_lengths;
        Obb::new(self.center, self.frame(), Vector::new(hu, hv, 0.0))
    }

    /// The axis-aligned box around the volume.
    #[must_use]
    pub fn to_aabb(&self) -> Aabb {
        let [u, v] = self.axes;
        let [hu, hv] = self.half_lengths;
        let half = u.abs() * hu + v.abs() * hv;
        Aabb::from_center_half_extents(self.center, half.add_scalar(self.radius))
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
        let [hu, hv] = self.half_lengths;
        (2.0 * hu, 2.0 * hv, self.radius)
    }
}
