//! Overlap over a scene: a placed mesh against every object, and every
//! pair of objects that touch.
//!
//! The broad phase is the top-level tree: an object's (or the query mesh's)
//! world box against the objects' boxes. The narrow phase is the exact
//! tree-vs-tree descent of [`PlacedMesh::overlaps`] on each candidate pair,
//! so a pair is reported exactly when two of its triangles share a point.

use crate::bvh::{BoundingVolume, Visit};
use crate::query::batch::Threads;
use crate::query::{PlacedMesh, TrianglePair};
use crate::scene::object::{Object, placed_box};
use crate::scene::{Filter, ObjectId, Overlapping, Scene, with_tree};

/// Two objects whose meshes touch, `a < b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectPair {
    /// The object with the lower id.
    pub a: ObjectId,
    /// The object with the higher id.
    pub b: ObjectId,
}

/// True when the two objects' meshes share a point under their poses.
fn objects_touch(a: &Object, b: &Object) -> bool {
    let (pose_a, pose_b) = (a.pose, b.pose);
    with_tree!(&a.mesh, ta => with_tree!(&b.mesh, tb => ta.placed(pose_a).overlaps(&tb.placed(pose_b))))
}

impl Scene {
    /// The objects the filter accepts whose mesh touches `mesh` (a moving
    /// drone, a tool), sorted by id.
    #[must_use]
    pub fn touching<V: BoundingVolume>(
        &self,
        mesh: &PlacedMesh<'_, V>,
        filter: &Filter,
    ) -> Vec<ObjectId> {
        let mut found = Vec::new();
        self.visit_overlapping(&placed_box(mesh.tree, &mesh.pose), filter, |id, object| {
            let pose = object.pose;
            if with_tree!(&object.mesh, tree => mesh.overlaps(&tree.placed(pose))) {
                found.push(id);
            }
        });
        found.sort_unstable();
        found
    }

    /// The touching triangle pairs between `mesh` and each object the
    /// filter accepts (`a` a triangle of `mesh`, `b` one of the object),
    /// sorted by object, then pair. `limit` caps the pairs per object as
    /// [`PlacedMesh::touching_pairs`] does (the smallest ones).
    #[must_use]
    pub fn touching_pairs<V: BoundingVolume>(
        &self,
        mesh: &PlacedMesh<'_, V>,
        filter: &Filter,
        limit: Option<usize>,
    ) -> Vec<(ObjectId, TrianglePair)> {
        let mut found = Vec::new();
        self.visit_overlapping(&placed_box(mesh.tree, &mesh.pose), filter, |id, object| {
            let pose = object.pose;
            let pairs =
                with_tree!(&object.mesh, tree => mesh.touching_pairs(&tree.placed(pose), limit, None));
            found.extend(pairs.into_iter().map(|pair| (id, pair)));
        });
        found.sort_unstable();
        found
    }

    /// Every pair of objects (both accepted by the filter) whose meshes
    /// touch, sorted: the broad phase over the top-level tree, the exact
    /// tree-vs-tree descent on each candidate. Pairs of one group
    /// ([`Scene::set_group`]) and pairs for which `skip(a, b)` (with
    /// `a < b`) holds are left out before any narrow test. On all cores
    /// with [`Threads::All`] (the answer is the same).
    #[must_use]
    pub fn overlapping_pairs(
        &self,
        filter: &Filter,
        skip: impl Fn(ObjectId, ObjectId) -> bool + Sync,
        threads: Threads,
    ) -> Vec<ObjectPair> {
        let every: Vec<u32> = (0..self.objects_table().len() as u32).collect();
        // Each pair once: from its lower id.
        self.pairs_of(&every, filter, &skip, threads, |a, b| b > a)
    }

    /// Brings `set` up to date with [`Scene::overlapping_pairs`], testing
    /// again only the objects changed since the set's last update (added,
    /// moved, deformed, put on other layers or in another group): pairs of
    /// two unchanged objects are kept without a test, pairs with a removed
    /// object dropped. The answer equals a full pass as long as every call
    /// on one set passes the same filter and `skip` (start a new set when
    /// they change). The first update of a new set is a full pass, and so
    /// is one after 2³¹ or more changes since the last.
    pub fn update_pairs(
        &self,
        set: &mut PairSet,
        filter: &Filter,
        skip: impl Fn(ObjectId, ObjectId) -> bool + Sync,
        threads: Threads,
    ) {
        // Objects keep the low 32 bits of their last change: a wrapping
        // difference tells "after `seen`" exactly while fewer than 2³¹
        // changes separate the two; an object unchanged for longer may
        // count as changed, which only tests its pairs again.
        let changed_since = |index: u32, seen: u64| {
            self.objects_table()[index as usize]
                .as_ref()
                .is_some_and(|o| (o.changed_at.wrapping_sub(seen as u32) as i32) > 0)
        };
        let recent = |seen: u64| self.change_count() - seen < 1 << 31;
        if !set.seen.is_some_and(recent) {
            set.pairs = self.overlapping_pairs(filter, &skip, threads);
        } else {
            let seen = set.seen.unwrap_or(0);
            let changed: Vec<u32> = (0..self.objects_table().len() as u32)
                .filter(|&i| changed_since(i, seen))
                .collect();
            let kept = |p: &ObjectPair| {
                self.contains(p.a)
                    && self.contains(p.b)
                    && !changed_since(p.a.0, seen)
                    && !changed_since(p.b.0, seen)
            };
            set.pairs.retain(kept);
            // A changed object pairs with every unchanged one, and with a
            // changed one from the lower id of the two.
            let fresh = self.pairs_of(&changed, filter, &skip, threads, |a, b| {
                !changed_since(b.0, seen) || b > a
            });
            set.pairs.extend(fresh);
            set.pairs.sort_unstable();
            set.pairs.dedup();
        }
        set.seen = Some(self.change_count());
    }

    /// The touching pairs of each object of `from` with the candidates
    /// `wanted(a, b)` accepts, as sorted `ObjectPair`s.
    fn pairs_of(
        &self,
        from: &[u32],
        filter: &Filter,
        skip: &(impl Fn(ObjectId, ObjectId) -> bool + Sync),
        threads: Threads,
        wanted: impl Fn(ObjectId, ObjectId) -> bool + Sync,
    ) -> Vec<ObjectPair> {
        let pairs_of = |&index: &u32| -> Vec<ObjectPair> {
            let Some(a) = self.objects_table()[index as usize].as_ref() else {
                return Vec::new();
            };
            let a_id = ObjectId(index);
            let a_box = self.box_of(a);
            if !filter.accepts(a_id, a.layers) || a_box.is_empty() {
                return Vec::new();
            }
            let mut found = Vec::new();
            self.visit_objects(Overlapping(&a_box), |other, b| {
                let b_id = ObjectId(other);
                let pair = ObjectPair {
                    a: a_id.min(b_id),
                    b: a_id.max(b_id),
                };
                let candidate = b_id != a_id
                    && wanted(a_id, b_id)
                    && filter.accepts(b_id, b.layers)
                    && (a.group.is_none() || a.group != b.group)
                    && !skip(pair.a, pair.b);
                // Tested from the lower id whichever side asked, as the full
                // pass does: within rounding of touching, `overlaps` may
                // answer differently the other way round, and
                // `update_pairs` must equal the full pass.
                let (low, high) = if a_id < b_id { (a, b) } else { (b, a) };
                if candidate && objects_touch(low, high) {
                    found.push(pair);
                }
                Visit::Continue
            });
            found
        };
        let mut pairs: Vec<ObjectPair> = match threads {
            #[cfg(feature = "parallel")]
            Threads::All => {
                use rayon::prelude::*;
                from.par_iter().flat_map_iter(pairs_of).collect()
            }
            _ => from.iter().flat_map(pairs_of).collect(),
        };
        pairs.sort_unstable();
        pairs
    }
}

/// The overlapping pairs of a scene, kept from frame to frame by
/// [`Scene::update_pairs`].
#[derive(Clone, Debug, Default)]
pub struct PairSet {
    pairs: Vec<ObjectPair>,
    /// The scene's change count at the last update; `None` before the first.
    seen: Option<u64>,
}

impl PairSet {
    /// An empty set, whose first update is a full pass.
    #[must_use]
    pub fn new() -> Self {
        PairSet::default()
    }

    /// The pairs as of the last update, sorted.
    #[must_use]
    pub fn pairs(&self) -> &[ObjectPair] {
        &self.pairs
    }
}
