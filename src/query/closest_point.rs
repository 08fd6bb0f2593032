//! The point of a mesh nearest a query point: snapping to a surface,
//! clearance checks, comparing a scan with its model.
//!
//! A nearest-first descent: the nearest child is visited next and the
//! second nearest after it (the rest wait unordered), and a subtree is
//! skipped once its volume lies farther than the best distance found so
//! far (or the caller's maximum).
//! Leaves answer with the exact closest point of each triangle (Ericson,
//! *Real-Time Collision Detection* §5.1.5, degenerate triangles as the
//! segment or point they span). Volumes are compared with a slack of a few
//! ulps of the best distance and of the mesh's coordinates (of the point's
//! too where a volume projects it), so a triangle tied with the best within
//! rounding is still looked at and ties go to the lower triangle id whatever
//! the tree's shape. Points far from a mesh, relative to its size, still
//! visit much of it: `f32` box distances cannot tell its triangles apart
//! there (a 100 m terrain from 1e8 m: every triangle).

use crate::bvh::{
    ArrayStack, BoundingVolume, NodeId, NodeKind, TraversalStack, WideChild, WideLayout, WideNode,
    nearest_first, stack_items,
};
use crate::intersect::TriangleLanes;
use crate::intersect::closest_point_on_triangle;
use crate::math::{Point, Real, distance_squared_wide, is_finite_point, squared_reach};
use crate::mesh::TriangleId;
use crate::query::batch::{Threads, fill_batch};
use crate::query::frame::LocalFrame;
use crate::query::mesh_tree::{MeshTree, PlacedMesh};
use crate::query::raycast_wide::{prefetch_lines, prefetch_node};
use crate::simd::{Avx2, Baseline, Isa, avx2_fn};

/// Factor on the squared reach in the plane-distance pruning: a few ulps
/// of relative rounding in the normal, the offset and their products.
const PLANE_MARGIN: Real = 1.0 + 64.0 * Real::EPSILON;

/// `sin²` of the least angle between a triangle's two edges at its first
/// vertex for which its plane prunes (see `MeshTree::nearest_in_leaf`): a
/// dimensionless shape threshold, `sin α ≥ 1/8`.
const PLANE_SIN_SQUARED: Real = 1.0 / 64.0;

/// A nearest-point question: the point, and the largest distance of
/// interest (nothing farther is searched; `Real::INFINITY` for none).
/// Made from a point (`&p` or `p`) or with [`PointQuery::within`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointQuery {
    /// The query point.
    pub point: Point,
    /// Answers farther than this are not reported (inclusive).
    pub max_distance: Real,
}

impl PointQuery {
    /// The nearest point within `max_distance` of `point` (inclusive).
    #[must_use]
    pub fn within(point: Point, max_distance: Real) -> Self {
        PointQuery {
            point,
            max_distance,
        }
    }
}

impl From<Point> for PointQuery {
    fn from(point: Point) -> Self {
        PointQuery::within(point, Real::INFINITY)
    }
}

impl From<&Point> for PointQuery {
    fn from(point: &Point) -> Self {
        PointQuery::from(*point)
    }
}

#[cfg(feature = "glam")]
impl From<glam::Vec3> for PointQuery {
    fn from(point: glam::Vec3) -> Self {
        PointQuery::from(Point::from(point))
    }
}

#[cfg(feature = "glam")]
impl From<glam::Vec3A> for PointQuery {
    fn from(point: glam::Vec3A) -> Self {
        PointQuery::from(Point::from(point))
    }
}

#[cfg(feature = "mint")]
impl From<mint::Point3<Real>> for PointQuery {
    fn from(point: mint::Point3<Real>) -> Self {
        PointQuery::from(Point::from(point))
    }
}

/// The point of a mesh nearest a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointProjection {
    /// The nearest point, on the triangle: `w·a + u·b + v·c`.
    pub point: Point,
    /// Its distance from the query point.
    pub distance: Real,
    /// The triangle it lies on (the lowest id among triangles at the same distance).
    pub triangle: TriangleId,
    /// Barycentric weight of vertex `b`.
    pub u: Real,
    /// Barycentric weight of vertex `c`.
    pub v: Real,
    /// Barycentric weight of vertex `a`.
    pub w: Real,
}

/// The best answer of a descent so far, by squared distance.
#[derive(Clone, Copy, Debug)]
struct Nearest {
    /// The best answer and its squared distance, in `f64`: squared in
    /// `f32`, distances below about 1e-22 round to 0 (every triangle then
    /// tied, and the lowest id won) and above about 1.8e19 overflow.
    found: Option<(f64, PointProjection)>,
    /// Volumes farther than this (squared, see [`squared_reach`]: a floor
    /// for subnormal squares, which pruned the nearest triangle 1e-22 from
    /// the point) cannot hold a better answer.
    reach_squared: Real,
    /// Added to distances (after [`RELATIVE_SLACK`]) before squaring
    /// `reach_squared`.
    absolute_slack: Real,
    /// `|p|∞` plus the mesh's [`MeshTree::triangle_extent`], where the
    /// absolute slack may shrink to `64 ε` of the coordinates near the
    /// answer (see [`Nearest::reach`]); `+∞` where it may not.
    near_scale: Real,
    max_distance: Real,
}

/// How much farther than the best distance a volume may seem and still be
/// visited, relative to that distance: an `f32` box distance is off by
/// about `2.5u` of itself (one rounding per axis difference, the squares
/// and their sum), so `8u` keeps every box that may hold a triangle as
/// near as the best. Relative, not of the coordinates: a point `1e5` from
/// a mesh prunes by `5e-3` instead of `1.5`, as a slack of its
/// coordinates did (a hunt timed such points at 50 times the usual cost).
const RELATIVE_SLACK: Real = 4.0 * Real::EPSILON;

impl Nearest {
    /// `absolute_slack` covers what is not relative to the distance:
    /// [`MeshTree::closest_point_rounding`], and for volumes whose distance
    /// projects the point itself (k-DOPs) a few `u` of its coordinates.
    fn new(query: &PointQuery, absolute_slack: Real, near_scale: Real) -> Self {
        let mut nearest = Nearest {
            found: None,
            reach_squared: 0.0,
            absolute_slack,
            near_scale,
            max_distance: query.max_distance,
        };
        nearest.reach_squared = squared_reach(nearest.reach(query.max_distance));
        nearest
    }

    /// The distance up to which volumes are visited when `distance` is the
    /// best. The absolute part covers the rounding of a closest point, a
    /// few `u` of its triangle's coordinates: at most the mesh's largest
    /// (`absolute_slack`), and for a triangle within the reach at most
    /// `|p|∞ + reach + extent` (`near_scale` plus twice the distance, the
    /// reach being about the distance): so one far triangle of a mesh no
    /// longer widens the search near the others (a terrain with one
    /// triangle 1e7 m out: 0.45 → 1,325 µs a point, in a review).
    #[inline(always)]
    fn reach(&self, distance: Real) -> Real {
        let near = 64.0 * Real::EPSILON * (self.near_scale + 2.0 * distance);
        distance * (1.0 + RELATIVE_SLACK) + self.absolute_slack.min(near)
    }

    /// Keeps the triangle's closest point if it beats the best so far
    /// (equal squared distances: the lower triangle id).
    #[inline(always)]
    fn offer(&mut self, p: &Point, tri: &crate::shape::Triangle, triangle: TriangleId) {
        #[cfg(test)]
        crate::test_support::count(crate::test_support::Work::ExactClosestPoint);
        let c = closest_point_on_triangle(p, tri);
        let d2 = distance_squared_wide(&c.point, p);
        let better = match &self.found {
            None => true,
            Some((best, b)) => d2 < *best || (d2 == *best && triangle < b.triangle),
        };
        if !better {
            return;
        }
        let distance = d2.sqrt() as Real;
        if !(distance <= self.max_distance) {
            return;
        }
        self.reach_squared = self.reach_squared.min(squared_reach(self.reach(distance)));
        self.found = Some((
            d2,
            PointProjection {
                point: c.point,
                distance,
                triangle,
                u: c.u,
                v: c.v,
                w: c.w,
            },
        ));
    }

    fn answer(self) -> Option<PointProjection> {
        self.found.map(|(_, projection)| projection)
    }
}

impl<V: BoundingVolume> MeshTree<V> {
    /// The point of the mesh nearest `query`'s point, with its distance,
    /// triangle and barycentric weights; `None` when the mesh is empty or
    /// nothing lies within the query's maximum distance. A NaN or infinite
    /// point, or a NaN or negative maximum, gives `None`.
    ///
    /// Ties at the same distance go to the lower triangle id. Distances are
    /// those of the `f32` closest points: their `f32` offsets from the
    /// query point, squared, summed and compared in `f64`
    /// (so tiny and huge meshes keep them apart); against an `f64`
    /// evaluation they agree to a few ulps of the coordinates
    /// (`tests/features/distance.rs`), from 1e-30 to 1e19 and beyond. A
    /// distance beyond `f32::MAX` (a point about 2e38 away) is `+∞`. So a
    /// point lying on the surface is found at the distance of that
    /// rounding (about 3e-8 on a unit cube), not 0: a maximum distance of
    /// 0 may find nothing, and a tolerance of `64 ε` times the largest
    /// coordinate finds it ([`ClosedMesh::signed_distance`](crate::ClosedMesh::signed_distance)
    /// decides such points exactly).
    #[must_use]
    pub fn closest_point(&self, query: impl Into<PointQuery>) -> Option<PointProjection> {
        let query = query.into();
        if !is_finite_point(&query.point) || !(query.max_distance >= 0.0) {
            return None;
        }
        if let Some(wide) = self.wide() {
            return match Avx2::detect() {
                Some(avx2) => nearest_wide_avx2(avx2, self, wide, &query),
                None => self.nearest_wide(Baseline::default(), wide, &query),
            };
        }
        self.nearest_binary(&query)
    }

    /// [`MeshTree::closest_point`] for many points with one maximum
    /// distance, into `out` in the points' order (`out` is cleared first),
    /// on the `threads` chosen; equal to one call per point.
    pub fn closest_points(
        &self,
        points: &[Point],
        max_distance: Real,
        threads: Threads,
        out: &mut Vec<Option<PointProjection>>,
    ) {
        fill_batch(out, points.len(), None, threads, |offset, chunk| {
            for (answer, p) in chunk.iter_mut().zip(&points[offset..]) {
                *answer = self.closest_point(PointQuery::within(*p, max_distance));
            }
        });
    }

    /// What a nearest-point distance may be off by beyond a few ulps of
    /// itself: `64 ε` of the mesh's largest coordinate, which bounds the
    /// rounding of a closest point (about `30u` of its triangle's
    /// coordinates) and of a plane's distance (about `60u`, see
    /// `nearest_in_leaf`). The descents' slack, and the distance within
    /// which signed distances decide exactly whether a point is on the
    /// surface.
    pub(crate) fn closest_point_rounding(&self) -> Real {
        64.0 * Real::EPSILON * self.coordinate_scale()
    }

    /// `|p|∞` plus the largest triangle extent: what bounds the coordinates
    /// of triangles near `p` (see [`Nearest::reach`]).
    fn near_scale(&self, p: &Point) -> Real {
        p.coords.amax() + self.triangle_extent()
    }

    /// Offers the leaf's triangles to `nearest` ([`MeshTree::nearest_in_triangle`]).
    #[inline(always)]
    fn nearest_in_leaf(&self, p: &Point, first: u32, count: u32, nearest: &mut Nearest) {
        for lanes in self.leaf_ray_triangles(first, count) {
            self.nearest_in_triangle(p, lanes, nearest);
        }
    }

    /// Offers a leaf triangle to `nearest`, first tested by the distance
    /// to its own box (cheaper than the exact closest point, and enough to
    /// skip most triangles of a leaf once a near one is known).
    #[inline(always)]
    fn nearest_in_triangle(&self, p: &Point, lanes: &TriangleLanes, nearest: &mut Nearest) {
        if lanes.box_distance_squared(p) > nearest.reach_squared {
            return;
        }
        // The distance to the triangle's plane is a second lower bound,
        // the one that prunes a surface point's neighbours: compared as
        // `(n·(p − a))² > reach² |n|²` with a margin for its rounding
        // (never true for NaN; the least normal number added, as to the
        // reach, for products so small that their rounding is
        // absolute). Only where the normal can be trusted: its
        // direction is off by about `u / sin α` (`α` the angle between
        // the edges it is made of), so the plane's distance is off by
        // that times `|p − a|`; a needle's or a sliver's normal is noise
        // that pruned the nearest triangle itself. Below `sin α = 1/8`,
        // and where the squares leave `f32`'s normal range, the exact
        // closest point decides alone.
        let tri = lanes.triangle();
        let (ab, ac) = (tri.b - tri.a, tri.c - tri.a);
        let n = ab.cross(&ac);
        let nn = n.norm_squared();
        let edges = ab.norm_squared() * ac.norm_squared();
        let trusted = nn > PLANE_SIN_SQUARED * edges
            && (Real::MIN_POSITIVE / PLANE_SIN_SQUARED..=Real::MAX).contains(&edges);
        if trusted {
            let h = n.dot(&(p - tri.a));
            if h * h > nearest.reach_squared * nn * PLANE_MARGIN + Real::MIN_POSITIVE {
                return;
            }
        }
        nearest.offer(p, &tri, lanes.id());
    }

    /// The nearest-first descent on the binary tree (any volume).
    fn nearest_binary(&self, query: &PointQuery) -> Option<PointProjection> {
        if self.bvh().fits_array_stack() {
            self.nearest_binary_on(query, &mut ArrayStack::new(&mut stack_items()))
        } else {
            self.nearest_binary_on(query, &mut Vec::new())
        }
    }

    #[inline(always)]
    fn nearest_binary_on(
        &self,
        query: &PointQuery,
        stack: &mut impl TraversalStack<(NodeId, Real)>,
    ) -> Option<PointProjection> {
        let bvh = self.bvh();
        if bvh.triangle_count() == 0 {
            return None;
        }
        let p = &query.point;
        // Any volume: some (k-DOPs) project the point itself, so its
        // coordinates count too.
        let absolute = self.closest_point_rounding() + 64.0 * Real::EPSILON * p.coords.amax();
        let mut nearest = Nearest::new(query, absolute, Real::INFINITY);
        let mut current = (NodeId::ROOT, bvh.root_volume().point_distance_squared(p));
        loop {
            let (id, d2) = current;
            if d2 <= nearest.reach_squared {
                match bvh.node(id).kind(id) {
                    NodeKind::Inner { left, right } => {
                        let l = bvh.node(left).volume.point_distance_squared(p);
                        let r = bvh.node(right).volume.point_distance_squared(p);
                        let (near, far) = if l <= r {
                            ((left, l), (right, r))
                        } else {
                            ((right, r), (left, l))
                        };
                        if far.1 <= nearest.reach_squared {
                            stack.push(far);
                        }
                        current = near;
                        continue;
                    }
                    NodeKind::Leaf { first, count } => {
                        self.nearest_in_leaf(p, first, count, &mut nearest);
                    }
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return nearest.answer(),
            }
        }
    }

    /// A dive to the nearest leaf that starts both 8-wide descents,
    /// pushing nothing: its triangles, offered to `nearest`, bound the
    /// search before any sibling is looked at, so the full descent after
    /// it keeps few of them. Returns the leaf's node, lane and first
    /// position (`None` for an empty tree).
    #[inline(always)]
    fn dive<I: Isa>(
        &self,
        isa: I,
        nodes: &[WideNode<8>],
        p: &Point,
        nearest: &mut Nearest,
    ) -> Option<(u32, usize, u32)> {
        let mut at = 0u32;
        loop {
            let node = &nodes[at as usize];
            let lane = node.point_distances_on(isa, p, Real::INFINITY).nearest;
            match node.child(lane) {
                WideChild::Node(child) => at = child,
                WideChild::Leaf { first, count } => {
                    self.nearest_in_leaf(p, first, count, nearest);
                    return Some((at, lane, first));
                }
                WideChild::Empty => return None,
            }
        }
    }

    /// The nearest-first descent on the 8-wide layout: in packets where
    /// the layout fits the caches, one leaf at a time where it does not.
    #[inline(always)]
    fn nearest_wide<I: Isa>(
        &self,
        isa: I,
        wide: &WideLayout,
        query: &PointQuery,
    ) -> Option<PointProjection> {
        if !wide.fits_array_stack() {
            self.nearest_binary(query)
        } else if wide.outgrows_cache() {
            self.nearest_mixed(isa, wide, query)
        } else {
            self.nearest_packed(isa, wide, query)
        }
    }

    /// The nearest-first descent on an 8-wide layout larger than the
    /// caches: of a node's children, leaves and inner nodes alike, the
    /// nearest next and the second nearest after it ([`nearest_first`]),
    /// each leaf's triangles tested one by one. Packets
    /// ([`MeshTree::nearest_packed`]) are a second copy of the triangles to
    /// read at random there: on a 1M-triangle heightfield they took points
    /// on the surface from 570-650 to 830-1,060 ns.
    #[inline(always)]
    fn nearest_mixed<I: Isa>(
        &self,
        isa: I,
        wide: &WideLayout,
        query: &PointQuery,
    ) -> Option<PointProjection> {
        let p = &query.point;
        let nodes = wide.nodes();
        // Box distances are relative to themselves: only the triangles'
        // coordinates count.
        let mut nearest = Nearest::new(query, self.closest_point_rounding(), self.near_scale(p));
        let mut items = stack_items();
        // (wide node, 0, d²) or (first leaf position, count ≥ 1, d²).
        let mut stack = ArrayStack::<(u32, u32, Real)>::new(&mut items);
        // The dived leaf is not tested again.
        let dived =
            (self.dive(isa, nodes, p, &mut nearest)).map_or(u32::MAX, |(_, _, first)| first);
        let mut current = (0u32, 0u32, 0.0);
        loop {
            let (at, count, d2) = current;
            if d2 <= nearest.reach_squared {
                if count == 0 {
                    let node = &nodes[at as usize];
                    let distances = node.point_distances_on(isa, p, nearest.reach_squared);
                    let near = distances.within;
                    if near == 0 {
                        match stack.pop() {
                            Some(next) => current = next,
                            None => return nearest.answer(),
                        }
                        continue;
                    }
                    let leaves = node.leaf_lanes_on(isa);
                    let child = |lane: usize| {
                        if leaves >> lane & 1 != 0 {
                            let (first, count) = node.leaf_range(lane);
                            (first, count, distances.squared[lane])
                        } else {
                            (node.inner_child(lane), 0, distances.squared[lane])
                        }
                    };
                    // Each node and leaf is a miss on a tree this large:
                    // the children that stay in reach are asked for as
                    // soon as they are known (the nearest is read next,
                    // the others after it).
                    self.prefetch_children(nodes, node, near, leaves);
                    // The nearest child next, the second nearest on top of
                    // the stack; the others wait beneath it with their
                    // distances, checked again when popped.
                    current = nearest_first(&distances.squared, near, child, &mut stack);
                    continue;
                } else if at != dived {
                    self.nearest_in_leaf(p, at, count, &mut nearest);
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return nearest.answer(),
            }
        }
    }

    /// Asks the cache for the children in `lanes`: inner nodes, and the
    /// triangles of leaves (a hint only).
    #[inline(always)]
    fn prefetch_children(
        &self,
        nodes: &[WideNode<8>],
        node: &WideNode<8>,
        lanes: u32,
        leaves: u32,
    ) {
        let mut pending = lanes;
        while pending != 0 {
            let lane = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            if leaves >> lane & 1 != 0 {
                let (first, count) = node.leaf_range(lane);
                prefetch_lines(self.leaf_ray_triangles(first, count));
            } else {
                prefetch_node(&nodes[node.inner_child(lane) as usize]);
            }
        }
    }

    /// The nearest-first descent on the 8-wide layout. At each node the
    /// triangles of the leaves within reach are bounded together, eight to
    /// an instruction ([`NearestPackets`]), and only those whose bound is
    /// within the best distance take the exact closest point; then the
    /// nearest inner child is visited next and the second nearest after
    /// it ([`nearest_first`]).
    #[inline(always)]
    fn nearest_packed<I: Isa>(
        &self,
        isa: I,
        wide: &WideLayout,
        query: &PointQuery,
    ) -> Option<PointProjection> {
        let p = &query.point;
        let xyz = [p.x, p.y, p.z];
        let nodes = wide.nodes();
        let packets = self.nearest_packets(wide);
        // Box distances are relative to themselves: only the triangles'
        // coordinates count.
        let mut nearest = Nearest::new(query, self.closest_point_rounding(), self.near_scale(p));
        let reach = |nearest: &Nearest| nearest.reach_squared;
        let exact = |nearest: &mut Nearest, k: u32| {
            let lanes = self.leaf_ray_triangle(k as usize);
            nearest.offer(p, &lanes.triangle(), lanes.id());
        };
        let screened = |nearest: &mut Nearest, k: u32| {
            self.nearest_in_triangle(p, self.leaf_ray_triangle(k as usize), nearest);
        };
        // The dived leaf is not tested again: `skip` clears its lane at its node.
        let (dived, skip) = (self.dive(isa, nodes, p, &mut nearest))
            .map_or((u32::MAX, 0), |(at, lane, _)| (at, 1 << lane));
        let mut items = stack_items();
        let mut stack = ArrayStack::<(u32, Real)>::new(&mut items);
        let mut current = (0u32, 0.0);
        loop {
            let (at, d2) = current;
            if d2 <= nearest.reach_squared {
                let node = &nodes[at as usize];
                let distances = node.point_distances_on(isa, p, nearest.reach_squared);
                let leaves = node.leaf_lanes_on(isa);
                let near_leaves = distances.within & leaves & !if at == dived { skip } else { 0 };
                if near_leaves != 0 {
                    if near_leaves.count_ones() >= 2 {
                        packets.offer(
                            isa,
                            &xyz,
                            at,
                            near_leaves,
                            &mut nearest,
                            reach,
                            exact,
                            screened,
                        );
                    } else {
                        let (first, count) = node.leaf_range(near_leaves.trailing_zeros() as usize);
                        self.nearest_in_leaf(p, first, count, &mut nearest);
                    }
                }
                let inner = distances.within & !leaves;
                if inner != 0 {
                    // The nearest child next, the second nearest on top of
                    // the stack; the others wait beneath it with their
                    // distances, checked again when popped.
                    let child = |lane: usize| (node.inner_child(lane), distances.squared[lane]);
                    current = nearest_first(&distances.squared, inner, child, &mut stack);
                    continue;
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return nearest.answer(),
            }
        }
    }
}

avx2_fn! {
    /// [`MeshTree::nearest_wide`] as AVX2 code (the eight box distances in
    /// one pass of 8-lane instructions).
    fn nearest_wide_avx2[V: BoundingVolume](
        avx2: Avx2,
        tree: &MeshTree<V>,
        wide: &WideLayout,
        query: &PointQuery,
    ) -> Option<PointProjection> {
        tree.nearest_wide(avx2, wide, query)
    }
}

impl<V: BoundingVolume> PlacedMesh<'_, V> {
    /// [`MeshTree::closest_point`] with the query point in world space: the
    /// point enters the mesh frame through an `f64` transform (rounded
    /// once), and the answer's point comes back to world space.
    #[must_use]
    pub fn closest_point(&self, query: impl Into<PointQuery>) -> Option<PointProjection> {
        let query = query.into();
        if !is_finite_point(&query.point) {
            return None;
        }
        let local = PointQuery::within(
            LocalFrame::new(&self.pose).point(&query.point),
            query.max_distance,
        );
        self.tree
            .closest_point(local)
            .map(|projection| PointProjection {
                point: self.pose * projection.point,
                ..projection
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounding_volume::Aabb;
    use crate::math::Vector;
    use crate::mesh::TriMesh;
    use crate::test_support::{Work, counted};

    /// The brute force over every triangle, as the descent ranks them.
    fn nearest_by_brute_force(mesh: &TriMesh, p: &Point) -> (f64, TriangleId) {
        (0..mesh.len() as u32)
            .map(|i| {
                let id = TriangleId(i);
                let c = closest_point_on_triangle(p, &mesh.triangle(id));
                (distance_squared_wide(&c.point, p), id)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .expect("not empty")
    }

    /// One far triangle does not widen the search near the others: the
    /// absolute slack is `64 ε` of the coordinates near the answer, not of
    /// the mesh's largest (a terrain with one triangle 1e7 m out took 0.45
    /// → 1,325 µs a point, in a review). Counted, not timed: the exact
    /// closest points of points near the terrain, with the far triangle and
    /// without, and the answers of a brute force.
    #[test]
    fn a_far_triangle_does_not_widen_the_search_near_the_others() {
        let terrain = TriMesh::terrain(60, 100.0, 3.0, 9);
        let with_far = |far: Real| {
            let mut vertices = terrain.vertices().to_vec();
            let mut indices = terrain.indices().to_vec();
            let base = vertices.len() as u32;
            vertices.extend([
                Point::new(far, 0.0, 0.0),
                Point::new(far + 1.0, 0.0, 0.0),
                Point::new(far, 1.0, 0.0),
            ]);
            indices.push([base, base + 1, base + 2]);
            TriMesh::new(vertices, indices).expect("valid")
        };
        let mut rand = crate::test_support::unit_floats(0x7e44);
        let points: Vec<Point> = (0..400)
            .map(|_| {
                Point::new(
                    80.0 * rand() - 40.0,
                    80.0 * rand() - 40.0,
                    4.0 * rand() - 1.0,
                )
            })
            .collect();
        let mut counts = Vec::new();
        for mesh in [terrain.clone(), with_far(1e5), with_far(1e7)] {
            let tree = MeshTree::<Aabb>::new(mesh.clone());
            let (answers, exact) = counted(Work::ExactClosestPoint, || {
                points
                    .iter()
                    .map(|p| tree.closest_point(p))
                    .collect::<Vec<_>>()
            });
            for (p, found) in points.iter().zip(answers) {
                let found = found.expect("a nearest point");
                let (d2, id) = nearest_by_brute_force(&mesh, p);
                assert_eq!(
                    (found.triangle, found.distance),
                    (id, d2.sqrt() as Real),
                    "{p:?}"
                );
            }
            counts.push(exact);
        }
        assert!(counts[2] <= counts[0] + counts[0] / 10, "{counts:?}");
        assert!(counts[1] <= counts[0] + counts[0] / 10, "{counts:?}");
    }

    /// The packets a first nearest point makes are made again after the
    /// vertices move: answers after `set_vertices` are the moved mesh's.
    #[test]
    fn nearest_points_follow_moved_vertices() {
        let mesh = TriMesh::terrain(30, 10.0, 2.0, 5);
        let mut tree = MeshTree::<Aabb>::new(mesh.clone());
        let p = Point::new(1.0, 2.0, 6.0);
        let unasked = tree.bytes();
        assert!(tree.closest_point(p).is_some());
        let bytes = tree.bytes();
        // What the docs say the packets take: about 60 bytes a triangle (a
        // packet is 352 bytes for up to eight, and a node's last is partly
        // empty).
        let per_triangle = (bytes - unasked) / mesh.len();
        assert!(
            (44..=80).contains(&per_triangle),
            "{per_triangle} bytes a triangle"
        );
        let moved: Vec<Point> = mesh
            .vertices()
            .iter()
            .map(|v| Point::new(v.x * 0.5 - 3.0, v.y + 0.25 * v.x, v.z * 2.0 + 1.0))
            .collect();
        tree.set_vertices(moved.clone()).expect("same count");
        let moved_mesh = TriMesh::new(moved, mesh.indices().to_vec()).expect("valid");
        assert!(tree.bytes() < bytes, "the packets go with the old vertices");
        let mut rand = crate::test_support::unit_floats(0x9ac4);
        for _ in 0..300 {
            let q = Point::new(
                20.0 * rand() - 13.0,
                20.0 * rand() - 8.0,
                12.0 * rand() - 4.0,
            );
            let found = tree.closest_point(q).expect("a nearest point");
            let (d2, id) = nearest_by_brute_force(&moved_mesh, &q);
            assert_eq!(
                (found.triangle, found.distance),
                (id, d2.sqrt() as Real),
                "{q:?}"
            );
        }
        assert_eq!(tree.bytes(), bytes, "the packets made again, as many");
    }

    /// Pins the descent's slack relative to the best distance (8cadaad): a
    /// slack of the point's coordinates (`64 ε |p|∞`, 0.8 m for a point
    /// 1e5 m away) let points far from a terrain, or near a terrain far
    /// from the origin, compute the exact closest point of most of its
    /// triangles (a hunt timed 1.8 ms against 7.6 µs a point on 200k
    /// triangles). Counted, not timed: the exact closest points a query
    /// computes, against the mesh's 20,000 triangles.
    #[test]
    fn far_points_compute_few_exact_closest_points() {
        let terrain = TriMesh::terrain(100, 100.0, 5.0, 3);
        let moved = |by: Vector| {
            let vertices = terrain.vertices().iter().map(|v| v + by).collect();
            TriMesh::new(vertices, terrain.indices().to_vec()).expect("valid")
        };
        let (shifted, far) = (
            moved(Vector::new(1e5, -2e5, 1e5)),
            moved(Vector::new(1e6, 0.0, 0.0)),
        );
        // With the old slack the counts were 205, 2,152, 19,526, 142, 428
        // and 2,692.
        let cases = [
            (&terrain, Point::new(3.0, -7.0, 1e5), 100),
            (&terrain, Point::new(3.0, -7.0, 3e5), 100),
            (&terrain, Point::new(3.0, -7.0, 1e6), 400),
            (&terrain, Point::new(1e4, 20.0, 1.0), 100),
            (&shifted, Point::new(1e5 + 10.0, -2e5 - 4.0, 1e5 + 8.0), 300),
            (&far, Point::new(1e6 + 10.0, -4.0, 8.0), 1_600),
        ];
        for (mesh, p, most) in cases {
            let tree = MeshTree::<Aabb>::new(mesh.clone());
            let (found, exact) = counted(Work::ExactClosestPoint, || tree.closest_point(p));
            let found = found.expect("a nearest point");
            let (d2, id) = nearest_by_brute_force(mesh, &p);
            assert_eq!(found.triangle, id, "{p:?}");
            assert_eq!(found.distance, d2.sqrt() as Real, "{p:?}");
            assert!(
                exact <= most,
                "{p:?}: {exact} exact closest points of {} triangles",
                mesh.len()
            );
        }
    }
}
