//! Top-down construction: binned SAH or Gottschalk's mean split, serial or parallel.
//!
//! The serial builder is iterative (an explicit task stack), so no recursion
//! grows with the triangle count. A split reserves its two children as an
//! adjacent pair at the end of the node array, then builds the left subtree
//! before the right one; every child has a larger index than its parent, and
//! each node's triangles occupy one contiguous range of the leaf order. The parallel builder splits the top of
//! the tree with `rayon::join` (recursion bounded by `MAX_PARALLEL_DEPTH` in [`parallel`])
//! and concatenates the subtrees; because every split decision depends only
//! on the node's own triangles, it produces exactly the serial tree.
//!
//! The driver is here: [`Bvh::build`], the builder's state and its serial
//! recursion. Each concern of the builder has its own file: `prim` (the
//! records and their boxes), `sah` (binned SAH), `small` (the planner for
//! nodes of a few records), `split` (choosing a node's split), `partition`
//! (the branch-free partition) and `parallel` (the rayon driver). The
//! generic functions they call across files are `#[inline(always)]` or
//! belong to `impl`s of types defined here (`Builder`, `Halves`): rustc puts
//! a generic function's instances in the codegen unit of its module, or of
//! its `impl`'s type, and the partition as a free function of its own file
//! was no longer inlined into the splits. So split, the builder compiles to
//! the same machine code as the single file did.

#[cfg(feature = "parallel")]
mod parallel;
mod partition;
mod prim;
mod sah;
mod small;
mod split;

use std::cell::Cell;

use crate::bvh::{BoundingVolume, BuildOptions, Bvh, Node, NodeId, NodeKind, SplitRule};
use crate::math::Real;
use crate::shape::Triangle;
use crate::shape::{TriangleId, TriangleSoup};

use prim::{Bounds, MAX_RUN, NodeSummary, PrimRef, prim_refs, triangle_count};
use sah::{AxisBins, MAX_BINS};
use small::EXHAUSTIVE_MAX;

/// Subtrees of at most this many triangles are built as soon as their
/// parent splits, without a round trip through the serial builder's stack.
const INLINE_MAX: usize = 16;

/// A node's triangles reordered into two non-empty halves: the first `mid`
/// records and the rest, with each half's summary.
struct Halves {
    mid: usize,
    summaries: [NodeSummary; 2],
}

/// One builder per thread: shared read-only inputs plus scratch buffers.
struct Builder<'a> {
    mesh: &'a TriangleSoup<'a>,
    options: &'a BuildOptions,
    scratch: Vec<Triangle>,
    /// Where [`Halves::partition`] writes a node's records before copying them back.
    records: Vec<PrimRef>,
    /// SAH bins per axis, reused across nodes and empty between them: each
    /// node empties only the bins it filled (resetting all of them per node
    /// dominated the cost of small nodes).
    /// Taken from and handed back to [`SPARE_BINS`] (`None` only while
    /// the builder is dropped).
    bins: Option<Box<[AxisBins; 2]>>,
    /// Per bin, area times count of the filled bins from it rightwards; only
    /// the entries of the current sweep's filled bins are meaningful (kept
    /// here so a node does not zero 256 bytes it mostly never reads).
    right_cost: [Real; MAX_BINS],
    /// Whether some record stands for several triangles.
    runs: bool,
}

/// Two sets of empty bins, for the first builder on a thread (later ones
/// reuse [`SPARE_BINS`], so how the 18 KB are first written hardly counts).
fn empty_bins() -> Box<[AxisBins; 2]> {
    let empty: AxisBins = [[(Bounds::EMPTY, 0); MAX_BINS]; 3];
    vec![empty; 2]
        .into_boxed_slice()
        .try_into()
        .expect("two sets of bins")
}

thread_local! {
    /// The bins of this thread's last finished builder, empty again: writing
    /// 18 KB of empty bins was 1.6% of building FCL's rob, and the parallel
    /// build makes a builder per fork.
    static SPARE_BINS: Cell<Option<Box<[AxisBins; 2]>>> = const { Cell::new(None) };
}

impl Drop for Builder<'_> {
    /// Hands the bins to the next builder on this thread. Every split
    /// empties the bins it filled before it returns, so a builder that
    /// did not unwind leaves them empty; one that did drops them.
    fn drop(&mut self) {
        let Some(bins) = self.bins.take() else {
            return;
        };
        if !std::thread::panicking() {
            debug_assert!(
                bins.iter().flatten().flatten().all(|bin| bin.1 == 0),
                "a split left a bin filled"
            );
            SPARE_BINS.set(Some(bins));
        }
    }
}

/// A pending subtree of the serial builder: its id range, its reserved node
/// slot, its depth and the summary of its triangles.
struct Task {
    start: usize,
    end: usize,
    slot: usize,
    depth: u32,
    summary: NodeSummary,
}

impl Task {
    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// A built subtree: its nodes in preorder and its depth in edges.
struct Subtree<V> {
    nodes: Vec<Node<V>>,
    depth: u32,
}

impl<V: BoundingVolume> Bvh<V> {
    /// Builds a tree over every triangle of `mesh` (a `&TriMesh`, or the
    /// borrowed soup of one) with the given options.
    #[must_use]
    pub fn build<'a>(mesh: impl Into<TriangleSoup<'a>>, options: &BuildOptions) -> Bvh<V> {
        let soup = mesh.into();
        let mesh = &soup;
        // Records of several triangles are only SAH's: a leaf holds whole
        // records, so runs longer than the largest leaf could not be split.
        let max_run = match options.split {
            SplitRule::Sah { .. } => options.max_leaf_size.clamp(1, MAX_RUN),
            SplitRule::MeanAlongLongestAxis => 1,
        };
        let mut prims = prim_refs(mesh, max_run);
        let Subtree { mut nodes, depth } = build_nodes::<V>(mesh, options, &mut prims);
        // Shrunk only when far from full. A block freed at the size it was
        // reserved with lets glibc's malloc serve the next build of that
        // size from its heap; shrunk first (an `mremap`), the next
        // reservation was a fresh `mmap` again, whose page faults cost the
        // icosphere 9% in the build bench.
        if nodes.capacity() > nodes.len() + nodes.len() / 2 {
            nodes.shrink_to_fit();
        }
        let order = if prims.len() < mesh.len() {
            leaves_by_triangle(&mut nodes, &prims);
            // Reserved in full: collected from `flat_map`, which cannot
            // say its length, the order grew by reallocation.
            let mut order = Vec::with_capacity(mesh.len());
            for p in &prims {
                order.extend(p.ids());
            }
            order
        } else {
            prims.iter().map(PrimRef::id).collect()
        };
        Bvh {
            nodes,
            order,
            depth,
        }
    }
}

/// Leaves built over record positions, moved to triangle positions.
fn leaves_by_triangle<V: BoundingVolume>(nodes: &mut [Node<V>], prims: &[PrimRef]) {
    let mut starts = Vec::with_capacity(prims.len() + 1);
    let mut triangles = 0;
    starts.push(0);
    for p in prims {
        triangles += p.run();
        starts.push(triangles);
    }
    for (index, node) in nodes.iter_mut().enumerate() {
        if let NodeKind::Leaf { first, count } = node.kind(NodeId(index as u32)) {
            let (start, end) = (starts[first as usize], starts[(first + count) as usize]);
            *node = Node::leaf(node.volume, start, end - start);
        }
    }
}

/// The nodes over `prims`, on rayon's pool when the options and the
/// `parallel` feature allow (the trees are identical either way).
fn build_nodes<V: BoundingVolume>(
    mesh: &TriangleSoup<'_>,
    options: &BuildOptions,
    prims: &mut [PrimRef],
) -> Subtree<V> {
    let runs = prims.len() < mesh.len();
    #[cfg(feature = "parallel")]
    if options.parallel {
        let summary = NodeSummary::of(prims);
        return Builder::build_parallel(mesh, options, runs, prims, &summary);
    }
    Builder::new(mesh, options, runs).build_serial(prims, 0)
}

impl<'a> Builder<'a> {
    fn new(mesh: &'a TriangleSoup<'a>, options: &'a BuildOptions, runs: bool) -> Self {
        Builder {
            mesh,
            options,
            runs,
            scratch: Vec::new(),
            records: Vec::new(),
            bins: Some(SPARE_BINS.take().unwrap_or_else(empty_bins)),
            right_cost: [0.0; MAX_BINS],
        }
    }

    /// The serial, iterative builder over `ids`, whose first position in the
    /// leaf order is `offset`. Returns the subtree's nodes in preorder.
    fn build_serial<V: BoundingVolume>(
        &mut self,
        ids: &mut [PrimRef],
        offset: usize,
    ) -> Subtree<V> {
        let mut out = Subtree {
            nodes: Vec::with_capacity(self.node_reservation(ids)),
            depth: 0,
        };
        let mut stack = vec![Task {
            start: 0,
            end: ids.len(),
            slot: 0,
            depth: 0,
            summary: NodeSummary::of(ids),
        }];
        while let Some(task) = stack.pop() {
            self.build_node(ids, offset, task, &mut out, &mut stack);
        }
        out
    }

    /// Nodes to reserve for the subtree over `ids`: 2r − 1 for r records
    /// bound any binary tree, and leaves of one triangle reach it; SAH trees
    /// with larger leaves have 1.0–1.2 nodes per triangle, so they reserve
    /// 1.25 per triangle (and grow in the rare case that is short).
    fn node_reservation(&self, ids: &[PrimRef]) -> usize {
        let most = (2 * ids.len()).saturating_sub(1);
        if self.options.max_leaf_size <= 1 {
            return most;
        }
        let triangles = if self.runs {
            triangle_count(ids)
        } else {
            ids.len()
        };
        most.min(triangles + triangles / 4 + 1)
    }

    /// Builds the node of `task` into its slot and its children after it.
    /// Children of more than [`INLINE_MAX`] triangles go on `stack`; smaller
    /// ones are built at once, recursively (most nodes are that small, and
    /// the stack's round trip cost them more than their split).
    fn build_node<V: BoundingVolume>(
        &mut self,
        ids: &mut [PrimRef],
        offset: usize,
        task: Task,
        out: &mut Subtree<V>,
        stack: &mut Vec<Task>,
    ) {
        if let SplitRule::Sah { .. } = self.options.split {
            match task.len() {
                2 => return self.build_small::<V, 2>(ids, offset, &task, out),
                3 => return self.build_small::<V, 3>(ids, offset, &task, out),
                EXHAUSTIVE_MAX => {
                    return self.build_small::<V, EXHAUSTIVE_MAX>(ids, offset, &task, out);
                }
                _ => {}
            }
        }
        let range = &mut ids[task.start..task.end];
        let volume: V = self.fit(range, &task.summary.node_box);
        let node = match self.split(&volume, range, &task.summary) {
            None => {
                out.depth = out.depth.max(task.depth);
                Node::leaf(volume, (offset + task.start) as u32, range.len() as u32)
            }
            Some(Halves { mid, summaries }) => {
                let left = out.nodes.len().max(task.slot + 1);
                // Reserve the child pair; the tasks below fill it.
                out.nodes.resize(left + 2, Node::inner(volume, 0));
                let [left_summary, right_summary] = summaries;
                let child = |start, end, slot, summary| Task {
                    start,
                    end,
                    slot,
                    depth: task.depth + 1,
                    summary,
                };
                let left_task = child(task.start, task.start + mid, left, left_summary);
                let right_task = child(task.start + mid, task.end, left + 1, right_summary);
                // The left subtree is built (and laid out) before the right one.
                if left_task.len() > INLINE_MAX {
                    stack.push(right_task);
                    stack.push(left_task);
                } else {
                    self.build_node(ids, offset, left_task, out, stack);
                    if right_task.len() > INLINE_MAX {
                        stack.push(right_task);
                    } else {
                        self.build_node(ids, offset, right_task, out, stack);
                    }
                }
                Node::inner(volume, left as u32)
            }
        };
        place(out, task.slot, node);
    }

    /// The node volume around the triangles `ids`: straight from the node box
    /// when the volume is that box (AABB trees skip the triangle pass),
    /// otherwise fitted to the gathered triangles.
    fn fit<V: BoundingVolume>(&mut self, ids: &[PrimRef], node_box: &Bounds) -> V {
        if let Some(volume) = V::from_triangle_boxes(&node_box.to_aabb()) {
            return volume;
        }
        let mesh = self.mesh;
        self.scratch.clear();
        self.scratch.reserve(ids.len());
        for prim in ids {
            for id in prim.ids() {
                self.scratch.push(mesh.triangle(TriangleId(id)));
            }
        }
        V::fit(&self.scratch, self.options.obb_fit)
    }
}

/// Puts `node` into its reserved `slot`, or appends it when that is next.
#[inline(always)]
fn place<V: BoundingVolume>(out: &mut Subtree<V>, slot: usize, node: Node<V>) {
    if slot == out.nodes.len() {
        out.nodes.push(node);
    } else {
        out.nodes[slot] = node;
    }
}
