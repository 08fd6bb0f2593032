//! Shape casts: a sphere, a capsule or a box moving along a straight path
//! through a mesh, and where it first touches.
//!
//! The descent follows the path of the shape's centre (`c + t·motion`)
//! through the node volumes grown by the shape: axis-aligned boxes by the
//! half-extents of the shape's own box (their Minkowski sum, as the shape
//! does not turn), other volumes by its bounding sphere's radius, both
//! with a rounding pad: a node that the path does not enter cannot be
//! touched. AABB trees are
//! descended in their 8-wide layout (`WideNode::grown_entries`), other
//! volumes in the binary tree. The closest-hit descent takes nearer
//! children first and drops nodes entered after the best contact so far,
//! as the closest-hit raycast does; leaves answer with
//! the exact sweeps of the primitive layer ([`sweep_sphere_triangle`],
//! [`sweep_capsule_triangle`], [`sweep_box_triangle`]), so answers equal a
//! loop over every triangle.

use crate::bounding_volume::{Aabb, Obb, Sphere};
use crate::bvh::{
    ArrayStack, BoundingVolume, NodeId, NodeKind, TraversalRay, TraversalStack, Visit, WideLayout,
    nearest_first, stack_items,
};
use crate::math::{Isometry, Matrix, Point, Real, Vector, is_finite_point, is_finite_vector};
use crate::query::frame::LocalFrame;
use crate::query::{MeshTree, PlacedMesh};
use crate::shape::{Ray, Segment, Triangle, TriangleId};
use crate::sweep::{
    TriangleContact, box_triangle_time, capsule_triangle_time, sphere_triangle_contact,
    sweep_box_triangle, sweep_capsule_triangle, sweep_point_along, sweep_sphere_triangle,
    swept_box_meets,
};

/// The shape a [`ShapeCast`] moves (more shapes may come: match with a
/// wildcard arm).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum CastShape {
    /// A ball.
    Sphere(Sphere),
    /// The points within `radius` of the segment `axis`.
    Capsule {
        /// The capsule's core segment.
        axis: Segment,
        /// Its radius.
        radius: Real,
    },
    /// An oriented box (translated by the motion, never turned).
    Box(Obb),
}

/// A shape moving by `motion` (no rotation): at time `t ∈ [0, 1]` it is
/// its start position moved by `t · motion`. Built by the constructors;
/// [`ShapeCast::sphere_along`] also keeps the path's end point exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCast {
    /// The shape at the start (`t = 0`).
    pub shape: CastShape,
    /// Its displacement over the cast (`t = 1`).
    pub motion: Vector,
    /// A sphere's centre at `t = 1` as given, when the cast was made from a
    /// segment: `centre + motion` rounds, and radius 0 is the segment
    /// raycast, whose end must stay exact.
    end: Option<Point>,
}

/// Where a cast first touches a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CastHit {
    /// Time of first contact in `[0, 1]`: the fraction of the motion the
    /// shape travels freely (0 when it starts in contact).
    pub time: Real,
    /// The triangle touched (the lowest id among those touched first).
    pub triangle: TriangleId,
    /// The contact point on the triangle.
    pub point: Point,
    /// Unit contact normal from the triangle towards the shape.
    pub normal: Vector,
}

impl ShapeCast {
    /// A sphere of `radius` around `center`, moved by `motion`.
    #[must_use]
    pub fn sphere(center: Point, radius: Real, motion: Vector) -> Self {
        ShapeCast {
            shape: CastShape::Sphere(Sphere::new(center, radius)),
            motion,
            end: None,
        }
    }

    /// A sphere of `radius` whose centre moves along `path`, from its
    /// start to its end. Radius 0 is then exactly the segment raycast
    /// ([`MeshTree::closest_hit`] on `path`): ends on a triangle hit.
    #[must_use]
    pub fn sphere_along(path: &Segment, radius: Real) -> Self {
        ShapeCast {
            shape: CastShape::Sphere(Sphere::new(path.a, radius)),
            motion: path.b - path.a,
            end: Some(path.b),
        }
    }

    /// An oriented box moved by `motion` (no rotation during the cast).
    #[must_use]
    pub fn obb(obb: Obb, motion: Vector) -> Self {
        ShapeCast {
            shape: CastShape::Box(obb),
            motion,
            end: None,
        }
    }

    /// A capsule of `radius` around `axis`, moved by `motion`.
    #[must_use]
    pub fn capsule(axis: Segment, radius: Real, motion: Vector) -> Self {
        ShapeCast {
            shape: CastShape::Capsule { axis, radius },
            motion,
            end: None,
        }
    }

    /// The first contact with one triangle (the primitive sweeps).
    #[must_use]
    pub fn against(&self, tri: &Triangle) -> Option<TriangleContact> {
        match &self.shape {
            CastShape::Sphere(sphere) => match self.end {
                Some(end) if sphere.radius == 0.0 => {
                    sweep_point_along(&Segment::new(sphere.center, end), tri)
                }
                _ => sweep_sphere_triangle(sphere, &self.motion, tri),
            },
            CastShape::Capsule { axis, radius } => {
                sweep_capsule_triangle(axis, *radius, &self.motion, tri)
            }
            CastShape::Box(obb) => sweep_box_triangle(obb, &self.motion, tri),
        }
    }

    /// The time of [`ShapeCast::against`]'s contact, when it is at most
    /// `t_max` (or may be: sphere times are not cut short), without the
    /// contact point: what a closest-hit descent asks of each triangle
    /// before it keeps one; with it the whole contact where that costs
    /// nothing more (spheres).
    #[inline(always)]
    fn first_time(&self, tri: &Triangle, t_max: Real) -> Option<(Real, Option<TriangleContact>)> {
        // A few ulps over, so that a tie at `t_max` (after rounding to
        // `f32`) still reaches the lower-id rule; never past the cast's
        // end, where `against`, which makes the winner's contact, stops.
        let reach = (t_max + 4.0 * Real::EPSILON).min(1.0);
        match &self.shape {
            CastShape::Capsule { axis, radius } => {
                capsule_triangle_time(axis, *radius, &self.motion, tri, reach).map(|t| (t, None))
            }
            CastShape::Box(obb) => {
                box_triangle_time(obb, &self.motion, tri, reach).map(|t| (t, None))
            }
            // A sphere's whole contact costs little more than its time.
            CastShape::Sphere(sphere) if sphere.radius > 0.0 => {
                sphere_triangle_contact(sphere, &self.motion, tri).map(|c| (c.time, Some(c)))
            }
            _ => self.against(tri).map(|c| (c.time, Some(c))),
        }
    }

    /// False when the shape cannot touch `tri` at any time in `[0, t_max]`:
    /// the swept shape's box misses the triangle's, or the shape stays on
    /// one side of the triangle's plane, beyond its reach, at both ends of
    /// the interval (signed distances are linear in time and across the
    /// shape, so their extremes lie at those ends). Padded by a few ulps
    /// of the coordinates, so that the exact sweeps decide every contact
    /// at `t_max` or earlier.
    #[inline(always)]
    fn may_touch(&self, tri: &Triangle, t_max: Real) -> bool {
        let shift = self.motion * t_max;
        let (start, reach) = match &self.shape {
            CastShape::Sphere(s) => (Aabb::new(s.center, s.center), s.radius),
            CastShape::Capsule { axis, radius } => {
                (Aabb::new(axis.a.inf(&axis.b), axis.a.sup(&axis.b)), *radius)
            }
            CastShape::Box(o) => (o.to_aabb(), 0.0),
        };
        if !swept_box_meets(&start, reach, &shift, tri) {
            return false;
        }
        // The plane test rounds by a few ulps of the coordinates involved.
        let a = tri.a;
        let corners = tri
            .vertices()
            .iter()
            .map(|v| v.coords.amax())
            .fold(0.0, Real::max);
        let scale = start.min.coords.amax().max(start.max.coords.amax()) + shift.amax() + corners;
        let pad = 8.0 * Real::EPSILON * (scale + reach);
        let n = tri.scaled_normal();
        let length = n.norm();
        if !(length > 0.0) {
            return true;
        }
        let side = |p: &Point| n.dot(&(p - a));
        // `core`, the shape's thickness across the plane, and its extent
        // about the core.
        let (core, thickness, extent): ([Point; 2], Real, Real) = match &self.shape {
            CastShape::Sphere(s) => ([s.center, s.center], s.radius * length, s.radius),
            CastShape::Capsule { axis, radius } => ([axis.a, axis.b], radius * length, *radius),
            CastShape::Box(o) => {
                let thickness = (0..3)
                    .map(|i| o.half_extents[i] * n.dot(&o.axis(i)).abs())
                    .sum();
                ([o.center, o.center], thickness, o.half_extents.sum())
            }
        };
        let (mut low, mut high) = (Real::INFINITY, Real::NEG_INFINITY);
        for p in core {
            for q in [p, p + shift] {
                let s = side(&q);
                low = low.min(s);
                high = high.max(s);
            }
        }
        let margin = thickness + pad * length;
        if !(low > margin || high < -margin) {
            return true;
        }
        // Before rejecting: the computed normal is off by a few ulps of
        // |ab|·|ac| in each component, which for a needle triangle exceeds
        // its length; each side value moves by that times the point's
        // distance from `a`.
        let far = core
            .iter()
            .flat_map(|p| [p - a, p + shift - a])
            .fold(0.0, |far: Real, v| far.max(v.amax()));
        let normal_error = 24.0 * Real::EPSILON * (tri.b - a).amax() * (tri.c - a).amax();
        let margin = margin + normal_error * (far + extent);
        !(low > margin || high < -margin)
    }

    /// True when every coordinate is finite and the radius non-negative.
    pub(crate) fn is_valid(&self) -> bool {
        let (centre, radius) = self.bounding_sphere();
        is_finite_point(&centre)
            && is_finite_vector(&self.motion)
            && self.end.is_none_or(|end| is_finite_point(&end))
            && radius.is_finite()
            && match &self.shape {
                CastShape::Sphere(s) => s.radius >= 0.0,
                CastShape::Capsule { radius, .. } => *radius >= 0.0,
                CastShape::Box(b) => {
                    b.axes.iter().all(|x| x.is_finite()) && b.half_extents.iter().all(|h| *h >= 0.0)
                }
            }
    }

    /// The half-extents of the shape's axis-aligned box, about the centre
    /// of [`ShapeCast::bounding_sphere`] (for every shape also the box's
    /// centre).
    fn half_extents(&self) -> Vector {
        match &self.shape {
            CastShape::Sphere(s) => Vector::repeat(s.radius),
            CastShape::Capsule { axis, radius } => {
                ((axis.b - axis.a) * 0.5).abs().add_scalar(*radius)
            }
            CastShape::Box(b) => b.axes.abs() * b.half_extents,
        }
    }

    /// The centre and radius of a sphere around the shape at the start.
    pub(crate) fn bounding_sphere(&self) -> (Point, Real) {
        match &self.shape {
            CastShape::Sphere(s) => (s.center, s.radius),
            CastShape::Capsule { axis, radius } => {
                let centre = Point::from(axis.a.coords * 0.5 + axis.b.coords * 0.5);
                (centre, length_of(&((axis.b - axis.a) * 0.5)) + radius)
            }
            CastShape::Box(b) => (b.center, length_of(&b.half_extents)),
        }
    }

    /// The cast in the frame that `frame` maps world coordinates into.
    pub(crate) fn in_frame(&self, frame: &LocalFrame) -> ShapeCast {
        let shape = match &self.shape {
            CastShape::Sphere(s) => {
                CastShape::Sphere(Sphere::new(frame.point(&s.center), s.radius))
            }
            CastShape::Capsule { axis, radius } => CastShape::Capsule {
                axis: Segment::new(frame.point(&axis.a), frame.point(&axis.b)),
                radius: *radius,
            },
            CastShape::Box(b) => {
                let axes = [0, 1, 2].map(|i| frame.vector(&b.axis(i)));
                CastShape::Box(Obb::new(
                    frame.point(&b.center),
                    Matrix::from_columns(&axes),
                    b.half_extents,
                ))
            }
        };
        ShapeCast {
            shape,
            motion: frame.vector(&self.motion),
            end: self.end.map(|end| frame.point(&end)),
        }
    }
}

/// `|v|` by `hypot`, which does not overflow where `|v|` itself fits in
/// `f32` (squares of coordinates above 1.8e19 do not): a capsule 2e20 long
/// is a valid cast.
fn length_of(v: &Vector) -> Real {
    v.x.hypot(v.y).hypot(v.z)
}

/// The earliest contact a closest-hit descent has found so far: its time
/// and triangle (`position` in the leaf order), with the whole contact
/// where computing the time gave it (spheres); capsules and boxes compute
/// theirs once, for the winner.
#[derive(Clone, Copy)]
struct Earliest {
    time: Real,
    triangle: TriangleId,
    position: usize,
    contact: Option<TriangleContact>,
}

/// The path of a cast's centre, prepared for node tests: a node is
/// entered when the path meets it grown by the shape's reach.
pub(crate) struct CastPath {
    ray: TraversalRay,
    /// The shape's box half-extents plus the rounding pad: the exact
    /// growth of an axis-aligned node (the shape turns not).
    extents: Vector,
    /// Its bounding sphere's radius plus the pad: the growth of an
    /// oriented node.
    reach: Real,
}

impl CastPath {
    pub(crate) fn new(cast: &ShapeCast, coordinate_scale: Real) -> Self {
        let (centre, radius) = cast.bounding_sphere();
        // The grown node boxes round by a few `f32` ulps of the mesh's
        // coordinates and the shape's size; the path's entry is the robust
        // slab test of the exact centre and motion. The leaves decide in
        // `f64` (spheres, capsules and boxes) or by the watertight segment
        // test (radius 0, which raycasts use with no pad at all), so the
        // path's own size (a start 1e6 away, a motion 1e7 long) counts only
        // by `f64` ulps: as `f32` ulps it had grown every node by up to
        // 19 m there, and a cast took 7 ms instead of 7.5 µs.
        let path = centre.coords.amax() + cast.motion.amax();
        let pad = 16.0 * Real::EPSILON * (coordinate_scale + radius)
            + (16.0 * f64::EPSILON * f64::from(path)) as Real;
        CastPath {
            ray: TraversalRay::new(&Ray::new(centre, cast.motion)),
            extents: cast.half_extents().add_scalar(pad),
            reach: radius + pad,
        }
    }

    /// When the path enters `volume` grown by the shape, within `[0, t_max]`.
    #[inline(always)]
    pub(crate) fn entry<V: BoundingVolume>(&self, volume: &V, t_max: Real) -> Option<Real> {
        let mut grown = volume.oriented_box();
        if grown.axes == Matrix::identity() {
            // An axis-aligned volume: the slab test, no change of frame.
            let half = grown.half_extents + self.extents;
            let (min, max) = (grown.center - half, grown.center + half);
            return self.ray.slab_entry(&min, &max, 0.0, t_max);
        }
        grown.half_extents = grown.half_extents.add_scalar(self.reach);
        grown.ray_entry(&self.ray, 0.0, t_max)
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// The first triangle the cast touches, searching no further than one
    /// contact: the early-exit form (is the path blocked?). `None` for a
    /// free path, and for a cast with NaN or infinite coordinates or a
    /// negative radius.
    #[must_use]
    pub fn cast_any_hit(&self, cast: &ShapeCast) -> Option<TriangleId> {
        if !cast.is_valid() {
            return None;
        }
        let path = CastPath::new(cast, self.coordinate_scale());
        if let Some(wide) = self.wide().filter(|w| w.fits_array_stack()) {
            return self.cast_any_wide(cast, &path, wide);
        }
        let mut found = None;
        let mut leaf = |first: u32, count: u32| {
            found = self.cast_leaf_any(cast, first, count);
            if found.is_some() {
                Visit::Stop
            } else {
                Visit::Continue
            }
        };
        let enter = |volume: &V| path.entry(volume, 1.0).is_some();
        let bvh = self.bvh();
        if bvh.fits_array_stack() {
            bvh.descend(&mut ArrayStack::new(&mut stack_items()), enter, &mut leaf);
        } else {
            bvh.descend(&mut Vec::new(), enter, &mut leaf);
        }
        found
    }

    /// The first contact of the cast: time, triangle, point and normal in
    /// the mesh frame; ties in time go to the lower triangle id. `None`
    /// for a free path and for invalid casts (see [`MeshTree::cast_any_hit`]).
    #[must_use]
    pub fn cast_closest_hit(&self, cast: &ShapeCast) -> Option<CastHit> {
        self.cast_closest_within(cast, 1.0)
    }

    /// [`MeshTree::cast_closest_hit`] searching no later than `limit`
    /// (contacts at `limit` included): a scene asks each object only for
    /// contacts no later than its best so far.
    pub(crate) fn cast_closest_within(&self, cast: &ShapeCast, limit: Real) -> Option<CastHit> {
        if !cast.is_valid() {
            return None;
        }
        let path = CastPath::new(cast, self.coordinate_scale());
        if let Some(wide) = self.wide().filter(|w| w.fits_array_stack()) {
            return self.cast_closest_wide(cast, &path, wide, limit);
        }
        if self.bvh().fits_array_stack() {
            let mut items = stack_items();
            self.cast_closest_kernel(cast, &path, &mut ArrayStack::new(&mut items), limit)
        } else {
            self.cast_closest_kernel(cast, &path, &mut Vec::new(), limit)
        }
    }

    /// The any-hit descent over the 8-wide layout (AABB trees): leaves as
    /// soon as the path enters them, subtrees unordered.
    fn cast_any_wide(
        &self,
        cast: &ShapeCast,
        path: &CastPath,
        wide: &WideLayout,
    ) -> Option<TriangleId> {
        let nodes = wide.nodes();
        let mut items = stack_items();
        let mut stack = ArrayStack::<u32>::new(&mut items);
        let mut index = 0u32;
        loop {
            let node = &nodes[index as usize];
            let (_, entered) = node.grown_entries(&path.ray, &path.extents, 1.0);
            let leaves = entered & node.leaf_lanes();
            for lane in crate::bvh::set_bits(u64::from(leaves)) {
                let (first, count) = node.leaf_range(lane);
                if let Some(id) = self.cast_leaf_any(cast, first, count) {
                    return Some(id);
                }
            }
            for lane in crate::bvh::set_bits(u64::from(entered & !leaves)) {
                stack.push(node.inner_child(lane));
            }
            index = stack.pop()?;
        }
    }

    /// The closest-hit descent over the 8-wide layout (AABB trees): of a
    /// node's entered children, leaves and subtrees alike, the nearest
    /// next and the second nearest after it.
    fn cast_closest_wide(
        &self,
        cast: &ShapeCast,
        path: &CastPath,
        wide: &WideLayout,
        limit: Real,
    ) -> Option<CastHit> {
        let nodes = wide.nodes();
        let mut best: Option<Earliest> = None;
        let reach = |best: &Option<Earliest>| best.map_or(limit, |b| b.time);
        let mut items = stack_items();
        // (wide node, 0, entry) or (first leaf position, count ≥ 1, entry).
        let mut stack = ArrayStack::<(u32, u32, Real)>::new(&mut items);
        let mut current = (0u32, 0u32, 0.0);
        loop {
            let (at, count, entry) = current;
            if entry <= reach(&best) {
                if count == 0 {
                    let node = &nodes[at as usize];
                    let (enter, entered) =
                        node.grown_entries(&path.ray, &path.extents, reach(&best));
                    if entered != 0 {
                        let child = |lane: usize| node.keyed_child(lane, enter[lane]);
                        current = nearest_first(&enter, entered, child, &mut stack);
                        continue;
                    }
                } else {
                    self.cast_leaf(cast, (at, count), limit, &mut best);
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return self.finish_cast(cast, best),
            }
        }
    }

    /// The first triangle of one leaf range that the cast touches.
    #[inline(always)]
    fn cast_leaf_any(&self, cast: &ShapeCast, first: u32, count: u32) -> Option<TriangleId> {
        (first as usize..(first + count) as usize).find_map(|k| {
            #[cfg(test)]
            crate::test_support::count(crate::test_support::Work::CastTriangle);
            let (tri, id) = self.leaf_triangle(k);
            (cast.may_touch(&tri, 1.0) && cast.against(&tri).is_some()).then_some(id)
        })
    }

    /// Offers the triangles of one leaf range to the earliest contact so far.
    #[inline(always)]
    fn cast_leaf(
        &self,
        cast: &ShapeCast,
        (first, count): (u32, u32),
        limit: Real,
        best: &mut Option<Earliest>,
    ) {
        for k in first as usize..(first + count) as usize {
            #[cfg(test)]
            crate::test_support::count(crate::test_support::Work::CastTriangle);
            let t_max = best.map_or(limit, |b| b.time);
            let (tri, triangle) = self.leaf_triangle(k);
            // Once a contact at the start is known, only a lower id can
            // win (no time comes earlier): the others need no test. Casts
            // starting in contact with many triangles (a large sphere
            // resting on a fine mesh) spent most of their time here.
            if t_max == 0.0 && best.is_some_and(|b| triangle > b.triangle) {
                continue;
            }
            if !cast.may_touch(&tri, t_max) {
                continue;
            }
            #[cfg(test)]
            crate::test_support::count(crate::test_support::Work::CastSweep);
            let Some((time, contact)) = cast.first_time(&tri, t_max) else {
                continue;
            };
            if best.is_none_or(|b| time < b.time || (time == b.time && triangle < b.triangle)) {
                *best = Some(Earliest {
                    time,
                    triangle,
                    position: k,
                    contact,
                });
            }
        }
    }

    /// The answer of a closest-hit descent: the winner's whole contact,
    /// computed here once where the descent kept its time alone.
    fn finish_cast(&self, cast: &ShapeCast, best: Option<Earliest>) -> Option<CastHit> {
        let best = best?;
        let contact = match best.contact {
            Some(contact) => contact,
            None => cast.against(&self.leaf_triangle(best.position).0)?,
        };
        Some(CastHit {
            time: contact.time,
            triangle: best.triangle,
            point: contact.point,
            normal: contact.normal,
        })
    }

    fn cast_closest_kernel(
        &self,
        cast: &ShapeCast,
        path: &CastPath,
        stack: &mut impl TraversalStack<(NodeId, Real)>,
        limit: Real,
    ) -> Option<CastHit> {
        let bvh = self.bvh();
        let mut best: Option<Earliest> = None;
        let reach = |best: &Option<Earliest>| best.map_or(limit, |b| b.time);
        let mut current = (NodeId::ROOT, path.entry(bvh.root_volume(), limit)?);
        loop {
            let (id, entry) = current;
            if entry <= reach(&best) {
                match bvh.node(id).kind(id) {
                    NodeKind::Inner { left, right } => {
                        let t_max = reach(&best);
                        let l = path.entry(&bvh.node(left).volume, t_max).map(|t| (left, t));
                        let r = path
                            .entry(&bvh.node(right).volume, t_max)
                            .map(|t| (right, t));
                        let (near, far) = match (l, r) {
                            (Some(a), Some(b)) if b.1 < a.1 => (Some(b), Some(a)),
                            (a, b) => (a.or(b), a.and(b)),
                        };
                        if let Some(far) = far {
                            stack.push(far);
                        }
                        if let Some(near) = near {
                            current = near;
                            continue;
                        }
                    }
                    NodeKind::Leaf { first, count } => {
                        self.cast_leaf(cast, (first, count), limit, &mut best)
                    }
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return self.finish_cast(cast, best),
            }
        }
    }
}

impl<V: BoundingVolume> PlacedMesh<'_, V> {
    /// [`MeshTree::cast_any_hit`] with the cast in world space (brought
    /// into the mesh frame through an `f64` transform, rounded once).
    #[must_use]
    pub fn cast_any_hit(&self, cast: &ShapeCast) -> Option<TriangleId> {
        if !cast.is_valid() {
            return None;
        }
        self.tree
            .cast_any_hit(&cast.in_frame(&LocalFrame::new(&self.pose)))
    }

    /// [`MeshTree::cast_closest_hit`] with the cast and the answer's point
    /// and normal in world space.
    #[must_use]
    pub fn cast_closest_hit(&self, cast: &ShapeCast) -> Option<CastHit> {
        if !cast.is_valid() {
            return None;
        }
        let local = cast.in_frame(&LocalFrame::new(&self.pose));
        self.tree
            .cast_closest_hit(&local)
            .map(|hit| world_hit(&self.pose, hit))
    }
}

/// A hit in a mesh frame brought to world space by `pose`.
pub(crate) fn world_hit(pose: &Isometry, hit: CastHit) -> CastHit {
    CastHit {
        point: pose * hit.point,
        normal: pose.rotation * hit.normal,
        ..hit
    }
}

/// A camera on a boom: the camera wants to stand at `desired`, held from
/// `pivot` (a character's head), and keeps a sphere of `radius` around its
/// lens clear of the world. [`CameraBoom::cast`] is the sphere cast from
/// the pivot to the desired position that answers where it may stand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraBoom {
    /// Where the boom is held.
    pub pivot: Point,
    /// Where the camera would stand with nothing in the way.
    pub desired: Point,
    /// Radius of the sphere kept clear around the lens.
    pub radius: Real,
}

/// Where a camera on a boom may stand, and what stopped it (`B`: a triangle
/// id for a mesh, a scene triangle for a scene).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoomStop<B> {
    /// The farthest position along the boom at which the lens sphere
    /// touches nothing but may touch the blocker (`desired` when nothing is
    /// in the way, `pivot` when the sphere touches something there already).
    pub position: Point,
    /// How much of the boom is free: `position = pivot + free · (desired − pivot)`.
    pub free: Real,
    /// The triangle the sphere first touches, if any.
    pub blocker: Option<B>,
}

impl CameraBoom {
    /// The sphere cast from the pivot to the desired position.
    #[must_use]
    pub fn cast(&self) -> ShapeCast {
        ShapeCast::sphere_along(&Segment::new(self.pivot, self.desired), self.radius)
    }

    /// The stop for a first contact at `time` with `blocker` (none: the
    /// whole boom is free).
    #[must_use]
    pub fn stop<B>(&self, contact: Option<(Real, B)>) -> BoomStop<B> {
        match contact {
            None => BoomStop {
                position: self.desired,
                free: 1.0,
                blocker: None,
            },
            Some((time, blocker)) => BoomStop {
                position: if time == 0.0 {
                    self.pivot
                } else {
                    self.pivot + (self.desired - self.pivot) * time
                },
                free: time,
                blocker: Some(blocker),
            },
        }
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// Where the camera may stand on `boom` (see [`CameraBoom`]); `None`
    /// for a boom with NaN or infinite coordinates or a negative radius, or
    /// one whose pivot and desired position lie so far apart (about 3e38)
    /// that their difference overflows.
    #[must_use]
    pub fn camera_boom(&self, boom: &CameraBoom) -> Option<BoomStop<TriangleId>> {
        let cast = boom.cast();
        if !cast.is_valid() {
            return None;
        }
        let hit = self.cast_closest_hit(&cast);
        Some(boom.stop(hit.map(|h| (h.time, h.triangle))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::TriMesh;
    use crate::test_support::{Work, counted};

    /// Pins the node pad of casts from far away (the path's size counted
    /// in `f64` ulps, not `f32` ones): with `16 ε` of the path, a sphere
    /// falling from 1e7 m grew every box by about 60 m and swept most of a
    /// 100 m terrain (a hunt timed 7,257 against 7.5 µs on 200k
    /// triangles). Counted, not timed: the leaf triangles a cast offers
    /// its sweep to, against the mesh's 20,000 (6–8 from every height;
    /// with the old pad 392 from 1e6 m); the answers against a sweep of
    /// every triangle.
    #[test]
    fn casts_from_far_away_offer_few_triangles() {
        let terrain = TriMesh::terrain(100, 100.0, 5.0, 3);
        let tree = MeshTree::<Aabb>::new(terrain.clone());
        for height in [10.0, 1e5, 1e6, 1e7] {
            let cast = ShapeCast::sphere(
                Point::new(3.0, -7.0, height),
                0.5,
                Vector::new(0.0, 0.0, -2.0 * height),
            );
            let (hit, offered) = counted(Work::CastTriangle, || tree.cast_closest_hit(&cast));
            let hit = hit.expect("the sphere falls through the terrain");
            let (time, triangle) = (0..terrain.len() as u32)
                .filter_map(|i| {
                    let id = TriangleId(i);
                    cast.against(&terrain.triangle(id)).map(|c| (c.time, id))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .expect("a contact");
            assert_eq!((hit.time, hit.triangle), (time, triangle), "from {height}");
            assert!(offered <= 50, "from {height}: {offered} triangles offered");
            let (any, offered) = counted(Work::CastTriangle, || tree.cast_any_hit(&cast));
            assert!(any.is_some(), "from {height}");
            assert!(
                offered <= 50,
                "any hit from {height}: {offered} triangles offered"
            );
        }
    }

    /// Pins the closest-hit leaves' skip once a contact at the start is
    /// known: only a lower id can then win, so the others need no sweep.
    /// Casts starting in contact with many triangles (a large sphere
    /// resting on a fine mesh) spent most of their time sweeping them.
    /// Counted: 94 sweeps for a sphere of radius 10 sunk 5 into a
    /// 20k-triangle plane (a contact circle 8.7 in radius; 882 sweeps
    /// without the skip).
    #[test]
    fn casts_starting_in_contact_sweep_few_triangles() {
        let terrain = TriMesh::terrain(100, 100.0, 0.0, 3);
        let tree = MeshTree::<Aabb>::new(terrain.clone());
        let cast = ShapeCast::sphere(Point::new(0.3, 0.2, 5.0), 10.0, Vector::new(1.0, 2.0, -3.0));
        let (hit, swept) = counted(Work::CastSweep, || tree.cast_closest_hit(&cast));
        let hit = hit.expect("resting on the terrain");
        let first = (0..terrain.len() as u32)
            .map(TriangleId)
            .find(|&id| {
                cast.against(&terrain.triangle(id))
                    .is_some_and(|c| c.time == 0.0)
            })
            .expect("a contact at the start");
        assert_eq!((hit.time, hit.triangle), (0.0, first));
        assert!(swept <= 300, "{swept} sweeps");
    }
}
