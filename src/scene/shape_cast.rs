//! Shape casts over a scene: the top level follows the cast's bounding
//! sphere through the world boxes grown by its radius; each candidate
//! object answers in its own frame with its own tree
//! ([`crate::MeshTree::cast_closest_hit`]), the cast brought there through
//! an `f64` transform.

use std::cell::Cell;

use crate::bounding_volume::Aabb;
use crate::bvh::{BoundingVolume, Visit};
use crate::math::{Vector, is_finite_vector};
use crate::query::batch::{Threads, fill_batch};
use crate::query::shape_cast::{CastPath, world_hit};
use crate::query::{BoomStop, CameraBoom, CastHit, MeshCastHit, PlacedMesh, ShapeCast};
use crate::scene::Overlapping;
use crate::scene::object::{is_finite_pose, placed_box};
use crate::scene::{Filter, ObjectId, Scene, SceneTriangle, with_tree};

/// Where a cast first touches a scene: the object and the contact (the
/// object's triangle id; point and normal in world space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneCastHit {
    /// The object touched.
    pub object: ObjectId,
    /// The contact on the object's mesh.
    pub hit: CastHit,
}

impl SceneCastHit {
    /// The object and triangle touched.
    #[must_use]
    pub fn triangle(&self) -> SceneTriangle {
        SceneTriangle {
            object: self.object,
            triangle: self.hit.triangle,
        }
    }

    /// By time, ties by object, then triangle.
    fn precedes(&self, other: &SceneCastHit) -> bool {
        (self.hit.time, self.object, self.hit.triangle)
            < (other.hit.time, other.object, other.hit.triangle)
    }
}

/// Where a moving mesh first touches a scene: the object and the contact
/// (`triangles.a` of the moving mesh, `triangles.b` of the object's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneMeshCastHit {
    /// The object touched.
    pub object: ObjectId,
    /// The contact with it (world space).
    pub hit: MeshCastHit,
}

impl Scene {
    /// The first contact of `moving`, moved by `motion` (world space, no
    /// rotation), with the objects the filter accepts (ties by object,
    /// then triangle pair): [`crate::PlacedMesh::cast_against`] for each
    /// object whose world box meets the box swept by the moving mesh's.
    /// `None` when it touches nothing, and for non-finite poses or motion.
    #[must_use]
    pub fn cast_placed<V: BoundingVolume>(
        &self,
        moving: &PlacedMesh<'_, V>,
        motion: &Vector,
        filter: &Filter,
    ) -> Option<SceneMeshCastHit> {
        if !is_finite_vector(motion) || !is_finite_pose(&moving.pose) {
            return None;
        }
        let start = placed_box(moving.tree, &moving.pose);
        if start.is_empty() {
            return None;
        }
        let swept = start.union(&Aabb::new(start.min + motion, start.max + motion));
        let mut best: Option<SceneMeshCastHit> = None;
        self.visit_objects(Overlapping(&swept), |index, object| {
            let id = ObjectId(index);
            if !filter.accepts(id, object.layers) {
                return Visit::Continue;
            }
            let pose = object.pose;
            let hit =
                with_tree!(&object.mesh, tree => moving.cast_against(motion, &tree.placed(pose)));
            if let Some(hit) = hit {
                let key = (hit.time, id, hit.triangles);
                if best.is_none_or(|b| key < (b.hit.time, b.object, b.hit.triangles)) {
                    best = Some(SceneMeshCastHit { object: id, hit });
                }
            }
            Visit::Continue
        });
        best
    }

    /// A triangle of an object the filter accepts that the cast touches,
    /// searching no further than one contact (is the path blocked?).
    /// `None` for a free path and for invalid casts (NaN or infinite
    /// coordinates, a negative radius).
    #[must_use]
    pub fn cast_any_hit(&self, cast: &ShapeCast, filter: &Filter) -> Option<SceneTriangle> {
        if !cast.is_valid() {
            return None;
        }
        let path = CastPath::new(cast, self.coordinate_scale());
        let mut found = None;
        self.visit_objects(
            |b: &Aabb| path.entry(b, 1.0).is_some(),
            |index, object| {
                let id = ObjectId(index);
                if !filter.accepts(id, object.layers) {
                    return Visit::Continue;
                }
                let local = cast.in_frame(&object.frame());
                match with_tree!(&object.mesh, tree => tree.cast_any_hit(&local)) {
                    Some(triangle) => {
                        found = Some(SceneTriangle {
                            object: id,
                            triangle,
                        });
                        Visit::Stop
                    }
                    None => Visit::Continue,
                }
            },
        );
        found
    }

    /// The first contact of the cast with the objects the filter accepts
    /// (ties by object, then triangle); `None` for a free path and for
    /// invalid casts.
    #[must_use]
    pub fn cast_closest_hit(&self, cast: &ShapeCast, filter: &Filter) -> Option<SceneCastHit> {
        if !cast.is_valid() {
            return None;
        }
        let path = CastPath::new(cast, self.coordinate_scale());
        // Boxes entered after the best contact so far are pruned.
        let reach = Cell::new(1.0);
        let mut best: Option<SceneCastHit> = None;
        self.visit_objects(
            |b: &Aabb| path.entry(b, reach.get()).is_some(),
            |index, object| {
                let id = ObjectId(index);
                // After a contact at the start only a lower object id wins.
                let later = best.is_some_and(|b| b.hit.time == 0.0 && id > b.object);
                if later || !filter.accepts(id, object.layers) {
                    return Visit::Continue;
                }
                let local = cast.in_frame(&object.frame());
                // Each object searches no later than the best contact so far.
                let hit =
                    with_tree!(&object.mesh, tree => tree.cast_closest_within(&local, reach.get()));
                if let Some(hit) = hit {
                    let found = SceneCastHit {
                        object: id,
                        hit: world_hit(&object.pose, hit),
                    };
                    if best.is_none_or(|b| found.precedes(&b)) {
                        reach.set(found.hit.time);
                        best = Some(found);
                    }
                }
                Visit::Continue
            },
        );
        best
    }

    /// Where the camera may stand on `boom` among the objects the filter
    /// accepts (see [`CameraBoom`]); `None` for an invalid boom.
    #[must_use]
    pub fn camera_boom(
        &self,
        boom: &CameraBoom,
        filter: &Filter,
    ) -> Option<BoomStop<SceneTriangle>> {
        let cast = boom.cast();
        if !cast.is_valid() {
            return None;
        }
        let hit = self.cast_closest_hit(&cast, filter);
        Some(boom.stop(hit.map(|h| (h.hit.time, h.triangle()))))
    }

    /// [`Scene::camera_boom`] for many cameras, into `out` in their order
    /// (cleared first), on the `threads` chosen; equal to one call each.
    pub fn camera_booms(
        &self,
        booms: &[CameraBoom],
        filter: &Filter,
        threads: Threads,
        out: &mut Vec<Option<BoomStop<SceneTriangle>>>,
    ) {
        fill_batch(out, booms.len(), None, threads, |offset, chunk| {
            for (answer, boom) in chunk.iter_mut().zip(&booms[offset..]) {
                *answer = self.camera_boom(boom, filter);
            }
        });
    }
}
