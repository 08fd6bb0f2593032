//! The flattened node: a volume plus two indices, laid out depth first.

use crate::bvh::BoundingVolume;

/// Index of a node in its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub const ROOT: NodeId = NodeId(0);

    /// The index as `usize`.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One node of a [`crate::bvh::Bvh`], in depth-first order: an inner node's
/// left child is the next node, its right child is stored; a leaf stores the
/// range of its triangles in the tree's leaf order.
///
/// For an AABB this is 32 bytes (24 for the box, 8 for the links), so two
/// nodes share a 64-byte cache line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node<V> {
    /// The volume bounding every triangle below this node.
    pub volume: V,
    /// Leaf: first position in the leaf order. Inner: index of the right child.
    first: u32,
    /// Leaf: number of triangles (≥ 1). Inner: 0.
    count: u32,
}

/// What a node holds, for traversal code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An inner node with its two children.
    Inner {
        /// The left child (always the next node).
        left: NodeId,
        /// The right child.
        right: NodeId,
    },
    /// A leaf with positions `first .. first + count` of the leaf order.
    Leaf {
        /// First position in the tree's leaf order.
        first: u32,
        /// Number of triangles.
        count: u32,
    },
}

impl<V: BoundingVolume> Node<V> {
    pub(crate) fn leaf(volume: V, first: u32, count: u32) -> Self {
        debug_assert!(count > 0);
        Node {
            volume,
            first,
            count,
        }
    }

    pub(crate) fn inner(volume: V) -> Self {
        Node {
            volume,
            first: 0,
            count: 0,
        }
    }

    pub(crate) fn set_right(&mut self, right: u32) {
        debug_assert_eq!(self.count, 0);
        self.first = right;
    }

    pub(crate) fn shift(&mut self, node_offset: u32) {
        if self.count == 0 {
            self.first += node_offset;
        }
    }

    /// True for a leaf.
    #[must_use]
    #[inline(always)]
    pub fn is_leaf(&self) -> bool {
        self.count != 0
    }

    /// The node's children or triangle range; `id` is this node's own index.
    #[must_use]
    #[inline(always)]
    pub fn kind(&self, id: NodeId) -> NodeKind {
        if self.count == 0 {
            NodeKind::Inner {
                left: NodeId(id.0 + 1),
                right: NodeId(self.first),
            }
        } else {
            NodeKind::Leaf {
                first: self.first,
                count: self.count,
            }
        }
    }
}
