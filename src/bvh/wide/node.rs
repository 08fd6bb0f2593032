//! One wide node: up to `W` child boxes stored per axis and lane, what
//! each child slot holds, and the 8-lane box tests rays, points and
//! regions run on a node (the measured hot path of every descent).

use crate::bounding_volume::Aabb;
use crate::bvh::ray::EXIT_PADDING;
use crate::bvh::{TraversalRay, TraversalStack};
use crate::math::{Real, Vector};
use crate::simd::{BoxDistanceInput, Isa, SlabInput};

/// Marks a leaf child: the low bits are the first position in the leaf order.
pub(super) const LEAF: u32 = 1 << 31;
/// An unused child slot (its box is empty, so no ray ever enters it).
pub(super) const EMPTY: u32 = u32::MAX;
/// Bits of a leaf block (see [`WideNode::grandchild_triangles`]) that hold
/// its triangle count; the first position takes the rest.
pub(super) const BLOCK_COUNT_BITS: u32 = 5;

/// One node of up to `W` (4 or 8) children, boxes stored per axis and lane.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct WideNode<const W: usize> {
    /// `bounds[0]` holds the minima, `bounds[1]` the maxima, per axis and
    /// lane: a ray picks its near and far planes by index, without a branch.
    pub(super) bounds: [[[Real; W]; 3]; 2],
    /// Inner child: index of its wide node. Leaf: `LEAF | first`. Unused: `EMPTY`.
    pub(super) child: [u32; W],
    /// Leaf child: number of triangles. Inner child whose own children are
    /// all leaves: where those leaves' triangles are (`first << 5 |
    /// count`), so a descent can ask the cache for them a level early
    /// ([`WideNode::grandchild_triangles`]); 0 for other inner children and
    /// when the triangles are not one short range.
    pub(super) count: [u32; W],
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

impl<const W: usize> WideNode<W> {
    pub(super) const UNUSED: Self = WideNode {
        bounds: [[[Real::INFINITY; W]; 3], [[Real::NEG_INFINITY; W]; 3]],
        child: [EMPTY; W],
        count: [0; W],
    };

    pub(super) fn set(&mut self, lane: usize, aabb: &Aabb, child: u32, count: u32) {
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
        // Unused lanes hold empty boxes (+∞ to −∞), which an infinite `b`
        // would otherwise meet: a used lane's minimum is never above its
        // maximum.
        let mut meets: [bool; W] =
            std::array::from_fn(|lane| self.bounds[0][0][lane] <= self.bounds[1][0][lane]);
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

    /// Pushes the inner children named by the bits of `lanes` onto
    /// `stack`, in lane order and without branches: every lane is written
    /// and the stack advances by its bit (`TraversalStack::push_if`), as
    /// which lanes a ray enters is close to random.
    #[inline(always)]
    pub(crate) fn push_inner_children(&self, lanes: u32, stack: &mut impl TraversalStack<u32>) {
        for lane in 0..W {
            stack.push_if(self.inner_child(lane), lanes >> lane & 1 != 0);
        }
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

/// True for a child word naming a wide node.
pub(super) fn is_inner(child: u32) -> bool {
    child != EMPTY && child & LEAF == 0
}

/// The triangles of a node whose children are all leaves, when they are
/// one range of at most 31 starting below 2^27 (else 0: no hint).
pub(super) fn leaf_block<const W: usize>(node: &WideNode<W>) -> u32 {
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
