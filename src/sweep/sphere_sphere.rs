//! Two moving spheres: the first and last contact times within the frame.
//!
//! In the frame of sphere A, sphere B's centre moves by the relative motion
//! `v = v_b − v_a`; with `d = c_b − c_a` at `u = 0` and `R = r_a + r_b`, the
//! spheres touch or overlap when `|d + u v|² ≤ R²`, i.e. when
//! `a u² + 2 b u + c ≤ 0` with `a = v · v`, `b = d · v`, `c = d · d − R²`
//! (Gomez, "Simple Intersection Tests for Games", 1999; Ericson, *Real-Time
//! Collision Detection* §5.5.5). The roots are taken in the stable form
//! `q = −(b + sign(b) √(b² − a c))`, roots `q / a` and `c / q` (Press et al.,
//! *Numerical Recipes* §5.6), which avoids catastrophic cancellation for the
//! small root. Fixed here with respect to the published listings: roots outside
//! `[0, 1]` are clipped or rejected, spheres moving apart report nothing unless
//! they already overlap, zero relative motion never divides by zero, and
//! touching counts. The inputs are first scaled by a power of two (exact) so
//! that the squares neither overflow nor underflow.

use super::SweepHit;
use crate::bounding_volume::Sphere;
use crate::math::{Real, Vector, is_finite_point, is_finite_vector};

/// The times in the frame at which `a` moved by `a_motion` and `b` moved by `b_motion` touch or overlap.
///
/// Sphere centres at time `u ∈ [0, 1]` are `a.center + u · a_motion` and
/// `b.center + u · b_motion`. Spheres already overlapping at `u = 0` report
/// `first = 0` and `last` = the time they separate (or 1). Returns `None` when
/// they never touch within the frame, and for NaN/infinite input or a
/// negative radius. Symmetric: swapping the spheres gives the same answer.
#[must_use]
pub fn sweep_sphere_sphere(
    a: &Sphere,
    a_motion: &Vector,
    b: &Sphere,
    b_motion: &Vector,
) -> Option<SweepHit> {
    let finite = is_finite_point(&a.center)
        && is_finite_point(&b.center)
        && is_finite_vector(a_motion)
        && is_finite_vector(b_motion);
    let radius = a.radius + b.radius;
    let valid = |r: Real| (0.0..=Real::MAX).contains(&r);
    if !finite || !valid(a.radius) || !valid(b.radius) || !valid(radius) {
        return None;
    }
    let d = b.center - a.center;
    let v = b_motion - a_motion;
    if !is_finite_vector(&d) || !is_finite_vector(&v) {
        return None;
    }
    // Scale lengths so the largest is in [1, 2): the contact times are unchanged.
    let largest = d.amax().max(v.amax()).max(radius);
    if largest == 0.0 {
        // Two points at the same place, not moving relative to each other.
        return Some(SweepHit {
            first: 0.0,
            last: 1.0,
        });
    }
    // Two exact power-of-two steps, each within the normal range of `Real`.
    let exponent = largest.log2().floor() as i32;
    let (half, rest) = (-exponent / 2, -exponent - (-exponent / 2));
    let (s1, s2) = (power_of_two(half), power_of_two(rest));
    let (d, v, radius) = (d * s1 * s2, v * s1 * s2, radius * s1 * s2);

    let qa = v.norm_squared();
    let qb = d.dot(&v);
    let qc = d.norm_squared() - radius * radius;
    if qc <= 0.0 {
        // Touching or overlapping at the start: contact until the larger root.
        if qa == 0.0 {
            return Some(SweepHit {
                first: 0.0,
                last: 1.0,
            });
        }
        let root = (qb * qb - qa * qc).max(0.0).sqrt();
        let exit = if qb <= 0.0 {
            (root - qb) / qa
        } else {
            // q = −b − √disc < 0 and c ≤ 0: the larger root is c / q ≥ 0.
            qc / (-qb - root)
        };
        // `exit > 0.0` also turns a `-0.0` root into `0.0`.
        let last = if exit > 0.0 { exit.min(1.0) } else { 0.0 };
        return Some(SweepHit { first: 0.0, last });
    }
    // Separate at the start: they must be approaching (b < 0; a > 0 follows).
    // Everything is finite and scaled to at most 4 here: no NaN can arise.
    if qb >= 0.0 {
        return None;
    }
    let disc = qb * qb - qa * qc;
    if disc < 0.0 {
        return None;
    }
    let q = disc.sqrt() - qb; // > 0
    let first = qc / q;
    if first > 1.0 {
        return None;
    }
    Some(SweepHit {
        first,
        last: (q / qa).min(1.0).max(first),
    })
}

/// `2^e` for `e` in the normal exponent range `[-126, 127]` (built from its bits: exact).
fn power_of_two(e: i32) -> Real {
    debug_assert!((-126..=127).contains(&e));
    Real::from_bits(((e + 127) as u32) << 23)
}
