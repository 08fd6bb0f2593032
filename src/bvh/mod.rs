//! One bounding-volume hierarchy, generic over the volume: AABB, OBB, sphere
//! and k-DOP trees share build, refit, validation and traversal code.
//!
//! The tree knows volumes and triangle ids only; the geometry of a query
//! arrives as closures (see [`Bvh::traverse`]), so one engine serves every
//! query in `crate::query`.

mod build;
mod node;
mod options;
mod ray;
mod refit;
mod stack;
mod stats;
mod traverse;
mod validate;
mod volume;
mod wide;

pub use node::{Node, NodeId, NodeKind};
pub use options::{BuildOptions, SplitRule, SplitSearch};
pub use ray::TraversalRay;
pub(crate) use stack::{ARRAY_STACK_DEPTH, ArrayStack, ParkedStack, TraversalStack, stack_items};
pub use stats::TreeStats;
pub use traverse::Visit;
pub use validate::ValidationError;
pub use volume::{BoundingVolume, DistanceBound, ObbFit};
pub(crate) use wide::{WideBvh, WideChild, WideLayout, WideNode, nearest_first};

use crate::bounding_volume::{Aabb, Kdop18, PackedObb, Sphere};
use crate::shape::TriangleId;

/// The positions of the set bits of `mask`, lowest first (bin sets in the
/// builder, entered lanes of a wide node).
#[inline(always)]
pub(crate) fn set_bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bit
        })
    })
}

/// A flattened bounding-volume hierarchy over the triangles of one mesh.
///
/// Immutable after [`Bvh::build`] except through [`Bvh::refit`]; every query
/// takes `&self` and keeps its state on its own stack, so a tree can be
/// shared between threads freely.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh<V> {
    /// Nodes in depth-first preorder; the root is node 0.
    nodes: Vec<Node<V>>,
    /// Triangle ids in leaf order: leaf `(first, count)` owns `order[first .. first + count]`.
    order: Vec<u32>,
    /// Longest root-to-leaf path (edges); traversals pick their stack by it.
    depth: u32,
}

/// An AABB tree (build it with [`BuildOptions::sah`]).
pub type AabbTree = Bvh<Aabb>;
/// A Gottschalk OBB tree (build it with [`BuildOptions::gottschalk`]), its
/// boxes stored packed (44-byte nodes). `Bvh<Obb>` is the same tree with
/// full rotation matrices (68-byte nodes), a little faster to descend.
pub type ObbTree = Bvh<PackedObb>;
/// A bounding-sphere tree.
pub type SphereTree = Bvh<Sphere>;
/// An 18-DOP tree.
pub type KdopTree = Bvh<Kdop18>;

impl<V: BoundingVolume> Bvh<V> {
    /// All nodes in depth-first preorder; the root is first.
    #[must_use]
    pub fn nodes(&self) -> &[Node<V>] {
        &self.nodes
    }

    /// The node `id`.
    #[must_use]
    #[inline(always)]
    pub fn node(&self, id: NodeId) -> &Node<V> {
        &self.nodes[id.index()]
    }

    /// The root volume, bounding the whole mesh.
    #[must_use]
    pub fn root_volume(&self) -> &V {
        &self.nodes[0].volume
    }

    /// Triangle ids in leaf order.
    #[must_use]
    pub(crate) fn leaf_order(&self) -> &[u32] {
        &self.order
    }

    /// The triangles of the leaf range `first .. first + count`.
    #[inline(always)]
    pub fn leaf_triangles(&self, first: u32, count: u32) -> impl Iterator<Item = TriangleId> + '_ {
        self.order[first as usize..(first + count) as usize]
            .iter()
            .map(|&i| TriangleId(i))
    }

    /// Longest root-to-leaf path, in edges.
    #[must_use]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// True when a fixed [`ArrayStack`] is deep enough for depth-first traversal.
    #[must_use]
    #[inline(always)]
    pub(crate) fn fits_array_stack(&self) -> bool {
        (self.depth as usize) < ARRAY_STACK_DEPTH
    }

    /// Number of triangles the tree was built over.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.order.len()
    }
}
