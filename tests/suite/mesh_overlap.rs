//! Mesh-vs-mesh overlap against brute force over all triangle pairs.
//!
//! Oracles:
//! - `brute_world`: every triangle of both meshes moved to world space by its
//!   own pose, every pair tested with the exact `triangles_overlap`. Fully
//!   independent of the trees and of the query's change of frame.
//! - `brute_in_a`: the same all-pairs loop with B's vertices mapped into A's
//!   frame by the documented `R_ab · v + T_ab` of `pose_a⁻¹ · pose_b`. The
//!   query must equal it exactly (no pruning may lose a pair); where it
//!   differs from `brute_world`, the two frames round differently, which only
//!   happens for pairs that touch within rounding (grazing). Such pairs are
//!   counted and must be rare.
//! - Exact poses (rotations whose matrices have entries in {−1, 0, 1} and
//!   whose quaternions have entries in {0, ±½, ±1}, with integer
//!   translations) move integer coordinates exactly, so there every answer
//!   (trees, swapped order, pre-transformed vertices, world brute force) must
//!   be equal with no tolerance at all.

use crate::common;

use boxtree::bvh::{BuildOptions, SplitRule, SplitSearch};
use boxtree::intersect::triangles_overlap;
use boxtree::math::nalgebra::{Quaternion, Translation3};
use boxtree::{
    Aabb, BoundingVolume, Contact, Isometry, Kdop18, MeshTree, Obb, OverlapStats, PackedObb, Point,
    Real, Rotation, Sphere, TriMesh, Triangle, TriangleId, TrianglePair, Vector, Which,
};
use common::{SplitMix, data_mesh, half_size, triangle_soup, winding_number};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

fn obb_tree(mesh: &TriMesh) -> MeshTree<Obb> {
    MeshTree::build(mesh.clone(), &BuildOptions::gottschalk())
}

fn aabb_tree(mesh: &TriMesh) -> MeshTree<Aabb> {
    MeshTree::build(mesh.clone(), &BuildOptions::sah())
}

/// The mesh's triangles moved by `pose`, with their ids; degenerate ones (in the mesh frame) dropped.
fn placed_triangles(mesh: &TriMesh, map: impl Fn(&Point) -> Point) -> Vec<(TriangleId, Triangle)> {
    mesh.triangles()
        .enumerate()
        .filter(|(_, t)| !t.is_degenerate())
        .map(|(i, t)| {
            (
                TriangleId(i as u32),
                Triangle::new(map(&t.a), map(&t.b), map(&t.c)),
            )
        })
        .collect()
}

fn all_pairs(a: &[(TriangleId, Triangle)], b: &[(TriangleId, Triangle)]) -> Vec<TrianglePair> {
    let mut pairs = Vec::new();
    for (ia, ta) in a {
        for (ib, tb) in b {
            if triangles_overlap(ta, tb) {
                pairs.push(TrianglePair { a: *ia, b: *ib });
            }
        }
    }
    pairs
}

/// Oracle 1: both meshes in world space, each moved by its own pose.
fn brute_world(
    a: &TriMesh,
    pose_a: &Isometry,
    b: &TriMesh,
    pose_b: &Isometry,
) -> Vec<TrianglePair> {
    all_pairs(
        &placed_triangles(a, |p| pose_a * p),
        &placed_triangles(b, |p| pose_b * p),
    )
}

/// Oracle 2: B mapped into A's frame with the documented `R_ab v + T_ab`
/// (the exact identity for equal poses).
fn brute_in_a(a: &TriMesh, pose_a: &Isometry, b: &TriMesh, pose_b: &Isometry) -> Vec<TrianglePair> {
    // Equal poses: the exact identity, as documented.
    let a_from_b = if pose_a == pose_b {
        Isometry::identity()
    } else {
        pose_a.inv_mul(pose_b)
    };
    let r = *a_from_b.rotation.to_rotation_matrix().matrix();
    let t = a_from_b.translation.vector;
    all_pairs(
        &placed_triangles(a, |p| *p),
        &placed_triangles(b, |p| Point::from(r * p.coords + t)),
    )
}

fn pairs<A: BoundingVolume, B: BoundingVolume>(
    a: &MeshTree<A>,
    pose_a: Isometry,
    b: &MeshTree<B>,
    pose_b: Isometry,
) -> Vec<TrianglePair> {
    a.placed(pose_a)
        .touching_pairs(&b.placed(pose_b), None, None)
}

fn mirrored(pairs: &[TrianglePair]) -> Vec<TrianglePair> {
    let mut m: Vec<TrianglePair> = pairs.iter().map(|p| p.swapped()).collect();
    m.sort();
    m
}

/// Centre and radius of a sphere around the mesh (about its box centre).
fn bounding_sphere(mesh: &TriMesh) -> (Point, Real) {
    let c = mesh.aabb().center();
    (
        c,
        mesh.vertices()
            .iter()
            .map(|v| (v - c).norm())
            .fold(0.0, Real::max),
    )
}

/// A random pose for B so that B's bounding sphere centre lands within
/// `reach · (r_a + r_b)` of A's, with both meshes randomly rotated.
fn random_poses(rng: &mut SplitMix, a: &TriMesh, b: &TriMesh, reach: Real) -> (Isometry, Isometry) {
    let ((ca, ra), (cb, rb)) = (bounding_sphere(a), bounding_sphere(b));
    let pose_a = Isometry::from_parts(Translation3::from(rng.point(10.0).coords), rng.rotation());
    let rot_b = rng.rotation();
    let direction = loop {
        let d = rng.point(1.0).coords;
        if let Some(n) = d.try_normalize(1e-3) {
            break n;
        }
    };
    let distance = rng.range(0.0, reach * (ra + rb));
    // World centre of A's sphere, plus the offset; B's sphere centre goes there.
    let target = pose_a * ca + direction * distance;
    let translation = target.coords - rot_b * cb.coords;
    (
        pose_a,
        Isometry::from_parts(Translation3::from(translation), rot_b),
    )
}

/// The 12 rotations of the cube group whose quaternions have entries in
/// {0, ±½, ±1}: identity, three half turns, eight third turns about diagonals.
/// Their matrices have entries in {−1, 0, 1} and they map integers exactly.
fn exact_rotations() -> Vec<Rotation> {
    let mut rotations = vec![
        Rotation::identity(),
        Rotation::new_unchecked(Quaternion::new(0.0, 1.0, 0.0, 0.0)),
        Rotation::new_unchecked(Quaternion::new(0.0, 0.0, 1.0, 0.0)),
        Rotation::new_unchecked(Quaternion::new(0.0, 0.0, 0.0, 1.0)),
    ];
    for sx in [-0.5, 0.5] {
        for sy in [-0.5, 0.5] {
            for sz in [-0.5, 0.5] {
                rotations.push(Rotation::new_unchecked(Quaternion::new(0.5, sx, sy, sz)));
            }
        }
    }
    rotations
}

fn exact_pose(rotation: usize, translation: [i32; 3]) -> Isometry {
    let t = Vector::new(
        translation[0] as Real,
        translation[1] as Real,
        translation[2] as Real,
    );
    Isometry::from_parts(Translation3::from(t), exact_rotations()[rotation % 12])
}

/// A triangle soup with integer coordinates in `[-extent, extent]`.
fn integer_soup(count: u32, extent: Real, seed: u64) -> TriMesh {
    let soup = TriMesh::random_soup(count, extent, extent, seed);
    let vertices = soup.vertices().iter().map(|v| v.map(Real::round)).collect();
    TriMesh::new(vertices, soup.indices().to_vec()).expect("rounded soup is valid")
}

fn translation(x: Real, y: Real, z: Real) -> Isometry {
    Isometry::translation(x, y, z)
}

// ---------------------------------------------------------------- random poses vs brute force

/// Statistics of one randomised comparison.
#[derive(Default)]
struct Tally {
    poses: usize,
    overlapping: usize,
    touching_pairs: usize,
    grazing_pairs: usize,
}

/// Compares every tree combination with both oracles on `poses` random
/// poses; returns the tally (the caller checks the overlap fraction).
fn compare_random(
    name: &str,
    a: &TriMesh,
    b: &TriMesh,
    poses: usize,
    seed: u64,
    reach: Real,
) -> Tally {
    let (oa, aa) = (obb_tree(a), aabb_tree(a));
    let (ob, ab) = (obb_tree(b), aabb_tree(b));
    let mut rng = SplitMix(seed);
    let mut tally = Tally::default();
    for i in 0..poses {
        let (pa, pb) = random_poses(&mut rng, a, b, reach);
        let in_a = brute_in_a(a, &pa, b, &pb);
        let world = brute_world(a, &pa, b, &pb);
        let context = format!("{name} pose {i}: {pa:?} {pb:?}");
        for (kind, got) in [
            ("obb-obb", pairs(&oa, pa, &ob, pb)),
            ("aabb-aabb", pairs(&aa, pa, &ab, pb)),
            ("obb-aabb", pairs(&oa, pa, &ab, pb)),
            ("aabb-obb", pairs(&aa, pa, &ob, pb)),
        ] {
            assert_eq!(got, in_a, "{context}: {kind} vs brute force in A's frame");
        }
        // Swapped order maps A into B's frame: exact against that oracle.
        let swapped = ob.placed(pb).touching_pairs(&oa.placed(pa), None, None);
        assert_eq!(
            swapped,
            brute_in_a(b, &pb, a, &pa),
            "{context}: swapped order vs brute force in B's frame"
        );
        let boolean = oa.placed(pa).overlaps(&ob.placed(pb));
        assert_eq!(boolean, !in_a.is_empty(), "{context}: boolean");
        if let Some(first) = aa.placed(pa).first_contact(&ob.placed(pb), None) {
            assert!(
                in_a.binary_search(&first).is_ok(),
                "{context}: first contact {first:?} is a touching pair"
            );
        } else {
            assert!(in_a.is_empty(), "{context}: first contact missing");
        }
        // The world-space oracle differs only on grazing pairs.
        let differing = world
            .iter()
            .filter(|p| in_a.binary_search(p).is_err())
            .count()
            + in_a
                .iter()
                .filter(|p| world.binary_search(p).is_err())
                .count();
        if differing == 0 {
            assert_eq!(in_a, world, "{context}: world brute force");
            assert_eq!(
                mirrored(&swapped),
                world,
                "{context}: swapped order mirrors"
            );
        }
        tally.poses += 1;
        tally.overlapping += usize::from(!world.is_empty());
        tally.touching_pairs += world.len();
        tally.grazing_pairs += differing;
    }
    tally
}

fn check_tally(name: &str, tally: &Tally) {
    let fraction = tally.overlapping as f64 / tally.poses as f64;
    println!(
        "{name}: {} poses, {:.0}% overlapping, {} touching pairs, {} grazing",
        tally.poses,
        100.0 * fraction,
        tally.touching_pairs,
        tally.grazing_pairs
    );
    assert!(
        (0.2..=0.8).contains(&fraction),
        "{name}: overlap fraction {fraction} should be near one half"
    );
    assert!(
        tally.grazing_pairs * 1000 <= tally.touching_pairs.max(1000),
        "{name}: too many frame-dependent pairs"
    );
}

#[test]
fn random_poses_sphere_and_box_agree_with_brute_force() {
    let a = TriMesh::icosphere(Point::new(0.5, -1.0, 2.0), 1.5, 1);
    let b = TriMesh::cuboid(Point::new(-1.0, -0.5, -0.25), Point::new(1.0, 0.5, 0.25));
    check_tally(
        "icosphere vs cuboid",
        &compare_random("icosphere vs cuboid", &a, &b, 1500, 1, 1.4),
    );
}

#[test]
fn random_poses_two_spheres_agree_with_brute_force() {
    let a = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let b = TriMesh::icosphere(Point::new(3.0, 0.0, 0.0), 0.6, 1);
    check_tally(
        "icosphere vs icosphere",
        &compare_random("icosphere vs icosphere", &a, &b, 1000, 2, 1.5),
    );
}

#[test]
fn random_poses_soup_and_terrain_agree_with_brute_force() {
    let a = TriMesh::random_soup(60, 2.0, 1.0, 3);
    let b = TriMesh::terrain(6, 4.0, 0.8, 4);
    check_tally(
        "soup vs terrain",
        &compare_random("soup vs terrain", &a, &b, 800, 3, 1.0),
    );
}

#[test]
fn random_poses_fcl_robot_agrees_with_brute_force() {
    let rob = data_mesh("rob.obj");
    check_tally(
        "rob vs rob",
        &compare_random("rob vs rob", &rob, &rob, 120, 4, 1.0),
    );
}

/// The touching pairs among `a × b` by sweep and prune on the triangles'
/// boxes, then the exact test: the same set as [`all_pairs`] (touching
/// triangles have touching boxes, and the boxes are the coordinates'
/// exact extremes), in a fraction of the time for big meshes.
fn swept_pairs(a: &[(TriangleId, Triangle)], b: &[(TriangleId, Triangle)]) -> Vec<TrianglePair> {
    let boxed = |tris: &[(TriangleId, Triangle)]| {
        let mut boxed: Vec<(Aabb, TriangleId, Triangle)> = tris
            .iter()
            .map(|(id, t)| (Aabb::from_points(&[t.a, t.b, t.c]), *id, *t))
            .collect();
        boxed.sort_by(|p, q| p.0.min.x.total_cmp(&q.0.min.x));
        boxed
    };
    let (a, b) = (boxed(a), boxed(b));
    let mut pairs = Vec::new();
    let mut start = 0;
    for (box_a, id_a, tri_a) in &a {
        while start < b.len() && b[start].0.max.x < box_a.min.x {
            start += 1;
        }
        // `b` is sorted by min x only, so boxes ending before A's start may
        // follow `start`: the full box test below rejects them.
        for (box_b, id_b, tri_b) in &b[start..] {
            if box_b.min.x > box_a.max.x {
                break;
            }
            if box_a.overlaps(box_b) && triangles_overlap(tri_a, tri_b) {
                pairs.push(TrianglePair { a: *id_a, b: *id_b });
            }
        }
    }
    pairs.sort();
    pairs
}

/// The pose set of issue 23's overlap goal: the bunny against a copy half
/// its size about its box centre, turned uniformly at random and moved
/// uniformly within 1.45 times the bunny's box (about half the poses
/// touch). Every tree combination, the boolean and the first contact
/// against a brute force in A's frame on 2,000 poses.
#[test]
fn bunny_and_half_bunny_agree_with_brute_force() {
    let bunny = data_mesh("bunny.obj");
    let centre = bunny.aabb().center();
    let half = half_size(&bunny);
    let extent = bunny.aabb().half_extents() * 1.45;
    let (obb_a, obb_b) = (obb_tree(&bunny), obb_tree(&half));
    let (aabb_a, aabb_b) = (aabb_tree(&bunny), aabb_tree(&half));
    let packed_a = MeshTree::<PackedObb>::build(bunny.clone(), &BuildOptions::gottschalk());
    let packed_b = MeshTree::<PackedObb>::build(half.clone(), &BuildOptions::gottschalk());
    let in_a = placed_triangles(&bunny, |p| *p);
    let mut rng = SplitMix(23);
    let (mut overlapping, mut touching) = (0, 0);
    const POSES: usize = 2000;
    for i in 0..POSES {
        let rotation = rng.rotation();
        let t = centre + rng.point(1.0).coords.component_mul(&extent) - rotation * centre.coords;
        let pose = Isometry::from_parts(Translation3::from(t.coords), rotation);
        let r = *pose.rotation.to_rotation_matrix().matrix();
        let moved = placed_triangles(&half, |p| Point::from(r * p.coords + t.coords));
        let expected = swept_pairs(&in_a, &moved);
        if i < 3 {
            // The sweep itself against every pair.
            assert_eq!(
                expected,
                all_pairs(&in_a, &moved),
                "pose {i}: sweep vs all pairs"
            );
        }
        let id = Isometry::identity();
        let context = format!("pose {i}: {pose:?}");
        assert_eq!(
            pairs(&obb_a, id, &obb_b, pose),
            expected,
            "{context}: obb-obb"
        );
        assert_eq!(
            pairs(&aabb_a, id, &aabb_b, pose),
            expected,
            "{context}: aabb-aabb"
        );
        assert_eq!(
            pairs(&packed_a, id, &aabb_b, pose),
            expected,
            "{context}: packed-aabb"
        );
        let boolean = packed_a.placed(id).overlaps(&packed_b.placed(pose));
        assert_eq!(boolean, !expected.is_empty(), "{context}: packed boolean");
        match obb_a.placed(id).first_contact(&obb_b.placed(pose), None) {
            Some(first) => assert!(
                expected.binary_search(&first).is_ok(),
                "{context}: first contact {first:?} is a touching pair"
            ),
            None => assert!(expected.is_empty(), "{context}: first contact missing"),
        }
        overlapping += usize::from(!expected.is_empty());
        touching += expected.len();
    }
    let fraction = overlapping as f64 / POSES as f64;
    println!(
        "bunny vs half bunny: {POSES} poses, {fraction:.3} overlapping, {touching} touching pairs"
    );
    assert!(
        (0.35..=0.6).contains(&fraction),
        "overlap fraction {fraction}"
    );
}

#[test]
fn sphere_and_kdop_trees_give_the_same_pairs() {
    let a = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let b = TriMesh::random_soup(80, 1.0, 0.6, 9);
    let sphere_a = MeshTree::<Sphere>::build(a.clone(), &BuildOptions::sah());
    let kdop_b = MeshTree::<Kdop18>::build(b.clone(), &BuildOptions::gottschalk());
    let (oa, ob) = (obb_tree(&a), obb_tree(&b));
    let mut rng = SplitMix(11);
    for _ in 0..200 {
        let (pa, pb) = random_poses(&mut rng, &a, &b, 1.0);
        let expected = brute_in_a(&a, &pa, &b, &pb);
        assert_eq!(pairs(&sphere_a, pa, &kdop_b, pb), expected);
        assert_eq!(pairs(&oa, pa, &kdop_b, pb), expected);
        assert_eq!(pairs(&sphere_a, pa, &ob, pb), expected);
    }
}

#[test]
fn common_motion_keeps_the_boolean_away_from_grazing() {
    let a = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let b = TriMesh::cuboid(Point::new(-1.0, -0.3, -0.3), Point::new(1.0, 0.3, 0.3));
    let (oa, ab) = (obb_tree(&a), aabb_tree(&b));
    let mut rng = SplitMix(12);
    let mut compared = 0;
    for _ in 0..500 {
        let (pa, pb) = random_poses(&mut rng, &a, &b, 1.0);
        let motion =
            Isometry::from_parts(Translation3::from(rng.point(100.0).coords), rng.rotation());
        let (ma, mb) = (motion * pa, motion * pb);
        let here = brute_world(&a, &pa, &b, &pb);
        let moved = brute_world(&a, &ma, &b, &mb);
        if here != moved
            || here != brute_in_a(&a, &pa, &b, &pb)
            || moved != brute_in_a(&a, &ma, &b, &mb)
        {
            continue; // grazing: some pair is decided by rounding
        }
        compared += 1;
        assert_eq!(
            oa.placed(pa).overlaps(&ab.placed(pb)),
            oa.placed(ma).overlaps(&ab.placed(mb))
        );
        assert_eq!(pairs(&oa, pa, &ab, pb), pairs(&oa, ma, &ab, mb));
    }
    assert!(
        compared >= 490,
        "only {compared} non-grazing configurations"
    );
}

// ---------------------------------------------------------------- exact poses: no tolerance anywhere

#[test]
fn exact_rotations_have_exact_matrices() {
    for (i, r) in exact_rotations().iter().enumerate() {
        for (j, s) in exact_rotations().iter().enumerate() {
            let m = *(r.inverse() * s).to_rotation_matrix().matrix();
            assert!(
                m.iter().all(|&x| x == 0.0 || x.abs() == 1.0),
                "rotations {i}, {j}: {m}"
            );
            let p = r * Point::new(3.0, -5.0, 7.0);
            assert!(
                p.coords.iter().all(|x| x.fract() == 0.0),
                "rotation {i} maps integers exactly: {p}"
            );
        }
    }
}

/// Every answer for one exact configuration: trees of both kinds, both
/// orders, pre-transformed vertices with identity poses, world brute force.
fn check_exact(a: &TriMesh, pose_a: Isometry, b: &TriMesh, pose_b: Isometry) -> Vec<TrianglePair> {
    let expected = brute_world(a, &pose_a, b, &pose_b);
    assert_eq!(
        expected,
        brute_in_a(a, &pose_a, b, &pose_b),
        "exact poses map exactly"
    );
    let (oa, aa, ob, ab) = (obb_tree(a), aabb_tree(a), obb_tree(b), aabb_tree(b));
    assert_eq!(pairs(&oa, pose_a, &ob, pose_b), expected, "obb-obb");
    assert_eq!(pairs(&aa, pose_a, &ab, pose_b), expected, "aabb-aabb");
    assert_eq!(pairs(&oa, pose_a, &ab, pose_b), expected, "obb-aabb");
    assert_eq!(
        pairs(&ab, pose_b, &oa, pose_a),
        mirrored(&expected),
        "swapped"
    );
    assert_eq!(
        oa.placed(pose_a).overlaps(&ab.placed(pose_b)),
        !expected.is_empty(),
        "boolean"
    );
    let moved = |m: &TriMesh, pose: &Isometry| {
        TriMesh::new(
            m.vertices().iter().map(|v| pose * v).collect(),
            m.indices().to_vec(),
        )
        .expect("moved mesh")
    };
    let (wa, wb) = (obb_tree(&moved(a, &pose_a)), aabb_tree(&moved(b, &pose_b)));
    assert_eq!(
        pairs(&wa, Isometry::identity(), &wb, Isometry::identity()),
        expected,
        "pre-transformed vertices"
    );
    expected
}

#[test]
fn exact_poses_agree_everywhere_on_integer_soups() {
    let a = integer_soup(40, 4.0, 21);
    let b = integer_soup(30, 4.0, 22);
    let mut rng = SplitMix(23);
    let mut overlapping = 0;
    for i in 0..300 {
        let t = |rng: &mut SplitMix| rng.range(-6.0, 6.0).round() as i32;
        let pose_a = exact_pose(i, [t(&mut rng), t(&mut rng), t(&mut rng)]);
        let pose_b = exact_pose(i / 12 + 5 * i, [t(&mut rng), t(&mut rng), t(&mut rng)]);
        overlapping += usize::from(!check_exact(&a, pose_a, &b, pose_b).is_empty());
    }
    assert!(overlapping > 50, "{overlapping} of 300 overlap");
}

fn exact_pose_strategy() -> impl Strategy<Value = Isometry> {
    (0usize..12, -4i32..=4, -4i32..=4, -4i32..=4).prop_map(|(r, x, y, z)| exact_pose(r, [x, y, z]))
}

proptest! {
    #[test]
    fn exact_poses_are_symmetric_and_invariant(pose_a in exact_pose_strategy(), pose_b in exact_pose_strategy(), seed in 0u64..1000) {
        let a = integer_soup(12, 3.0, seed);
        let b = TriMesh::cuboid(Point::new(-2.0, -1.0, 0.0), Point::new(2.0, 1.0, 3.0));
        check_exact(&a, pose_a, &b, pose_b);
        // A common exact motion of both poses changes nothing.
        let motion = exact_pose(seed as usize, [1, -2, 3]);
        let (oa, ob) = (obb_tree(&a), obb_tree(&b));
        prop_assert_eq!(pairs(&oa, motion * pose_a, &ob, motion * pose_b), pairs(&oa, pose_a, &ob, pose_b));
    }

    #[test]
    fn random_poses_match_the_oracle_in_a_frame(pose_a in common::isometry(2.0), pose_b in common::isometry(2.0)) {
        let a = TriMesh::icosphere(Point::origin(), 1.0, 1);
        let b = TriMesh::random_soup(20, 1.0, 1.0, 5);
        let expected = brute_in_a(&a, &pose_a, &b, &pose_b);
        prop_assert_eq!(pairs(&obb_tree(&a), pose_a, &aabb_tree(&b), pose_b), expected);
    }
}

// ---------------------------------------------------------------- named configurations

#[test]
fn cubes_sharing_a_face_plane_touch() {
    let a = TriMesh::cuboid(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let touching = check_exact(&a, Isometry::identity(), &a, translation(1.0, 0.0, 0.0));
    assert!(!touching.is_empty());
    // Also offset sideways so only part of the faces are shared, and at a corner.
    assert!(!check_exact(&a, Isometry::identity(), &a, translation(1.0, 0.5, 0.25)).is_empty());
    assert!(!check_exact(&a, Isometry::identity(), &a, translation(1.0, 1.0, 1.0)).is_empty());
}

#[test]
fn cubes_one_ulp_apart_do_not_touch() {
    let a = TriMesh::cuboid(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let gap = (1.0 as Real).next_up();
    assert!(check_exact(&a, Isometry::identity(), &a, translation(gap, 0.0, 0.0)).is_empty());
}

#[test]
fn huge_and_tiny_cubes_sharing_a_face_touch() {
    for scale in [1.0e6, 1.0 / 1024.0 / 1024.0] {
        let a = TriMesh::cuboid(
            Point::new(scale, scale, scale),
            Point::new(2.0 * scale, 2.0 * scale, 2.0 * scale),
        );
        assert!(
            !check_exact(&a, Isometry::identity(), &a, translation(scale, 0.0, 0.0)).is_empty(),
            "scale {scale}"
        );
        let apart = translation((2.0 * scale).next_up() - scale, 0.0, 0.0);
        let (oa, aa) = (obb_tree(&a), aabb_tree(&a));
        assert!(
            !oa.placed(Isometry::identity()).overlaps(&aa.placed(apart)),
            "scale {scale}: one ulp apart"
        );
    }
}

/// B's triangle mapped into A's frame (the documented `R_ab v + T_ab`).
fn b_in_a_frame(tri: &Triangle, pose_a: &Isometry, pose_b: &Isometry) -> Triangle {
    let a_from_b = pose_a.inv_mul(pose_b);
    let r = *a_from_b.rotation.to_rotation_matrix().matrix();
    let t = a_from_b.translation.vector;
    let map = |p: &Point| Point::from(r * p.coords + t);
    Triangle::new(map(&tri.a), map(&tri.b), map(&tri.c))
}

#[test]
fn vertex_shared_after_the_change_of_frame_is_found_far_from_the_origin() {
    // A's triangle has a vertex exactly at B's mapped vertex and points away
    // from B, so the two touch at that point only and their boxes touch only
    // within the rounding of the box test's change of frame. Far from the
    // origin that rounding is much larger than the boxes' own margin: the
    // box test must be padded by it or it drops the contact.
    let mut rng = SplitMix(31);
    let b_tri = Triangle::new(
        Point::new(0.0, 0.0, 0.0),
        Point::new(0.01, 0.0, 0.0),
        Point::new(0.0, 0.01, 0.003),
    );
    let b = triangle_soup(&[[[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.0, 0.01, 0.003]]]);
    let (ob, ab) = (obb_tree(&b), aabb_tree(&b));
    let mut tested = 0;
    for i in 0..2000 {
        let pose_a =
            Isometry::from_parts(Translation3::from(rng.point(3000.0).coords), rng.rotation());
        let pose_b =
            Isometry::from_parts(Translation3::from(rng.point(3000.0).coords), rng.rotation());
        let moved = b_in_a_frame(&b_tri, &pose_a, &pose_b);
        let p = [moved.a, moved.b, moved.c][i % 3];
        let away = (p - moved.centroid()).normalize() * 0.01;
        let side = away.cross(&Vector::new(0.3, -0.5, 0.8)).normalize() * 0.004;
        let a = triangle_soup(&[[
            [p.x, p.y, p.z],
            (p + away + side).coords.into(),
            (p + away - side).coords.into(),
        ]]);
        let expected = brute_in_a(&a, &pose_a, &b, &pose_b);
        if expected.is_empty() {
            continue; // rounding made the far vertices of A swing back: not this case
        }
        let (oa, aa) = (obb_tree(&a), aabb_tree(&a));
        assert_eq!(
            pairs(&oa, pose_a, &ob, pose_b),
            expected,
            "trial {i}: obb-obb"
        );
        assert_eq!(
            pairs(&aa, pose_a, &ab, pose_b),
            expected,
            "trial {i}: aabb-aabb"
        );
        assert_eq!(
            pairs(&oa, pose_a, &ab, pose_b),
            expected,
            "trial {i}: obb-aabb"
        );
        tested += 1;
    }
    assert!(tested > 1500, "{tested} touching configurations");
}

#[test]
fn coplanar_overlapping_triangles_touch() {
    let a = triangle_soup(&[[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]]);
    let b = triangle_soup(&[[[1.0, 1.0, 0.0], [5.0, 1.0, 0.0], [1.0, 5.0, 0.0]]]);
    assert_eq!(
        check_exact(&a, Isometry::identity(), &b, Isometry::identity()).len(),
        1
    );
    // Coplanar but disjoint.
    assert!(check_exact(&a, Isometry::identity(), &b, translation(3.0, 3.0, 0.0)).is_empty());
}

#[test]
fn edge_crossing_edge_touches() {
    // A's edge on the x axis; B stands in the plane x = 1 with an edge along z
    // through (1, 0, 0): the triangles share exactly that point.
    let a = triangle_soup(&[[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, -2.0, 0.0]]]);
    let b = triangle_soup(&[[[1.0, 0.0, -1.0], [1.0, 0.0, 1.0], [1.0, 2.0, 0.0]]]);
    assert_eq!(
        check_exact(&a, Isometry::identity(), &b, Isometry::identity()).len(),
        1
    );
    let nudge = translation(0.0, (0.0 as Real).next_up() * 1e30, 0.0);
    assert!(
        !obb_tree(&a)
            .placed(Isometry::identity())
            .overlaps(&aabb_tree(&b).placed(nudge))
    );
}

#[test]
fn vertex_on_face_touches() {
    let a = triangle_soup(&[[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 4.0, 0.0]]]);
    let b = triangle_soup(&[[[1.0, 1.0, 0.0], [1.0, 2.0, 3.0], [2.0, 1.0, 3.0]]]);
    assert_eq!(
        check_exact(&a, Isometry::identity(), &b, Isometry::identity()).len(),
        1
    );
    assert!(check_exact(&a, Isometry::identity(), &b, translation(0.0, 0.0, 1.0)).is_empty());
}

#[test]
fn mesh_inside_another_is_not_a_surface_overlap_but_is_contained() {
    let outer = TriMesh::icosphere(Point::new(1.0, 2.0, 3.0), 5.0, 2);
    let inner = TriMesh::cuboid(Point::new(-1.0, -1.0, -1.0), Point::new(1.0, 1.0, 1.0));
    let (o, i) = (obb_tree(&outer), aabb_tree(&inner));
    let pose = Isometry::from_parts(
        Translation3::new(1.5, 2.0, 3.5),
        Rotation::from_euler_angles(0.3, 0.2, 0.1),
    );
    let (po, pi) = (o.placed(Isometry::identity()), i.placed(pose));
    assert!(!pi.overlaps(&po));
    assert!(brute_world(&inner, &pose, &outer, &Isometry::identity()).is_empty());
    assert_eq!(pi.contact(&po), Contact::Contained { inner: Which::A });
    assert_eq!(po.contact(&pi), Contact::Contained { inner: Which::B });
    // Moved out of the sphere: separate; moved onto its surface: touching.
    let far = i.placed(translation(20.0, 0.0, 0.0));
    assert_eq!(far.contact(&po), Contact::Separate);
    let across = i.placed(translation(6.0, 2.0, 3.0));
    assert!(matches!(across.contact(&po), Contact::Touching(_)));
}

#[test]
fn containment_skips_only_winding_numbers_below_one_half() {
    // `contact` sums a winding number only where the sampled vertex lies in
    // the other mesh's root box. An open cup (an icosphere's upper half, one
    // sheet) wraps points near and beyond its rim without enclosing them; a
    // tiny cube at random places about it is classed as the whole sum says.
    let ball = TriMesh::icosphere(Point::origin(), 1.0, 3);
    let cup_faces: Vec<[u32; 3]> = ball
        .indices()
        .iter()
        .copied()
        .filter(|t| t.iter().all(|&i| ball.vertices()[i as usize].z >= -1e-6))
        .collect();
    let cup = TriMesh::new(ball.vertices().to_vec(), cup_faces).expect("cup");
    let cube = TriMesh::cuboid(
        Point::new(-0.01, -0.01, -0.01),
        Point::new(0.01, 0.01, 0.01),
    );
    let (c, k) = (aabb_tree(&cup), obb_tree(&cube));
    let sample = cube.triangles().next().expect("a triangle").a;
    let mut rng = SplitMix(23);
    let mut classes = [0usize; 3];
    for _ in 0..3000 {
        let at = Vector::new(
            rng.range(-1.3, 1.3),
            rng.range(-1.3, 1.3),
            rng.range(-0.3, 1.3),
        );
        let placed = k.placed(translation(at.x, at.y, at.z));
        let found = placed.contact(&c.placed(Isometry::identity()));
        if matches!(found, Contact::Touching(_)) {
            continue;
        }
        let expected = if winding_number(&cup, &(sample + at)).abs() >= 0.5 {
            classes[1] += 1;
            Contact::Contained { inner: Which::A }
        } else {
            classes[usize::from(at.z < 0.0) * 2] += 1;
            Contact::Separate
        };
        assert_eq!(found, expected, "{at:?}");
    }
    // Enclosed, beside, and below the rim (outside the cup's box) all met.
    assert!(classes.iter().all(|&n| n > 50), "{classes:?}");
}

#[test]
fn inward_oriented_container_still_contains() {
    let outward = TriMesh::cuboid(Point::new(-3.0, -3.0, -3.0), Point::new(3.0, 3.0, 3.0));
    let flipped: Vec<[u32; 3]> = outward
        .indices()
        .iter()
        .map(|&[a, b, c]| [a, c, b])
        .collect();
    let inward = TriMesh::new(outward.vertices().to_vec(), flipped).expect("flipped cube");
    let small = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let (c, s) = (aabb_tree(&inward), obb_tree(&small));
    assert_eq!(
        s.placed(Isometry::identity())
            .contact(&c.placed(Isometry::identity())),
        Contact::Contained { inner: Which::A }
    );
}

#[test]
fn identical_meshes_at_identical_poses_touch_everywhere() {
    let mesh = TriMesh::icosphere(Point::new(0.3, 0.1, -0.2), 1.0, 2);
    let pose = Isometry::from_parts(
        Translation3::new(1.0, 2.0, 3.0),
        Rotation::from_euler_angles(0.7, -0.4, 1.1),
    );
    let (o, a) = (obb_tree(&mesh), aabb_tree(&mesh));
    let found = pairs(&o, pose, &a, pose);
    assert_eq!(found, brute_in_a(&mesh, &pose, &mesh, &pose));
    for i in 0..mesh.len() as u32 {
        assert!(
            found
                .binary_search(&TrianglePair {
                    a: TriangleId(i),
                    b: TriangleId(i)
                })
                .is_ok(),
            "triangle {i} touches itself"
        );
    }
}

#[test]
fn degenerate_triangles_never_touch() {
    // A cube plus slivers (collinear, repeated vertex) that pass straight through the other cube.
    let cube = TriMesh::cuboid(Point::new(0.0, 0.0, 0.0), Point::new(2.0, 2.0, 2.0));
    let slivers = triangle_soup(&[
        [[-5.0, 1.0, 1.0], [0.0, 1.0, 1.0], [5.0, 1.0, 1.0]],
        [[1.0, -5.0, 1.0], [1.0, -5.0, 1.0], [1.0, 5.0, 1.0]],
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
    ]);
    let a = cube.merged(&slivers);
    let b = TriMesh::cuboid(Point::new(0.5, 0.5, 0.5), Point::new(1.5, 1.5, 1.5)).merged(&slivers);
    let found = check_exact(&a, Isometry::identity(), &b, Isometry::identity());
    assert!(found.iter().all(|p| p.a.0 < 12 && p.b.0 < 12), "{found:?}");
    let only_slivers = obb_tree(&slivers);
    assert!(
        !only_slivers
            .placed(Isometry::identity())
            .overlaps(&aabb_tree(&cube).placed(Isometry::identity()))
    );
    assert_eq!(
        only_slivers
            .placed(Isometry::identity())
            .contact(&aabb_tree(&cube).placed(Isometry::identity())),
        Contact::Separate
    );
}

#[test]
fn limit_returns_the_smallest_pairs_of_the_sorted_list() {
    let mesh = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let other = TriMesh::terrain(10, 2.0, 0.3, 1);
    let (o, a) = (obb_tree(&mesh), aabb_tree(&other));
    let (pa, pb) = (Isometry::identity(), translation(0.0, 0.0, 0.1));
    let all = pairs(&o, pa, &a, pb);
    assert!(all.len() > 20);
    assert!(all.windows(2).all(|w| w[0] < w[1]), "sorted, no duplicates");
    for k in [0, 1, 2, 7, all.len() - 1, all.len(), all.len() + 5] {
        let limited = o.placed(pa).touching_pairs(&a.placed(pb), Some(k), None);
        assert_eq!(limited, all[..k.min(all.len())], "limit {k}");
    }
}

#[test]
fn non_finite_poses_give_no_contact() {
    let mesh = TriMesh::cuboid(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let (o, a) = (obb_tree(&mesh), aabb_tree(&mesh));
    let bad = [
        translation(Real::NAN, 0.0, 0.0),
        translation(Real::INFINITY, 0.0, 0.0),
        Isometry::from_parts(
            Translation3::identity(),
            Rotation::new_unchecked(Quaternion::new(Real::NAN, 0.0, 0.0, 0.0)),
        ),
    ];
    for pose in bad {
        for (pa, pb) in [
            (pose, Isometry::identity()),
            (Isometry::identity(), pose),
            (pose, pose),
        ] {
            assert!(!o.placed(pa).overlaps(&a.placed(pb)));
            assert_eq!(o.placed(pa).first_contact(&a.placed(pb), None), None);
            assert!(
                o.placed(pa)
                    .touching_pairs(&a.placed(pb), None, None)
                    .is_empty()
            );
            assert_eq!(o.placed(pa).contact(&a.placed(pb)), Contact::Separate);
        }
    }
}

#[test]
fn deep_trees_use_the_growable_stack() {
    // Triangles of exponentially growing size: with two SAH bins the upper
    // bin holds only the largest triangle, so each level peels one off and
    // the tree is as deep as it has triangles; two of them need more pending
    // node pairs than the fixed stack holds.
    let steps: Vec<[[Real; 3]; 3]> = (0..50)
        .map(|i| {
            let x = (2.0 as Real).powi(i);
            [[x, 0.0, 0.0], [2.0 * x, 0.0, 0.0], [x, x, x]]
        })
        .collect();
    let a = triangle_soup(&steps);
    let options = BuildOptions {
        split: SplitRule::Sah {
            bins: 2,
            search: SplitSearch::Fast,
        },
        ..BuildOptions::sah().with_max_leaf_size(1)
    };
    let tree = MeshTree::<Aabb>::build(a.clone(), &options);
    assert!(2 * tree.bvh().depth() > 64, "depth {}", tree.bvh().depth());
    let moved = translation(0.5, 0.25, 0.25); // within the common plane y = z
    let expected = brute_world(&a, &Isometry::identity(), &a, &moved);
    assert!(expected.len() > 45);
    assert_eq!(pairs(&tree, Isometry::identity(), &tree, moved), expected);
}

#[test]
fn statistics_count_the_work() {
    let a = TriMesh::icosphere(Point::origin(), 1.0, 3);
    let b = TriMesh::icosphere(Point::new(1.5, 0.0, 0.0), 1.0, 3);
    let (oa, ob, aa, ab) = (obb_tree(&a), obb_tree(&b), aabb_tree(&a), aabb_tree(&b));
    let mut obb_stats = OverlapStats::default();
    let found = oa.placed(Isometry::identity()).touching_pairs(
        &ob.placed(Isometry::identity()),
        None,
        Some(&mut obb_stats),
    );
    let mut aabb_stats = OverlapStats::default();
    let same = aa.placed(Isometry::identity()).touching_pairs(
        &ab.placed(Isometry::identity()),
        None,
        Some(&mut aabb_stats),
    );
    assert_eq!(found, same);
    for stats in [obb_stats, aabb_stats] {
        assert!(stats.triangle_tests >= found.len() as u64);
        assert!(
            stats.triangle_tests < (a.len() * b.len()) as u64 / 20,
            "{stats:?}"
        );
        assert!(stats.volume_tests > 0);
    }
    // Early exit does less work than listing every pair.
    let mut first_stats = OverlapStats::default();
    assert!(
        oa.placed(Isometry::identity())
            .first_contact(&ob.placed(Isometry::identity()), Some(&mut first_stats))
            .is_some()
    );
    assert!(first_stats.volume_tests < obb_stats.volume_tests);
    // Separate meshes: the root test alone.
    let mut apart = OverlapStats::default();
    assert!(
        oa.placed(Isometry::identity())
            .first_contact(&ob.placed(translation(10.0, 0.0, 0.0)), Some(&mut apart))
            .is_none()
    );
    assert_eq!(
        apart,
        OverlapStats {
            volume_tests: 1,
            triangle_tests: 0
        }
    );
}

/// A sliver with huge coordinates got a leaf frame that was not
/// orthonormal (its cross product cancelled): after `set_vertices` moved
/// the mesh, the refit built the root around that frame's corners, missed
/// a vertex by 0.003 and hid a contact at that vertex.
#[test]
fn an_obb_tree_refitted_from_a_sliver_keeps_its_contacts() {
    let p = |x: Real, y: Real, z: Real| Point::new(x, y, z);
    let sliver = vec![
        p(0.694_634_44, -2.2518e12, 1.1259e12),
        p(1.1259e12, 1.1259e12, 0.586_970_3),
        p(0.686_261_2, -2.2518e12, 1.1259e12),
        p(1e12, 2e12, 3e12),
        p(3e12, 1e12, 2e12),
        p(2e12, 3e12, 1e12),
    ];
    let moved = vec![
        p(-4.0, 1.0, -2.0),
        p(3.0, -1.0, 2.0),
        p(-3.0, 3.0, -3.0),
        p(-4.0, -1.0, -2.0),
        p(2.0, 2.0, -2.0),
        p(4.0, 3.0, -1.0),
    ];
    let faces = vec![[0, 1, 2], [3, 4, 5]];
    let mut tree = MeshTree::<Obb>::new(TriMesh::new(sliver, faces.clone()).expect("valid"));
    tree.set_vertices(moved.clone()).expect("finite");
    let mesh = TriMesh::new(moved, faces).expect("valid");
    assert_eq!(tree.bvh().validate(&mesh), Ok(()));
    // A probe touching the first triangle only at its vertex (3, -1, 2).
    let probe = [
        p(3.0, -1.0, 2.0),
        p(5.008_118, -1.003_301_7, 1.995_183_7),
        p(4.991_882, -0.996_698_26, 2.004_816_3),
    ];
    let probe = MeshTree::<Obb>::new(TriMesh::new(probe.to_vec(), vec![[0, 1, 2]]).expect("valid"));
    let at = Isometry::identity();
    assert!(triangles_overlap(
        &mesh.triangle(TriangleId(0)),
        &probe.mesh().triangle(TriangleId(0))
    ));
    assert!(tree.placed(at).overlaps(&probe.placed(at)));
}
