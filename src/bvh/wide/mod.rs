//! 4- and 8-wide AABB layouts for raycasts: the measured hot path.
//!
//! The generic binary tree spends most of a raycast on one child pair at a
//! time: two scalar slab tests and a hard-to-predict branch per level. This
//! layout collapses the binary SAH tree into nodes of up to `W` children
//! (eight in [`WideLayout`]) whose boxes are stored structure-of-arrays
//! (`min[axis][lane]`), so one node test is a handful of vector operations
//! (one AVX or two SSE instructions per step for eight lanes), and the tree
//! is a third as deep (Wald et al., "Getting Rid of Packets", 2008;
//! Dammertz et al., "Shallow Bounding Volume Hierarchies", 2008). Leaf
//! ranges are those of the binary tree, so the leaf order and every query's
//! triangle set are unchanged. Which binary nodes become wide nodes is the
//! cost-optimal choice (dynamic programming, Ylitie et al. 2017). Built in
//! O(n) from a finished binary tree and rebuilt the same way after a refit.

mod collapse;
mod descent_order;
mod node;
#[cfg(test)]
mod tests;

pub(crate) use descent_order::nearest_first;
pub use node::{WideChild, WideNode};

use crate::bounding_volume::Aabb;
use crate::bvh::{Bvh, NodeId, NodeKind};
use crate::math::Real;
use crate::memory::PageArray;
use collapse::Collapse;
use node::{EMPTY, LEAF, is_inner, leaf_block};

/// A core's private caches (L2 on this class of machine): node arrays
/// beyond it are read from farther away.
const CACHE_BYTES: usize = 1 << 20;

/// The `W`-wide form of an AABB tree. The root is node 0.
#[derive(Clone, Debug, PartialEq)]
pub struct WideBvh<const W: usize> {
    /// On huge pages when large (`PageArray`): descents read them at random.
    nodes: PageArray<WideNode<W>>,
    depth: u32,
}

/// The wide layout AABB trees keep for raycasts: eight lanes.
///
/// Eight lanes halve the levels a descent visits again, and on AVX2 one
/// 8-lane instruction does what one 4-lane SSE instruction did (in SSE
/// code the two widths are even). The width stays a parameter of
/// [`WideBvh`] so the tests can check the 4-wide form against the same
/// brute force.
pub type WideLayout = WideBvh<8>;

impl<const W: usize> WideBvh<W> {
    /// Collapses a binary AABB tree into `W`-wide nodes, choosing which
    /// binary nodes to open by the least expected ray cost (the private
    /// `Collapse`) rather than by always opening the largest child (Wald
    /// 2008), which this replaced: slightly faster raycasts and 20% fewer
    /// wide nodes.
    #[must_use]
    pub fn from_binary(bvh: &Bvh<Aabb>) -> WideBvh<W> {
        // Each wide node stands for a distinct inner binary node: an upper
        // bound that reserves address space only (`PageArray`), so the
        // nodes are written once, in place, on huge pages when large.
        // Every inner node has two children: n nodes hold (n − 1) / 2 inner ones.
        let inner = bvh.nodes().len().saturating_sub(1) / 2;
        let mut nodes = PageArray::with_capacity(inner.max(1));
        nodes.push(WideNode::UNUSED);
        let root = bvh.node(NodeId::ROOT);
        if let NodeKind::Leaf { first, count } = root.kind(NodeId::ROOT) {
            nodes[0].set(0, &root.volume, LEAF | first, count);
            return WideBvh { nodes, depth: 0 };
        }
        let mut depth = 0;
        let collapse = Collapse::<W>::new(bvh);
        // Pending wide nodes: the binary node each stands for, its index,
        // depth, and the parent lane that points to it (whose `count` gets
        // its leaf block once its children are known).
        let mut stack = vec![(NodeId::ROOT, 0usize, 0u32, None)];
        let mut children = Vec::with_capacity(W);
        while let Some((binary, wide, level, parent)) = stack.pop() {
            depth = depth.max(level);
            children.clear();
            collapse.children(bvh, binary, &mut children);
            let pushed = stack.len();
            for (lane, &c) in children.iter().enumerate() {
                let node = bvh.node(c);
                match node.kind(c) {
                    NodeKind::Leaf { first, count } => {
                        nodes[wide].set(lane, &node.volume, LEAF | first, count)
                    }
                    NodeKind::Inner { .. } => {
                        let index = nodes.len();
                        nodes.push(WideNode::UNUSED);
                        nodes[wide].set(lane, &node.volume, index as u32, 0);
                        stack.push((c, index, level + 1, Some((wide, lane))));
                    }
                }
            }
            // The first lane's subtree is emitted first: the binary nodes
            // are in preorder, left subtrees first, so the walk then reads
            // them (and their collapse choices) mostly front to back.
            stack[pushed..].reverse();
            if let Some((parent, lane)) = parent {
                nodes[parent].count[lane] = leaf_block(&nodes[wide]);
            }
        }
        WideBvh { nodes, depth }
    }

    /// Refits every child box, keeping the topology: a leaf's box becomes
    /// `leaf_box(first, count)`, an inner child's the union of its node's
    /// boxes. Children follow their parents (built and saved layouts alike),
    /// so one reverse pass sees every node after its children. For meshes
    /// whose vertices moved (`MeshTree::set_vertices`), as the binary tree
    /// is refitted rather than rebuilt (van den Bergen 1997): the collapse
    /// is not run again.
    pub(crate) fn refit(&mut self, leaf_box: impl Fn(u32, u32) -> Aabb) {
        let nodes: &mut [WideNode<W>] = &mut self.nodes;
        // Leaves first, front to back: nodes are laid out in the order of
        // their leaves, so `leaf_box` reads its runs nearly in order (from
        // the back, the reads missed the cache: 40% of a 1M-triangle
        // refit's samples on two loads).
        for node in nodes.iter_mut() {
            for lane in 0..W {
                if let WideChild::Leaf { first, count } = node.child(lane) {
                    node.set_child_bounds(lane, leaf_box(first, count));
                }
            }
        }
        for i in (0..nodes.len()).rev() {
            // Children follow their parent: all of them lie in `after`.
            let (upto, after) = nodes.split_at_mut(i + 1);
            let node = &mut upto[i];
            for lane in 0..W {
                if let WideChild::Node(child) = node.child(lane) {
                    node.set_child_bounds(lane, after[child as usize - i - 1].bounds());
                }
            }
        }
    }

    /// A layout from saved nodes over the leaf order `order`, checked in
    /// O(n) before any query can run: every inner child after its parent
    /// and inside the array, every node reached once, at least one lane
    /// used, leaf ranges non-empty, inside the order and covering it once
    /// (as `Bvh::from_saved` checks the binary tree's). Unused lanes get
    /// empty boxes (rays treat entered unused lanes as leaves), the leaf blocks and the depth are recomputed, never
    /// read, and the caller refits the used lanes' boxes before a query.
    pub(crate) fn from_saved(
        mut nodes: PageArray<WideNode<W>>,
        order: &[u32],
    ) -> Result<Self, super::ValidationError> {
        let mut covered = vec![false; order.len()];
        let bad = |i: usize| super::ValidationError::BadLink {
            node: NodeId(i as u32),
        };
        if nodes.is_empty() {
            return Err(bad(0));
        }
        let mut reached = vec![false; nodes.len()];
        let mut depth = 0u32;
        let mut stack = vec![(0usize, 0u32)];
        while let Some((i, level)) = stack.pop() {
            if std::mem::replace(&mut reached[i], true) {
                return Err(bad(i));
            }
            depth = depth.max(level);
            let node = &mut nodes[i];
            // Every built node has a used lane (descents dive to the
            // nearest one).
            if node.child.iter().all(|&c| c == EMPTY) {
                return Err(bad(i));
            }
            for lane in 0..W {
                match node.child(lane) {
                    WideChild::Empty => {
                        for axis in 0..3 {
                            node.bounds[0][axis][lane] = Real::INFINITY;
                            node.bounds[1][axis][lane] = Real::NEG_INFINITY;
                        }
                        node.count[lane] = 0;
                    }
                    WideChild::Leaf { first, count } => {
                        // Descents read a zero count as an inner node.
                        let range = first as usize..first as usize + count as usize;
                        match covered.get_mut(range) {
                            Some(slots) if count != 0 && !slots.iter().any(|&c| c) => {
                                slots.fill(true);
                            }
                            _ => return Err(bad(i)),
                        }
                    }
                    WideChild::Node(child) => {
                        let child = child as usize;
                        if child <= i || child >= reached.len() {
                            return Err(bad(i));
                        }
                        node.count[lane] = 0;
                        stack.push((child, level + 1));
                    }
                }
            }
        }
        if let Some(node) = reached.iter().position(|r| !r) {
            return Err(bad(node));
        }
        if let Some(position) = covered.iter().position(|c| !c) {
            return Err(super::ValidationError::TriangleCount {
                triangle: crate::shape::TriangleId(order[position]),
                seen: 0,
            });
        }
        link_leaf_blocks(&mut nodes);
        Ok(WideBvh { nodes, depth })
    }

    /// Appends node `i`'s words as saved: the child words, then the leaf
    /// counts that ride in their partner array. The boxes are left out: a
    /// load refits them from the mesh ([`WideBvh::refit`]).
    pub(crate) fn saved_words(node: &WideNode<W>, out: &mut Vec<u32>) {
        out.extend_from_slice(&node.child);
        out.extend_from_slice(&node.count);
    }

    /// A node from [`WideBvh::saved_words`]' words (`2W` of them), with
    /// empty boxes until the refit.
    pub(crate) fn node_from_saved_words(w: &[u32]) -> WideNode<W> {
        let mut node = WideNode::UNUSED;
        node.child.copy_from_slice(&w[..W]);
        node.count.copy_from_slice(&w[W..2 * W]);
        node
    }

    /// Makes every leaf child name `name(first)` (count unchanged) instead
    /// of its first leaf-order position, and clears the grandchild ranges
    /// of inner children, which no longer describe a leaf order: for a
    /// scene's top level, whose single-object leaves name the object.
    pub(crate) fn rename_leaves(&mut self, name: impl Fn(u32) -> u32) {
        for node in self.nodes.iter_mut() {
            for lane in 0..W {
                match node.child(lane) {
                    WideChild::Leaf { first, .. } => node.child[lane] = LEAF | name(first),
                    WideChild::Node(_) => node.count[lane] = 0,
                    WideChild::Empty => {}
                }
            }
        }
    }

    /// Bytes of the nodes the kernel reports on huge pages (`None` where
    /// it cannot tell).
    #[must_use]
    pub fn huge_page_bytes(&self) -> Option<usize> {
        self.nodes.huge_page_bytes()
    }

    /// The nodes; the root is first.
    #[must_use]
    #[inline]
    pub fn nodes(&self) -> &[WideNode<W>] {
        &self.nodes
    }

    /// The nodes, for refits that change child boxes but not the topology.
    #[inline]
    pub(crate) fn nodes_mut(&mut self) -> &mut [WideNode<W>] {
        &mut self.nodes
    }

    /// Longest root-to-leaf path, in wide nodes.
    #[must_use]
    #[inline]
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// True when a fixed [`crate::bvh::ArrayStack`] is deep enough: a descent
    /// keeps at most three pending siblings per level.
    #[must_use]
    #[inline(always)]
    pub fn fits_array_stack(&self) -> bool {
        ((W - 1) * self.depth as usize + W) < crate::bvh::ARRAY_STACK_DEPTH
    }

    /// True when the nodes are larger than a core's private caches (1 MiB):
    /// then kernels prefetch the children they will visit, which measured
    /// 10–15% faster on 1.7M triangles and 3% slower on 3.7k (bunny), where
    /// the nodes stay cached and the hints only cost issue slots.
    #[must_use]
    #[inline(always)]
    pub fn outgrows_cache(&self) -> bool {
        self.bytes() > CACHE_BYTES
    }

    /// Bytes of node storage.
    #[must_use]
    #[inline]
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.nodes)
    }
}

/// Fills each inner child's `count` with its leaf block, when it has one
/// (see [`WideNode::grandchild_triangles`]): for saved layouts, whose
/// hints are recomputed; built ones get them as their nodes are emitted.
fn link_leaf_blocks<const W: usize>(nodes: &mut [WideNode<W>]) {
    for i in 0..nodes.len() {
        for lane in 0..W {
            let c = nodes[i].child[lane];
            if is_inner(c) {
                nodes[i].count[lane] = leaf_block(&nodes[c as usize]);
            }
        }
    }
}
