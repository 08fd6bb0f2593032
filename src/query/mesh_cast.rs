//! A placed mesh moving along a straight line against another: the first
//! time of impact and the triangle pair that touches.
//!
//! The overlap query's simultaneous descent (`PairDescent`, in the moving
//! mesh's frame at the start, where the other mesh's boxes are mapped once
//! and stay still while the moving one translates), with each box pair
//! tested by the moving separating-axis test over its 15 axes
//! ([`crate::sweep`]'s `first_overlap`): the time at which the boxes first
//! touch bounds every triangle pair inside. Pairs are taken best first by
//! that time (nearer pair at once, the other in a heap) and dropped once it
//! passes the best contact; leaf pairs answer with the exact triangle
//! sweep ([`sweep_triangle_triangle`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::bounding_volume::Obb;
use crate::bvh::{BoundingVolume, NodeId};
use crate::math::{Point, Real, Vector, is_finite_vector};
use crate::query::mesh_overlap::{PairDescent, Step};
use crate::query::{PlacedMesh, TrianglePair};
use crate::shape::Triangle;
use crate::sweep::{V64, first_overlap, sweep_triangle_triangle};

/// Where a moving mesh first touches another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshCastHit {
    /// Time of first contact in `[0, 1]`: the fraction of the motion the
    /// mesh travels freely (0 when it starts in contact).
    pub time: Real,
    /// The triangles that touch: `a` of the moving mesh, `b` of the other
    /// (the lowest pair among those touching first).
    pub triangles: TrianglePair,
    /// A contact point on the other mesh, in world space.
    pub point: Point,
    /// Unit contact normal from the other mesh towards the moving one, in
    /// world space.
    pub normal: Vector,
}

impl<'q, A: BoundingVolume> PlacedMesh<'q, A> {
    /// The first contact of this mesh, moved by `motion` (world space, no
    /// rotation), with `other`, which stays still. `None` when they stay
    /// apart, and for non-finite poses or motion.
    #[must_use]
    pub fn cast_against<B: BoundingVolume>(
        &self,
        motion: &Vector,
        other: &PlacedMesh<'q, B>,
    ) -> Option<MeshCastHit> {
        if !is_finite_vector(motion) {
            return None;
        }
        let descent = PairDescent::new(self, other)?;
        let local = self.pose.rotation.inverse() * motion;
        let (time, triangles, point, normal) = descent.first_contact_moving(&local)?;
        Some(MeshCastHit {
            time,
            triangles,
            point: self.pose * point,
            normal: self.pose.rotation * normal,
        })
    }
}

/// A box's projection interval on an axis (scaled by its length).
fn box_interval(b: &Obb, l: &V64) -> (f64, f64) {
    let c = b.center.coords.cast::<f64>().dot(l);
    let reach: f64 = (0..3)
        .map(|i| f64::from(b.half_extents[i]) * b.axis(i).cast::<f64>().dot(l).abs())
        .sum();
    (c - reach, c + reach)
}

/// The 15 candidate axes of two boxes, each with its size at right angles.
fn box_axes(a: &Obb, b: &Obb) -> [(V64, f64); 15] {
    let mut axes = [(V64::zeros(), 1.0); 15];
    for i in 0..3 {
        let (ai, bi) = (a.axis(i).cast::<f64>(), b.axis(i).cast::<f64>());
        axes[i].0 = ai;
        axes[3 + i].0 = bi;
        for j in 0..3 {
            axes[6 + 3 * i + j].0 = ai.cross(&b.axis(j).cast::<f64>());
        }
    }
    axes
}

impl<'q, A: BoundingVolume, B: BoundingVolume> PairDescent<'q, A, B> {
    /// When A's box, moving by `v`, first touches B's (already in A's
    /// frame) within `[0, t_max]`; B's box grown by the rounding pad.
    fn box_entry(&self, a: &Obb, b: &Obb, v: &V64, t_max: f64) -> Option<f64> {
        let pad = f64::from(self.pad);
        let grown = |l: &V64| {
            let (lo, hi) = box_interval(b, l);
            let pad = pad * l.norm();
            (lo - pad, hi + pad)
        };
        first_overlap(&box_axes(a, b), v, t_max, |l| box_interval(a, l), grown).map(|hit| hit.0)
    }

    /// The first contact of A moving by `motion` (A's frame) with B:
    /// time, triangle pair, point and normal in A's frame.
    fn first_contact_moving(&self, motion: &Vector) -> Option<(Real, TrianglePair, Point, Vector)> {
        let (tree_a, tree_b) = (self.a.bvh(), self.b.bvh());
        if tree_a.triangle_count() == 0 || tree_b.triangle_count() == 0 {
            return None;
        }
        let v = motion.cast::<f64>();
        let box_a = |id: NodeId| tree_a.node(id).volume.oriented_box();
        let box_b = |id: NodeId| self.box_b_in_a(&tree_b.node(id).volume.oriented_box());
        let mut best: Option<(Real, TrianglePair, Point, Vector)> = None;
        // Up to the best time plus a few `f32` ulps: leaf times are rounded
        // to `f32`, box times are not, and ties must reach the pair rule.
        let reach = |best: &Option<(Real, TrianglePair, Point, Vector)>| {
            best.as_ref()
                .map_or(1.0, |b| f64::from(b.0) + 8.0 * f64::from(Real::EPSILON))
        };
        let root = self.box_entry(&box_a(NodeId::ROOT), &box_b(NodeId::ROOT), &v, 1.0)?;
        let mut current = (NodeId::ROOT, NodeId::ROOT, root);
        let mut heap: BinaryHeap<Reverse<(u64, u32, u32)>> = BinaryHeap::new();
        loop {
            let (id_a, id_b, entry) = current;
            if entry <= reach(&best) {
                let children = match self.step(id_a, id_b) {
                    Step::Leaves { a, b } => {
                        self.sweep_leaf_pair(a, b, motion, &mut best);
                        None
                    }
                    Step::SplitA { left, right } => {
                        let b = box_b(id_b);
                        let t = reach(&best);
                        Some([
                            ((left, id_b), self.box_entry(&box_a(left), &b, &v, t)),
                            ((right, id_b), self.box_entry(&box_a(right), &b, &v, t)),
                        ])
                    }
                    Step::SplitB { left, right } => {
                        let a = box_a(id_a);
                        let t = reach(&best);
                        Some([
                            ((id_a, left), self.box_entry(&a, &box_b(left), &v, t)),
                            ((id_a, right), self.box_entry(&a, &box_b(right), &v, t)),
                        ])
                    }
                };
                if let Some([(first, e1), (second, e2)]) = children {
                    let (near, far) = match (e1, e2) {
                        (Some(x), Some(y)) if y < x => (Some((second, y)), Some((first, x))),
                        (Some(x), y) => (Some((first, x)), y.map(|y| (second, y))),
                        (None, y) => (y.map(|y| (second, y)), None),
                    };
                    if let Some(((fa, fb), fe)) = far {
                        // Times are non-negative: their bits order as they do.
                        heap.push(Reverse(((fe + 0.0).to_bits(), fa.0, fb.0)));
                    }
                    if let Some(((a, b), e)) = near {
                        current = (a, b, e);
                        continue;
                    }
                }
            }
            match heap.pop() {
                Some(Reverse((key, a, b))) if f64::from_bits(key) <= reach(&best) => {
                    current = (NodeId(a), NodeId(b), f64::from_bits(key));
                }
                _ => return best,
            }
        }
    }

    /// Sweeps every triangle pair of two leaves (B's mapped into A's frame).
    fn sweep_leaf_pair(
        &self,
        (first_a, count_a): (u32, u32),
        (first_b, count_b): (u32, u32),
        motion: &Vector,
        best: &mut Option<(Real, TrianglePair, Point, Vector)>,
    ) {
        for kb in first_b..first_b + count_b {
            let (tri, id_b) = self.b.leaf_triangle(kb as usize);
            let fixed = Triangle::new(
                self.b_to_a(&tri.a),
                self.b_to_a(&tri.b),
                self.b_to_a(&tri.c),
            );
            for ka in first_a..first_a + count_a {
                let (moving, id_a) = self.a.leaf_triangle(ka as usize);
                let Some(contact) = sweep_triangle_triangle(&moving, motion, &fixed) else {
                    continue;
                };
                let pair = TrianglePair { a: id_a, b: id_b };
                let better = best.as_ref().is_none_or(|(t, p, ..)| {
                    contact.time < *t || (contact.time == *t && pair < *p)
                });
                if better {
                    *best = Some((contact.time, pair, contact.point, contact.normal));
                }
            }
        }
    }
}
