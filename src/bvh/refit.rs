//! Bottom-up refit after vertices move (van den Bergen, "Efficient Collision
//! Detection of Complex Deformable Models using AABB Trees", JGT 1997).
//!
//! The topology stays; every volume is recomputed from its children (leaves
//! from their triangles). In preorder every child follows its parent, so one
//! reverse pass over the nodes visits children first. OBBs keep their axes
//! and only regrow their extents, which keeps refit O(n).

use crate::bounding_volume::Aabb;
use crate::bvh::{BoundingVolume, Bvh, Node, NodeId, NodeKind};
use crate::parallel::join_if;
use crate::shape::{Triangle, TriangleId, TriangleSoup};

impl<V: BoundingVolume> Bvh<V> {
    /// Recomputes every volume for the mesh's current vertices.
    ///
    /// The mesh must have the same triangles the tree was built over (same
    /// count and indices; only vertex positions may differ).
    pub fn refit<'a>(&mut self, mesh: impl Into<TriangleSoup<'a>>) {
        self.refit_alongside(mesh, false, |_| {});
    }

    /// [`Bvh::refit`], and meanwhile `alongside` with the leaf order, which
    /// a refit leaves as it is: on another thread when `parallel` is set
    /// (and the `parallel` feature is on), so that a mesh tree rewrites its
    /// leaf-order triangles while the volumes are refitted.
    pub(crate) fn refit_alongside<'a>(
        &mut self,
        mesh: impl Into<TriangleSoup<'a>>,
        parallel: bool,
        alongside: impl FnOnce(&[u32]) + Send,
    ) {
        let mesh = mesh.into();
        assert_eq!(
            mesh.len(),
            self.order.len(),
            "refit needs the mesh the tree was built over"
        );
        let (nodes, order) = (&mut self.nodes, &self.order);
        join_if(
            parallel,
            || refit_nodes(nodes, order, &mesh),
            || alongside(order),
        );
    }
}

/// Every volume recomputed from its children (leaves from their triangles),
/// in one reverse pass over the nodes.
fn refit_nodes<V: BoundingVolume>(nodes: &mut [Node<V>], order: &[u32], mesh: &TriangleSoup<'_>) {
    let mut scratch: Vec<Triangle> = Vec::new();
    for index in (0..nodes.len()).rev() {
        let id = NodeId(index as u32);
        let node = nodes[index];
        let volume = match node.kind(id) {
            NodeKind::Leaf { first, count } => {
                scratch.clear();
                scratch.extend(
                    order[first as usize..(first + count) as usize]
                        .iter()
                        .map(|&t| mesh.triangle(TriangleId(t))),
                );
                node.volume.refit_leaf(&scratch)
            }
            NodeKind::Inner { left, right } => node
                .volume
                .refit_parent(&nodes[left.index()].volume, &nodes[right.index()].volume),
        };
        nodes[index].volume = volume;
    }
}

impl Bvh<Aabb> {
    /// Every box recomputed in one reverse pass: a leaf's as
    /// `run_box(first, count)` (its run of the leaf order), an inner
    /// node's as the union of its children's. A loaded tree's boxes, from
    /// the leaf triangles it has just made (read in order, not gathered
    /// from the mesh as [`Bvh::refit`] does).
    pub(crate) fn refit_runs(&mut self, run_box: impl Fn(u32, u32) -> Aabb) {
        let nodes = &mut self.nodes;
        // Leaves front to back first, reading their runs nearly in order.
        for (index, node) in nodes.iter_mut().enumerate() {
            if let NodeKind::Leaf { first, count } = node.kind(NodeId(index as u32)) {
                node.volume = run_box(first, count);
            }
        }
        for index in (0..nodes.len()).rev() {
            if let NodeKind::Inner { left, right } = nodes[index].kind(NodeId(index as u32)) {
                nodes[index].volume = nodes[left.index()]
                    .volume
                    .union(&nodes[right.index()].volume);
            }
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
