//! Tree statistics: shape, memory and SAH cost.

use crate::bvh::{BoundingVolume, Bvh, NodeId, NodeKind};
use crate::math::Real;

/// Shape, size and quality of a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeStats {
    /// Number of nodes (inner and leaf).
    pub nodes: usize,
    /// Number of leaves.
    pub leaves: usize,
    /// Longest root-to-leaf path, counted in edges (a lone leaf has depth 0).
    pub depth: usize,
    /// `leaf_sizes[k]` leaves hold `k` triangles.
    pub leaf_sizes: Vec<usize>,
    /// Bytes of node and leaf-order storage (excluding the mesh).
    pub bytes: usize,
    /// Bytes per triangle.
    pub bytes_per_triangle: f64,
    /// SAH cost relative to the root: Σ inner area · traversal + Σ leaf area · count, divided by the root area
    /// (MacDonald and Booth 1990), with each volume's own surface area.
    pub sah_cost: f64,
}

impl<V: BoundingVolume> Bvh<V> {
    /// Counts, depth, leaf-size histogram, memory and SAH cost.
    #[must_use]
    pub fn stats(&self) -> TreeStats {
        let mut leaves = 0;
        let mut depth = 0;
        let mut leaf_sizes = Vec::new();
        let root_area =
            f64::from(self.root_volume().surface_area()).max(f64::from(Real::MIN_POSITIVE));
        let mut sah = 0.0;
        let mut stack = vec![(NodeId::ROOT, 0usize)];
        while let Some((id, d)) = stack.pop() {
            let node = self.node(id);
            let area = f64::from(node.volume.surface_area()) / root_area;
            match node.kind(id) {
                NodeKind::Inner { left, right } => {
                    sah += area;
                    stack.push((left, d + 1));
                    stack.push((right, d + 1));
                }
                NodeKind::Leaf { count, .. } => {
                    leaves += 1;
                    depth = depth.max(d);
                    let count = count as usize;
                    if leaf_sizes.len() <= count {
                        leaf_sizes.resize(count + 1, 0);
                    }
                    leaf_sizes[count] += 1;
                    sah += area * count as f64;
                }
            }
        }
        let bytes = self.bytes();
        TreeStats {
            nodes: self.nodes.len(),
            leaves,
            depth,
            leaf_sizes,
            bytes,
            bytes_per_triangle: bytes as f64 / self.order.len().max(1) as f64,
            sah_cost: sah,
        }
    }

    /// Bytes of the nodes and the leaf order ([`TreeStats::bytes`] without
    /// walking the tree).
    #[must_use]
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.nodes.as_slice()) + std::mem::size_of_val(self.order.as_slice())
    }
}
