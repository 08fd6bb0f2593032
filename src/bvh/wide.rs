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

use crate::bounding_volume::Aabb;
use crate::bvh::ray::EXIT_PADDING;
use crate::bvh::{Bvh, NodeId, NodeKind, TraversalRay, TraversalStack};
use crate::math::{Real, Vector};
use crate::memory::PageArray;
use crate::simd::{BoxDistanceInput, Isa, SlabInput};

/// Marks a leaf child: the low bits are the first position in the leaf order.
const LEAF: u32 = 1 << 31;
/// An unused child slot (its box is empty, so no ray ever enters it).
const EMPTY: u32 = u32::MAX;
/// A core's private caches (L2 on this class of machine): node arrays
/// beyond it are read from farther away.
const CACHE_BYTES: usize = 1 << 20;
/// The widest node supported (the collapse's cost rows hold one entry per slot count up to it).
const MAX_WIDTH: usize = 8;
/// Bits of a leaf block (see [`WideNode::grandchild_triangles`]) that hold
/// its triangle count; the first position takes the rest.
const BLOCK_COUNT_BITS: u32 = 5;

/// One node of up to `W` (4 or 8) children, boxes stored per axis and lane.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct WideNode<const W: usize> {
    /// `bounds[0]` holds the minima, `bounds[1]` the maxima, per axis and
    /// lane: a ray picks its near and far planes by index, without a branch.
    bounds: [[[Real; W]; 3]; 2],
    /// Inner child: index of its wide node. Leaf: `LEAF | first`. Unused: `EMPTY`.
    child: [u32; W],
    /// Leaf child: number of triangles. Inner child whose own children are
    /// all leaves: where those leaves' triangles are (`first << 5 |
    /// count`), so a descent can ask the cache for them a level early
    /// ([`WideNode::grandchild_triangles`]); 0 for other inner children and
    /// when the triangles are not one short range.
    count: [u32; W],
}

/// What one child slot of a [`WideNode`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideChild {
    /// Another wide node.
    Node(u32),
    /// Triangles `first .. first + count` of the leaf order.
    Leaf {
        /// First position in the leaf order.
        first: u32,
        /// Number of triangles.
        count: u32,
    },
    /// Nothing.
    Empty,
}

/// What [`WideNode::point_distances_on`] tells of a node's children.
#[derive(Clone, Copy, Debug)]
pub struct PointDistances<const W: usize> {
    /// Squared distance from the point to each child box.
    pub squared: [Real; W],
    /// Bit mask of the children within the reach asked for.
    pub within: u32,
    /// The child with the least distance (the first of equals).
    pub nearest: usize,
}

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

impl<const W: usize> WideNode<W> {
    const UNUSED: Self = WideNode {
        bounds: [[[Real::INFINITY; W]; 3], [[Real::NEG_INFINITY; W]; 3]],
        child: [EMPTY; W],
        count: [0; W],
    };

    fn set(&mut self, lane: usize, aabb: &Aabb, child: u32, count: u32) {
        for axis in 0..3 {
            self.bounds[0][axis][lane] = aabb.min[axis];
            self.bounds[1][axis][lane] = aabb.max[axis];
        }
        self.child[lane] = child;
        self.count[lane] = count;
    }

    /// The box of child `lane` ([`Aabb::EMPTY`]'s bounds for unused lanes).
    #[must_use]
    #[inline(always)]
    pub fn child_box(&self, lane: usize) -> Aabb {
        Aabb {
            min: [0, 1, 2].map(|axis| self.bounds[0][axis][lane]).into(),
            max: [0, 1, 2].map(|axis| self.bounds[1][axis][lane]).into(),
        }
    }

    /// Replaces the box of child `lane` with `b`, taken by value and
    /// stored component by component: through a reference the box went to
    /// the stack in pieces and was read back wider inside refits, a
    /// store-forwarding stall that held 40% of a refit's samples.
    #[inline(always)]
    pub(crate) fn set_child_bounds(&mut self, lane: usize, b: Aabb) {
        let (min, max) = ([b.min.x, b.min.y, b.min.z], [b.max.x, b.max.y, b.max.z]);
        for axis in 0..3 {
            self.bounds[0][axis][lane] = min[axis];
            self.bounds[1][axis][lane] = max[axis];
        }
    }

    /// Bit `lane` is set when child `lane`'s box meets `b` (boundaries
    /// included, as [`Aabb::overlaps`]; unused lanes never): the eight box
    /// tests of a broad-phase step as one vectorised loop.
    #[must_use]
    #[inline(always)]
    pub fn overlapping_lanes(&self, b: &Aabb) -> u32 {
        let mut meets = [true; W];
        for axis in 0..3 {
            let (lo, hi) = (&self.bounds[0][axis], &self.bounds[1][axis]);
            for lane in 0..W {
                meets[lane] &= (lo[lane] <= b.max[axis]) & (b.min[axis] <= hi[lane]);
            }
        }
        let mut lanes = 0;
        for (lane, &m) in meets.iter().enumerate() {
            lanes |= u32::from(m) << lane;
        }
        lanes
    }

    /// Bit `lane` is set when child `lane` is used (an inner node or a leaf).
    #[must_use]
    #[inline(always)]
    pub(crate) fn used_lanes(&self) -> u32 {
        let mut lanes = 0;
        for lane in 0..W {
            lanes |= u32::from(self.child[lane] != EMPTY) << lane;
        }
        lanes
    }

    /// Squared distances from `p` to the child boxes (0 inside, infinite
    /// for unused lanes), which of them lie within `reach_squared`, and the
    /// nearest child (the first of equals): a nearest-point descent's box
    /// tests on the instruction set `isa` (8 lanes; other widths through
    /// the portable form's loops).
    #[must_use]
    #[inline(always)]
    pub(crate) fn point_distances_on<I: Isa>(
        &self,
        isa: I,
        p: &crate::math::Point,
        reach_squared: Real,
    ) -> PointDistances<W> {
        let rows = |side: usize| -> Option<[&[Real; 8]; 3]> {
            let row = |axis: usize| self.bounds[side][axis].as_slice().try_into().ok();
            Some([row(0)?, row(1)?, row(2)?])
        };
        if let (Some(min), Some(max)) = (rows(0), rows(1)) {
            let found = isa.box_distances8(&BoxDistanceInput {
                min,
                max,
                point: [p.x, p.y, p.z],
                reach_squared,
            });
            let mut squared = [Real::INFINITY; W];
            squared[..8].copy_from_slice(&found.squared);
            // Unused lanes are empty boxes, +∞ away: never within a finite
            // reach, and never the least unless every used lane's square
            // overflowed too. Only for an infinite reach (a search with no
            // maximum, or whose nearest distance squared overflows), or
            // such a least, are they masked out by the lanes' child words
            // (a loop over the lanes: about 5% of a point query's
            // instructions when it ran at every node).
            let first = found.least.trailing_zeros() as usize % 8;
            let within = if reach_squared < Real::INFINITY {
                found.within
            } else {
                found.within & self.used_lanes()
            };
            let nearest = if found.squared[first] < Real::INFINITY {
                first
            } else {
                let used = self.used_lanes();
                let least = found.least & used;
                if least != 0 { least } else { used }.trailing_zeros() as usize % W
            };
            return PointDistances {
                squared,
                within,
                nearest,
            };
        }
        let mut squared = [0.0; W];
        for axis in 0..3 {
            let (lo, hi) = (&self.bounds[0][axis], &self.bounds[1][axis]);
            for lane in 0..W {
                let (below, above) = (lo[lane] - p[axis], p[axis] - hi[lane]);
                let out = if below > above { below } else { above };
                let out = if out > 0.0 { out } else { 0.0 };
                squared[lane] += out * out;
            }
        }
        let used = self.used_lanes();
        let (mut within, mut nearest) = (0, used.trailing_zeros() as usize % W);
        for lane in 0..W {
            within |= u32::from(squared[lane] <= reach_squared) << lane;
            if squared[lane] < squared[nearest] {
                nearest = lane;
            }
        }
        let within = within & used;
        PointDistances {
            squared,
            within,
            nearest,
        }
    }

    /// The union of the child boxes: this node's own box.
    #[must_use]
    #[inline(always)]
    pub fn bounds(&self) -> Aabb {
        // Per axis over the lanes (unused lanes are empty boxes, +∞ to −∞).
        let side = |s: usize, axis: usize, pick: fn(Real, Real) -> Real, from: Real| {
            self.bounds[s][axis].iter().fold(from, |a, &b| pick(a, b))
        };
        Aabb {
            min: [0, 1, 2]
                .map(|a| side(0, a, Real::min, Real::INFINITY))
                .into(),
            max: [0, 1, 2]
                .map(|a| side(1, a, Real::max, Real::NEG_INFINITY))
                .into(),
        }
    }

    /// What child `lane` holds.
    #[must_use]
    #[inline(always)]
    pub fn child(&self, lane: usize) -> WideChild {
        match self.child[lane] {
            EMPTY => WideChild::Empty,
            c if c & LEAF != 0 => WideChild::Leaf {
                first: c & !LEAF,
                count: self.count[lane],
            },
            c => WideChild::Node(c),
        }
    }

    /// Bit `lane` is set when child `lane` is a leaf or unused (rays never
    /// enter unused lanes, so masking entered lanes with this picks leaves).
    /// Read from the flag bits without branches.
    #[must_use]
    #[inline(always)]
    pub fn leaf_lanes(&self) -> u32 {
        let mut lanes = 0;
        for lane in 0..W {
            lanes |= (self.child[lane] >> 31) << lane;
        }
        lanes
    }

    /// [`WideNode::leaf_lanes`] on the instruction set `isa` (one mask
    /// instruction for eight lanes).
    #[must_use]
    #[inline(always)]
    pub(crate) fn leaf_lanes_on<I: Isa>(&self, isa: I) -> u32 {
        match <&[u32; 8]>::try_from(self.child.as_slice()) {
            Ok(eight) => isa.top_bits8(eight),
            Err(_) => self.leaf_lanes(),
        }
    }

    /// Child `lane` as a descent's stack entry `(node, 0, key)` for an
    /// inner child, `(first, count, key)` for a leaf (`count` ≥ 1).
    #[must_use]
    #[inline(always)]
    pub(crate) fn keyed_child(&self, lane: usize, key: Real) -> (u32, u32, Real) {
        if self.leaf_lanes() >> lane & 1 != 0 {
            let (first, count) = self.leaf_range(lane);
            (first, count, key)
        } else {
            (self.inner_child(lane), 0, key)
        }
    }

    /// `(first, count)` of a leaf child `lane` (meaningless for others).
    #[must_use]
    #[inline(always)]
    pub fn leaf_range(&self, lane: usize) -> (u32, u32) {
        (self.child[lane] & !LEAF, self.count[lane])
    }

    /// The node index held by an inner child `lane` (meaningless for others).
    #[must_use]
    #[inline(always)]
    pub fn inner_child(&self, lane: usize) -> u32 {
        self.child[lane]
    }

    /// For an inner child `lane` (meaningless for others) whose children
    /// are all leaves: the triangles of those leaves as one range of the
    /// leaf order, `(first, count)`, when they are contiguous and fewer
    /// than 32; `(0, 0)` otherwise. Lets a descent fetch them a level early.
    #[must_use]
    #[inline(always)]
    pub fn grandchild_triangles(&self, lane: usize) -> (u32, u32) {
        let slot = self.count[lane];
        (
            slot >> BLOCK_COUNT_BITS,
            slot & ((1 << BLOCK_COUNT_BITS) - 1),
        )
    }

    /// Slab entries and exits of the ray into the child boxes within
    /// `[t_min, t_max]`, and a bit mask of the children it enters (see
    /// [`TraversalRay::slab_entry`] for the NaN ordering and the exit
    /// padding, applied per lane), and which children may hold an end of
    /// the range (see [`SlabSpans::at_ends`]).
    ///
    /// A plain loop over the lanes, which the compiler vectorises; kernels
    /// that read the entries back use an intrinsics form of the same test.
    ///
    /// `at_ends` compares the exits clamped by `t_max`, which is exact when
    /// `t_max` is the query's own end (any-hit). A closest-hit descent
    /// clamps by its current reach instead and takes
    /// [`WideNode::ray_entries_on`], which keeps unclamped exits
    /// in a second chain.
    #[inline(always)]
    pub fn ray_entries(
        &self,
        ray: &TraversalRay,
        t_min: Real,
        t_max: Real,
        ends: [Real; 2],
    ) -> SlabSpans<W> {
        self.ray_entries_plain::<false>(ray, t_min, t_max, ends)
    }

    /// [`WideNode::ray_entries`], with `UNCLAMPED` a second chain of exits
    /// not clamped by `t_max` for `at_ends` (a separate chain, so the
    /// entered test's latency does not grow by a clamp).
    #[inline(always)]
    fn ray_entries_plain<const UNCLAMPED: bool>(
        &self,
        ray: &TraversalRay,
        t_min: Real,
        t_max: Real,
        ends: [Real; 2],
    ) -> SlabSpans<W> {
        let mut enter = [t_min; W];
        let mut exit = [t_max * EXIT_PADDING; W];
        let mut reach = [Real::INFINITY; W];
        for axis in 0..3 {
            let near_side = usize::from(ray.negative[axis]);
            let near = &self.bounds[near_side][axis];
            let far = &self.bounds[1 - near_side][axis];
            let o = ray.origin[axis];
            let (inv, far_inv) = (ray.inverse_direction[axis], ray.far_inverse[axis]);
            for lane in 0..W {
                let t_near = (near[lane] - o) * inv;
                let t_far = (far[lane] - o) * far_inv;
                enter[lane] = if t_near > enter[lane] {
                    t_near
                } else {
                    enter[lane]
                };
                exit[lane] = if t_far < exit[lane] {
                    t_far
                } else {
                    exit[lane]
                };
                if UNCLAMPED {
                    reach[lane] = if t_far < reach[lane] {
                        t_far
                    } else {
                        reach[lane]
                    };
                }
            }
        }
        let (mut entered, mut at_ends) = (0, 0);
        for lane in 0..W {
            entered |= u32::from(enter[lane] <= exit[lane]) << lane;
            let exit_for_ends = if UNCLAMPED { reach[lane] } else { exit[lane] };
            at_ends |= u32::from((enter[lane] <= ends[0]) | (exit_for_ends >= ends[1])) << lane;
        }
        SlabSpans {
            enter,
            entered,
            at_ends,
        }
    }

    /// Where the ray enters each child box grown by `reach[axis]` on both
    /// sides along each axis (its Minkowski sum with a box of those
    /// half-extents), within `[0, t_max]`: the node test of shape casts,
    /// whose path is the shape's centre. Growing the box moves the near
    /// plane by the reach towards the origin and the far plane away, so
    /// each takes its own shifted origin.
    #[inline(always)]
    pub(crate) fn grown_entries(
        &self,
        ray: &TraversalRay,
        reach: &Vector,
        t_max: Real,
    ) -> ([Real; W], u32) {
        let mut enter = [0.0; W];
        let mut exit = [t_max; W];
        for axis in 0..3 {
            let negative = ray.negative[axis];
            let near_side = usize::from(negative);
            let near = &self.bounds[near_side][axis];
            let far = &self.bounds[1 - near_side][axis];
            let toward = if negative { -reach[axis] } else { reach[axis] };
            let (o_near, o_far) = (ray.origin[axis] + toward, ray.origin[axis] - toward);
            let inv = ray.inverse_direction[axis];
            for lane in 0..W {
                let t_near = (near[lane] - o_near) * inv;
                let t_far = (far[lane] - o_far) * inv;
                enter[lane] = if t_near > enter[lane] {
                    t_near
                } else {
                    enter[lane]
                };
                exit[lane] = if t_far < exit[lane] {
                    t_far
                } else {
                    exit[lane]
                };
            }
        }
        let mut entered = 0;
        for lane in 0..W {
            entered |= u32::from(enter[lane] <= exit[lane] * EXIT_PADDING) << lane;
        }
        // An infinite reach makes an unused lane's infinite planes NaN,
        // which compares as entered: unused lanes are masked.
        (enter, entered & self.used_lanes())
    }

    /// [`WideNode::ray_entries`] on the instruction set `isa` (see
    /// `crate::simd`), for the closest-hit descents, which read the entries
    /// back: for eight lanes the compiler split the plain loop into
    /// scattered pairs of lanes wherever the entries were read back, so the
    /// eight-lane forms are written with intrinsics. `at_ends` compares
    /// exits not clamped by `t_max` (a closest-hit descent clamps by its
    /// current reach, which may lie before the range's end).
    #[inline(always)]
    pub(crate) fn ray_entries_on<I: Isa>(
        &self,
        isa: I,
        ray: &TraversalRay,
        t_min: Real,
        t_max: Real,
        ends: [Real; 2],
    ) -> SlabSpans<W> {
        if let Ok(bounds) = <&[Real; 48]>::try_from(self.bounds.as_flattened().as_flattened()) {
            let slab = isa.slab8(&SlabInput {
                bounds,
                rows: &ray.rows,
                origin: ray.origin.coords.as_ref(),
                inverse: ray.inverse_direction.as_ref(),
                far_inverse: ray.far_inverse.as_ref(),
                t_min,
                t_max: t_max * EXIT_PADDING,
                ends,
            });
            let mut enter = [0.0; W];
            enter.copy_from_slice(&slab.enter);
            return SlabSpans {
                enter,
                entered: slab.entered,
                at_ends: slab.at_ends,
            };
        }
        self.ray_entries_plain::<true>(ray, t_min, t_max, ends)
    }
}

/// What a ray's slab test found for the children of one wide node.
#[derive(Clone, Copy, Debug)]
pub struct SlabSpans<const W: usize> {
    /// Per child: the entry parameter, clamped to `t_min`.
    pub enter: [Real; W],
    /// Bit mask of the children the ray enters.
    pub entered: u32,
    /// Bit mask of the children whose box may hold an end of the query's
    /// range: entered at or before `ends[0]` or left (unclamped by `t_max`)
    /// at or after `ends[1]`, the range's ends widened by their rounding
    /// (`intersect::end_thresholds`). Only leaves among them need the exact
    /// endpoint decisions; the triangle test applies the same slab formula
    /// to each triangle's own box, which lies inside its leaf's, so a
    /// triangle that qualifies always sits in a flagged leaf.
    pub at_ends: u32,
}

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

/// True for a child word naming a wide node.
fn is_inner(child: u32) -> bool {
    child != EMPTY && child & LEAF == 0
}

/// The triangles of a node whose children are all leaves, when they are
/// one range of at most 31 starting below 2^27 (else 0: no hint).
fn leaf_block<const W: usize>(node: &WideNode<W>) -> u32 {
    if node.child.iter().any(|&c| is_inner(c)) {
        return 0;
    }
    let leaves = (0..W).filter(|&l| node.child[l] != EMPTY && node.child[l] & LEAF != 0);
    let first = leaves
        .clone()
        .map(|l| node.child[l] & !LEAF)
        .min()
        .unwrap_or(0);
    let end = leaves
        .clone()
        .map(|l| (node.child[l] & !LEAF) + node.count[l])
        .max()
        .unwrap_or(0);
    let total: u32 = leaves.map(|l| node.count[l]).sum();
    let contiguous = end - first == total;
    if contiguous && total < 1 << BLOCK_COUNT_BITS && first < 1 << (32 - BLOCK_COUNT_BITS) {
        first << BLOCK_COUNT_BITS | total
    } else {
        0
    }
}

/// Cost of one triangle test relative to one wide-node visit, as measured
/// on the bunny (about 25 against 40 cycles); 0.3 and 1.0 measured no better.
const TRIANGLE_COST: f32 = 0.6;

/// The cost-optimal collapse of a binary tree into wide nodes, by
/// dynamic programming over the binary nodes (Ylitie, Karras, Laine,
/// "Efficient Incoherent Ray Traversal on GPUs Through Compressed Wide
/// BVHs", HPG 2017, §3.1, without their leaf merging: the binary leaves are
/// kept). A ray visits a node, or tests a leaf's triangles, with probability
/// proportional to the box's surface area, so a subtree's expected cost is
/// Σ area over its wide nodes plus Σ area · `TRIANGLE_COST` · triangles over
/// its leaves. `cost[n][i]` (built bottom-up in [`Collapse::new`]) is the least such cost of binary node `n`'s
/// subtree when it fills at most `i` child slots of its parent: one slot
/// holds `n` itself (a leaf, or a new wide node over the best `width`-slot
/// split of its children), and `i` slots can also share the subtree out as
/// `k` slots of the left child and `i − k` of the right one.
///
/// The pass visits the binary nodes in post-order and keeps the cost rows
/// of finished subtrees on a stack, so only the choices outlive it: per
/// node, for every slot count, how many slots the left child gets when
/// the node is opened and how many its cheapest representation fills,
/// packed into one `u64` (8 MB on a 1M-triangle mesh). A table of every
/// node's costs, as this pass first kept, was 65 MB whose first touch cost
/// as much as the arithmetic.
struct Collapse<const W: usize> {
    /// Per binary node, the packed [`Choices`].
    choices: Vec<Choices>,
}

/// One node's collapse choices, three bits per slot count: bits
/// `3 (j − 2)` hold the slots of the left child when the node is opened
/// into `j = 2..=8` slots, and bits `21 + 3 (j − 1)` the slots its cheapest
/// representation in `j = 1..=8` fills, minus one. Zero, the value of a
/// leaf, reads as one slot given to the left child and one slot filled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Choices(u64);

impl Choices {
    const BITS: u32 = 3;
    const FILLS_AT: u32 = 21;

    /// The slots the left child gets when the node is opened into `slots`.
    fn split(self, slots: usize) -> usize {
        ((self.0 >> (Self::BITS * (slots as u32 - 2))) & 7) as usize + 1
    }

    /// The slots the cheapest representation in at most `slots` fills.
    fn fills(self, slots: usize) -> usize {
        ((self.0 >> (Self::FILLS_AT + Self::BITS * (slots as u32 - 1))) & 7) as usize + 1
    }

    fn set_split(&mut self, slots: usize, left: usize) {
        let at = Self::BITS * (slots as u32 - 2);
        self.0 = self.0 & !(7 << at) | ((left as u64 - 1) << at);
    }

    fn set_fills(&mut self, slots: usize, fills: usize) {
        let at = Self::FILLS_AT + Self::BITS * (slots as u32 - 1);
        self.0 = self.0 & !(7 << at) | ((fills as u64 - 1) << at);
    }
}

/// Least costs of a subtree in `1..=width` slots (index 0 unused).
type CostRow = [f32; MAX_WIDTH + 1];

impl<const W: usize> Collapse<W> {
    /// The choices for `W` slots per wide node. `W` is a constant so that
    /// the loops over slot counts unroll and the rows stay in registers
    /// (with a run-time width they went through memory at every step).
    fn new(bvh: &Bvh<Aabb>) -> Self {
        assert!((2..=MAX_WIDTH).contains(&W));
        let mut choices = vec![Choices::default(); bvh.nodes().len()];
        // A binary leaf's row, made when its parent is done: leaves never
        // wait on the stacks (half of the nodes, and the branch between
        // the kinds is a coin toss per node).
        let leaf_row = |id: NodeId| {
            let node = bvh.node(id);
            match node.kind(id) {
                NodeKind::Leaf { count, .. } => {
                    Some([node.volume.surface_area() * TRIANGLE_COST * count as f32; MAX_WIDTH + 1])
                }
                NodeKind::Inner { .. } => None,
            }
        };
        // Cost rows of finished inner subtrees; a node's row replaces its
        // inner children's (the right child's is on top).
        let mut rows: Vec<CostRow> = Vec::new();
        // Inner nodes to visit, flagged once their children are done.
        let mut pending = Vec::new();
        if !bvh.node(NodeId::ROOT).is_leaf() {
            pending.push((NodeId::ROOT, false));
        }
        while let Some((id, children_done)) = pending.pop() {
            let node = bvh.node(id);
            let NodeKind::Inner { left, right } = node.kind(id) else {
                unreachable!("only inner nodes wait")
            };
            if !children_done {
                pending.push((id, true));
                for child in [right, left] {
                    if !bvh.node(child).is_leaf() {
                        pending.push((child, false));
                    }
                }
                continue;
            }
            let r = leaf_row(right).or_else(|| rows.pop());
            let left_leaf = leaf_row(left);
            let left_is_leaf = left_leaf.is_some();
            let (Some(l), Some(r)) = (left_leaf.or_else(|| rows.pop()), r) else {
                unreachable!("inner children's rows precede their parent")
            };
            let (row, choice) = Self::node_row(&l, &r, left_is_leaf, node.volume.surface_area());
            choices[id.index()] = choice;
            rows.push(row);
        }
        Collapse { choices }
    }

    /// The cost row and choices of an inner node of surface `area` from its
    /// children's rows `l` and `r` (`l` a binary leaf's when `left_is_leaf`).
    #[inline(always)]
    fn node_row(l: &CostRow, r: &CostRow, left_is_leaf: bool, area: f32) -> (CostRow, Choices) {
        let mut choice = Choices::default();
        let mut opened = [f32::INFINITY; MAX_WIDTH + 1];
        if left_is_leaf {
            // A leaf on the left costs the same in any number of slots, and
            // the right row never grows with more slots, so one slot to the
            // left is a cheapest split (the first, which ties keep): the
            // same choices as the search below, without it. Half of a
            // tree's inner nodes have a leaf on the left.
            for j in 2..=W {
                let c = l[1] + r[j - 1];
                // As the search keeps it: +∞ for a NaN sum.
                opened[j] = if c < f32::INFINITY { c } else { f32::INFINITY };
                choice.set_split(j, 1);
            }
        } else {
            Self::search_splits(l, r, &mut opened, &mut choice);
        }
        Self::fill_row(area, &opened, choice)
    }

    /// The cheapest share of `j = 2..=W` slots between an inner left child
    /// (row `l`) and the right child (row `r`), into `opened` and `choice`.
    #[inline(always)]
    fn search_splits(l: &CostRow, r: &CostRow, opened: &mut CostRow, choice: &mut Choices) {
        for j in 2..=W {
            // One slot to the left child is always a valid split (costs can
            // be +∞ for boxes whose area overflows, and then no split is
            // cheaper); ties keep the smaller share. Selects rather than
            // branches: which split wins is close to random.
            let (mut best, mut split) = (f32::INFINITY, 1);
            for k in 1..j {
                let c = l[k] + r[j - k];
                let better = c < best;
                best = if better { c } else { best };
                split = if better { k } else { split };
            }
            opened[j] = best;
            choice.set_split(j, split);
        }
    }

    /// The row and fill choices of an inner node of surface `area` whose
    /// children share `j` slots at cost `opened[j]`.
    #[inline(always)]
    fn fill_row(area: f32, opened: &CostRow, mut choice: Choices) -> (CostRow, Choices) {
        let mut row = [0.0f32; MAX_WIDTH + 1];
        let (mut cost, mut fills) = (area + opened[W], 1);
        row[1] = cost;
        for j in 2..=W {
            // Ties open the node: more boxes per visit for the same cost
            // (and +∞ costs still fill the slots).
            let open = opened[j] <= cost;
            cost = if open { opened[j] } else { cost };
            fills = if open { j } else { fills };
            row[j] = cost;
            choice.set_fills(j, fills);
        }
        (row, choice)
    }

    /// The children of the wide node made from the inner node `id`: the
    /// cheapest `width`-slot split below it.
    fn children(&self, bvh: &Bvh<Aabb>, id: NodeId, out: &mut Vec<NodeId>) {
        self.open(bvh, id, W, out);
    }

    /// Shares `slots` slots out between the children of the inner node `id`.
    fn open(&self, bvh: &Bvh<Aabb>, id: NodeId, slots: usize, out: &mut Vec<NodeId>) {
        let NodeKind::Inner { left, right } = bvh.node(id).kind(id) else {
            unreachable!("only inner nodes are opened")
        };
        let k = self.choices[id.index()].split(slots);
        self.part(bvh, left, k, out);
        self.part(bvh, right, slots - k, out);
    }

    /// The cheapest representation of `id` in at most `slots` slots.
    fn part(&self, bvh: &Bvh<Aabb>, id: NodeId, slots: usize, out: &mut Vec<NodeId>) {
        let used = self.choices[id.index()].fills(slots);
        if bvh.node(id).is_leaf() || used == 1 {
            out.push(id);
        } else {
            self.open(bvh, id, used, out);
        }
    }
}

/// Returns `child` of the lane in `lanes` (not empty) with the least
/// entry and pushes the others: the second nearest last, so that it is
/// popped next, and the rest in lane order. Ties keep the lower lane first.
///
/// A full sort is not worth its cost in a descent: the popped order only
/// decides how soon a farther child is pruned, and after the nearest two
/// the rest rarely survive the hit found in them. Against a 19-comparator
/// network over the eight lanes this took 8% off closest hits on the bunny
/// and the city, for 0.2% more node visits (`docs/performance.md`, Raycasts). One
/// child needs no order and two one comparison (the most frequent cases).
#[inline(always)]
pub(crate) fn nearest_first<T, const W: usize>(
    entries: &[Real; W],
    lanes: u32,
    child: impl Fn(usize) -> T,
    stack: &mut impl TraversalStack<T>,
) -> T
where
    T: Copy,
{
    let first = lanes.trailing_zeros() as usize;
    let rest = lanes & (lanes - 1);
    if rest == 0 {
        return child(first);
    }
    let second = rest.trailing_zeros() as usize;
    let (mut near, mut next) = if entries[second] < entries[first] {
        (second, first)
    } else {
        (first, second)
    };
    let mut others = rest & (rest - 1);
    if others != 0 {
        // The nearest two of three or more, by one pass over the lanes.
        let mut pending = others;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            if entries[lane] < entries[near] {
                next = near;
                near = lane;
            } else if entries[lane] < entries[next] {
                next = lane;
            }
        }
        others = lanes & !(1 << near) & !(1 << next);
        while others != 0 {
            let lane = others.trailing_zeros() as usize;
            others &= others - 1;
            stack.push(child(lane));
        }
    }
    stack.push(child(next));
    child(near)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::BuildOptions;
    use crate::mesh::TriMesh;

    fn area(aabb: &Aabb) -> f64 {
        f64::from(aabb.surface_area())
    }

    /// The collapse choices by the plain recurrence over node ids, with a
    /// table of every node's costs (the form before the post-order pass
    /// and the packed choices): `(open_split, used)`.
    #[allow(clippy::type_complexity)]
    fn plain_tables(
        bvh: &Bvh<Aabb>,
        width: usize,
    ) -> (Vec<[u8; MAX_WIDTH + 1]>, Vec<[u8; MAX_WIDTH + 1]>) {
        let n = bvh.nodes().len();
        let mut cost = vec![[0.0f32; MAX_WIDTH + 1]; n];
        let mut open_split = vec![[1u8; MAX_WIDTH + 1]; n];
        let mut used = vec![[1u8; MAX_WIDTH + 1]; n];
        for i in (0..n).rev() {
            let id = NodeId(i as u32);
            let node = bvh.node(id);
            let area = node.volume.surface_area();
            match node.kind(id) {
                NodeKind::Leaf { count, .. } => {
                    cost[i] = [area * TRIANGLE_COST * count as f32; MAX_WIDTH + 1];
                }
                NodeKind::Inner { left, right } => {
                    let (l, r) = (cost[left.index()], cost[right.index()]);
                    let mut opened = [f32::INFINITY; MAX_WIDTH + 1];
                    for j in 2..=width {
                        for k in 1..j {
                            if l[k] + r[j - k] < opened[j] {
                                opened[j] = l[k] + r[j - k];
                                open_split[i][j] = k as u8;
                            }
                        }
                    }
                    cost[i][1] = area + opened[width];
                    for j in 2..=width {
                        if opened[j] <= cost[i][j - 1] {
                            cost[i][j] = opened[j];
                            used[i][j] = j as u8;
                        } else {
                            cost[i][j] = cost[i][j - 1];
                            used[i][j] = used[i][j - 1];
                        }
                    }
                }
            }
        }
        (open_split, used)
    }

    #[test]
    fn collapse_tables_equal_the_plain_recurrence() {
        // Tied costs too: a flat grid (equal boxes of zero height) and 200
        // copies of one triangle (every box the same).
        let p = crate::math::Point::new;
        let copies = TriMesh::new(
            vec![p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)],
            vec![[0, 1, 2]; 200],
        )
        .expect("a valid mesh");
        let meshes = [
            TriMesh::terrain(30, 10.0, 2.0, 3),
            TriMesh::random_soup(2000, 4.0, 0.5, 9),
            TriMesh::icosphere(crate::math::Point::origin(), 1.0, 3),
            TriMesh::terrain(16, 10.0, 0.0, 3),
            copies,
        ];
        for mesh in meshes {
            let bvh = Bvh::<Aabb>::build(&mesh, &BuildOptions::sah());
            let choices = [
                Collapse::<2>::new(&bvh).choices,
                Collapse::<3>::new(&bvh).choices,
                Collapse::<4>::new(&bvh).choices,
                Collapse::<5>::new(&bvh).choices,
                Collapse::<6>::new(&bvh).choices,
                Collapse::<7>::new(&bvh).choices,
                Collapse::<8>::new(&bvh).choices,
            ];
            for (width, choices) in (2..=8).zip(choices) {
                let (open_split, used) = plain_tables(&bvh, width);
                for (i, choice) in choices.iter().enumerate() {
                    let splits = (2..=width).map(|j| choice.split(j));
                    let expected = open_split[i][2..=width].iter().map(|&k| usize::from(k));
                    assert!(splits.eq(expected), "node {i}");
                    let fills = (1..=width).map(|j| choice.fills(j));
                    let expected = used[i][1..=width].iter().map(|&k| usize::from(k));
                    assert!(fills.eq(expected), "node {i}");
                }
            }
        }
    }

    #[test]
    fn an_inner_child_box_is_the_union_of_its_node_s_boxes() {
        let mesh = TriMesh::terrain(20, 10.0, 2.0, 3);
        let bvh = Bvh::<Aabb>::build(&mesh, &BuildOptions::sah());
        let mut wide = WideLayout::from_binary(&bvh);
        assert_eq!(wide.nodes()[0].bounds(), *bvh.root_volume());
        let mut inner = 0;
        for node in wide.nodes() {
            for lane in 0..8 {
                if let WideChild::Node(child) = node.child(lane) {
                    assert_eq!(node.child_box(lane), wide.nodes()[child as usize].bounds());
                    inner += 1;
                }
            }
        }
        assert_eq!(inner, wide.nodes().len() - 1);
        // A set box reads back, and moves the node's union.
        let corner = |x, y, z| crate::math::Point::new(x, y, z);
        let far = Aabb::new(corner(50.0, 50.0, 50.0), corner(51.0, 52.0, 53.0));
        wide.nodes_mut()[0].set_child_bounds(0, far);
        assert_eq!(wide.nodes()[0].child_box(0), far);
        assert_eq!(wide.nodes()[0].bounds().max, far.max);
    }

    #[test]
    fn overlapping_lanes_agree_with_the_box_test_touching_boxes_included() {
        let mesh = TriMesh::terrain(12, 10.0, 2.0, 5);
        let bvh = Bvh::<Aabb>::build(&mesh, &BuildOptions::sah());
        let wide = WideLayout::from_binary(&bvh);
        let corner = |x, y, z| crate::math::Point::new(x, y, z);
        let mut probes = vec![
            Aabb::EMPTY,
            Aabb::new(corner(-1e9, -1e9, -1e9), corner(1e9, 1e9, 1e9)),
        ];
        for node in wide.nodes() {
            for lane in 0..8 {
                let b = node.child_box(lane);
                if b.is_empty() {
                    continue;
                }
                // A box touching this one's max corner face on each axis, and
                // one a hair beyond it.
                for axis in 0..3 {
                    let mut touching = Aabb::new(b.max, b.max + crate::math::Vector::repeat(1.0));
                    touching.min[axis] = b.max[axis];
                    probes.push(touching);
                    let mut beyond = touching;
                    beyond.min[axis] = b.max[axis].next_up();
                    probes.push(beyond);
                }
            }
        }
        for probe in &probes {
            for node in wide.nodes() {
                let expected = (0..8).fold(0, |m, lane| {
                    let used = node.child(lane) != WideChild::Empty;
                    m | u32::from(used && node.child_box(lane).overlaps(probe)) << lane
                });
                assert_eq!(node.overlapping_lanes(probe), expected, "{probe:?}");
            }
        }
    }

    #[test]
    fn a_thorough_split_search_makes_cheaper_layouts_of_architecture() {
        use crate::bvh::{SplitRule, SplitSearch};
        // Walls, railings, roofs and ground share nodes: the planes that
        // the fast search skips (short axes) or samples away are often the
        // best ones there (`SplitSearch`). 8% cheaper here (both with 32
        // bins), 2–10% on towns of 6 to 16 blocks; on 4 blocks the greedy
        // top-down choice went the other way (+18 to +20%).
        let city = TriMesh::city(10, 3);
        let cost = |search| {
            let options = BuildOptions::sah().with_split(SplitRule::Sah { bins: 32, search });
            layout_cost(&WideBvh::<8>::from_binary(&Bvh::<Aabb>::build(
                &city, &options,
            )))
        };
        let (fast, thorough) = (cost(SplitSearch::Fast), cost(SplitSearch::Thorough));
        assert!(
            thorough < 0.95 * fast,
            "thorough {thorough:.4e}, fast {fast:.4e}"
        );
    }

    /// The expected cost of a layout as `Collapse` models it (root excluded).
    fn layout_cost<const W: usize>(wide: &WideBvh<W>) -> f64 {
        let mut cost = 0.0;
        for node in wide.nodes() {
            for lane in 0..W {
                match node.child(lane) {
                    WideChild::Node(_) => cost += area(&node.child_box(lane)),
                    WideChild::Leaf { count, .. } => {
                        cost += area(&node.child_box(lane))
                            * f64::from(TRIANGLE_COST)
                            * f64::from(count)
                    }
                    WideChild::Empty => {}
                }
            }
        }
        cost
    }

    /// Every way to fill at most `slots` slots with `id`'s subtree.
    fn fillings(bvh: &Bvh<Aabb>, id: NodeId, slots: usize) -> Vec<Vec<NodeId>> {
        let mut all = vec![vec![id]];
        if let NodeKind::Inner { left, right } = bvh.node(id).kind(id) {
            for k in 1..slots {
                for a in fillings(bvh, left, k) {
                    for b in fillings(bvh, right, slots - k) {
                        all.push([a.clone(), b].concat());
                    }
                }
            }
        }
        all
    }

    /// Brute force: the cheapest cost of the wide node made from `id`
    /// (root excluded), trying every filling of its `width` slots.
    /// Memoised per node, as every filling asks for the same subtrees.
    fn cheapest(bvh: &Bvh<Aabb>, id: NodeId, width: usize, memo: &mut Vec<Option<f64>>) -> f64 {
        if let Some(cost) = memo[id.index()] {
            return cost;
        }
        let NodeKind::Inner { left, right } = bvh.node(id).kind(id) else {
            unreachable!()
        };
        let mut best = f64::INFINITY;
        for k in 1..width {
            for a in fillings(bvh, left, k) {
                for b in fillings(bvh, right, width - k) {
                    let mut cost = 0.0;
                    for &c in a.iter().chain(&b) {
                        let node = bvh.node(c);
                        cost += match node.kind(c) {
                            NodeKind::Leaf { count, .. } => {
                                area(&node.volume) * f64::from(TRIANGLE_COST) * f64::from(count)
                            }
                            NodeKind::Inner { .. } => {
                                area(&node.volume) + cheapest(bvh, c, width, memo)
                            }
                        };
                    }
                    best = best.min(cost);
                }
            }
        }
        memo[id.index()] = Some(best);
        best
    }

    fn assert_cheapest<const W: usize>(triangles: impl Fn(u64) -> u32) {
        for seed in 0..20 {
            let mesh = TriMesh::random_soup(triangles(seed), 3.0, 1.0, seed);
            let bvh: Bvh<Aabb> = Bvh::build(&mesh, &BuildOptions::sah().with_max_leaf_size(1));
            let wide = WideBvh::<W>::from_binary(&bvh);
            let memo = &mut vec![None; bvh.nodes().len()];
            let (found, best) = (layout_cost(&wide), cheapest(&bvh, NodeId::ROOT, W, memo));
            assert!(
                (found - best).abs() <= 1e-9 * best,
                "width {W}, seed {seed}: {found} vs {best}"
            );
        }
    }

    #[test]
    fn collapse_finds_the_cheapest_layout() {
        assert_cheapest::<4>(|seed| 12 + seed as u32 * 2);
        assert_cheapest::<8>(|seed| 12 + seed as u32 * 2);
    }

    #[test]
    fn collapse_survives_overflowing_areas() {
        // Boxes near f32::MAX have infinite surface areas, so candidates
        // cost +∞ and no split is cheaper than another; next to subtrees of
        // small triangles, whose costs stay finite, on either side.
        for seed in 0..4 {
            let huge = TriMesh::random_soup(300, 1e30, 1e29, seed);
            let small = TriMesh::random_soup(300, 1.0, 0.1, seed + 10);
            for mesh in [huge.merged(&small), small.merged(&huge)] {
                let bvh: Bvh<Aabb> = Bvh::build(&mesh, &BuildOptions::sah());
                assert!(area(&bvh.node(NodeId::ROOT).volume).is_infinite());
                assert_covers_once(&WideBvh::<4>::from_binary(&bvh), mesh.len());
                assert_covers_once(&WideBvh::<8>::from_binary(&bvh), mesh.len());
            }
        }
    }

    fn assert_covers_once<const W: usize>(wide: &WideBvh<W>, triangles: usize) {
        let mut covered = vec![0; triangles];
        for node in wide.nodes() {
            for lane in 0..W {
                if let WideChild::Leaf { first, count } = node.child(lane) {
                    (first..first + count).for_each(|k| covered[k as usize] += 1);
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
    }

    #[test]
    fn wide_layout_keeps_every_triangle_once_and_links_each_inner_childs_leaves() {
        for mesh in [
            TriMesh::terrain(40, 10.0, 2.0, 3),
            TriMesh::random_soup(3000, 4.0, 0.5, 9),
            TriMesh::icosphere(crate::math::Point::origin(), 1.0, 0),
        ] {
            let tree = crate::query::MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
            let eight = tree.wide().expect("AABB trees keep an 8-wide layout");
            check_wide_layout(eight, mesh.len());
            check_wide_layout(&WideBvh::<4>::from_binary(tree.bvh()), mesh.len());
        }
    }

    fn check_wide_layout<const W: usize>(wide: &WideBvh<W>, triangles: usize) {
        let nodes = wide.nodes();
        let mut covered = vec![0u32; triangles];
        let mut named = 0;
        for node in nodes {
            for lane in 0..W {
                match node.child(lane) {
                    WideChild::Leaf { first, count } => {
                        for k in first..first + count {
                            covered[k as usize] += 1;
                        }
                    }
                    WideChild::Node(c) => {
                        let has_inner = (0..W)
                            .any(|l| matches!(nodes[c as usize].child(l), WideChild::Node(_)));
                        // A child of leaves only may name their triangles as one range.
                        let (first, count) = node.grandchild_triangles(lane);
                        if has_inner || count == 0 {
                            assert_eq!((first, count), (0, 0));
                            continue;
                        }
                        let mut positions: Vec<u32> = (0..W)
                            .filter_map(|l| match nodes[c as usize].child(l) {
                                WideChild::Leaf { first, count } => Some(first..first + count),
                                _ => None,
                            })
                            .flatten()
                            .collect();
                        positions.sort_unstable();
                        assert_eq!(positions, (first..first + count).collect::<Vec<_>>());
                        named += 1;
                    }
                    WideChild::Empty => {}
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
        assert!(
            nodes.len() == 1 || named > 0,
            "no child names its leaves' triangles"
        );
    }
}
