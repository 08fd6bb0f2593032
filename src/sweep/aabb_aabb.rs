//! Two moving axis-aligned boxes: the first and last contact times within the frame.
//!
//! In the frame of box A, box B moves by `v = v_b − v_a`. On each axis the
//! projections overlap during one time interval (entry to exit); the boxes
//! overlap while all three axes do, so the contact interval is the intersection
//! of the per-axis intervals with the frame `[0, 1]` (Gomez, "Simple
//! Intersection Tests for Games", 1999; Ericson, *Real-Time Collision
//! Detection* §5.5.8). Fixed here with respect to the published listings: an
//! axis with zero relative velocity never divides by zero (it either never
//! overlaps, or does not restrict the time), touching counts at both ends of
//! the frame, and contacts outside the frame are not reported.

use super::SweepHit;
use crate::bounding_volume::Aabb;
use crate::math::{Vector, is_finite_point, is_finite_vector};

/// The times in the frame at which `a` moved by `a_motion` and `b` moved by `b_motion` touch or overlap.
///
/// Box `a` at time `u ∈ [0, 1]` is `a` translated by `u · a_motion`, and likewise
/// for `b`. Returns `None` when they never touch within the frame, and for
/// empty boxes or NaN/infinite input. Symmetric: swapping the boxes gives the
/// same answer.
#[must_use]
pub fn sweep_aabb_aabb(
    a: &Aabb,
    a_motion: &Vector,
    b: &Aabb,
    b_motion: &Vector,
) -> Option<SweepHit> {
    let finite = [a.min, a.max, b.min, b.max].iter().all(is_finite_point)
        && is_finite_vector(a_motion)
        && is_finite_vector(b_motion);
    if !finite || a.is_empty() || b.is_empty() {
        return None;
    }
    let v = b_motion - a_motion;
    if !is_finite_vector(&v) {
        // The motions are so large that their difference overflows.
        return None;
    }
    let (mut first, mut last) = (0.0, 1.0);
    for i in 0..3 {
        // B's interval [b.min + u v, b.max + u v] meets [a.min, a.max] while
        // a.min − b.max ≤ u v ≤ a.max − b.min.
        let (low, high) = (a.min[i] - b.max[i], a.max[i] - b.min[i]);
        if v[i] == 0.0 {
            if low > 0.0 || high < 0.0 {
                return None;
            }
            continue;
        }
        let (enter, exit) = if v[i] > 0.0 {
            (low / v[i], high / v[i])
        } else {
            (high / v[i], low / v[i])
        };
        // `v[i]` is finite and non-zero, so the times are never NaN (at worst ±inf).
        if enter > first {
            first = enter;
        }
        if exit < last {
            last = exit;
        }
        if first > last {
            return None;
        }
    }
    // `+ 0.0` turns an exit time of `-0.0` (touching at the start, moving apart) into `0.0`.
    Some(SweepHit {
        first,
        last: last + 0.0,
    })
}
