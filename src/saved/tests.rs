//! Forged files: bytes changed and the checksum recomputed, as a hostile
//! or buggy writer would make them. Loading must answer Ok or a typed
//! error, never panic, and a tree it accepts must answer queries.

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

fn forge<V: SavedVolume>(tree: &MeshTree<V>, seed: u64, rounds: usize) -> (usize, usize) {
    let bytes = tree.to_saved_bytes();
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
            }
            Err(_) => refused += 1,
        }
    }
    (refused, accepted)
}

#[test]
fn forged_trees_are_refused_or_answer_without_panicking() {
    let mesh = TriMesh::icosphere(Point::new(0.1, 0.2, 0.3), 1.0, 2);
    let aabb = MeshTree::<crate::Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let packed = MeshTree::<crate::PackedObb>::build(mesh, &BuildOptions::gottschalk());
    let (refused, accepted) = forge(&aabb, 1, 4_000);
    // Most changes to links, counts and ids are caught; changes to
    // coordinates are accepted (a moved box is no danger).
    assert!(
        refused > 400 && accepted > 400,
        "{refused} refused, {accepted} accepted"
    );
    let (refused, accepted) = forge(&packed, 2, 2_000);
    assert!(
        refused > 200 && accepted > 200,
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
fn a_forged_hittable_flag_gives_a_wrong_answer_not_a_panic() {
    // A triangle without a normal (collinear vertices) is saved as never
    // hittable; flagging it hittable in the file (and resealing) must not
    // make a closest hit panic when it builds the normal.
    let tiny = TriMesh::new(
        vec![
            Point::origin(),
            Point::new(1e-19, 0.0, 0.0),
            Point::new(2e-19, 0.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("finite");
    let tree = MeshTree::<crate::Aabb>::new(tiny);
    let mut bytes = tree.to_saved_bytes();
    // The last leaf triangle's fourth z lane is the 4 bytes before the checksum.
    let flag = bytes.len() - 12;
    assert_eq!(bytes[flag..flag + 4], (-1.0f32).to_le_bytes());
    bytes[flag..flag + 4].copy_from_slice(&1.0f32.to_le_bytes());
    let forged = MeshTree::<crate::Aabb>::from_saved_bytes(&resealed(bytes)).expect("loads");
    for z in [1.0, -1.0] {
        let s = Segment::new(Point::new(1e-19, 0.0, z), Point::new(1e-19, 0.0, -z));
        let _ = forged.closest_hit(s);
        let _ = forged.all_hits(s);
    }
}
