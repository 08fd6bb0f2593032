//! A moving sphere against a fixed plane: the time of first contact.
//!
//! The signed distance of the centre is linear in time, `s(u) = s₀ + u (n · v)`,
//! so the sphere first touches the plane when `|s(u)| = r` on the side it
//! starts from (Gomez, "Simple Intersection Tests for Games", 1999; Ericson,
//! *Real-Time Collision Detection* §5.5.3). Fixed here with respect to the
//! published listings: the back side is handled like the front, a sphere
//! already touching at `u = 0` is a contact at 0 (inclusive test), motion
//! parallel to the plane never divides by zero, and contacts after the frame
//! are not reported.

use crate::bounding_volume::Sphere;
use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::Plane;

/// The first contact of a sphere sweeping against a plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpherePlaneHit {
    /// Time of first contact in `[0, 1]`.
    pub time: Real,
    /// Centre of the sphere at that time.
    pub center: Point,
    /// Contact point on the plane: the projection of `center` (the deepest
    /// point's foot when the sphere already penetrates at `u = 0`).
    pub point: Point,
}

/// The first time in the frame at which `sphere`, moved by `motion`, touches `plane`.
///
/// The sphere's centre at time `u ∈ [0, 1]` is `sphere.center + u · motion`.
/// A sphere that touches or penetrates the plane at `u = 0` reports time 0.
/// Either side of the plane counts. Returns `None` when the sphere does not
/// reach the plane within the frame, moves away from it or parallel to it
/// while clear of it, and for NaN/infinite input or a negative radius.
#[must_use]
pub fn sweep_sphere_plane(
    sphere: &Sphere,
    motion: &Vector,
    plane: &Plane,
) -> Option<SpherePlaneHit> {
    let r = sphere.radius;
    if !is_finite_point(&sphere.center)
        || !is_finite_vector(motion)
        || !(0.0..=Real::MAX).contains(&r)
    {
        return None;
    }
    let s0 = plane.signed_distance(&sphere.center);
    let speed = plane.normal().dot(motion);
    let time = if s0.abs() <= r {
        0.0
    } else {
        // Distance still to cover before touching, and the approach speed
        // towards the plane from the starting side (both made positive).
        let (gap, approach) = if s0 > 0.0 {
            (s0 - r, -speed)
        } else {
            (-s0 - r, speed)
        };
        // `approach <= 0` (moving away or parallel) and a NaN speed from
        // overflowing products fail the test: no division by zero.
        if approach > 0.0 && gap <= approach {
            gap / approach
        } else {
            return None;
        }
    };
    let center = sphere.center + motion * time;
    Some(SpherePlaneHit {
        time,
        center,
        point: plane.project(&center),
    })
}
