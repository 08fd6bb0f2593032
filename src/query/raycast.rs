//! Ray and segment queries: any hit (occlusion), closest hit, all hits.
//!
//! Traversal is iterative with a small inline stack. The any-hit kernel never
//! orders children and stops at the first hit; the closest-hit kernel visits
//! the nearer child first and drops stack entries that start beyond the
//! current hit. Box tests use the reciprocal direction and sign-chosen slab
//! planes prepared once per ray ([`TraversalRay`]), padded by a few ulps
//! (Ize 2013) instead of any absolute epsilon; triangles use the watertight
//! test of Woop, Benthin and Wald (2013), so rays through shared edges and
//! vertices of a closed mesh never slip through.
//!
//! A NaN or infinite origin or direction, a zero-length direction, and
//! NaN range ends give "no hit"; infinite range ends are ranges (`t_max =
//! ∞` is the whole ray, `t_min = −∞` reaches behind the origin).
//! Zero-area triangles never produce hits.

use crate::bvh::{
    ArrayStack, BoundingVolume, NodeId, NodeKind, TraversalRay, TraversalStack, Visit, WideLayout,
    stack_items,
};
use crate::intersect::{TriangleHit, WatertightRay, end_thresholds};
use crate::math::{Point, Real, Vector};
use crate::query::frame::LocalFrame;
use crate::query::{MeshTree, PlacedMesh};
use crate::shape::TriangleId;
use crate::shape::{Ray, RaySpan, Segment};
use crate::simd::{Avx2, avx2_fn};

/// Where a ray or segment hits a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Ray parameter of the hit, in units of the ray direction (for a segment,
    /// the fraction of the way from `a` to `b`).
    pub t: Real,
    /// The triangle hit.
    pub triangle: TriangleId,
    /// Barycentric weights `[w_a, w_b, w_c]` of the triangle's vertices at the hit.
    pub barycentric: [Real; 3],
    /// Unit geometric normal `(b − a) × (c − a)` normalised, in the query's frame.
    pub normal: Vector,
    /// True when the ray arrived against the normal.
    pub front_face: bool,
}

/// How far (in `t`) beyond the current closest hit boxes are still visited.
///
/// A box's entry parameter and a triangle's hit parameter are rounded by
/// different formulas, each with an error of a few ulps of the *coordinates*
/// involved divided by the direction (seen on FCL's `rob.obj`: a box entry
/// at 0.00025717766 after a hit inside it at 0.00025715283, the origin 0.08
/// from a plane at z = 375). Keeping boxes up to `t_best + slack` with
/// `slack = 64 ε (|o|∞ + |mesh|∞) / |d|∞` keeps every such triangle; the
/// bound is relative to the scene's coordinates, never an absolute epsilon.
///
/// `1 / |d|∞` is taken as the least `|1 / dᵢ|` of the prepared reciprocals
/// (equal to it but for a few ulps where the reciprocal is subnormal, well
/// inside the factor 64; infinite, so conservative, for an all-subnormal
/// direction): no division per query.
#[inline(always)]
pub(crate) fn prune_slack(ray: &TraversalRay, coordinate_scale: Real) -> Real {
    let largest = |v: &Vector| v.x.abs().max(v.y.abs()).max(v.z.abs());
    let inverse = &ray.inverse_direction;
    let least_inverse = inverse.x.abs().min(inverse.y.abs()).min(inverse.z.abs());
    64.0 * Real::EPSILON * (largest(&ray.origin.coords) + coordinate_scale) * least_inverse
}

/// A hit on a leaf triangle, before its normal is computed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeafHit {
    pub(crate) hit: TriangleHit,
    /// Position of the triangle in the leaf order.
    pub(crate) position: usize,
    pub(crate) triangle: TriangleId,
}

/// Leaves whose box may hold an end of the range, set aside by the 8-wide
/// descents and tested with the exact endpoint decisions once the descent
/// is over: a call inside a descent loop, even on a rarely taken path,
/// makes the loop keep its vector values in memory (x86-64 has no
/// callee-saved vector registers). A point lies in few leaf boxes, so a
/// handful of slots suffice; on overflow the query is answered again by
/// the binary tree, carefully.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CarefulLeaves {
    ranges: [(u32, u32); CAREFUL_SLOTS],
    /// Leaves set aside, which may exceed the slots.
    len: usize,
}

const CAREFUL_SLOTS: usize = 6;

impl CarefulLeaves {
    #[inline(always)]
    pub(crate) fn push(&mut self, first: u32, count: u32) {
        if let Some(slot) = self.ranges.get_mut(self.len) {
            *slot = (first, count);
        }
        self.len += 1;
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn overflowed(&self) -> bool {
        self.len > CAREFUL_SLOTS
    }

    fn ranges(&self) -> &[(u32, u32)] {
        &self.ranges[..self.len.min(CAREFUL_SLOTS)]
    }
}

/// A ray prepared for both box and triangle tests, with its parameter range.
#[derive(Clone, Copy)]
pub(crate) struct PreparedRay {
    pub(crate) boxes: TraversalRay,
    pub(crate) triangles: WatertightRay,
    pub(crate) t_min: Real,
    pub(crate) t_max: Real,
    /// [`end_thresholds`] of the range: which boxes may hold an end.
    pub(crate) ends: [Real; 2],
}

impl PreparedRay {
    /// `ray` over `[t_min, t_max]`; `None` for an empty or NaN range and for
    /// rays that can hit nothing (see [`WatertightRay::new`]).
    #[inline(always)]
    pub(crate) fn new(ray: &Ray, t_min: Real, t_max: Real) -> Option<Self> {
        Self::with_end(ray, None, t_min, t_max)
    }

    /// The segment `a → b` over `[t_min, t_max] ⊆ [0, 1]`: `b` itself is the
    /// exact point at `t = 1` (see [`WatertightRay::from_segment`]).
    #[inline(always)]
    pub(crate) fn segment(segment: &Segment, t_min: Real, t_max: Real) -> Option<Self> {
        Self::with_end(&segment.to_ray(), Some(segment.b), t_min, t_max)
    }

    /// `ray` over `[t_min, t_max]`, with `end` (when given) as the exact point at `t = 1`.
    #[inline(always)]
    pub(crate) fn with_end(
        ray: &Ray,
        end: Option<Point>,
        t_min: Real,
        t_max: Real,
    ) -> Option<Self> {
        let (prepared, usable) = Self::prepare(ray, end, t_min, t_max);
        usable.then_some(prepared)
    }

    /// [`PreparedRay::with_end`] computed whatever the input, beside
    /// whether it is usable: the single queries' set-up, which then uses
    /// the value where it was made (moving it out of an `Option` copied it
    /// through stores that its first reads could not be forwarded from).
    #[inline(always)]
    pub(crate) fn prepare(ray: &Ray, end: Option<Point>, t_min: Real, t_max: Real) -> (Self, bool) {
        let (triangles, usable) = WatertightRay::prepare(ray, end);
        let prepared = PreparedRay {
            boxes: TraversalRay::new(ray),
            triangles,
            t_min,
            t_max,
            ends: end_thresholds(t_min, t_max),
        };
        (prepared, usable & (t_min <= t_max))
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// The first triangle found that the span touches, with early exit
    /// (occlusion query: line of sight); `None` when nothing blocks it.
    /// Takes a segment (`&segment`) or a ray over a range (`ray.span(0.0,
    /// t_max)`, or `&ray` for the whole ray).
    ///
    /// Endpoints count, exactly: a segment starting or ending exactly on a
    /// triangle (face, edge or vertex) touches it, one stopping an ulp short
    /// does not (see [`WatertightRay::intersect`] for the whole contract).
    /// The same holds for every raycast of this type, OBB and AABB trees,
    /// single queries and batches. A NaN or infinite point or direction,
    /// or a NaN range end, gives `None` (infinite range ends are ranges).
    #[must_use]
    // Inlined (as `closest_hit` and `line_of_sight`): a span the caller has
    // just made then stays in registers; through a call, its loads
    // straddled the caller's stores (docs/performance.md, Raycasts).
    #[inline]
    pub fn any_hit(&self, span: impl Into<RaySpan>) -> Option<TriangleId> {
        let span = span.into();
        self.any_hit_query(&span.ray, span.end, span.t_min, span.t_max, &|_| false)
    }

    /// The closest hit along the span (ties at equal `t` go to the lower
    /// triangle id, so answers do not depend on the tree's shape).
    #[must_use]
    #[inline]
    pub fn closest_hit(&self, span: impl Into<RaySpan>) -> Option<RayHit> {
        let span = span.into();
        self.closest_hit_query(&span.ray, span.end, span.t_min, span.t_max)
    }

    /// Every hit along the span, sorted by `t` (ties by triangle id).
    #[must_use]
    pub fn all_hits(&self, span: impl Into<RaySpan>) -> Vec<RayHit> {
        let span = span.into();
        let Some(prepared) = PreparedRay::with_end(&span.ray, span.end, span.t_min, span.t_max)
        else {
            return Vec::new();
        };
        self.all_hits_prepared(&prepared)
    }

    /// Any hit of `ray` over `[t_min, t_max]`, `end` being the exact point
    /// at `t = 1` of a segment, skipping triangles `skip` rejects: the one
    /// entry of single any-hit queries, line of sight included, and of
    /// batches answered one query at a time.
    #[inline(always)]
    pub(crate) fn any_hit_query(
        &self,
        ray: &Ray,
        end: Option<Point>,
        t_min: Real,
        t_max: Real,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        // On an 8-wide layout and an AVX2 CPU, the whole query, set-up
        // included, runs as AVX2 code (the set-up in SSE code cost a few
        // percent).
        if let Some(wide) = self.wide_for(t_min)
            && let Some(avx2) = Avx2::detect()
        {
            return span_scalars!(any_hit_avx2(avx2, self, wide, ray, end, t_min, t_max, skip));
        }
        let prepared = PreparedRay::with_end(ray, end, t_min, t_max)?;
        self.any_hit_prepared(&prepared, skip)
    }

    /// The closest hit of `ray` over `[t_min, t_max]`, `end` being the
    /// exact point at `t = 1` of a segment.
    #[inline(always)]
    pub(crate) fn closest_hit_query(
        &self,
        ray: &Ray,
        end: Option<Point>,
        t_min: Real,
        t_max: Real,
    ) -> Option<RayHit> {
        if let Some(wide) = self.wide_for(t_min)
            && let Some(avx2) = Avx2::detect()
        {
            return span_scalars!(closest_hit_avx2(avx2, self, wide, ray, end, t_min, t_max));
        }
        let prepared = PreparedRay::with_end(ray, end, t_min, t_max)?;
        self.closest_hit_prepared(&prepared)
    }

    fn all_hits_prepared(&self, prepared: &PreparedRay) -> Vec<RayHit> {
        let (t_min, t_max) = (prepared.t_min, prepared.t_max);
        let mut hits = Vec::new();
        let enter = |volume: &V| volume.ray_entry(&prepared.boxes, t_min, t_max).is_some();
        let collect = |first: u32, count: u32| {
            for k in first as usize..(first + count) as usize {
                hits.extend(
                    self.leaf_hit::<true>(prepared, k, t_max)
                        .map(|h| self.ray_hit(h)),
                );
            }
            Visit::Continue
        };
        if self.bvh().fits_array_stack() {
            self.bvh()
                .descend(&mut ArrayStack::new(&mut stack_items()), enter, collect);
        } else {
            self.bvh().descend(&mut Vec::new(), enter, collect);
        }
        hits.sort_by(|a, b| a.t.total_cmp(&b.t).then(a.triangle.cmp(&b.triangle)));
        hits
    }

    /// The ray's hit on the triangle at leaf position `k` within the ray's
    /// range (ends decided exactly) and with `t` up to `t_cap`. Triangles that can never be hit (a zero `f32` normal,
    /// or exactly collinear vertices) are ruled out by the flag `MeshTree` keeps, read
    /// only on the hit path, so the exact predicates never run per query.
    #[inline(always)]
    pub(crate) fn leaf_hit<const CAREFUL: bool>(
        &self,
        ray: &PreparedRay,
        k: usize,
        t_cap: Real,
    ) -> Option<LeafHit> {
        #[cfg(test)]
        if CAREFUL {
            crate::test_support::count(crate::test_support::Work::CarefulTriangleTest);
        }
        let tri = self.leaf_ray_triangle(k);
        let hit = ray
            .triangles
            .intersect_lanes::<CAREFUL>(tri, ray.t_min, ray.t_max, t_cap)?;
        // The id and the flag are read only for hits.
        self.leaf_hittable(k).then(|| LeafHit {
            hit,
            position: k,
            triangle: self.leaf_id(k),
        })
    }

    /// The first triangle of the leaf range that the ray hits, skipping
    /// `skip`. No normal is computed: any-hit only needs a yes. `CAREFUL`:
    /// take the exact endpoint decisions (for leaves whose box may hold an
    /// end of the range, see [`CarefulLeaves`]).
    #[inline(always)]
    pub(crate) fn leaf_any_hit<const CAREFUL: bool>(
        &self,
        ray: &PreparedRay,
        first: u32,
        count: u32,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        // A plain loop rather than `find_map`, whose `try_fold` the
        // compiler kept out of line (a call per leaf).
        for k in first as usize..(first + count) as usize {
            if let Some(hit) = self.leaf_hit::<CAREFUL>(ray, k, ray.t_max)
                && !skip(hit.triangle)
            {
                return Some(hit.triangle);
            }
        }
        None
    }

    /// Tests the leaf range against the current closest hit, tightening it.
    /// Equal `t` keeps the lower triangle id, so answers do not depend on
    /// tree shape. `CAREFUL` as for [`MeshTree::leaf_any_hit`].
    #[inline(always)]
    pub(crate) fn leaf_closest_hit<const CAREFUL: bool>(
        &self,
        ray: &PreparedRay,
        first: u32,
        count: u32,
        best: &mut Option<LeafHit>,
        t_best: &mut Real,
    ) {
        for k in first as usize..(first + count) as usize {
            let Some(found) = self.leaf_hit::<CAREFUL>(ray, k, *t_best) else {
                continue;
            };
            let t = found.hit.t;
            if t < *t_best || best.is_none_or(|b| t == b.hit.t && found.triangle < b.triangle) {
                *t_best = t;
                *best = Some(found);
            }
        }
    }

    /// The full record of a hit: the normal is computed here, once per
    /// answer, not for every hit a closer one replaces. Inlined, so that
    /// the AVX2 queries make it in their own code (as a call it was SSE
    /// code and 5.5% of a closest hit's samples).
    #[inline(always)]
    pub(crate) fn ray_hit(&self, found: LeafHit) -> RayHit {
        let (tri, _) = self.leaf_triangle(found.position);
        let hit = found.hit;
        RayHit {
            // `+ 0.0` turns a crossing at `-0.0` (a span starting before
            // its origin) into `0.0`: `all_hits` sorts with `total_cmp`,
            // which put it before the hits at `0.0` whatever their ids.
            t: hit.t + 0.0,
            triangle: found.triangle,
            barycentric: [hit.w, hit.u, hit.v],
            // Hittable triangles have a representable normal; only a
            // forged saved file can flag one that has none, and it gets a
            // zero normal rather than a panic (`crate::saved`).
            normal: tri.normal().unwrap_or_else(Vector::zeros),
            front_face: hit.front_face,
        }
    }

    /// The any-hit answer from the leaves a descent set aside, out of line.
    #[inline(never)]
    pub(crate) fn careful_any_hit(
        &self,
        ray: &PreparedRay,
        careful: &CarefulLeaves,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        if careful.overflowed() {
            return self.binary_any_hit(ray, skip);
        }
        careful
            .ranges()
            .iter()
            .find_map(|&(first, count)| self.leaf_any_hit::<true>(ray, first, count, skip))
    }

    /// Folds the leaves a descent set aside into its closest hit, out of line.
    #[inline(never)]
    pub(crate) fn careful_closest_hit(
        &self,
        ray: &PreparedRay,
        careful: &CarefulLeaves,
        best: &mut Option<LeafHit>,
        t_best: &mut Real,
    ) {
        if careful.overflowed() {
            *best = self.binary_closest_hit(ray);
            return;
        }
        for &(first, count) in careful.ranges() {
            self.leaf_closest_hit::<true>(ray, first, count, best, t_best);
        }
    }

    /// The any-hit kernel: no child ordering, exit on the first accepted hit.
    /// `skip` rejects triangles (line-of-sight ignore lists).
    pub(crate) fn any_hit_prepared(
        &self,
        ray: &PreparedRay,
        skip: impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        if let Some(wide) = self.wide_for(ray.t_min) {
            self.wide_any_hit(wide, ray, &skip)
        } else {
            self.binary_any_hit(ray, &skip)
        }
    }

    /// The any-hit kernel on the binary tree, every leaf decided carefully.
    fn binary_any_hit(
        &self,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        if self.bvh().fits_array_stack() {
            self.any_hit_kernel(ray, skip, &mut ArrayStack::new(&mut stack_items()))
        } else {
            self.any_hit_kernel(ray, skip, &mut Vec::new())
        }
    }

    #[inline(always)]
    fn any_hit_kernel(
        &self,
        ray: &PreparedRay,
        skip: &impl Fn(TriangleId) -> bool,
        stack: &mut impl TraversalStack<NodeId>,
    ) -> Option<TriangleId> {
        let mut found = None;
        self.bvh().descend(
            stack,
            |volume| volume.ray_entry(&ray.boxes, ray.t_min, ray.t_max).is_some(),
            |first, count| {
                // Binary trees (OBB, sphere, k-DOP) do not tell which
                // leaves hold an end: every leaf takes the exact decisions.
                found = self.leaf_any_hit::<true>(ray, first, count, skip);
                if found.is_some() {
                    Visit::Stop
                } else {
                    Visit::Continue
                }
            },
        );
        found
    }

    /// The closest-hit kernel: nearer child first, entries beyond the current hit dropped.
    pub(crate) fn closest_hit_prepared(&self, ray: &PreparedRay) -> Option<RayHit> {
        let closest = if let Some(wide) = self.wide_for(ray.t_min) {
            self.wide_closest_hit(wide, ray)
        } else {
            self.binary_closest_hit(ray)
        };
        closest.map(|c| self.ray_hit(c))
    }

    /// The closest-hit kernel on the binary tree, every leaf decided carefully.
    fn binary_closest_hit(&self, ray: &PreparedRay) -> Option<LeafHit> {
        if self.bvh().fits_array_stack() {
            self.closest_hit_kernel(ray, &mut ArrayStack::new(&mut stack_items()))
        } else {
            self.closest_hit_kernel(ray, &mut Vec::new())
        }
    }

    #[inline(always)]
    fn closest_hit_kernel(
        &self,
        ray: &PreparedRay,
        stack: &mut impl TraversalStack<(NodeId, Real)>,
    ) -> Option<LeafHit> {
        let bvh = self.bvh();
        let t_min = ray.t_min;
        let mut best: Option<LeafHit> = None;
        let mut t_best = ray.t_max;
        let root_entry = bvh.root_volume().ray_entry(&ray.boxes, t_min, t_best)?;
        let slack = prune_slack(&ray.boxes, self.coordinate_scale());
        let mut current = (NodeId::ROOT, root_entry);
        loop {
            let (id, entry) = current;
            let reach = t_best + slack;
            if entry <= reach {
                match bvh.node(id).kind(id) {
                    NodeKind::Inner { left, right } => {
                        let l = bvh.node(left).volume.ray_entry(&ray.boxes, t_min, reach);
                        let r = bvh.node(right).volume.ray_entry(&ray.boxes, t_min, reach);
                        match (l, r) {
                            (Some(tl), Some(tr)) => {
                                let (near, far) = if tl <= tr {
                                    ((left, tl), (right, tr))
                                } else {
                                    ((right, tr), (left, tl))
                                };
                                stack.push(far);
                                current = near;
                                continue;
                            }
                            (Some(tl), None) => {
                                current = (left, tl);
                                continue;
                            }
                            (None, Some(tr)) => {
                                current = (right, tr);
                                continue;
                            }
                            (None, None) => {}
                        }
                    }
                    NodeKind::Leaf { first, count } => {
                        self.leaf_closest_hit::<true>(ray, first, count, &mut best, &mut t_best)
                    }
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return best,
            }
        }
    }
}

/// Calls the AVX2 query entry `$entry` with the span (`$ray`, `$end`,
/// `$t_min`, `$t_max`) spelled out as scalars, as [`any_hit_avx2`] and
/// [`closest_hit_avx2`] take it, then the further arguments.
macro_rules! span_scalars {
    ($entry:ident($avx2:expr, $tree:expr, $wide:expr, $ray:expr, $end:expr,
        $t_min:expr, $t_max:expr $(, $more:expr)*)) => {{
        let (o, d): (&Point, &Vector) = (&$ray.origin, &$ray.direction);
        let end: Option<Point> = $end;
        let e = end.unwrap_or(*o);
        $entry(
            $avx2, $tree, $wide, o.x, o.y, o.z, d.x, d.y, d.z, e.x, e.y, e.z,
            end.is_some(), $t_min, $t_max $(, $more)*
        )
    }};
}
use span_scalars;

avx2_fn! {
    /// The whole any-hit query on an 8-wide layout as AVX2 code, set-up
    /// included (the set-up in SSE code cost a few percent).
    ///
    /// The span arrives as scalars, in registers and 4-byte stack slots.
    /// Passed as `&Ray` and `Option<Point>`, the points the caller had just
    /// stored (8 + 4 bytes each) were read back by loads straddling two
    /// stores, which the CPU cannot forward: a stall of a dozen cycles each,
    /// a third of a query that misses the root (`perf annotate`; bunny
    /// any-hit 148 → 135 ns, Embree 132 ns, the previous commit's binary
    /// and this one's alternated in a scratch program).
    #[allow(clippy::too_many_arguments)]
    fn any_hit_avx2[V: BoundingVolume](
        avx2: Avx2,
        tree: &MeshTree<V>,
        wide: &WideLayout,
        ox: Real,
        oy: Real,
        oz: Real,
        dx: Real,
        dy: Real,
        dz: Real,
        ex: Real,
        ey: Real,
        ez: Real,
        has_end: bool,
        t_min: Real,
        t_max: Real,
        skip: &impl Fn(TriangleId) -> bool,
    ) -> Option<TriangleId> {
        let ray = Ray::new(Point::new(ox, oy, oz), Vector::new(dx, dy, dz));
        let end = has_end.then_some(Point::new(ex, ey, ez));
        let (prepared, usable) = PreparedRay::prepare(&ray, end, t_min, t_max);
        if !usable {
            return None;
        }
        let remake = || PreparedRay::prepare(&ray, end, t_min, t_max).0;
        tree.wide_any_hit_remaking(avx2, wide, &prepared, &remake, skip)
    }
}

avx2_fn! {
    /// The whole closest-hit query on an 8-wide layout as AVX2 code; the
    /// span as scalars, as for [`any_hit_avx2`].
    #[allow(clippy::too_many_arguments)]
    fn closest_hit_avx2[V: BoundingVolume](
        avx2: Avx2,
        tree: &MeshTree<V>,
        wide: &WideLayout,
        ox: Real,
        oy: Real,
        oz: Real,
        dx: Real,
        dy: Real,
        dz: Real,
        ex: Real,
        ey: Real,
        ez: Real,
        has_end: bool,
        t_min: Real,
        t_max: Real,
    ) -> Option<RayHit> {
        let ray = Ray::new(Point::new(ox, oy, oz), Vector::new(dx, dy, dz));
        let end = has_end.then_some(Point::new(ex, ey, ez));
        let (prepared, usable) = PreparedRay::prepare(&ray, end, t_min, t_max);
        if !usable {
            return None;
        }
        let closest = tree.wide_closest_hit_in(avx2, wide, &prepared);
        closest.map(|c| tree.ray_hit(c))
    }
}

impl<V: BoundingVolume> PlacedMesh<'_, V> {
    /// The span moved into the mesh's frame (ends and origin as points,
    /// a direction as a vector), through the pose's inverse in `f64`
    /// rounded once per coordinate ([`LocalFrame`]): at grazing incidence
    /// an all-`f32` change of frame measured 6x the `t` error. The ends
    /// stay exact when the pose maps them exactly (the identity,
    /// translations by representable steps).
    fn span_to_local(&self, span: RaySpan) -> RaySpan {
        LocalFrame::new(&self.pose).span(&span)
    }

    /// The hit with its normal turned into the world frame.
    fn hit_in_world(&self, hit: RayHit) -> RayHit {
        RayHit {
            normal: self.pose.rotation * hit.normal,
            ..hit
        }
    }

    /// [`MeshTree::any_hit`] for a world-space span.
    #[must_use]
    pub fn any_hit(&self, span: impl Into<RaySpan>) -> Option<TriangleId> {
        self.tree.any_hit(self.span_to_local(span.into()))
    }

    /// [`MeshTree::closest_hit`] for a world-space span; the normal is
    /// returned in world space.
    #[must_use]
    pub fn closest_hit(&self, span: impl Into<RaySpan>) -> Option<RayHit> {
        let hit = self.tree.closest_hit(self.span_to_local(span.into()));
        hit.map(|hit| self.hit_in_world(hit))
    }

    /// [`MeshTree::all_hits`] for a world-space span; normals in world space.
    #[must_use]
    pub fn all_hits(&self, span: impl Into<RaySpan>) -> Vec<RayHit> {
        let hits = self.tree.all_hits(self.span_to_local(span.into()));
        hits.into_iter().map(|hit| self.hit_in_world(hit)).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::bounding_volume::Aabb;
    use crate::math::{Point, Real};
    use crate::mesh::TriMesh;
    use crate::query::MeshTree;
    use crate::shape::Segment;
    use crate::test_support::{Work, counted, unit_floats};

    /// Issue 17's speed contract: the exact endpoint decisions run only
    /// where a range's end may lie within rounding of a triangle, so the
    /// common case pays for them in flags, not in careful tests. Counted,
    /// not timed: 20,000 segments from 3 radii out of a 5,120-triangle
    /// sphere to random points within 1.5 radii of its centre per axis,
    /// asked for any hit and the closest hit.
    #[test]
    fn careful_tests_are_rare_for_ends_off_the_surface() {
        let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 4));
        let mut rand = unit_floats(0x17e4d);
        let mut point =
            |size: Real| Point::new(rand() - 0.5, rand() - 0.5, rand() - 0.5).coords * size;
        let segments: Vec<Segment> = (0..20_000)
            .map(|_| {
                let from = point(2.0).normalize() * 3.0;
                Segment::new(Point::from(from), Point::from(point(3.0)))
            })
            .collect();
        let ((), careful) = counted(Work::CarefulTriangleTest, || {
            for s in &segments {
                std::hint::black_box(tree.any_hit(s));
                std::hint::black_box(tree.closest_hit(s));
            }
        });
        let ((), exact) = counted(Work::ExactEndDecision, || {
            for s in &segments {
                std::hint::black_box(tree.closest_hit(s));
            }
        });
        // 660 and 74 when written; with every leaf flagged, 76,320.
        assert!(
            careful <= 2_000,
            "{careful} careful triangle tests in 40,000 queries"
        );
        assert!(exact <= 400, "{exact} exact decisions in 20,000 queries");
    }
}
