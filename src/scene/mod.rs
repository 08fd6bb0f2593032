//! Scenes: many placed, moving and instanced meshes under one top-level tree.
//!
//! A [`Scene`] holds objects, each a shared [`MeshTree`](crate::MeshTree) (placed any number
//! of times, stored once), a rigid pose, a layer mask and an optional
//! group. Queries descend the top-level tree over the objects' world boxes,
//! bring the query into each candidate object's frame and descend that
//! object's own tree: the two-level structure of Embree's instanced scenes
//! and of parry3d's BVH over colliders.
//!
//! Every change is seen by the next query: a move or deformation refits the
//! path above the object at once, a new object is tested one by one until
//! [`Scene::update`] puts it into the tree, a removed object is gone at
//! once. `update` keeps the queries fast: it rebuilds the top level when
//! objects were added or refits have made it worse than a rebuild.
//!
//! Poses are rigid. A uniform scale is refused by the type (there is no
//! field for it): overlap between two objects descends both trees under
//! their relative pose, whose separating-axis tests hold for rigid motions
//! only. Build a scaled copy of the mesh (`TriMesh::new` on scaled
//! vertices) and place that tree instead.

mod closest_point;
mod filter;
#[cfg(feature = "gltf")]
mod load_gltf;
mod object;
mod overlap;
mod raycast;
mod region;
mod shape_cast;
mod top_tree;

use std::fmt;

pub use closest_point::ScenePoint;
pub use filter::Filter;
#[cfg(feature = "gltf")]
pub use load_gltf::{GltfError, GltfScene};
pub(crate) use object::with_tree;
pub use object::{ObjectId, SceneMesh};
pub use overlap::{ObjectPair, PairSet};
pub use raycast::{SceneHit, SceneTriangle};
pub use shape_cast::{SceneCastHit, SceneMeshCastHit};

use crate::bounding_volume::Aabb;
use crate::bvh::{
    ArrayStack, TraversalStack, Visit, WideChild, WideNode, nearest_first, set_bits, stack_items,
};
use crate::math::{Isometry, Point, Real};
use crate::mesh::MeshError;
use object::{Object, Slot, is_finite_pose, rigid};
use top_tree::TopTree;

/// Why a scene refused a change.
#[derive(Debug)]
#[non_exhaustive]
pub enum SceneError {
    /// No object of this scene has this id (never added, or removed).
    UnknownObject(ObjectId),
    /// A pose with a NaN or infinite component.
    NonFinitePose {
        /// The object being moved, or `None` for one being added.
        object: Option<ObjectId>,
    },
    /// A pose whose rotation quaternion is zero: no rotation.
    ZeroRotation {
        /// The object being moved, or `None` for one being added.
        object: Option<ObjectId>,
    },
    /// The new vertices of a deformed object were rejected.
    Mesh {
        /// The object being deformed.
        object: ObjectId,
        /// Why its mesh refused them.
        source: MeshError,
    },
}

/// `pose` checked to be finite and kept rigid ([`rigid`]).
fn checked_pose(pose: Isometry, object: Option<ObjectId>) -> Result<Isometry, SceneError> {
    if !is_finite_pose(&pose) {
        return Err(SceneError::NonFinitePose { object });
    }
    rigid(pose).ok_or(SceneError::ZeroRotation { object })
}

/// "object 3" or "a new object".
fn which(object: &Option<ObjectId>) -> String {
    match object {
        Some(id) => format!("object {}", id.get()),
        None => "a new object".to_string(),
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::UnknownObject(id) => write!(f, "no object {} in this scene", id.get()),
            SceneError::NonFinitePose { object: Some(id) } => {
                write!(f, "non-finite pose for object {}", id.get())
            }
            SceneError::NonFinitePose { object: None } => {
                write!(f, "non-finite pose for a new object")
            }
            SceneError::ZeroRotation { object } => {
                write!(f, "a zero rotation quaternion for {}", which(object))
            }
            SceneError::Mesh { object, .. } => {
                write!(
                    f,
                    "object {}: its mesh refused the new vertices",
                    object.get()
                )
            }
        }
    }
}

impl std::error::Error for SceneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SceneError::Mesh { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// What [`Scene::update`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateReport {
    /// The top-level tree was rebuilt (objects added, or its cost had grown).
    pub rebuilt: bool,
}

/// A world of placed meshes (see the module documentation).
///
/// Changes take `&mut self`, queries `&self`; a scene is `Send + Sync`, so
/// one scene serves any number of query threads between changes.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Indexed by [`ObjectId`]; `None` once removed (ids are never reused).
    objects: Vec<Option<Object>>,
    live: usize,
    top: Option<TopTree>,
    /// Objects added since the last build, with their world boxes, tested
    /// one by one.
    unindexed: Vec<(u32, Aabb)>,
    /// Leaf positions emptied by removals since the last build.
    removed_since_build: usize,
    /// Largest absolute coordinate of any object's mesh in its own frame:
    /// the scale of rounding of what objects answer in their frames
    /// (nearest points), which does not grow with where they are placed.
    mesh_scale: Real,
    /// Changes made so far (see `Object::changed_at`, `PairSet`).
    changes: u64,
}

impl Scene {
    /// An empty scene.
    #[must_use]
    pub fn new() -> Self {
        Scene::default()
    }

    /// Places `mesh` (a tree, or an `Arc` of one to share it) at `pose`, on
    /// layer mask 1 and in no group. The object is found by the next query;
    /// [`Scene::update`] moves it into the top-level tree.
    ///
    /// A rotation whose quaternion has drifted from unit length by more
    /// than `4 ε` (composing many `f32` rotations does: a hundred, about
    /// `20 ε`) is kept normalised, and [`Scene::pose`] returns it so: the
    /// scene's pruning bounds assume a rigid motion, and a drifted one
    /// scales distances by its drift.
    pub fn add(
        &mut self,
        mesh: impl Into<SceneMesh>,
        pose: impl Into<Isometry>,
    ) -> Result<ObjectId, SceneError> {
        let pose = checked_pose(pose.into(), None)?;
        // The top level's leaves name objects in 31 bits.
        let index = u32::try_from(self.objects.len())
            .ok()
            .filter(|&i| i < 1 << 31)
            .expect("fewer than 2^31 objects");
        let id = ObjectId(index);
        let slot = Slot::Unindexed(self.unindexed.len() as u32);
        let mut object = Object::new(mesh.into(), pose, slot);
        object.changed_at = self.tick();
        let world_box = object.placed_box();
        self.note_mesh_scale(object.mesh_scale());
        self.objects.push(Some(object));
        self.unindexed.push((id.0, world_box));
        self.live += 1;
        Ok(id)
    }

    /// Uses up the next id without an object: a loaded scene keeps the ids
    /// of objects removed before it was saved.
    pub(crate) fn skip_id(&mut self) {
        self.objects.push(None);
    }

    /// The number of ids given so far (objects added, removed ones included).
    pub(crate) fn id_count(&self) -> usize {
        self.objects.len()
    }

    /// Takes the object out of the scene at once; its id is never reused.
    pub fn remove(&mut self, id: ObjectId) -> Result<SceneMesh, SceneError> {
        let object = self
            .objects
            .get_mut(id.index())
            .and_then(Option::take)
            .ok_or(SceneError::UnknownObject(id))?;
        self.live -= 1;
        match object.slot() {
            Slot::Unindexed(position) => {
                self.unindexed.swap_remove(position as usize);
                if let Some(&(moved, _)) = self.unindexed.get(position as usize) {
                    let moved = self.objects[moved as usize].as_mut().expect("live");
                    moved.set_slot(Slot::Unindexed(position));
                }
            }
            Slot::Indexed(leaf) => {
                let top = self.top.as_mut().expect("indexed objects have a tree");
                top.set_object_box(leaf, &Aabb::EMPTY);
                self.removed_since_build += 1;
            }
        }
        Ok(object.mesh)
    }

    /// Moves the object; queries see the new pose at once. A drifted
    /// rotation is kept normalised, as by [`Scene::add`].
    pub fn set_pose(&mut self, id: ObjectId, pose: impl Into<Isometry>) -> Result<(), SceneError> {
        let pose = checked_pose(pose.into(), Some(id))?;
        let tick = self.tick();
        let object = self.object_mut(id)?;
        object.pose = pose;
        object.changed_at = tick;
        self.refit_object(id);
        Ok(())
    }

    /// Deforms the object's mesh ([`crate::MeshTree::set_vertices`]: same
    /// triangles, new positions, the tree refitted). A mesh shared with
    /// other objects is copied first, so the other instances keep their shape.
    pub fn set_vertices(&mut self, id: ObjectId, vertices: Vec<Point>) -> Result<(), SceneError> {
        let tick = self.changes + 1;
        let object = self.object_mut(id)?;
        let result = with_tree!(&mut object.mesh, tree => std::sync::Arc::make_mut(tree).set_vertices(vertices));
        result.map_err(|source| SceneError::Mesh { object: id, source })?;
        object.changed_at = tick as u32;
        self.changes = tick;
        self.refit_object(id);
        Ok(())
    }

    /// Sets the object's layer mask: a query's [`Filter`] sees the object
    /// when the two masks share a bit.
    pub fn set_layers(&mut self, id: ObjectId, layers: u32) -> Result<(), SceneError> {
        let tick = self.tick();
        let object = self.object_mut(id)?;
        object.layers = layers;
        object.changed_at = tick;
        Ok(())
    }

    /// Puts the object in a group (or none): objects of one group are never
    /// reported as an overlapping pair (a robot's links touch by design).
    pub fn set_group(&mut self, id: ObjectId, group: Option<u32>) -> Result<(), SceneError> {
        let tick = self.tick();
        let object = self.object_mut(id)?;
        object.group = group;
        object.changed_at = tick;
        Ok(())
    }

    /// Rebuilds the top-level tree when objects were added since the last
    /// build, when a quarter of its leaves were removed, or when refits
    /// made its surface-area cost grow by the factor `top_tree` names;
    /// otherwise does nothing. Call it once per frame, after the moves.
    pub fn update(&mut self) -> UpdateReport {
        let stale = match &self.top {
            None => !self.unindexed.is_empty(),
            Some(top) => {
                !self.unindexed.is_empty()
                    || 4 * self.removed_since_build > top.placed
                    || top.degraded()
            }
        };
        if stale {
            self.rebuild();
        }
        UpdateReport { rebuilt: stale }
    }

    /// Builds the top-level tree anew over every object.
    fn rebuild(&mut self) {
        let boxes: Vec<(u32, Aabb)> = self
            .objects
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.as_ref().map(|o| (i as u32, self.box_of(o))))
            .collect();
        self.unindexed.clear();
        self.removed_since_build = 0;
        self.mesh_scale = (self.objects.iter().flatten())
            .map(Object::mesh_scale)
            .fold(0.0, Real::max);
        if boxes.is_empty() {
            self.top = None;
            return;
        }
        let (top, placements) = TopTree::build(&boxes);
        for (object, leaf) in placements {
            if let Some(o) = self.objects[object as usize].as_mut() {
                o.set_slot(Slot::Indexed(leaf));
            }
        }
        self.top = Some(top);
    }

    /// Number of objects.
    #[must_use]
    pub fn len(&self) -> usize {
        self.live
    }

    /// True when the scene has no objects.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// True when `id` names an object of this scene.
    #[must_use]
    pub fn contains(&self, id: ObjectId) -> bool {
        self.object(id).is_some()
    }

    /// The ids of every object, in the order they were added.
    pub fn ids(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.objects
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_some())
            .map(|(i, _)| ObjectId(i as u32))
    }

    /// The object's mesh.
    #[must_use]
    pub fn mesh(&self, id: ObjectId) -> Option<&SceneMesh> {
        self.object(id).map(|o| &o.mesh)
    }

    /// The object's pose (mesh frame → world frame).
    #[must_use]
    pub fn pose(&self, id: ObjectId) -> Option<Isometry> {
        self.object(id).map(|o| o.pose)
    }

    /// The object's layer mask.
    #[must_use]
    pub fn layers(&self, id: ObjectId) -> Option<u32> {
        self.object(id).map(|o| o.layers)
    }

    /// The object's group.
    #[must_use]
    pub fn group(&self, id: ObjectId) -> Option<Option<u32>> {
        self.object(id).map(|o| o.group)
    }

    /// The object's world bounds (padded for rounding), as the top-level tree holds them.
    #[must_use]
    pub fn world_box(&self, id: ObjectId) -> Option<Aabb> {
        self.object(id).map(|o| self.box_of(o))
    }

    /// The world box of a live object, where its slot keeps it.
    pub(crate) fn box_of(&self, object: &Object) -> Aabb {
        match object.slot() {
            Slot::Indexed(leaf) => self
                .top
                .as_ref()
                .expect("indexed objects have a tree")
                .object_box(leaf),
            Slot::Unindexed(position) => self.unindexed[position as usize].1,
        }
    }

    /// Bytes the scene keeps beside the meshes it places: the object table
    /// and the top-level tree (its 8-wide nodes and their parents).
    #[must_use]
    pub fn bytes(&self) -> usize {
        let top = self.top.as_ref().map_or(0, TopTree::bytes);
        std::mem::size_of_val(self.objects.as_slice())
            + std::mem::size_of_val(self.unindexed.as_slice())
            + top
    }

    /// Bytes of the distinct meshes the scene places (each shared tree counted once).
    #[must_use]
    pub fn mesh_bytes(&self) -> usize {
        let mut seen: Vec<&SceneMesh> = Vec::new();
        let mut bytes = 0;
        for object in self.objects.iter().flatten() {
            if !seen.iter().any(|m| m.same_tree(&object.mesh)) {
                seen.push(&object.mesh);
                bytes += object.mesh.bytes();
            }
        }
        bytes
    }

    fn object(&self, id: ObjectId) -> Option<&Object> {
        self.objects.get(id.index()).and_then(Option::as_ref)
    }

    fn object_mut(&mut self, id: ObjectId) -> Result<&mut Object, SceneError> {
        self.objects
            .get_mut(id.index())
            .and_then(Option::as_mut)
            .ok_or(SceneError::UnknownObject(id))
    }

    /// After the object's pose or shape changed: keeps its new world box
    /// (refitting the path above its leaf).
    fn refit_object(&mut self, id: ObjectId) {
        let Some(object) = self.object(id) else {
            return;
        };
        let world_box = object.placed_box();
        let slot = object.slot();
        let mesh_scale = object.mesh_scale();
        self.note_mesh_scale(mesh_scale);
        match slot {
            Slot::Indexed(leaf) => self
                .top
                .as_mut()
                .expect("indexed objects have a tree")
                .set_object_box(leaf, &world_box),
            Slot::Unindexed(position) => self.unindexed[position as usize].1 = world_box,
        }
    }

    /// Counts one change and returns the new count's low 32 bits, which
    /// objects keep (see `Object::changed_at`).
    fn tick(&mut self) -> u32 {
        self.changes += 1;
        self.changes as u32
    }

    /// Changes made so far: adds, moves, deformations, layer and group changes.
    pub(crate) fn change_count(&self) -> u64 {
        self.changes
    }

    fn note_mesh_scale(&mut self, mesh_scale: Real) {
        self.mesh_scale = self.mesh_scale.max(mesh_scale);
    }

    /// Calls `visit(index, object)` for every object whose world box
    /// `test` accepts (tree nodes are pruned by `test` too), until it
    /// returns [`Visit::Stop`]. Returns `true` when stopped.
    #[inline(always)]
    pub(crate) fn visit_objects(
        &self,
        test: impl BoxTest,
        mut visit: impl FnMut(u32, &Object) -> Visit,
    ) -> bool {
        for (index, world_box) in &self.unindexed {
            let object = self.objects[*index as usize]
                .as_ref()
                .expect("unindexed objects are live");
            if test.accepts(world_box) && visit(*index, object) == Visit::Stop {
                return true;
            }
        }
        let Some(top) = &self.top else {
            return false;
        };
        if top.wide.fits_array_stack() {
            self.visit_indexed(top, &mut ArrayStack::new(&mut stack_items()), test, visit)
        } else {
            self.visit_indexed(top, &mut Vec::new(), test, visit)
        }
    }

    /// The nearest-first descent of the top level that closest hits,
    /// nearest points and casts share: of a node's children that `enter`
    /// keeps, the first in its `order` next and the runner-up after it,
    /// the rest beneath ([`nearest_first`]), each pushed with the key
    /// `key(node, lane, measure)` (made only for the children pushed); a
    /// popped entry whose key lies beyond `reach(state)` is dropped, and an
    /// object leaf goes to `offer`. An object's query costs far more than
    /// a node's box tests, so a far leaf must not be asked before a nearer
    /// subtree. `enter` gets the node and the current reach.
    #[inline(always)]
    pub(crate) fn descend_nearest<S>(
        &self,
        top: &TopTree,
        state: &mut S,
        reach: impl Fn(&S) -> Real,
        mut enter: impl FnMut(&WideNode<8>, Real) -> Option<NodeEntries>,
        key: impl Fn(&WideNode<8>, usize, Real) -> Real,
        mut offer: impl FnMut(u32, &Object, &mut S),
    ) {
        let nodes = top.wide.nodes();
        let mut items = stack_items();
        // (wide node, 0, key) or (object, 1, key).
        let mut stack = ArrayStack::<(u32, u32, Real)>::new(&mut items);
        // The root's key, 0, is never beyond a reach (every caller's is
        // at least 0, or NaN, which drops the root as it drops any key).
        let mut current = (0u32, 0u32, 0.0);
        loop {
            let (at, count, bound) = current;
            let r = reach(state);
            if bound <= r {
                if count == 0 {
                    let node = &nodes[at as usize];
                    if let Some(entries) = enter(node, r) {
                        let child = |lane: usize| {
                            node.keyed_child(lane, key(node, lane, entries.measure[lane]))
                        };
                        current = nearest_first(&entries.order, entries.lanes, child, &mut stack);
                        continue;
                    }
                } else if let Some(object) = &self.objects[at as usize] {
                    // A leaf: its box, within reach, is its object's.
                    offer(at, object, state);
                }
            }
            match stack.pop() {
                Some(next) => current = next,
                None => return,
            }
        }
    }

    /// [`Scene::visit_objects`] over the top-level tree.
    #[inline(always)]
    fn visit_indexed(
        &self,
        top: &TopTree,
        stack: &mut impl TraversalStack<u32>,
        test: impl BoxTest,
        mut visit: impl FnMut(u32, &Object) -> Visit,
    ) -> bool {
        let nodes = top.wide.nodes();
        let mut index = 0u32;
        loop {
            let node = &nodes[index as usize];
            let accepted = test.lanes(node);
            let leaves = accepted & node.leaf_lanes();
            for lane in set_bits(u64::from(accepted & !leaves)) {
                stack.push(node.inner_child(lane));
            }
            for lane in set_bits(u64::from(leaves)) {
                // The leaf's box, just accepted, is its object's.
                let (m, _) = node.leaf_range(lane);
                if let Some(object) = &self.objects[m as usize]
                    && visit(m, object) == Visit::Stop
                {
                    return true;
                }
            }
            match stack.pop() {
                Some(next) => index = next,
                None => return false,
            }
        }
    }

    /// Calls `visit` for every object the filter accepts whose world box
    /// meets `bounds` (nothing for an empty or non-finite box): the broad
    /// phase of region and overlap queries.
    pub(crate) fn visit_overlapping(
        &self,
        bounds: &Aabb,
        filter: &Filter,
        mut visit: impl FnMut(ObjectId, &Object),
    ) {
        let finite = bounds
            .min
            .coords
            .iter()
            .chain(bounds.max.coords.iter())
            .all(|c| c.is_finite());
        if bounds.is_empty() || !finite {
            return;
        }
        self.visit_objects(Overlapping(bounds), |index, object| {
            let id = ObjectId(index);
            if filter.accepts(id, object.layers) {
                visit(id, object);
            }
            Visit::Continue
        });
    }

    pub(crate) fn objects_table(&self) -> &[Option<Object>] {
        &self.objects
    }

    pub(crate) fn top(&self) -> Option<&TopTree> {
        self.top.as_ref()
    }

    pub(crate) fn unindexed(&self) -> &[(u32, Aabb)] {
        &self.unindexed
    }

    /// The largest absolute coordinate of any object's mesh in its own
    /// frame (see the field; kept up to date by adds, moves, deformations
    /// and builds, and never below a removed object's until the next build).
    pub(crate) fn mesh_scale(&self) -> Real {
        self.mesh_scale
    }
}

/// What [`Scene::descend_nearest`] keeps of a node: its children `lanes`,
/// the `order` they are taken in, and the `measure` their keys are made of
/// (the same but where the order must not prune, see `Scene::closest_point`).
pub(crate) struct NodeEntries {
    pub(crate) lanes: u32,
    pub(crate) order: [Real; 8],
    pub(crate) measure: [Real; 8],
}

/// Which world boxes a broad-phase walk of the top level keeps: a test of
/// one box, and the same test of a wide node's eight child boxes at once.
pub(crate) trait BoxTest {
    fn accepts(&self, b: &Aabb) -> bool;

    /// Bit `lane` set when child `lane`'s box passes (unused lanes never).
    #[inline(always)]
    fn lanes(&self, node: &WideNode<8>) -> u32 {
        let mut lanes = 0;
        for lane in 0..8 {
            if !matches!(node.child(lane), WideChild::Empty) && self.accepts(&node.child_box(lane))
            {
                lanes |= 1 << lane;
            }
        }
        lanes
    }
}

impl<F: Fn(&Aabb) -> bool> BoxTest for F {
    #[inline(always)]
    fn accepts(&self, b: &Aabb) -> bool {
        self(b)
    }
}

/// Boxes that meet this box (boundaries included), eight lanes per step.
#[derive(Clone, Copy)]
pub(crate) struct Overlapping<'a>(pub(crate) &'a Aabb);

impl BoxTest for Overlapping<'_> {
    #[inline(always)]
    fn accepts(&self, b: &Aabb) -> bool {
        b.overlaps(self.0)
    }

    #[inline(always)]
    fn lanes(&self, node: &WideNode<8>) -> u32 {
        node.overlapping_lanes(self.0)
    }
}
