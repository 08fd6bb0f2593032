//! Triangle–triangle overlap, exact for `f32` input.
//!
//! Guigue & Devillers, "Fast and Robust Triangle-Triangle Overlap Test Using
//! Orientation Predicates" (JGT 8(1), 2003). Every decision is the sign of an
//! orientation determinant, never a computed intersection point:
//!
//! 1. The vertices of each triangle against the plane of the other: all on one
//!    side (strictly) means no overlap; all on the plane means coplanar.
//! 2. Otherwise both triangles cross the planes' common line. Rotating each
//!    triangle so its lone vertex comes first, and flipping the other
//!    triangle's orientation so that vertex lies on the positive side, the
//!    two intervals on that line overlap exactly when two more orientations
//!    are non-positive.
//! 3. Coplanar triangles are projected onto the coordinate plane where they
//!    stay proper and tested in 2-D: they are disjoint exactly when some edge
//!    line of one has the whole other triangle strictly outside it.
//!
//! The predicates are evaluated exactly: a floating-point filter in `f64`
//! with Shewchuk's error bound ("Adaptive Precision Floating-Point Arithmetic
//! and Fast Robust Geometric Predicates", 1997) decides almost every case; the
//! rest are summed exactly as floating-point expansions. Products of `f32`
//! coordinates neither overflow nor underflow in `f64`, so the answer is the
//! exact answer for the given coordinates, including touching (shared vertex,
//! shared edge, vertex on face), near-coplanar and coplanar pairs, at any
//! scale.
//!
//! Degenerate triangles (exactly collinear or coincident vertices) overlap
//! nothing: they have no plane for step 1, and the mesh layer excludes
//! zero-area triangles from contacts anyway.

use crate::exact::{orient2d, orient3d, sign};
use crate::math::{Point, Real, is_finite_point};
use crate::shape::Triangle;

/// True when the two triangles share at least one point (touching counts).
///
/// The answer is exact for the given `f32` coordinates (see the module
/// documentation). Degenerate triangles and NaN or infinite coordinates give
/// `false`.
#[must_use]
pub fn triangles_overlap(t1: &Triangle, t2: &Triangle) -> bool {
    let v1 = t1.vertices();
    let v2 = t2.vertices();
    if !v1.iter().chain(&v2).all(is_finite_point) {
        return false;
    }
    let [p1, q1, r1] = v1;
    let [p2, q2, r2] = v2;
    // Sides of T1's vertices with respect to T2's plane, and vice versa.
    let s1 = [p1, q1, r1].map(|x| sign(orient3d(&p2, &q2, &r2, &x)));
    if strictly_one_side(&s1) {
        return false;
    }
    let mut s2 = [p2, q2, r2].map(|x| sign(orient3d(&p1, &q1, &r1, &x)));
    if strictly_one_side(&s2) {
        return false;
    }
    if s1 == [0; 3] || s2 == [0; 3] {
        // A degenerate triangle puts the other one's vertices all on its
        // "plane"; proper triangles do so only when coplanar.
        return s1 == [0; 3]
            && s2 == [0; 3]
            && !is_degenerate(t1)
            && !is_degenerate(t2)
            && coplanar_overlap(t1, t2);
    }
    // Both triangles are proper and cross (or touch) the other's plane.
    let (k1, flip1) = lone_vertex(&s1);
    let mut v1 = rotated(v1, k1);
    let mut v2 = v2;
    if flip1 {
        // Reverse T2 so that T1's lone vertex is on the positive side of it.
        v2.swap(1, 2);
        s2.swap(1, 2);
    }
    let (k2, flip2) = lone_vertex(&s2);
    let v2 = rotated(v2, k2);
    if flip2 {
        v1.swap(1, 2);
    }
    let [p1, q1, r1] = v1;
    let [p2, q2, r2] = v2;
    // The intervals [i, j] of T1 (on edges p1q1, p1r1) and [k, l] of T2 on
    // the common line overlap exactly when k ≤ j and i ≤ l.
    orient3d(&p1, &q1, &p2, &q2) <= 0.0 && orient3d(&p1, &r1, &r2, &p2) <= 0.0
}

fn strictly_one_side(s: &[i8; 3]) -> bool {
    s[0] != 0 && s[0] == s[1] && s[0] == s[2]
}

/// The vertex alone on its side of the other plane and whether the other
/// triangle must be reversed to put that vertex on its positive side.
///
/// Precondition: the signs are neither all zero nor all equal and non-zero.
/// The chosen vertex `k` satisfies `σ s[k] ≥ 0 ≥ σ s[other]` with `σ = ±1`,
/// and when `s[k] = 0` the other two are non-zero, so the triangle meets the
/// plane in the segment between its edges from `k`.
fn lone_vertex(s: &[i8; 3]) -> (usize, bool) {
    for k in 0..3 {
        let (x, o1, o2) = (s[k], s[(k + 1) % 3], s[(k + 2) % 3]);
        let others_nonpositive = o1 <= 0 && o2 <= 0;
        let others_nonnegative = o1 >= 0 && o2 >= 0;
        if (x > 0 && others_nonpositive) || (x == 0 && o1 < 0 && o2 < 0) {
            return (k, false);
        }
        if (x < 0 && others_nonnegative) || (x == 0 && o1 > 0 && o2 > 0) {
            return (k, true);
        }
    }
    // Unreachable under the precondition: with a positive and a negative
    // sign one of them is alone; otherwise the zero or the lone non-zero is.
    (0, false)
}

/// The vertices rotated cyclically so that `k` comes first (orientation kept).
fn rotated(v: [Point; 3], k: usize) -> [Point; 3] {
    [v[k], v[(k + 1) % 3], v[(k + 2) % 3]]
}

/// True when the vertices are exactly collinear (or coincident). Finite input only.
pub(crate) fn is_degenerate(t: &Triangle) -> bool {
    (0..3).all(|axis| orient2d_projected(t, axis) == 0.0)
}

/// The 2-D orientation of the triangle projected along `axis` (that
/// coordinate dropped), with exact sign.
fn orient2d_projected(t: &Triangle, axis: usize) -> f64 {
    let [a, b, c] = t.vertices().map(|p| project(&p, axis));
    orient2d(&a, &b, &c)
}

/// The point with coordinate `axis` dropped; the other two keep cyclic order.
fn project(p: &Point, axis: usize) -> [Real; 2] {
    [p[(axis + 1) % 3], p[(axis + 2) % 3]]
}

/// Overlap of two proper, exactly coplanar triangles, decided in the
/// coordinate plane onto which their plane projects one-to-one.
fn coplanar_overlap(t1: &Triangle, t2: &Triangle) -> bool {
    for axis in [2, 0, 1] {
        let o1 = orient2d_projected(t1, axis);
        if o1 != 0.0 {
            // The plane's normal has a non-zero `axis` component, so T2's
            // projection is proper too.
            let a = t1.vertices().map(|p| project(&p, axis));
            let b = t2.vertices().map(|p| project(&p, axis));
            let o2 = orient2d(&b[0], &b[1], &b[2]);
            return !edge_separates(&a, sign(o1), &b) && !edge_separates(&b, sign(o2), &a);
        }
    }
    false
}

/// True when some edge line of `a` (orientation sign `orientation`) has all of
/// `b` strictly on its outer side: the separating-axis test for convex
/// polygons in 2-D, with touching not separating.
fn edge_separates(a: &[[Real; 2]; 3], orientation: i8, b: &[[Real; 2]; 3]) -> bool {
    (0..3).any(|i| {
        let (e0, e1) = (&a[i], &a[(i + 1) % 3]);
        b.iter().all(|x| sign(orient2d(e0, e1, x)) == -orientation)
    })
}
