//! The bounding-volume trait that lets one tree serve AABBs, OBBs, spheres and k-DOPs.
//!
//! A tree needs four things of its volumes: a fit around a set of triangles,
//! a way to refit a parent from its children after vertices move (van den
//! Bergen, JGT 1997), a size to compare (surface area, for statistics and
//! SAH cost) and the principal directions along which to split a node
//! (Gottschalk 1996 splits along the longest axis of the node's own box).

use crate::bounding_volume::{Aabb, Kdop, KdopDirections, Obb, PackedObb, Rss, Sphere};
use crate::bvh::{BuildOptions, Bvh, TraversalRay, WideLayout};
use crate::fit::{
    CovarianceAccumulator, obb_from_points_hull_covariance, obb_with_axes, packed_obb_with_axes,
    ritter_sphere, rss_with_axes, triangle_frame,
};
use crate::fit::{NodeBoxes, node_boxes, surface_frame};
use crate::math::{Matrix, Point, Real, Vector};
use crate::shape::{Ray, Triangle, TriangleSoup};

/// How an OBB tree orients each node's box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ObbFit {
    /// Area-weighted covariance of the node's triangles themselves (fast; the default).
    #[default]
    Triangles,
    /// Area-weighted covariance of the convex hull of the node's vertices,
    /// as in the OBBTree paper (slower; insensitive to interior detail).
    Hull,
}

/// A bounding volume a [`crate::bvh::Bvh`] can be built from.
pub trait BoundingVolume: Copy + std::fmt::Debug + Send + Sync + 'static {
    /// The build preset that suits this volume: binned SAH for volumes
    /// aligned with the axes (AABB, sphere, k-DOP), Gottschalk's split for
    /// oriented boxes. What [`crate::MeshTree::new`] builds with, so that a
    /// tree type and its preset cannot be mismatched by accident.
    fn default_build() -> BuildOptions {
        BuildOptions::sah()
    }

    /// A volume containing every vertex of `triangles` (non-empty).
    /// Zero-area triangles are contained but must not orient the volume.
    fn fit(triangles: &[Triangle], obb_fit: ObbFit) -> Self;

    /// The volume when it is exactly the union of the triangles' boxes, so a
    /// builder that already has that union skips the pass over the triangles
    /// (AABBs); `None` for volumes that must be fitted to the triangles.
    fn from_triangle_boxes(union: &Aabb) -> Option<Self> {
        let _ = union;
        None
    }

    /// A volume containing both children's volumes, for bottom-up refit.
    /// `self` is the old parent, whose shape (axes) may be kept.
    fn refit_parent(&self, left: &Self, right: &Self) -> Self;

    /// A leaf's volume after its triangles moved; `self` is the old volume.
    fn refit_leaf(&self, triangles: &[Triangle]) -> Self {
        Self::fit(triangles, ObbFit::Triangles)
    }

    /// Surface area (statistics, SAH cost).
    fn surface_area(&self) -> Real;

    /// Enclosed volume (statistics, fitting-quality reports).
    fn volume(&self) -> Real;

    /// True when `p` is inside, allowing `tolerance` (absolute) for rounding.
    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool;

    /// The split directions of this volume, longest extent first.
    fn split_axes(&self) -> [Vector; 3];

    /// The axis-aligned box around the volume.
    fn to_aabb(&self) -> Aabb;

    /// Where the ray enters the volume within `[t_min, t_max]`, or `None` if
    /// it misses. May be conservative (report a hit for a ray that only
    /// grazes within rounding), never the other way.
    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real>;

    /// Squared distance from `p` to the volume, 0 inside, or a lower bound
    /// of it (k-DOPs: the farthest slab): what nearest-point descents prune
    /// by. NaN for a NaN point. Rounded like any `f32` distance; callers
    /// prune with a slack relative to the coordinates.
    fn point_distance_squared(&self, p: &Point) -> Real;

    /// The volume as an oriented box in its mesh frame, for box–box descent
    /// (Gottschalk 1996): an AABB or k-DOP is its box with identity axes, a
    /// sphere the cube around it, an OBB itself. Contains the volume up to
    /// the rounding of a centre/half-extent conversion.
    fn oriented_box(&self) -> Obb;

    /// The shape mesh-distance descents bound this volume by: its
    /// [`BoundingVolume::oriented_box`], or for swept rectangles the volume
    /// itself (two of them are compared by their core rectangles and radii;
    /// mixed with a box, by the box around the swept rectangle).
    #[inline(always)]
    fn distance_bound(&self) -> DistanceBound {
        DistanceBound::Box(self.oriented_box())
    }

    /// The 8-wide AABB layout that raycasts, shape casts and point queries
    /// descend when present (the binary tree otherwise). By default it is
    /// the tree's own topology with the exact box of each node's triangles:
    /// an OBB tree built for overlap then answers rays within a small
    /// factor of an AABB tree, for about 50 bytes per triangle (Gottschalk
    /// trees have one triangle per leaf, so more nodes than SAH trees).
    fn wide_layout(bvh: &Bvh<Self>, mesh: TriangleSoup<'_>) -> Option<WideLayout> {
        Some(WideLayout::from_binary(&bvh.box_twin(mesh)))
    }
}

/// What [`BoundingVolume::distance_bound`] gives.
#[derive(Clone, Copy, Debug)]
pub enum DistanceBound {
    /// An oriented box.
    Box(Obb),
    /// A rectangle swept sphere.
    Swept(Rss),
}

impl DistanceBound {
    /// The box around the shape.
    #[inline(always)]
    pub fn to_box(&self) -> Obb {
        match self {
            DistanceBound::Box(b) => *b,
            DistanceBound::Swept(s) => s.oriented_box(),
        }
    }
}

fn axes_by_extent(axes: &Matrix, half_extents: &Vector) -> [Vector; 3] {
    let mut order = [0usize, 1, 2];
    order.sort_by(|&a, &b| half_extents[b].total_cmp(&half_extents[a]));
    order.map(|i| axes.column(i).into_owned())
}

/// The first of the two frames an OBB node may take, and whether it is one
/// triangle's edge-flush frame ([`triangle_frame`]); the second is the
/// world axes. Otherwise the area-weighted covariance frame: zero-area
/// triangles carry no weight; if all are degenerate it falls back to
/// vertices. A patch with no preferred in-plane direction (a square of
/// terrain) gets an arbitrary covariance frame, often 45° off and looser
/// than the axis-aligned box, hence the second candidate. The world box can
/// only tie an edge-flush box in area (the smallest rectangle around a
/// triangle in its plane is edge-flush), so one triangle skips it.
fn node_frame(triangles: &[Triangle]) -> (Matrix, bool) {
    if let [triangle] = triangles
        && let Some(frame) = triangle_frame(triangle)
    {
        return (frame, true);
    }
    let frame = surface_frame(triangles).unwrap_or_else(|| {
        CovarianceAccumulator::from_triangles(triangles)
            .covariance()
            .map_or_else(Matrix::identity, |c| c.frame())
    });
    (frame, false)
}

/// The tighter of two fitted boxes by `size` (volume, then area, for flat
/// boxes); the covariance box on ties.
fn tighter_of<B>(
    [covariance, aligned]: [Option<B>; 2],
    size: impl Fn(&B) -> (Real, Real),
) -> Option<B> {
    match (covariance, aligned) {
        (Some(c), Some(a)) => Some(if size(&a) < size(&c) { a } else { c }),
        (c, a) => c.or(a),
    }
}

/// The box an OBB node keeps of [`node_boxes`]' two, and whether it is the
/// world-axes one (see [`node_frame`]).
/// Ties keep the framed box, as [`tighter_of`] does.
fn chosen_box(boxes: &NodeBoxes, one_triangle: bool) -> (Obb, bool) {
    let size = |b: &Obb| (b.volume(), b.surface_area());
    match (!one_triangle).then(|| boxes.aligned()) {
        Some(aligned) if size(&aligned) < size(&boxes.framed) => (aligned, true),
        _ => (boxes.framed, false),
    }
}

fn vertices_of(triangles: &[Triangle]) -> impl Iterator<Item = Point> + '_ {
    triangles.iter().flat_map(Triangle::vertices)
}

impl BoundingVolume for Aabb {
    fn fit(triangles: &[Triangle], _: ObbFit) -> Self {
        triangles
            .iter()
            .fold(Aabb::EMPTY, |b, t| b.union(&t.aabb()))
    }

    fn from_triangle_boxes(union: &Aabb) -> Option<Self> {
        Some(*union)
    }

    fn refit_parent(&self, left: &Self, right: &Self) -> Self {
        left.union(right)
    }

    fn surface_area(&self) -> Real {
        Aabb::surface_area(self)
    }

    fn volume(&self) -> Real {
        Aabb::volume(self)
    }

    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        self.expanded(tolerance).contains_point(p)
    }

    fn split_axes(&self) -> [Vector; 3] {
        axes_by_extent(&Matrix::identity(), &self.half_extents())
    }

    fn to_aabb(&self) -> Aabb {
        *self
    }

    #[inline(always)]
    fn point_distance_squared(&self, p: &Point) -> Real {
        self.distance_squared(p)
    }

    #[inline(always)]
    fn oriented_box(&self) -> Obb {
        Obb::from_aabb(self)
    }

    #[inline(always)]
    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real> {
        ray.slab_entry(&self.min, &self.max, t_min, t_max)
    }

    fn wide_layout(bvh: &Bvh<Self>, _: TriangleSoup<'_>) -> Option<WideLayout> {
        Some(WideLayout::from_binary(bvh))
    }
}

impl BoundingVolume for Obb {
    fn default_build() -> BuildOptions {
        BuildOptions::gottschalk()
    }

    fn fit(triangles: &[Triangle], obb_fit: ObbFit) -> Self {
        let vertices = || vertices_of(triangles).collect::<Vec<Point>>();
        let fitted = match obb_fit {
            ObbFit::Triangles => {
                let (frame, one_triangle) = node_frame(triangles);
                node_boxes(triangles, &frame).map(|boxes| chosen_box(&boxes, one_triangle).0)
            }
            ObbFit::Hull => obb_from_points_hull_covariance(&vertices()),
        };
        // Mesh vertices are validated finite, so the fit exists; the AABB is a safe fallback.
        fitted.unwrap_or_else(|| Obb::from_aabb(&Aabb::from_points(&vertices())))
    }

    fn refit_parent(&self, left: &Self, right: &Self) -> Self {
        let (l, r) = (left.corners(), right.corners());
        let corners: [Point; 16] = std::array::from_fn(|i| if i < 8 { l[i] } else { r[i - 8] });
        obb_with_axes(&corners, &self.axes).unwrap_or(*self)
    }

    fn refit_leaf(&self, triangles: &[Triangle]) -> Self {
        let vertices: Vec<Point> = vertices_of(triangles).collect();
        obb_with_axes(&vertices, &self.axes).unwrap_or(*self)
    }

    fn surface_area(&self) -> Real {
        Obb::surface_area(self)
    }

    fn volume(&self) -> Real {
        Obb::volume(self)
    }

    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        let local = self.to_local(p);
        (0..3).all(|i| local[i].abs() <= self.half_extents[i] + tolerance)
    }

    fn split_axes(&self) -> [Vector; 3] {
        axes_by_extent(&self.axes, &self.half_extents)
    }

    fn point_distance_squared(&self, p: &Point) -> Real {
        self.distance_squared(p)
    }

    fn to_aabb(&self) -> Aabb {
        Obb::to_aabb(self)
    }

    #[inline(always)]
    fn oriented_box(&self) -> Obb {
        *self
    }

    #[inline]
    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real> {
        // In the box frame the box is an origin-centred AABB; `t` is unchanged
        // by the rigid change of frame. The change of frame itself rounds, by
        // a few ulps of the coordinates involved, so the box is padded by that
        // much (relative, never absolute) to stay conservative.
        let origin = self.to_local(&ray.origin);
        let local = Ray::new(Point::from(origin), self.axes.tr_mul(&ray.direction));
        let pad = 8.0
            * Real::EPSILON
            * (origin.amax() + self.half_extents.amax() + (ray.origin - self.center).amax());
        let h = Point::from(self.half_extents.add_scalar(pad));
        TraversalRay::new(&local).slab_entry(&(-h), &h, t_min, t_max)
    }
}

/// The OBB tree's volume: an [`Obb`] whose rotation is stored in 12 bytes
/// (see [`PackedObb`]). Every node is fitted in its decoded frame; queries
/// unpack a node's box when they visit it.
impl BoundingVolume for PackedObb {
    fn default_build() -> BuildOptions {
        BuildOptions::gottschalk()
    }

    fn fit(triangles: &[Triangle], obb_fit: ObbFit) -> Self {
        let vertices = || vertices_of(triangles).collect::<Vec<Point>>();
        // The same frames as an `Obb` node, each fitted once, directly in
        // its decoded form (fitting an `Obb` first and repacking it cost a
        // third projection pass per node).
        let in_frame =
            |axes: &Matrix| packed_obb_with_axes(PackedObb::encode_axes(axes), &vertices());
        let fitted = match obb_fit {
            ObbFit::Triangles => {
                let (frame, one_triangle) = node_frame(triangles);
                let rotation = PackedObb::encode_axes(&frame);
                node_boxes(triangles, &PackedObb::decode_axes(&rotation)).map(|boxes| {
                    // The world axes pack exactly as `[0, 0, 0]`.
                    let (b, aligned) = chosen_box(&boxes, one_triangle);
                    let rotation = if aligned { [0.0; 3] } else { rotation };
                    PackedObb::new(b.center, b.half_extents, rotation)
                })
            }
            ObbFit::Hull => in_frame(&Obb::fit(triangles, obb_fit).axes),
        };
        // Mesh vertices are validated finite, so the fit exists; the world frame is a safe fallback.
        fitted.unwrap_or_else(|| {
            crate::fit::pack_obb(&Obb::from_aabb(&Aabb::from_points(&vertices())))
        })
    }

    fn refit_parent(&self, left: &Self, right: &Self) -> Self {
        let (l, r) = (left.unpack().corners(), right.unpack().corners());
        let corners: [Point; 16] = std::array::from_fn(|i| if i < 8 { l[i] } else { r[i - 8] });
        packed_obb_with_axes(self.rotation(), &corners).unwrap_or(*self)
    }

    fn refit_leaf(&self, triangles: &[Triangle]) -> Self {
        let vertices: Vec<Point> = vertices_of(triangles).collect();
        packed_obb_with_axes(self.rotation(), &vertices).unwrap_or(*self)
    }

    fn surface_area(&self) -> Real {
        PackedObb::surface_area(self)
    }

    fn volume(&self) -> Real {
        PackedObb::volume(self)
    }

    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        self.unpack().contains_point_within(p, tolerance)
    }

    fn split_axes(&self) -> [Vector; 3] {
        axes_by_extent(&self.axes(), &self.half_extents)
    }

    fn point_distance_squared(&self, p: &Point) -> Real {
        self.unpack().distance_squared(p)
    }

    fn to_aabb(&self) -> Aabb {
        self.unpack().to_aabb()
    }

    #[inline(always)]
    fn oriented_box(&self) -> Obb {
        self.unpack()
    }

    #[inline]
    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real> {
        self.unpack().ray_entry(ray, t_min, t_max)
    }
}

impl BoundingVolume for Sphere {
    /// None: sphere and k-DOP trees are there to compare volume types, and
    /// keep the binary traversal kernels exercised by every query's tests.
    fn wide_layout(_: &Bvh<Self>, _: TriangleSoup<'_>) -> Option<WideLayout> {
        None
    }

    fn fit(triangles: &[Triangle], _: ObbFit) -> Self {
        let vertices: Vec<Point> = vertices_of(triangles).collect();
        ritter_sphere(&vertices).unwrap_or_else(|_| Sphere::new(Point::origin(), Real::INFINITY))
    }

    fn refit_parent(&self, left: &Self, right: &Self) -> Self {
        left.merged(right)
    }

    fn surface_area(&self) -> Real {
        Sphere::surface_area(self)
    }

    fn volume(&self) -> Real {
        Sphere::volume(self)
    }

    fn point_distance_squared(&self, p: &Point) -> Real {
        // The distance to the centre in `f64`: in `f32` its square
        // overflows for spheres of about 2e19 and more, and a point
        // inside one was then infinitely far (the nearest triangle lost).
        // A NaN point gives NaN.
        let outside =
            crate::math::distance_squared_wide(p, &self.center).sqrt() - f64::from(self.radius);
        if outside > 0.0 {
            (outside * outside) as Real
        } else if outside.is_nan() {
            Real::NAN
        } else {
            0.0
        }
    }

    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        (p - self.center).norm() <= self.radius + tolerance
    }

    fn split_axes(&self) -> [Vector; 3] {
        [Vector::x(), Vector::y(), Vector::z()]
    }

    fn to_aabb(&self) -> Aabb {
        Sphere::to_aabb(self)
    }

    #[inline(always)]
    fn oriented_box(&self) -> Obb {
        Obb::new(self.center, Matrix::identity(), Vector::repeat(self.radius))
    }

    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real> {
        // The sphere's box: conservative (never misses a ray that meets the
        // sphere) and exact where it matters, at the leaves' triangle tests.
        self.to_aabb().ray_entry(ray, t_min, t_max)
    }
}

impl<const N: usize> BoundingVolume for Kdop<N>
where
    Kdop<N>: KdopDirections<N>,
{
    /// None: sphere and k-DOP trees are there to compare volume types, and
    /// keep the binary traversal kernels exercised by every query's tests.
    fn wide_layout(_: &Bvh<Self>, _: TriangleSoup<'_>) -> Option<WideLayout> {
        None
    }

    fn fit(triangles: &[Triangle], _: ObbFit) -> Self {
        Kdop::from_triangles(triangles.iter().map(Triangle::vertices))
    }

    fn refit_parent(&self, left: &Self, right: &Self) -> Self {
        left.union(right)
    }

    fn surface_area(&self) -> Real {
        // The box around the k-DOP stands in: exact k-DOP areas need the
        // polytope's faces, and statistics only compare like with like.
        self.to_aabb().surface_area()
    }

    fn volume(&self) -> Real {
        self.to_aabb().volume()
    }

    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        let directions = Self::directions();
        (0..N).all(|i| {
            let d = directions[i].dot(&p.coords);
            let slack = tolerance * directions[i].norm();
            self.min()[i] - slack <= d && d <= self.max()[i] + slack
        })
    }

    fn point_distance_squared(&self, p: &Point) -> Real {
        // The farthest slab the point lies outside of: a lower bound of the
        // distance to the polytope (exact along the k-DOP's directions).
        let mut farthest: Real = 0.0;
        for (i, n) in Self::directions().iter().enumerate() {
            let d = n.dot(&p.coords);
            if d.is_nan() {
                return Real::NAN;
            }
            let outside = (self.min()[i] - d).max(d - self.max()[i]);
            if outside > 0.0 {
                farthest = farthest.max(outside / n.norm());
            }
        }
        farthest * farthest
    }

    fn split_axes(&self) -> [Vector; 3] {
        self.to_aabb().split_axes()
    }

    fn to_aabb(&self) -> Aabb {
        Kdop::to_aabb(self)
    }

    #[inline(always)]
    fn oriented_box(&self) -> Obb {
        Obb::from_aabb(&Kdop::to_aabb(self))
    }

    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real> {
        // Kay–Kajiya slabs along every k-DOP direction, in `f64`: in `f32`
        // the origin's projection `n · o` of a ray starting 1e7 away rounds
        // by about one unit, in either direction, more than a small k-DOP's
        // size (2–4% of such rays missed a unit ball's 18-DOP tree). The
        // slabs are widened by what the triangle test itself cannot tell
        // apart, so that no box is culled whose triangles it would hit: its
        // sheared coordinates are off by a few `u (|o| + R)` across the ray
        // (`R` the largest coordinate inside, which the axis slabs bound),
        // and the fitted planes are `f32` dot products within `γ₃ |n|₁ R`.
        let bounds = Kdop::to_aabb(self);
        let reach = f64::from(bounds.min.coords.amax().max(bounds.max.coords.amax()))
            + f64::from(ray.origin.coords.amax());
        let slack_per_unit_normal = 16.0 * f64::from(Real::EPSILON) * reach;
        let (o, d) = (ray.origin.coords.cast::<f64>(), ray.direction.cast::<f64>());
        let (mut enter, mut exit) = (f64::from(t_min), f64::from(t_max));
        for (i, n) in Self::directions().iter().enumerate() {
            let n = n.cast::<f64>();
            let slack = slack_per_unit_normal * n.abs().sum();
            let (lo, hi) = (
                f64::from(self.min()[i]) - slack,
                f64::from(self.max()[i]) + slack,
            );
            let (from, along) = (n.dot(&o), n.dot(&d));
            if along == 0.0 {
                if !(lo <= from && from <= hi) {
                    return None;
                }
                continue;
            }
            let (t0, t1) = ((lo - from) / along, (hi - from) / along);
            enter = enter.max(t0.min(t1));
            exit = exit.min(t0.max(t1));
        }
        // Rounded down to `f32`, so the entry never moves past a hit.
        (enter <= exit).then(|| {
            let rounded = enter as Real;
            if f64::from(rounded) > enter {
                rounded.next_down()
            } else {
                rounded
            }
        })
    }
}

/// Rectangle swept spheres, PQP's distance volume: fitted in the covariance
/// frame or the world axes, whichever encloses less, with the rectangle
/// across the two directions of largest spread. Rays and overlap tests use
/// the box around the volume; distance descents the volume itself.
impl BoundingVolume for Rss {
    fn default_build() -> BuildOptions {
        BuildOptions::gottschalk()
    }

    fn fit(triangles: &[Triangle], obb_fit: ObbFit) -> Self {
        let balls: Vec<(Point, Real)> = vertices_of(triangles).map(|p| (p, 0.0)).collect();
        let frames = match obb_fit {
            ObbFit::Triangles => [node_frame(triangles).0, Matrix::identity()],
            ObbFit::Hull => {
                let vertices: Vec<Point> = balls.iter().map(|b| b.0).collect();
                let hull = obb_from_points_hull_covariance(&vertices)
                    .map_or_else(Matrix::identity, |b| b.axes);
                [hull, Matrix::identity()]
            }
        };
        tighter_of(frames.map(|axes| rss_with_axes(&balls, &axes)), |s| {
            (s.volume(), s.surface_area())
        })
        .unwrap_or_else(|| {
            let b = Aabb::from_points(&balls.iter().map(|b| b.0).collect::<Vec<_>>());
            Rss::new(
                b.center(),
                [Vector::x(), Vector::y()],
                [0.0; 2],
                b.half_extents().norm(),
            )
        })
    }

    fn refit_parent(&self, left: &Self, right: &Self) -> Self {
        let ball = |s: &Rss, p: Point| (p, s.radius);
        let (l, r) = (left.corners(), right.corners());
        let balls: [(Point, Real); 8] = std::array::from_fn(|i| {
            if i < 4 {
                ball(left, l[i])
            } else {
                ball(right, r[i - 4])
            }
        });
        rss_with_axes(&balls, &self.frame()).unwrap_or(*self)
    }

    fn refit_leaf(&self, triangles: &[Triangle]) -> Self {
        let balls: Vec<(Point, Real)> = vertices_of(triangles).map(|p| (p, 0.0)).collect();
        rss_with_axes(&balls, &self.frame()).unwrap_or(*self)
    }

    fn surface_area(&self) -> Real {
        Rss::surface_area(self)
    }

    fn volume(&self) -> Real {
        Rss::volume(self)
    }

    fn contains_point_within(&self, p: &Point, tolerance: Real) -> bool {
        Rss::contains_point_within(self, p, tolerance)
    }

    fn split_axes(&self) -> [Vector; 3] {
        let b = self.oriented_box();
        axes_by_extent(&b.axes, &b.half_extents)
    }

    fn point_distance_squared(&self, p: &Point) -> Real {
        self.distance_squared(p)
    }

    fn to_aabb(&self) -> Aabb {
        Rss::to_aabb(self)
    }

    #[inline(always)]
    fn oriented_box(&self) -> Obb {
        Rss::oriented_box(self)
    }

    #[inline(always)]
    fn distance_bound(&self) -> DistanceBound {
        DistanceBound::Swept(*self)
    }

    fn ray_entry(&self, ray: &TraversalRay, t_min: Real, t_max: Real) -> Option<Real> {
        // The box around the volume: conservative, and exact where it
        // matters, at the leaves' triangle tests.
        self.oriented_box().ray_entry(ray, t_min, t_max)
    }
}
