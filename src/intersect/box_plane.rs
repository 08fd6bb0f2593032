//! Boxes against planes: which side of the plane a box lies on.
//!
//! Project the box onto the plane normal: its radius there is `Σ hᵢ |aᵢ · n|`
//! and it straddles the plane when the centre's signed distance is within
//! that radius (Ericson §5.2.3; Akenine-Möller et al., RTR §22.10).

use crate::bounding_volume::{Aabb, Obb};
use crate::math::Real;
use crate::shape::Plane;

/// Where a volume lies relative to an oriented plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneSide {
    /// Wholly on the side the normal points to, not touching the plane.
    Front,
    /// Wholly on the other side, not touching the plane.
    Back,
    /// Touching or crossing the plane.
    Straddling,
}

impl PlaneSide {
    fn classify(distance: Real, radius: Real) -> PlaneSide {
        if distance > radius {
            PlaneSide::Front
        } else if distance < -radius {
            PlaneSide::Back
        } else {
            // Also reached for NaN: a NaN box is never reported as clear of the plane.
            PlaneSide::Straddling
        }
    }
}

/// The side of `plane` the box lies on; touching the plane counts as straddling.
#[must_use]
pub fn aabb_plane_side(aabb: &Aabb, plane: &Plane) -> PlaneSide {
    let radius = aabb.half_extents().dot(&plane.normal().abs());
    PlaneSide::classify(plane.signed_distance(&aabb.center()), radius)
}

/// The side of `plane` the oriented box lies on; touching the plane counts as straddling.
#[must_use]
pub fn obb_plane_side(obb: &Obb, plane: &Plane) -> PlaneSide {
    let radius = obb.projected_radius(plane.normal());
    PlaneSide::classify(plane.signed_distance(&obb.center), radius)
}
