//! Sphere against axis-aligned and oriented boxes.
//!
//! Arvo, "A Simple Method for Box-Sphere Intersection Testing" (Graphics Gems,
//! 1990): the sphere meets the box exactly when the squared distance from its
//! centre to the box is at most `r²`; Ericson §5.2.5 for the oriented case.

use crate::bounding_volume::{Aabb, Obb, Sphere};
use crate::math::{Point, distance_squared_wide};

/// True when the sphere and the box share a point (touching counts). NaN gives `false`.
#[must_use]
pub fn sphere_overlaps_aabb(sphere: &Sphere, aabb: &Aabb) -> bool {
    // The box's nearest point is exact (a clamp); the gap and the squares
    // are taken in `f64`, as `Sphere::contains_point` takes them.
    sphere.contains_point(&aabb.closest_point(&sphere.center))
}

/// True when the sphere and the oriented box share a point (touching counts). NaN gives `false`.
#[must_use]
pub fn sphere_overlaps_obb(sphere: &Sphere, obb: &Obb) -> bool {
    // In the box frame (one `f32` rotation), the gap to the clamped point
    // and the squares in `f64`; NaN compares false.
    let local = obb.to_local(&sphere.center);
    let clamped = local.zip_map(&obb.half_extents, |x, h| x.clamp(-h, h));
    let r = f64::from(sphere.radius);
    distance_squared_wide(&Point::from(local), &Point::from(clamped)) <= r * r
}
