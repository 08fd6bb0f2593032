//! Segments and rays against oriented boxes: the query is taken into the box
//! frame once, where the box is an origin-centred AABB (Ericson §5.3.3).

use crate::bounding_volume::{Aabb, Obb};
use crate::intersect::{RayBoxHit, ray_aabb, segment_overlaps_aabb};
use crate::math::Point;
use crate::math::Real;
use crate::shape::{Ray, Segment};

impl Obb {
    /// This box in its own frame: an AABB centred at the origin.
    fn local_aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(Point::origin(), self.half_extents)
    }

    fn segment_to_local(&self, segment: &Segment) -> Segment {
        Segment::new(
            Point::from(self.to_local(&segment.a)),
            Point::from(self.to_local(&segment.b)),
        )
    }
}

/// True when the segment and the oriented box share a point (touching counts).
/// NaN coordinates give `false`.
#[must_use]
pub fn segment_overlaps_obb(segment: &Segment, obb: &Obb) -> bool {
    segment_overlaps_aabb(&obb.segment_to_local(segment), &obb.local_aabb())
}

/// The part of the ray with `t ∈ [t_min, t_max]` inside the oriented box; see [`ray_aabb`].
/// The parameters are those of the caller's ray; the entry point is in world space.
#[must_use]
pub fn ray_obb(ray: &Ray, t_min: Real, t_max: Real, obb: &Obb) -> Option<RayBoxHit> {
    let local = Ray::new(
        Point::from(obb.to_local(&ray.origin)),
        obb.axes.tr_mul(&ray.direction),
    );
    ray_aabb(&local, t_min, t_max, &obb.local_aabb()).map(|hit| RayBoxHit {
        entry_point: ray.point_at(hit.t_enter),
        ..hit
    })
}

/// [`ray_obb`] for a segment, with `t ∈ [0, 1]` from `a` to `b`.
#[must_use]
pub fn segment_obb(segment: &Segment, obb: &Obb) -> Option<RayBoxHit> {
    ray_obb(&segment.to_ray(), 0.0, 1.0, obb)
}
