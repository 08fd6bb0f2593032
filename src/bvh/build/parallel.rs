//! The parallel driver (the `parallel` feature): the top of the tree splits
//! with `rayon::join` and the subtrees are placed into one array; below a
//! size or depth bound each task runs the serial builder. Split decisions
//! depend only on a node's own records, so the tree is exactly the serial
//! one.
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
    /// The tree over `ids` built on rayon's pool: [`Builder::fork`], then
    /// every node copied once into its place.
    pub(super) fn build_parallel<V: BoundingVolume>(
        mesh: &TriangleSoup<'_>,
        options: &BuildOptions,
        runs: bool,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
    ) -> Subtree<V> {
        let Counted { count, depth, root } =
            Builder::fork::<V>(mesh, options, runs, ids, summary, 0, 0);
        let nodes = match root {
            Parts::Serial(nodes) => nodes,
            Parts::Fork { volume, children } => {
                // The root's volume fills the slots until each is written.
                let mut nodes = vec![Node::inner(volume, 0); count];
                place(&Parts::Fork { volume, children }, &mut nodes, 0, 1);
                nodes
            }
        };
        Subtree { nodes, depth }
    }

    /// Splits the top of the tree with `rayon::join` and builds each
    /// subtree below the size or depth bound serially, returning the pieces
    /// unjoined: concatenating them at every fork copied each node once per
    /// forking level (eight times for a million triangles).
    fn fork<V: BoundingVolume>(
        mesh: &TriangleSoup<'_>,
        options: &BuildOptions,
        runs: bool,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
        offset: usize,
        depth: u32,
    ) -> Counted<V> {
        let mut builder = Builder::new(mesh, options, runs);
        let serial = |subtree: Subtree<V>| Counted {
            count: subtree.nodes.len(),
            depth: subtree.depth,
            root: Parts::Serial(subtree.nodes),
        };
        if ids.len() < PARALLEL_MIN_RECORDS || depth >= MAX_PARALLEL_DEPTH {
            return serial(builder.build_serial(ids, offset));
        }
        let volume: V = builder.fit(ids, &summary.node_box);
        let Some(Halves { mid, summaries }) = builder.split(&volume, ids, summary) else {
            return serial(Subtree {
                nodes: vec![Node::leaf(volume, offset as u32, ids.len() as u32)],
                depth: 0,
            });
        };
        let (left_ids, right_ids) = ids.split_at_mut(mid);
        let [left_summary, right_summary] = &summaries;
        let (left, right) = rayon::join(
            || {
                Builder::fork::<V>(
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
                Builder::fork::<V>(
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
        Counted {
            count: 1 + left.count + right.count,
            depth: 1 + left.depth.max(right.depth),
            root: Parts::Fork {
                volume,
                children: Box::new([left, right]),
            },
        }
    }
}

/// A subtree built in pieces, with its node count and depth.
struct Counted<V> {
    count: usize,
    depth: u32,
    root: Parts<V>,
}

/// The pieces of a subtree: a serially built run of nodes (root first,
/// links relative to it), or a forked node over two subtrees.
enum Parts<V> {
    Serial(Vec<Node<V>>),
    Fork {
        volume: V,
        children: Box<[Counted<V>; 2]>,
    },
}

/// Writes `parts` with its root at `root` and its descendants from
/// `descendants` on, in the serial builder's layout (a node's child pair
/// adjacent, the left child's descendants before the right's); returns
/// where the next descendants go.
fn place<V: BoundingVolume>(
    parts: &Parts<V>,
    nodes: &mut [Node<V>],
    root: usize,
    descendants: usize,
) -> usize {
    match parts {
        Parts::Serial(run) => {
            // Links inside the run count from its root at 0, and its
            // descendants (from 1 on) move to `descendants`.
            let by = (descendants - 1) as u32;
            let shifted = |mut n: Node<V>| {
                n.shift(by);
                n
            };
            nodes[root] = shifted(run[0]);
            for (slot, &node) in nodes[descendants..].iter_mut().zip(&run[1..]) {
                *slot = shifted(node);
            }
            descendants + run.len() - 1
        }
        Parts::Fork { volume, children } => {
            nodes[root] = Node::inner(*volume, descendants as u32);
            let [left, right] = &**children;
            let after_left = place(&left.root, nodes, descendants, descendants + 2);
            place(&right.root, nodes, descendants + 1, after_left)
        }
    }
}
