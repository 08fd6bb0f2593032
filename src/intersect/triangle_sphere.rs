//! Triangles against spheres.
//!
//! Ericson, *Real-Time Collision Detection* §5.2.7: the sphere meets the
//! triangle exactly when the triangle point closest to the centre lies within
//! the radius. The closest point comes from
//! [`closest_point_on_triangle`],
//! so degenerate triangles are tested as the segment or point they span.

use crate::bounding_volume::Sphere;
use crate::intersect::point_triangle::closest_point_on_triangle;
use crate::math::{distance_squared_wide, is_finite_point};
use crate::shape::Triangle;

/// True when the triangle and the sphere share a point (touching counts).
///
/// NaN or infinite coordinates or radius give `false`.
#[must_use]
pub fn triangle_overlaps_sphere(tri: &Triangle, sphere: &Sphere) -> bool {
    let finite = sphere.radius.is_finite()
        && is_finite_point(&sphere.center)
        && tri.vertices().iter().all(is_finite_point);
    if !finite {
        return false;
    }
    let closest = closest_point_on_triangle(&sphere.center, tri);
    // Squared in `f64`: in `f32` a radius beyond about 1.8e19 squared to
    // infinity and met every triangle, and below about 1e-19 the squares
    // rounded by an absolute amount.
    let radius = f64::from(sphere.radius);
    distance_squared_wide(&closest.point, &sphere.center) <= radius * radius
}
