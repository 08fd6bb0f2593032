//! Triangles as three points, with the derived quantities every test needs.

use crate::bounding_volume::Aabb;
use crate::math::{Isometry, Point, Real, Vector};

/// A triangle `a, b, c`; its front face winds counter-clockwise (normal `(b − a) × (c − a)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// First vertex.
    pub a: Point,
    /// Second vertex.
    pub b: Point,
    /// Third vertex.
    pub c: Point,
}

impl Triangle {
    /// A triangle from its vertices.
    #[must_use]
    pub const fn new(a: Point, b: Point, c: Point) -> Self {
        Self { a, b, c }
    }

    /// The vertices as an array.
    #[must_use]
    pub fn vertices(&self) -> [Point; 3] {
        [self.a, self.b, self.c]
    }

    /// The (unnormalised) normal `(b − a) × (c − a)`; its length is twice the area.
    #[must_use]
    #[inline]
    pub fn scaled_normal(&self) -> Vector {
        (self.b - self.a).cross(&(self.c - self.a))
    }

    /// The unit normal, or `None` for a degenerate (zero-area) triangle
    /// ([`Triangle::is_degenerate`]).
    ///
    /// Triangles whose normal's squared length leaves `f32`'s normal range
    /// (edges below about 1e-10 or above about 1e9) are normalised in
    /// `f64`: squared in `f32`, a triangle of 1e-11 had no normal at all.
    ///
    /// The rare cases are out of line, so the common path is small enough
    /// for the compiler to inline: every closest hit ends here, and as a
    /// call it held 6% of a town closest hit's samples.
    #[must_use]
    #[inline]
    pub fn normal(&self) -> Option<Vector> {
        let n = self.scaled_normal();
        let nn = n.norm_squared();
        if nn.is_normal() {
            return Some(n / nn.sqrt());
        }
        self.normal_outside_range(n)
    }

    /// [`Triangle::normal`] when the `f32` square of the normal `n` is zero
    /// or leaves the normal range.
    #[cold]
    #[inline(never)]
    fn normal_outside_range(&self, n: Vector) -> Option<Vector> {
        if n == Vector::zeros() {
            return None;
        }
        let n = self.scaled_normal_wide();
        let length = n.norm();
        (length > 0.0 && length.is_finite()).then(|| (n / length).cast::<Real>())
    }

    /// Area of the triangle (in `f64` where the `f32` square of the
    /// normal would leave its range, as for [`Triangle::normal`]).
    #[must_use]
    pub fn area(&self) -> Real {
        let nn = self.scaled_normal().norm_squared();
        if nn.is_normal() {
            return 0.5 * nn.sqrt();
        }
        (0.5 * self.scaled_normal_wide().norm()) as Real
    }

    /// `(b − a) × (c − a)` in `f64`.
    pub(crate) fn scaled_normal_wide(&self) -> nalgebra::Vector3<f64> {
        let (a, b, c) = (
            self.a.cast::<f64>(),
            self.b.cast::<f64>(),
            self.c.cast::<f64>(),
        );
        (b - a).cross(&(c - a))
    }

    /// `sin²` of the triangle's smallest angle, in `f64` (0 for a
    /// degenerate one): how well its corners determine its plane. The
    /// normal's length over the product of the two longest edges.
    pub(crate) fn smallest_angle_sin_squared(&self) -> f64 {
        let [lab, lbc, lca] = self.edges().map(|e| e.cast::<f64>().norm_squared());
        let longest_pair = (lab * lca).max(lab * lbc).max(lca * lbc);
        if longest_pair > 0.0 {
            self.scaled_normal_wide().norm_squared() / longest_pair
        } else {
            0.0
        }
    }

    /// True when the triangle has zero area: its vertices are collinear in floating point.
    #[must_use]
    pub fn is_degenerate(&self) -> bool {
        self.scaled_normal() == Vector::zeros()
    }

    /// Mean of the three vertices.
    #[must_use]
    pub fn centroid(&self) -> Point {
        Point::from((self.a.coords + self.b.coords + self.c.coords) / 3.0)
    }

    /// The three edges `b − a`, `c − b`, `a − c`.
    #[must_use]
    pub fn edges(&self) -> [Vector; 3] {
        [self.b - self.a, self.c - self.b, self.a - self.c]
    }

    /// The point with barycentric coordinates `(1 − u − v, u, v)`.
    #[must_use]
    pub fn point_at(&self, u: Real, v: Real) -> Point {
        self.a + (self.b - self.a) * u + (self.c - self.a) * v
    }

    /// The axis-aligned box around the triangle.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        Aabb::new(
            self.a.inf(&self.b).inf(&self.c),
            self.a.sup(&self.b).sup(&self.c),
        )
    }

    /// This triangle moved by a rigid motion.
    #[must_use]
    pub fn transformed(&self, iso: &Isometry) -> Triangle {
        Triangle::new(iso * self.a, iso * self.b, iso * self.c)
    }
}
