//! A ray prepared for descending a tree: reciprocal direction and the
//! per-axis choice of near and far box planes, made once per query.
//!
//! The slab test is Kay & Kajiya (1986) in the robust form of Ize, "Robust
//! BVH Ray Traversal" (JCGT 2013): the exit distance is scaled up by
//! `1 + 2γ₃` (γₙ = nu / (1 − nu), u = 2⁻²⁴) so rounding can never make a
//! ray slip between a box and the triangle inside it. No absolute epsilon is
//! used, so the test is scale-free.

use crate::math::{Point, Real, Vector};
use crate::shape::Ray;
use crate::simd::SlabRows;

/// `1 + 2γ₃` for `f32` (Ize 2013, eq. 3; Pharr et al., *PBRT* 3rd ed. §3.9).
pub(crate) const EXIT_PADDING: Real =
    1.0 + 2.0 * (3.0 * Real::EPSILON * 0.5) / (1.0 - 3.0 * Real::EPSILON * 0.5);

/// The factor on the reciprocal direction that far planes are measured
/// with in the wide nodes' slab tests (`TraversalRay::far_inverse`): the
/// exit padding moved into the reciprocal, so no multiplication follows
/// the exits' `min` on the path from one node to the next. A far plane's
/// parameter is then rounded three times (difference, padded reciprocal,
/// product) against the near plane's two (the plain reciprocal's own
/// rounding is shared by both and cancels), so `1 + 2γ₃ ≥ (1 + u)² / (1 −
/// u)³` would do; `1 + 8u` leaves a margin.
pub(crate) const FAR_INVERSE_PADDING: Real = 1.0 + 4.0 * Real::EPSILON;

/// The same padding for a negative exit, which must grow towards zero:
/// `(1 − γ₃) / (1 + γ₃)` bounds the ratio of the two rounded parameters'
/// errors there, less `2u` for the product's own rounding.
const NEGATIVE_EXIT_PADDING: Real = 2.0 - EXIT_PADDING - Real::EPSILON;

/// `exit` moved outwards by the slab parameters' rounding (Ize 2013): up
/// for a positive exit, towards zero for a negative one. Spans starting
/// before their origin (`t_min < 0`) have negative exits; scaled as
/// positive ones they shrank, and boxes of zero thickness (a flat
/// triangle's, along an axis) were missed.
#[inline(always)]
pub(crate) fn padded_exit(exit: Real) -> Real {
    exit * if exit < 0.0 {
        NEGATIVE_EXIT_PADDING
    } else {
        EXIT_PADDING
    }
}

/// A ray with what box tests need precomputed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraversalRay {
    /// Start point.
    pub origin: Point,
    /// Direction (the unit of `t`).
    pub direction: Vector,
    /// Componentwise `1 / direction` (±∞ for zero components).
    pub inverse_direction: Vector,
    /// Per axis: true when the direction is negative (the near plane is the box maximum).
    pub negative: [bool; 3],
    /// `inverse_direction` scaled by `FAR_INVERSE_PADDING`, for far planes
    /// in the wide nodes' slab tests (Ize's exit padding, applied before
    /// the exits' `min` instead of after it).
    pub far_inverse: Vector,
    /// Where the near and far planes lie in a wide node's bounds, for the
    /// eight-lane slab tests.
    pub(crate) rows: SlabRows,
}

impl TraversalRay {
    /// Prepares `ray` for box tests.
    #[must_use]
    #[inline(always)]
    pub fn new(ray: &Ray) -> Self {
        let inverse_direction = ray.direction.map(|d| 1.0 / d);
        // Sign of the reciprocal, so that −0 counts as negative: then the
        // near plane's distance is −∞ or NaN, both harmless below.
        let negative = [0, 1, 2].map(|i| inverse_direction[i] < 0.0);
        TraversalRay {
            origin: ray.origin,
            direction: ray.direction,
            inverse_direction,
            negative,
            far_inverse: inverse_direction * FAR_INVERSE_PADDING,
            rows: SlabRows::new(negative),
        }
    }

    /// Entry parameter into the box `[min, max]` within `[t_min, t_max]`, or
    /// `None` when the ray misses it there.
    ///
    /// A NaN arises only as `0 · ∞`, for a ray lying in a slab plane; the
    /// comparisons are ordered so that a NaN bound is ignored (the slab then
    /// does not restrict the ray, which is exact for a ray inside the slab).
    #[inline(always)]
    pub fn slab_entry(&self, min: &Point, max: &Point, t_min: Real, t_max: Real) -> Option<Real> {
        let mut enter = t_min;
        let mut exit = t_max;
        for i in 0..3 {
            let (near, far) = if self.negative[i] {
                (max[i], min[i])
            } else {
                (min[i], max[i])
            };
            let t_near = (near - self.origin[i]) * self.inverse_direction[i];
            let t_far = (far - self.origin[i]) * self.inverse_direction[i];
            enter = if t_near > enter { t_near } else { enter };
            exit = if t_far < exit { t_far } else { exit };
        }
        (enter <= padded_exit(exit)).then_some(enter)
    }
}
