//! The small-subtree planner: nodes of at most [`EXHAUSTIVE_MAX`] records skip
//! the bins. One table of subset costs ([`SubsetCosts`]) gives the SAH-best
//! split of every grouping of their records, and the whole subtree is
//! planned from it ([`Builder::build_small`]) and written out node by node
//! ([`Builder::emit_small`]).

use super::prim::{Bounds, PrimRef};
use super::sah::{TRAVERSAL_COST, area};
use super::{Builder, Subtree, Task, place};
use crate::bvh::{BoundingVolume, Node, set_bits};
use crate::math::Real;

/// Nodes of at most this many triangles skip the bins and try every split
/// of their triangles into two groups: most nodes are this small, and for
/// them the bins' fixed costs (grid, sweep, resets, partition) dominate.
pub(super) const EXHAUSTIVE_MAX: usize = 4;

impl Builder<'_> {
    /// Builds the whole subtree of a node of `N` (2 to [`EXHAUSTIVE_MAX`])
    /// records from one table of subset costs: the splits that SAH picks
    /// node by node among every grouping (greedy, top-down, the same tree
    /// as splitting each node on its own), without a pass, a summary or a
    /// call per descendant. Most nodes are this small; building their
    /// children node by node repeated work the parent's table had done.
    pub(super) fn build_small<V: BoundingVolume, const N: usize>(
        &mut self,
        ids: &mut [PrimRef],
        offset: usize,
        task: &Task,
        out: &mut Subtree<V>,
    ) {
        let range = &mut ids[task.start..task.end];
        let records: [PrimRef; N] = std::array::from_fn(|i| range[i]);
        let mut costs = SubsetCosts::EMPTY;
        costs.fill::<N>(&records);
        let max_leaf = self.options.max_leaf_size.max(1) as usize;
        // Each group's split (its left group, 0 for a leaf), and the
        // records laid out leaf by leaf: each split keeps both groups in
        // their order, so a leaf's records stay in theirs.
        let mut splits = [0usize; 1 << EXHAUSTIVE_MAX];
        let (mut pending, mut top) = ([0usize; EXHAUSTIVE_MAX], 1);
        pending[0] = (1 << N) - 1;
        let mut placed = 0;
        while top > 0 {
            top -= 1;
            let group = pending[top];
            match costs.best_split(group, max_leaf) {
                // Disjoint non-empty groups, so at most N are pending.
                Some(left) => {
                    splits[group] = left;
                    pending[top] = group ^ left;
                    pending[top + 1] = left;
                    top += 2;
                }
                None => {
                    for i in set_bits(group as u64) {
                        range[placed] = records[i];
                        placed += 1;
                    }
                }
            }
        }
        let plan = SmallPlan {
            costs: &costs,
            splits: &splits,
            records: range,
            first: offset + task.start,
        };
        self.emit_small(&plan, (1 << N) - 1, 0, task.slot, task.depth, out);
    }

    /// Writes the node of `group` (whose records start at `start` in the
    /// plan's records) into `slot` and its descendants after it, in the
    /// order [`Builder::build_node`] lays nodes out.
    fn emit_small<V: BoundingVolume>(
        &mut self,
        plan: &SmallPlan,
        group: usize,
        start: usize,
        slot: usize,
        depth: u32,
        out: &mut Subtree<V>,
    ) {
        let count = group.count_ones() as usize;
        let records = &plan.records[start..start + count];
        let volume: V = self.fit(records, &plan.costs.boxes[group]);
        let node = match plan.splits[group] {
            0 => {
                out.depth = out.depth.max(depth);
                Node::leaf(volume, (plan.first + start) as u32, count as u32)
            }
            left => {
                let pair = out.nodes.len().max(slot + 1);
                out.nodes.resize(pair + 2, Node::inner(volume, 0));
                let left_count = left.count_ones() as usize;
                self.emit_small(plan, left, start, pair, depth + 1, out);
                let right = group ^ left;
                self.emit_small(plan, right, start + left_count, pair + 1, depth + 1, out);
                Node::inner(volume, pair as u32)
            }
        };
        place(out, slot, node);
    }
}

/// Where [`Builder::emit_small`] finds a small node's plan.
struct SmallPlan<'p> {
    costs: &'p SubsetCosts,
    /// Per group of records, its left group, or 0 for a leaf.
    splits: &'p [usize; 1 << EXHAUSTIVE_MAX],
    /// The node's records, laid out leaf by leaf.
    records: &'p [PrimRef],
    /// Leaf-order position of the node's first record.
    first: usize,
}

/// Per group of a small node's records (bit `i` = record `i`): its box,
/// its triangles and its area times those. Every group's box is built from
/// a smaller one's, so four records cost 15 box unions.
struct SubsetCosts {
    boxes: [Bounds; 1 << EXHAUSTIVE_MAX],
    sizes: [u32; 1 << EXHAUSTIVE_MAX],
    weighted: [Real; 1 << EXHAUSTIVE_MAX],
}

impl SubsetCosts {
    const EMPTY: SubsetCosts = SubsetCosts {
        boxes: [Bounds::EMPTY; 1 << EXHAUSTIVE_MAX],
        sizes: [0; 1 << EXHAUSTIVE_MAX],
        weighted: [0.0; 1 << EXHAUSTIVE_MAX],
    };

    /// Fills the table of `N` records in place (returned by value, the
    /// 640-byte table took one more `memcpy` call than its initialisation
    /// does); one fixed trip count, so the loop unrolls.
    #[inline(always)]
    fn fill<const N: usize>(&mut self, records: &[PrimRef; N]) {
        for group in 1..1usize << N {
            let rest = group & (group - 1);
            let first = group.trailing_zeros() as usize;
            self.boxes[group] = self.boxes[rest].union(&records[first].bounds);
            self.sizes[group] = self.sizes[rest] + records[first].run();
            self.weighted[group] = area(&self.boxes[group]) * self.sizes[group] as Real;
        }
    }

    /// The SAH-best split of `group` into two groups, plane-separable or
    /// not, as the left one, or `None` when `group` is a single record or
    /// its triangles fit in a leaf of `max_leaf` and a leaf is no dearer.
    /// Left groups leave out the group's last record, so each split is seen
    /// once. Equal costs (identical or zero-area triangles) go to the more
    /// even split, so piles of copies still make trees of logarithmic depth.
    #[inline(always)]
    fn best_split(&self, group: usize, max_leaf: usize) -> Option<usize> {
        let last = 1 << (usize::BITS - 1 - group.leading_zeros());
        let lower = group ^ last;
        if lower == 0 {
            return None;
        }
        let triangles = self.sizes[group];
        let imbalance =
            |left: usize| (2 * self.sizes[left] as i32 - triangles as i32).unsigned_abs();
        let (mut best_cost, mut best) = (Real::INFINITY, lower & lower.wrapping_neg());
        // Every non-empty subset of `lower`, in increasing order.
        let mut left = 0usize;
        loop {
            left = left.wrapping_sub(lower) & lower;
            if left == 0 {
                break;
            }
            let cost = self.weighted[left] + self.weighted[group ^ left];
            if cost < best_cost || (cost == best_cost && imbalance(left) < imbalance(best)) {
                (best_cost, best) = (cost, left);
            }
        }
        let node_area = area(&self.boxes[group]);
        let forced = triangles as usize > max_leaf;
        if !forced && node_area * triangles as Real <= TRAVERSAL_COST * node_area + best_cost {
            return None;
        }
        Some(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounding_volume::Aabb;
    use crate::bvh::build::prim::triangle_count;
    use crate::bvh::{BuildOptions, Bvh, NodeId, NodeKind};
    use crate::math::{Point, Vector};
    use crate::mesh::TriMesh;

    #[test]
    fn small_node_splits_find_the_cheapest_grouping() {
        let mut next = crate::test_support::unit_floats(0x2545_f491);
        for round in 0..3000 {
            let n = 2 + round % (EXHAUSTIVE_MAX - 1);
            // Every third round the records stand for runs of 1–3 triangles.
            let records: Vec<PrimRef> = (0..n as u32)
                .map(|i| {
                    let p = Point::new(next(), next(), next()) * 10.0;
                    let size = Vector::new(next(), next(), next()) * 4.0;
                    let run = if round % 3 == 0 {
                        1 + (next() * 3.0) as u32
                    } else {
                        1
                    };
                    PrimRef::new(&Aabb::new(p, p + size), 4 * i, run)
                })
                .collect();
            let mut costs = SubsetCosts::EMPTY;
            match n {
                2 => costs.fill::<2>(records[..2].try_into().unwrap()),
                3 => costs.fill::<3>(records[..3].try_into().unwrap()),
                _ => costs.fill::<EXHAUSTIVE_MAX>(records[..].try_into().unwrap()),
            }
            let members = |group: usize| -> Vec<PrimRef> {
                (0..n)
                    .filter(|i| group >> i & 1 == 1)
                    .map(|i| records[i])
                    .collect()
            };
            let box_of =
                |group: &[PrimRef]| group.iter().fold(Bounds::EMPTY, |b, p| b.union(&p.bounds));
            let cost_of = |group: &[PrimRef]| area(&box_of(group)) * triangle_count(group) as Real;
            // Every group of two or more records, the whole node included
            // (the groups its children and grandchildren are split from).
            for group in (1..1usize << n).filter(|g| g.count_ones() >= 2) {
                let all = members(group);
                let sum = |left: usize| cost_of(&members(left)) + cost_of(&members(group ^ left));
                // Brute force over every grouping that leaves the last record right.
                let last = 1 << (usize::BITS - 1 - group.leading_zeros());
                let cheapest = (1..group)
                    .filter(|&left| left & group == left && left & last == 0)
                    .map(sum)
                    .fold(Real::INFINITY, Real::min);
                let left = costs
                    .best_split(group, 0)
                    .expect("forced splits always split");
                assert!(left != 0 && left & group == left && left & last == 0);
                let got = sum(left);
                assert!(got <= cheapest * (1.0 + 1e-5), "{got} > {cheapest}");
                // Unforced, the group stays a leaf exactly when that is no dearer.
                let split = costs.best_split(group, usize::MAX);
                let node_area = area(&box_of(&all));
                assert_eq!(
                    split.is_none(),
                    cost_of(&all) <= TRAVERSAL_COST * node_area + got,
                    "round {round}, group {group:b}"
                );
                // Forced exactly when the triangles, not the records, overflow a leaf.
                let triangles = triangle_count(&all);
                assert!(costs.best_split(group, triangles - 1).is_some());
                assert_eq!(costs.best_split(group, triangles), split);
            }
            // Single records are leaves whatever the leaf size.
            for i in 0..n {
                assert_eq!(costs.best_split(1 << i, 0), None);
            }
        }
    }

    #[test]
    fn small_nodes_are_built_as_node_by_node_splits_would_build_them() {
        // Four triangles in two distant pairs, given in the order x = 23,
        // 0, 20, 3: SAH splits them two and two, then each pair into single
        // leaves. Each split keeps its groups in their order, and the left
        // group leaves out the node's last record.
        let mesh = TriMesh::new(
            (0..4)
                .flat_map(|i| {
                    let x = [0.0, 3.0, 20.0, 23.0][i];
                    [
                        Point::new(x, 0.0, 0.0),
                        Point::new(x + 1.0, 0.0, 0.0),
                        Point::new(x, 1.0, 0.0),
                    ]
                })
                .collect(),
            vec![[9, 10, 11], [0, 1, 2], [6, 7, 8], [3, 4, 5]],
        )
        .unwrap();
        let tree: Bvh<Aabb> = Bvh::build(&mesh, &BuildOptions::sah().serial());
        tree.validate(&mesh).unwrap();
        let leaves: Vec<Vec<u32>> = (0..tree.nodes().len() as u32)
            .filter_map(|i| match tree.nodes()[i as usize].kind(NodeId(i)) {
                NodeKind::Leaf { first, count } => {
                    Some(tree.leaf_order()[first as usize..(first + count) as usize].to_vec())
                }
                NodeKind::Inner { .. } => None,
            })
            .collect();
        // Children pairs in preorder: the left half's leaves first.
        assert_eq!(tree.nodes().len(), 7);
        assert_eq!(leaves, [vec![0], vec![2], vec![1], vec![3]]);
    }
}
