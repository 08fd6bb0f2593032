//! Triangles stored by axis for the 4-lane watertight test.

use super::Lanes;
use crate::bounding_volume::Aabb;
use crate::math::{Point, Real};
use crate::shape::Triangle;

/// A triangle stored by axis, `x = [a.x, b.x, c.x, ·]`, so the watertight
/// test transforms all three vertices with 4-lane operations. The test
/// never reads the fourth lane's results, so mesh trees (which keep their
/// triangles this way, in leaf order) store the triangle's id and whether
/// rays can hit it there (`crate::query`'s leaf storage): a hit then needs
/// no other memory than the triangle's own lines.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct TriangleLanes {
    pub(super) x: Lanes,
    pub(super) y: Lanes,
    pub(super) z: Lanes,
}

impl From<&Triangle> for TriangleLanes {
    #[inline(always)]
    fn from(t: &Triangle) -> Self {
        TriangleLanes {
            x: [t.a.x, t.b.x, t.c.x, t.a.x],
            y: [t.a.y, t.b.y, t.c.y, t.a.y],
            z: [t.a.z, t.b.z, t.c.z, t.a.z],
        }
    }
}

impl TriangleLanes {
    /// A triangle with `w` in each fourth lane (the test never reads them;
    /// the query layer's leaf storage keeps a triangle's id and flags there).
    #[must_use]
    #[inline(always)]
    pub(crate) fn with_fourth_lanes(tri: &Triangle, w: [Real; 3]) -> Self {
        TriangleLanes {
            x: [tri.a.x, tri.b.x, tri.c.x, w[0]],
            y: [tri.a.y, tri.b.y, tri.c.y, w[1]],
            z: [tri.a.z, tri.b.z, tri.c.z, w[2]],
        }
    }

    /// The fourth lanes (see [`TriangleLanes::with_fourth_lanes`]).
    #[must_use]
    #[inline(always)]
    pub(crate) fn fourth_lanes(&self) -> [Real; 3] {
        [self.x[3], self.y[3], self.z[3]]
    }

    /// Squared distance from `p` to the triangle's bounding box: a lower
    /// bound of its distance that nearest-point descents test before the
    /// exact closest point (Arvo 1990).
    #[must_use]
    #[inline(always)]
    pub(crate) fn box_distance_squared(&self, p: &Point) -> Real {
        crate::simd::triangle_box_distance_squared(&[self.x, self.y, self.z], &[p.x, p.y, p.z, 0.0])
    }

    /// The triangle's bounding box, from its lanes (the same box as
    /// `Triangle::aabb`: minima and maxima are exact).
    #[must_use]
    #[inline(always)]
    pub(crate) fn aabb(&self) -> Aabb {
        Aabb {
            min: Point::new(min3(&self.x), min3(&self.y), min3(&self.z)),
            max: Point::new(max3(&self.x), max3(&self.y), max3(&self.z)),
        }
    }

    /// The triangle back in vertex form.
    #[inline(always)]
    pub(crate) fn triangle(&self) -> Triangle {
        let vertex = |i: usize| Point::new(self.x[i], self.y[i], self.z[i]);
        Triangle::new(vertex(0), vertex(1), vertex(2))
    }
}

/// Lane-wise `|v|`.
#[inline(always)]
pub(super) fn abs4(v: &Lanes) -> Lanes {
    v.map(Real::abs)
}

/// Lane-wise maximum, as one `maxps` (a NaN operand may be dropped, unlike
/// `f32::max`; every caller rejects NaN elsewhere).
#[inline(always)]
pub(super) fn max4(a: &Lanes, b: &Lanes) -> Lanes {
    std::array::from_fn(|i| if a[i] > b[i] { a[i] } else { b[i] })
}

/// The minimum of lanes 0 to 2 (the fourth holds no vertex).
#[inline(always)]
pub(super) fn min3(v: &Lanes) -> Real {
    let m = if v[0] < v[1] { v[0] } else { v[1] };
    if m < v[2] { m } else { v[2] }
}

/// The maximum of lanes 0 to 2 (the fourth holds no vertex).
#[inline(always)]
pub(super) fn max3(v: &Lanes) -> Real {
    let m = if v[0] > v[1] { v[0] } else { v[1] };
    if m > v[2] { m } else { v[2] }
}
