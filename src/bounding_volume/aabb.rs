//! Axis-aligned bounding boxes, in both the min/max and centre/half-extent views.
//!
//! The min/max view is what trees store (slab tests read it directly); the
//! centre/half-extent view is what the separating-axis tests of Gomez (1999)
//! and Ericson (*Real-Time Collision Detection*, §4.2) are written in. Both
//! answer every query identically; the tests pin that.

use crate::math::{Isometry, Point, Real, Vector};

/// An axis-aligned box given by its minimum and maximum corners.
///
/// A box with `min > max` on any axis is *empty* ([`Aabb::EMPTY`]): it
/// overlaps nothing and is the identity of [`Aabb::union`]. All comparisons
/// are inclusive, so touching boxes overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Point,
    /// Largest corner.
    pub max: Point,
}

/// An axis-aligned box given by its centre and non-negative half-extents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CenterExtents {
    /// Centre of the box.
    pub center: Point,
    /// Half the box size along x, y and z.
    pub half_extents: Vector,
}

impl Aabb {
    /// The empty box: `min = +inf`, `max = -inf`.
    pub const EMPTY: Aabb = Aabb {
        min: Point::new(Real::INFINITY, Real::INFINITY, Real::INFINITY),
        max: Point::new(Real::NEG_INFINITY, Real::NEG_INFINITY, Real::NEG_INFINITY),
    };

    /// A box from its two corners (taken as given; see [`Aabb::from_corners`] for unordered input).
    #[must_use]
    pub const fn new(min: Point, max: Point) -> Self {
        Self { min, max }
    }

    /// The smallest box containing both (unordered) corners.
    #[must_use]
    pub fn from_corners(a: Point, b: Point) -> Self {
        Self::new(a.inf(&b), a.sup(&b))
    }

    /// A box from its centre and half-extents (negative extents are taken by magnitude).
    #[must_use]
    pub fn from_center_half_extents(center: Point, half_extents: Vector) -> Self {
        let h = half_extents.abs();
        Self::new(center - h, center + h)
    }

    /// The smallest box containing every point; [`Aabb::EMPTY`] for no points.
    #[must_use]
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Point>) -> Self {
        points
            .into_iter()
            .fold(Self::EMPTY, |b, p| b.including_point(p))
    }

    /// True for the empty box (`min > max` on some axis, or NaN bounds).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y && self.min.z <= self.max.z)
    }

    /// Centre of the box.
    #[must_use]
    pub fn center(&self) -> Point {
        // Halves first, so that boxes wider than `f32::MAX` (from −3e38 to
        // 3e38) keep a finite centre and half-extents; halving is exact, so
        // other boxes get the bits `(min + max) / 2` had.
        Point::from(self.min.coords * 0.5 + self.max.coords * 0.5)
    }

    /// Half the size of the box along each axis (finite for every finite box).
    #[must_use]
    pub fn half_extents(&self) -> Vector {
        self.max.coords * 0.5 - self.min.coords * 0.5
    }

    /// Full size of the box along each axis.
    #[must_use]
    pub fn extents(&self) -> Vector {
        self.max - self.min
    }

    /// The centre/half-extent view of this box.
    #[must_use]
    pub fn to_center_extents(&self) -> CenterExtents {
        CenterExtents {
            center: self.center(),
            half_extents: self.half_extents(),
        }
    }

    /// True when the boxes share at least one point (touching counts).
    #[must_use]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
            && self.min.z <= other.max.z
            && other.min.z <= self.max.z
    }

    /// True when `p` lies inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, p: &Point) -> bool {
        (0..3).all(|i| self.min[i] <= p[i] && p[i] <= self.max[i])
    }

    /// True when `other` lies wholly inside or on the boundary of `self`.
    /// The empty box is contained in every box.
    #[must_use]
    pub fn contains(&self, other: &Aabb) -> bool {
        other.is_empty()
            || (0..3).all(|i| self.min[i] <= other.min[i] && other.max[i] <= self.max[i])
    }

    /// The smallest box containing both boxes.
    #[must_use]
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb::new(self.min.inf(&other.min), self.max.sup(&other.max))
    }

    /// The common part of both boxes (empty when they do not overlap).
    #[must_use]
    pub fn intersection(&self, other: &Aabb) -> Aabb {
        Aabb::new(self.min.sup(&other.min), self.max.inf(&other.max))
    }

    /// This box grown to contain `p`.
    #[must_use]
    pub fn including_point(&self, p: &Point) -> Aabb {
        Aabb::new(self.min.inf(p), self.max.sup(p))
    }

    /// This box grown by `margin` on every side.
    #[must_use]
    pub fn expanded(&self, margin: Real) -> Aabb {
        let m = Vector::repeat(margin);
        Aabb::new(self.min - m, self.max + m)
    }

    /// Surface area; 0 for the empty box. The SAH cost of a tree is built from this.
    #[must_use]
    pub fn surface_area(&self) -> Real {
        if self.is_empty() {
            return 0.0;
        }
        let e = self.extents();
        2.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }

    /// Volume; 0 for the empty box.
    #[must_use]
    pub fn volume(&self) -> Real {
        if self.is_empty() {
            return 0.0;
        }
        let e = self.extents();
        e.x * e.y * e.z
    }

    /// The eight corners, indexed by bit pattern (bit 0 → x max, bit 1 → y max, bit 2 → z max).
    #[must_use]
    pub fn corners(&self) -> [Point; 8] {
        std::array::from_fn(|i| {
            Point::new(
                if i & 1 == 0 { self.min.x } else { self.max.x },
                if i & 2 == 0 { self.min.y } else { self.max.y },
                if i & 4 == 0 { self.min.z } else { self.max.z },
            )
        })
    }

    /// The point of the box closest to `p` (`p` itself when inside).
    #[must_use]
    pub fn closest_point(&self, p: &Point) -> Point {
        p.sup(&self.min).inf(&self.max)
    }

    /// Squared distance from `p` to the box (0 inside). Arvo (Graphics Gems, 1990).
    #[must_use]
    pub fn distance_squared(&self, p: &Point) -> Real {
        (self.closest_point(p) - p).norm_squared()
    }

    /// The axis-aligned box bounding this box after a rigid motion.
    ///
    /// Uses the absolute-rotation trick (Arvo, "Transforming Axis-Aligned
    /// Bounding Boxes", Graphics Gems 1990): new half-extent `|R| h`.
    #[must_use]
    pub fn transformed(&self, iso: &Isometry) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        let center = iso * self.center();
        let abs_r = iso.rotation.to_rotation_matrix().matrix().abs();
        Aabb::from_center_half_extents(center, abs_r * self.half_extents())
    }
}

impl CenterExtents {
    /// True when the boxes share at least one point: per axis, the centre
    /// distance is at most the sum of half-extents (Gomez 1999).
    #[must_use]
    pub fn overlaps(&self, other: &CenterExtents) -> bool {
        let d = (self.center - other.center).abs();
        let r = self.half_extents + other.half_extents;
        d.x <= r.x && d.y <= r.y && d.z <= r.z
    }

    /// True when `p` lies inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, p: &Point) -> bool {
        let d = (p - self.center).abs();
        d.x <= self.half_extents.x && d.y <= self.half_extents.y && d.z <= self.half_extents.z
    }

    /// The min/max view of this box.
    #[must_use]
    pub fn to_aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(self.center, self.half_extents)
    }
}

impl From<CenterExtents> for Aabb {
    fn from(b: CenterExtents) -> Self {
        b.to_aabb()
    }
}

impl From<Aabb> for CenterExtents {
    fn from(b: Aabb) -> Self {
        b.to_center_extents()
    }
}
