//! The one traversal engine: an iterative descent with a small fixed stack.

use crate::bvh::{ArrayStack, BoundingVolume, Bvh, NodeId, NodeKind, TraversalStack, stack_items};
use crate::shape::TriangleId;

/// What a leaf callback tells the traversal to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visit {
    /// Keep going.
    Continue,
    /// Stop the whole traversal (an any-hit query found its answer).
    Stop,
}

impl<V: BoundingVolume> Bvh<V> {
    /// Visits every triangle whose ancestors all pass `enter`, in depth-first
    /// order, until `leaf` returns [`Visit::Stop`]. Returns `true` when stopped.
    ///
    /// `enter` decides from a node's volume whether its subtree can matter
    /// (region and overlap queries); `leaf` receives each candidate triangle.
    pub fn traverse(
        &self,
        enter: impl FnMut(&V) -> bool,
        mut leaf: impl FnMut(TriangleId) -> Visit,
    ) -> bool {
        let mut leaf_range = |first: u32, count: u32| {
            for triangle in self.leaf_triangles(first, count) {
                if leaf(triangle) == Visit::Stop {
                    return Visit::Stop;
                }
            }
            Visit::Continue
        };
        if self.fits_array_stack() {
            self.descend(
                &mut ArrayStack::new(&mut stack_items()),
                enter,
                &mut leaf_range,
            )
        } else {
            self.descend(&mut Vec::new(), enter, &mut leaf_range)
        }
    }

    /// The engine under every unordered query: depth-first over child pairs,
    /// testing both children of a node together, continuing with the left one
    /// and keeping the right one on `stack`. `leaf` receives each entered
    /// leaf's range of the leaf order. Returns `true` when `leaf` stopped it.
    #[inline(always)]
    pub(crate) fn descend(
        &self,
        stack: &mut impl TraversalStack<NodeId>,
        mut enter: impl FnMut(&V) -> bool,
        mut leaf: impl FnMut(u32, u32) -> Visit,
    ) -> bool {
        if !enter(self.root_volume()) {
            return false;
        }
        let mut id = NodeId::ROOT;
        loop {
            match self.node(id).kind(id) {
                NodeKind::Inner { left, right } => {
                    let hit_left = enter(&self.node(left).volume);
                    let hit_right = enter(&self.node(right).volume);
                    if hit_left {
                        if hit_right {
                            stack.push(right);
                        }
                        id = left;
                        continue;
                    }
                    if hit_right {
                        id = right;
                        continue;
                    }
                }
                NodeKind::Leaf { first, count } => {
                    if leaf(first, count) == Visit::Stop {
                        return true;
                    }
                }
            }
            match stack.pop() {
                Some(next) => id = next,
                None => return false,
            }
        }
    }
}
