//! One placed object: a shared mesh tree, its pose, and what filters read.

use std::sync::Arc;

use crate::bounding_volume::{Aabb, PackedObb};
use crate::bvh::BoundingVolume;
use crate::math::{Isometry, Point, Real, Vector, is_finite_point};
use crate::mesh::TriMesh;
use crate::query::MeshTree;
use crate::query::frame::LocalFrame;
use crate::scene::top_tree::ChildSlot;

/// A stable name for an object of a [`crate::Scene`]: given by
/// [`crate::Scene::add`], never reused by that scene, so an id kept after
/// its object was removed names nothing rather than another object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId(pub(crate) u32);

impl ObjectId {
    /// The id as a number (ids grow from 0 in the order objects were added).
    #[must_use]
    pub fn get(self) -> u32 {
        self.0
    }

    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// The mesh of an object: an already built tree, shared between every
/// object that places it (instancing stores a mesh once).
///
/// AABB and OBB trees can be mixed in one scene: each object's own tree
/// answers for it (its raycast kernels, its half of a tree-vs-tree
/// descent), so mixing changes speed, never answers.
#[derive(Clone, Debug)]
pub enum SceneMesh {
    /// An AABB tree (`MeshTree::<Aabb>::new`): fastest for raycasts.
    Aabb(Arc<MeshTree<Aabb>>),
    /// A packed OBB tree (`MeshTree::<PackedObb>::new`): tightest for
    /// overlap between rotated objects.
    Obb(Arc<MeshTree<PackedObb>>),
}

/// Runs `$body` with `$tree` bound to the object's tree, whichever its volume.
macro_rules! with_tree {
    ($mesh:expr, $tree:ident => $body:expr) => {
        match $mesh {
            $crate::scene::SceneMesh::Aabb($tree) => $body,
            $crate::scene::SceneMesh::Obb($tree) => $body,
        }
    };
}
pub(crate) use with_tree;

impl From<MeshTree<Aabb>> for SceneMesh {
    fn from(tree: MeshTree<Aabb>) -> Self {
        SceneMesh::Aabb(Arc::new(tree))
    }
}

impl From<Arc<MeshTree<Aabb>>> for SceneMesh {
    fn from(tree: Arc<MeshTree<Aabb>>) -> Self {
        SceneMesh::Aabb(tree)
    }
}

impl From<MeshTree<PackedObb>> for SceneMesh {
    fn from(tree: MeshTree<PackedObb>) -> Self {
        SceneMesh::Obb(Arc::new(tree))
    }
}

impl From<Arc<MeshTree<PackedObb>>> for SceneMesh {
    fn from(tree: Arc<MeshTree<PackedObb>>) -> Self {
        SceneMesh::Obb(tree)
    }
}

impl SceneMesh {
    /// The triangle mesh.
    #[must_use]
    pub fn mesh(&self) -> &TriMesh {
        with_tree!(self, tree => tree.mesh())
    }

    /// Bytes of the tree beside the mesh ([`MeshTree::bytes`]) plus the
    /// mesh's vertices and indices.
    #[must_use]
    pub fn bytes(&self) -> usize {
        let mesh = self.mesh();
        with_tree!(self, tree => tree.bytes())
            + std::mem::size_of_val(mesh.vertices())
            + std::mem::size_of_val(mesh.indices())
    }

    /// True when both name the same shared tree.
    #[must_use]
    pub fn same_tree(&self, other: &SceneMesh) -> bool {
        match (self, other) {
            (SceneMesh::Aabb(a), SceneMesh::Aabb(b)) => Arc::ptr_eq(a, b),
            (SceneMesh::Obb(a), SceneMesh::Obb(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// Where an object's world box is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Alone in this leaf slot of the top-level tree, whose box is the
    /// object's world box.
    Indexed(ChildSlot),
    /// Added since the last build: at this position of the scene's list of
    /// unindexed objects, beside its box, and tested by every query.
    Unindexed(u32),
}

/// A [`Slot`] in 31 bits and a flag: `Unindexed` sets the top bit. Leaf
/// slots and list positions stay below 2³¹ (a scene has fewer objects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PackedSlot(u32);

const UNINDEXED_BIT: u32 = 1 << 31;

impl From<Slot> for PackedSlot {
    fn from(slot: Slot) -> Self {
        match slot {
            Slot::Indexed(leaf) => PackedSlot(leaf),
            Slot::Unindexed(position) => PackedSlot(position | UNINDEXED_BIT),
        }
    }
}

/// An object of a scene, in 64 bytes: the scene's memory per object
/// beside its top-level tree (its world box lives in that tree, see
/// [`Slot`]).
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub(crate) mesh: SceneMesh,
    pub(crate) pose: Isometry,
    pub(crate) layers: u32,
    pub(crate) group: Option<u32>,
    slot: PackedSlot,
    /// The low 32 bits of the scene's change count when this object last
    /// changed (compared as a wrapping difference; see `Scene::update_pairs`).
    pub(crate) changed_at: u32,
}

impl Object {
    /// The world → object mapping, derived from the pose when a query
    /// needs it (about twenty operations; kept out of the object, whose
    /// size is the scene's memory per object).
    #[inline(always)]
    pub(crate) fn frame(&self) -> LocalFrame {
        LocalFrame::new(&self.pose)
    }

    /// An object at `pose` (checked finite by the caller), kept at `slot`.
    pub(crate) fn new(mesh: SceneMesh, pose: Isometry, slot: Slot) -> Self {
        Object {
            mesh,
            pose,
            layers: 1,
            group: None,
            slot: slot.into(),
            changed_at: 0,
        }
    }

    /// Where the object's world box is kept.
    #[inline(always)]
    pub(crate) fn slot(&self) -> Slot {
        match self.slot.0 {
            packed if packed & UNINDEXED_BIT != 0 => Slot::Unindexed(packed & !UNINDEXED_BIT),
            leaf => Slot::Indexed(leaf),
        }
    }

    pub(crate) fn set_slot(&mut self, slot: Slot) {
        self.slot = slot.into();
    }

    /// The largest absolute coordinate of the object's mesh in its own frame.
    pub(crate) fn mesh_scale(&self) -> Real {
        with_tree!(&self.mesh, tree => tree.coordinate_scale())
    }

    /// Bounds of the placed mesh, padded for rounding; empty for a mesh
    /// without triangles. Computed from the pose (a transformed root box),
    /// for the scene to keep where [`Slot`] says.
    pub(crate) fn placed_box(&self) -> Aabb {
        with_tree!(&self.mesh, tree => placed_box(tree, &self.pose))
    }
}

/// What [`placed_box`] pads world boxes by, per unit of each size it
/// covers (the world centre, the box's reach, the local centre).
pub(crate) const PLACED_PAD: Real = 64.0 * Real::EPSILON;

/// The world bounds of `tree` placed by `pose`: its root volume as a
/// transformed oriented box, padded by `64 ε` of its coordinates so the
/// `f32` transform's rounding never leaves a triangle outside. The
/// centre's term is far more than that rounding (about `2u` of it), and
/// stays: objects are asked in their own frames, with queries mapped there
/// (`LocalFrame`), and a long span's mapped ends round by `u` of their
/// distance from the object, which the pad then covers for spans up to
/// about a hundred times the object's distance from the origin. At `4 ε`
/// of the centre, rays from 1e5 m away hit objects 1e3 m out in their own
/// frames that the scene had pruned (a review's counterexamples).
pub(crate) fn placed_box<V: BoundingVolume>(tree: &MeshTree<V>, pose: &Isometry) -> Aabb {
    if tree.bvh().triangle_count() == 0 {
        return Aabb::EMPTY;
    }
    let local = tree.bvh().root_volume().oriented_box();
    let world = local.transformed(pose);
    let reach: Vector = world.axes.abs() * local.half_extents;
    // Term by term: the sum of the sizes overflows from about 1.7e38,
    // where the pad itself does not (such objects had infinite boxes and
    // were left out of every broad phase).
    let pad = PLACED_PAD * world.center.coords.amax()
        + PLACED_PAD * reach.amax()
        + PLACED_PAD * local.center.coords.amax();
    let half = reach.add_scalar(pad);
    // Beyond `f32`'s range the centre and the reach may both be infinite:
    // such a bound is NaN, which would spoil every box of the top level
    // that holds it (other objects were then missed after an update); it
    // is unbounded instead.
    let (min, max) = (world.center - half, world.center + half);
    let unbounded = |v: Vector, fill: Real| v.map(|c| if c.is_nan() { fill } else { c });
    Aabb::new(
        Point::from(unbounded(min.coords, Real::NEG_INFINITY)),
        Point::from(unbounded(max.coords, Real::INFINITY)),
    )
}

/// `pose` with its rotation's quaternion brought back to unit length when
/// its squared norm is off by more than `8 ε` (its norm by about `4 ε`, what
/// saved scenes accept), the norm taken in `f64` so that any finite
/// quaternion's square is a normal number (in `f32`, norms beyond about
/// 2e19 or below 1e-19 were left as they were, and a NaN world box then
/// hid other objects after an update); `None` for a zero quaternion, which
/// is no rotation. The caller checks finiteness first.
pub(crate) fn rigid(pose: Isometry) -> Option<Isometry> {
    let q = pose.rotation.quaternion().coords.cast::<f64>();
    let squared = q.norm_squared();
    if !(squared > 0.0) {
        return None;
    }
    if (squared - 1.0).abs() <= 8.0 * f64::from(Real::EPSILON) {
        return Some(pose);
    }
    let unit = (q / squared.sqrt()).cast::<Real>();
    let rotation = crate::math::Rotation::new_unchecked(nalgebra::Quaternion::from(unit));
    Some(Isometry::from_parts(pose.translation, rotation))
}

/// True when every component of the pose is finite.
pub(crate) fn is_finite_pose(pose: &Isometry) -> bool {
    let q = pose.rotation.quaternion();
    is_finite_point(&Point::from(pose.translation.vector)) && q.coords.iter().all(|c| c.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_takes_64_bytes_in_the_scene_s_table() {
        assert_eq!(std::mem::size_of::<Option<Object>>(), 64);
    }

    /// The world box holds every world point whose image in the object's
    /// frame (`LocalFrame`, through the pose's `f32` rotation matrix) is a
    /// vertex of the mesh: such a point is `(Mᵀ)⁻¹ v + t`, taken here in
    /// `f64`. Meshes near and far from their own origin, turned at random,
    /// placed from 1 to 1e7 away: every vertex inside (a pad of `0.25 ε` of
    /// the centre alone fails; `1 ε` holds).
    #[test]
    fn world_boxes_hold_every_vertex_under_any_pose() {
        let mut unit = crate::test_support::unit_floats(11);
        for case in 0..400 {
            let size = [0.01, 1.0, 50.0][case % 3];
            let offset = [0.0, 3.0, 1e3][case / 3 % 3];
            let centre = Point::new(offset, -offset, 0.5 * offset);
            let mesh = TriMesh::icosphere(centre, size, 1);
            let tree = MeshTree::<Aabb>::new(mesh.clone());
            let distance = 10f32.powi((case % 8) as i32);
            let axis = Vector::new(unit() - 0.5, unit() - 0.5, unit() - 0.5);
            let translation = Vector::new(unit() - 0.5, unit() - 0.5, unit() - 0.5) * distance;
            let pose = Isometry::new(translation, axis * 6.0);
            let world = placed_box(&tree, &pose);
            let m = pose.rotation.to_rotation_matrix().matrix().cast::<f64>();
            let back = m.transpose().try_inverse().expect("a rotation");
            let t = translation.cast::<f64>();
            for v in mesh.vertices() {
                let w = back * v.coords.cast::<f64>() + t;
                for axis in 0..3 {
                    let (lo, hi) = (f64::from(world.min[axis]), f64::from(world.max[axis]));
                    assert!(
                        lo <= w[axis] && w[axis] <= hi,
                        "case {case}: {w:?} outside {world:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn slots_survive_packing() {
        let cube = TriMesh::cuboid(Point::origin(), Point::new(1.0, 1.0, 1.0));
        let mesh = SceneMesh::from(MeshTree::<Aabb>::new(cube));
        let mut object = Object::new(mesh, Isometry::identity(), Slot::Unindexed(7));
        assert_eq!(object.slot(), Slot::Unindexed(7));
        for slot in [
            Slot::Indexed(0),
            Slot::Indexed((1 << 31) - 1),
            Slot::Unindexed((1 << 31) - 1),
        ] {
            object.set_slot(slot);
            assert_eq!(object.slot(), slot);
        }
    }
}
