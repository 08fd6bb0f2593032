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
use crate::math::{Point, Real};
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

/// Per-triangle data the builder reads: centroid and box.
struct Primitives<'a> {
    mesh: &'a TriMesh,
    centroids: Vec<Point>,
    boxes: Vec<Aabb>,
}

/// One builder per thread: shared read-only inputs plus a scratch buffer.
struct Builder<'a> {
    primitives: &'a Primitives<'a>,
    options: &'a BuildOptions,
    scratch: Vec<Triangle>,
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
        let primitives = Primitives::new(mesh);
        let mut order: Vec<u32> = (0..mesh.len() as u32).collect();
        let nodes = build_nodes::<V>(&primitives, options, &mut order);
        let depth = super::tree_depth(&nodes);
        Bvh {
            nodes,
            order,
            depth,
        }
    }
}

impl<'a> Primitives<'a> {
    fn new(mesh: &'a TriMesh) -> Self {
        let boxes: Vec<Aabb> = mesh.triangles().map(|t| t.aabb()).collect();
        let centroids = boxes.iter().map(Aabb::center).collect();
        Primitives {
            mesh,
            centroids,
            boxes,
        }
    }
}

#[cfg(feature = "parallel")]
fn build_nodes<V: BoundingVolume>(
    primitives: &Primitives<'_>,
    options: &BuildOptions,
    order: &mut [u32],
) -> Vec<Node<V>> {
    if options.parallel {
        build_parallel(primitives, options, order, 0, 0)
    } else {
        Builder::new(primitives, options).build_serial(order, 0)
    }
}

#[cfg(not(feature = "parallel"))]
fn build_nodes<V: BoundingVolume>(
    primitives: &Primitives<'_>,
    options: &BuildOptions,
    order: &mut [u32],
) -> Vec<Node<V>> {
    Builder::new(primitives, options).build_serial(order, 0)
}

/// Builds the subtree over `ids` (positions `offset ..` of the leaf order),
/// forking the two children onto the rayon pool while subtrees are large.
#[cfg(feature = "parallel")]
fn build_parallel<V: BoundingVolume>(
    primitives: &Primitives<'_>,
    options: &BuildOptions,
    ids: &mut [u32],
    offset: usize,
    depth: u32,
) -> Vec<Node<V>> {
    let mut builder = Builder::new(primitives, options);
    if ids.len() < PARALLEL_MIN_TRIANGLES || depth >= MAX_PARALLEL_DEPTH {
        return builder.build_serial(ids, offset);
    }
    let volume: V = builder.fit(ids);
    let Some(mid) = builder.split(&volume, ids) else {
        return vec![Node::leaf(volume, offset as u32, ids.len() as u32)];
    };
    let (left_ids, right_ids) = ids.split_at_mut(mid);
    let (left, right) = rayon::join(
        || build_parallel::<V>(primitives, options, left_ids, offset, depth + 1),
        || build_parallel::<V>(primitives, options, right_ids, offset + mid, depth + 1),
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
    fn new(primitives: &'a Primitives<'a>, options: &'a BuildOptions) -> Self {
        Builder {
            primitives,
            options,
            scratch: Vec::new(),
        }
    }

    /// The serial, iterative builder over `ids`, whose first position in the
    /// leaf order is `offset`. Returns the subtree's nodes in preorder.
    fn build_serial<V: BoundingVolume>(&mut self, ids: &mut [u32], offset: usize) -> Vec<Node<V>> {
        let mut nodes: Vec<Node<V>> =
            Vec::with_capacity(2 * ids.len() / self.options.max_leaf_size.max(1) as usize);
        let mut stack = vec![Task {
            start: 0,
            end: ids.len(),
            slot: 0,
        }];
        while let Some(task) = stack.pop() {
            let range = &mut ids[task.start..task.end];
            let volume: V = self.fit(range);
            let node = match self.split(&volume, range) {
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

    /// The node volume around the triangles `ids`.
    fn fit<V: BoundingVolume>(&mut self, ids: &[u32]) -> V {
        let mesh = self.primitives.mesh;
        self.scratch.clear();
        self.scratch
            .extend(ids.iter().map(|&i| mesh.triangle(TriangleId(i))));
        V::fit(&self.scratch, self.options.obb_fit)
    }

    /// Reorders `ids` into two non-empty halves and returns the size of the
    /// first, or `None` to make a leaf.
    fn split<V: BoundingVolume>(&self, volume: &V, ids: &mut [u32]) -> Option<usize> {
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
                match self.sah_split(ids, bins, forced) {
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
    fn mean_split<V: BoundingVolume>(&self, volume: &V, ids: &mut [u32]) -> Option<usize> {
        let centroids = &self.primitives.centroids;
        for axis in volume.split_axes() {
            let mean = ids
                .iter()
                .map(|&i| f64::from(centroids[i as usize].coords.dot(&axis)))
                .sum::<f64>()
                / ids.len() as f64;
            let mid = partition(ids, |i| {
                f64::from(centroids[i as usize].coords.dot(&axis)) < mean
            });
            if mid > 0 && mid < ids.len() {
                return Some(mid);
            }
        }
        None
    }

    /// The fallback when no plane separates the centroids: order along the
    /// longest axis (ties by id, so the result is deterministic) and halve.
    fn median_split<V: BoundingVolume>(&self, volume: &V, ids: &mut [u32]) -> usize {
        let centroids = &self.primitives.centroids;
        let axis = volume.split_axes()[0];
        let mid = ids.len() / 2;
        ids.select_nth_unstable_by(mid, |&a, &b| {
            let (pa, pb) = (
                centroids[a as usize].coords.dot(&axis),
                centroids[b as usize].coords.dot(&axis),
            );
            pa.total_cmp(&pb).then(a.cmp(&b))
        });
        mid
    }

    /// Binned SAH (Wald 2007) over the centroid bounds of `ids`: the size of
    /// the left part after partitioning, or `None` when no plane separates
    /// the centroids or (unless `forced`) a leaf is cheaper than any split.
    fn sah_split(&self, ids: &mut [u32], bin_count: usize, forced: bool) -> Option<usize> {
        let Primitives {
            centroids, boxes, ..
        } = self.primitives;
        let mut bounds = Aabb::EMPTY;
        let mut node_box = Aabb::EMPTY;
        for &i in ids.iter() {
            bounds = bounds.including_point(&centroids[i as usize]);
            node_box = node_box.union(&boxes[i as usize]);
        }
        let mut best: Option<(Real, usize, usize)> = None;
        let extent = bounds.extents();
        for axis in 0..3 {
            if !(extent[axis] > 0.0) {
                continue;
            }
            let scale = bin_count as Real / extent[axis];
            let bin_of = |c: Real| (((c - bounds.min[axis]) * scale) as usize).min(bin_count - 1);
            let mut bin_boxes = [Aabb::EMPTY; MAX_BINS];
            let mut bin_counts = [0u32; MAX_BINS];
            for &i in ids.iter() {
                let b = bin_of(centroids[i as usize][axis]);
                bin_boxes[b] = bin_boxes[b].union(&boxes[i as usize]);
                bin_counts[b] += 1;
            }
            // Right-to-left sweep: area·count of everything from bin s on.
            let mut right_cost = [0.0 as Real; MAX_BINS];
            let (mut acc_box, mut acc_count) = (Aabb::EMPTY, 0u32);
            for s in (1..bin_count).rev() {
                acc_box = acc_box.union(&bin_boxes[s]);
                acc_count += bin_counts[s];
                right_cost[s] = acc_box.surface_area() * acc_count as Real;
            }
            let (mut acc_box, mut acc_count) = (Aabb::EMPTY, 0u32);
            for s in 1..bin_count {
                acc_box = acc_box.union(&bin_boxes[s - 1]);
                acc_count += bin_counts[s - 1];
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
        let node_area = node_box.surface_area();
        let leaf_cost = node_area * ids.len() as Real;
        let split_cost = TRAVERSAL_COST * node_area + cost;
        if !forced && leaf_cost <= split_cost {
            return None;
        }
        let scale = bin_count as Real / extent[axis];
        let mid = partition(ids, |i| {
            let c = centroids[i as usize][axis];
            (((c - bounds.min[axis]) * scale) as usize).min(bin_count - 1) < split_bin
        });
        (mid > 0 && mid < ids.len()).then_some(mid)
    }
}

/// Moves the ids satisfying `left` to the front (in a deterministic order)
/// and returns how many there are.
fn partition(ids: &mut [u32], left: impl Fn(u32) -> bool) -> usize {
    let mut mid = 0;
    for k in 0..ids.len() {
        if left(ids[k]) {
            ids.swap(mid, k);
            mid += 1;
        }
    }
    mid
}
