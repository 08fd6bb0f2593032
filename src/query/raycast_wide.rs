//! Any-hit and closest-hit kernels over the wide AABB layouts (4 or 8 lanes).
//!
//! Same contract as the binary kernels in `raycast.rs` (they answer
//! identically; the tests compare both against brute force): the any-hit
//! kernel tests a node's leaves as soon as the ray enters them, moves on to
//! one entered inner child and pushes the others unordered; the
//! closest-hit kernel tests leaves first, moves on to the nearest entered
//! inner child, pushes the second nearest last (so it is popped next) and
//! the rest beneath it unordered, and drops entries that start beyond the
//! current hit.

use crate::bvh::BoundingVolume;
use crate::bvh::{
    ArrayStack, TraversalStack, WideBvh, WideLayout, WideNode, nearest_first, stack_items,
};
use crate::math::Real;
use crate::query::MeshTree;
use crate::query::raycast::{CarefulLeaves, LeafHit, PreparedRay, prune_slack};
use crate::shape::TriangleId;
use crate::simd::{Avx2, Baseline, Isa, avx2_fn};

impl<V: crate::bvh::BoundingVolume> MeshTree<V> {
    /// The any-hit kernel for a prepared ray, in AVX2 code when the CPU
    /// has it. The public entry points go further and run the whole query,
    /// ray set-up included, in AVX2 code (`MeshTree::any_hit` in `raycast.rs`).
    #[inline(always)]
    pub(crate) fn wide_any_hit(
        &self,
        wide: &WideLayout,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        if let Some(avx2) = Avx2::detect() {
            return wide_any_hit_avx2(avx2, self, wide, ray, skip);
        }
        self.wide_any_hit_in(Baseline::default(), wide, ray, skip)
    }

    #[inline(always)]
    pub(crate) fn wide_any_hit_in<const W: usize, I: Isa>(
        &self,
        isa: I,
        wide: &WideBvh<W>,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        self.wide_any_hit_remaking(isa, wide, ray, &|| *ray, skip)
    }

    /// [`MeshTree::wide_any_hit_in`], with `remake` making the prepared ray
    /// again for the careful pass (see the kernel's end).
    #[inline(always)]
    pub(crate) fn wide_any_hit_remaking<const W: usize, I: Isa>(
        &self,
        isa: I,
        wide: &WideBvh<W>,
        ray: &PreparedRay,
        remake: &impl Fn() -> PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        match (wide.fits_array_stack(), wide.outgrows_cache()) {
            (true, false) => self.wide_any_hit_kernel::<W, I, false>(
                isa,
                wide,
                ray,
                remake,
                skip,
                &mut ArrayStack::new(&mut stack_items()),
            ),
            (true, true) => self.wide_any_hit_kernel::<W, I, true>(
                isa,
                wide,
                ray,
                remake,
                skip,
                &mut ArrayStack::new(&mut stack_items()),
            ),
            (false, _) => self.wide_any_hit_kernel::<W, I, true>(
                isa,
                wide,
                ray,
                remake,
                skip,
                &mut Vec::new(),
            ),
        }
    }

    #[inline(always)]
    fn wide_any_hit_kernel<const W: usize, I: Isa, const PREFETCH: bool>(
        &self,
        isa: I,
        wide: &WideBvh<W>,
        ray: &PreparedRay,
        remake: &impl Fn() -> PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
        stack: &mut impl TraversalStack<u32>,
    ) -> Option<TriangleId> {
        let nodes = wide.nodes();
        let (t_min, t_max) = (ray.t_min, ray.t_max);
        let mut careful = CarefulLeaves::default();
        let mut index = 0u32;
        loop {
            let node = &nodes[index as usize];
            let spans = node.ray_entries(&ray.boxes, t_min, t_max, ray.ends);
            let (entered, at_ends) = (spans.entered, spans.at_ends);
            let leaves = entered & node.leaf_lanes_on(isa);
            let inner = entered & !leaves;
            // The highest entered inner lane is visited next, straight from
            // this node; the others go on the stack unordered and without
            // branches (which lanes a ray enters is close to random). Same
            // order as pushing all four and popping, minus a store and a
            // reload on the path to the next node.
            let top = (31 - (inner | 1).leading_zeros()) as usize;
            let others = inner & !(1 << top);
            node.push_inner_children(others, stack);
            if PREFETCH {
                self.prefetch_ahead(nodes, node, inner);
            }
            let mut leaves = leaves;
            while leaves != 0 {
                let lane = leaves.trailing_zeros() as usize;
                leaves &= leaves - 1;
                let (first, count) = node.leaf_range(lane);
                if at_ends >> lane & 1 != 0 {
                    careful.push(first, count);
                } else if let Some(triangle) = self.leaf_any_hit::<false>(ray, first, count, skip) {
                    return Some(triangle);
                }
            }
            index = if inner != 0 {
                node.inner_child(top)
            } else {
                match stack.pop() {
                    Some(next) => next,
                    None => break,
                }
            };
        }
        if careful.is_empty() {
            None
        } else {
            // Made again (by the single queries from their scalar input; a
            // copy elsewhere), so that the ray's address never leaves the
            // descent and its fields can live in registers: passing `ray`
            // itself kept the prepared ray in memory, filled by copies its
            // first reads stalled on (a query missing the root: 39 → 28 ns),
            // and a copy still made the set-up store every field for the
            // pass that 2% of queries reach (callgrind: 23 instructions a
            // query more than making it again).
            self.careful_any_hit(&remake(), &careful, skip)
        }
    }

    /// The closest-hit kernel for a prepared ray, chosen like
    /// [`MeshTree::wide_any_hit`].
    #[inline(always)]
    pub(crate) fn wide_closest_hit(&self, wide: &WideLayout, ray: &PreparedRay) -> Option<LeafHit> {
        if let Some(avx2) = Avx2::detect() {
            return wide_closest_hit_avx2(avx2, self, wide, ray);
        }
        self.wide_closest_hit_in(Baseline::default(), wide, ray)
    }

    /// The closest-hit kernel on the instruction set `isa`, with the stack
    /// and prefetch policy that suit the layout's size.
    #[inline(always)]
    pub(crate) fn wide_closest_hit_in<const W: usize, I: Isa>(
        &self,
        isa: I,
        wide: &WideBvh<W>,
        ray: &PreparedRay,
    ) -> Option<LeafHit> {
        match (wide.fits_array_stack(), wide.outgrows_cache()) {
            (true, false) => self.wide_closest_hit_kernel::<W, I, false>(
                isa,
                wide,
                ray,
                &mut ArrayStack::new(&mut stack_items()),
            ),
            (true, true) => self.wide_closest_hit_kernel::<W, I, true>(
                isa,
                wide,
                ray,
                &mut ArrayStack::new(&mut stack_items()),
            ),
            (false, _) => {
                self.wide_closest_hit_kernel::<W, I, true>(isa, wide, ray, &mut Vec::new())
            }
        }
    }

    #[inline(always)]
    fn wide_closest_hit_kernel<const W: usize, I: Isa, const PREFETCH: bool>(
        &self,
        isa: I,
        wide: &WideBvh<W>,
        ray: &PreparedRay,
        stack: &mut impl TraversalStack<(u32, Real)>,
    ) -> Option<LeafHit> {
        let nodes = wide.nodes();
        let t_min = ray.t_min;
        let mut t_best = ray.t_max;
        let mut best: Option<LeafHit> = None;
        let mut careful = CarefulLeaves::default();
        let slack = prune_slack(&ray.boxes, self.coordinate_scale());
        let mut current = (0u32, t_min);
        loop {
            let (index, entry) = current;
            let reach = t_best + slack;
            if entry <= reach {
                let node = &nodes[index as usize];
                let spans = node.ray_entries_on(isa, &ray.boxes, t_min, reach, ray.ends);
                let (entries, entered) = (&spans.enter, spans.entered);
                let leaves = entered & node.leaf_lanes_on(isa);
                let mut pending = leaves;
                while pending != 0 {
                    let lane = pending.trailing_zeros() as usize;
                    pending &= pending - 1;
                    let (first, count) = node.leaf_range(lane);
                    if spans.at_ends >> lane & 1 != 0 {
                        careful.push(first, count);
                    } else if entries[lane] <= t_best + slack {
                        self.leaf_closest_hit::<false>(ray, first, count, &mut best, &mut t_best);
                    }
                }
                let inner = entered & !leaves;
                if PREFETCH {
                    self.prefetch_ahead(nodes, node, inner);
                }
                if inner != 0 {
                    current = nearest_inner(node, entries, inner, stack);
                    continue;
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => break,
            }
        }
        if !careful.is_empty() {
            // A copy, as in the any-hit kernel.
            self.careful_closest_hit(&{ *ray }, &careful, &mut best, &mut t_best);
        }
        best
    }
}

avx2_fn! {
    /// [`MeshTree::wide_any_hit_in`] as AVX2 code.
    fn wide_any_hit_avx2[V: BoundingVolume](
        avx2: Avx2,
        tree: &MeshTree<V>,
        wide: &WideLayout,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        tree.wide_any_hit_in(avx2, wide, ray, skip)
    }
}

avx2_fn! {
    /// [`MeshTree::wide_closest_hit_in`] as AVX2 code.
    fn wide_closest_hit_avx2[V: BoundingVolume](
        avx2: Avx2,
        tree: &MeshTree<V>,
        wide: &WideLayout,
        ray: &PreparedRay,
    ) -> Option<LeafHit> {
        tree.wide_closest_hit_in(avx2, wide, ray)
    }
}

/// Returns the nearest entered inner child and pushes the others, the
/// second nearest last (so it is popped next) and the rest in lane order.
/// See [`nearest_first`].
#[inline(always)]
pub(crate) fn nearest_inner<const W: usize>(
    node: &WideNode<W>,
    entries: &[Real; W],
    inner: u32,
    stack: &mut impl TraversalStack<(u32, Real)>,
) -> (u32, Real) {
    nearest_first(
        entries,
        inner,
        |lane| (node.inner_child(lane), entries[lane]),
        stack,
    )
}

impl<V: crate::bvh::BoundingVolume> MeshTree<V> {
    /// Asks the cache for what the descent may read next: the entered
    /// inner children and, for children whose children are all leaves,
    /// those leaves' triangles. On trees larger than the caches one descent
    /// is a chain of dependent misses, and asking ahead overlaps each
    /// level's latency with the one before. Grandchildren are not asked
    /// for: with 8-wide nodes of four lines each, that floods the miss
    /// buffers. A hint only.
    #[inline(always)]
    fn prefetch_ahead<const W: usize>(
        &self,
        nodes: &[WideNode<W>],
        node: &WideNode<W>,
        inner: u32,
    ) {
        let mut pending = inner;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            prefetch_node(&nodes[node.inner_child(lane) as usize]);
            let (first, count) = node.grandchild_triangles(lane);
            prefetch_lines(self.leaf_ray_triangles(first, count));
        }
    }
}

/// Asks the cache for a node that will be visited soon (a hint only).
#[inline(always)]
pub(crate) fn prefetch_node<const W: usize>(node: &WideNode<W>) {
    crate::simd::prefetch(std::slice::from_ref(node));
}

/// Asks the cache for every 64-byte line that `items` touches (a hint only).
#[inline(always)]
pub(crate) fn prefetch_lines<T>(items: &[T]) {
    crate::simd::prefetch(items);
}

#[cfg(test)]
mod tests {
    use super::{nearest_inner, wide_any_hit_avx2, wide_closest_hit_avx2};
    use crate::bounding_volume::Aabb;
    use crate::bvh::{BuildOptions, WideBvh};
    use crate::math::{Point, Vector};
    use crate::mesh::TriMesh;
    use crate::query::MeshTree;
    use crate::query::raycast::{LeafHit, PreparedRay};
    use crate::shape::Ray;
    use crate::simd::{Avx2, Baseline, Portable};
    use crate::test_support::unit_floats;

    /// `(t, triangle)` of a closest hit, for comparing answers exactly.
    fn key(hit: Option<LeafHit>) -> Option<(f32, u32)> {
        hit.map(|h| (h.hit.t, h.triangle.0))
    }

    #[test]
    fn every_kernel_instance_answers_as_brute_force() {
        // A query runs one kernel instance per machine: 8-wide in AVX2 or in
        // baseline code (the 4-wide form is the width parameter's other
        // value). Here every instance answers the same segments on the same
        // small trees, against a test of every triangle; a tenth of the
        // segments are axis-parallel (zero direction components).
        let meshes = [
            TriMesh::random_soup(1500, 4.0, 0.6, 3),
            TriMesh::terrain(30, 10.0, 2.0, 5),
            TriMesh::icosphere(Point::origin(), 1.0, 3),
        ];
        for mesh in meshes {
            let tree = MeshTree::<Aabb>::build(mesh, &BuildOptions::sah());
            let (four, eight) = (
                WideBvh::<4>::from_binary(tree.bvh()),
                WideBvh::<8>::from_binary(tree.bvh()),
            );
            let bounds = tree.mesh().aabb();
            let (center, half) = (bounds.center(), bounds.half_extents() * 1.2);
            let mut rand = unit_floats(0x5eed);
            let mut point = || {
                let mut p = center;
                for axis in 0..3 {
                    p[axis] += half[axis] * (2.0 * rand() - 1.0);
                }
                p
            };
            let (mut hits, mut axis_parallel_hits) = (0, 0);
            for i in 0..3000 {
                let a = point();
                let mut b = point();
                if i % 10 == 0 {
                    let axis = i / 10 % 3;
                    b = a + Vector::ith(axis, b[axis] - a[axis]);
                }
                let prepared = PreparedRay::new(&Ray::new(a, b - a), 0.0, 1.0).unwrap();
                let (mut best, mut t_best) = (None, 1.0);
                let all = tree.mesh().len() as u32;
                tree.leaf_closest_hit::<true>(&prepared, 0, all, &mut best, &mut t_best);
                let expected = key(best);
                hits += usize::from(expected.is_some());
                axis_parallel_hits += usize::from(i % 10 == 0 && expected.is_some());
                let none = |_| false;
                // Every instruction set, at both widths, against brute force.
                for (closest, isa) in [
                    (
                        tree.wide_closest_hit_in(Portable, &four, &prepared),
                        "portable 4",
                    ),
                    (
                        tree.wide_closest_hit_in(Portable, &eight, &prepared),
                        "portable 8",
                    ),
                    (
                        tree.wide_closest_hit_in(Baseline::default(), &eight, &prepared),
                        "baseline 8",
                    ),
                ] {
                    assert_eq!(key(closest), expected, "{isa}, segment {i}");
                }
                let any4 = tree.wide_any_hit_in(Portable, &four, &prepared, &none);
                let any8 = tree.wide_any_hit_in(Baseline::default(), &eight, &prepared, &none);
                assert_eq!(any4.is_some(), expected.is_some(), "4-wide, segment {i}");
                assert_eq!(any8.is_some(), expected.is_some(), "8-wide, segment {i}");
                if let Some(avx2) = Avx2::detect() {
                    let (closest, any) = (
                        wide_closest_hit_avx2(avx2, &tree, &eight, &prepared),
                        wide_any_hit_avx2(avx2, &tree, &eight, &prepared, &none),
                    );
                    assert_eq!(key(closest), expected, "AVX2, segment {i}");
                    assert_eq!(any.is_some(), expected.is_some(), "AVX2, segment {i}");
                }
            }
            assert!(hits > 300 && hits < 2700, "{hits} of 3000 segments hit");
            // The axis-parallel segments reach the hit paths too.
            assert!(axis_parallel_hits > 20, "{axis_parallel_hits} of 300");
        }
    }

    #[test]
    fn nearest_inner_returns_the_nearest_and_pushes_the_runner_up_last() {
        let tree =
            MeshTree::<Aabb>::build(TriMesh::terrain(40, 10.0, 2.0, 5), &BuildOptions::sah());
        let wide = WideBvh::<8>::from_binary(tree.bvh());
        let node = &wide.nodes()[0];
        let mut rand = unit_floats(0x0de4);
        for round in 0..2000 {
            let inner = (round as u32 * 37 + 1) % 255 + 1;
            // Distinct entries, with a tie between two lanes now and then.
            let mut entries: [f32; 8] = std::array::from_fn(|_| rand());
            if round % 5 == 0 {
                entries[3] = entries[6];
            }
            let mut stack = Vec::new();
            let (_, nearest) = nearest_inner(node, &entries, inner, &mut stack);
            let mut by_entry: Vec<(f32, usize)> = (0..8)
                .filter(|lane| inner >> lane & 1 != 0)
                .map(|lane| (entries[lane], lane))
                .collect();
            by_entry.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(nearest, by_entry[0].0, "{inner:08b}");
            assert_eq!(stack.len() + 1, by_entry.len(), "{inner:08b}");
            if let Some(&(_, next)) = stack.last() {
                assert_eq!(next, by_entry[1].0, "{inner:08b}");
            }
            let mut pushed: Vec<f32> = stack.iter().map(|&(_, t)| t).collect();
            pushed.push(nearest);
            pushed.sort_by(f32::total_cmp);
            let expected: Vec<f32> = by_entry.iter().map(|&(t, _)| t).collect();
            assert_eq!(pushed, expected, "{inner:08b}");
        }
    }
}
