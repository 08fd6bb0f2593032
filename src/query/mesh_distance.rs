//! Distance between two placed meshes, and the tolerance query "are they
//! closer than `d`?".
//!
//! The simultaneous descent of Larsen, Gottschalk, Lin and Manocha ("Fast
//! Proximity Queries with Swept Sphere Volumes", 1999; PQP): node pairs are
//! taken in the overlap query's frame and order (B's boxes mapped into A's
//! frame, the bulkier node split first, see `mesh_overlap`), the nearer
//! child pair first, and a pair is dropped once a lower bound of its boxes'
//! distance exceeds the best distance so far. The bound is the largest gap
//! along the six face axes of the two boxes: projecting onto a unit axis
//! never lengthens a distance, so the gap along any axis is at most the
//! boxes' distance. Leaf pairs answer with the exact closest points of
//! their triangles ([`triangle_distance`]).
//!
//! B's triangles are mapped into A's frame in `f32`, so distances carry a
//! few ulps of the coordinates (`tests/mesh_distance.rs` pins `64 ε` of
//! them against an `f64` brute force); boxes are compared with that much
//! slack, so ties reach the rule (the lower pair of triangle ids).

use smallvec::SmallVec;

use crate::bounding_volume::{Aabb, Obb};
use crate::bvh::{ArrayStack, BoundingVolume, NodeId, TraversalStack, Visit, stack_items};
use crate::intersect::triangle_distance;
use crate::math::{Point, Real};
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

/// The best pair so far, by distance in A's frame.
struct Closest {
    best: Option<(Real, Point, Point, TrianglePair)>,
    /// Box pairs farther than this cannot hold a better pair.
    reach: Real,
    pad: Real,
}

impl Closest {
    fn offer(&mut self, distance: Real, p_a: Point, p_b: Point, pair: TrianglePair) {
        let better = match &self.best {
            None => distance <= self.reach,
            Some((d, _, _, b)) => distance < *d || (distance == *d && pair < *b),
        };
        if better {
            self.reach = self.reach.min(distance + self.pad);
            self.best = Some((distance, p_a, p_b, pair));
        }
    }
}

impl<'q, A: BoundingVolume, B: BoundingVolume> PairDescent<'q, A, B> {
    /// A lower bound of the distance between A's box and B's box (already
    /// in A's frame): the largest gap along the boxes' six face axes, less
    /// the rounding pad; 0 when every axis overlaps.
    #[inline(always)]
    fn box_gap(&self, a: &Obb, b: &Obb) -> Real {
        let offset = b.center - a.center;
        let mut gap: Real = 0.0;
        for i in 0..3 {
            let axis = a.axes.column(i);
            let reach_b: Real = (0..3)
                .map(|j| b.half_extents[j] * b.axes.column(j).dot(&axis).abs())
                .sum();
            gap = gap.max(offset.dot(&axis).abs() - a.half_extents[i] - reach_b);
            let axis = b.axes.column(i);
            let reach_a: Real = (0..3)
                .map(|j| a.half_extents[j] * a.axes.column(j).dot(&axis).abs())
                .sum();
            gap = gap.max(offset.dot(&axis).abs() - b.half_extents[i] - reach_a);
        }
        // The bounding spheres' gap, better where the boxes lie diagonally apart.
        let spheres = offset.norm() - a.half_extents.norm() - b.half_extents.norm();
        (gap.max(spheres) - self.pad).max(0.0)
    }

    /// The nearest triangle pair within `limit` (inclusive), in A's frame.
    /// With `stop_within`, returns as soon as a pair within it is found.
    fn nearest(&self, limit: Real, stop_within: Option<Real>) -> Closest {
        let depth = (self.a.bvh().depth() + self.b.bvh().depth()) as usize + 2;
        let mut closest = Closest {
            best: None,
            reach: limit,
            pad: self.pad,
        };
        if depth <= crate::bvh::ARRAY_STACK_DEPTH {
            self.nearest_on(
                &mut ArrayStack::new(&mut stack_items()),
                &mut closest,
                stop_within,
            );
        } else {
            self.nearest_on(&mut Vec::new(), &mut closest, stop_within);
        }
        closest
    }

    #[inline(always)]
    fn nearest_on(
        &self,
        stack: &mut impl TraversalStack<(NodeId, NodeId, Real)>,
        closest: &mut Closest,
        stop_within: Option<Real>,
    ) {
        let (tree_a, tree_b) = (self.a.bvh(), self.b.bvh());
        if tree_a.triangle_count() == 0 || tree_b.triangle_count() == 0 {
            return;
        }
        let gap = |id_a: NodeId, id_b: NodeId| {
            let b = self.box_b_in_a(&tree_b.node(id_b).volume.oriented_box());
            self.box_gap(&tree_a.node(id_a).volume.oriented_box(), &b)
        };
        let mut current = (NodeId::ROOT, NodeId::ROOT, gap(NodeId::ROOT, NodeId::ROOT));
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
                    Step::SplitA { left, right } => Some([(left, id_b), (right, id_b)]),
                    Step::SplitB { left, right } => Some([(id_a, left), (id_a, right)]),
                };
                if let Some([first, second]) = children {
                    let (g1, g2) = (gap(first.0, first.1), gap(second.0, second.1));
                    let ((near, g_near), (far, g_far)) = if g1 <= g2 {
                        ((first, g1), (second, g2))
                    } else {
                        ((second, g2), (first, g1))
                    };
                    if g_far <= closest.reach {
                        stack.push((far.0, far.1, g_far));
                    }
                    current = (near.0, near.1, g_near);
                    continue;
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return,
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
        let mut moved: SmallVec<[(Triangle, Aabb, TriangleId); 8]> = SmallVec::new();
        for kb in first_b..first_b + count_b {
            let (tri, id) = self.b.leaf_triangle(kb as usize);
            let tri = Triangle::new(
                self.b_to_a(&tri.a),
                self.b_to_a(&tri.b),
                self.b_to_a(&tri.c),
            );
            moved.push((tri, Aabb::from_points(&tri.vertices()), id));
        }
        for ka in first_a..first_a + count_a {
            let (tri_a, id_a) = self.a.leaf_triangle(ka as usize);
            let box_a = Aabb::from_points(&tri_a.vertices());
            for (tri_b, box_b, id_b) in &moved {
                let apart = (box_b.min - box_a.max).sup(&(box_a.min - box_b.max));
                if apart.max() - self.pad > closest.reach {
                    continue;
                }
                let found = triangle_distance(&tri_a, tri_b);
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
    /// or cross. `None` for a non-finite pose. Containment without touching
    /// is a positive distance (surfaces, not solids).
    ///
    /// Distances agree with an `f64` evaluation to a few ulps of the
    /// coordinates involved. Ties at a positive distance go to the lower
    /// triangle pair; touching meshes answer with the pair
    /// [`PlacedMesh::first_contact`] finds (picking the lowest would cost
    /// what listing every contact with [`PlacedMesh::touching_pairs`] does).
    #[must_use]
    pub fn distance<B: BoundingVolume>(&self, other: &PlacedMesh<'q, B>) -> Option<MeshDistance> {
        let descent = PairDescent::new(self, other)?;
        // Touching meshes: the overlap descent finds a pair fastest.
        let (distance, p_a, p_b, triangles) = match descent.touching() {
            Some(touching) => touching,
            None => descent.nearest(Real::INFINITY, Some(0.0)).best?,
        };
        Some(MeshDistance {
            distance,
            point_a: self.pose * p_a,
            point_b: self.pose * p_b,
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
            .and_then(|descent| descent.nearest(tolerance, Some(tolerance)).best)
            .is_some_and(|(d, ..)| d <= tolerance)
    }
}
