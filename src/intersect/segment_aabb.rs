//! Segments and rays against axis-aligned boxes: the boolean separating-axis
//! test and the slab test with entry/exit parameters.
//!
//! The SAT treats the segment as a degenerate box (half-extent zero on two
//! axes) and tries the 3 box axes plus the 3 products `d × eᵢ`: Gomez 1999;
//! Ericson §5.3.3. The slab test is Kay & Kajiya (SIGGRAPH 1986) in the form of
//! Williams et al., "An Efficient and Robust Ray–Box Intersection Algorithm"
//! (JGT 2005): reciprocal direction, then per-axis entry/exit planes.

use crate::bounding_volume::Aabb;
use crate::math::{Point, Real, is_finite_point};
use crate::shape::{Ray, Segment};

/// Where a ray or segment crosses a box: the parameter interval inside it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayBoxHit {
    /// Parameter where the ray enters the box (clamped to the query's `t_min`:
    /// a ray starting inside reports its start).
    pub t_enter: Real,
    /// Parameter where the ray leaves the box (clamped to the query's `t_max`).
    pub t_exit: Real,
    /// The point at `t_enter`.
    pub entry_point: Point,
}

/// True when the segment and the box share a point (touching counts).
///
/// A segment lying in a face, touching only an edge or a corner, or starting
/// inside the box is a hit. NaN coordinates give `false`.
///
/// The box's face axes compare coordinates, and an end inside or on the box
/// is decided by comparisons too, so touching there is exact (a segment
/// ending on a face always overlaps); the three edge axes work relative to
/// the box centre, so touching along an edge is decided up to that rounding.
#[must_use]
pub fn segment_overlaps_aabb(segment: &Segment, aabb: &Aabb) -> bool {
    let (a, b) = (&segment.a, &segment.b);
    if !is_finite_point(a) || !is_finite_point(b) {
        return false;
    }
    // Face axes, exactly: the segment's extent against the box's.
    if !(0..3).all(|i| a[i].min(b[i]) <= aabb.max[i] && aabb.min[i] <= a[i].max(b[i])) {
        return false;
    }
    if aabb.contains_point(a) || aabb.contains_point(b) {
        return true;
    }
    let c = aabb.center();
    let e = aabb.half_extents();
    let half_d = segment.direction() * 0.5;
    let m = nalgebra::center(&segment.a, &segment.b) - c;
    let ad = half_d.abs();
    // Axes d × e_i. Written as `!(a <= b)` so that NaN separates. No epsilon
    // is needed: for d parallel to an axis both sides vanish exactly (0 ≤ 0).
    let cross = half_d.cross(&m);
    cross.x.abs() <= e.y * ad.z + e.z * ad.y
        && cross.y.abs() <= e.x * ad.z + e.z * ad.x
        && cross.z.abs() <= e.x * ad.y + e.y * ad.x
}

/// The part of the ray `origin + t · direction`, `t ∈ [t_min, t_max]`, inside the
/// box, or `None` when they do not meet. Touching an edge or face counts.
///
/// Axis-parallel rays are handled explicitly (no `0 · ∞ = NaN`): on an axis
/// where the direction is zero the ray hits only if its origin lies within
/// that slab. NaN anywhere in the input (ray or parameter range) gives `None`.
#[must_use]
pub fn ray_aabb(ray: &Ray, t_min: Real, t_max: Real, aabb: &Aabb) -> Option<RayBoxHit> {
    if !(t_min <= t_max) {
        return None;
    }
    let mut interval = (t_min, t_max);
    for i in 0..3 {
        if !clip_slab(
            ray.origin[i],
            ray.direction[i],
            aabb.min[i],
            aabb.max[i],
            &mut interval,
        ) {
            return None;
        }
    }
    let (t_enter, t_exit) = interval;
    Some(RayBoxHit {
        t_enter,
        t_exit,
        entry_point: ray.point_at(t_enter),
    })
}

/// Narrows `interval` to the part of the line `o + t d` inside `[lo, hi]` on one
/// axis; false when nothing is left. Every comparison is written so that a NaN
/// (from a NaN origin, direction or bound) fails it, and an infinite direction
/// (reciprocal 0) is rejected, so non-finite rays never hit.
#[inline(always)]
fn clip_slab(o: Real, d: Real, lo: Real, hi: Real, interval: &mut (Real, Real)) -> bool {
    if d == 0.0 {
        return lo <= o && o <= hi;
    }
    let inv = 1.0 / d;
    let (near, far) = if inv > 0.0 { (lo, hi) } else { (hi, lo) };
    let tn = (near - o) * inv;
    let tf = (far - o) * inv;
    if !(tn <= interval.1 && interval.0 <= tf && inv != 0.0) {
        return false;
    }
    interval.0 = interval.0.max(tn);
    interval.1 = interval.1.min(tf);
    true
}

/// [`ray_aabb`] for a segment, with `t ∈ [0, 1]` from `a` to `b`.
#[must_use]
pub fn segment_aabb(segment: &Segment, aabb: &Aabb) -> Option<RayBoxHit> {
    ray_aabb(&segment.to_ray(), 0.0, 1.0, aabb)
}
