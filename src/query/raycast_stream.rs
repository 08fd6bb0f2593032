//! Batches of rays answered on one thread by interleaving their descents.
//!
//! On a tree larger than the caches a single descent is a chain of
//! dependent memory loads: the next node's address is known only once the
//! current node has arrived, so one query keeps one cache miss in flight at
//! a time and the core mostly waits. A batch has independent queries, so
//! these kernels keep [`IN_FLIGHT`] descents parked side by side and step
//! them in turn, one node visit per step: each step prefetches what its
//! descent will read next (the node it visits next, the triangles of the
//! leaves it entered) and the other descents' steps run while those lines
//! arrive ("asynchronous memory access chaining", Kocberber et al., VLDB
//! 2015; Embree's ray streams serve the same purpose).
//!
//! A descent visits the same nodes and tests the same triangles in the same
//! order as the one-query kernels in `raycast_wide.rs`; only the leaf tests
//! of a node move to the start of its descent's next step, so that their
//! triangles are prefetched first. Answers are therefore exactly those of
//! the one-query calls (any-hit returns the same first blocker; closest-hit
//! answers do not depend on the order anyway).

use crate::bvh::{ParkedStack, TraversalStack, WideLayout, WideNode, set_bits};
use crate::math::Real;
use crate::query::raycast::{CarefulLeaves, LeafHit, PreparedRay, prune_slack};
use crate::query::raycast_wide::{nearest_inner, prefetch_lines, prefetch_node};
use crate::query::{MeshTree, RayHit};
use crate::shape::TriangleId;
use crate::simd::Isa;

/// Descents interleaved at once: enough that the other descents' steps
/// cover a miss to memory before a prefetched line is needed. Measured on
/// the 1.7M-triangle terrain (any-hit, 1M segments): 8 gave 3.2x parry3d's
/// throughput, 16 about 6x, 24 no more; the bunny is no slower at 16.
const IN_FLIGHT: usize = 16;

/// The node of the next step when there is none.
const NO_NODE: u32 = u32::MAX;

/// One parked any-hit descent.
struct AnyHitDescent {
    ray: PreparedRay,
    query: usize,
    /// The node the next step visits (prefetched), or [`NO_NODE`].
    next: u32,
    leaves: PendingLeaves,
    /// Leaves set aside for the exact endpoint decisions at the end.
    careful: CarefulLeaves,
}

/// One parked closest-hit descent.
struct ClosestHitDescent {
    ray: PreparedRay,
    query: usize,
    /// The node the next step visits and its entry parameter.
    next: Option<(u32, Real)>,
    leaves: PendingLeaves,
    best: Option<LeafHit>,
    t_best: Real,
    slack: Real,
    careful: CarefulLeaves,
}

/// The leaves a step entered, tested at the start of its descent's next
/// step (their triangles are prefetched meanwhile).
#[derive(Clone, Copy, Debug, Default)]
struct PendingLeaves {
    node: u32,
    lanes: u32,
    /// Lanes whose box may hold an end of the range (`PreparedRay::ends`).
    at_ends: u32,
}

impl PendingLeaves {
    /// The pending leaves' ranges `(first, count)` of the leaf order, each
    /// with whether its box may hold an end of the range; none remain
    /// pending afterwards.
    #[inline(always)]
    fn take<'n>(
        &mut self,
        nodes: &'n [WideNode<8>],
    ) -> impl Iterator<Item = (u32, u32, bool)> + 'n {
        // The node was visited by the previous step, so it is in cache.
        let node = &nodes[self.node as usize];
        let at_ends = self.at_ends;
        set_bits(u64::from(std::mem::take(&mut self.lanes))).map(move |lane| {
            let (first, count) = node.leaf_range(lane);
            (first, count, at_ends >> lane & 1 != 0)
        })
    }
}

/// The tree's wide layout when interleaving pays: its depth fits the
/// parked fixed stacks, and the arrays a descent reads at random (wide
/// nodes and leaf triangles) outgrow [`INTERLEAVE_FROM_BYTES`]. Below that
/// a descent's misses are served by the shared cache, which one query at a
/// time already overlaps, and parking descents only costs.
pub(super) fn interleavable<V: crate::bvh::BoundingVolume>(
    tree: &MeshTree<V>,
) -> Option<&WideLayout> {
    tree.wide_for(0.0).filter(|w| {
        w.fits_array_stack() && w.bytes() + tree.leaf_triangles_bytes() > INTERLEAVE_FROM_BYTES
    })
}

/// Half of the last-level cache of the machine it was tuned on (32 MiB,
/// shared by its cores). One thread: `TriMesh::city`'s 12.5 MB of nodes
/// and triangles answered closest-hit batches in 338 ns a ray interleaved
/// against 288 ns one at a time, a 300k-triangle terrain's 22 MB in
/// 238–256 against 283–321 ns, the 1.7M-triangle terrain's 130 MB in 293
/// against 427 ns (`docs/performance.md`, Raycasts).
const INTERLEAVE_FROM_BYTES: usize = 16 << 20;

impl<V: crate::bvh::BoundingVolume> MeshTree<V> {
    /// Any-hit for queries `0 .. count`: `ray_of(q)` prepares query `q`
    /// (`None`: no answer is given for it) and `answer(q, blocker)` receives
    /// each result, in completion order.
    pub(crate) fn any_hit_stream(
        &self,
        wide: &WideLayout,
        count: usize,
        ray_of: impl Fn(usize) -> Option<PreparedRay>,
        skip: impl Fn(TriangleId) -> bool,
        mut answer: impl FnMut(usize, Option<TriangleId>),
    ) {
        let nodes = wide.nodes();
        interleave(
            count,
            ray_of,
            |query, ray| AnyHitDescent {
                ray,
                query,
                next: 0,
                leaves: PendingLeaves::default(),
                careful: CarefulLeaves::default(),
            },
            |descent, stack| self.any_hit_step(nodes, descent, stack, &skip),
            |descent: &AnyHitDescent, blocker| answer(descent.query, blocker),
        );
    }

    /// One step of a parked any-hit descent: the previous node's entered
    /// leaves, then one node visit. `Some(answer)` when the descent is over.
    #[inline(always)]
    fn any_hit_step(
        &self,
        nodes: &[WideNode<8>],
        descent: &mut AnyHitDescent,
        stack: &mut ParkedStack<u32>,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<Option<TriangleId>> {
        let ray = &descent.ray;
        for (first, count, careful) in descent.leaves.take(nodes) {
            if careful {
                descent.careful.push(first, count);
            } else if let Some(triangle) = self.leaf_any_hit::<false>(ray, first, count, skip) {
                return Some(Some(triangle));
            }
        }
        let index = descent.next;
        if index == NO_NODE {
            return Some(self.finish_any_hit(descent, skip));
        }
        let node = &nodes[index as usize];
        let spans = node.ray_entries(&ray.boxes, ray.t_min, ray.t_max, ray.ends);
        let entered = spans.entered;
        let leaves = entered & node.leaf_lanes();
        let inner = entered & !leaves;
        let mut stack = stack.resume();
        node.push_inner_children(inner, &mut stack);
        self.prefetch_leaves(node, leaves);
        descent.next = stack.pop().unwrap_or(NO_NODE);
        if let Some(next) = nodes.get(descent.next as usize) {
            prefetch_node(next);
        }
        descent.leaves = PendingLeaves {
            node: index,
            lanes: leaves,
            at_ends: spans.at_ends & leaves,
        };
        (descent.next == NO_NODE && leaves == 0).then(|| self.finish_any_hit(descent, skip))
    }

    /// The answer of an any-hit descent that found nothing on its way:
    /// the leaves it set aside decide.
    #[inline(always)]
    fn finish_any_hit(
        &self,
        descent: &AnyHitDescent,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        if descent.careful.is_empty() {
            None
        } else {
            self.careful_any_hit(&descent.ray, &descent.careful, skip)
        }
    }

    /// Closest hit for queries `0 .. count`, as [`MeshTree::any_hit_stream`],
    /// with the box tests on `isa` (inlined, so that an AVX2 caller's
    /// descents are AVX2 code).
    #[inline(always)]
    pub(crate) fn closest_hit_stream<I: Isa>(
        &self,
        isa: I,
        wide: &WideLayout,
        count: usize,
        ray_of: impl Fn(usize) -> Option<PreparedRay>,
        mut answer: impl FnMut(usize, Option<RayHit>),
    ) {
        let nodes = wide.nodes();
        interleave(
            count,
            ray_of,
            |query, ray| ClosestHitDescent {
                next: Some((0, ray.t_min)),
                t_best: ray.t_max,
                slack: prune_slack(&ray.boxes, self.coordinate_scale()),
                ray,
                query,
                leaves: PendingLeaves::default(),
                best: None,
                careful: CarefulLeaves::default(),
            },
            |descent, stack| {
                self.closest_hit_step(isa, nodes, descent, stack)
                    .then(|| descent.best.map(|best| self.ray_hit(best)))
            },
            |descent: &ClosestHitDescent, hit| answer(descent.query, hit),
        );
    }

    /// One step of a parked closest-hit descent: the previous node's entered
    /// leaves, then the next node not beyond the current hit. True when the
    /// descent is over (its answer is `descent.best`).
    #[inline(always)]
    fn closest_hit_step<I: Isa>(
        &self,
        isa: I,
        nodes: &[WideNode<8>],
        descent: &mut ClosestHitDescent,
        stack: &mut ParkedStack<(u32, Real)>,
    ) -> bool {
        let ray = &descent.ray;
        for (first, count, careful) in descent.leaves.take(nodes) {
            if careful {
                descent.careful.push(first, count);
            } else {
                let (best, t_best) = (&mut descent.best, &mut descent.t_best);
                self.leaf_closest_hit::<false>(ray, first, count, best, t_best);
            }
        }
        let reach = descent.t_best + descent.slack;
        let mut stack = stack.resume();
        // Entries beyond the current hit are dropped without reading their nodes.
        let mut next = descent.next;
        while let Some((_, entry)) = next
            && entry > reach
        {
            next = stack.pop();
        }
        let Some((index, _)) = next else {
            self.finish_closest_hit(descent);
            return true;
        };
        let node = &nodes[index as usize];
        let spans = node.ray_entries_on(isa, &ray.boxes, ray.t_min, reach, ray.ends);
        let (entries, entered) = (&spans.enter, spans.entered);
        let leaves = entered & node.leaf_lanes();
        let inner = entered & !leaves;
        self.prefetch_leaves(node, leaves);
        descent.next = if inner != 0 {
            Some(nearest_inner(node, entries, inner, &mut stack))
        } else {
            stack.pop()
        };
        if let Some((next, _)) = descent.next {
            prefetch_node(&nodes[next as usize]);
        }
        descent.leaves = PendingLeaves {
            node: index,
            lanes: leaves,
            at_ends: spans.at_ends & leaves,
        };
        let over = descent.next.is_none() && leaves == 0;
        if over {
            self.finish_closest_hit(descent);
        }
        over
    }

    /// Folds the leaves a closest-hit descent set aside into its answer.
    #[inline(always)]
    fn finish_closest_hit(&self, descent: &mut ClosestHitDescent) {
        if !descent.careful.is_empty() {
            let (best, t_best) = (&mut descent.best, &mut descent.t_best);
            self.careful_closest_hit(&descent.ray, &descent.careful, best, t_best);
        }
    }

    /// Asks the cache for the triangles of the leaves in `lanes` of `node`.
    #[inline(always)]
    fn prefetch_leaves(&self, node: &WideNode<8>, lanes: u32) {
        for lane in set_bits(u64::from(lanes)) {
            let (first, count) = node.leaf_range(lane);
            prefetch_lines(self.leaf_ray_triangles(first, count));
        }
    }
}

/// Runs the descents of queries `0 .. count` side by side until all are
/// over: up to [`IN_FLIGHT`] at once, each made by `begin` from a query
/// that has a ray, advanced in turn by `step` (one node visit,
/// `Some(answer)` when it is over) and replaced by the next when it ends.
#[inline(always)]
fn interleave<D, E: Copy + Default, A>(
    count: usize,
    ray_of: impl Fn(usize) -> Option<PreparedRay>,
    mut begin: impl FnMut(usize, PreparedRay) -> D,
    mut step: impl FnMut(&mut D, &mut ParkedStack<E>) -> Option<A>,
    mut answer: impl FnMut(&D, A),
) {
    let mut queries = 0..count;
    let mut start = || queries.find_map(|q| ray_of(q).map(|ray| begin(q, ray)));
    // Fixed arrays: a batch allocates nothing. `start` gives `None` once
    // the queries run out, so the live descents are the first `live` slots.
    let mut descents: [Option<D>; IN_FLIGHT] = std::array::from_fn(|_| start());
    let mut live = descents.iter().take_while(|d| d.is_some()).count();
    // The stacks live apart from the rest of the state, so starting a
    // query does not rewrite a whole array.
    let mut stacks: [ParkedStack<E>; IN_FLIGHT] = std::array::from_fn(|_| ParkedStack::new());
    while live > 0 {
        let mut slot = 0;
        while slot < live {
            let Some(descent) = descents[slot].as_mut() else {
                unreachable!("the first `live` slots hold descents")
            };
            let Some(result) = step(descent, &mut stacks[slot]) else {
                slot += 1;
                continue;
            };
            answer(descent, result);
            descents[slot] = start();
            stacks[slot].clear();
            if descents[slot].is_some() {
                slot += 1;
            } else {
                live -= 1;
                descents.swap(slot, live);
                stacks.swap(slot, live);
            }
        }
    }
}
