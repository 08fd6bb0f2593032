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

/// The stretch of a ray a query looks along: a segment, or a ray over a
/// parameter range. Every raycast takes one (`tree.any_hit(&segment)`,
/// `tree.closest_hit(ray.span(0.0, t_max))`), so each query is one method.
///
/// A segment keeps its end `b` as the exact point at `t = 1`, which
/// `a + 1·(b − a)` would only approximate once `b − a` is rounded: the
/// ends of a segment are decided exactly (see the endpoint contract of
/// [`crate::intersect::WatertightRay::intersect`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaySpan {
    /// The ray; for a segment `a + t (b − a)`.
    pub ray: Ray,
    /// The exact point at `t = 1`, for a segment.
    pub end: Option<Point>,
    /// Start of the range (inclusive). It may be negative (hits behind the
    /// origin); such spans descend the binary tree instead of the 8-wide
    /// layout, whose box tests pad exits for `t ≥ 0` only, and take longer.
    pub t_min: Real,
    /// End of the range (inclusive; may be infinite).
    pub t_max: Real,
}

impl RaySpan {
    /// The segment `a → b` over `t ∈ [0, 1]`.
    #[must_use]
    #[inline]
    pub fn segment(segment: &Segment) -> Self {
        RaySpan {
            ray: segment.to_ray(),
            end: Some(segment.b),
            t_min: 0.0,
            t_max: 1.0,
        }
    }
}

impl Ray {
    /// This ray over `t ∈ [t_min, t_max]` (`t_max` may be infinite).
    #[must_use]
    #[inline]
    pub fn span(&self, t_min: Real, t_max: Real) -> RaySpan {
        RaySpan {
            ray: *self,
            end: None,
            t_min,
            t_max,
        }
    }
}

impl From<&RaySpan> for RaySpan {
    #[inline]
    fn from(span: &RaySpan) -> Self {
        *span
    }
}

impl From<&Segment> for RaySpan {
    #[inline]
    fn from(segment: &Segment) -> Self {
        RaySpan::segment(segment)
    }
}

impl From<Segment> for RaySpan {
    #[inline]
    fn from(segment: Segment) -> Self {
        RaySpan::segment(&segment)
    }
}

/// A segment from its end points in any type that converts to [`Point`]:
/// with the `glam` feature `glam::Vec3` and `Vec3A`, with `mint`
/// `mint::Point3<f32>`.
impl<A: Into<Point>, B: Into<Point>> From<(A, B)> for Segment {
    #[inline]
    fn from((a, b): (A, B)) -> Self {
        Segment::new(a.into(), b.into())
    }
}

/// The segment between two points, `t ∈ [0, 1]`: queries take end points
/// of any type that converts to [`Point`] (`tree.any_hit((eye, target))`).
///
/// ```
/// # use boxtree::{Aabb, MeshTree, Point, TriMesh};
/// let ball = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 2));
/// let (eye, target) = (Point::new(-3.0, 0.0, 0.0), Point::new(3.0, 0.0, 0.0));
/// assert!(ball.any_hit((eye, target)).is_some());
/// // With the `mint` feature, mint's points (and with `glam`, `Vec3`/`Vec3A`):
/// # #[cfg(feature = "mint")] {
/// let eye = mint::Point3 { x: -3.0, y: 0.0, z: 0.0 };
/// let target = mint::Point3 { x: 3.0, y: 0.0, z: 0.0 };
/// assert!(ball.any_hit((eye, target)).is_some());
/// # }
/// # #[cfg(feature = "glam")] {
/// let hit = ball.closest_hit((glam::Vec3::new(-3.0, 0.0, 0.0), glam::Vec3::ZERO)).unwrap();
/// let normal: glam::Vec3 = hit.normal.into();
/// assert!(normal.x < -0.9);
/// # }
/// ```
impl<A: Into<Point>, B: Into<Point>> From<(A, B)> for RaySpan {
    #[inline]
    fn from(ends: (A, B)) -> Self {
        RaySpan::segment(&Segment::from(ends))
    }
}

/// The whole ray, `t ∈ [0, ∞)`.
impl From<Ray> for RaySpan {
    #[inline]
    fn from(ray: Ray) -> Self {
        ray.span(0.0, Real::INFINITY)
    }
}

/// The whole ray, `t ∈ [0, ∞)`.
impl From<&Ray> for RaySpan {
    #[inline]
    fn from(ray: &Ray) -> Self {
        ray.span(0.0, Real::INFINITY)
    }
}
