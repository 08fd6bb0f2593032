//! Bottom-up refit after vertices move (van den Bergen, "Efficient Collision
//! Detection of Complex Deformable Models using AABB Trees", JGT 1997).
//!
//! The topology stays; every volume is recomputed from its children (leaves
//! from their triangles). In preorder every child follows its parent, so one
//! reverse pass over the nodes visits children first. OBBs keep their axes
//! and only regrow their extents, which keeps refit O(n).

use crate::bounding_volume::Aabb;
use crate::bvh::{BoundingVolume, Bvh, NodeId, NodeKind};
use crate::shape::{Triangle, TriangleId, TriangleSoup};

impl<V: BoundingVolume> Bvh<V> {
    /// Recomputes every volume for the mesh's current vertices.
    ///
    /// The mesh must have the same triangles the tree was built over (same
    /// count and indices; only vertex positions may differ).
    pub fn refit<'a>(&mut self, mesh: impl Into<TriangleSoup<'a>>) {
        let mesh = mesh.into();
        assert_eq!(
            mesh.len(),
            self.order.len(),
            "refit needs the mesh the tree was built over"
        );
        let mut scratch: Vec<Triangle> = Vec::new();
        for index in (0..self.nodes.len()).rev() {
            let id = NodeId(index as u32);
            let node = self.nodes[index];
            let volume = match node.kind(id) {
                NodeKind::Leaf { first, count } => {
                    scratch.clear();
                    scratch.extend(
                        self.leaf_triangles(first, count)
                            .map(|t: TriangleId| mesh.triangle(t)),
                    );
                    node.volume.refit_leaf(&scratch)
                }
                NodeKind::Inner { left, right } => node.volume.refit_parent(
                    &self.nodes[left.index()].volume,
                    &self.nodes[right.index()].volume,
                ),
            };
            self.nodes[index].volume = volume;
        }
    }
}

impl<V: BoundingVolume> Bvh<V> {
    /// The same tree with each node's volume replaced by the exact box of
    /// its triangles (a refit from empty boxes): the AABB raycast layout of
    /// trees whose own volumes are oriented (`BoundingVolume::wide_layout`).
    #[must_use]
    pub(crate) fn box_twin<'a>(&self, mesh: impl Into<TriangleSoup<'a>>) -> Bvh<Aabb> {
        let mut twin = Bvh {
            nodes: self
                .nodes
                .iter()
                .map(|n| n.with_volume(Aabb::EMPTY))
                .collect(),
            order: self.order.clone(),
            depth: self.depth,
        };
        twin.refit(mesh);
        twin
    }
}
