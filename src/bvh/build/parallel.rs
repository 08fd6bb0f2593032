//! The parallel driver (the `parallel` feature): the top of the tree splits
//! with `rayon::join` and the subtrees are concatenated; below a size or
//! depth bound each task runs the serial builder. Split decisions depend only
//! on a node's own records, so the tree is exactly the serial one.
//!
//! The driver is an associated function of [`Builder`], as
//! [`Halves::partition`] is of [`Halves`], so its instances stay in the
//! builder's codegen unit (see the `partition` module).

use super::prim::{NodeSummary, PrimRef};
use super::{Builder, Halves, Subtree};
use crate::bvh::{BoundingVolume, BuildOptions, Node};
use crate::shape::TriangleSoup;

/// Below this many records a subtree is built serially.
const PARALLEL_MIN_RECORDS: usize = 4096;
/// Depth bound for the parallel recursion (2^12 tasks is far more than cores).
const MAX_PARALLEL_DEPTH: u32 = 12;

impl Builder<'_> {
    /// Builds the subtree over `ids` (positions `offset ..` of the leaf order),
    /// forking the two children onto the rayon pool while subtrees are large.
    pub(super) fn build_parallel<V: BoundingVolume>(
        mesh: &TriangleSoup<'_>,
        options: &BuildOptions,
        runs: bool,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
        offset: usize,
        depth: u32,
    ) -> Subtree<V> {
        let mut builder = Builder::new(mesh, options, runs);
        if ids.len() < PARALLEL_MIN_RECORDS || depth >= MAX_PARALLEL_DEPTH {
            return builder.build_serial(ids, offset);
        }
        let volume: V = builder.fit(ids, &summary.node_box);
        let Some(Halves { mid, summaries }) = builder.split(&volume, ids, summary) else {
            return Subtree {
                nodes: vec![Node::leaf(volume, offset as u32, ids.len() as u32)],
                depth: 0,
            };
        };
        let (left_ids, right_ids) = ids.split_at_mut(mid);
        let [left_summary, right_summary] = &summaries;
        let (left, right): (Subtree<V>, Subtree<V>) = rayon::join(
            || {
                Builder::build_parallel::<V>(
                    mesh,
                    options,
                    runs,
                    left_ids,
                    left_summary,
                    offset,
                    depth + 1,
                )
            },
            || {
                Builder::build_parallel::<V>(
                    mesh,
                    options,
                    runs,
                    right_ids,
                    right_summary,
                    offset + mid,
                    depth + 1,
                )
            },
        );
        // Same layout as the serial builder: root, the child pair, then the left
        // child's descendants, then the right child's. Links inside each subtree
        // move by where its descendants now start.
        let depth = 1 + left.depth.max(right.depth);
        let (left, right) = (left.nodes, right.nodes);
        let mut nodes = Vec::with_capacity(1 + left.len() + right.len());
        nodes.push(Node::inner(volume, 1));
        let left_shift = 2;
        let right_shift = 1 + left.len() as u32;
        let shifted = |mut n: Node<V>, by: u32| {
            n.shift(by);
            n
        };
        nodes.push(shifted(left[0], left_shift));
        nodes.push(shifted(right[0], right_shift));
        nodes.extend(left[1..].iter().map(|&n| shifted(n, left_shift)));
        nodes.extend(right[1..].iter().map(|&n| shifted(n, right_shift)));
        Subtree { nodes, depth }
    }
}
