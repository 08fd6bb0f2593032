//! Distance between two placed meshes, and the tolerance query "are they
//! closer than `d`?".
//!
//! The simultaneous descent of Larsen, Gottschalk, Lin and Manocha ("Fast
//! Proximity Queries with Swept Sphere Volumes", 1999; PQP): node pairs are
//! taken in the overlap query's frame and order (B's boxes mapped into A's
//! frame, the bulkier node split first, see `mesh_overlap`), the nearer
//! child pair first, and a pair is dropped once a lower bound of its boxes'
//! distance exceeds the best distance so far. The bound combines the gaps
//! along each box's three face axes as a Euclidean norm (projecting onto
//! orthonormal axes never lengthens a distance), or takes the gap along
//! the centres' offset where that is larger. Leaf pairs answer with the
//! exact closest points of their triangles ([`triangle_distance`]).
//!
//! B's triangles are mapped into A's frame in `f32`, so distances carry a
//! few ulps of the coordinates (`tests/features/mesh_distance.rs` pins `64 ε` of
//! them against an `f64` brute force); exact answers compare boxes with
//! that much slack, so ties reach the rule (the lower pair of triangle
//! ids), and bounded errors without it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use smallvec::SmallVec;

use crate::bounding_volume::{Aabb, Obb, Rss};
use crate::bvh::{BoundingVolume, DistanceBound, NodeId, Visit};
use crate::intersect::{triangle_distance, triangle_distance_knowing, triangles_overlap};
use crate::math::{Point, Real, Vector, is_finite_point, length_wide};
use crate::query::mesh_overlap::{PairDescent, Step};
use crate::query::{OverlapStats, PlacedMesh, TrianglePair};
use crate::shape::{Triangle, TriangleId};

/// The nearest points of two placed meshes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshDistance {
    /// Their distance: 0 when the surfaces touch or cross.
    pub distance: Real,
    /// The nearest point of the first mesh (`self`), in world space.
    pub point_a: Point,
    /// The nearest point of the second mesh (`other`), in world space.
    pub point_b: Point,
    /// The triangles the points lie on (the lowest pair among equals at a
    /// positive distance; a touching pair at 0).
    pub triangles: TrianglePair,
}

/// How much a mesh distance may exceed the true one, as PQP and FCL offer:
/// the search drops a pair of boxes once its lower bound `l` satisfies
/// `l (1 + relative) ≥ best` or `l + absolute ≥ best`, so the answer `d`
/// stays within `d ≤ max((1 + relative) · true, true + absolute)` (up to
/// rounding: `64 ε` of the coordinates, and of the meshes' relative
/// placement), and far fewer pairs are looked at. [`ErrorBound::EXACT`]
/// asks for the distance itself, ties at the lowest pair; `f32` cannot
/// tell apart pairs whose distances differ by less than a few ulps of
/// that distance, so meshes far apart relative to their size (a thousand
/// of the bunny's sizes and more), or resting parallel on each other,
/// visit every such pair to rank them (two bunnies 1e5 sizes apart: 8.7 s
/// with `Obb` trees). A small bound (`relative(1e-6)`) costs them no
/// accuracy that `f32` holds and leaves the ties out (33 µs there).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorBound {
    /// Allowed excess as a fraction of the true distance.
    pub relative: Real,
    /// Allowed excess as a length.
    pub absolute: Real,
}

impl ErrorBound {
    /// No excess: the distance itself, ties to the lower triangle pair.
    pub const EXACT: ErrorBound = ErrorBound {
        relative: 0.0,
        absolute: 0.0,
    };

    /// An excess of at most `fraction` of the true distance.
    #[must_use]
    pub fn relative(fraction: Real) -> Self {
        ErrorBound {
            relative: fraction,
            absolute: 0.0,
        }
    }

    /// An excess of at most `length`.
    #[must_use]
    pub fn absolute(length: Real) -> Self {
        ErrorBound {
            relative: 0.0,
            absolute: length,
        }
    }

    /// The reach a best distance `d` leaves: boxes beyond it are dropped.
    #[inline(always)]
    fn reach(&self, d: Real) -> Real {
        (d / (1.0 + self.relative)).min(d - self.absolute)
    }
}

/// The best pair so far, by distance in A's frame.
struct Closest {
    best: Option<(Real, Point, Point, TrianglePair)>,
    /// Box pairs farther than this cannot hold a better pair.
    reach: Real,
    pad: Real,
    error: ErrorBound,
    /// No triangle pair crosses (an overlap query found none): the exact
    /// crossing test can be skipped.
    known_apart: bool,
}

impl Closest {
    fn offer(&mut self, distance: Real, p_a: Point, p_b: Point, pair: TrianglePair) {
        let better = match &self.best {
            None => distance <= self.reach,
            Some((d, _, _, b)) => distance < *d || (distance == *d && pair < *b),
        };
        if better {
            self.reach = self.reach.min(self.error.reach(distance) + self.pad);
            self.best = Some((distance, p_a, p_b, pair));
        }
    }
}

impl<'q, A: BoundingVolume, B: BoundingVolume> PairDescent<'q, A, B> {
    /// A lower bound of the distance between A's box and B's box (already
    /// in A's frame), less `pad`; 0 when every axis overlaps.
    #[inline(always)]
    fn box_gap(&self, a: &Obb, b: &Obb, pad: Real) -> Real {
        let offset = b.center - a.center;
        // B's axes and the offset in A's frame, as the separating-axis test
        // has them: `R = Aᵀ B`, `t = Aᵀ offset`.
        let r = a.axes.tr_mul(&b.axes);
        let t = a.axes.tr_mul(&offset);
        let abs = r.abs();
        let (ha, hb) = (&a.half_extents, &b.half_extents);
        // The boxes' separations along A's three axes, and along B's: A's
        // axes are orthonormal, so a point pair's offset is at least the
        // Euclidean norm of its per-axis separations (likewise in B's
        // frame), which beats the largest single separation when the boxes
        // lie apart in two or three directions.
        let (mut along_a, mut along_b) = (Vector::zeros(), Vector::zeros());
        for i in 0..3 {
            let reach_b = hb.dot(&abs.row(i).transpose());
            along_a[i] = (t[i].abs() - ha[i] - reach_b).max(0.0);
            let reach_a = ha.dot(&abs.column(i));
            along_b[i] = (r.column(i).dot(&t).abs() - hb[i] - reach_a).max(0.0);
        }
        // Lengths through `length_wide`: from `f32` squares, meshes 1.9e19
        // apart measured 2.5e19, and a tolerance query at 1e-22 answered
        // false at the distance itself.
        let gap = length_wide(&along_a).max(length_wide(&along_b));
        // The separation along the centres' offset, another axis of the
        // separating-axis family: for boxes far apart relative to their
        // size the face axes each see only part of the offset and subtract
        // their extents on every one of them (two far bunnies' OBB trees
        // visited 170 times the pairs of their AABB trees).
        let length = length_wide(&t);
        let along_offset = if length > 0.0 {
            let u = t / length;
            let reach_a = ha.dot(&u.abs());
            let reach_b = hb.dot(&r.tr_mul(&u).abs());
            length - reach_a - reach_b
        } else {
            0.0
        };
        let gap = gap.max(along_offset);
        (gap - pad).max(0.0)
    }

    /// A lower bound of the distance between A's node shape and B's (already
    /// in A's frame), less `pad`. Two swept rectangles: the gap
    /// of their flat core rectangles less both radii, so that separations
    /// in two or three directions meet as a rounded rim rather than a box
    /// corner. (Their exact distance, [`crate::intersect::rss_distance`], halves the pairs
    /// visited on the bunny pair but costs about 250 ns a pair, 2.6 times
    /// slower in all; see docs/performance.md.) Anything else: the boxes
    /// around the shapes.
    #[inline(always)]
    fn bound_gap(&self, a: &DistanceBound, b: &DistanceBound, pad: Real) -> Real {
        match (a, b) {
            (DistanceBound::Swept(a), DistanceBound::Swept(b)) => {
                (self.box_gap(&a.core_box(), &b.core_box(), pad) - a.radius - b.radius).max(0.0)
            }
            _ => self.box_gap(&a.to_box(), &b.to_box(), pad),
        }
    }

    /// B's node shape in A's frame.
    #[inline(always)]
    fn bound_b_in_a(&self, b: &DistanceBound) -> DistanceBound {
        match b {
            DistanceBound::Box(b) => DistanceBound::Box(self.box_b_in_a(b)),
            DistanceBound::Swept(s) => DistanceBound::Swept(Rss::new(
                self.b_to_a(&s.center),
                s.axes.map(|axis| self.b_axis_to_a(&axis)),
                s.half_lengths,
                s.radius,
            )),
        }
    }

    /// The nearest triangle pair within `limit` (inclusive), in A's frame.
    /// With `stop_within`, returns as soon as a pair within it is found.
    ///
    /// Best first: the nearer child pair is taken at once, the other waits
    /// in a heap ordered by its lower bound, and the search ends when the
    /// least bound waiting exceeds the best distance (measured against a
    /// depth-first stack: 132 against 81 µs a pose on FCL's env vs rob).
    fn nearest(
        &self,
        limit: Real,
        stop_within: Option<Real>,
        known_apart: bool,
        error: ErrorBound,
    ) -> Closest {
        let mut closest = Closest {
            best: None,
            reach: limit,
            // Exact answers keep the rounding pad so that ties reach the
            // pair rule; a bounded error leaves it out, as it leaves out
            // pairs that are nearer by less than the bound (parallel plates
            // 0.01 apart, with a 1% bound: 300 ms with the pad, 6 us without).
            pad: if error == ErrorBound::EXACT {
                self.pad
            } else {
                0.0
            },
            error,
            known_apart,
        };
        self.nearest_into(&mut closest, stop_within);
        closest
    }

    fn nearest_into(&self, closest: &mut Closest, stop_within: Option<Real>) {
        let (tree_a, tree_b) = (self.a.bvh(), self.b.bvh());
        if tree_a.triangle_count() == 0 || tree_b.triangle_count() == 0 {
            return;
        }
        let box_a = |id: NodeId| tree_a.node(id).volume.distance_bound();
        let box_b = |id: NodeId| self.bound_b_in_a(&tree_b.node(id).volume.distance_bound());
        let pad = closest.pad;
        let gap = |id_a: NodeId, id_b: NodeId| self.bound_gap(&box_a(id_a), &box_b(id_b), pad);
        let mut current = (NodeId::ROOT, NodeId::ROOT, gap(NodeId::ROOT, NodeId::ROOT));
        let mut heap = BinaryHeap::new();
        loop {
            let (id_a, id_b, lower) = current;
            if lower <= closest.reach {
                let children = match self.step(id_a, id_b) {
                    Step::Leaves { a, b } => {
                        self.nearest_leaf_pair(a, b, closest);
                        if let (Some(within), Some((d, ..))) = (stop_within, &closest.best)
                            && *d <= within
                        {
                            return;
                        }
                        None
                    }
                    // The node that stays is put in A's frame once.
                    Step::SplitA { left, right } => {
                        let b = box_b(id_b);
                        Some([
                            ((left, id_b), self.bound_gap(&box_a(left), &b, pad)),
                            ((right, id_b), self.bound_gap(&box_a(right), &b, pad)),
                        ])
                    }
                    Step::SplitB { left, right } => {
                        let a = box_a(id_a);
                        Some([
                            ((id_a, left), self.bound_gap(&a, &box_b(left), pad)),
                            ((id_a, right), self.bound_gap(&a, &box_b(right), pad)),
                        ])
                    }
                };
                if let Some([(first, g1), (second, g2)]) = children {
                    let ((near, g_near), (far, g_far)) = if g1 <= g2 {
                        ((first, g1), (second, g2))
                    } else {
                        ((second, g2), (first, g1))
                    };
                    if g_far <= closest.reach {
                        // Gaps are non-negative (`+ 0.0` turns −0 into +0), so
                        // their bits order as the values: integer keys.
                        let key = (g_far + 0.0).to_bits();
                        heap.push(Reverse((key, far.0.0, far.1.0)));
                    }
                    current = (near.0, near.1, g_near);
                    continue;
                }
            }
            match heap.pop() {
                Some(Reverse((key, a, b))) if Real::from_bits(key) <= closest.reach => {
                    current = (NodeId(a), NodeId(b), Real::from_bits(key));
                }
                _ => return,
            }
        }
    }

    /// Offers every triangle pair of two leaves (B's mapped into A's frame),
    /// each first tested by the gap between the two triangles' boxes.
    fn nearest_leaf_pair(
        &self,
        (first_a, count_a): (u32, u32),
        (first_b, count_b): (u32, u32),
        closest: &mut Closest,
    ) {
        // B's triangles in A's frame, with their boxes, their normals for
        // the plane gap (zero for slivers) and whether they are degenerate
        // in B's own frame: needles, which the overlap query leaves out and
        // the change of frame may have given an area, so they are tried
        // for crossings here.
        let mut moved: SmallVec<[MovedTriangle; 8]> = SmallVec::new();
        for kb in first_b..first_b + count_b {
            let (own, id) = self.b.leaf_triangle(kb as usize);
            // Rays' flag, decided when the tree was built: false for a zero
            // normal or collinear vertices.
            let needle = !self.b.leaf_ray_triangle(kb as usize).hittable();
            let tri = Triangle::new(
                self.b_to_a(&own.a),
                self.b_to_a(&own.b),
                self.b_to_a(&own.c),
            );
            let bounds = Aabb::from_points(&tri.vertices());
            moved.push((tri, bounds, gap_normal(&tri, &bounds), needle, id));
        }
        for ka in first_a..first_a + count_a {
            let (tri_a, id_a) = self.a.leaf_triangle(ka as usize);
            let box_a = Aabb::from_points(&tri_a.vertices());
            let normal_a = gap_normal(&tri_a, &box_a);
            for (tri_b, box_b, normal_b, needle_b, id_b) in &moved {
                let apart = (box_b.min - box_a.max).sup(&(box_a.min - box_b.max));
                let box_gap = length_wide(&apart.sup(&Vector::zeros()));
                // How far apart the two triangles' points can be, per axis:
                // what the plane gaps' direction error scales with.
                let span = || (box_b.max - box_a.min).sup(&(box_a.max - box_b.min)).amax();
                let limit = closest.reach + closest.pad;
                if box_gap - closest.pad > closest.reach
                    || plane_gap_exceeds(&tri_a, &normal_a, tri_b, limit, span)
                    || plane_gap_exceeds(tri_b, normal_b, &tri_a, limit, span)
                {
                    continue;
                }
                // The pair is known not to cross when the overlap query
                // found no touching pair, or when their boxes are apart.
                let crossing =
                    !closest.known_apart && apart.max() <= 0.0 && triangles_overlap(&tri_a, tri_b);
                #[cfg(test)]
                crate::test_support::count(crate::test_support::Work::TrianglePairDistance);
                let found = triangle_distance_knowing(&tri_a, tri_b, crossing, *needle_b);
                if found.distance <= closest.reach {
                    let pair = TrianglePair { a: id_a, b: *id_b };
                    closest.offer(found.distance, found.p1, found.p2, pair);
                }
            }
        }
    }

    /// The first touching pair of the overlap descent, as a distance of 0.
    fn touching(&self) -> Option<(Real, Point, Point, TrianglePair)> {
        let mut found = None;
        self.run(&mut OverlapStats::default(), |pair| {
            found = Some(pair);
            Visit::Stop
        });
        let pair = found?;
        let (tri_a, tri_b) = (self.a.triangle(pair.a), self.b.triangle(pair.b));
        let moved = Triangle::new(
            self.b_to_a(&tri_b.a),
            self.b_to_a(&tri_b.b),
            self.b_to_a(&tri_b.c),
        );
        let at = triangle_distance(&tri_a, &moved);
        Some((0.0, at.p1, at.p2, pair))
    }
}

impl<'q, A: BoundingVolume> PlacedMesh<'q, A> {
    /// The distance between the two meshes' surfaces, their nearest points
    /// (world space) and triangles; 0 with a touching pair when they touch
    /// or cross. `None` for a non-finite pose, for poses so far apart (about
    /// 3e38) that their relative placement overflows, and where the answer
    /// itself leaves `f32`'s range (a distance or a world point beyond about
    /// 3.4e38: meshes whose vertices reach there in each other's frames or
    /// in the world). Containment without touching
    /// is a positive distance (surfaces, not solids).
    ///
    /// With [`ErrorBound::EXACT`], distances agree with an `f64`
    /// evaluation to a few ulps of the coordinates involved and ties at a
    /// positive distance go to the lower triangle pair; other bounds trade
    /// accuracy for speed as PQP's and FCL's do (a NaN or negative bound
    /// counts as exact). Touching meshes answer 0 with the pair
    /// [`PlacedMesh::first_contact`] finds (picking the lowest would cost
    /// what listing every contact with [`PlacedMesh::touching_pairs`] does).
    #[must_use]
    pub fn distance<B: BoundingVolume>(
        &self,
        other: &PlacedMesh<'q, B>,
        error: ErrorBound,
    ) -> Option<MeshDistance> {
        let descent = PairDescent::new(self, other)?;
        let error = ErrorBound {
            relative: if error.relative > 0.0 {
                error.relative
            } else {
                0.0
            },
            absolute: if error.absolute > 0.0 {
                error.absolute
            } else {
                0.0
            },
        };
        // Touching meshes: the overlap descent finds a pair fastest.
        let (distance, p_a, p_b, triangles) = match descent.touching() {
            Some(touching) => touching,
            None => {
                descent
                    .nearest(Real::INFINITY, Some(0.0), true, error)
                    .best?
            }
        };
        let (point_a, point_b) = (self.pose * p_a, self.pose * p_b);
        let finite = distance.is_finite() && is_finite_point(&point_a) && is_finite_point(&point_b);
        finite.then_some(MeshDistance {
            distance,
            point_a,
            point_b,
            triangles,
        })
    }

    /// True when the surfaces come within `tolerance` of each other
    /// (inclusive; touching counts): PQP's tolerance query, which stops at
    /// the first pair found within it and never looks at boxes farther
    /// away. `false` for a non-finite pose or a NaN or negative tolerance.
    #[must_use]
    pub fn is_within<B: BoundingVolume>(&self, other: &PlacedMesh<'q, B>, tolerance: Real) -> bool {
        if !(tolerance >= 0.0) {
            return false;
        }
        PairDescent::new(self, other)
            .and_then(|descent| {
                descent
                    .nearest(tolerance, Some(tolerance), false, ErrorBound::EXACT)
                    .best
            })
            .is_some_and(|(d, ..)| d <= tolerance)
    }
}

/// `Triangle::sin²` of the smallest angle below which a triangle's `f32`
/// normal is not trusted for the plane gap (`sin θ < 10⁻³`, as the
/// nearest-point routine's sliver test).
const GAP_SLIVER_SIN_SQUARED: Real = 1e-6;

/// One of B's triangles in A's frame for a leaf pair: the triangle, its
/// box, its normal for the plane gap ([`gap_normal`]), whether it is a
/// needle (degenerate in B's own frame), and its id.
type MovedTriangle = (Triangle, Aabb, Vector, bool, TriangleId);

/// The normal of `tri` (whose box is `bounds`) for [`plane_gap_exceeds`],
/// or zero for a sliver or a degenerate triangle, whose rounded normal's
/// direction is noise and its plane no bound (a needle through a face,
/// mapped into the other mesh's frame, measured 37 times its distance).
/// Slivers are told by the normal against the box's diagonal `d`, which
/// is at least the longest edge and at most `√3` times it: `|n|² ≤ 10⁻⁶ d⁴`
/// keeps every triangle whose smallest angle has `sin θ > 3·10⁻³`.
#[inline(always)]
fn gap_normal(tri: &Triangle, bounds: &Aabb) -> Vector {
    let n = tri.scaled_normal();
    let diagonal = (bounds.max - bounds.min).norm_squared();
    if n.norm_squared() > GAP_SLIVER_SIN_SQUARED * diagonal * diagonal && diagonal.is_finite() {
        n
    } else {
        Vector::zeros()
    }
}

/// Whether `other` lies beyond the plane of `tri` (normal `n`, any
/// length) by more than `limit`: the least distance of its vertices to the
/// plane when all lie on one side (else 0), a lower bound of the two
/// triangles' distance (0 for a zero normal, see [`gap_normal`], and for
/// NaN). The rounded normal's direction is off by up to about `10u / sin θ`
/// (6e-4 for the triangles [`gap_normal`] keeps), which moves a vertex's
/// side by that much of its distance from `tri.a`, at most `√3 · span()`
/// (the largest coordinate difference between the two triangles' points):
/// the gap is lowered by that before it prunes.
#[inline(always)]
fn plane_gap_exceeds(
    tri: &Triangle,
    n: &Vector,
    other: &Triangle,
    limit: Real,
    span: impl Fn() -> Real,
) -> bool {
    let side = |p: &Point| n.dot(&(p - tri.a));
    let (a, b, c) = (side(&other.a), side(&other.b), side(&other.c));
    let least = if a > 0.0 && b > 0.0 && c > 0.0 {
        a.min(b).min(c)
    } else if a < 0.0 && b < 0.0 && c < 0.0 {
        -(a.max(b).max(c))
    } else {
        return false;
    };
    let length = n.norm();
    let gap = least / length;
    // Written so that NaN (a zero normal) prunes nothing.
    gap > limit && gap - 1.2e-3 * span() > limit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Isometry;
    use crate::mesh::TriMesh;
    use crate::query::MeshTree;
    use crate::test_support::{Work, counted};

    /// Pins bounded-error queries leaving the rounding pad out (e96a9b2):
    /// with it, two parallel plates had every facing pair within the pad of
    /// the best and computed the distance of each (80k triangles 0.01
    /// apart with a 1% bound: 296 ms against 7 µs). Counted, not timed.
    #[test]
    fn bounded_errors_skip_the_ties_of_parallel_plates() {
        // 100 m across: the pad (64 ε of the coordinates, 4e-4) exceeds
        // the 1% bound on 0.01 (1e-4).
        let plate = TriMesh::terrain(40, 100.0, 0.0, 1);
        let tree = MeshTree::<Aabb>::new(plate.clone());
        let below = tree.placed(Isometry::identity());
        let above = tree.placed(Isometry::translation(0.0, 0.0, 0.01));
        let (bounded, pairs) = counted(Work::TrianglePairDistance, || {
            below.distance(&above, ErrorBound::relative(0.01))
        });
        let bounded = bounded.expect("two meshes");
        assert!((0.0099..=0.0102).contains(&bounded.distance), "{bounded:?}");
        assert!(
            pairs <= 64,
            "{pairs} triangle pairs of {} facing",
            plate.len()
        );
        // The exact answer ranks the ties: every facing pair.
        let (exact, exact_pairs) = counted(Work::TrianglePairDistance, || {
            below.distance(&above, ErrorBound::EXACT)
        });
        let exact = exact.expect("two meshes");
        assert!((bounded.distance - exact.distance).abs() <= 1e-6);
        assert!(exact_pairs >= plate.len() as u64, "{exact_pairs}");
    }

    /// Issue 20's promise that tolerance queries cost less than the
    /// distance: the query stops at the first pair within the tolerance,
    /// and never opens boxes beyond it. Counted, not timed, on two spheres
    /// 0.9 apart: the distance compares 424 triangle pairs, the tolerance
    /// queries 0 (below it) and 2 (above).
    #[test]
    fn tolerance_queries_compare_fewer_pairs_than_the_distance() {
        let sphere = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 3));
        let here = sphere.placed(Isometry::identity());
        let there = sphere.placed(Isometry::translation(2.6, 1.2, 0.4));
        let (distance, all) = counted(Work::TrianglePairDistance, || {
            here.distance(&there, ErrorBound::EXACT)
        });
        let d = distance.expect("two meshes").distance;
        for (tolerance, answer) in [(0.5 * d, false), (2.0 * d, true), (10.0 * d, true)] {
            let (within, pairs) = counted(Work::TrianglePairDistance, || {
                here.is_within(&there, tolerance)
            });
            assert_eq!(within, answer, "within {tolerance} of {d}");
            assert!(
                pairs <= 16 && pairs < all,
                "within {tolerance}: {pairs} pairs, the distance {all}"
            );
        }
    }

    /// Pins the box pairs' gap along their centres' offset (e96a9b2): for
    /// OBB trees far apart relative to their size, the face axes each see
    /// only part of the offset, and without that axis two far bunnies'
    /// trees compared 170 times the triangle pairs of their AABB trees.
    /// Counted, not timed: two 1,280-triangle spheres 10 and 100 radii
    /// apart compare 144 and 164 triangle pairs (679 and 820 without it),
    /// and answer as their AABB trees do.
    #[test]
    fn far_apart_obb_trees_compare_few_triangle_pairs() {
        let sphere = TriMesh::icosphere(Point::origin(), 1.0, 3);
        let (obb, aabb) = (
            MeshTree::<Obb>::new(sphere.clone()),
            MeshTree::<Aabb>::new(sphere),
        );
        for far in [10.0, 100.0] {
            let pose = Isometry::translation(far, 0.7 * far, -0.4 * far);
            let (found, pairs) = counted(Work::TrianglePairDistance, || {
                obb.placed(Isometry::identity())
                    .distance(&obb.placed(pose), ErrorBound::EXACT)
            });
            let expected = aabb
                .placed(Isometry::identity())
                .distance(&aabb.placed(pose), ErrorBound::EXACT);
            assert_eq!(found, expected, "{far} apart");
            assert!(pairs <= 300, "{far} apart: {pairs} triangle pairs");
        }
    }
}
