//! A mesh tree's triangles in leaf order, as the ray kernels read them.
//!
//! Each triangle is kept by axis for the 4-lane watertight test
//! ([`TriangleLanes`], 48 bytes), with its id and whether rays can hit it
//! in the fourth lanes that test never reads: a hit then touches no other
//! memory than the triangle's own lines, and the degeneracy check runs
//! once per tree instead of on the hit path.

use crate::bvh::{BoundingVolume, Bvh};
use crate::intersect::TriangleLanes;
use crate::intersect::triangle_triangle::is_degenerate;
use crate::math::{id_from_lanes, id_to_lanes};
use crate::memory::PageArray;
use crate::mesh::TriMesh;
use crate::shape::{Triangle, TriangleId};

impl TriangleLanes {
    /// `tri` with `id` and its hittable flag in the fourth lanes, as normal
    /// floats (see [`crate::math::id_to_lanes`]): `x` and `y` carry the id,
    /// `z` is `+1` for a triangle rays can hit and `−1` otherwise.
    #[must_use]
    pub(crate) fn tagged(tri: &Triangle, id: TriangleId, hittable: bool) -> Self {
        let [low, high] = id_to_lanes(id.0);
        TriangleLanes::with_fourth_lanes(tri, [low, high, if hittable { 1.0 } else { -1.0 }])
    }

    /// The id stored by [`TriangleLanes::tagged`].
    #[must_use]
    #[inline(always)]
    pub(crate) fn id(&self) -> TriangleId {
        let [low, high, _] = self.fourth_lanes();
        TriangleId(id_from_lanes(low, high))
    }

    /// The flag stored by [`TriangleLanes::tagged`]: false when rays can
    /// never hit the triangle.
    #[must_use]
    #[inline(always)]
    pub(crate) fn hittable(&self) -> bool {
        self.fourth_lanes()[2] > 0.0
    }
}

/// The mesh's triangles in the tree's leaf order, tagged.
pub(crate) fn leaf_triangles<V: BoundingVolume>(
    mesh: &TriMesh,
    bvh: &Bvh<V>,
) -> PageArray<TriangleLanes> {
    // Rays read them at random: on huge pages when large.
    let order = bvh.leaf_order();
    PageArray::collect(
        order.len(),
        order.iter().map(|&t| {
            let id = TriangleId(t);
            let tri = mesh.triangle(id);
            TriangleLanes::tagged(&tri, id, hittable(&tri))
        }),
    )
}

/// Whether rays can hit `tri`: exact area and a representable normal.
fn hittable(tri: &Triangle) -> bool {
    tri.normal().is_some() && !is_degenerate(tri)
}
