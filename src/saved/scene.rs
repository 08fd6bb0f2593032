//! Saving and loading scenes: each distinct tree once, then every object
//! id in order (removed ones kept as gaps, so ids survive), with its tree,
//! pose, layers and group. The top-level tree is rebuilt on load (0.5 ms
//! for 2,000 objects): it is small, and rebuilding it is cheaper to trust.

use std::collections::HashMap;
use std::sync::Arc;

use crate::math::nalgebra::{Quaternion, Translation3};
use crate::math::{Isometry, Real, Rotation};
use crate::saved::format::{Reader, damage_first, real, verified};
use crate::saved::tree::{SCENE, header, open};
use crate::saved::{LoadError, SavedVolume};
use crate::scene::{Scene, SceneMesh};
use crate::{Aabb, MeshTree, PackedObb};

/// Words per object: present, tree, translation (3), rotation quaternion
/// (4: i, j, k, w), layers, has group, group.
const OBJECT_WORDS: usize = 13;

impl Scene {
    /// The scene in boxtree's saved form (see [`crate::saved`]): every
    /// distinct tree once (instances share it again after loading), every
    /// object with its id, pose, layers and group.
    #[must_use]
    pub fn to_saved_bytes(&self) -> Vec<u8> {
        let mut trees: Vec<SceneMesh> = Vec::new();
        // Each shared tree's index, by the address of its `Arc`: one lookup
        // per object, however many distinct trees there are.
        let mut index_of: HashMap<*const (), usize> = HashMap::new();
        let mut objects: Vec<[u32; OBJECT_WORDS]> = Vec::new();
        for index in 0..self.id_count() {
            let id = crate::scene::ObjectId(index as u32);
            let Some(mesh) = self.mesh(id) else {
                objects.push([0; OBJECT_WORDS]);
                continue;
            };
            let address = match mesh {
                SceneMesh::Aabb(tree) => Arc::as_ptr(tree).cast::<()>(),
                SceneMesh::Obb(tree) => Arc::as_ptr(tree).cast::<()>(),
            };
            let tree = *index_of.entry(address).or_insert_with(|| {
                trees.push(mesh.clone());
                trees.len() - 1
            });
            let pose = self.pose(id).expect("a live object");
            let (t, q) = (pose.translation.vector, pose.rotation.quaternion().coords);
            let group = self.group(id).expect("a live object");
            objects.push([
                1,
                tree as u32,
                t.x.to_bits(),
                t.y.to_bits(),
                t.z.to_bits(),
                q.x.to_bits(),
                q.y.to_bits(),
                q.z.to_bits(),
                q.w.to_bits(),
                self.layers(id).expect("a live object"),
                u32::from(group.is_some()),
                group.unwrap_or(0),
                0,
            ]);
        }
        let mut w = header(SCENE, 0);
        let blobs: Vec<Vec<u8>> = trees
            .iter()
            .map(|t| match t {
                SceneMesh::Aabb(tree) => tree.to_saved_bytes(),
                SceneMesh::Obb(tree) => tree.to_saved_bytes(),
            })
            .collect();
        w.u64(blobs.len() as u64);
        for blob in &blobs {
            // Saved trees are whole words long.
            debug_assert!(blob.len().is_multiple_of(4));
            w.u64((blob.len() / 4) as u64);
            w.bytes.extend_from_slice(blob);
        }
        w.words(&objects, |o, out| out.extend_from_slice(o));
        w.finish()
    }

    /// A scene from [`Scene::to_saved_bytes`]' bytes: every tree checked
    /// as [`MeshTree::from_saved_bytes`] checks it, every object's tree
    /// index and pose checked, ids as they were; the top-level tree is
    /// built before it returns.
    pub fn from_saved_bytes(bytes: &[u8]) -> Result<Scene, LoadError> {
        let mut r = open(bytes, SCENE, 0)?;
        damage_first(bytes, verified(bytes, || decode(&mut r)))
    }
}

fn load_tree<V: SavedVolume>(blob: &[u8]) -> Result<Arc<MeshTree<V>>, LoadError> {
    MeshTree::<V>::from_saved_bytes(blob).map(Arc::new)
}

fn decode(r: &mut Reader<'_>) -> Result<Scene, LoadError> {
    let tree_count = r.count("trees")?;
    let mut trees = Vec::new();
    for index in 0..tree_count {
        let (_, blob) = r.words(1, "trees")?;
        let blob = blob.bytes();
        // The kind word follows the magic, version and content words.
        let kind = blob
            .get(16..20)
            .map(|k| u32::from_le_bytes(k.try_into().expect("four")));
        trees.push(match kind {
            Some(Aabb::KIND) => SceneMesh::Aabb(load_tree::<Aabb>(blob)?),
            Some(PackedObb::KIND) => SceneMesh::Obb(load_tree::<PackedObb>(blob)?),
            _ => {
                return Err(LoadError::Corrupt {
                    section: "trees",
                    index,
                    reason: "not an AABB or packed OBB tree",
                });
            }
        });
    }
    let (_, objects) = r.words(OBJECT_WORDS, "objects")?;
    r.end()?;
    let mut scene = Scene::new();
    for (index, w) in objects.decoded().chunks_exact(OBJECT_WORDS).enumerate() {
        let corrupt = |reason| LoadError::Corrupt {
            section: "objects",
            index,
            reason,
        };
        if index >= 1 << 31 {
            return Err(corrupt("more objects than ids"));
        }
        if w[0] == 0 {
            scene.skip_id();
            continue;
        }
        let tree = trees
            .get(w[1] as usize)
            .ok_or_else(|| corrupt("names no saved tree"))?;
        let q = Quaternion::new(real(w[8]), real(w[5]), real(w[6]), real(w[7]));
        // Unit to `f32` rounding (a saved pose's own quaternion), kept bit
        // for bit; anything farther would make the pose non-rigid.
        if !((q.norm() - 1.0).abs() <= 4.0 * Real::EPSILON) {
            return Err(corrupt("rotation is not a unit quaternion"));
        }
        let pose = Isometry::from_parts(
            Translation3::new(real(w[2]), real(w[3]), real(w[4])),
            Rotation::new_unchecked(q),
        );
        let id = scene
            .add(tree.clone(), pose)
            .map_err(|_| corrupt("pose is not finite"))?;
        scene.set_layers(id, w[9]).expect("just added");
        scene
            .set_group(id, (w[10] != 0).then_some(w[11]))
            .expect("just added");
    }
    scene.update();
    Ok(scene)
}
