//! Any-hit and closest-hit kernels over the 4-wide AABB layout.
//!
//! Same contract as the binary kernels in `raycast.rs` (they answer
//! identically; the tests compare both against brute force): the any-hit
//! kernel tests a node's leaves as soon as the ray enters them and pushes
//! inner children unordered; the closest-hit kernel tests leaves first,
//! then pushes the entered inner children farthest first so the nearest is
//! popped next, and drops entries that start beyond the current hit.

use crate::bvh::{ArrayStack, TraversalStack, WideBvh, WideChild};
use crate::math::Real;
use crate::mesh::TriangleId;
use crate::query::MeshTree;
use crate::query::raycast::{PreparedRay, RayHit, prune_slack};

impl<V: crate::bvh::BoundingVolume> MeshTree<V> {
    pub(crate) fn wide_any_hit(
        &self,
        wide: &WideBvh,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        if wide.fits_array_stack() {
            self.wide_any_hit_kernel(wide, ray, skip, &mut ArrayStack::new())
        } else {
            self.wide_any_hit_kernel(wide, ray, skip, &mut Vec::new())
        }
    }

    #[inline(always)]
    fn wide_any_hit_kernel(
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
            let (_, mut mask) = node.ray_entries(&ray.boxes, t_min, t_max);
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                match node.child(lane) {
                    WideChild::Leaf { first, count } => {
                        if let Some(triangle) = self.leaf_any_hit(ray, first, count, skip) {
                            return Some(triangle);
                        }
                    }
                    WideChild::Node(child) => stack.push(child),
                    WideChild::Empty => {}
                }
            }
            index = stack.pop()?;
        }
    }

    pub(crate) fn wide_closest_hit(&self, wide: &WideBvh, ray: &PreparedRay) -> Option<RayHit> {
        if wide.fits_array_stack() {
            self.wide_closest_hit_kernel(wide, ray, &mut ArrayStack::new())
        } else {
            self.wide_closest_hit_kernel(wide, ray, &mut Vec::new())
        }
    }

    #[inline(always)]
    fn wide_closest_hit_kernel(
        &self,
        wide: &WideBvh,
        ray: &PreparedRay,
        stack: &mut impl TraversalStack<(u32, Real)>,
    ) -> Option<RayHit> {
        let nodes = wide.nodes();
        let t_min = ray.t_min;
        let mut t_best = ray.t_max;
        let mut best: Option<RayHit> = None;
        let slack = prune_slack(&ray.boxes, self.coordinate_scale());
        let mut current = (0u32, t_min);
        loop {
            let (index, entry) = current;
            let reach = t_best + slack;
            if entry <= reach {
                let node = &nodes[index as usize];
                let (entries, mut mask) = node.ray_entries(&ray.boxes, t_min, reach);
                // Inner children entered, to be ordered by entry.
                let mut inner: [(u32, Real); 4] = [(0, 0.0); 4];
                let mut inner_count = 0;
                while mask != 0 {
                    let lane = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    match node.child(lane) {
                        WideChild::Leaf { first, count } => {
                            self.leaf_closest_hit(ray, first, count, &mut best, &mut t_best)
                        }
                        WideChild::Node(child) => {
                            inner[inner_count] = (child, entries[lane]);
                            inner_count += 1;
                        }
                        WideChild::Empty => {}
                    }
                }
                let inner = &mut inner[..inner_count];
                // Insertion sort of at most four by entry, then push the farthest first.
                for i in 1..inner.len() {
                    let mut j = i;
                    while j > 0 && inner[j - 1].1 < inner[j].1 {
                        inner.swap(j - 1, j);
                        j -= 1;
                    }
                }
                if let Some((&nearest, farther)) = inner.split_last() {
                    for &entry in farther {
                        stack.push(entry);
                    }
                    current = nearest;
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
