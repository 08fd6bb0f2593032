//! The point of a scene nearest a query point: the top level descended
//! nearest first by the distance to each object's world box, each candidate
//! object asked in its own frame for its nearest point within the best
//! distance so far (plus the rounding slack, so that ties reach the rule).

use crate::bounding_volume::Aabb;
use crate::bvh::{Visit, WideNode, set_bits};
use crate::math::{Point, Real, is_finite_point, length_wide, squared_reach};
use crate::query::batch::{Threads, fill_batch};
use crate::query::{PointProjection, PointQuery};
use crate::scene::object::{Object, PLACED_PAD};
use crate::scene::top_tree::TopTree;
use crate::scene::{Filter, NodeEntries, ObjectId, Scene, with_tree};
use crate::simd::Baseline;

/// The point of a scene nearest a query point: the object, and the
/// projection on its mesh (point in world space, triangle of that mesh).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenePoint {
    /// The object the point lies on.
    pub object: ObjectId,
    /// The nearest point (world space), its distance, triangle and barycentrics.
    pub projection: PointProjection,
}

impl ScenePoint {
    /// The order of answers: by distance, ties to the lower object id.
    fn precedes(&self, other: &ScenePoint) -> bool {
        (self.projection.distance, self.object) < (other.projection.distance, other.object)
    }
}

impl Scene {
    /// The point nearest `query`'s point on the objects the filter accepts,
    /// within the query's maximum distance; ties at the same distance go
    /// to the lower object id. `None` for an empty scene, nothing within
    /// reach, or a NaN or infinite point (see [`crate::MeshTree::closest_point`]).
    #[must_use]
    pub fn closest_point(
        &self,
        query: impl Into<PointQuery>,
        filter: &Filter,
    ) -> Option<ScenePoint> {
        let query = query.into();
        if !is_finite_point(&query.point) || !(query.max_distance >= 0.0) {
            return None;
        }
        let p = query.point;
        // Keep boxes and objects up to the best distance plus what an
        // object's answer may be off by, so that one tied with the best
        // reaches the tie rule. An object answers in its own frame, from
        // the point mapped there (`LocalFrame`: its `f32` rotation matrix
        // is off by about `9u`, and the result is rounded once), so its
        // distance is off by about `10u` of the point's distance from the
        // object's origin, which is at most the answer plus the mesh's own
        // size; its closest points add `64 ε` of that size
        // (`MeshTree::closest_point_rounding`), and box distances a few
        // `u` of themselves. So: `128 ε` of the largest mesh coordinate in
        // the objects' own frames, not of the world's (at 1e5 m from the
        // origin, decimetre objects were searched 1.5 m beyond the best),
        // and `64 ε` of the distance, eight times the rounding's `16u`:
        // rotations whose quaternions drifted from unit length (a few
        // `1e-6` after many compositions) scale distances by as much, and
        // the coordinates' slack used to absorb that.
        let absolute = 128.0 * Real::EPSILON * self.mesh_scale();
        let mut best: Option<ScenePoint> = None;
        let reach = |best: &Option<ScenePoint>| {
            let distance = best
                .map_or(query.max_distance, |b| b.projection.distance)
                .min(query.max_distance);
            (distance + absolute) * (1.0 + 64.0 * Real::EPSILON)
        };
        let offer = |index: u32, object: &Object, best: &mut Option<ScenePoint>| {
            let id = ObjectId(index);
            if !filter.accepts(id, object.layers) {
                return;
            }
            let limit = reach(best).min(query.max_distance);
            let local = PointQuery::within(p, limit);
            let pose = object.pose;
            let found = with_tree!(&object.mesh, tree => tree.placed(pose).closest_point(local));
            if let Some(projection) = found {
                let candidate = ScenePoint {
                    object: id,
                    projection,
                };
                if best.is_none_or(|b| candidate.precedes(&b)) {
                    *best = Some(candidate);
                }
            }
        };
        for &(index, world_box) in self.unindexed() {
            let object = self.objects_table()[index as usize].as_ref().expect("live");
            if box_distance(&world_box, &p) <= reach(&best) {
                offer(index, object, &mut best);
            }
        }
        let Some(top) = self.top() else {
            return best;
        };
        if !top.wide.fits_array_stack() {
            // A top level too deep for the fixed stack: unordered, each
            // object still checked against the best so far.
            let within = reach(&None);
            self.visit_objects(
                |b: &Aabb| box_distance(b, &p) <= within,
                |index, object| {
                    if box_distance(&self.box_of(object), &p) <= reach(&best) {
                        offer(index, object, &mut best);
                    }
                    Visit::Continue
                },
            );
            return best;
        }
        descend(self, top, &p, &mut best, reach, offer);
        best
    }
}

impl Scene {
    /// [`Scene::closest_point`] for many points with one maximum distance,
    /// into `out` in the points' order (`out` is cleared first), on the
    /// `threads` chosen; equal to one call per point.
    pub fn closest_points(
        &self,
        points: &[Point],
        max_distance: Real,
        filter: &Filter,
        threads: Threads,
        out: &mut Vec<Option<ScenePoint>>,
    ) {
        fill_batch(out, points.len(), None, threads, |offset, chunk| {
            for (answer, p) in chunk.iter_mut().zip(&points[offset..]) {
                *answer = self.closest_point(PointQuery::within(*p, max_distance), filter);
            }
        });
    }
}

/// The distance from `p` to the box `b` ([`length_wide`]: `f32` squares
/// overflow beyond about 1.8e19, where every box then lay out of reach and
/// the farther object won).
#[inline]
fn box_distance(b: &Aabb, p: &Point) -> Real {
    length_wide(&(b.closest_point(p) - p))
}

/// The squared distance from `p` to `b` shrunk by the pad of its centre
/// that `placed_box` adds to world boxes (for ordering only).
fn unpadded_distance_squared(b: &Aabb, p: &Point) -> Real {
    let c = b.center();
    let pad = PLACED_PAD * c.coords.amax();
    let half = b.half_extents().map(|h| (h - pad).max(0.0));
    Aabb::from_center_half_extents(c, half).distance_squared(p)
}

/// The nearest-first descent of the top level ([`Scene::descend_nearest`]
/// by box distance).
fn descend(
    scene: &Scene,
    top: &TopTree,
    p: &Point,
    best: &mut Option<ScenePoint>,
    reach: impl Fn(&Option<ScenePoint>) -> Real,
    offer: impl FnMut(u32, &Object, &mut Option<ScenePoint>),
) {
    let padded = PLACED_PAD * p.coords.amax() > scene.mesh_scale() / 16.0;
    let enter = |node: &WideNode<8>, r: Real| {
        let distances = node.point_distances_on(Baseline::default(), p, squared_reach(r));
        if distances.within == 0 {
            return None;
        }
        // Where world boxes' pads (`placed_box`: `64 ε` of their centre)
        // outgrow a sixteenth of the meshes, the order (not the keys, which
        // prune) comes from the boxes less that pad: a point inside several
        // padded boxes could not tell them apart (a grid of 0.2 m balls
        // 1e5 m out: 4.9 times the origin's exact closest points).
        let mut order = distances.squared;
        if padded {
            for lane in set_bits(u64::from(distances.within)) {
                order[lane] = unpadded_distance_squared(&node.child_box(lane), p);
            }
        }
        Some(NodeEntries {
            lanes: distances.within,
            order,
            measure: distances.squared,
        })
    };
    // Keys from the `f32` squares where those are normal numbers or 0 (a
    // lower bound either way), else from the box in `f64` (see
    // `box_distance`).
    let key = |node: &WideNode<8>, lane: usize, squared: Real| {
        if squared.is_normal() || squared == 0.0 {
            squared.sqrt()
        } else {
            box_distance(&node.child_box(lane), p)
        }
    };
    scene.descend_nearest(top, best, reach, enter, key, offer);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::bounding_volume::Aabb;
    use crate::math::{Isometry, Vector};
    use crate::mesh::TriMesh;
    use crate::query::MeshTree;
    use crate::test_support::{Work, counted, unit_floats};

    /// Pins the top level's slack to the objects' own sizes, not the
    /// world's: with `64 ε (|p|∞ + world scale)` a grid of 0.2 m balls 1e5 m
    /// from the origin was searched 1.5 m beyond the best distance, and
    /// every ball within that was asked, with 55 times the exact closest
    /// points of the same grid at the origin; with the slack alone, 4.9
    /// times (the world boxes' pads, about 1 m there, hid the order); with
    /// the order taken from the boxes less their pads, as many. Counted, not
    /// timed; the answers equal every object's own.
    #[test]
    fn far_scenes_compute_as_few_exact_closest_points_as_near_ones() {
        let ball = Arc::new(MeshTree::<Aabb>::new(TriMesh::icosphere(
            Point::origin(),
            0.2,
            2,
        )));
        let grid = |at: Vector| {
            let mut scene = Scene::new();
            for i in 0..20 {
                for j in 0..20 {
                    let offset = Vector::new(0.5 * i as Real, 0.5 * j as Real, 0.0);
                    let turn =
                        Isometry::rotation(Vector::new(0.1 * i as Real, 0.2, 0.1 * j as Real));
                    scene
                        .add(
                            ball.clone(),
                            Isometry::translation(at.x, at.y, at.z)
                                * Isometry::translation(offset.x, offset.y, offset.z)
                                * turn,
                        )
                        .expect("finite");
                }
            }
            scene.update();
            scene
        };
        let mut unit = unit_floats(7);
        let offsets: Vec<Vector> = (0..2_000)
            .map(|_| Vector::new(10.0 * unit(), 10.0 * unit(), unit() - 0.5))
            .collect();
        let mut counts = Vec::new();
        for at in [Vector::zeros(), Vector::new(1e5, -1e5, 5e4)] {
            let scene = grid(at);
            let (answers, exact) = counted(Work::ExactClosestPoint, || {
                offsets
                    .iter()
                    .map(|o| scene.closest_point(Point::from(at + o), &Filter::everything()))
                    .collect::<Vec<_>>()
            });
            for (o, answer) in offsets.iter().zip(&answers) {
                let p = Point::from(at + o);
                let by_objects = scene
                    .ids()
                    .filter_map(|id| {
                        let pose = scene.pose(id).expect("live");
                        let found = ball.placed(pose).closest_point(p)?;
                        Some((found.distance, id))
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let answer = answer.expect("a nearest point");
                assert_eq!(
                    Some((answer.projection.distance, answer.object)),
                    by_objects,
                    "{p:?}"
                );
            }
            counts.push(exact);
        }
        assert!(
            4 * counts[1] <= 5 * counts[0],
            "exact closest points near the origin {} and 1e5 away {}",
            counts[0],
            counts[1]
        );
    }
}
