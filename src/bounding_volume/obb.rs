//! Oriented bounding boxes: a centre, three orthonormal axes and half-extents.
//!
//! Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996); Ericson, *Real-Time
//! Collision Detection* §4.4. The overlap test lives in
//! [`crate::intersect::boxes_overlap`]; this file holds the box and its own small methods.

use crate::bounding_volume::Aabb;
use crate::math::{Isometry, Matrix, Point, Real, Rotation, Vector};

/// An oriented box. `axes` holds the box's unit axes as columns and must be a
/// rotation (orthonormal, determinant +1); `half_extents` are non-negative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obb {
    /// Centre of the box.
    pub center: Point,
    /// Rotation whose columns are the box's local x, y and z axes in world space.
    pub axes: Matrix,
    /// Half the box size along each of its own axes.
    pub half_extents: Vector,
}

impl Obb {
    /// A box from its centre, axis matrix (columns, a rotation) and half-extents.
    #[must_use]
    pub fn new(center: Point, axes: Matrix, half_extents: Vector) -> Self {
        debug_assert!(half_extents.iter().all(|h| *h >= 0.0 || h.is_nan()));
        Self {
            center,
            axes,
            half_extents,
        }
    }

    /// A box from its centre, a rotation and half-extents.
    #[must_use]
    pub fn from_rotation(center: Point, rotation: &Rotation, half_extents: Vector) -> Self {
        Self::new(
            center,
            *rotation.to_rotation_matrix().matrix(),
            half_extents,
        )
    }

    /// The axis-aligned box `aabb` seen as an oriented box (identity axes).
    #[must_use]
    pub fn from_aabb(aabb: &Aabb) -> Self {
        Self::new(aabb.center(), Matrix::identity(), aabb.half_extents())
    }

    /// Axis `i` (0, 1 or 2) of the box as a unit vector.
    #[must_use]
    pub fn axis(&self, i: usize) -> Vector {
        self.axes.column(i).into_owned()
    }

    /// Coordinates of the world point `p` in the box frame (origin at the centre).
    #[must_use]
    pub fn to_local(&self, p: &Point) -> Vector {
        self.axes.tr_mul(&(p - self.center))
    }

    /// The world point with box-frame coordinates `local`.
    #[must_use]
    pub fn from_local(&self, local: &Vector) -> Point {
        self.center + self.axes * local
    }

    /// True when `p` lies inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, p: &Point) -> bool {
        let l = self.to_local(p);
        (0..3).all(|i| l[i].abs() <= self.half_extents[i])
    }

    /// The point of the box closest to `p` (`p` itself when inside). Ericson §5.1.4.
    #[must_use]
    pub fn closest_point(&self, p: &Point) -> Point {
        let l = self.to_local(p);
        let clamped = l.zip_map(&self.half_extents, |x, h| x.clamp(-h, h));
        self.from_local(&clamped)
    }

    /// Squared distance from `p` to the box (0 inside).
    #[must_use]
    pub fn distance_squared(&self, p: &Point) -> Real {
        // Through the clamped point rather than `max(|x| - h, 0)`, so that a NaN
        // coordinate propagates to a NaN distance (no overlap) instead of 0.
        let l = self.to_local(p);
        let clamped = l.zip_map(&self.half_extents, |x, h| x.clamp(-h, h));
        (l - clamped).norm_squared()
    }

    /// The smallest axis-aligned box containing this box: half-extent `|R| h`.
    #[must_use]
    pub fn to_aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(self.center, self.axes.abs() * self.half_extents)
    }

    /// This box moved by a rigid motion (exact: boxes stay boxes).
    #[must_use]
    pub fn transformed(&self, iso: &Isometry) -> Obb {
        let r = iso.rotation.to_rotation_matrix();
        Obb::new(iso * self.center, r.matrix() * self.axes, self.half_extents)
    }

    /// The eight corners, indexed by sign pattern (bit `i` set → `+half_extents[i]`).
    #[must_use]
    pub fn corners(&self) -> [Point; 8] {
        std::array::from_fn(|i| {
            let s = Vector::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            self.from_local(&s.component_mul(&self.half_extents))
        })
    }

    /// Volume of the box.
    #[must_use]
    pub fn volume(&self) -> Real {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }

    /// Surface area of the box.
    #[must_use]
    pub fn surface_area(&self) -> Real {
        let h = self.half_extents;
        8.0 * (h.x * h.y + h.y * h.z + h.z * h.x)
    }

    /// Radius of the box projected onto the unit-or-not direction `n`: `Σ hᵢ |aᵢ · n|`.
    #[must_use]
    pub fn projected_radius(&self, n: &Vector) -> Real {
        (0..3)
            .map(|i| self.half_extents[i] * self.axes.column(i).dot(n).abs())
            .sum()
    }

    /// True when the box axes are orthonormal and right-handed within `tolerance`.
    #[must_use]
    pub fn has_valid_frame(&self, tolerance: Real) -> bool {
        let gram = self.axes.tr_mul(&self.axes) - Matrix::identity();
        gram.iter().all(|e| e.abs() <= tolerance)
            && (self.axes.determinant() - 1.0).abs() <= tolerance
    }
}
