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
//! touching counts. The quadratic is formed and solved in `f64`, where the
//! differences and squares of `f32` input are exact or nearly so and never
//! overflow or underflow.

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
    let valid = |r: Real| (0.0..=Real::MAX).contains(&r);
    if !finite || !valid(a.radius) || !valid(b.radius) {
        return None;
    }
    // In `f64`: the differences of `f32` input are exact, and its squares
    // neither overflow nor underflow, so touching integer spheres 2e4 apart
    // touch (in `f32` their squares rounded them apart).
    let d = b.center.coords.cast::<f64>() - a.center.coords.cast::<f64>();
    let v = b_motion.cast::<f64>() - a_motion.cast::<f64>();
    let radius = f64::from(a.radius) + f64::from(b.radius);
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
        return Some(SweepHit {
            first: 0.0,
            last: last as Real,
        });
    }
    // Separate at the start: they must be approaching (b < 0; a > 0 follows).
    // Everything is finite here: no NaN can arise.
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
        first: first as Real,
        last: (q / qa).min(1.0).max(first) as Real,
    })
}
