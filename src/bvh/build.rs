//! Top-down construction: binned SAH or Gottschalk's mean split, serial or parallel.
//!
//! The serial builder is iterative (an explicit task stack), so no recursion
//! grows with the triangle count. A split reserves its two children as an
//! adjacent pair at the end of the node array, then builds the left subtree
//! before the right one; every child has a larger index than its parent, and
//! each node's triangles occupy one contiguous range of the leaf order. The parallel builder splits the top of
//! the tree with `rayon::join` (recursion bounded by [`MAX_PARALLEL_DEPTH`])
//! and concatenates the subtrees; because every split decision depends only
//! on the node's own triangles, it produces exactly the serial tree.

use std::cell::Cell;
use std::mem::ManuallyDrop;

use crate::bounding_volume::Aabb;
use crate::bvh::set_bits;
use crate::bvh::{BoundingVolume, BuildOptions, Bvh, Node, NodeId, NodeKind, SplitRule};
use crate::math::{ID_LANES_FREE_BIT, Point, Real, Vector, id_from_lanes, id_to_lanes};
use crate::mesh::{TriMesh, TriangleId};
use crate::shape::Triangle;

/// Below this many records a subtree is built serially.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_RECORDS: usize = 4096;
/// Depth bound for the parallel recursion (2^12 tasks is far more than cores).
#[cfg(feature = "parallel")]
const MAX_PARALLEL_DEPTH: u32 = 12;
/// Nodes of at least this many triangles bin into two alternating sets (see
/// [`Builder::sah_split`]); smaller ones have short read-modify-write chains
/// and one set spares them folding the second into the first. Bunny 8%,
/// icosphere 4% faster than two sets everywhere; 32 and 128 did less.
const TWO_BIN_SETS_MIN: usize = 64;
/// Subtrees of at most this many triangles are built as soon as their
/// parent splits, without a round trip through the serial builder's stack.
const INLINE_MAX: usize = 16;
/// Longest run of triangles one record stands for (a power of two, within
/// the mantissa bits [`id_to_lanes`] leaves free); the runs are also
/// bounded by the leaf size.
const MAX_RUN: u32 = 1 << 8;
/// Nodes of at most this many records bin into at most [`SMALL_BINS`].
const SMALL_NODE_MAX: usize = 32;
/// Most bins per axis for nodes of at most [`SMALL_NODE_MAX`] records.
const SMALL_BINS: usize = 8;
/// Most bins the SAH builder uses per axis.
const MAX_BINS: usize = 64;
/// The SAH builder bins only the axes whose centroid extent is at least this
/// fraction of the longest one. Measured on the bench meshes: 0.5 built
/// 15–20 % faster than binning all three axes, SAH cost within 1 % (one
/// mesh improved); 0.6 another 3–4 % faster (binning is the largest part
/// of the build), SAH +0.05 % (terrains) to +0.5 % (bunny, env), rob
/// −0.6 %, all still below parry3d's; 0.75 was 6–10 % faster, but SAH
/// +5.3 % on env and +3.7 % on rob.
const MIN_BINNED_EXTENT: Real = 0.6;
/// SAH cost of one traversal step relative to one triangle test.
const TRAVERSAL_COST: Real = 1.0;
/// Nodes of at least twice this many triangles bin an evenly strided sample
/// of this to 1.5 times this many (the stride is `n / BIN_SAMPLE` rounded
/// down) to choose their plane (the partition still
/// moves all of them): the SAH estimate of a plane converges long before
/// every triangle is counted (about 32 per bin here), and binning is the
/// largest part of each level's work. Measured on the bench meshes against
/// 4096: 3-10% faster builds, SAH cost within ±0.2%; 256 was 3-5% faster
/// again but up to 2% costlier (env).
const BIN_SAMPLE: usize = 512;
/// Nodes of at most this many triangles skip the bins and try every split
/// of their triangles into two groups: most nodes are this small, and for
/// them the bins' fixed costs (grid, sweep, resets, partition) dominate.
const EXHAUSTIVE_MAX: usize = 4;

/// One triangle as the builder sees it, its box and its id, or a run of
/// consecutive triangles with one identical box (see [`prim_refs`]). The
/// builder partitions these records themselves (not ids into side arrays),
/// so every pass over a node reads contiguous memory (Wald 2007; Embree's
/// `PrimRef`).
///
/// The id rides in the boxes' unused fourth lanes, as Embree's `PrimRef`
/// does, which keeps a record at 32 aligned bytes (one cache line holds
/// two): encoded by [`id_to_lanes`] as two normal floats in `[1, 2)`, low
/// bits in `min[3]`, high bits in `max[3]`; the run's length less one sits
/// in the high float's free mantissa bits.
#[derive(Clone, Copy, Debug)]
struct PrimRef {
    bounds: Bounds,
}

impl PrimRef {
    /// The triangles `first .. first + run`, which all have the box `aabb`.
    #[cfg(test)]
    fn new(aabb: &Aabb, first: u32, run: u32) -> Self {
        let (a, b) = (&aabb.min, &aabb.max);
        let bounds = Bounds {
            min: [a.x, a.y, a.z, 0.0],
            max: [b.x, b.y, b.z, 0.0],
        };
        PrimRef::with_bounds(bounds, first, run)
    }

    /// The triangles `first .. first + run`, which all have the box
    /// `bounds` (whose fourth lanes are overwritten).
    #[inline(always)]
    fn with_bounds(mut bounds: Bounds, first: u32, run: u32) -> Self {
        debug_assert!((1..=MAX_RUN).contains(&run));
        let [low, high] = id_to_lanes(first);
        bounds.min[3] = low;
        bounds.max[3] = Real::from_bits(high.to_bits() | (run - 1) << ID_LANES_FREE_BIT);
        PrimRef { bounds }
    }

    /// The first triangle of the record.
    #[inline(always)]
    fn id(&self) -> u32 {
        id_from_lanes(self.bounds.min[3], self.bounds.max[3])
    }

    /// How many triangles the record stands for.
    #[inline(always)]
    fn run(&self) -> u32 {
        (self.bounds.max[3].to_bits() >> ID_LANES_FREE_BIT & (MAX_RUN - 1)) + 1
    }

    /// Whether both records have the same box. Every lane is compared,
    /// without the early exits of a slice comparison (unpredictable on
    /// meshes with runs).
    #[inline(always)]
    fn same_box(&self, other: &PrimRef) -> bool {
        let (a, b) = (&self.bounds, &other.bounds);
        (0..3).fold(true, |same, k| {
            same & (a.min[k] == b.min[k]) & (a.max[k] == b.max[k])
        })
    }

    /// The record's triangles.
    fn ids(&self) -> std::ops::Range<u32> {
        self.id()..self.id() + self.run()
    }

    /// The box centre, which the SAH bins and the split planes use.
    #[inline(always)]
    fn centroid(&self) -> Lanes {
        let (a, b) = (&self.bounds.min, &self.bounds.max);
        [
            0.5 * (a[0] + b[0]),
            0.5 * (a[1] + b[1]),
            0.5 * (a[2] + b[2]),
            0.5 * (a[3] + b[3]),
        ]
    }
}

/// x, y, z and an unused fourth lane.
type Lanes = [Real; 4];

/// An axis-aligned box as two four-lane corners: the builder's hot type.
/// The fourth lanes carry no geometry (see [`PrimRef`]).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct Bounds {
    min: Lanes,
    max: Lanes,
}

impl Bounds {
    const EMPTY: Bounds = Bounds {
        min: [Real::INFINITY; 4],
        max: [Real::NEG_INFINITY; 4],
    };

    /// Lane-wise min and max. On x86_64 as `minps`/`maxps` intrinsics: from
    /// the portable selects, code compiled for AVX2 stored a bin's union
    /// with a masked store (`vmaskmovps`, microcoded on AMD), which made
    /// whole builds 1.8x slower.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn union(&self, other: &Bounds) -> Bounds {
        use std::arch::x86_64::{_mm_load_ps, _mm_max_ps, _mm_min_ps, _mm_store_ps};
        let mut out = Bounds::EMPTY;
        // SAFETY: SSE is part of x86_64; `Bounds` is 16-byte aligned and its
        // corners are four floats each, so every load and store is aligned
        // and in bounds.
        unsafe {
            let min = _mm_min_ps(
                _mm_load_ps(self.min.as_ptr()),
                _mm_load_ps(other.min.as_ptr()),
            );
            let max = _mm_max_ps(
                _mm_load_ps(self.max.as_ptr()),
                _mm_load_ps(other.max.as_ptr()),
            );
            _mm_store_ps(out.min.as_mut_ptr(), min);
            _mm_store_ps(out.max.as_mut_ptr(), max);
        }
        out
    }

    /// Lane-wise min and max, written so the compiler emits vector minima
    /// and maxima.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn union(&self, other: &Bounds) -> Bounds {
        #[inline(always)]
        fn lo(a: Real, b: Real) -> Real {
            if a < b { a } else { b }
        }
        #[inline(always)]
        fn hi(a: Real, b: Real) -> Real {
            if a > b { a } else { b }
        }
        let (a, b) = (self, other);
        Bounds {
            min: std::array::from_fn(|k| lo(a.min[k], b.min[k])),
            max: std::array::from_fn(|k| hi(a.max[k], b.max[k])),
        }
    }

    #[inline(always)]
    fn including(&self, p: &Lanes) -> Bounds {
        self.union(&Bounds { min: *p, max: *p })
    }

    fn to_aabb(self) -> Aabb {
        Aabb::new(
            Point::new(self.min[0], self.min[1], self.min[2]),
            Point::new(self.max[0], self.max[1], self.max[2]),
        )
    }

    /// Surface area; 0 when empty.
    #[inline(always)]
    fn surface_area(&self) -> Real {
        let e: Lanes = std::array::from_fn(|k| self.max[k] - self.min[k]);
        if e[0] < 0.0 {
            return 0.0;
        }
        2.0 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0])
    }
}

/// What one pass over a node's triangles learns: the box around them and
/// the box around their centroids (the SAH bins span the latter).
/// [`partition`] summarises both halves it leaves, so a child starts with
/// its summary.
#[derive(Clone, Copy, Debug)]
struct NodeSummary {
    node_box: Bounds,
    centroid_bounds: Bounds,
}

impl NodeSummary {
    const EMPTY: NodeSummary = NodeSummary {
        node_box: Bounds::EMPTY,
        centroid_bounds: Bounds::EMPTY,
    };

    #[inline(always)]
    fn add(&mut self, p: &PrimRef, centroid: &Lanes) {
        self.node_box = self.node_box.union(&p.bounds);
        self.centroid_bounds = self.centroid_bounds.including(centroid);
    }

    /// Copies `records` into `to` and adds them.
    #[inline(always)]
    fn add_copies(&mut self, to: &mut [PrimRef], records: &[PrimRef]) {
        for (slot, p) in to.iter_mut().zip(records) {
            *slot = *p;
            self.add(p, &p.centroid());
        }
    }

    fn of(ids: &[PrimRef]) -> NodeSummary {
        let mut summary = NodeSummary::EMPTY;
        for p in ids {
            summary.add(p, &p.centroid());
        }
        summary
    }
}

/// A node's triangles reordered into two non-empty halves: the first `mid`
/// records and the rest, with each half's summary.
struct Halves {
    mid: usize,
    summaries: [NodeSummary; 2],
}

/// One builder per thread: shared read-only inputs plus scratch buffers.
struct Builder<'a> {
    mesh: &'a TriMesh,
    options: &'a BuildOptions,
    scratch: Vec<Triangle>,
    /// Where [`partition`] writes a node's records before copying them back.
    records: Vec<PrimRef>,
    /// SAH bins per axis, reused across nodes and empty between them: each
    /// node empties only the bins it filled (resetting all of them per node
    /// dominated the cost of small nodes).
    /// Taken from and handed back to [`SPARE_BINS`].
    bins: ManuallyDrop<Box<[AxisBins; 2]>>,
    /// Per bin, area times count of the filled bins from it rightwards; only
    /// the entries of the current sweep's filled bins are meaningful (kept
    /// here so a node does not zero 256 bytes it mostly never reads).
    right_cost: [Real; MAX_BINS],
    /// Whether some record stands for several triangles.
    runs: bool,
}

/// Per axis, the box and triangle count of each SAH bin.
type AxisBins = [[(Bounds, u32); MAX_BINS]; 3];

/// Two sets of empty bins, written in place: `Box::new` of the 18 KB array
/// built it on the stack and copied it (FCL's rob built 3% faster without).
fn empty_bins() -> Box<[AxisBins; 2]> {
    let mut bins = Box::<[AxisBins; 2]>::new_uninit();
    let first: *mut (Bounds, u32) = bins.as_mut_ptr().cast();
    for i in 0..2 * 3 * MAX_BINS {
        // SAFETY: the allocation holds 2 · 3 · MAX_BINS bins, contiguously.
        unsafe { first.add(i).write((Bounds::EMPTY, 0)) };
    }
    // SAFETY: every bin was written above.
    unsafe { bins.assume_init() }
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
        // SAFETY: `drop` runs once and nothing reads `bins` after it.
        let bins = unsafe { ManuallyDrop::take(&mut self.bins) };
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
    /// Builds a tree over every triangle of `mesh` with the given options.
    #[must_use]
    pub fn build(mesh: &TriMesh, options: &BuildOptions) -> Bvh<V> {
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

/// The build records of `mesh`: one per triangle, except that consecutive
/// triangles with identical boxes (the two halves of an axis-aligned
/// rectangle, as CAD and architectural meshes are made of) share one, up
/// to `max_run` of them. Such triangles always land in the same bin, and a
/// leaf is cheaper than separating them, so the tree hardly changes (FCL's
/// env: SAH cost 17.615 before, 17.612 after), but every pass over a node
/// reads fewer records (env: 2,180 triangles, 1,110 records).
fn prim_refs(mesh: &TriMesh, max_run: u32) -> Vec<PrimRef> {
    let vertices = mesh.vertices();
    let lanes = |i: u32| {
        let p = &vertices[i as usize];
        [p.x, p.y, p.z, 0.0]
    };
    let mut prims: Vec<PrimRef> = Vec::with_capacity(mesh.len());
    for (id, &[a, b, c]) in mesh.indices().iter().enumerate() {
        // Four-lane minima and maxima (nalgebra's `inf`/`sup` compiled to
        // compares and branches per coordinate).
        let (a, b, c) = (lanes(a), lanes(b), lanes(c));
        let bounds = Bounds { min: a, max: a }.including(&b).including(&c);
        let record = PrimRef::with_bounds(bounds, id as u32, 1);
        match prims.last_mut() {
            Some(last) if max_run > 1 && last.run() < max_run && last.same_box(&record) => {
                *last = PrimRef::with_bounds(last.bounds, last.id(), last.run() + 1);
            }
            _ => prims.push(record),
        }
    }
    prims
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

#[cfg(feature = "parallel")]
fn build_nodes<V: BoundingVolume>(
    mesh: &TriMesh,
    options: &BuildOptions,
    prims: &mut [PrimRef],
) -> Subtree<V> {
    let runs = prims.len() < mesh.len();
    if options.parallel {
        let summary = NodeSummary::of(prims);
        build_parallel(mesh, options, runs, prims, &summary, 0, 0)
    } else {
        Builder::new(mesh, options, runs).build_serial(prims, 0)
    }
}

#[cfg(not(feature = "parallel"))]
fn build_nodes<V: BoundingVolume>(
    mesh: &TriMesh,
    options: &BuildOptions,
    prims: &mut [PrimRef],
) -> Subtree<V> {
    let runs = prims.len() < mesh.len();
    Builder::new(mesh, options, runs).build_serial(prims, 0)
}

/// Builds the subtree over `ids` (positions `offset ..` of the leaf order),
/// forking the two children onto the rayon pool while subtrees are large.
#[cfg(feature = "parallel")]
fn build_parallel<V: BoundingVolume>(
    mesh: &TriMesh,
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
            build_parallel::<V>(
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
            build_parallel::<V>(
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

impl<'a> Builder<'a> {
    fn new(mesh: &'a TriMesh, options: &'a BuildOptions, runs: bool) -> Self {
        Builder {
            mesh,
            options,
            runs,
            scratch: Vec::new(),
            records: Vec::new(),
            bins: ManuallyDrop::new(SPARE_BINS.take().unwrap_or_else(empty_bins)),
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

    /// Builds the whole subtree of a node of `N` (2 to [`EXHAUSTIVE_MAX`])
    /// records from one table of subset costs: the splits that SAH picks
    /// node by node among every grouping (greedy, top-down, the same tree
    /// as splitting each node on its own), without a pass, a summary or a
    /// call per descendant. Most nodes are this small; building their
    /// children node by node repeated work the parent's table had done.
    fn build_small<V: BoundingVolume, const N: usize>(
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

    /// The node volume around the triangles `ids`: straight from the node box
    /// when the volume is that box (AABB trees skip the triangle pass),
    /// otherwise fitted to the gathered triangles.
    fn fit<V: BoundingVolume>(&mut self, ids: &[PrimRef], node_box: &Bounds) -> V {
        if let Some(volume) = V::from_triangle_boxes(&node_box.to_aabb()) {
            return volume;
        }
        let mesh = self.mesh;
        self.scratch.clear();
        self.scratch.extend(
            ids.iter()
                .flat_map(PrimRef::ids)
                .map(|id| mesh.triangle(TriangleId(id))),
        );
        V::fit(&self.scratch, self.options.obb_fit)
    }

    /// Reorders `ids` into two non-empty halves, or returns `None` to make a leaf.
    fn split<V: BoundingVolume>(
        &mut self,
        volume: &V,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
    ) -> Option<Halves> {
        let n = ids.len();
        let max_leaf = self.options.max_leaf_size.max(1) as usize;
        if n <= 1 {
            return None;
        }
        let mid = match self.options.split {
            SplitRule::Sah { bins } => {
                let bins = (bins as usize).clamp(2, MAX_BINS);
                // Small enough nodes become leaves when SAH says a leaf is
                // cheaper; larger ones take the best plane regardless. A
                // node has at least as many triangles as records. (Nodes
                // of 2 to EXHAUSTIVE_MAX records are built whole by
                // `build_small` and do not come here.)
                let forced = n > max_leaf || triangle_count(ids) > max_leaf;
                // Nodes of a few records fill about as many planes in 8
                // bins as in 16 (SAH cost within ±0.06% on the bench
                // meshes), and the shorter sweeps and resets build 1–3%
                // faster (16 records or fewer), the icosphere another 2.4%
                // (32 or fewer; 64 or fewer: 4%, but SAH up to +0.25%).
                let bins = if n <= SMALL_NODE_MAX {
                    bins.min(SMALL_BINS)
                } else {
                    bins
                };
                // Two copies: reading run lengths made the bunny, which has
                // no runs, 2–5% slower.
                let halves = if self.runs {
                    self.sah_split::<true>(ids, summary, bins, forced)
                } else {
                    self.sah_split::<false>(ids, summary, bins, forced)
                };
                match halves {
                    Some(mid) => Some(mid),
                    None if !forced => return None,
                    None => None,
                }
            }
            SplitRule::MeanAlongLongestAxis => {
                if n <= max_leaf {
                    return None;
                }
                self.mean_split(volume, ids)
            }
        };
        Some(mid.unwrap_or_else(|| self.median_split(volume, ids)))
    }

    /// Gottschalk: the plane through the mean centroid, across the longest
    /// axis of the node's volume, then the next axes.
    fn mean_split<V: BoundingVolume>(&mut self, volume: &V, ids: &mut [PrimRef]) -> Option<Halves> {
        for axis in volume.split_axes() {
            let mean = ids
                .iter()
                .map(|p| f64::from(dot(&p.centroid(), &axis)))
                .sum::<f64>()
                / ids.len() as f64;
            let halves = partition(ids, &mut self.records, |p| {
                f64::from(dot(&p.centroid(), &axis)) < mean
            });
            if halves.mid > 0 && halves.mid < ids.len() {
                return Some(halves);
            }
        }
        None
    }

    /// The fallback when no plane separates the centroids: order along the
    /// longest axis (ties by id, so the result is deterministic) and halve.
    fn median_split<V: BoundingVolume>(&self, volume: &V, ids: &mut [PrimRef]) -> Halves {
        let axis = volume.split_axes()[0];
        let mid = ids.len() / 2;
        ids.select_nth_unstable_by(mid, |a, b| {
            let (pa, pb) = (dot(&a.centroid(), &axis), dot(&b.centroid(), &axis));
            pa.total_cmp(&pb).then(a.id().cmp(&b.id()))
        });
        Halves {
            mid,
            summaries: [NodeSummary::of(&ids[..mid]), NodeSummary::of(&ids[mid..])],
        }
    }

    /// Binned SAH (Wald 2007) over the centroid bounds of `ids`: the size of
    /// the left part after partitioning, or `None` when no plane separates
    /// the centroids or (unless `forced`) a leaf is cheaper than any split.
    /// One pass bins every axis [`BinGrid`] keeps; the partition is the other.
    fn sah_split<const RUNS: bool>(
        &mut self,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
        bin_count: usize,
        forced: bool,
    ) -> Option<Halves> {
        let grid = BinGrid::new(&summary.centroid_bounds, bin_count);
        // Which bins each set filled per axis, as bit sets (bin count ≤ 64).
        // The bins are empty on entry; the sweep below empties them again.
        let mut filled = [[0u64; 3]; 2];
        let stride = (ids.len() / BIN_SAMPLE).max(1);
        grid.add_all::<RUNS>(&mut self.bins, &mut filled, ids, stride);
        let [all_bins, odd] = &mut **self.bins;
        let [filled_all, filled_odd] = &mut filled;
        let right_cost = &mut self.right_cost;
        // (cost, axis, bin right of the plane) of the cheapest plane so far.
        let mut best: Option<(Real, usize, usize)> = None;
        for axis in 0..3 {
            // The second set folded into the first and emptied.
            let (main, other) = (&mut all_bins[axis], &mut odd[axis]);
            for b in set_bits(filled_odd[axis]) {
                let (bin, spare) = (&mut main[b], &mut other[b]);
                *bin = (bin.0.union(&spare.0), bin.1 + spare.1);
                *spare = (Bounds::EMPTY, 0);
            }
            let mask = filled_all[axis] | filled_odd[axis];
            // Only planes between non-empty bins differ, and a small node has
            // few of those: sweeping just them keeps the per-node cost
            // proportional to the node's size rather than to the bin count.
            // Right to left: area·count of the filled bins from each on.
            let (mut acc_box, mut acc_count) = (Bounds::EMPTY, 0u32);
            let mut rest = mask;
            while rest != 0 {
                let b = (u64::BITS - 1 - rest.leading_zeros()) as usize;
                rest ^= 1 << b;
                let bin = &main[b];
                acc_box = acc_box.union(&bin.0);
                acc_count += bin.1;
                right_cost[b] = area(&acc_box) * acc_count as Real;
            }
            let (mut acc_box, mut acc_count) = (Bounds::EMPTY, 0u32);
            for b in set_bits(mask) {
                if acc_count > 0 {
                    let cost = area(&acc_box) * acc_count as Real + right_cost[b];
                    if best.is_none_or(|(c, _, _)| cost < c) {
                        best = Some((cost, axis, b));
                    }
                }
                let bin = &mut main[b];
                acc_box = acc_box.union(&bin.0);
                acc_count += bin.1;
                *bin = (Bounds::EMPTY, 0);
            }
        }
        let (cost, axis, split_bin) = best?;
        // Sampled counts stand for `stride` triangles each.
        let cost = cost * stride as Real;
        let node_area = summary.node_box.surface_area();
        if !forced {
            let leaf_cost = node_area * triangle_count(ids) as Real;
            if leaf_cost <= TRAVERSAL_COST * node_area + cost {
                return None;
            }
        }
        let plane = split_bin as Real;
        let halves = partition(ids, &mut self.records, |p| grid.below(p, axis, plane));
        (halves.mid > 0 && halves.mid < ids.len()).then_some(halves)
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

/// Puts `node` into its reserved `slot`, or appends it when that is next.
#[inline(always)]
fn place<V: BoundingVolume>(out: &mut Subtree<V>, slot: usize, node: Node<V>) {
    if slot == out.nodes.len() {
        out.nodes.push(node);
    } else {
        out.nodes[slot] = node;
    }
}

/// Surface area of a non-empty box.
#[inline(always)]
fn area(b: &Bounds) -> Real {
    let e: Lanes = std::array::from_fn(|k| b.max[k] - b.min[k]);
    2.0 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0])
}

/// Where a node's centroids fall in its SAH bins. The grid works on the
/// sums `min + max` of the boxes' corners, twice their centres, which saves
/// halving them and gives the same bins (unless the centroid extent exceeds
/// `Real::MAX / 2`, where the sums overflow and records move to the last
/// bin; the bins and [`BinGrid::below`] still agree, since both read
/// [`BinGrid::scaled`]).
struct BinGrid {
    /// Twice the node's least centroid.
    origin: Lanes,
    /// Bins per unit of corner sum.
    scale: Lanes,
    last: Real,
    /// Axes much shorter than the longest rarely hold the best plane; only
    /// the others are binned (the largest saving left in the binning pass).
    binned: [bool; 3],
}

impl BinGrid {
    fn new(centroid_bounds: &Bounds, bin_count: usize) -> Self {
        let (min, max) = (centroid_bounds.min, centroid_bounds.max);
        let extent: Lanes = std::array::from_fn(|k| max[k] - min[k]);
        // Axes without extent get scale 0: every triangle lands in bin 0 and
        // the sweep finds no plane there.
        let scale = extent.map(|e| {
            if e > 0.0 {
                0.5 * (bin_count as Real / e)
            } else {
                0.0
            }
        });
        let longest = extent[0].max(extent[1]).max(extent[2]);
        BinGrid {
            origin: min.map(|m| 2.0 * m),
            scale,
            last: (bin_count - 1) as Real,
            binned: std::array::from_fn(|k| {
                extent[k] > 0.0 && extent[k] >= MIN_BINNED_EXTENT * longest
            }),
        }
    }

    /// `p`'s position on axis `k` in bins (before clamping and truncation).
    #[inline(always)]
    fn scaled(&self, p: &PrimRef, k: usize) -> Real {
        let (a, b) = (&p.bounds.min, &p.bounds.max);
        (a[k] + b[k] - self.origin[k]) * self.scale[k]
    }

    /// The bin of `p` on axis `k` (the portable form of `bins_of`).
    #[cfg(any(test, not(target_arch = "x86_64")))]
    #[inline(always)]
    fn bin_on(&self, p: &PrimRef, k: usize) -> usize {
        bin_index(self.scaled(p, k), self.last)
    }

    /// Whether `p`'s bin on axis `k` is below `plane`, a bin number in
    /// `1..=last`: the same answer as the bins without the clamp and the
    /// conversion (a NaN, like bin 0, is below).
    #[inline(always)]
    fn below(&self, p: &PrimRef, k: usize, plane: Real) -> bool {
        !(self.scaled(p, k) >= plane)
    }

    /// The bins of `p` on all four lanes at once (the fourth is ignored):
    /// one vector conversion instead of three scalar ones. The compiler
    /// keeps them scalar unless told.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn bins_of(&self, p: &PrimRef) -> [usize; 4] {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the loads read four floats each.
        let indices = unsafe {
            let lanes = |l: &Lanes| _mm_loadu_ps(l.as_ptr());
            let x = _mm_mul_ps(
                _mm_sub_ps(
                    _mm_add_ps(lanes(&p.bounds.min), lanes(&p.bounds.max)),
                    lanes(&self.origin),
                ),
                lanes(&self.scale),
            );
            let x = _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), _mm_set1_ps(self.last));
            let mut out = [0i32; 4];
            _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_cvttps_epi32(x));
            out
        };
        indices.map(|i| i as usize)
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn bins_of(&self, p: &PrimRef) -> [usize; 4] {
        std::array::from_fn(|k| self.bin_on(p, k))
    }

    /// Adds every `stride`th record of `ids` to `sets`, marking the bins it
    /// fills in `filled`. `RUNS` says whether records may stand for several
    /// triangles.
    #[inline(always)]
    fn add_all<const RUNS: bool>(
        &self,
        sets: &mut [AxisBins; 2],
        filled: &mut [[u64; 3]; 2],
        ids: &[PrimRef],
        stride: usize,
    ) {
        // Neighbouring triangles usually share bins; alternating two sets
        // breaks the chain of read-modify-writes through the same bin.
        let [all_bins, odd] = sets;
        let [filled_all, filled_odd] = filled;
        if ids.len() < TWO_BIN_SETS_MIN {
            for p in ids.iter() {
                self.add::<RUNS>(all_bins, p, filled_all);
            }
        } else if stride == 1 {
            let mut pairs = ids.chunks_exact(2);
            for pair in &mut pairs {
                self.add::<RUNS>(all_bins, &pair[0], filled_all);
                self.add::<RUNS>(odd, &pair[1], filled_odd);
            }
            for p in pairs.remainder() {
                self.add::<RUNS>(all_bins, p, filled_all);
            }
        } else {
            let mut sample = ids.iter().step_by(stride);
            while let (Some(a), b) = (sample.next(), sample.next()) {
                self.add::<RUNS>(all_bins, a, filled_all);
                if let Some(b) = b {
                    self.add::<RUNS>(odd, b, filled_odd);
                }
            }
        }
    }

    /// Adds `p` to its bin on every binned axis of `set`.
    #[inline(always)]
    fn add<const RUNS: bool>(&self, set: &mut AxisBins, p: &PrimRef, filled: &mut [u64; 3]) {
        let bins = self.bins_of(p);
        let run = if RUNS { p.run() } else { 1 };
        for axis in 0..3 {
            if !self.binned[axis] {
                continue;
            }
            // `bins_of` stays below `MAX_BINS`; the mask lets the compiler see it.
            let b = bins[axis] & (MAX_BINS - 1);
            let bin = &mut set[axis][b];
            bin.0 = bin.0.union(&p.bounds);
            bin.1 += run;
            filled[axis] |= 1 << b;
        }
    }
}

/// The bin of a scaled centroid coordinate `x`: its integer part, clamped
/// to `0..=last`. Rust's saturating `as usize` costs a dozen instructions
/// per axis and primitive, a plain truncation one.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
fn bin_index(x: Real, last: Real) -> usize {
    // `max`/`min` return the non-NaN operand, so a NaN lands in bin 0.
    let clamped = x.max(0.0).min(last);
    // SAFETY: `clamped` is finite and in `0.0..=63.0` (`last < MAX_BINS`),
    // so it truncates to a representable `i32` (signed, as the vector
    // conversion instruction is).
    (unsafe { clamped.to_int_unchecked::<i32>() }) as usize
}

/// The triangles of `records`.
#[inline(always)]
fn triangle_count(records: &[PrimRef]) -> usize {
    records.iter().map(|p| p.run() as usize).sum()
}

/// Records classified per block by [`partition`].
const PARTITION_BLOCK: usize = 64;

/// Moves the records that satisfy `left` to the front and
/// summarises both halves, without data-dependent branches.
///
/// Hoare's two-ended partition moves only misplaced records but branches on
/// each one; on meshes whose triangle order is not spatially coherent (as
/// scanned and modelled meshes often are) those branches are close to
/// coin flips (inferred from timings; this machine has no branch counters):
/// a shuffled terrain built 1.8x slower than the same terrain in grid order
/// (the build bench keeps that shuffled terrain; it now builds as fast).
/// Here blocks of records are classified from both ends into lists of
/// misplaced offsets without branching, and the lists are then swapped
/// pairwise (Edelkamp and Weiß, "BlockQuicksort", 2016). The fewer than
/// two blocks of records left go through `scratch`: each record is written
/// to both free ends and only the matching end's cursor advances. Both halves are then
/// summarised in streaming passes.
fn partition(
    ids: &mut [PrimRef],
    scratch: &mut Vec<PrimRef>,
    left: impl Fn(&PrimRef) -> bool,
) -> Halves {
    // `ids[..l]` belong left, `ids[r..]` right; `l .. r` is undecided,
    // apart from the misplaced offsets still listed for its end blocks.
    let (mut l, mut r) = (0, ids.len());
    let (mut off_l, mut off_r) = ([0u8; PARTITION_BLOCK], [0u8; PARTITION_BLOCK]);
    let (mut start_l, mut num_l, mut start_r, mut num_r) = (0, 0, 0, 0);
    while r - l >= 2 * PARTITION_BLOCK {
        if num_l == 0 {
            start_l = 0;
            for (i, p) in ids[l..l + PARTITION_BLOCK].iter().enumerate() {
                off_l[num_l] = i as u8;
                num_l += usize::from(!left(p));
            }
        }
        if num_r == 0 {
            start_r = 0;
            for (i, p) in ids[r - PARTITION_BLOCK..r].iter().rev().enumerate() {
                off_r[num_r] = i as u8;
                num_r += usize::from(left(p));
            }
        }
        let swaps = num_l.min(num_r);
        for k in 0..swaps {
            let i = l + usize::from(off_l[start_l + k]);
            let j = r - 1 - usize::from(off_r[start_r + k]);
            ids.swap(i, j);
        }
        (num_l, num_r) = (num_l - swaps, num_r - swaps);
        (start_l, start_r) = (start_l + swaps, start_r + swaps);
        if num_l == 0 {
            l += PARTITION_BLOCK;
        }
        if num_r == 0 {
            r -= PARTITION_BLOCK;
        }
    }
    let tail = &ids[l..r];
    if scratch.len() < tail.len() {
        scratch.resize(
            tail.len(),
            PrimRef {
                bounds: Bounds::EMPTY,
            },
        );
    }
    let out = &mut scratch[..tail.len()];
    // Free slots of `out` are `lo .. hi`; before each record one is free.
    let (mut lo, mut hi) = (0, tail.len());
    for p in tail.iter() {
        let goes_left = left(p);
        out[lo] = *p;
        out[hi - 1] = *p;
        lo += usize::from(goes_left);
        hi -= usize::from(!goes_left);
    }
    let (head, rest) = ids.split_at_mut(l);
    let (tail, end) = rest.split_at_mut(r - l);
    let [mut left, mut right] = [NodeSummary::of(head), NodeSummary::of(end)];
    // Copied back while summarised: one pass over the tail instead of two
    // (and no call to `memmove`, which small nodes paid for).
    let (tail_left, tail_right) = tail.split_at_mut(lo);
    left.add_copies(tail_left, &out[..lo]);
    right.add_copies(tail_right, &out[lo..]);
    Halves {
        mid: l + lo,
        summaries: [left, right],
    }
}

fn dot(c: &Lanes, axis: &Vector) -> Real {
    c[0] * axis.x + c[1] * axis.y + c[2] * axis.z
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitive_ids_and_runs_survive_packing_into_the_fourth_lanes() {
        let aabb = Aabb::new(Point::new(-1.0, 2.0, -3.0), Point::new(4.0, 5.0, 6.0));
        let ids = [
            0,
            1,
            (1 << 23) - 1,
            (1 << 23) + 1,
            1 << 23,
            123_456_789,
            u32::MAX - MAX_RUN,
            u32::MAX - 1,
            u32::MAX,
        ];
        for (id, run) in ids
            .into_iter()
            .flat_map(|id| [1, 2, 3, MAX_RUN].map(|run| (id, run)))
        {
            if id.checked_add(run).is_none() {
                continue;
            }
            let p = PrimRef::new(&aabb, id, run);
            assert_eq!((p.id(), p.run()), (id, run));
            assert!(p.ids().eq(id..id + run));
            assert_eq!(p.bounds.to_aabb(), aabb);
            // The id lanes are normal floats in [1, 2), harmless to vector arithmetic.
            for lane in [p.bounds.min[3], p.bounds.max[3], p.centroid()[3]] {
                assert!(lane.is_normal() && (1.0..2.0).contains(&lane), "{lane}");
            }
        }
    }

    #[test]
    fn block_partition_splits_every_size_and_summarises_both_halves() {
        // Sizes around the block boundaries, with predicates that put all,
        // none, or a pseudo-random subset of the records on the left.
        let mut state = 0x9e37_79b9_u32;
        let mut scratch = Vec::new();
        for n in [0, 1, 2, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 4099] {
            let records: Vec<PrimRef> = (0..n as u32)
                .map(|id| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    let x = (state >> 8) as Real / (1 << 24) as Real;
                    let p = Point::new(x, 2.0 * x, -x);
                    PrimRef::new(&Aabb::new(p, p + Vector::new(0.5, 0.25, 0.125)), id, 1)
                })
                .collect();
            // Thresholds on the random keys, then layouts where whole blocks
            // are misplaced: every record on the wrong side (by id), and
            // alternating runs of 64.
            let by_key = [-1.0, 0.3, 0.5, 0.9, 2.0].map(|t| (t, 0));
            let by_id = [(0.0, 1), (0.0, 2)];
            for (threshold, layout) in by_key.into_iter().chain(by_id) {
                let mut ids = records.clone();
                let goes_left = |p: &PrimRef| match layout {
                    0 => p.centroid()[0] < threshold,
                    1 => p.id() as usize >= n / 2,
                    _ => p.id() / 64 % 2 == 1,
                };
                let halves = partition(&mut ids, &mut scratch, goes_left);
                let mid = halves.mid;
                let expected_left = records.iter().filter(|p| goes_left(p)).count();
                assert_eq!(
                    mid, expected_left,
                    "n {n} layout {layout} threshold {threshold}"
                );
                assert!(ids[..mid].iter().all(&goes_left));
                assert!(ids[mid..].iter().all(|p| !goes_left(p)));
                let mut seen: Vec<u32> = ids.iter().map(PrimRef::id).collect();
                seen.sort_unstable();
                assert!(
                    seen.iter().copied().eq(0..n as u32),
                    "records lost or repeated"
                );
                for (half, range) in [(0, &ids[..mid]), (1, &ids[mid..])] {
                    let (got, want) = (&halves.summaries[half], NodeSummary::of(range));
                    assert_eq!(got.node_box.to_aabb(), want.node_box.to_aabb());
                    assert_eq!(
                        got.centroid_bounds.to_aabb(),
                        want.centroid_bounds.to_aabb()
                    );
                }
            }
        }
    }

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

    #[test]
    fn vector_bins_and_plane_tests_equal_scalar_bins() {
        let mut next = crate::test_support::unit_floats(0x1234_5678);
        let centroids = Bounds {
            min: [-2.0, 0.5, 3.0, 1.0],
            max: [6.0, 0.5, 3.5, 2.0],
        };
        let grid = BinGrid::new(&centroids, 16);
        for id in 0..10_000 {
            // Boxes reaching past the grid too, so the clamps are exercised.
            let p = Point::new(next() * 12.0 - 4.0, 0.5, next() + 2.75);
            let size = Vector::new(next(), 0.0, next()) * 0.5;
            let p = PrimRef::new(&Aabb::new(p - size, p + size), id, 1);
            assert_bins_agree(&grid, &p);
        }
        // Corner sums landing on whole bins and one ulp either side, and
        // values the clamps must catch: NaN, ±inf, ±MAX (axis 1 has no
        // extent, so its scale is 0 and inf · 0 is NaN there).
        let mut edges: Vec<Real> = vec![Real::NAN, Real::INFINITY, -Real::INFINITY];
        edges.extend([Real::MAX, -Real::MAX, 1e38, -1e-40]);
        for whole in -1..=17 {
            let v = whole as Real;
            edges.extend([v, v.next_up(), v.next_down()]);
        }
        for &v in &edges {
            // Axis 0: scaled = (min + max + 4) · 1, so max = v − 4 puts it near v.
            let corner = [0.0, 0.0, 0.0, 1.0];
            let p = PrimRef {
                bounds: Bounds {
                    min: corner,
                    max: [v - 4.0, v, v, 1.0],
                },
            };
            assert_bins_agree(&grid, &p);
        }
    }

    /// `bins_of` (vector), `bin_on` (scalar) and `below` agree on every axis.
    fn assert_bins_agree(grid: &BinGrid, p: &PrimRef) {
        for (k, &bin) in grid.bins_of(p)[..3].iter().enumerate() {
            assert_eq!(bin, grid.bin_on(p, k), "{p:?} axis {k}");
            assert!(bin < 16);
            for plane in 1..16 {
                assert_eq!(
                    grid.below(p, k, plane as Real),
                    bin < plane,
                    "{p:?} axis {k}"
                );
            }
        }
    }

    #[test]
    fn bin_index_clamps_to_the_grid() {
        assert_eq!(bin_index(-3.0, 15.0), 0);
        assert_eq!(bin_index(Real::NAN, 15.0), 0);
        assert_eq!(bin_index(Real::INFINITY, 15.0), 15);
        assert_eq!(bin_index(7.9, 15.0), 7);
        assert_eq!(bin_index(63.0, 63.0), 63);
    }
}
