//! Any-hit and closest-hit kernels over the 4-wide AABB layout.
//!
//! Same contract as the binary kernels in `raycast.rs` (they answer
//! identically; the tests compare both against brute force): the any-hit
//! kernel tests a node's leaves as soon as the ray enters them, moves on to
//! one entered inner child and pushes the others unordered; the
//! closest-hit kernel tests leaves first, moves on to the nearest entered
//! inner child and pushes the others farthest first, and drops entries
//! that start beyond the current hit.

use crate::bvh::{ARRAY_STACK_DEPTH, ArrayStack, TraversalStack, WideBvh, WideNode};
use crate::math::Real;
use crate::mesh::TriangleId;
use crate::query::MeshTree;
use crate::query::raycast::{LeafHit, PreparedRay, prune_slack};

impl<V: crate::bvh::BoundingVolume> MeshTree<V> {
    pub(crate) fn wide_any_hit(
        &self,
        wide: &WideBvh,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        match (wide.fits_array_stack(), wide.outgrows_cache()) {
            (true, false) => self.wide_any_hit_kernel::<false>(
                wide,
                ray,
                skip,
                &mut ArrayStack::new(&mut [0; ARRAY_STACK_DEPTH]),
            ),
            (true, true) => self.wide_any_hit_kernel::<true>(
                wide,
                ray,
                skip,
                &mut ArrayStack::new(&mut [0; ARRAY_STACK_DEPTH]),
            ),
            (false, _) => self.wide_any_hit_kernel::<true>(wide, ray, skip, &mut Vec::new()),
        }
    }

    #[inline(always)]
    fn wide_any_hit_kernel<const PREFETCH: bool>(
        &self,
        wide: &WideBvh,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
        stack: &mut impl TraversalStack<u32>,
    ) -> Option<TriangleId> {
        let nodes = wide.nodes();
        let (t_min, t_max) = (ray.t_min, ray.t_max);
        let mut index = 0u32;
        loop {
            let node = &nodes[index as usize];
            let (_, entered) = node.ray_entries(&ray.boxes, t_min, t_max);
            let leaves = entered & node.leaf_lanes();
            let inner = entered & !leaves;
            // The highest entered inner lane is visited next, straight from
            // this node; the others go on the stack unordered and without
            // branches (which lanes a ray enters is close to random). Same
            // order as pushing all four and popping, minus a store and a
            // reload on the path to the next node (bunny, alternating runs:
            // 151–155 → 147–148 ns).
            let top = (31 - (inner | 1).leading_zeros()) as usize;
            let others = inner & !(1 << top);
            for lane in 0..4 {
                stack.push_if(node.inner_child(lane), others >> lane & 1 != 0);
            }
            if PREFETCH {
                self.prefetch_ahead(nodes, node, inner);
            }
            let mut leaves = leaves;
            while leaves != 0 {
                let lane = leaves.trailing_zeros() as usize;
                leaves &= leaves - 1;
                let (first, count) = node.leaf_range(lane);
                if let Some(triangle) = self.leaf_any_hit(ray, first, count, skip) {
                    return Some(triangle);
                }
            }
            index = if inner != 0 {
                node.inner_child(top)
            } else {
                stack.pop()?
            };
        }
    }

    pub(crate) fn wide_closest_hit(&self, wide: &WideBvh, ray: &PreparedRay) -> Option<LeafHit> {
        match (wide.fits_array_stack(), wide.outgrows_cache()) {
            (true, false) => self.wide_closest_hit_kernel::<false>(
                wide,
                ray,
                &mut ArrayStack::new(&mut [(0, 0.0); ARRAY_STACK_DEPTH]),
            ),
            (true, true) => self.wide_closest_hit_kernel::<true>(
                wide,
                ray,
                &mut ArrayStack::new(&mut [(0, 0.0); ARRAY_STACK_DEPTH]),
            ),
            (false, _) => self.wide_closest_hit_kernel::<true>(wide, ray, &mut Vec::new()),
        }
    }

    #[inline(always)]
    fn wide_closest_hit_kernel<const PREFETCH: bool>(
        &self,
        wide: &WideBvh,
        ray: &PreparedRay,
        stack: &mut impl TraversalStack<(u32, Real)>,
    ) -> Option<LeafHit> {
        let nodes = wide.nodes();
        let t_min = ray.t_min;
        let mut t_best = ray.t_max;
        let mut best: Option<LeafHit> = None;
        let slack = prune_slack(&ray.boxes, self.coordinate_scale());
        let mut current = (0u32, t_min);
        loop {
            let (index, entry) = current;
            let reach = t_best + slack;
            if entry <= reach {
                let node = &nodes[index as usize];
                let (entries, entered) = node.ray_entries(&ray.boxes, t_min, reach);
                let leaves = entered & node.leaf_lanes();
                let mut pending = leaves;
                while pending != 0 {
                    let lane = pending.trailing_zeros() as usize;
                    pending &= pending - 1;
                    let (first, count) = node.leaf_range(lane);
                    self.leaf_closest_hit(ray, first, count, &mut best, &mut t_best);
                }
                let inner = entered & !leaves;
                if PREFETCH {
                    self.prefetch_ahead(nodes, node, inner);
                }
                if inner != 0 {
                    current = nearest_inner(node, &entries, inner, stack);
                    continue;
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return best,
            }
        }
    }
}

/// Pushes all entered inner children but the nearest, farthest first,
/// and returns the nearest. One entered child needs no order and two need
/// one comparison (the most frequent cases: handling two apart from the
/// network measured bunny closest-hit 242 -> 223 ns); three or four go
/// through a five-comparison network over the four lanes, with lanes not
/// entered keyed at +∞ so they sink to the end and are not pushed.
#[inline(always)]
pub(crate) fn nearest_inner(
    node: &WideNode,
    entries: &[Real; 4],
    inner: u32,
    stack: &mut impl TraversalStack<(u32, Real)>,
) -> (u32, Real) {
    if inner & (inner - 1) == 0 {
        let lane = inner.trailing_zeros() as usize;
        return (node.inner_child(lane), entries[lane]);
    }
    let count = inner.count_ones();
    if count == 2 {
        let first = inner.trailing_zeros() as usize;
        let second = (inner & (inner - 1)).trailing_zeros() as usize;
        let (a, b) = (
            (node.inner_child(first), entries[first]),
            (node.inner_child(second), entries[second]),
        );
        let (near, far) = if b.1 < a.1 { (b, a) } else { (a, b) };
        stack.push(far);
        return near;
    }
    let key = |lane: usize| {
        let entry = if inner >> lane & 1 != 0 {
            entries[lane]
        } else {
            Real::INFINITY
        };
        (node.inner_child(lane), entry)
    };
    let mut keyed = [key(0), key(1), key(2), key(3)];
    for (i, j) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
        let (a, b) = (keyed[i], keyed[j]);
        let swap = b.1 < a.1;
        keyed[i] = if swap { b } else { a };
        keyed[j] = if swap { a } else { b };
    }
    stack.push_if(keyed[3], count >= 4);
    stack.push_if(keyed[2], count >= 3);
    stack.push(keyed[1]);
    keyed[0]
}

impl<V: crate::bvh::BoundingVolume> MeshTree<V> {
    /// Asks the cache for what the descent may read in its next two levels:
    /// the entered inner children, their inner children, and, for children
    /// whose children are all leaves, those leaves' triangles. On trees
    /// larger than the caches one descent is a chain of dependent misses,
    /// and asking ahead overlaps each level's latency with the one before
    /// (1.7M-triangle terrain, one query at a time, alternating runs:
    /// children's children any-hit 545–584 → 459–561 ns and closest hit
    /// 574–630 → 489–514 ns; the leaf triangles then 444–476 → 404–420 ns
    /// and 492–524 → 460–472 ns). A hint only.
    #[inline(always)]
    fn prefetch_ahead(&self, nodes: &[WideNode], node: &WideNode, inner: u32) {
        let mut pending = inner;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            prefetch_node(&nodes[node.inner_child(lane) as usize]);
            let (first, count) = node.grandchildren(lane);
            prefetch_lines(&nodes[first as usize..(first + count) as usize]);
            let (first, count) = node.grandchild_triangles(lane);
            prefetch_lines(self.leaf_ray_triangles(first, count));
        }
    }
}

/// Asks the cache for a node that will be visited soon (a hint only).
#[inline(always)]
pub(crate) fn prefetch_node(node: &WideNode) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let at: *const i8 = (node as *const WideNode).cast();
        // SAFETY: a prefetch never faults and has no observable effect; both
        // addresses lie inside the 128-byte node that `node` refers to.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(at);
            _mm_prefetch::<_MM_HINT_T0>(at.add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
}

/// Asks the cache for every 64-byte line that `items` touches (a hint only).
#[inline(always)]
pub(crate) fn prefetch_lines<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let Some(last) = std::mem::size_of_val(items).checked_sub(1) else {
            return;
        };
        let start: *const i8 = items.as_ptr().cast();
        let lines = ((start as usize & 63) + last) / 64;
        for line in 0..=lines {
            // SAFETY: a prefetch never faults and has no observable effect;
            // every address is inside a cache line that `items` touches.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(64 * line)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}
