//! The flattened node: a volume plus two indices, laid out depth first.

use crate::bvh::BoundingVolume;

/// Index of a node in its tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

/// One node of a [`crate::bvh::Bvh`]. The two children of an inner node are
/// adjacent (left at `first`, right at `first + 1`), so a ray tests both
/// child volumes from one contiguous 64 bytes; a leaf stores the range of its
/// triangles in the tree's leaf order.
///
/// For an AABB this is 32 bytes: 24 for the box, 8 for the links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node<V> {
    /// The volume bounding every triangle below this node.
    pub volume: V,
    /// Leaf: first position in the leaf order. Inner: index of the left child.
    first: u32,
    /// Leaf: number of triangles (≥ 1). Inner: 0.
    count: u32,
}

/// What a node holds, for traversal code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An inner node with its two children.
    Inner {
        /// The left child (the right child is the node after it).
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

    pub(crate) fn inner(volume: V, left: u32) -> Self {
        Node {
            volume,
            first: left,
            count: 0,
        }
    }

    /// The link words as stored: leaf `(first, count ≥ 1)`, inner `(left, 0)`.
    pub(crate) fn raw(&self) -> (u32, u32) {
        (self.first, self.count)
    }

    /// A node from its stored link words (checked by `Bvh::from_saved`).
    pub(crate) fn from_raw(volume: V, first: u32, count: u32) -> Self {
        Node {
            volume,
            first,
            count,
        }
    }

    /// The same node (children or triangle range) with another volume.
    pub(crate) fn with_volume<U>(&self, volume: U) -> Node<U> {
        Node {
            volume,
            first: self.first,
            count: self.count,
        }
    }

    #[cfg(feature = "parallel")]
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
        let _ = id;
        if self.count == 0 {
            NodeKind::Inner {
                left: NodeId(self.first),
                right: NodeId(self.first + 1),
            }
        } else {
            NodeKind::Leaf {
                first: self.first,
                count: self.count,
            }
        }
    }
}
