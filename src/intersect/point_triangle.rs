//! The point of a triangle closest to a query point.
//!
//! Ericson, *Real-Time Collision Detection* §5.1.5: classify the query point
//! against the Voronoi regions of the vertices, then the edges, then the face,
//! using only dot products. Those region tests assume a proper triangle; for a
//! degenerate or sliver triangle they divide by (nearly) zero or choose the
//! wrong region, so such triangles take a robust path instead: the nearest of
//! the three edge points and, when it lies inside, the projection onto the
//! plane. A degenerate triangle is thereby treated as the segment or point it
//! is, and no input produces NaN from finite coordinates.

use nalgebra::Point3;

use crate::math::{Point, Real};
use crate::shape::Triangle;

/// Below this value of `sin²` of the triangle's smallest angle the Voronoi
/// region tests are not trusted and the robust path runs (a dimensionless
/// shape threshold, `sin θ < 0.1`, not a length). The region tests' face
/// weights are differences of products of nearly proportional dot
/// products on thin triangles: at `sin θ = 10⁻³` (the threshold until a
/// hunt against `f64`) a point inside a window sill of aspect 400 came out
/// 0.05 from it, and 5% of points on triangles of aspect 100 beyond `64 ε`.
const SLIVER_SIN_SQUARED: Real = 1e-2;

/// The point of a triangle closest to a query point.
///
/// `point = w·a + u·b + v·c` with non-negative weights summing to 1 (up to
/// rounding), matching [`Triangle::point_at`]`(u, v)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleClosestPoint {
    /// The closest point of the triangle.
    pub point: Point,
    /// Barycentric weight of vertex `b`.
    pub u: Real,
    /// Barycentric weight of vertex `c`.
    pub v: Real,
    /// Barycentric weight of vertex `a`.
    pub w: Real,
}

impl TriangleClosestPoint {
    /// The point with weights `[a, b, c]` of the triangle's vertices.
    fn at_weights(tri: &Triangle, [w, u, v]: [Real; 3]) -> Self {
        let point = tri.a + (tri.b - tri.a) * u + (tri.c - tri.a) * v;
        Self { point, u, v, w }
    }

    /// A vertex, returned exactly, with its weights `[a, b, c]`.
    fn vertex(point: Point, [w, u, v]: [Real; 3]) -> Self {
        Self { point, u, v, w }
    }
}

/// The point of `tri` closest to `p`, with its barycentric coordinates.
///
/// Degenerate triangles (collinear or coincident vertices) give the closest
/// point of the segment or point they span. With NaN or infinite input the
/// result is unspecified (it may contain NaN), but the call does not panic.
#[must_use]
#[inline(always)]
pub fn closest_point_on_triangle(p: &Point, tri: &Triangle) -> TriangleClosestPoint {
    let (a, b, c) = (tri.a, tri.b, tri.c);
    let ab = b - a;
    let ac = c - a;
    let bc = c - b;
    let n = ab.cross(&ac);
    let nn = n.norm_squared();
    // |n| = product of the two longest edges × sin(smallest angle).
    let (lab, lac, lbc) = (ab.norm_squared(), ac.norm_squared(), bc.norm_squared());
    let longest_pair = (lab * lac).max(lab * lbc).max(lac * lbc);
    // False for NaN, for degenerate triangles and for slivers, and where
    // the fourth powers leave `f32`'s normal range (edges below about 1e-8
    // or above about 4e9): the region tests' products would round to
    // subnormals or overflow.
    let well_shaped = nn > SLIVER_SIN_SQUARED * longest_pair
        && (Real::MIN_POSITIVE / SLIVER_SIN_SQUARED..=Real::MAX).contains(&longest_pair);
    if !well_shaped {
        return closest_point_robust(p, tri);
    }

    // Ericson's region tests, vertex a, b, then edge ab, and so on.
    let ap = p - a;
    let d1 = ab.dot(&ap);
    let d2 = ac.dot(&ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return TriangleClosestPoint::vertex(a, [1.0, 0.0, 0.0]);
    }
    let bp = p - b;
    let d3 = ab.dot(&bp);
    let d4 = ac.dot(&bp);
    if d3 >= 0.0 && d4 <= d3 {
        return TriangleClosestPoint::vertex(b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let t = ratio(d1, d1 - d3);
        return TriangleClosestPoint::at_weights(tri, [1.0 - t, t, 0.0]);
    }
    let cp = p - c;
    let d5 = ab.dot(&cp);
    let d6 = ac.dot(&cp);
    if d6 >= 0.0 && d5 <= d6 {
        return TriangleClosestPoint::vertex(c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let t = ratio(d2, d2 - d6);
        return TriangleClosestPoint::at_weights(tri, [1.0 - t, 0.0, t]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let t = ratio(d4 - d3, (d4 - d3) + (d5 - d6));
        let point = b + bc * t;
        return TriangleClosestPoint {
            point,
            u: 1.0 - t,
            v: t,
            w: 0.0,
        };
    }
    // Face region. For a well-shaped triangle va + vb + vc = |n|² > 0 and all
    // three are non-negative here; the robust path guards rounding anyway.
    let denom = va + vb + vc;
    let u = vb / denom;
    let v = vc / denom;
    let w = 1.0 - u - v;
    if denom > 0.0 && u >= 0.0 && v >= 0.0 && w >= 0.0 {
        return TriangleClosestPoint::at_weights(tri, [w, u, v]);
    }
    closest_point_robust(p, tri)
}

/// `num / den` clamped to `[0, 1]`; 0 when `den` is not positive (a zero-length edge).
fn ratio(num: Real, den: Real) -> Real {
    if den > 0.0 {
        (num / den).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The nearest of the three edge points, or the projection onto the plane
/// when it falls inside the triangle and is nearer still.
///
/// In `f64`: the squared lengths and the normal's square are fourth powers
/// of the coordinates, which leave `f32`'s range for edges shorter than
/// about 3e-11 or longer than about 4e9 (the plane's projection was then
/// lost and an edge point returned, up to twice as far as the face). Every
/// `f32` input's fourth power fits in `f64`. The point is rounded to `f32`
/// once, at the end.
#[inline(never)]
fn closest_point_robust(p: &Point, tri: &Triangle) -> TriangleClosestPoint {
    let (p, a, b, c) = (
        p.cast::<f64>(),
        tri.a.cast::<f64>(),
        tri.b.cast::<f64>(),
        tri.c.cast::<f64>(),
    );
    // Edge ab, bc, ca with the barycentric weights `[w, u, v]` of each end.
    let (ab, t_ab) = closest_on_segment(&p, &a, &b);
    let (bc, t_bc) = closest_on_segment(&p, &b, &c);
    let (ca, t_ca) = closest_on_segment(&p, &c, &a);
    let mut best = (ab, [1.0 - t_ab, t_ab, 0.0]);
    let mut best_d = (best.0 - p).norm_squared();
    for candidate in [(bc, [0.0, 1.0 - t_bc, t_bc]), (ca, [t_ca, 0.0, 1.0 - t_ca])] {
        let d = (candidate.0 - p).norm_squared();
        if d < best_d {
            best = candidate;
            best_d = d;
        }
    }
    let (e1, e2, ap) = (b - a, c - a, p - a);
    let n = e1.cross(&e2);
    let nn = n.norm_squared();
    if nn > 0.0 {
        // Barycentric weights of the projection of p onto the plane.
        let u = n.dot(&ap.cross(&e2)) / nn;
        let v = n.dot(&e1.cross(&ap)) / nn;
        let w = 1.0 - u - v;
        if u >= 0.0 && v >= 0.0 && w >= 0.0 {
            let inside = a + e1 * u + e2 * v;
            if (inside - p).norm_squared() < best_d {
                best = (inside, [w, u, v]);
            }
        }
    }
    let (point, [w, u, v]) = best;
    TriangleClosestPoint {
        point: point.cast::<Real>(),
        u: u as Real,
        v: v as Real,
        w: w as Real,
    }
}

/// The point of segment `s0 s1` closest to `p` and its parameter from `s0`
/// (0 for a zero-length segment). Ericson §5.1.2.
fn closest_on_segment(p: &Point3<f64>, s0: &Point3<f64>, s1: &Point3<f64>) -> (Point3<f64>, f64) {
    let d = s1 - s0;
    let len2 = d.norm_squared();
    let t = if len2 > 0.0 {
        (d.dot(&(p - s0)) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (s0 + d * t, t)
}
