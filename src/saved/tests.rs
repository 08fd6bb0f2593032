//! Forged files: bytes changed and the checksum recomputed, as a hostile
//! or buggy writer would make them. Loading must answer Ok or a typed
//! error, never panic, and a tree it accepts must answer as a tree built
//! afresh over its mesh does.

use crate::bvh::BuildOptions;
use crate::math::{Isometry, Point};
use crate::mesh::TriMesh;
use crate::query::{ErrorBound, MeshTree};
use crate::saved::format::checksum;
use crate::saved::{LoadError, SavedVolume};
use crate::shape::Segment;
use crate::test_support::xorshift;

/// `bytes` with a valid checksum again.
fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 8;
    let sum = checksum(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// Queries a loaded tree enough to reach every part: rays through it,
/// overlap and distance against another mesh.
fn exercise<V: SavedVolume>(tree: &MeshTree<V>) {
    let b = tree.mesh().aabb();
    let probe = MeshTree::<crate::Aabb>::new(TriMesh::icosphere(b.center(), 0.4, 1));
    for k in 0..20 {
        let a = b.center() + crate::math::Vector::new(3.0, k as f32 * 0.1 - 1.0, 0.5);
        let s = Segment::new(a, b.center());
        let _ = tree.any_hit(s);
        let _ = tree.closest_hit(s);
        let _ = tree.all_hits(s);
        let _ = tree.closest_point(a);
    }
    let (p, q) = (
        tree.placed(Isometry::identity()),
        probe.placed(Isometry::identity()),
    );
    let _ = q.overlaps(&p);
    let _ = q.touching_pairs(&p, None, None);
    let _ = q.distance(&p, ErrorBound::EXACT);
}

/// What a tree answers to 200 segments (any-hit, closest `t`) and 200
/// points (distance) spread over its mesh's box grown by half.
type Answers = Vec<(bool, Option<f32>, Option<f32>)>;

fn answers<V: SavedVolume>(tree: &MeshTree<V>) -> Answers {
    let b = tree.mesh().aabb();
    let mut next = xorshift(7);
    let mut point = || {
        let mut u = |_: u8| (next() % 1000) as f32 / 999.0;
        let e = b.extents() * 1.5;
        b.center() + crate::math::Vector::new(u(0) - 0.5, u(1) - 0.5, u(2) - 0.5).component_mul(&e)
    };
    (0..200)
        .map(|_| {
            let s = Segment::new(point(), point());
            let p = point();
            (
                tree.any_hit(s).is_some(),
                tree.closest_hit(s).map(|h| h.t),
                tree.closest_point(p).map(|q| q.distance),
            )
        })
        .collect()
}

/// Asserts that `tree` answers as a tree built afresh over its mesh
/// does: what a loaded file is accepted for. `built` holds a fresh tree's
/// answers over the unforged mesh, which most accepted forgeries keep.
fn answers_as_built<V: SavedVolume>(tree: &MeshTree<V>, built: Option<(&TriMesh, &Answers)>) {
    let got = answers(tree);
    match built {
        Some((mesh, want)) if mesh == tree.mesh() => assert_eq!(&got, want),
        _ => assert_eq!(got, answers(&MeshTree::<V>::new(tree.mesh().clone()))),
    }
}

fn forge<V: SavedVolume>(tree: &MeshTree<V>, seed: u64, rounds: usize) -> (usize, usize) {
    let bytes = tree.to_saved_bytes();
    let built = answers(&MeshTree::<V>::new(tree.mesh().clone()));
    let mut next = xorshift(seed);
    let (mut refused, mut accepted) = (0, 0);
    // Past the magic, version and kind; before the checksum.
    let body = 8 + 12..bytes.len() - 8;
    for round in 0..rounds {
        let mut forged = bytes.clone();
        let at = body.start + (next() as usize) % (body.end - body.start);
        match round % 4 {
            // A random byte.
            0 => forged[at] = next() as u8,
            // A random 32-bit word, aligned as the file's words are.
            1 => {
                let at = at & !3;
                if at + 4 <= body.end {
                    forged[at..at + 4].copy_from_slice(&(next() as u32).to_le_bytes());
                }
            }
            // A small change to a word: off-by-one links and ranges.
            2 => {
                let at = at & !3;
                if at + 4 <= body.end {
                    let w = u32::from_le_bytes(forged[at..at + 4].try_into().unwrap());
                    let w = w.wrapping_add(if next().is_multiple_of(2) {
                        1
                    } else {
                        u32::MAX
                    });
                    forged[at..at + 4].copy_from_slice(&w.to_le_bytes());
                }
            }
            // Two words swapped.
            _ => {
                let other = body.start + (next() as usize) % (body.end - body.start);
                let (a, b) = (at & !3, other & !3);
                if a + 4 <= body.end && b + 4 <= body.end {
                    for k in 0..4 {
                        forged.swap(a + k, b + k);
                    }
                }
            }
        }
        match MeshTree::<V>::from_saved_bytes(&resealed(forged)) {
            Ok(loaded) => {
                accepted += 1;
                exercise(&loaded);
                answers_as_built(&loaded, Some((tree.mesh(), &built)));
            }
            Err(_) => refused += 1,
        }
    }
    (refused, accepted)
}

#[test]
fn forged_trees_are_refused_or_answer_as_built_ones() {
    let mesh = TriMesh::icosphere(Point::new(0.1, 0.2, 0.3), 1.0, 2);
    let aabb = MeshTree::<crate::Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let packed = MeshTree::<crate::PackedObb>::build(mesh, &BuildOptions::gottschalk());
    let (refused, accepted) = forge(&aabb, 1, 4_000);
    // Changes to links, counts, ids, vertices and leaf triangles are
    // caught, and so are boxes that no longer hold what lies below them;
    // boxes grown (and unused lanes, padding) are accepted, and those
    // trees answer as built ones do.
    assert!(
        refused > 400 && accepted > 100,
        "{refused} refused, {accepted} accepted"
    );
    let (refused, accepted) = forge(&packed, 2, 2_000);
    assert!(
        refused > 200 && accepted > 50,
        "{refused} refused, {accepted} accepted"
    );
    let plain = MeshTree::<crate::Obb>::build(packed.mesh().clone(), &BuildOptions::gottschalk());
    let (refused, accepted) = forge(&plain, 3, 1_000);
    assert!(
        refused > 100 && accepted > 25,
        "{refused} refused, {accepted} accepted"
    );
}

/// Rewrites the count of the section that starts at byte `at`.
fn with_count(bytes: &[u8], at: usize, count: u64) -> Vec<u8> {
    let mut forged = bytes.to_vec();
    forged[at..at + 8].copy_from_slice(&count.to_le_bytes());
    resealed(forged)
}

#[test]
fn huge_and_swapped_counts_are_errors_without_allocating() {
    let mesh = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let tree = MeshTree::<crate::Aabb>::new(mesh.clone());
    let bytes = tree.to_saved_bytes();
    let vertices_at = 8 + 12;
    let indices_at = vertices_at + 8 + 12 * mesh.vertices().len();
    for count in [u64::MAX, 1 << 62, 1 << 40, u64::from(u32::MAX)] {
        // A count this large would need more bytes than the file has: the
        // error comes before any allocation of that size.
        let e = MeshTree::<crate::Aabb>::from_saved_bytes(&with_count(&bytes, vertices_at, count))
            .expect_err("huge count");
        assert!(matches!(e, LoadError::Truncated { .. }), "{e}");
    }
    // The vertex and triangle counts swapped (42 and 80 here): the
    // sections no longer line up, which is an error, not a wrong mesh.
    let (v, t) = (mesh.vertices().len() as u64, mesh.len() as u64);
    let swapped = with_count(&with_count(&bytes, vertices_at, t), indices_at, v);
    assert!(MeshTree::<crate::Aabb>::from_saved_bytes(&swapped).is_err());
    // A non-finite vertex is the mesh's own typed error.
    let mut nan = bytes.clone();
    nan[vertices_at + 8..vertices_at + 12].copy_from_slice(&f32::NAN.to_bits().to_le_bytes());
    let e = MeshTree::<crate::Aabb>::from_saved_bytes(&resealed(nan)).expect_err("NaN vertex");
    assert!(matches!(e, LoadError::Mesh(_)), "{e}");
}

#[test]
fn forged_scenes_are_refused_or_answer_without_panicking() {
    use crate::scene::{Filter, Scene};
    use std::sync::Arc;
    let ball = Arc::new(MeshTree::<crate::Aabb>::new(TriMesh::icosphere(
        Point::origin(),
        1.0,
        1,
    )));
    let boxy = Arc::new(MeshTree::<crate::PackedObb>::new(TriMesh::cuboid(
        Point::new(-1.0, -1.0, -1.0),
        Point::new(1.0, 1.0, 1.0),
    )));
    let mut scene = Scene::new();
    for k in 0..6 {
        let pose = Isometry::translation(k as f32 * 1.5, 0.0, 0.0);
        let id = if k % 2 == 0 {
            scene.add(ball.clone(), pose)
        } else {
            scene.add(boxy.clone(), pose)
        };
        id.expect("finite");
    }
    scene.update();
    let bytes = scene.to_saved_bytes();
    let mut next = xorshift(5);
    let (mut refused, mut accepted) = (0, 0);
    for _ in 0..1_500 {
        let mut forged = bytes.clone();
        let at = 20 + (next() as usize) % (bytes.len() - 28);
        forged[at] = next() as u8;
        match Scene::from_saved_bytes(&resealed(forged)) {
            Ok(loaded) => {
                accepted += 1;
                let s = Segment::new(Point::new(-3.0, 0.1, 0.2), Point::new(12.0, -0.1, 0.0));
                let _ = loaded.closest_hit(s, &Filter::everything());
                let _ = loaded.any_hit(s, &Filter::everything());
            }
            Err(_) => refused += 1,
        }
    }
    // Changes inside a tree's own bytes meet that tree's checksum; those
    // to the object table (poses, layers, tree indices) can be accepted.
    assert!(
        refused > 100 && accepted > 10,
        "{refused} refused, {accepted} accepted"
    );
}

#[test]
fn loaded_geometry_is_the_mesh_s_and_forged_obbs_are_refused() {
    // A vertex moved in the file (checksum recomputed): the fuzz review's
    // case, which in the first format loaded with the old boxes and leaf
    // triangles (a segment past the cube hit it; a point's distance was 5
    // instead of 1). Boxes and leaf triangles are now made from the mesh
    // on load, so the tree answers as one built over the moved mesh.
    let cube = MeshTree::<crate::Aabb>::new(TriMesh::cuboid(
        Point::new(-1.0, -1.0, -1.0),
        Point::new(1.0, 1.0, 1.0),
    ));
    let mut bytes = cube.to_saved_bytes();
    let x0 = 8 + 12 + 8; // magic, version and kinds; the vertex count
    bytes[x0..x0 + 4].copy_from_slice(&(-5.0f32).to_le_bytes());
    let loaded = MeshTree::<crate::Aabb>::from_saved_bytes(&resealed(bytes)).expect("loads");
    assert_eq!(loaded.mesh().vertices()[0].x, -5.0);
    answers_as_built(&loaded, None);
    let fresh = MeshTree::<crate::Aabb>::new(loaded.mesh().clone());
    let s = Segment::new(Point::new(-3.0, -0.9, -0.9), Point::new(0.0, -0.9, -0.9));
    assert_eq!(loaded.closest_hit(s), fresh.closest_hit(s));
    let p = Point::new(-6.0, -1.0, -1.0);
    assert_eq!(
        loaded.closest_point(p).map(|q| q.distance),
        fresh.closest_point(p).map(|q| q.distance)
    );

    // OBB trees keep their saved volumes (a refit would not be the fit):
    // the root's box shrunk in the file no longer holds the mesh.
    let mesh = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let tree = MeshTree::<crate::PackedObb>::new(mesh.clone());
    let mut bytes = tree.to_saved_bytes();
    let nodes_at = 8 + 12 + 8 + 12 * mesh.vertices().len() + 8 + 12 * mesh.len() + 8;
    let half_x = nodes_at + 12; // after the root's centre
    let h = f32::from_le_bytes(bytes[half_x..half_x + 4].try_into().unwrap());
    bytes[half_x..half_x + 4].copy_from_slice(&(0.5 * h).to_le_bytes());
    let e = MeshTree::<crate::PackedObb>::from_saved_bytes(&resealed(bytes)).expect_err("root");
    assert!(matches!(e, LoadError::Tree(_)), "{e}");

    // A review's forgery: full OBBs whose axes are all zero "contain"
    // every point, so they passed the containment check while the overlap
    // test missed contacts. A saved frame must be a rotation.
    let tree = MeshTree::<crate::Obb>::new(mesh.clone());
    let mut bytes = tree.to_saved_bytes();
    let axes = nodes_at + 12; // the root's nine axis words, after its centre
    for k in 0..9 {
        bytes[axes + 4 * k..axes + 4 * k + 4].copy_from_slice(&0.0f32.to_le_bytes());
    }
    let e = MeshTree::<crate::Obb>::from_saved_bytes(&resealed(bytes)).expect_err("zero axes");
    assert!(
        matches!(
            e,
            LoadError::Corrupt {
                section: "nodes",
                ..
            }
        ),
        "{e}"
    );

    // A hunt's forgeries, both accepted under the earlier tolerances and
    // both losing region answers: an axis entry 4e-6 off a rotation (the
    // separating-axis test's guard for parallel edges is 1e-6), and the
    // root's half-extent shrunk by 6e-5 (a sphere touching a corner found
    // none of its six triangles).
    let tree = MeshTree::<crate::Obb>::new(mesh.clone());
    let mut bytes = tree.to_saved_bytes();
    let axis_entry = axes + 4 * 4;
    let w = f32::from_le_bytes(bytes[axis_entry..axis_entry + 4].try_into().unwrap());
    bytes[axis_entry..axis_entry + 4].copy_from_slice(&(w + 3.9e-6).to_le_bytes());
    let e = MeshTree::<crate::Obb>::from_saved_bytes(&resealed(bytes)).expect_err("skewed");
    assert!(matches!(e, LoadError::Corrupt { .. }), "{e}");
    for shrink in [1e-5, 6e-5] {
        let tree = MeshTree::<crate::Obb>::new(mesh.clone());
        let mut bytes = tree.to_saved_bytes();
        let half_x = nodes_at + 12 + 36; // after the root's centre and axes
        let h = f32::from_le_bytes(bytes[half_x..half_x + 4].try_into().unwrap());
        bytes[half_x..half_x + 4].copy_from_slice(&(h * (1.0 - shrink)).to_le_bytes());
        let e = MeshTree::<crate::Obb>::from_saved_bytes(&resealed(bytes)).expect_err("shrunk");
        assert!(matches!(e, LoadError::Tree(_)), "{e}");
    }
}

/// A refit fits each parent to its children's rounded corners, which can
/// leave a vertex an ulp outside as `Obb::contains_point` decides: the
/// saved boxes are grown to hold them, so deformed OBB trees (and scenes
/// holding them) load again, and answer as the tree that was saved.
#[test]
fn deformed_obb_trees_load_again() {
    use crate::bounding_volume::{Obb, PackedObb};
    use crate::scene::Scene;
    let mesh = TriMesh::icosphere(Point::new(0.25, 0.5, -0.125), 0.75, 2);
    let moved: Vec<Point> = (mesh.vertices().iter())
        .map(|v| Point::new(v.x * 0.75 + 0.1, v.y * 0.75, v.z * 1.25))
        .collect();
    fn round_trip<V: SavedVolume>(mesh: &TriMesh, moved: &[Point]) {
        let mut tree = MeshTree::<V>::new(mesh.clone());
        tree.set_vertices(moved.to_vec()).unwrap();
        let loaded = MeshTree::<V>::from_saved_bytes(&tree.to_saved_bytes())
            .unwrap_or_else(|e| panic!("{}: {e}", V::NAME));
        assert_eq!(answers(&loaded), answers(&tree), "{}", V::NAME);
        loaded.bvh().validate(loaded.mesh()).unwrap();
    }
    round_trip::<PackedObb>(&mesh, &moved);
    round_trip::<Obb>(&mesh, &moved);
    round_trip::<crate::Aabb>(&mesh, &moved);
    let mut scene = Scene::new();
    let id = (scene.add(MeshTree::<PackedObb>::new(mesh), Isometry::identity())).unwrap();
    scene.update();
    scene.set_vertices(id, moved).unwrap();
    let loaded = Scene::from_saved_bytes(&scene.to_saved_bytes()).unwrap();
    assert_eq!(loaded.len(), 1);
}

/// A kind word no build writes names itself in the error, not the kind
/// asked for (a mesh file with kind 1 read "the file holds a mesh, not a
/// mesh").
#[test]
fn unknown_kind_words_are_named_as_unknown() {
    let mesh = TriMesh::icosphere(crate::math::Point::origin(), 1.0, 1);
    let mut bytes = mesh.to_saved_bytes();
    // Magic (8 bytes), version, content, kind.
    bytes[16..20].copy_from_slice(&1u32.to_le_bytes());
    let error = TriMesh::from_saved_bytes(&resealed(bytes)).expect_err("kind 1");
    assert!(matches!(error, LoadError::Kind { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the file holds unknown content 1 of kind 1, not a mesh"
    );
}
