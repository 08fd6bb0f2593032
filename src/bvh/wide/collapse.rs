//! Which binary nodes become wide nodes: the cost-optimal collapse.

use crate::bounding_volume::Aabb;
use crate::bvh::{Bvh, NodeId, NodeKind};
use crate::simd::{Avx2, Baseline, CollapseRow8, Isa, avx2_fn, collapse_row};

/// The widest node supported (the collapse's cost rows hold one entry per slot count up to it).
pub(super) const MAX_WIDTH: usize = 8;

/// Cost of one triangle test relative to one wide-node visit, as measured
/// on the bunny (about 25 against 40 cycles); 0.3 and 1.0 measured no better.
pub(super) const TRIANGLE_COST: f32 = 0.6;

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
/// One node's step (the split search and the costs by slots) is
/// [`crate::simd::collapse_row`]; for eight slots the instruction set's
/// `Isa::collapse_row8`, eight slots at a time in AVX2 code.
///
/// The pass visits the binary nodes in post-order and keeps the cost rows
/// of finished subtrees on a stack, so only the choices outlive it: per
/// node, for every slot count, how many slots the left child gets when
/// the node is opened and how many its cheapest representation fills,
/// packed into one `u64` (8 MB on a 1M-triangle mesh). A table of every
/// node's costs, as this pass first kept, was 65 MB whose first touch cost
/// as much as the arithmetic.
pub(super) struct Collapse<const W: usize> {
    /// Per binary node, the packed [`Choices`].
    pub(super) choices: Vec<Choices>,
}

/// One node's collapse choices, three bits per slot count: bits
/// `3 (j − 2)` hold the slots of the left child when the node is opened
/// into `j = 2..=8` slots, and bits `21 + 3 (j − 1)` the slots its cheapest
/// representation in `j = 1..=8` fills, minus one. Zero, the value of a
/// leaf, reads as one slot given to the left child and one slot filled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Choices(u64);

impl Choices {
    const BITS: u32 = 3;
    const FILLS_AT: u32 = 21;

    /// The slots the left child gets when the node is opened into `slots`.
    pub(super) fn split(self, slots: usize) -> usize {
        ((self.0 >> (Self::BITS * (slots as u32 - 2))) & 7) as usize + 1
    }

    /// The slots the cheapest representation in at most `slots` fills.
    pub(super) fn fills(self, slots: usize) -> usize {
        ((self.0 >> (Self::FILLS_AT + Self::BITS * (slots as u32 - 1))) & 7) as usize + 1
    }

    /// The choices of a node's step: its two fields' bits side by side.
    #[inline(always)]
    fn of(step: &CollapseRow8) -> Self {
        Choices(u64::from(step.left_slots) | u64::from(step.fills) << Self::FILLS_AT)
    }
}

/// Least costs of a subtree in `1..=width` slots (index `slots − 1`): 32
/// bytes, written and read whole, so a row pushed and popped at once is
/// forwarded from the store (nine floats were written one by one and read
/// back as a vector, and the stall was the pass's costliest instruction).
type CostRow = [f32; MAX_WIDTH];

impl<const W: usize> Collapse<W> {
    /// The choices for `W` slots per wide node. `W` is a constant so that
    /// the loops over slot counts unroll and the rows stay in registers
    /// (with a run-time width they went through memory at every step).
    pub(super) fn new(bvh: &Bvh<Aabb>) -> Self {
        if let Some(avx2) = Avx2::detect() {
            return collapse_avx2(avx2, bvh);
        }
        Self::new_on(Baseline::default(), bvh)
    }

    #[inline(always)]
    pub(super) fn new_on(isa: impl Isa, bvh: &Bvh<Aabb>) -> Self {
        assert!((2..=MAX_WIDTH).contains(&W));
        let mut choices = vec![Choices::default(); bvh.nodes().len()];
        // A binary leaf's row, made when its parent is done: leaves never
        // wait on the stacks (half of the nodes, and the branch between
        // the kinds is a coin toss per node).
        let leaf_row = |id: NodeId| {
            let node = bvh.node(id);
            match node.kind(id) {
                NodeKind::Leaf { count, .. } => {
                    Some([node.volume.surface_area() * TRIANGLE_COST * count as f32; MAX_WIDTH])
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
            let (Some(l), Some(r)) = (leaf_row(left).or_else(|| rows.pop()), r) else {
                unreachable!("inner children's rows precede their parent")
            };
            let (row, choice) = Self::node_row(isa, &l, &r, node.volume.surface_area());
            choices[id.index()] = choice;
            rows.push(row);
        }
        Collapse { choices }
    }

    /// The cost row and choices of an inner node of surface `area` from its
    /// children's rows `l` and `r`.
    #[inline(always)]
    fn node_row(isa: impl Isa, l: &CostRow, r: &CostRow, area: f32) -> (CostRow, Choices) {
        let step: CollapseRow8 = if W == MAX_WIDTH {
            isa.collapse_row8(l, r, area)
        } else {
            collapse_row::<W>(l, r, area)
        };
        (step.cost, Choices::of(&step))
    }

    /// The children of the wide node made from the inner node `id`: the
    /// cheapest `width`-slot split below it.
    pub(super) fn children(&self, bvh: &Bvh<Aabb>, id: NodeId, out: &mut Vec<NodeId>) {
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

avx2_fn! {
    /// [`Collapse::new`] compiled for AVX2.
    fn collapse_avx2[const W: usize](avx2: Avx2, bvh: &Bvh<Aabb>) -> Collapse<W> {
        Collapse::new_on(avx2, bvh)
    }
}
