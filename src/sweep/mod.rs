//! Moving-object tests that report contact times within one frame.
//!
//! Each object moves linearly during the frame: its position at time
//! `u ∈ [0, 1]` is its start position plus `u` times its displacement (its
//! *motion*). Contact is inclusive (touching counts) and every reported time
//! lies in `[0, 1]`; contacts before or after the frame are not reported.
//! Non-finite input (NaN or ±inf anywhere) gives `None`.
//!
//! The tests follow Gomez, "Simple Intersection Tests for Games" (Gamasutra,
//! 1999) and Ericson, *Real-Time Collision Detection* §5.5, with the known bugs
//! of their listings fixed (contacts outside the frame, contacts while moving
//! apart, divisions by zero for still or parallel motion, strict comparisons
//! that miss touching, the back side of a plane).

use crate::bounding_volume::Aabb;
use crate::math::{Real, Vector};
use crate::shape::Triangle;

mod aabb_aabb;
mod box_triangle;
mod moving_sat;
mod sphere_plane;
mod sphere_sphere;
mod sphere_triangle;
mod triangle_triangle;

pub use aabb_aabb::sweep_aabb_aabb;
pub(crate) use box_triangle::box_triangle_time;
pub use box_triangle::sweep_box_triangle;
pub(crate) use moving_sat::{V64, first_overlap};
pub use sphere_plane::{SpherePlaneHit, sweep_sphere_plane};
pub use sphere_sphere::sweep_sphere_sphere;
pub use sphere_triangle::{
    TriangleContact, sweep_capsule_triangle, sweep_point_along, sweep_sphere_triangle,
};
pub(crate) use sphere_triangle::{capsule_triangle_time, sphere_triangle_contact};
pub use triangle_triangle::sweep_triangle_triangle;

/// The cheap rejection every triangle sweep starts with: false when the
/// box `start` grown by `reach` and swept by `shift` misses the triangle's
/// box. Padded by a few ulps of the coordinates, so that the exact test
/// decides every touching contact.
#[inline(always)]
pub(crate) fn swept_box_meets(start: &Aabb, reach: Real, shift: &Vector, tri: &Triangle) -> bool {
    let (lo, hi) = (
        start.min.inf(&(start.min + shift)),
        start.max.sup(&(start.max + shift)),
    );
    let [a, b, c] = tri.vertices();
    let (t_lo, t_hi) = (a.inf(&b).inf(&c), a.sup(&b).sup(&c));
    let scale = lo
        .coords
        .amax()
        .max(hi.coords.amax())
        .max(t_lo.coords.amax())
        .max(t_hi.coords.amax());
    let reach = reach + 8.0 * Real::EPSILON * (scale + reach);
    (0..3).all(|i| lo[i] - reach <= t_hi[i] && t_lo[i] <= hi[i] + reach)
}

/// First and last contact times of two moving objects within one frame.
///
/// Always `0 ≤ first ≤ last ≤ 1`; the objects touch or overlap at every time
/// of `[first, last]` (the contact set of two convex objects in linear motion
/// is one interval) and at no other time of the frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepHit {
    /// Time of first contact, clipped to the start of the frame.
    pub first: Real,
    /// Time of last contact, clipped to the end of the frame.
    pub last: Real,
}
