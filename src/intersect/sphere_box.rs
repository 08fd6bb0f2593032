//! Sphere against axis-aligned and oriented boxes.
//!
//! Arvo, "A Simple Method for Box-Sphere Intersection Testing" (Graphics Gems,
//! 1990): the sphere meets the box exactly when the squared distance from its
//! centre to the box is at most `r²`; Ericson §5.2.5 for the oriented case.

use crate::bounding_volume::{Aabb, Obb, Sphere};

/// True when the sphere and the box share a point (touching counts). NaN gives `false`.
#[must_use]
pub fn sphere_overlaps_aabb(sphere: &Sphere, aabb: &Aabb) -> bool {
    aabb.distance_squared(&sphere.center) <= sphere.radius * sphere.radius
}

/// True when the sphere and the oriented box share a point (touching counts). NaN gives `false`.
#[must_use]
pub fn sphere_overlaps_obb(sphere: &Sphere, obb: &Obb) -> bool {
    obb.distance_squared(&sphere.center) <= sphere.radius * sphere.radius
}
