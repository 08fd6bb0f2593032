//! Region queries over a scene: which objects, and which of their
//! triangles, overlap a box or a sphere given in world space.
//!
//! The top level prunes by the region's world bounds; each candidate
//! object answers with its own exact region query, the region brought into
//! the object's frame ([`crate::PlacedMesh::triangles_overlapping`]).

use crate::bounding_volume::Aabb;
use crate::query::Region;
use crate::scene::{Filter, ObjectId, Scene, SceneTriangle, with_tree};
use crate::shape::TriangleId;

/// The world bounds of `region` (empty for an invalid one, whose queries
/// find nothing anyway).
fn region_box(region: &Region) -> Aabb {
    let b = match region {
        Region::Aabb(aabb) => *aabb,
        Region::Obb(obb) => obb.to_aabb(),
        Region::Sphere(sphere) => sphere.to_aabb(),
    };
    let finite = b
        .min
        .coords
        .iter()
        .chain(b.max.coords.iter())
        .all(|c| c.is_finite());
    if finite { b } else { Aabb::EMPTY }
}

impl Scene {
    /// The objects the filter accepts with a triangle that overlaps the
    /// region (touching counts), sorted by id.
    #[must_use]
    pub fn objects_overlapping(&self, region: impl Into<Region>, filter: &Filter) -> Vec<ObjectId> {
        let region = region.into();
        let mut found = Vec::new();
        self.visit_overlapping(&region_box(&region), filter, |id, object| {
            let pose = object.pose;
            if with_tree!(&object.mesh, tree => tree.placed(pose).overlaps_region(region)) {
                found.push(id);
            }
        });
        found.sort_unstable();
        found
    }

    /// Every triangle of the objects the filter accepts that overlaps the
    /// region, sorted by object, then triangle.
    #[must_use]
    pub fn triangles_overlapping(
        &self,
        region: impl Into<Region>,
        filter: &Filter,
    ) -> Vec<SceneTriangle> {
        let region = region.into();
        let mut found = Vec::new();
        self.visit_overlapping(&region_box(&region), filter, |id, object| {
            let pose = object.pose;
            let triangles: Vec<TriangleId> =
                with_tree!(&object.mesh, tree => tree.placed(pose).triangles_overlapping(region));
            found.extend(triangles.into_iter().map(|triangle| SceneTriangle {
                object: id,
                triangle,
            }));
        });
        found.sort_unstable();
        found
    }
}
