//! Which binary nodes become wide nodes: the cost-optimal collapse.

use crate::bounding_volume::Aabb;
use crate::bvh::{Bvh, NodeId, NodeKind};

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
    pub(super) fn new(bvh: &Bvh<Aabb>) -> Self {
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
