//! Region queries: which triangles of a mesh overlap a box or a sphere.
//!
//! A depth-first descent prunes nodes whose volume (as an oriented box,
//! [`BoundingVolume::oriented_box`]) misses the region: the 15-axis test
//! [`boxes_overlap`] for boxes (Gottschalk 1996; Ericson, *Real-Time
//! Collision Detection* §4.4.1), a direct interval test when both boxes are
//! axis-aligned, and Arvo's closest-point distance for spheres (Ericson
//! §5.2.5). Leaves test each triangle exactly as the primitive tests do:
//! [`triangle_overlaps_aabb`], [`triangle_overlaps_obb`] (Akenine-Möller's
//! 13-axis test) and [`triangle_overlaps_sphere`] (Ericson §5.2.7), so the
//! answer is the brute-force answer of those tests over every triangle.
//!
//! Node tests are padded by `64 ε (s + r)` (`s` the mesh's largest absolute
//! coordinate, `r` the region's), which covers the rounding of centre and
//! half-extent conversions, so pruning never drops a triangle the leaf test
//! would accept; the padding is relative to the coordinates, never absolute.
//!
//! Touching counts. Zero-area triangles are never reported. An invalid
//! region (NaN or infinite coordinates, an empty box, a negative half-extent
//! or radius) overlaps nothing.

use crate::bounding_volume::{Aabb, Obb, Sphere};
use crate::bvh::{ArrayStack, BoundingVolume, NodeId, TraversalStack, Visit, stack_items};
use crate::intersect::{
    boxes_overlap, triangle_overlaps_aabb, triangle_overlaps_obb, triangle_overlaps_sphere,
};
use crate::math::{
    Isometry, Matrix, Real, Vector, is_finite_point, is_finite_vector, squared_reach,
};
use crate::query::frame::LocalFrame;
use crate::query::{MeshTree, PlacedMesh};
use crate::shape::Triangle;
use crate::shape::TriangleId;

/// A region of space to find triangles in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// An axis-aligned box.
    Aabb(Aabb),
    /// An oriented box.
    Obb(Obb),
    /// A solid sphere.
    Sphere(Sphere),
}

impl From<Aabb> for Region {
    fn from(aabb: Aabb) -> Self {
        Region::Aabb(aabb)
    }
}

impl From<Obb> for Region {
    fn from(obb: Obb) -> Self {
        Region::Obb(obb)
    }
}

impl From<Sphere> for Region {
    fn from(sphere: Sphere) -> Self {
        Region::Sphere(sphere)
    }
}

impl Region {
    /// True when the triangle shares a point with the region (the exact
    /// primitive test; zero-area triangles are not excluded here).
    #[must_use]
    pub fn overlaps_triangle(&self, tri: &Triangle) -> bool {
        match self {
            Region::Aabb(aabb) => triangle_overlaps_aabb(tri, aabb),
            Region::Obb(obb) => triangle_overlaps_obb(tri, obb),
            Region::Sphere(sphere) => triangle_overlaps_sphere(tri, sphere),
        }
    }

    /// This region moved by a rigid motion; an AABB becomes an oriented box
    /// unless the rotation is the identity.
    #[must_use]
    pub fn transformed(&self, iso: &Isometry) -> Region {
        match self {
            Region::Aabb(aabb) if iso.rotation == crate::math::Rotation::identity() => {
                let t = iso.translation.vector;
                Region::Aabb(Aabb::new(aabb.min + t, aabb.max + t))
            }
            Region::Aabb(aabb) if aabb.is_empty() => Region::Aabb(Aabb::EMPTY),
            Region::Aabb(aabb) => Region::Obb(Obb::from_aabb(aabb).transformed(iso)),
            Region::Obb(obb) => Region::Obb(obb.transformed(iso)),
            Region::Sphere(sphere) => Region::Sphere(sphere.transformed(iso)),
        }
    }

    /// This region seen from the frame of an object at `pose`: centres
    /// through the `f64` change of frame (rounded once per coordinate, as
    /// raycasts and nearest points map theirs), axes rotated, sizes kept.
    /// Composing the inverse pose in `f32` cancelled catastrophically far
    /// from the origin (2 cm at 1e5).
    fn in_frame_of(&self, pose: &Isometry) -> Region {
        let frame = LocalFrame::new(pose);
        let turned = pose.rotation != crate::math::Rotation::identity();
        match self {
            Region::Aabb(aabb) if aabb.is_empty() => Region::Aabb(Aabb::EMPTY),
            Region::Aabb(aabb) if !turned => {
                Region::Aabb(Aabb::new(frame.point(&aabb.min), frame.point(&aabb.max)))
            }
            Region::Aabb(aabb) => {
                let (lo, hi) = (aabb.min.cast::<f64>(), aabb.max.cast::<f64>());
                let center = frame.point_wide(std::array::from_fn(|i| (lo[i] + hi[i]) * 0.5));
                let half = ((hi - lo) * 0.5).cast::<Real>();
                Region::Obb(Obb::new(center, frame.matrix(&Matrix::identity()), half))
            }
            Region::Obb(obb) => Region::Obb(Obb::new(
                frame.point(&obb.center),
                frame.matrix(&obb.axes),
                obb.half_extents,
            )),
            Region::Sphere(sphere) => {
                Region::Sphere(Sphere::new(frame.point(&sphere.center), sphere.radius))
            }
        }
    }

    /// True when the region is finite and non-empty.
    fn is_valid(&self) -> bool {
        match self {
            Region::Aabb(aabb) => {
                is_finite_point(&aabb.min) && is_finite_point(&aabb.max) && !aabb.is_empty()
            }
            Region::Obb(obb) => {
                is_finite_point(&obb.center)
                    && obb.axes.iter().all(|x| x.is_finite())
                    && is_finite_vector(&obb.half_extents)
                    && obb.half_extents.iter().all(|&h| h >= 0.0)
            }
            Region::Sphere(sphere) => {
                is_finite_point(&sphere.center) && sphere.radius.is_finite() && sphere.radius >= 0.0
            }
        }
    }

    /// Largest absolute coordinate the region reaches (the scale of rounding).
    fn scale(&self) -> Real {
        match self {
            Region::Aabb(aabb) => aabb.min.coords.amax().max(aabb.max.coords.amax()),
            Region::Obb(obb) => obb.center.coords.amax() + obb.half_extents.sum(),
            Region::Sphere(sphere) => sphere.center.coords.amax() + sphere.radius,
        }
    }
}

/// A valid region with the box form its node tests use.
struct PreparedRegion {
    region: Region,
    /// The region's box (for a sphere, its centre and radius as a cube).
    bounds: Obb,
    pad: Real,
}

impl PreparedRegion {
    fn new(region: Region, coordinate_scale: Real) -> Option<Self> {
        if !region.is_valid() {
            return None;
        }
        let bounds = match &region {
            Region::Aabb(aabb) => Obb::from_aabb(aabb),
            Region::Obb(obb) => *obb,
            Region::Sphere(sphere) => Obb::new(
                sphere.center,
                Matrix::identity(),
                Vector::repeat(sphere.radius),
            ),
        };
        // The region's scale saturates at `f32::MAX`: a valid region's
        // half-extents may sum beyond it (2e38 + 2e38), and an infinite pad
        // had refused the region.
        let scale = (coordinate_scale + region.scale()).min(Real::MAX);
        let pad = 64.0 * Real::EPSILON * scale;
        pad.is_finite().then_some(PreparedRegion {
            region,
            bounds,
            pad,
        })
    }

    /// Conservative: false only when no triangle inside `volume` can pass the leaf test.
    #[inline(always)]
    fn may_touch(&self, volume: &Obb) -> bool {
        let h = volume.half_extents.add_scalar(self.pad);
        if let Region::Sphere(sphere) = &self.region {
            let grown = Obb::new(volume.center, volume.axes, h);
            // (The reach's floor covers subnormal squares, whose rounding
            // is absolute and beyond the pad.)
            return grown.distance_squared(&sphere.center) <= squared_reach(sphere.radius);
        }
        let offset = self.bounds.center - volume.center;
        let r = &self.bounds;
        match (
            volume.axes == Matrix::identity(),
            r.axes == Matrix::identity(),
        ) {
            (true, true) => (0..3).all(|i| offset[i].abs() <= h[i] + r.half_extents[i]),
            (true, false) => boxes_overlap(&h, &r.half_extents, &r.axes, &offset),
            _ => boxes_overlap(
                &h,
                &r.half_extents,
                &volume.axes.tr_mul(&r.axes),
                &volume.axes.tr_mul(&offset),
            ),
        }
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// Every non-degenerate triangle that overlaps the region (mesh frame),
    /// sorted by id. Touching counts.
    #[must_use]
    pub fn triangles_overlapping(&self, region: impl Into<Region>) -> Vec<TriangleId> {
        let mut found = Vec::new();
        self.region_descent(region.into(), |id| {
            found.push(id);
            Visit::Continue
        });
        found.sort_unstable();
        found
    }

    /// True when some non-degenerate triangle overlaps the region (mesh
    /// frame), with early exit.
    #[must_use]
    pub fn overlaps_region(&self, region: impl Into<Region>) -> bool {
        self.region_descent(region.into(), |_| Visit::Stop)
    }

    /// Calls `on_triangle` for each overlapping triangle until it stops the
    /// descent; returns `true` when stopped.
    fn region_descent(
        &self,
        region: Region,
        mut on_triangle: impl FnMut(TriangleId) -> Visit,
    ) -> bool {
        let Some(region) = PreparedRegion::new(region, self.coordinate_scale()) else {
            return false;
        };
        if self.bvh().fits_array_stack() {
            self.region_kernel(
                &region,
                &mut ArrayStack::new(&mut stack_items()),
                &mut on_triangle,
            )
        } else {
            self.region_kernel(&region, &mut Vec::new(), &mut on_triangle)
        }
    }

    #[inline(always)]
    fn region_kernel(
        &self,
        region: &PreparedRegion,
        stack: &mut impl TraversalStack<NodeId>,
        on_triangle: &mut impl FnMut(TriangleId) -> Visit,
    ) -> bool {
        self.bvh().descend(
            stack,
            |volume| region.may_touch(&volume.oriented_box()),
            |first, count| {
                for k in first as usize..(first + count) as usize {
                    let (tri, triangle) = self.leaf_triangle(k);
                    if !tri.is_degenerate()
                        && region.region.overlaps_triangle(&tri)
                        && on_triangle(triangle) == Visit::Stop
                    {
                        return Visit::Stop;
                    }
                }
                Visit::Continue
            },
        )
    }
}

impl<V: BoundingVolume> PlacedMesh<'_, V> {
    /// [`MeshTree::triangles_overlapping`] for a world-space region. The
    /// region is moved into the mesh frame through an `f64` change of frame
    /// (an AABB becomes an oriented box under a rotation), so contacts
    /// within rounding of touching are decided there.
    #[must_use]
    pub fn triangles_overlapping(&self, region: impl Into<Region>) -> Vec<TriangleId> {
        self.tree
            .triangles_overlapping(region.into().in_frame_of(&self.pose))
    }

    /// [`MeshTree::overlaps_region`] for a world-space region.
    #[must_use]
    pub fn overlaps_region(&self, region: impl Into<Region>) -> bool {
        self.tree
            .overlaps_region(region.into().in_frame_of(&self.pose))
    }
}
