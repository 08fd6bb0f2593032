//! Line of sight shaped for cameras: one eye, many targets, visible or blocked.
//!
//! A target lying on a surface must not hide itself, so hits within a
//! distance of either endpoint can be ignored, as can a set of triangles
//! (the target's own object, say). Answers come back in the caller's order;
//! with the `parallel` feature, many targets are spread over all cores and
//! the answers are exactly the serial ones.

use crate::bvh::BoundingVolume;
use crate::math::{Point, Real};
use crate::mesh::TriangleId;
use crate::query::MeshTree;
use crate::query::batch::map_batch;
use crate::query::raycast::PreparedRay;
use crate::shape::{Ray, Segment};

/// What may be ignored when deciding whether a segment is blocked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SightOptions {
    /// Hits closer than this distance to the eye are ignored.
    pub ignore_near_eye: Real,
    /// Hits closer than this distance to the target are ignored.
    pub ignore_near_target: Real,
    /// Triangles that never block (kept sorted).
    ignored: Vec<TriangleId>,
}

/// The answer for one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Nothing blocks the segment from the eye to the target.
    Visible,
    /// This triangle blocks it (the first one found, not necessarily the nearest).
    Blocked(TriangleId),
    /// The eye or target has a NaN or infinite coordinate: no answer.
    Invalid,
}

impl Visibility {
    /// True for [`Visibility::Visible`].
    #[must_use]
    pub fn is_visible(self) -> bool {
        self == Visibility::Visible
    }
}

impl SightOptions {
    /// Ignore hits within `eye` distance of the eye and `target` distance of the target.
    #[must_use]
    pub fn with_endpoint_margins(mut self, eye: Real, target: Real) -> Self {
        self.ignore_near_eye = eye;
        self.ignore_near_target = target;
        self
    }

    /// Never count these triangles as blockers.
    #[must_use]
    pub fn ignoring(mut self, triangles: impl IntoIterator<Item = TriangleId>) -> Self {
        self.ignored.extend(triangles);
        self.ignored.sort_unstable();
        self.ignored.dedup();
        self
    }

    /// True when `triangle` is on the ignore list.
    #[must_use]
    pub fn ignores(&self, triangle: TriangleId) -> bool {
        !self.ignored.is_empty() && self.ignored.binary_search(&triangle).is_ok()
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// Whether `target` can be seen from `eye`. A segment of zero length (or
    /// shorter than the two margins together) is visible.
    #[must_use]
    pub fn line_of_sight(&self, eye: &Point, target: &Point, options: &SightOptions) -> Visibility {
        let segment = Segment::new(*eye, *target);
        let length = segment.length();
        if !length.is_finite() {
            return Visibility::Invalid;
        }
        if length == 0.0 {
            return Visibility::Visible;
        }
        let t_min = options.ignore_near_eye.max(0.0) / length;
        let t_max = 1.0 - options.ignore_near_target.max(0.0) / length;
        let Some(ray) = PreparedRay::new(&Ray::new(*eye, segment.direction()), t_min, t_max) else {
            return Visibility::Visible;
        };
        match self.any_hit_prepared(&ray, |t| options.ignores(t)) {
            Some(triangle) => Visibility::Blocked(triangle),
            None => Visibility::Visible,
        }
    }

    /// [`MeshTree::line_of_sight`] from one eye to many targets, in the targets' order.
    #[must_use]
    pub fn line_of_sight_many(
        &self,
        eye: &Point,
        targets: &[Point],
        options: &SightOptions,
    ) -> Vec<Visibility> {
        map_batch(targets, |target| self.line_of_sight(eye, target, options))
    }

    /// [`MeshTree::segment_any_hit`] for many segments, in their order.
    #[must_use]
    pub fn segments_any_hit(&self, segments: &[Segment]) -> Vec<Option<TriangleId>> {
        map_batch(segments, |s| self.segment_any_hit(s))
    }

    /// [`MeshTree::ray_closest_hit`] for many rays sharing one `t_max`, in their order.
    #[must_use]
    pub fn rays_closest_hit(&self, rays: &[Ray], t_max: Real) -> Vec<Option<crate::query::RayHit>> {
        map_batch(rays, |r| self.ray_closest_hit(r, 0.0, t_max))
    }
}
