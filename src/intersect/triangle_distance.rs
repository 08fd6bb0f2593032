//! Closest points of two segments and of two triangles.
//!
//! Segments: Ericson, *Real-Time Collision Detection* §5.1.9 (the closest
//! points of the two lines, clamped to the segments in turn), with the
//! zero-length cases as points. Triangles: two triangles that do not
//! intersect are nearest at a vertex of one and the face of the other, or
//! at a pair of edges (Ericson §5.1.9, "closest points of two triangles"),
//! so the answer is the best of the vertices whose projection falls inside
//! the other face and the nine edge–edge candidates; triangles that intersect (the exact test of
//! [`crate::intersect::triangles_overlap`]) are at distance 0, their common
//! point found where an edge of one crosses the other.

use crate::intersect::triangle_triangle::is_degenerate;
use crate::intersect::{segment_triangle, triangles_overlap};
use crate::math::{Point, Real, Vector, distance_squared_wide, is_finite_point};
use crate::shape::{Segment, Triangle};
use nalgebra::{Point3, RealField, Vector3};

/// The closest points of two segments `p1 q1` and `p2 q2`, and their
/// parameters `s`, `t ∈ [0, 1]`: `c1 = p1 + s (q1 − p1)`, `c2 = p2 + t (q2 − p2)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentClosestPoints {
    /// The point of the first segment.
    pub c1: Point,
    /// The point of the second segment.
    pub c2: Point,
    /// Parameter of `c1` on the first segment.
    pub s: Real,
    /// Parameter of `c2` on the second segment.
    pub t: Real,
}

/// The closest points of two segments (Ericson §5.1.9). Zero-length
/// segments are points; parallel segments give one of the closest pairs.
///
/// The solve multiplies four lengths (`|d₁|² |d₂|²`): where that product
/// leaves `f32`'s normal range (segments longer than about 4e9 or shorter
/// than about 1e-10, or far apart for their length) the parameters are
/// solved in `f64` instead, which in `f32` came out NaN or as the
/// parallel case's answer.
#[must_use]
pub fn closest_points_segments(first: &Segment, second: &Segment) -> SegmentClosestPoints {
    let (p1, p2) = (first.a, second.a);
    let (d1, d2, r) = (first.b - p1, second.b - p2, p1 - p2);
    let (a, e, rr) = (d1.norm_squared(), d2.norm_squared(), r.norm_squared());
    // `a e` normal bounds `b²` and the denominator; `a r²` and `e r²`
    // finite bound the numerator's `b f` and `c e` (both at most
    // `√(a e · e r²)` or `√(a e · a r²)` in size).
    let (s, t) = if (a * e).is_normal() && (a * rr).is_finite() && (e * rr).is_finite() {
        segment_parameters(&d1, &d2, &r, Real::MIN_POSITIVE)
    } else {
        let wide = |v: &Vector| v.cast::<f64>();
        let (s, t) = segment_parameters(&wide(&d1), &wide(&d2), &wide(&r), f64::MIN_POSITIVE);
        (s as Real, t as Real)
    };
    SegmentClosestPoints {
        c1: p1 + d1 * s,
        c2: p2 + d2 * t,
        s,
        t,
    }
}

/// The parameters `(s, t)` of the closest points `p1 + s d1`, `p2 + t d2`
/// of two segments, `r = p1 − p2` (Ericson §5.1.9); squared lengths up to
/// `tiny` count as points. Generic so that the `f64` sweeps
/// (`crate::sweep`) share it.
pub(crate) fn segment_parameters<T: RealField + Copy>(
    d1: &Vector3<T>,
    d2: &Vector3<T>,
    r: &Vector3<T>,
    tiny: T,
) -> (T, T) {
    let (zero, one) = (T::zero(), T::one());
    let unit = |x: T| x.clamp(zero, one);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(r));
    if a <= tiny && e <= tiny {
        return (zero, zero);
    }
    if a <= tiny {
        return (zero, unit(f / e));
    }
    let c = d1.dot(r);
    if e <= tiny {
        return (unit(-c / a), zero);
    }
    let b = d1.dot(d2);
    let denom = a * e - b * b;
    // Parallel lines (denominator 0): any s will do; take 0.
    let s = if denom > zero {
        unit((b * f - c * e) / denom)
    } else {
        zero
    };
    let t = (b * s + f) / e;
    if t < zero {
        (unit(-c / a), zero)
    } else if t > one {
        (unit((b - c) / a), one)
    } else {
        (s, t)
    }
}

/// The closest points of two triangles and their distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleDistance {
    /// The point of the first triangle.
    pub p1: Point,
    /// The point of the second triangle.
    pub p2: Point,
    /// `|p1 − p2|`, exactly 0 for triangles that intersect.
    pub distance: Real,
}

/// Below this `sin²` of its smallest angle a triangle's plane does not
/// place a crossing (see [`triangle_distance_knowing`]).
const SLIVER_PLANE: f64 = 1e-4;

/// The distance between two triangles and a closest pair of points.
/// Degenerate triangles are the segment or point they span: at distance 0
/// where such a segment crosses the other triangle. NaN or infinite input
/// gives a NaN distance and points (the routine's branches would otherwise
/// pick a finite candidate: a NaN vertex answered 0).
#[must_use]
pub fn triangle_distance(t1: &Triangle, t2: &Triangle) -> TriangleDistance {
    let finite = |t: &Triangle| t.vertices().iter().all(is_finite_point);
    if !(finite(t1) && finite(t2)) {
        let nan = Point::new(Real::NAN, Real::NAN, Real::NAN);
        return TriangleDistance {
            p1: nan,
            p2: nan,
            distance: Real::NAN,
        };
    }
    triangle_distance_knowing(t1, t2, triangles_overlap(t1, t2), false)
}

/// [`triangle_distance`] when the exact overlap test's answer is already
/// known (`false` for triangles whose boxes are apart, or after an overlap
/// query found no touching pair): the test is the routine's costliest part.
/// `needle` says that one of the triangles is degenerate where it was
/// made, before a change of frame whose rounding may have given it an
/// area: its edges are then tried against the other as a degenerate one's
/// are (the overlap test, and so `overlapping`, leaves such triangles out).
#[must_use]
#[inline]
pub(crate) fn triangle_distance_knowing(
    t1: &Triangle,
    t2: &Triangle,
    overlapping: bool,
    needle: bool,
) -> TriangleDistance {
    let edges = |t: &Triangle| {
        [
            Segment::new(t.a, t.b),
            Segment::new(t.b, t.c),
            Segment::new(t.c, t.a),
        ]
    };
    let (e1, e2) = (edges(t1), edges(t2));
    // The exact test leaves out degenerate triangles, but a needle through
    // a face touches it: their edges are tried against the other too.
    if overlapping || needle || t1.is_degenerate() || t2.is_degenerate() {
        // An edge of one crosses the other, unless the two are coplanar
        // and one lies inside the other (then the candidates below find a
        // vertex on the other's face). The thinner triangle's edges go
        // first: a crossing's point comes from the other's plane, which a
        // needle's noise normal puts anywhere along the crossing edge (a
        // point 5e-3 off a needle, where its own edge crossed the other's
        // face exactly).
        let (q1, q2) = (
            t1.smallest_angle_sin_squared(),
            t2.smallest_angle_sin_squared(),
        );
        let order = if q1 < q2 {
            [(&e1, t2, &e2, q2), (&e2, t1, &e1, q1)]
        } else {
            [(&e2, t1, &e1, q1), (&e1, t2, &e2, q2)]
        };
        for (edges, other, other_edges, other_quality) in order {
            for edge in edges {
                if let Some(hit) = segment_triangle(edge, other) {
                    // Crossing a sliver (the other has no edge through this
                    // one's face), the edge's point nearest the sliver's
                    // edges, not the plane's noise.
                    let at = if other_quality < SLIVER_PLANE {
                        (other_edges.iter())
                            .map(|o| closest_points_segments(edge, o))
                            .min_by(|x, y| {
                                let gap = |c: &SegmentClosestPoints| (c.c1 - c.c2).norm_squared();
                                gap(x).total_cmp(&gap(y))
                            })
                            .map_or(edge.a, |c| c.c1)
                    } else {
                        edge.a + (edge.b - edge.a) * hit.t
                    };
                    return TriangleDistance {
                        p1: at,
                        p2: at,
                        distance: 0.0,
                    };
                }
            }
        }
    }
    // Each triangle's normal once. Their squares are fourth powers of the
    // edges: where one rounds to a subnormal or overflows (edges below
    // about 1e-10 or above about 1e9), and where the nearest squared
    // distance does (points below about 1e-19 or above about 1.8e19
    // apart), the candidates are measured again in `f64`, off the path
    // every pair takes. In `f32` those cases made every vertex project
    // onto itself: meshes 1e10 apart measured 0.
    let (n1, n2) = (t1.scaled_normal(), t2.scaled_normal());
    let (nn1, nn2) = (n1.norm_squared(), n2.norm_squared());
    // A normal number, or zero for a triangle whose corners are exactly
    // collinear (it has no face); a proper triangle's square that
    // underflowed to zero would lose its face.
    let in_range = |nn: Real, t: &Triangle| nn.is_normal() || (nn == 0.0 && is_degenerate(t));
    if !(in_range(nn1, t1) && in_range(nn2, t2)) {
        return nearest_pair_wide(t1, t2, &e1, &e2, overlapping);
    }
    let mut best = TriangleDistance {
        p1: t1.a,
        p2: t2.a,
        distance: Real::INFINITY,
    };
    let mut offer = |p1: Point, p2: Point| {
        let d = (p1 - p2).norm_squared();
        if d < best.distance {
            best = TriangleDistance {
                p1,
                p2,
                distance: d,
            };
        }
    };
    // A vertex whose nearest point on the other triangle lies on that
    // triangle's boundary is no nearer than the best edge pair, so only
    // projections falling inside the face are candidates.
    for v in t1.vertices() {
        if let Some(q) = face_projection(&v, t2, &n2, nn2) {
            offer(v, q);
        }
    }
    for v in t2.vertices() {
        if let Some(q) = face_projection(&v, t1, &n1, nn1) {
            offer(q, v);
        }
    }
    for s1 in &e1 {
        for s2 in &e2 {
            let c = closest_points_segments(s1, s2);
            offer(c.c1, c.c2);
        }
    }
    if !best.distance.is_normal() && !overlapping {
        return nearest_pair_wide(t1, t2, &e1, &e2, overlapping);
    }
    TriangleDistance {
        distance: if overlapping {
            0.0
        } else {
            best.distance.sqrt()
        },
        ..best
    }
}

/// The candidates of [`triangle_distance_knowing`] (vertex projections
/// falling inside the other face, nearest points of every edge pair) with
/// the projections and squared distances in `f64`, for triangles whose
/// sizes or distance leave `f32`'s range when squared.
#[cold]
#[inline(never)]
fn nearest_pair_wide(
    t1: &Triangle,
    t2: &Triangle,
    e1: &[Segment; 3],
    e2: &[Segment; 3],
    overlapping: bool,
) -> TriangleDistance {
    let mut best = (f64::INFINITY, t1.a, t2.a);
    let mut offer = |p1: Point, p2: Point| {
        let d2 = distance_squared_wide(&p1, &p2);
        if d2 < best.0 {
            best = (d2, p1, p2);
        }
    };
    for v in t1.vertices() {
        if let Some(q) = face_projection_wide(&v, t2) {
            offer(v, q);
        }
    }
    for v in t2.vertices() {
        if let Some(q) = face_projection_wide(&v, t1) {
            offer(q, v);
        }
    }
    for s1 in e1 {
        for s2 in e2 {
            let c = closest_points_segments(s1, s2);
            offer(c.c1, c.c2);
        }
    }
    let (d2, p1, p2) = best;
    TriangleDistance {
        p1,
        p2,
        distance: if overlapping { 0.0 } else { d2.sqrt() as Real },
    }
}

/// The projection of `p` onto the plane of `tri` (normal `n`, `nn = |n|²`)
/// when it falls inside the triangle (edges included), else `None`;
/// `None` for a degenerate triangle.
#[inline(always)]
fn face_projection(p: &Point, tri: &Triangle, n: &Vector, nn: Real) -> Option<Point> {
    projection_inside(p, [&tri.a, &tri.b, &tri.c], n, nn)
}

/// [`face_projection`] in `f64`, for triangles whose normal's square
/// leaves `f32`'s normal range; `None` for a degenerate triangle.
#[cold]
#[inline(never)]
fn face_projection_wide(p: &Point, tri: &Triangle) -> Option<Point> {
    let [a, b, c] = [tri.a, tri.b, tri.c].map(|v| v.cast::<f64>());
    let n = tri.scaled_normal_wide();
    let nn = n.norm_squared();
    if !nn.is_finite() {
        return None;
    }
    projection_inside(&p.cast::<f64>(), [&a, &b, &c], &n, nn).map(|q| q.cast::<Real>())
}

/// The projection of `p` onto the plane through `a, b, c` with normal `n`
/// (`nn = |n|²`), when it lies inside the triangle or on its edges; `None`
/// when `nn` is not positive.
#[inline(always)]
fn projection_inside<T: RealField + Copy>(
    p: &Point3<T>,
    [a, b, c]: [&Point3<T>; 3],
    n: &Vector3<T>,
    nn: T,
) -> Option<Point3<T>> {
    if !(nn > T::zero()) {
        return None;
    }
    let q = p - n * (n.dot(&(p - a)) / nn);
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|(u, v)| (*v - *u).cross(&(q - *u)).dot(n) >= T::zero());
    inside.then_some(q)
}
