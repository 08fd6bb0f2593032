//! The one traversal engine: an iterative descent with a small fixed stack.

use smallvec::SmallVec;

use crate::bvh::{BoundingVolume, Bvh, NodeId, NodeKind};
use crate::mesh::TriangleId;

/// What a leaf callback tells the traversal to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Keep going.
    Continue,
    /// Stop the whole traversal (an any-hit query found its answer).
    Stop,
}

/// Inline stack capacity; deeper trees spill to the heap, never overflow.
pub(crate) const STACK: usize = 64;

impl<V: BoundingVolume> Bvh<V> {
    /// Visits every triangle whose ancestors all pass `enter`, in depth-first
    /// order, until `leaf` returns [`Visit::Stop`]. Returns `true` when stopped.
    ///
    /// `enter` decides from a node's volume whether its subtree can matter
    /// (region and overlap queries); `leaf` receives each candidate triangle.
    pub fn traverse(
        &self,
        mut enter: impl FnMut(&V) -> bool,
        mut leaf: impl FnMut(TriangleId) -> Visit,
    ) -> bool {
        let mut stack: SmallVec<[NodeId; STACK]> = SmallVec::new();
        if self.nodes.is_empty() {
            return false;
        }
        stack.push(NodeId::ROOT);
        while let Some(id) = stack.pop() {
            let node = self.node(id);
            if !enter(&node.volume) {
                continue;
            }
            match node.kind(id) {
                NodeKind::Inner { left, right } => {
                    stack.push(right);
                    stack.push(left);
                }
                NodeKind::Leaf { first, count } => {
                    for triangle in self.leaf_triangles(first, count) {
                        if leaf(triangle) == Visit::Stop {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }
}
