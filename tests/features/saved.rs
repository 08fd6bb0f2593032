//! Saved meshes and trees: answers after loading equal answers before, and
//! damaged bytes (flipped, truncated, from another kind or version) are
//! typed errors. Forged files with a valid checksum are fuzzed by the unit
//! tests in `src/saved/`.

use crate::common;

use boxtree::bvh::BuildOptions;
use boxtree::query::ErrorBound;
use boxtree::saved::{FORMAT_VERSION, LoadError, SavedVolume};
use boxtree::{Aabb, Isometry, MeshTree, Obb, PackedObb, Point, Segment, TriMesh};
use common::{SplitMix, data_mesh};

fn segments(mesh: &TriMesh, count: usize, seed: u64) -> Vec<Segment> {
    let b = mesh.aabb();
    let (c, h) = (b.center(), b.half_extents() * 1.3);
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|_| {
            let p = |rng: &mut SplitMix| c + rng.point(1.0).coords.component_mul(&h);
            Segment::new(p(&mut rng), p(&mut rng))
        })
        .collect()
}

/// Poses of a copy of `mesh` centred on its box centre: a uniform
/// rotation about the centre and a shift within 1.45 times the half box.
fn poses(mesh: &TriMesh, count: usize, seed: u64) -> Vec<Isometry> {
    let (c, half) = (mesh.aabb().center(), mesh.aabb().half_extents());
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|_| {
            let r = rng.rotation();
            let t = rng.point(1.45).coords.component_mul(&half);
            Isometry::from_parts((c.coords + t - r * c.coords).into(), r)
        })
        .collect()
}

/// Saves and loads `tree`, then checks 10,000 segments and 1,000 poses
/// against the original.
fn round_trip<V: SavedVolume + PartialEq + std::fmt::Debug>(tree: &MeshTree<V>) {
    let bytes = tree.to_saved_bytes();
    let loaded = MeshTree::<V>::from_saved_bytes(&bytes).expect("a saved tree loads");
    assert_eq!(loaded.mesh(), tree.mesh());
    assert_eq!(loaded.bvh(), tree.bvh());
    assert_eq!(loaded.bytes(), tree.bytes());
    assert_eq!(
        loaded.to_saved_bytes(),
        bytes,
        "saving again gives the same bytes"
    );
    let mesh = tree.mesh();
    for s in segments(mesh, 10_000, 7) {
        assert_eq!(loaded.any_hit(s).is_some(), tree.any_hit(s).is_some());
        assert_eq!(loaded.closest_hit(s), tree.closest_hit(s), "{s:?}");
    }
    let c = mesh.aabb().center();
    let half = TriMesh::new(
        mesh.vertices().iter().map(|v| c + (v - c) * 0.5).collect(),
        mesh.indices().to_vec(),
    )
    .expect("a scaled mesh");
    let other = MeshTree::<Aabb>::new(half);
    let mut touching = 0;
    for pose in poses(mesh, 1_000, 8) {
        let (a, b) = (other.placed(pose), tree.placed(Isometry::identity()));
        let c = loaded.placed(Isometry::identity());
        assert_eq!(a.overlaps(&c), a.overlaps(&b));
        touching += usize::from(a.overlaps(&b));
        assert_eq!(
            a.touching_pairs(&c, None, None),
            a.touching_pairs(&b, None, None)
        );
        let exact = ErrorBound::EXACT;
        assert_eq!(
            a.distance(&c, exact).map(|d| d.distance),
            a.distance(&b, exact).map(|d| d.distance)
        );
    }
    assert!(
        (100..900).contains(&touching),
        "{touching} of 1,000 poses touch"
    );
}

#[test]
fn trees_of_every_saved_kind_answer_as_before_after_a_round_trip() {
    let bunny = data_mesh("bunny.obj");
    round_trip(&MeshTree::<Aabb>::build(
        bunny.clone(),
        &BuildOptions::sah(),
    ));
    round_trip(&MeshTree::<PackedObb>::build(
        bunny.clone(),
        &BuildOptions::gottschalk(),
    ));
    round_trip(&MeshTree::<Obb>::build(bunny, &BuildOptions::gottschalk()));
    // Thin walls and long triangles; a one-triangle mesh (a leaf root).
    round_trip(&MeshTree::<Aabb>::new(TriMesh::city(1, 2)));
    let one = TriMesh::new(
        vec![
            Point::origin(),
            Point::new(1.0, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("one triangle");
    let tree = MeshTree::<Aabb>::new(one);
    let loaded = MeshTree::<Aabb>::from_saved_bytes(&tree.to_saved_bytes()).expect("loads");
    assert_eq!(loaded.bvh(), tree.bvh());
}

#[test]
fn oriented_boxes_padded_past_the_largest_float_load_again() {
    // Vertices at ±f32::MAX: the fit's rounding pad takes the root's
    // half-extents to +∞ (a box holding every finite point), which the
    // loader refused as "not a well-formed volume".
    let wide = TriMesh::new(
        vec![
            Point::new(-f32::MAX, 0.0, 0.0),
            Point::new(f32::MAX, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("finite");
    fn check<V: SavedVolume + PartialEq + std::fmt::Debug>(tree: MeshTree<V>) {
        let loaded = MeshTree::<V>::from_saved_bytes(&tree.to_saved_bytes()).expect("loads");
        assert_eq!(loaded.bvh(), tree.bvh());
        let s = Segment::new(Point::new(0.0, 0.5, 1.0), Point::new(0.0, 0.5, -1.0));
        assert_eq!(loaded.any_hit(s), tree.any_hit(s));
    }
    check(MeshTree::<PackedObb>::new(wide.clone()));
    check(MeshTree::<Obb>::new(wide));
}

#[test]
fn meshes_round_trip_and_keep_every_vertex_bit() {
    let mesh = data_mesh("rob.obj");
    let bytes = mesh.to_saved_bytes();
    assert_eq!(TriMesh::from_saved_bytes(&bytes).expect("loads"), mesh);
    assert_eq!(
        bytes.len(),
        8 + 12 + 2 * 8 + 12 * (mesh.vertices().len() + mesh.len()) + 8
    );
}

#[test]
fn damaged_bytes_are_typed_errors() {
    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 2));
    let bytes = tree.to_saved_bytes();
    // Every truncation, at every length.
    for len in 0..bytes.len() {
        let e = MeshTree::<Aabb>::from_saved_bytes(&bytes[..len]).expect_err("truncated");
        assert!(
            matches!(
                e,
                LoadError::NotSaved | LoadError::Truncated { .. } | LoadError::Checksum
            ),
            "{len}: {e}"
        );
    }
    // Every single flipped bit in a sample of bytes, header included.
    let mut rng = SplitMix(3);
    for _ in 0..3_000 {
        let mut damaged = bytes.clone();
        let at = (rng.next_u64() % bytes.len() as u64) as usize;
        damaged[at] ^= 1 << (rng.next_u64() % 8);
        let e = MeshTree::<Aabb>::from_saved_bytes(&damaged).expect_err("damaged");
        assert!(
            matches!(
                e,
                LoadError::NotSaved | LoadError::Version { .. } | LoadError::Checksum
            ),
            "byte {at}: {e}"
        );
    }
    // Bytes appended after the checksum.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 16]);
    assert!(MeshTree::<Aabb>::from_saved_bytes(&longer).is_err());
}

#[test]
fn other_kinds_and_versions_are_refused_by_name() {
    let mesh = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let aabb = MeshTree::<Aabb>::new(mesh.clone()).to_saved_bytes();
    let e = MeshTree::<PackedObb>::from_saved_bytes(&aabb).expect_err("an AABB tree");
    assert_eq!(
        e.to_string(),
        "the file holds a MeshTree<Aabb>, not a MeshTree<PackedObb>"
    );
    let e = TriMesh::from_saved_bytes(&aabb).expect_err("a tree, not a mesh");
    assert!(matches!(e, LoadError::Kind { .. }), "{e}");
    let e = MeshTree::<Aabb>::from_saved_bytes(&mesh.to_saved_bytes()).expect_err("a mesh");
    assert_eq!(e.to_string(), "the file holds a mesh, not a MeshTree<Aabb>");
    let mut newer = aabb.clone();
    newer[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = MeshTree::<Aabb>::from_saved_bytes(&newer).expect_err("a newer version");
    assert!(
        matches!(e, LoadError::Version { found, supported } if found == FORMAT_VERSION + 1 && supported == FORMAT_VERSION),
        "{e}"
    );
    let e = MeshTree::<Aabb>::from_saved_bytes(b"solid cube\n").expect_err("an STL file");
    assert!(matches!(e, LoadError::NotSaved), "{e}");
}

#[cfg(feature = "serde")]
#[test]
fn serde_carries_meshes_and_trees_as_their_saved_bytes() {
    use serde::Deserialize;
    use serde::de::value::{BytesDeserializer, Error};
    let tree = MeshTree::<PackedObb>::new(data_mesh("rob.obj"));
    // A text format: the bytes travel as a sequence of numbers.
    let json = serde_json::to_string(&tree).expect("serialises");
    let loaded: MeshTree<PackedObb> = serde_json::from_str(&json).expect("deserialises");
    assert_eq!(loaded.to_saved_bytes(), tree.to_saved_bytes());
    let mesh: TriMesh = serde_json::from_str(&serde_json::to_string(tree.mesh()).unwrap())
        .expect("a mesh deserialises");
    assert_eq!(&mesh, tree.mesh());
    // A binary format's byte string, and the typed error of damaged bytes.
    let bytes = tree.to_saved_bytes();
    let loaded = MeshTree::<PackedObb>::deserialize(BytesDeserializer::<Error>::new(&bytes))
        .expect("deserialises from bytes");
    assert_eq!(loaded.bvh(), tree.bvh());
    let e = MeshTree::<Aabb>::deserialize(BytesDeserializer::<Error>::new(&bytes))
        .expect_err("another volume kind");
    assert_eq!(
        e.to_string(),
        "the file holds a MeshTree<PackedObb>, not a MeshTree<Aabb>"
    );
}

#[test]
fn scenes_round_trip_with_their_ids_instances_and_answers() {
    use boxtree::{Filter, Scene, Threads};
    use std::sync::Arc;
    let bunny = Arc::new(MeshTree::<Aabb>::new(data_mesh("bunny.obj")));
    let ball = Arc::new(MeshTree::<PackedObb>::new(TriMesh::icosphere(
        Point::origin(),
        0.04,
        2,
    )));
    let mut scene = Scene::new();
    let mut rng = SplitMix(12);
    let mut ids = Vec::new();
    for k in 0..60 {
        let pose = Isometry::from_parts(rng.point(0.4).coords.into(), rng.rotation());
        let id = if k % 3 == 0 {
            scene.add(ball.clone(), pose)
        } else {
            scene.add(bunny.clone(), pose)
        }
        .expect("finite pose");
        scene.set_layers(id, 1 << (k % 4)).expect("live");
        if k % 5 == 0 {
            scene.set_group(id, Some(k / 10)).expect("live");
        }
        ids.push(id);
    }
    for &gone in &ids[10..13] {
        scene.remove(gone).expect("live");
    }
    scene.update();

    let bytes = scene.to_saved_bytes();
    let loaded = Scene::from_saved_bytes(&bytes).expect("a saved scene loads");
    assert!(loaded.ids().eq(scene.ids()), "ids, removed ones included");
    for id in scene.ids() {
        assert_eq!(loaded.pose(id), scene.pose(id));
        assert_eq!(loaded.layers(id), scene.layers(id));
        assert_eq!(loaded.group(id), scene.group(id));
    }
    // Instances share one tree again: one bunny and one ball, not 57 trees.
    let first = |want: usize| {
        scene
            .ids()
            .find(|id| id.get() as usize % 3 == want)
            .unwrap()
    };
    let (b1, b2) = (first(1), first(2));
    let shared = loaded.mesh(b1).unwrap().same_tree(loaded.mesh(b2).unwrap());
    assert!(shared, "instances of the bunny share one loaded tree");
    assert!(bytes.len() < 2 * bunny.to_saved_bytes().len());

    let b = Aabb::new(Point::new(-0.6, -0.6, -0.6), Point::new(0.6, 0.6, 0.6));
    let mesh = TriMesh::cuboid(b.min, b.max);
    let mut hits = 0;
    for s in segments(&mesh, 10_000, 21) {
        let (ours, theirs) = (
            loaded.closest_hit(s, &Filter::everything()),
            scene.closest_hit(s, &Filter::everything()),
        );
        assert_eq!(
            ours.map(|h| (h.object, h.hit)),
            theirs.map(|h| (h.object, h.hit))
        );
        hits += usize::from(theirs.is_some());
    }
    assert!(hits > 1_000, "{hits} hits");
    let pairs =
        |s: &Scene| s.overlapping_pairs(&Filter::everything(), |_, _| false, Threads::Current);
    assert_eq!(pairs(&loaded), pairs(&scene));
    assert!(!pairs(&scene).is_empty());

    // Damaged or foreign bytes are typed errors.
    let e = Scene::from_saved_bytes(&bunny.to_saved_bytes()).expect_err("a tree");
    assert_eq!(
        e.to_string(),
        "the file holds a MeshTree<Aabb>, not a Scene"
    );
    for len in (0..bytes.len()).step_by(97) {
        assert!(Scene::from_saved_bytes(&bytes[..len]).is_err());
    }
}
