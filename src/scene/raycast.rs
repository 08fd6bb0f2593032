//! Raycasts over a scene: the top level in world space, each candidate
//! object in its own frame by its own tree's kernels.
//!
//! A span keeps its parameter range in every frame (an affine map keeps the
//! parameter of every point), so a closest-hit descent hands each object
//! the best `t` found so far as its upper limit. The top level is pruned
//! like a mesh tree: padded slab tests, and boxes kept up to the best `t`
//! plus a slack relative to the origin's, the hit's and the meshes' own
//! coordinates ([`HitSlack`]).

use crate::bounding_volume::Aabb;
use crate::bvh::WideNode;
use crate::bvh::{
    ArrayStack, BoundingVolume, TraversalRay, TraversalStack, Visit, set_bits, stack_items,
};
use crate::math::{Point, Real, is_finite_point};
use crate::query::batch::{Threads, fill_batch};
use crate::query::line_of_sight::sight_span;
use crate::query::raycast::{PreparedRay, prune_slack};
use crate::query::{RayHit, SightOptions, Visibility};
use crate::scene::NodeEntries;
use crate::scene::object::Object;
use crate::scene::top_tree::TopTree;
use crate::simd::{Avx2, Baseline, Isa, avx2_fn};

/// End thresholds that flag no box: the top level needs no endpoint flags
/// (each object's own descent decides its ends exactly).
const NO_ENDS: [Real; 2] = [Real::NEG_INFINITY, Real::INFINITY];
use crate::scene::{Filter, ObjectId, Scene, with_tree};
use crate::shape::{Ray, RaySpan, Segment, TriangleId};

/// A triangle of a scene object: the answer of any-hit queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SceneTriangle {
    /// The object.
    pub object: ObjectId,
    /// The triangle, an id of the object's mesh.
    pub triangle: TriangleId,
}

/// Where a ray or segment hits a scene: the object and the hit, whose `t`
/// is the world span's parameter and whose normal is in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneHit {
    /// The object hit.
    pub object: ObjectId,
    /// The hit on the object's mesh (triangle id of that mesh; world normal).
    pub hit: RayHit,
}

impl SceneHit {
    /// The object and triangle hit.
    #[must_use]
    pub fn triangle(&self) -> SceneTriangle {
        SceneTriangle {
            object: self.object,
            triangle: self.hit.triangle,
        }
    }

    /// The order of answers: by `t`, ties by object, then triangle, so
    /// answers do not depend on the trees' shapes.
    fn precedes(&self, other: &SceneHit) -> bool {
        (self.hit.t, self.object, self.hit.triangle)
            < (other.hit.t, other.object, other.hit.triangle)
    }
}

/// True when the span has no NaN or infinite input (and a range).
#[inline(always)]
fn usable(span: &RaySpan) -> bool {
    let finite_end = span.end.as_ref().is_none_or(is_finite_point);
    span.ray.is_finite() & finite_end & (span.t_min <= span.t_max)
}

impl Object {
    /// The object's hit in world terms: its id, the normal turned by the pose.
    fn world_hit(&self, object: ObjectId, hit: RayHit) -> SceneHit {
        SceneHit {
            object,
            hit: RayHit {
                normal: self.pose.rotation * hit.normal,
                ..hit
            },
        }
    }
}

/// How far beyond the best hit's `t` a closest-hit descent still asks
/// objects, so that one whose hit rounds to the same or a smaller `t`
/// reaches the tie rule: an object's `t` comes from the span mapped into
/// its frame, off by a few `u` of the coordinates there over `|d|`, which
/// are at most the origin's, the hit point's (`|o| + t |d|`) and the
/// mesh's own: `64 ε (|o|∞ + s) / |d|∞ + 64 ε |t|`, with `s` the largest
/// mesh coordinate in the objects' own frames ([`Scene::mesh_scale`]).
/// Not the world's coordinates: one object 1e9 m out made every segment
/// of a 2,000-ball row ask every ball (0.4 → 400 µs).
#[derive(Clone, Copy, Debug)]
struct HitSlack {
    base: Real,
}

impl HitSlack {
    #[inline(always)]
    fn new(ray: &TraversalRay, mesh_scale: Real) -> Self {
        HitSlack {
            base: prune_slack(ray, mesh_scale),
        }
    }

    /// The reach of a best hit at `t`.
    #[inline(always)]
    fn after(&self, t: Real) -> Real {
        t + (self.base + 64.0 * Real::EPSILON * t.abs())
    }
}

impl Scene {
    /// The world span in object `id`'s frame, exactly as the scene's
    /// queries hand it to that object's tree (`None` for an unknown id).
    #[must_use]
    pub fn local_span(&self, id: ObjectId, span: impl Into<RaySpan>) -> Option<RaySpan> {
        let object = self.objects_table().get(id.index())?.as_ref()?;
        Some(object.frame().span(&span.into()))
    }

    /// The first object triangle found that the span touches, with early
    /// exit (occlusion); `None` when nothing the filter accepts blocks it.
    /// Takes what [`crate::MeshTree::any_hit`] takes, with the same
    /// contract per object (endpoints count; NaN input gives `None`).
    ///
    /// Endpoints count in each object's frame: the span is mapped there
    /// (in `f64`, rounded once), so an end computed in world space as
    /// `pose * p` from a point `p` on the object's surface touches it only
    /// where that mapping is exact (the identity rotation or a half turn
    /// about an axis, with a translation the coordinates can hold); under
    /// other poses it may land a rounding error off the surface (mapping
    /// the span with [`Scene::local_span`] rounds the same way). To aim at
    /// an object's surface under any pose, end the segment at `p` itself
    /// in the object's frame and ask its tree: with `local` the span from
    /// [`Scene::local_span`], `tree.any_hit(Segment::new(local.ray.origin,
    /// p))`.
    ///
    /// The mapped span's ends round by about `u` of their distance from the
    /// object's origin. Objects' world boxes are padded by `64 ε` of their
    /// centre, which covers that for spans up to about a hundred times the
    /// object's distance from the world's origin; for longer spans (a ray
    /// from a kilometre away at an object near the origin), an object the
    /// span misses in world space by less than that rounding may be pruned
    /// where its own query on the mapped span would report a grazing hit.
    #[must_use]
    pub fn any_hit(&self, span: impl Into<RaySpan>, filter: &Filter) -> Option<SceneTriangle> {
        self.any_hit_in(span.into(), filter, None)
    }

    /// Any hit, skipping triangles that `options` ignores when given. The
    /// span is taken by value: by reference, the caller's fresh copy of it
    /// was read back by loads straddling its stores (`perf annotate`: a
    /// quarter of this function's samples), which the CPU cannot forward.
    #[inline(always)]
    fn any_hit_in(
        &self,
        span: RaySpan,
        filter: &Filter,
        options: Option<&SightOptions>,
    ) -> Option<SceneTriangle> {
        let span = &span;
        if !usable(span) {
            return None;
        }
        // Made in place: moved out of an `Option`, the box-test ray was
        // copied through stores its first reads straddled (store-forwarding
        // stalls, a fifth of a town query's set-up in `perf annotate`).
        let ray = TraversalRay::new(&span.ray);
        // The answer as separate words, each written and read whole (as an
        // `Option`, the closure's stores were read back straddled).
        let (mut found, mut object_found, mut triangle_found) = (false, 0, TriangleId(0));
        self.visit_along(
            &ray,
            span,
            |index, object| {
                let id = ObjectId(index);
                if !filter.accepts(id, object.layers) {
                    return Visit::Continue;
                }
                let local = object.frame().span(span);
                let hit = match options {
                    Some(options) => {
                        let Some(prepared) =
                            PreparedRay::with_end(&local.ray, local.end, local.t_min, local.t_max)
                        else {
                            return Visit::Continue;
                        };
                        with_tree!(&object.mesh, tree => tree.any_hit_prepared(&prepared, |t| options.ignores(t)))
                    }
                    None => with_tree!(&object.mesh, tree => tree.any_hit(local)),
                };
                match hit {
                    Some(triangle) => {
                        (found, object_found, triangle_found) = (true, index, triangle);
                        Visit::Stop
                    }
                    None => Visit::Continue,
                }
            },
        );
        found.then_some(SceneTriangle {
            object: ObjectId(object_found),
            triangle: triangle_found,
        })
    }

    /// The closest hit along the span over the objects the filter accepts
    /// (ties at equal `t` go to the lower object id, then triangle id).
    #[must_use]
    pub fn closest_hit(&self, span: impl Into<RaySpan>, filter: &Filter) -> Option<SceneHit> {
        let span = span.into();
        if !usable(&span) {
            return None;
        }
        let ray = TraversalRay::new(&span.ray);
        let slack = HitSlack::new(&ray, self.mesh_scale());
        let mut best: Option<SceneHit> = None;
        if let Some(top) = self.top_for(span.t_min) {
            for &(index, world_box) in self.unindexed() {
                let object = self.objects_table()[index as usize].as_ref().expect("live");
                if world_box.ray_entry(&ray, span.t_min, span.t_max).is_some() {
                    self.offer_closest(index, object, &span, filter, &mut best, slack);
                }
            }
            match Avx2::detect() {
                Some(avx2) => closest_descent_avx2(avx2, self, top, &ray, &span, filter, &mut best),
                None => {
                    self.closest_descent(Baseline::default(), top, &ray, &span, filter, &mut best)
                }
            }
        } else {
            // A top level too deep for the fixed stack (or none), or a span
            // starting before its origin: every object the ray enters,
            // unordered, each asked only when its box starts before the
            // best hit so far.
            self.visit_objects(
                |b: &Aabb| b.ray_entry(&ray, span.t_min, span.t_max).is_some(),
                |index, object| {
                    let reach = best
                        .map_or(span.t_max, |b| slack.after(b.hit.t))
                        .min(span.t_max);
                    if self
                        .box_of(object)
                        .ray_entry(&ray, span.t_min, reach)
                        .is_some()
                    {
                        self.offer_closest(index, object, &span, filter, &mut best, slack);
                    }
                    Visit::Continue
                },
            );
        }
        best
    }

    /// Asks object `index` for its closest hit before the best so far.
    #[inline(always)]
    fn offer_closest(
        &self,
        index: u32,
        object: &Object,
        span: &RaySpan,
        filter: &Filter,
        best: &mut Option<SceneHit>,
        slack: HitSlack,
    ) {
        let id = ObjectId(index);
        if !filter.accepts(id, object.layers) {
            return;
        }
        #[cfg(test)]
        crate::test_support::count(crate::test_support::Work::SceneObjectAsked);
        let mut local = object.frame().span(span);
        // Up to the best hit plus the slack, not the best hit itself: a
        // tie at the same rounded `t` must reach `precedes`, and an object
        // decides a range end exactly, which may put it a hair outside.
        if let Some(b) = best {
            local.t_max = slack.after(b.hit.t).min(span.t_max);
        }
        let hit = with_tree!(&object.mesh, tree => tree.closest_hit(local));
        if let Some(hit) = hit {
            let hit = object.world_hit(id, hit);
            if best.is_none_or(|b| hit.precedes(&b)) {
                *best = Some(hit);
            }
        }
    }

    /// The top level a raycast whose range starts at `t_min` descends:
    /// one that fits the fixed stack, and only for `t_min ≥ 0`, as its box
    /// tests pad exits for positive parameters (see `MeshTree::wide_for`).
    /// Otherwise every object's box is tested instead.
    #[inline(always)]
    fn top_for(&self, t_min: Real) -> Option<&TopTree> {
        self.top()
            .filter(|top| top.wide.fits_array_stack() && t_min >= 0.0)
    }

    /// Calls `visit` for every object whose world box the ray enters within
    /// the span's range, until `visit` stops it. Returns `true` when stopped.
    #[inline(always)]
    fn visit_along(
        &self,
        ray: &TraversalRay,
        span: &RaySpan,
        visit: impl FnMut(u32, &Object) -> Visit,
    ) -> bool {
        let Some(top) = self.top_for(span.t_min) else {
            let enter = |b: &Aabb| b.ray_entry(ray, span.t_min, span.t_max).is_some();
            return self.visit_objects(enter, visit);
        };
        match Avx2::detect() {
            Some(avx2) => visit_along_avx2(avx2, self, top, ray, span, visit),
            None => self.visit_along_in(Baseline::default(), top, ray, span, visit),
        }
    }

    /// [`Scene::visit_along`] down the top level on the instruction set `isa`.
    #[inline(always)]
    fn visit_along_in<I: Isa>(
        &self,
        isa: I,
        top: &TopTree,
        ray: &TraversalRay,
        span: &RaySpan,
        mut visit: impl FnMut(u32, &Object) -> Visit,
    ) -> bool {
        let enter = |b: &Aabb| b.ray_entry(ray, span.t_min, span.t_max).is_some();
        for (index, world_box) in self.unindexed() {
            let object = self.objects_table()[*index as usize]
                .as_ref()
                .expect("live");
            if enter(world_box) && visit(*index, object) == Visit::Stop {
                return true;
            }
        }
        let nodes = top.wide.nodes();
        let mut items = stack_items();
        let mut stack = ArrayStack::<u32>::new(&mut items);
        let mut index = 0u32;
        loop {
            let node = &nodes[index as usize];
            let spans = node.ray_entries_on(isa, ray, span.t_min, span.t_max, NO_ENDS);
            let leaves = spans.entered & node.leaf_lanes_on(isa);
            let inner = spans.entered & !leaves;
            // The inner children other than the next are pushed before the
            // objects are asked, so that little lives across those calls.
            node.push_inner_children(inner & inner.wrapping_sub(1), &mut stack);
            // Read before the calls too (lane 7's word when there is no
            // inner child: read, never used).
            let next = node.inner_child(inner.trailing_zeros().min(7) as usize);
            for lane in set_bits(u64::from(leaves)) {
                // The leaf's box, just entered, is its object's.
                let (m, _) = node.leaf_range(lane);
                if let Some(object) = &self.objects_table()[m as usize]
                    && visit(m, object) == Visit::Stop
                {
                    return true;
                }
            }
            if inner == 0 {
                match stack.pop() {
                    Some(next) => index = next,
                    None => return false,
                }
                continue;
            }
            index = next;
        }
    }

    /// The closest-hit descent of the top level ([`Scene::descend_nearest`]
    /// by the children's entry parameters).
    #[inline(always)]
    fn closest_descent<I: Isa>(
        &self,
        isa: I,
        top: &TopTree,
        ray: &TraversalRay,
        span: &RaySpan,
        filter: &Filter,
        best: &mut Option<SceneHit>,
    ) {
        let slack = HitSlack::new(ray, self.mesh_scale());
        let reach = |best: &Option<SceneHit>| {
            best.map_or(span.t_max, |b| slack.after(b.hit.t))
                .min(span.t_max)
        };
        let enter = |node: &WideNode<8>, reach: Real| {
            let spans = node.ray_entries_on(isa, ray, span.t_min, reach, NO_ENDS);
            (spans.entered != 0).then_some(NodeEntries {
                lanes: spans.entered,
                order: spans.enter,
                measure: spans.enter,
            })
        };
        let offer = |at: u32, object: &Object, best: &mut Option<SceneHit>| {
            self.offer_closest(at, object, span, filter, best, slack);
        };
        self.descend_nearest(top, best, reach, enter, |_, _, t| t, offer);
    }

    /// Every hit along the span on the objects the filter accepts, sorted
    /// by `t` (ties by object, then triangle).
    #[must_use]
    pub fn all_hits(&self, span: impl Into<RaySpan>, filter: &Filter) -> Vec<SceneHit> {
        let span = span.into();
        let mut hits = Vec::new();
        if !usable(&span) {
            return hits;
        }
        let ray = TraversalRay::new(&span.ray);
        self.visit_along(&ray, &span, |index, object| {
            let id = ObjectId(index);
            if filter.accepts(id, object.layers) {
                let local = object.frame().span(&span);
                let found = with_tree!(&object.mesh, tree => tree.all_hits(local));
                hits.extend(found.into_iter().map(|hit| object.world_hit(id, hit)));
            }
            Visit::Continue
        });
        hits.sort_by(|a, b| {
            a.hit
                .t
                .total_cmp(&b.hit.t)
                .then(a.object.cmp(&b.object))
                .then(a.hit.triangle.cmp(&b.hit.triangle))
        });
        hits
    }

    /// Whether `target` can be seen from `eye` past the objects the filter
    /// accepts. `options` gives the margins (as for
    /// [`crate::MeshTree::line_of_sight`]); its triangle ignore list, when
    /// not empty, applies to the triangle ids of every object. To keep the
    /// target's own object from hiding it, ignore that object in `filter`.
    #[must_use]
    pub fn line_of_sight(
        &self,
        eye: &Point,
        target: &Point,
        options: &SightOptions,
        filter: &Filter,
    ) -> Visibility<SceneTriangle> {
        match sight_span(eye, target, options) {
            Ok(span) => {
                let ignores = options.ignores_any().then_some(options);
                match self.any_hit_in(span, filter, ignores) {
                    Some(blocker) => Visibility::Blocked(blocker),
                    None => Visibility::Visible,
                }
            }
            Err(answer) => answer,
        }
    }

    /// [`Scene::line_of_sight`] from one eye to many targets, into `out` in
    /// the targets' order (cleared first), on the `threads` chosen; the
    /// answers are those of one call per target.
    pub fn line_of_sight_many(
        &self,
        eye: &Point,
        targets: &[Point],
        options: &SightOptions,
        filter: &Filter,
        threads: Threads,
        out: &mut Vec<Visibility<SceneTriangle>>,
    ) {
        fill_batch(
            out,
            targets.len(),
            Visibility::Visible,
            threads,
            |offset, chunk| {
                for (answer, target) in chunk.iter_mut().zip(&targets[offset..]) {
                    *answer = self.line_of_sight(eye, target, options, filter);
                }
            },
        );
    }

    /// [`Scene::any_hit`] for many segments, into `out` in their order
    /// (cleared first), on the `threads` chosen.
    pub fn segments_any_hit(
        &self,
        segments: &[Segment],
        filter: &Filter,
        threads: Threads,
        out: &mut Vec<Option<SceneTriangle>>,
    ) {
        fill_batch(out, segments.len(), None, threads, |offset, chunk| {
            for (answer, segment) in chunk.iter_mut().zip(&segments[offset..]) {
                *answer = self.any_hit(segment, filter);
            }
        });
    }

    /// [`Scene::closest_hit`] for many rays over `[0, t_max]`, into `out`
    /// in their order (cleared first), on the `threads` chosen.
    pub fn rays_closest_hit(
        &self,
        rays: &[Ray],
        t_max: Real,
        filter: &Filter,
        threads: Threads,
        out: &mut Vec<Option<SceneHit>>,
    ) {
        fill_batch(out, rays.len(), None, threads, |offset, chunk| {
            for (answer, ray) in chunk.iter_mut().zip(&rays[offset..]) {
                *answer = self.closest_hit(ray.span(0.0, t_max), filter);
            }
        });
    }
}

avx2_fn! {
    /// [`Scene::closest_descent`] as AVX2 code: one 8-lane slab test per
    /// top-level node instead of two 4-lane halves.
    fn closest_descent_avx2[](
        avx2: Avx2,
        scene: &Scene,
        top: &TopTree,
        ray: &TraversalRay,
        span: &RaySpan,
        filter: &Filter,
        best: &mut Option<SceneHit>,
    ) -> () {
        scene.closest_descent(avx2, top, ray, span, filter, best)
    }
}

avx2_fn! {
    /// [`Scene::visit_along_in`] as AVX2 code.
    fn visit_along_avx2[](
        avx2: Avx2,
        scene: &Scene,
        top: &TopTree,
        ray: &TraversalRay,
        span: &RaySpan,
        visit: impl FnMut(u32, &Object) -> Visit,
    ) -> bool {
        scene.visit_along_in(avx2, top, ray, span, visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Isometry;
    use crate::mesh::TriMesh;
    use crate::query::MeshTree;
    use crate::shape::Segment;
    use crate::test_support::{Work, counted};
    use std::sync::Arc;

    /// One far object does not widen every other query's reach (a review
    /// found the slack taken from the world's largest coordinate: with a
    /// ball 1e9 m out, a segment along a row of 2,000 balls asked every
    /// one, 0.4 → 400 µs). Counted, not timed: the objects asked along
    /// the row, with and without the far ball, and the same answers as
    /// every object asked alone.
    #[test]
    fn a_far_object_does_not_widen_the_reach_of_others() {
        let ball = Arc::new(MeshTree::<Aabb>::new(TriMesh::icosphere(
            Point::origin(),
            0.5,
            1,
        )));
        let row = |far: Option<Real>| {
            let mut scene = Scene::new();
            for i in 0..2000 {
                let at = Isometry::translation(1.5 * i as Real, 0.0, 0.0);
                scene.add(ball.clone(), at).expect("finite");
            }
            if let Some(x) = far {
                scene
                    .add(ball.clone(), Isometry::translation(x, 0.0, 0.0))
                    .expect("finite");
            }
            scene.update();
            scene
        };
        let along = Segment::new(Point::new(-5.0, 0.01, 0.02), Point::new(4000.0, 0.0, 0.0));
        let mut asked = Vec::new();
        for far in [None, Some(1e7), Some(1e9)] {
            let scene = row(far);
            let (hit, count) = counted(Work::SceneObjectAsked, || {
                scene.closest_hit(along, &Filter::everything())
            });
            let hit = hit.expect("the first ball");
            assert_eq!(hit.object, ObjectId(0), "{far:?}");
            let alone = scene
                .local_span(ObjectId(0), along)
                .and_then(|local| ball.closest_hit(local))
                .expect("its own hit");
            assert_eq!(hit.hit.t, alone.t, "{far:?}");
            asked.push(count);
        }
        assert!(asked[0] <= 4, "{asked:?}");
        assert_eq!(asked[1], asked[0], "{asked:?}");
        assert_eq!(asked[2], asked[0], "{asked:?}");
    }
}
