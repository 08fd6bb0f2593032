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

use crate::math::{Point, Real, Vector};
use crate::shape::Triangle;

/// Below this value of `sin²` of the triangle's smallest angle the Voronoi
/// region tests are not trusted and the robust path runs (a dimensionless
/// shape threshold, `sin θ < 10⁻³`, not a length).
const SLIVER_SIN_SQUARED: Real = 1e-6;

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
    // False for NaN, for degenerate triangles and for slivers.
    let well_shaped = nn > SLIVER_SIN_SQUARED * longest_pair;
    if !well_shaped {
        return closest_point_robust(p, tri, &n, nn);
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
    closest_point_robust(p, tri, &n, nn)
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
#[inline(never)]
fn closest_point_robust(p: &Point, tri: &Triangle, n: &Vector, nn: Real) -> TriangleClosestPoint {
    // Edge ab, bc, ca with the barycentric weights of each end.
    let ab = closest_on_segment(p, &tri.a, &tri.b);
    let bc = closest_on_segment(p, &tri.b, &tri.c);
    let ca = closest_on_segment(p, &tri.c, &tri.a);
    let candidates = [
        TriangleClosestPoint {
            point: ab.0,
            w: 1.0 - ab.1,
            u: ab.1,
            v: 0.0,
        },
        TriangleClosestPoint {
            point: bc.0,
            w: 0.0,
            u: 1.0 - bc.1,
            v: bc.1,
        },
        TriangleClosestPoint {
            point: ca.0,
            w: ca.1,
            u: 0.0,
            v: 1.0 - ca.1,
        },
    ];
    let mut best = candidates[0];
    let mut best_d = (best.point - p).norm_squared();
    for cand in &candidates[1..] {
        let d = (cand.point - p).norm_squared();
        if d < best_d {
            best = *cand;
            best_d = d;
        }
    }
    if nn > 0.0 {
        // Barycentric weights of the projection of p onto the plane.
        let ap = p - tri.a;
        let u = n.dot(&ap.cross(&(tri.c - tri.a))) / nn;
        let v = n.dot(&(tri.b - tri.a).cross(&ap)) / nn;
        let w = 1.0 - u - v;
        if u >= 0.0 && v >= 0.0 && w >= 0.0 {
            let inside = TriangleClosestPoint::at_weights(tri, [w, u, v]);
            if (inside.point - p).norm_squared() < best_d {
                best = inside;
            }
        }
    }
    best
}

/// The point of segment `s0 s1` closest to `p` and its parameter from `s0`
/// (0 for a zero-length segment). Ericson §5.1.2.
fn closest_on_segment(p: &Point, s0: &Point, s1: &Point) -> (Point, Real) {
    let d = s1 - s0;
    let t = ratio(d.dot(&(p - s0)), d.norm_squared());
    (s0 + d * t, t)
}
