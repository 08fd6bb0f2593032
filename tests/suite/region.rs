//! Region queries (triangles overlapping an AABB, OBB or sphere) against
//! brute force over every triangle with the primitive tests
//! `triangle_overlaps_aabb`, `triangle_overlaps_obb` and
//! `triangle_overlaps_sphere`, for every volume type of tree.
//!
//! In the mesh frame the tree must equal brute force exactly (pruning may
//! never drop a triangle the leaf test accepts). For placed meshes the world
//! region is moved into the mesh frame; exact poses (rotations with entries
//! in {−1, 0, 1}, integer translations) on integer meshes move everything
//! exactly, so there the world-space brute force must match exactly too.

use crate::common;

use boxtree::bvh::BuildOptions;
use boxtree::intersect::{triangle_overlaps_aabb, triangle_overlaps_obb, triangle_overlaps_sphere};
use boxtree::math::nalgebra::{Quaternion, Translation3};
use boxtree::{
    Aabb, BoundingVolume, Isometry, Kdop18, Matrix, MeshTree, Obb, Point, Real, Region, Rotation,
    Sphere, TriMesh, Triangle, TriangleId, Vector,
};
use common::{SplitMix, data_mesh, triangle_soup};
use proptest::prelude::*;

/// Slivers: collinear and repeated-vertex triangles, never reported.
fn slivers() -> TriMesh {
    triangle_soup(&[
        [[-5.0, 0.0, 0.0], [0.0, 0.0, 0.0], [5.0, 0.0, 0.0]],
        [[0.0, -5.0, 0.5], [0.0, -5.0, 0.5], [0.0, 5.0, 0.5]],
        [[0.2, 0.2, 0.2], [0.2, 0.2, 0.2], [0.2, 0.2, 0.2]],
    ])
}

/// The brute-force oracle: every non-degenerate triangle tested with `hit`.
fn brute(mesh: &TriMesh, hit: impl Fn(&Triangle) -> bool) -> Vec<TriangleId> {
    mesh.triangles()
        .enumerate()
        .filter(|(_, t)| !t.is_degenerate() && hit(t))
        .map(|(i, _)| TriangleId(i as u32))
        .collect()
}

fn brute_region(mesh: &TriMesh, region: &Region) -> Vec<TriangleId> {
    match region {
        Region::Aabb(b) => brute(mesh, |t| triangle_overlaps_aabb(t, b)),
        Region::Obb(b) => brute(mesh, |t| triangle_overlaps_obb(t, b)),
        Region::Sphere(s) => brute(mesh, |t| triangle_overlaps_sphere(t, s)),
    }
}

/// A random region around the mesh: centre within its box, size a
/// fraction of it, so that some regions hit and some miss.
fn random_region(rng: &mut SplitMix, mesh: &TriMesh) -> Region {
    let bounds = mesh.aabb();
    let (c, h) = (bounds.center(), bounds.half_extents());
    let center = c + rng.point(1.3).coords.component_mul(&h);
    let size = h.amax() * rng.range(0.01, 0.3);
    match rng.next_u64() % 3 {
        0 => {
            let half = Vector::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            ) * size;
            Region::Aabb(Aabb::new(center - half, center + half))
        }
        1 => {
            let half = Vector::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            ) * size;
            Region::Obb(Obb::from_rotation(center, &rng.rotation(), half))
        }
        _ => Region::Sphere(Sphere::new(center, size)),
    }
}

fn check_tree<V: BoundingVolume>(name: &str, tree: &MeshTree<V>, regions: &[Region]) -> usize {
    let mut hits = 0;
    for (i, region) in regions.iter().enumerate() {
        let expected = brute_region(tree.mesh(), region);
        assert_eq!(
            tree.triangles_overlapping(*region),
            expected,
            "{name} region {i}: {region:?}"
        );
        assert_eq!(
            tree.overlaps_region(*region),
            !expected.is_empty(),
            "{name} region {i}: boolean"
        );
        hits += usize::from(!expected.is_empty());
    }
    hits
}

fn check_every_tree(name: &str, mesh: &TriMesh, regions: usize, seed: u64) {
    let mut rng = SplitMix(seed);
    let regions: Vec<Region> = (0..regions)
        .map(|_| random_region(&mut rng, mesh))
        .collect();
    let hits = check_tree(
        &format!("{name} obb"),
        &MeshTree::<Obb>::build(mesh.clone(), &BuildOptions::gottschalk()),
        &regions,
    );
    check_tree(
        &format!("{name} aabb"),
        &MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah()),
        &regions,
    );
    check_tree(
        &format!("{name} sphere"),
        &MeshTree::<Sphere>::build(mesh.clone(), &BuildOptions::sah()),
        &regions,
    );
    check_tree(
        &format!("{name} 18-dop"),
        &MeshTree::<Kdop18>::build(mesh.clone(), &BuildOptions::gottschalk()),
        &regions,
    );
    let fraction = hits as f64 / regions.len() as f64;
    assert!(
        (0.1..=0.95).contains(&fraction),
        "{name}: {fraction} of the regions hit"
    );
}

#[test]
fn icosphere_regions_match_brute_force() {
    check_every_tree(
        "icosphere",
        &TriMesh::icosphere(Point::new(1.0, -2.0, 0.5), 3.0, 3).merged(&slivers()),
        600,
        1,
    );
}

#[test]
fn terrain_regions_match_brute_force() {
    check_every_tree("terrain", &TriMesh::terrain(30, 100.0, 8.0, 2), 600, 2);
}

#[test]
fn soup_regions_match_brute_force() {
    check_every_tree(
        "soup",
        &TriMesh::random_soup(800, 10.0, 2.0, 3).merged(&slivers()),
        600,
        3,
    );
}

#[test]
fn fcl_environment_regions_match_brute_force() {
    check_every_tree("env", &data_mesh("env.obj"), 300, 4);
}

#[test]
fn regions_cornering_a_vertex_far_from_the_origin_match_brute_force() {
    // A box or sphere placed so that it touches a vertex within rounding:
    // the leaf test decides, and pruning must keep every node it accepts.
    let mesh = TriMesh::random_soup(200, 1.0, 0.3, 7);
    let offset = Vector::new(40_000.0, -25_000.0, 12_000.0);
    let far = TriMesh::new(
        mesh.vertices().iter().map(|v| v + offset).collect(),
        mesh.indices().to_vec(),
    )
    .expect("moved soup");
    let (obb, aabb) = (
        MeshTree::<Obb>::build(far.clone(), &BuildOptions::gottschalk()),
        MeshTree::<Aabb>::build(far.clone(), &BuildOptions::sah()),
    );
    let mut rng = SplitMix(8);
    let mut regions = Vec::new();
    for i in 0..900 {
        let vertex = far.vertices()[(rng.next_u64() % far.vertices().len() as u64) as usize];
        let rotation = rng.rotation();
        let half = Vector::new(
            rng.range(0.001, 0.1),
            rng.range(0.001, 0.1),
            rng.range(0.001, 0.1),
        );
        let corner = rotation * half;
        regions.push(match i % 3 {
            0 => Region::Obb(Obb::from_rotation(vertex + corner, &rotation, half)),
            1 => Region::Aabb(Aabb::new(vertex, vertex + half)),
            _ => Region::Sphere(Sphere::new(vertex + corner, corner.norm())),
        });
    }
    assert!(check_tree("far obb", &obb, &regions) > 300);
    check_tree("far aabb", &aabb, &regions);
}

#[test]
fn box_touching_a_face_exactly_is_a_hit_and_one_ulp_away_is_not() {
    let cube = TriMesh::cuboid(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let tree = MeshTree::<Obb>::build(cube.clone(), &BuildOptions::gottschalk());
    let aabb_tree = MeshTree::<Aabb>::build(cube, &BuildOptions::sah());
    let gap = (1.0 as Real).next_up();
    let touching = Aabb::new(Point::new(1.0, 0.2, 0.2), Point::new(2.0, 0.8, 0.8));
    let apart = Aabb::new(Point::new(gap, 0.2, 0.2), Point::new(2.0, 0.8, 0.8));
    assert_eq!(
        tree.triangles_overlapping(touching),
        vec![TriangleId(10), TriangleId(11)]
    );
    assert_eq!(
        aabb_tree.triangles_overlapping(touching),
        vec![TriangleId(10), TriangleId(11)]
    );
    assert!(!tree.overlaps_region(apart) && !aabb_tree.overlaps_region(apart));
    let sphere = Sphere::new(Point::new(1.5, 0.5, 0.5), 0.5);
    assert_eq!(
        tree.triangles_overlapping(sphere),
        vec![TriangleId(10), TriangleId(11)]
    );
    assert!(!tree.overlaps_region(Sphere::new(
        Point::new(1.5, 0.5, 0.5),
        (0.5 as Real).next_down()
    )));
    // An oriented box standing on its edge on the face.
    let diamond = Obb::from_rotation(
        Point::new(1.0 + std::f32::consts::FRAC_1_SQRT_2, 0.5, 0.5),
        &Rotation::from_axis_angle(&Vector::z_axis(), std::f32::consts::FRAC_PI_4),
        Vector::new(0.5, 0.5, 0.2),
    );
    assert_eq!(
        tree.triangles_overlapping(diamond),
        brute_region(tree.mesh(), &Region::Obb(diamond))
    );
}

#[test]
fn degenerate_triangles_are_never_reported() {
    let tree = MeshTree::<Aabb>::build(slivers(), &BuildOptions::sah());
    let everything = Aabb::new(
        Point::new(-10.0, -10.0, -10.0),
        Point::new(10.0, 10.0, 10.0),
    );
    assert!(tree.triangles_overlapping(everything).is_empty());
    assert!(!tree.overlaps_region(Sphere::new(Point::origin(), 100.0)));
}

#[test]
fn invalid_regions_overlap_nothing() {
    let tree = MeshTree::<Obb>::build(
        TriMesh::icosphere(Point::origin(), 1.0, 2),
        &BuildOptions::gottschalk(),
    );
    let nan = Real::NAN;
    let regions = [
        Region::Aabb(Aabb::EMPTY),
        Region::Aabb(Aabb::new(
            Point::new(nan, 0.0, 0.0),
            Point::new(1.0, 1.0, 1.0),
        )),
        Region::Aabb(Aabb::new(
            Point::new(-Real::INFINITY, -1.0, -1.0),
            Point::new(1.0, 1.0, 1.0),
        )),
        Region::Obb(Obb::new(
            Point::new(0.0, nan, 0.0),
            *Rotation::identity().to_rotation_matrix().matrix(),
            Vector::repeat(1.0),
        )),
        Region::Sphere(Sphere::new(Point::origin(), nan)),
        Region::Sphere(Sphere::new(Point::origin(), -1.0)),
        Region::Sphere(Sphere::new(Point::new(Real::INFINITY, 0.0, 0.0), 1.0)),
    ];
    for region in regions {
        assert!(tree.triangles_overlapping(region).is_empty(), "{region:?}");
        assert!(!tree.overlaps_region(region), "{region:?}");
        assert!(
            tree.placed(Isometry::translation(1.0, 2.0, 3.0))
                .triangles_overlapping(region)
                .is_empty(),
            "{region:?}"
        );
    }
    let nan_pose = Isometry::translation(nan, 0.0, 0.0);
    assert!(
        !tree
            .placed(nan_pose)
            .overlaps_region(Sphere::new(Point::origin(), 10.0))
    );
}

// ---------------------------------------------------------------- placed meshes

/// The 12 rotations with quaternion entries in {0, ±½, ±1}: exact in `f32`.
fn exact_rotation(k: usize) -> Rotation {
    let q = match k % 12 {
        0 => Quaternion::new(1.0, 0.0, 0.0, 0.0),
        1 => Quaternion::new(0.0, 1.0, 0.0, 0.0),
        2 => Quaternion::new(0.0, 0.0, 1.0, 0.0),
        3 => Quaternion::new(0.0, 0.0, 0.0, 1.0),
        k => {
            let s = |bit: usize| if (k - 4) & bit == 0 { 0.5 } else { -0.5 };
            Quaternion::new(0.5, s(1), s(2), s(4))
        }
    };
    Rotation::new_unchecked(q)
}

fn integer_soup(count: u32, extent: Real, seed: u64) -> TriMesh {
    let soup = TriMesh::random_soup(count, extent, extent, seed);
    TriMesh::new(
        soup.vertices().iter().map(|v| v.map(Real::round)).collect(),
        soup.indices().to_vec(),
    )
    .expect("rounded soup")
}

fn world_mesh(mesh: &TriMesh, pose: &Isometry) -> TriMesh {
    TriMesh::new(
        mesh.vertices().iter().map(|v| pose * v).collect(),
        mesh.indices().to_vec(),
    )
    .expect("moved mesh")
}

fn integer_region(rng: &mut SplitMix) -> Region {
    let c = rng.point(6.0).map(Real::round);
    let h = Vector::new(
        rng.range(0.0, 3.0),
        rng.range(0.0, 3.0),
        rng.range(0.0, 3.0),
    )
    .map(Real::round);
    match rng.next_u64() % 3 {
        0 => Region::Aabb(Aabb::new(c - h, c + h)),
        1 => Region::Obb(Obb::from_rotation(
            c,
            &exact_rotation(rng.next_u64() as usize),
            h,
        )),
        _ => Region::Sphere(Sphere::new(c, h.x + 1.0)),
    }
}

#[test]
fn placed_mesh_with_exact_poses_matches_world_brute_force_exactly() {
    let mesh = integer_soup(60, 5.0, 11);
    let obb = MeshTree::<Obb>::build(mesh.clone(), &BuildOptions::gottschalk());
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let mut rng = SplitMix(12);
    let mut hits = 0;
    for i in 0..600 {
        let t = rng.point(4.0).map(Real::round);
        let pose = Isometry::from_parts(Translation3::from(t.coords), exact_rotation(i));
        let region = integer_region(&mut rng);
        // The same question in the mesh frame: the trees must match it exactly.
        let local = brute_region(&mesh, &region.transformed(&pose.inverse()));
        let context = format!("pose {i}: {pose:?} {region:?}");
        assert_eq!(
            obb.placed(pose).triangles_overlapping(region),
            local,
            "{context}"
        );
        assert_eq!(
            aabb.placed(pose).triangles_overlapping(region),
            local,
            "{context}"
        );
        assert_eq!(
            aabb.placed(pose).overlaps_region(region),
            !local.is_empty(),
            "{context}"
        );
        // Box tests decide integer input exactly in any frame; the sphere
        // test's closest point divides, so a touching sphere is decided up to
        // rounding that depends on the frame.
        let expected = brute_region(&world_mesh(&mesh, &pose), &region);
        if !matches!(region, Region::Sphere(_)) {
            assert_eq!(local, expected, "{context}: world brute force");
        }
        hits += usize::from(!expected.is_empty());
    }
    assert!(hits > 100, "{hits} of 600 hit");
}

proptest! {
    #[test]
    fn placed_mesh_matches_world_brute_force_away_from_grazing(pose in common::isometry(5.0), seed in 0u64..10_000) {
        let mesh = TriMesh::icosphere(Point::new(0.5, 0.0, -0.5), 2.0, 2);
        let tree = MeshTree::<Obb>::build(mesh.clone(), &BuildOptions::gottschalk());
        let mut rng = SplitMix(seed);
        let world = world_mesh(&mesh, &pose);
        let region = random_region(&mut rng, &world);
        let expected = brute_region(&world, &region);
        // The same question asked in the mesh frame, by brute force.
        let local = brute_region(&mesh, &region.transformed(&pose.inverse()));
        prop_assert_eq!(tree.placed(pose).triangles_overlapping(region), local.clone());
        if local == expected {
            prop_assert_eq!(tree.placed(pose).overlaps_region(region), !expected.is_empty());
        }
    }

    #[test]
    fn mesh_frame_answers_equal_brute_force(seed in 0u64..100_000) {
        let mesh = TriMesh::terrain(8, 10.0, 2.0, seed % 7);
        let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
        let mut rng = SplitMix(seed);
        let region = random_region(&mut rng, &mesh);
        prop_assert_eq!(tree.triangles_overlapping(region), brute_region(&mesh, &region));
    }
}

/// A small mesh rotated and placed 1e5 from the origin: the region reaches
/// its frame through the `f64` change of frame, so a sphere or box 1% short
/// of the mesh misses it and one 1% past it overlaps. Composing the inverse
/// pose in `f32` moved regions by up to 2 cm there, for a mesh 2 cm across.
#[test]
fn regions_far_from_the_origin_reach_a_turned_mesh_exactly() {
    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 0.01, 2));
    let mut rng = SplitMix(77);
    for _ in 0..2_000 {
        let at = Vector::new(1e5, -1e5, 3e4) + rng.vector(-1.0, 1.0);
        let turn = Rotation::from_quaternion(Quaternion::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ));
        let placed = tree.placed(Isometry::from_parts(Translation3::from(at), turn));
        let center = Point::from(at) + rng.vector(-0.05, 0.05);
        let d = placed.closest_point(center).expect("finite").distance;
        if d == 0.0 {
            continue;
        }
        let sphere = |r: Real| Region::Sphere(Sphere::new(center, r));
        // An oriented cube about the same exact centre (an AABB's corners
        // would round at 1e5 by more than these margins).
        let cube = |h: Real| Region::Obb(Obb::new(center, Matrix::identity(), Vector::repeat(h)));
        assert!(placed.overlaps_region(sphere(1.01 * d)), "{center:?} {d}");
        assert!(!placed.overlaps_region(sphere(0.99 * d)), "{center:?} {d}");
        assert!(placed.overlaps_region(cube(1.01 * d)), "{center:?} {d}");
        assert!(
            !placed.overlaps_region(cube(0.99 * d / 3.0_f32.sqrt())),
            "{center:?} {d}"
        );
        assert_eq!(
            placed.triangles_overlapping(sphere(0.99 * d)),
            Vec::<TriangleId>::new()
        );
    }
}

/// Spheres whose squared radius leaves `f32`'s range: a radius of 2e19
/// squared to infinity and met a triangle 2.6e19 away (and so every
/// object of a scene); one of 3e19 meets it.
#[test]
fn huge_spheres_meet_only_what_lies_within_them() {
    let far = Vector::repeat(1.5e19);
    let tri = Triangle::new(
        Point::from(far),
        Point::from(far + Vector::new(1e14, 0.0, 0.0)),
        Point::from(far + Vector::new(0.0, 1e14, 0.0)),
    );
    let sphere = |radius: Real| Sphere::new(Point::origin(), radius);
    assert!(!triangle_overlaps_sphere(&tri, &sphere(2e19)));
    assert!(triangle_overlaps_sphere(&tri, &sphere(3e19)));
    let tree = MeshTree::<Aabb>::new(
        TriMesh::new(tri.vertices().to_vec(), vec![[0, 1, 2]]).expect("valid"),
    );
    assert!(!tree.overlaps_region(sphere(2e19)));
    assert!(tree.overlaps_region(sphere(3e19)));
}

#[test]
fn regions_reaching_past_f32_max_hold_the_whole_mesh() {
    // Valid regions whose half-extents or reach sum beyond f32::MAX: an
    // infinite pad had refused them (no triangles), and the box test's
    // half-extents of a box from -3e38 to 3e38 overflowed.
    let mesh = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let tree = MeshTree::<Aabb>::new(mesh.clone());
    let every: Vec<TriangleId> = (0..mesh.len() as u32).map(TriangleId).collect();
    for region in [
        Region::from(Obb::new(
            Point::origin(),
            Matrix::identity(),
            Vector::new(2e38, 2e38, 1.0),
        )),
        Region::from(Sphere::new(Point::new(2e38, 0.0, 0.0), 3e38)),
        Region::from(Aabb::new(
            Point::new(-3e38, -3e38, -3e38),
            Point::new(3e38, 3e38, 3e38),
        )),
    ] {
        let mut found = tree.triangles_overlapping(region);
        found.sort();
        assert_eq!(found, every, "{region:?}");
        assert!(tree.overlaps_region(region), "{region:?}");
        assert_eq!(brute_region(&mesh, &region), every, "{region:?}");
    }
}
