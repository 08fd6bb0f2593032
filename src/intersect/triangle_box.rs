//! Triangles against axis-aligned and oriented boxes: the 13-axis
//! separating-axis test of Akenine-Möller, "Fast 3D Triangle-Box Overlap
//! Testing" (JGT 6(1), 2001); Ericson §5.2.9.
//!
//! A triangle and a box are disjoint exactly when one of these axes separates
//! their projections: the 3 box face normals, the triangle normal, and the 9
//! cross products of a triangle edge with a box axis. The oriented box is
//! handled by moving the triangle into the box frame, where the box is
//! axis-aligned and centred at the origin.
//!
//! Differences from the published listing: every axis projects all three
//! vertices (the listing projects two per edge axis, relying on an equality
//! that rounding breaks), and comparisons are inclusive so touching counts.
//! The face axes of an [`Aabb`] compare coordinates directly, so touching on
//! them is exact; the other axes work relative to the box centre, so there it
//! is decided up to that rounding. An edge parallel to a box axis gives an
//! exactly zero cross product, whose projections are `0 ≤ 0`: it never
//! separates, so no epsilon guard is needed. A degenerate (zero-area)
//! triangle has a zero normal, which never separates either; the remaining
//! axes are complete for the segment or point it spans, which is what it is
//! tested as.

use crate::bounding_volume::{Aabb, Obb};
use crate::math::{Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::Triangle;

/// True when the triangle and the axis-aligned box share a point (touching counts).
///
/// An empty box overlaps nothing. NaN or infinite coordinates give `false`.
#[must_use]
pub fn triangle_overlaps_aabb(tri: &Triangle, aabb: &Aabb) -> bool {
    let finite = is_finite_point(&aabb.min)
        && is_finite_point(&aabb.max)
        && tri.vertices().iter().all(is_finite_point);
    if !finite || aabb.is_empty() {
        return false;
    }
    // Box face axes: compare the triangle's bounds with the box, exactly.
    let lo = tri.a.inf(&tri.b).inf(&tri.c);
    let hi = tri.a.sup(&tri.b).sup(&tri.c);
    if !(0..3).all(|i| lo[i] <= aabb.max[i] && aabb.min[i] <= hi[i]) {
        return false;
    }
    let center = aabb.center();
    let v = tri.vertices().map(|p| p - center);
    !normal_or_edge_axis_separates(&v, &aabb.half_extents())
}

/// True when the triangle and the oriented box share a point (touching counts).
///
/// NaN or infinite coordinates give `false`.
#[must_use]
pub fn triangle_overlaps_obb(tri: &Triangle, obb: &Obb) -> bool {
    let finite = is_finite_point(&obb.center)
        && obb.axes.iter().all(|x| x.is_finite())
        && is_finite_vector(&obb.half_extents)
        && tri.vertices().iter().all(is_finite_point);
    if !finite {
        return false;
    }
    let v = tri.vertices().map(|p| obb.to_local(&p));
    let h = obb.half_extents;
    // Box face axes in the box frame.
    let separated_on_face = (0..3).any(|i| {
        let lo = v[0][i].min(v[1][i]).min(v[2][i]);
        let hi = v[0][i].max(v[1][i]).max(v[2][i]);
        !(lo <= h[i] && -h[i] <= hi)
    });
    !separated_on_face && !normal_or_edge_axis_separates(&v, &h)
}

/// True when the triangle normal or one of the 9 edge × box-axis products
/// separates the triangle `v` (coordinates relative to the box centre) from
/// the centred box with half-extents `h`.
///
/// The normal axis's projections are products of three coordinates: in
/// `f32` they overflow from about 5e12 (∞ − ∞ is NaN, which separates: a
/// triangle 2e13 across through a unit box was called apart) and turn
/// subnormal, rounded by an absolute amount, below about 1e-13. Such input
/// is first scaled by a power of two that brings its largest magnitude
/// near 1: the test is scale-free, and a power of two changes no rounding,
/// so it decides as it would with unbounded exponents.
fn normal_or_edge_axis_separates(v: &[Vector; 3], h: &Vector) -> bool {
    const LOW: Real = 2.328_306_4e-10; // 2⁻³²
    const HIGH: Real = 4_294_967_296.0; // 2³²
    let largest = v.iter().fold(h.amax(), |m, x| m.max(x.amax()));
    if largest > 0.0 && largest.is_finite() && !(LOW..=HIGH).contains(&largest) {
        // Its exponent is that of the power of two just below it.
        let exponent = largest.log2().floor() as i32;
        // Two factors, each within `f32`'s normal exponents.
        let (first, second) = (
            power_of_two(-exponent / 2),
            power_of_two(exponent / 2 - exponent),
        );
        let scale = |x: &Vector| x * first * second;
        return separated_at_unit_scale(&v.map(|x| scale(&x)), &scale(h));
    }
    separated_at_unit_scale(v, h)
}

/// `2ⁿ` for `n` in −126..=127.
fn power_of_two(n: i32) -> Real {
    Real::from_bits(((127 + n) as u32) << 23)
}

/// [`normal_or_edge_axis_separates`] on input whose products stay normal.
fn separated_at_unit_scale(v: &[Vector; 3], h: &Vector) -> bool {
    let edges = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let normal = edges[0].cross(&edges[1]);
    if axis_separates(v, h, &normal) {
        return true;
    }
    let box_axes = [Vector::x(), Vector::y(), Vector::z()];
    edges
        .iter()
        .any(|e| box_axes.iter().any(|u| axis_separates(v, h, &e.cross(u))))
}

/// True when the projections of the triangle and the centred box onto `axis`
/// are disjoint. Touching projections do not separate; NaN separates.
fn axis_separates(v: &[Vector; 3], h: &Vector, axis: &Vector) -> bool {
    let p = v.map(|x| axis.dot(&x));
    let radius = h.dot(&axis.abs());
    let lo = p[0].min(p[1]).min(p[2]);
    let hi = p[0].max(p[1]).max(p[2]);
    !(lo <= radius && -radius <= hi)
}
