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

use crate::bounding_volume::Aabb;
use crate::bvh::{BoundingVolume, BuildOptions, Bvh, Node, SplitRule};
use crate::math::{Point, Real, Vector};
use crate::mesh::{TriMesh, TriangleId};
use crate::shape::Triangle;

/// Below this many triangles a subtree is built serially.
#[cfg(feature = "parallel")]
const PARALLEL_MIN_TRIANGLES: usize = 4096;
/// Depth bound for the parallel recursion (2^12 tasks is far more than cores).
#[cfg(feature = "parallel")]
const MAX_PARALLEL_DEPTH: u32 = 12;
/// Most bins the SAH builder uses per axis.
const MAX_BINS: usize = 64;
/// SAH cost of one traversal step relative to one triangle test.
const TRAVERSAL_COST: Real = 1.0;

/// One triangle as the builder sees it: its box and its id. The builder
/// partitions these records themselves (not ids into side arrays), so every
/// pass over a node reads contiguous memory (Wald 2007; Embree's `PrimRef`).
#[derive(Clone, Copy, Debug)]
struct PrimRef {
    bounds: Bounds,
    id: u32,
}

impl PrimRef {
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
#[derive(Clone, Copy, Debug)]
struct Bounds {
    min: Lanes,
    max: Lanes,
}

impl Bounds {
    const EMPTY: Bounds = Bounds {
        min: [Real::INFINITY; 4],
        max: [Real::NEG_INFINITY; 4],
    };

    /// Lane-wise min and max, written so the compiler emits `minps`/`maxps`.
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
            min: [
                lo(a.min[0], b.min[0]),
                lo(a.min[1], b.min[1]),
                lo(a.min[2], b.min[2]),
                lo(a.min[3], b.min[3]),
            ],
            max: [
                hi(a.max[0], b.max[0]),
                hi(a.max[1], b.max[1]),
                hi(a.max[2], b.max[2]),
                hi(a.max[3], b.max[3]),
            ],
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
struct NodeSummary {
    node_box: Bounds,
    centroid_bounds: Bounds,
}

/// One builder per thread: shared read-only inputs plus a scratch buffer.
struct Builder<'a> {
    mesh: &'a TriMesh,
    options: &'a BuildOptions,
    scratch: Vec<Triangle>,
    /// SAH bins per axis, reused across nodes: only the first `bins` entries
    /// are reset per node (resetting all 64 per axis per node dominated small nodes).
    bins: Box<[[(Bounds, u32); MAX_BINS]; 3]>,
}

/// A pending subtree of the serial builder: its id range and its reserved node slot.
struct Task {
    start: usize,
    end: usize,
    slot: usize,
}

impl<V: BoundingVolume> Bvh<V> {
    /// Builds a tree over every triangle of `mesh` with the given options.
    #[must_use]
    pub fn build(mesh: &TriMesh, options: &BuildOptions) -> Bvh<V> {
        let mut prims = prim_refs(mesh);
        let nodes = build_nodes::<V>(mesh, options, &mut prims);
        let order = prims.iter().map(|p| p.id).collect();
        let depth = super::tree_depth(&nodes);
        Bvh {
            nodes,
            order,
            depth,
        }
    }
}

fn prim_refs(mesh: &TriMesh) -> Vec<PrimRef> {
    mesh.triangles()
        .enumerate()
        .map(|(id, t)| {
            let b = t.aabb();
            PrimRef {
                bounds: Bounds {
                    min: [b.min.x, b.min.y, b.min.z, 0.0],
                    max: [b.max.x, b.max.y, b.max.z, 0.0],
                },
                id: id as u32,
            }
        })
        .collect()
}

#[cfg(feature = "parallel")]
fn build_nodes<V: BoundingVolume>(
    mesh: &TriMesh,
    options: &BuildOptions,
    prims: &mut [PrimRef],
) -> Vec<Node<V>> {
    if options.parallel {
        build_parallel(mesh, options, prims, 0, 0)
    } else {
        Builder::new(mesh, options).build_serial(prims, 0)
    }
}

#[cfg(not(feature = "parallel"))]
fn build_nodes<V: BoundingVolume>(
    mesh: &TriMesh,
    options: &BuildOptions,
    prims: &mut [PrimRef],
) -> Vec<Node<V>> {
    Builder::new(mesh, options).build_serial(prims, 0)
}

/// Builds the subtree over `ids` (positions `offset ..` of the leaf order),
/// forking the two children onto the rayon pool while subtrees are large.
#[cfg(feature = "parallel")]
fn build_parallel<V: BoundingVolume>(
    mesh: &TriMesh,
    options: &BuildOptions,
    ids: &mut [PrimRef],
    offset: usize,
    depth: u32,
) -> Vec<Node<V>> {
    let mut builder = Builder::new(mesh, options);
    if ids.len() < PARALLEL_MIN_TRIANGLES || depth >= MAX_PARALLEL_DEPTH {
        return builder.build_serial(ids, offset);
    }
    let summary = builder.summarize(ids);
    let volume: V = builder.fit(ids, &summary);
    let Some(mid) = builder.split(&volume, ids, &summary) else {
        return vec![Node::leaf(volume, offset as u32, ids.len() as u32)];
    };
    let (left_ids, right_ids) = ids.split_at_mut(mid);
    let (left, right) = rayon::join(
        || build_parallel::<V>(mesh, options, left_ids, offset, depth + 1),
        || build_parallel::<V>(mesh, options, right_ids, offset + mid, depth + 1),
    );
    // Same layout as the serial builder: root, the child pair, then the left
    // child's descendants, then the right child's. Links inside each subtree
    // move by where its descendants now start.
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
    nodes
}

impl<'a> Builder<'a> {
    fn new(mesh: &'a TriMesh, options: &'a BuildOptions) -> Self {
        Builder {
            mesh,
            options,
            scratch: Vec::new(),
            bins: Box::new([[(Bounds::EMPTY, 0); MAX_BINS]; 3]),
        }
    }

    /// The serial, iterative builder over `ids`, whose first position in the
    /// leaf order is `offset`. Returns the subtree's nodes in preorder.
    fn build_serial<V: BoundingVolume>(
        &mut self,
        ids: &mut [PrimRef],
        offset: usize,
    ) -> Vec<Node<V>> {
        let mut nodes: Vec<Node<V>> =
            Vec::with_capacity(2 * ids.len() / self.options.max_leaf_size.max(1) as usize);
        let mut stack = vec![Task {
            start: 0,
            end: ids.len(),
            slot: 0,
        }];
        while let Some(task) = stack.pop() {
            let range = &mut ids[task.start..task.end];
            let summary = self.summarize(range);
            let volume: V = self.fit(range, &summary);
            let node = match self.split(&volume, range, &summary) {
                None => Node::leaf(volume, (offset + task.start) as u32, range.len() as u32),
                Some(mid) => {
                    let left = nodes.len().max(task.slot + 1);
                    // Reserve the child pair; the tasks below fill it.
                    nodes.resize(left + 2, Node::inner(volume, 0));
                    // Right pushed first so the left subtree is built (and laid out) first.
                    stack.push(Task {
                        start: task.start + mid,
                        end: task.end,
                        slot: left + 1,
                    });
                    stack.push(Task {
                        start: task.start,
                        end: task.start + mid,
                        slot: left,
                    });
                    Node::inner(volume, left as u32)
                }
            };
            if task.slot == nodes.len() {
                nodes.push(node);
            } else {
                nodes[task.slot] = node;
            }
        }
        nodes
    }

    /// One pass over `ids`: the node's box and its centroids' box.
    fn summarize(&self, ids: &[PrimRef]) -> NodeSummary {
        let (mut node_box, mut centroid_bounds) = (Bounds::EMPTY, Bounds::EMPTY);
        for p in ids {
            node_box = node_box.union(&p.bounds);
            centroid_bounds = centroid_bounds.including(&p.centroid());
        }
        NodeSummary {
            node_box,
            centroid_bounds,
        }
    }

    /// The node volume around the triangles `ids`: straight from the node box
    /// when the volume is that box (AABB trees skip the triangle pass),
    /// otherwise fitted to the gathered triangles.
    fn fit<V: BoundingVolume>(&mut self, ids: &[PrimRef], summary: &NodeSummary) -> V {
        if let Some(volume) = V::from_triangle_boxes(&summary.node_box.to_aabb()) {
            return volume;
        }
        let mesh = self.mesh;
        self.scratch.clear();
        self.scratch
            .extend(ids.iter().map(|p| mesh.triangle(TriangleId(p.id))));
        V::fit(&self.scratch, self.options.obb_fit)
    }

    /// Reorders `ids` into two non-empty halves and returns the size of the
    /// first, or `None` to make a leaf.
    fn split<V: BoundingVolume>(
        &mut self,
        volume: &V,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
    ) -> Option<usize> {
        let n = ids.len();
        let max_leaf = self.options.max_leaf_size.max(1) as usize;
        if n <= 1 {
            return None;
        }
        let mid = match self.options.split {
            SplitRule::Sah { bins } => {
                let bins = (bins as usize).clamp(2, MAX_BINS);
                // Small enough nodes become leaves when SAH says a leaf is
                // cheaper; larger ones take the best plane regardless.
                let forced = n > max_leaf;
                match self.sah_split(ids, summary, bins, forced) {
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
    fn mean_split<V: BoundingVolume>(&self, volume: &V, ids: &mut [PrimRef]) -> Option<usize> {
        for axis in volume.split_axes() {
            let mean = ids
                .iter()
                .map(|p| f64::from(dot(&p.centroid(), &axis)))
                .sum::<f64>()
                / ids.len() as f64;
            let mid = partition(ids, |p| f64::from(dot(&p.centroid(), &axis)) < mean);
            if mid > 0 && mid < ids.len() {
                return Some(mid);
            }
        }
        None
    }

    /// The fallback when no plane separates the centroids: order along the
    /// longest axis (ties by id, so the result is deterministic) and halve.
    fn median_split<V: BoundingVolume>(&self, volume: &V, ids: &mut [PrimRef]) -> usize {
        let axis = volume.split_axes()[0];
        let mid = ids.len() / 2;
        ids.select_nth_unstable_by(mid, |a, b| {
            let (pa, pb) = (dot(&a.centroid(), &axis), dot(&b.centroid(), &axis));
            pa.total_cmp(&pb).then(a.id.cmp(&b.id))
        });
        mid
    }

    /// Binned SAH (Wald 2007) over the centroid bounds of `ids`: the size of
    /// the left part after partitioning, or `None` when no plane separates
    /// the centroids or (unless `forced`) a leaf is cheaper than any split.
    /// All three axes are binned in one pass over the triangles.
    fn sah_split(
        &mut self,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
        bin_count: usize,
        forced: bool,
    ) -> Option<usize> {
        let bounds = &summary.centroid_bounds;
        let extent: Lanes = std::array::from_fn(|k| bounds.max[k] - bounds.min[k]);
        // Axes without extent get scale 0: every triangle lands in bin 0 and
        // the sweep below finds no plane there.
        let scale: Lanes = extent.map(|e| if e > 0.0 { bin_count as Real / e } else { 0.0 });
        let last = (bin_count - 1) as Real;
        let bins_of = |c: &Lanes| -> [usize; 3] {
            let f: Lanes = std::array::from_fn(|k| ((c[k] - bounds.min[k]) * scale[k]).min(last));
            [f[0] as usize, f[1] as usize, f[2] as usize]
        };
        let all_bins = &mut *self.bins;
        for axis_bins in all_bins.iter_mut() {
            axis_bins[..bin_count].fill((Bounds::EMPTY, 0));
        }
        for p in ids.iter() {
            let (c, b) = (p.centroid(), &p.bounds);
            let bins = bins_of(&c);
            for axis in 0..3 {
                let bin = &mut all_bins[axis][bins[axis]];
                bin.0 = bin.0.union(b);
                bin.1 += 1;
            }
        }
        let mut best: Option<(Real, usize, usize)> = None;
        for (axis, axis_bins) in all_bins.iter().enumerate() {
            // Right-to-left sweep: area·count of everything from bin s on.
            let mut right_cost = [0.0 as Real; MAX_BINS];
            let (mut acc_box, mut acc_count) = (Bounds::EMPTY, 0u32);
            for s in (1..bin_count).rev() {
                acc_box = acc_box.union(&axis_bins[s].0);
                acc_count += axis_bins[s].1;
                right_cost[s] = acc_box.surface_area() * acc_count as Real;
            }
            let (mut acc_box, mut acc_count) = (Bounds::EMPTY, 0u32);
            for s in 1..bin_count {
                acc_box = acc_box.union(&axis_bins[s - 1].0);
                acc_count += axis_bins[s - 1].1;
                if acc_count == 0 || acc_count as usize == ids.len() {
                    continue;
                }
                let cost = acc_box.surface_area() * acc_count as Real + right_cost[s];
                if best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, axis, s));
                }
            }
        }
        let (cost, axis, split_bin) = best?;
        let node_area = summary.node_box.surface_area();
        let leaf_cost = node_area * ids.len() as Real;
        let split_cost = TRAVERSAL_COST * node_area + cost;
        if !forced && leaf_cost <= split_cost {
            return None;
        }
        let mid = partition(ids, |p| bins_of(&p.centroid())[axis] < split_bin);
        (mid > 0 && mid < ids.len()).then_some(mid)
    }
}

/// Moves the records satisfying `left` to the front (in a deterministic
/// order) and returns how many there are.
fn partition(ids: &mut [PrimRef], left: impl Fn(&PrimRef) -> bool) -> usize {
    let mut mid = 0;
    for k in 0..ids.len() {
        if left(&ids[k]) {
            ids.swap(mid, k);
            mid += 1;
        }
    }
    mid
}

fn dot(c: &Lanes, axis: &Vector) -> Real {
    c[0] * axis.x + c[1] * axis.y + c[2] * axis.z
}
