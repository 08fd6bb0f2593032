//! Rays and segments, the query shapes of line of sight and raycasts.

use crate::math::{Point, Real, Vector};

/// A half-line `origin + t · direction`, `t ≥ 0`. `direction` need not be unit
/// length: every `t` the crate reports is in units of `direction`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Point,
    /// Direction (any non-zero length).
    pub direction: Vector,
}

/// The segment from `a` to `b`; as a ray, `a + t (b − a)` with `t ∈ [0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    /// Start point (`t = 0`).
    pub a: Point,
    /// End point (`t = 1`).
    pub b: Point,
}

impl Ray {
    /// A ray from its origin and direction.
    #[must_use]
    pub const fn new(origin: Point, direction: Vector) -> Self {
        Self { origin, direction }
    }

    /// The point at parameter `t`.
    #[must_use]
    pub fn point_at(&self, t: Real) -> Point {
        self.origin + self.direction * t
    }

    /// True when origin and direction are finite.
    #[must_use]
    #[inline]
    pub fn is_finite(&self) -> bool {
        let (o, d) = (&self.origin, &self.direction);
        // `x · 0` is 0 for finite `x` and NaN for ±∞ or NaN: one comparison
        // instead of six branches.
        let zero = (o.x * 0.0 + o.y * 0.0) + (o.z * 0.0 + d.x * 0.0) + (d.y * 0.0 + d.z * 0.0);
        zero == 0.0
    }
}

impl Segment {
    /// The segment from `a` to `b`.
    #[must_use]
    pub const fn new(a: Point, b: Point) -> Self {
        Self { a, b }
    }

    /// `b − a`.
    #[must_use]
    #[inline]
    pub fn direction(&self) -> Vector {
        self.b - self.a
    }

    /// Length of the segment.
    #[must_use]
    pub fn length(&self) -> Real {
        self.direction().norm()
    }

    /// The point at parameter `t` (`a` at 0, `b` at 1).
    #[must_use]
    pub fn point_at(&self, t: Real) -> Point {
        self.a + self.direction() * t
    }

    /// The ray `a + t (b − a)`; the segment is its part with `t ∈ [0, 1]`.
    #[must_use]
    #[inline]
    pub fn to_ray(&self) -> Ray {
        Ray::new(self.a, self.direction())
    }
}
