//! Nearest points on meshes against two oracles: the brute force over every
//! triangle with the same `f32` triangle routine (which pins the descent:
//! pruning, ordering, ties, for every tree kind) and an `f64` evaluation of
//! the exact distance (which pins accuracy: the answers agree with it to
//! `64 ε` of the coordinates, degenerate triangles included).

use crate::common;

use boxtree::bvh::BuildOptions;
use boxtree::intersect::closest_point_on_triangle;
use boxtree::math::{Isometry, Point, Real, Vector};
use boxtree::{
    Aabb, BoundingVolume, Kdop14, MeshTree, Obb, PackedObb, PointProjection, PointQuery, Rss,
    Sphere, Threads, TriMesh, Triangle, TriangleId,
};
use common::bands::points_in_band;
use common::exact64::{P64, p64, point_triangle};
use common::{SplitMix, collected, data_mesh, triangle_soup};
use proptest::prelude::*;

fn triangle64(mesh: &TriMesh, id: TriangleId) -> [P64; 3] {
    let t = mesh.triangle(id);
    [p64(&t.a), p64(&t.b), p64(&t.c)]
}

/// The nearest distance over every triangle, in `f64`.
fn oracle_distance(mesh: &TriMesh, p: &Point) -> f64 {
    let q = p64(p);
    (0..mesh.len())
        .map(|i| point_triangle(q, triangle64(mesh, TriangleId(i as u32))))
        .fold(f64::INFINITY, f64::min)
}

/// The brute force with the crate's own `f32` triangle routine: the best
/// squared distance (of the `f32` difference, squared in `f64`), ties to
/// the lower id, within `max_distance`.
fn brute_force(mesh: &TriMesh, query: &PointQuery) -> Option<PointProjection> {
    let p = &query.point;
    let mut best: Option<(f64, PointProjection)> = None;
    for i in 0..mesh.len() {
        let triangle = TriangleId(i as u32);
        let c = closest_point_on_triangle(p, &mesh.triangle(triangle));
        let d = c.point - p;
        let d2: f64 = [d.x, d.y, d.z].iter().map(|&x| f64::from(x).powi(2)).sum();
        let distance = d2.sqrt() as Real;
        if best.is_none_or(|(b, _)| d2 < b) && distance <= query.max_distance {
            best = Some((
                d2,
                PointProjection {
                    point: c.point,
                    distance,
                    triangle,
                    u: c.u,
                    v: c.v,
                    w: c.w,
                },
            ));
        }
    }
    best.map(|(_, b)| b)
}

/// `64 ε` of the coordinates involved: the accuracy promised.
fn tolerance(mesh: &TriMesh, p: &Point) -> f64 {
    let scale = mesh
        .vertices()
        .iter()
        .map(|v| v.coords.amax())
        .fold(0.0, Real::max);
    64.0 * f64::from(Real::EPSILON) * f64::from(scale + p.coords.amax())
}

/// Checks one answer against the `f64` oracle: the distance, the point on
/// its triangle, the barycentric weights, and that the triangle is among
/// the nearest.
fn check_accuracy(mesh: &TriMesh, p: &Point, answer: &PointProjection) {
    let tol = tolerance(mesh, p);
    let exact = oracle_distance(mesh, p);
    let tri = triangle64(mesh, answer.triangle);
    let got = f64::from(answer.distance);
    assert!(
        (got - exact).abs() <= tol,
        "{p:?}: {got} vs {exact} (tol {tol})"
    );
    assert!(
        point_triangle(p64(&answer.point), tri) <= tol,
        "{p:?}: point off its triangle"
    );
    assert!(
        point_triangle(p64(p), tri) <= exact + tol,
        "{p:?}: not a nearest triangle"
    );
    let d = (answer.point - p).cast::<f64>().norm();
    assert!(
        (d - got).abs() <= tol,
        "{p:?}: distance {got} for a point {d} away"
    );
    let t = mesh.triangle(answer.triangle);
    let rebuilt = t.a.coords * answer.w + t.b.coords * answer.u + t.c.coords * answer.v;
    assert!(f64::from((rebuilt - answer.point.coords).amax()) <= 4.0 * tol);
}

/// Points in the four bands around the mesh, in turn.
fn banded_points(mesh: &TriMesh, count: usize, seed: u64) -> Vec<Point> {
    let per_band: Vec<Vec<Point>> = (0..4)
        .map(|band| points_in_band(mesh, count.div_ceil(4), seed + band as u64, band))
        .collect();
    (0..count).map(|k| per_band[k % 4][k / 4]).collect()
}

/// A soup with degenerate triangles among proper ones: collinear,
/// coincident vertices, a needle, and duplicates of a proper triangle.
fn soup_with_degenerates() -> TriMesh {
    let mut triangles = vec![
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        [[2.0, 2.0, 2.0], [3.0, 3.0, 3.0], [4.0, 4.0, 4.0]],
        [[-1.0, 2.0, 0.5], [-1.0, 2.0, 0.5], [-1.0, 2.0, 0.5]],
        [[0.5, -1.0, 1.0], [0.5, -1.0, 1.0], [1.5, -1.0, 1.0]],
        [[0.0, 0.0, 3.0], [1e-7, 0.0, 3.0], [2.0, 1e-7, 3.0]],
    ];
    let mut rng = SplitMix(5);
    for _ in 0..60 {
        let a = rng.point(3.0);
        let b = a + rng.vector(-0.5, 0.5);
        let c = a + rng.vector(-0.5, 0.5);
        triangles.push([a, b, c].map(|p| [p.x, p.y, p.z]));
    }
    triangle_soup(&triangles)
}

fn meshes() -> Vec<(&'static str, TriMesh)> {
    vec![
        ("bunny", data_mesh("bunny.obj")),
        ("terrain", TriMesh::terrain(24, 10.0, 2.0, 7)),
        (
            "icosphere",
            TriMesh::icosphere(Point::new(1.0, -2.0, 0.5), 3.0, 3),
        ),
        ("soup", TriMesh::random_soup(400, 5.0, 1.0, 11)),
        ("degenerates", soup_with_degenerates()),
    ]
}

/// Every tree kind answers exactly as the `f32` brute force, and within
/// the tolerance of the `f64` oracle.
fn check_mesh<V: BoundingVolume>(name: &str, mesh: &TriMesh, points: &[Point], oracle: bool) {
    let tree = MeshTree::<V>::new(mesh.clone());
    for p in points {
        let ours = tree.closest_point(p);
        assert_eq!(
            ours,
            brute_force(mesh, &PointQuery::from(p)),
            "{name} {p:?}"
        );
        if oracle {
            check_accuracy(
                mesh,
                p,
                &ours.expect("a non-empty mesh has a nearest point"),
            );
        }
    }
}

#[test]
fn every_tree_kind_answers_as_the_brute_force_in_four_bands() {
    for (name, mesh) in meshes() {
        let points = banded_points(&mesh, 400, 1);
        check_mesh::<Aabb>(name, &mesh, &points, true);
        check_mesh::<PackedObb>(name, &mesh, &points, false);
        check_mesh::<Obb>(name, &mesh, &points, false);
        check_mesh::<Sphere>(name, &mesh, &points, false);
        check_mesh::<Kdop14>(name, &mesh, &points, false);
        check_mesh::<Rss>(name, &mesh, &points, false);
    }
}

#[test]
fn sah_and_gottschalk_builds_answer_alike() {
    let mesh = data_mesh("bunny.obj");
    let sah = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let median = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::gottschalk());
    let obb = MeshTree::<PackedObb>::build(mesh.clone(), &BuildOptions::gottschalk());
    for p in banded_points(&mesh, 4_000, 2) {
        let expected = sah.closest_point(p);
        assert_eq!(median.closest_point(p), expected);
        assert_eq!(obb.closest_point(p), expected);
    }
}

#[test]
fn the_maximum_distance_is_inclusive_and_searches_nothing_beyond() {
    let mesh = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let tree = MeshTree::<Aabb>::new(mesh.clone());
    let mut rng = SplitMix(3);
    for _ in 0..2_000 {
        let p = rng.point(3.0);
        let full = tree.closest_point(p).expect("non-empty");
        // Exactly at the distance: found; just below it: not.
        assert_eq!(
            tree.closest_point(PointQuery::within(p, full.distance)),
            Some(full)
        );
        let below = full.distance.next_down();
        assert_eq!(
            tree.closest_point(PointQuery::within(p, below)),
            brute_force(&mesh, &PointQuery::within(p, below))
        );
        let limit = rng.range(0.0, 2.0);
        assert_eq!(
            tree.closest_point(PointQuery::within(p, limit)),
            brute_force(&mesh, &PointQuery::within(p, limit)),
        );
    }
}

#[test]
fn ties_go_to_the_lower_triangle_id() {
    // Eight copies of one triangle, shuffled through the tree: the point
    // is equally near all of them.
    let one = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let mut triangles = vec![[[5.0, 5.0, 5.0], [6.0, 5.0, 5.0], [5.0, 6.0, 5.0]]; 3];
    triangles.extend([one; 8]);
    let mesh = triangle_soup(&triangles);
    for p in [Point::new(0.2, 0.2, 1.0), Point::new(-1.0, -1.0, 0.0)] {
        let expected = Some(TriangleId(3));
        assert_eq!(
            MeshTree::<Aabb>::new(mesh.clone())
                .closest_point(p)
                .map(|a| a.triangle),
            expected
        );
        assert_eq!(
            MeshTree::<Obb>::new(mesh.clone())
                .closest_point(p)
                .map(|a| a.triangle),
            expected
        );
    }
}

#[test]
fn far_and_tiny_coordinates_keep_their_accuracy() {
    let base = data_mesh("bunny.obj");
    for (scale, offset) in [(1e-3, 0.0), (1.0, 1e5), (100.0, -3e4)] {
        let vertices = base
            .vertices()
            .iter()
            .map(|v| Point::from(v.coords * scale + Vector::repeat(offset)))
            .collect();
        let mesh = TriMesh::new(vertices, base.indices().to_vec()).expect("valid");
        let points = banded_points(&mesh, 400, 4);
        check_mesh::<Aabb>("moved bunny", &mesh, &points, true);
    }
}

#[test]
fn batches_answer_as_single_queries_in_order() {
    let mesh = data_mesh("bunny.obj");
    let tree = MeshTree::<Aabb>::new(mesh.clone());
    let obb = MeshTree::<PackedObb>::new(mesh.clone());
    let mut points = banded_points(&mesh, 3_000, 5);
    points.push(Point::new(Real::NAN, 0.0, 0.0));
    for max_distance in [Real::INFINITY, 0.01] {
        let single: Vec<_> = points
            .iter()
            .map(|p| tree.closest_point(PointQuery::within(*p, max_distance)))
            .collect();
        for threads in [Threads::All, Threads::Current] {
            assert_eq!(
                collected(|out| tree.closest_points(&points, max_distance, threads, out)),
                single
            );
            assert_eq!(
                collected(|out| obb.closest_points(&points, max_distance, threads, out)),
                single
            );
        }
    }
}

#[test]
fn placed_meshes_answer_in_world_space_and_keep_a_rigid_motion() {
    let mesh = data_mesh("bunny.obj");
    let tree = MeshTree::<Aabb>::new(mesh.clone());
    let mut rng = SplitMix(6);
    for _ in 0..200 {
        let pose = Isometry::from_parts(rng.vector(-50.0, 50.0).into(), rng.rotation());
        let moved = TriMesh::new(
            mesh.vertices().iter().map(|v| pose * v).collect(),
            mesh.indices().to_vec(),
        )
        .expect("valid");
        let placed = tree.placed(pose);
        for p in banded_points(&moved, 20, rng.next_u64()) {
            let answer = placed.closest_point(p).expect("non-empty");
            check_accuracy(&moved, &p, &answer);
            // The same question asked in the mesh frame gives the same triangle
            // distance up to the change of frame's rounding.
            let local = tree.closest_point(pose.inverse() * p).expect("non-empty");
            let tol = tolerance(&moved, &p) as Real;
            assert!((local.distance - answer.distance).abs() <= tol);
        }
    }
}

#[test]
fn bad_input_finds_nothing() {
    let tree = MeshTree::<Aabb>::new(data_mesh("bunny.obj"));
    let obb = MeshTree::<Obb>::new(data_mesh("bunny.obj"));
    for p in [
        Point::new(Real::NAN, 0.0, 0.0),
        Point::new(0.0, Real::INFINITY, 0.0),
        Point::new(0.0, 0.0, Real::NEG_INFINITY),
    ] {
        assert_eq!(tree.closest_point(p), None);
        assert_eq!(obb.closest_point(p), None);
        assert_eq!(tree.placed(Isometry::identity()).closest_point(p), None);
    }
    let p = Point::new(0.0, 0.1, 0.0);
    for max in [Real::NAN, -1.0, Real::NEG_INFINITY] {
        assert_eq!(tree.closest_point(PointQuery::within(p, max)), None);
        assert_eq!(obb.closest_point(PointQuery::within(p, max)), None);
    }
    assert!(
        tree.closest_point(PointQuery::within(p, 0.0))
            .is_none_or(|a| a.distance == 0.0)
    );
}

fn small_soup() -> impl Strategy<Value = Vec<[[Real; 3]; 3]>> {
    // Coordinates on a coarse grid make shared edges, coplanar and
    // degenerate triangles common.
    let coordinate = (-8i32..=8).prop_map(|k| k as Real * 0.25);
    let vertex = [coordinate.clone(), coordinate.clone(), coordinate];
    proptest::collection::vec([vertex.clone(), vertex.clone(), vertex], 1..40)
}

proptest! {
    #[test]
    fn random_soups_answer_as_both_oracles(
        triangles in small_soup(),
        points in proptest::collection::vec(common::point(3.0), 1..20),
        on_grid in proptest::collection::vec((-12i32..=12, -12i32..=12, -12i32..=12), 1..10),
    ) {
        let mesh = triangle_soup(&triangles);
        let mut all = points;
        // Grid points lie on vertices, edges and faces of the soup exactly.
        all.extend(on_grid.iter().map(|&(x, y, z)| {
            Point::new(x as Real * 0.125, y as Real * 0.125, z as Real * 0.125)
        }));
        check_mesh::<Aabb>("soup", &mesh, &all, true);
        check_mesh::<PackedObb>("soup", &mesh, &all, false);
        check_mesh::<Sphere>("soup", &mesh, &all, false);
    }
}

#[test]
fn points_whose_squared_distance_overflows_f32_get_the_nearest_point() {
    // 3e19 away: the distance is representable, its square (9e38) is not
    // in `f32`, so the search's reach stays infinite after the first leaf.
    // Unused lanes of the 8-wide nodes (infinitely far) must still be
    // skipped (the descent read one as a node and indexed out of bounds),
    // and the answer is the nearest point, its distance finite (squared
    // distances are compared in `f64`).
    let far = Vector::new(3e19, 0.0, 0.0);
    let sphere = TriMesh::icosphere(Point::from(far), 1.0, 3);
    for tree in [
        MeshTree::<Aabb>::build(sphere.clone(), &BuildOptions::sah()),
        MeshTree::<Aabb>::build(sphere.clone(), &BuildOptions::sah().with_max_leaf_size(1)),
    ] {
        let answer = tree.closest_point(Point::origin()).expect("an answer");
        assert!(answer.distance.is_finite(), "{answer:?}");
        check_accuracy(&sphere, &Point::origin(), &answer);
    }
}

#[test]
fn triangles_at_extreme_scales_keep_their_nearest_points() {
    // Fourth powers of edges below about 3e-11 or above about 4e9 leave
    // `f32`'s range: the plane's projection was lost there and an edge
    // point returned (distance 1.03 s instead of s), squared distances
    // below about 1e-22 all rounded to 0 (the lowest id won every tie), and
    // a sphere of 1e21 answered nothing at all.
    for s in [1e-30, 1e-20, 1e-12, 3e-11, 1.0, 5e9, 1e10, 1e12, 1e19] {
        let tri = Triangle::new(
            Point::origin(),
            Point::new(s, 0.0, 0.0),
            Point::new(0.0, s, 0.0),
        );
        let p = Point::new(0.25 * s, 0.25 * s, s);
        let c = closest_point_on_triangle(&p, &tri);
        let expected = Point::new(0.25 * s, 0.25 * s, 0.0);
        assert!(
            (c.point - expected).amax() <= 1e-6 * s,
            "scale {s}: {:?} for {expected:?}",
            c.point
        );
        assert!(
            (c.u - 0.25).abs() <= 1e-6 && (c.v - 0.25).abs() <= 1e-6,
            "scale {s}: {c:?}"
        );
    }
    for (radius, at) in [
        (1e-30, Point::new(2e-30, 1e-31, 0.0)),
        (1e-12, Point::new(1.7e-12, -3e-13, 2e-13)),
        (1e12, Point::new(1.3e12, 2e11, -1e11)),
        (1e21, Point::new(1.01e21, 0.0, 0.0)),
    ] {
        let sphere = TriMesh::icosphere(Point::origin(), radius, 2);
        let tree = MeshTree::<Aabb>::new(sphere.clone());
        let answer = tree.closest_point(at).expect("a non-empty mesh answers");
        assert_eq!(
            Some(answer),
            brute_force(&sphere, &PointQuery::from(at)),
            "radius {radius}"
        );
        let exact = oracle_distance(&sphere, &at);
        assert!(
            (f64::from(answer.distance) - exact).abs() <= 1e-5 * exact,
            "radius {radius}: {} against {exact}",
            answer.distance
        );
    }
}

/// Distances below about 1e-19, whose `f32` squares are subnormal: the
/// nearest triangle of two nearly tied ones, and a maximum distance equal
/// to the answer (inclusive), at 2⁻⁷³ ≈ 1e-22. Subnormal squares round by
/// an absolute amount, which pruned the nearer triangle's box.
#[test]
fn tiny_distances_keep_the_nearest_triangle_and_an_inclusive_maximum() {
    let s = (2.0 as Real).powi(-73);
    let c = 0.4359;
    let at = |x: Real, y: Real, z: Real| Point::new(x * s, y * s, z * s);
    let vertices = vec![
        at(0.76, -1.0, -1.0),
        at(0.76, 1.0, -1.0),
        at(0.76, 0.0, 1.0),
        at(c, c, c),
        at(c + 1.0, c, c),
        at(c, c + 1.0, c),
    ];
    let mesh = TriMesh::new(vertices, vec![[0, 1, 2], [3, 4, 5]]).expect("valid");
    let p = Point::origin();
    // In f64: the second triangle's nearest point is its corner (c, c, c).
    let expected = (3.0f64).sqrt() * f64::from(c) * f64::from(s);
    for found in [
        MeshTree::<Aabb>::new(mesh.clone()).closest_point(p),
        MeshTree::<Obb>::new(mesh.clone()).closest_point(p),
        MeshTree::<PackedObb>::new(mesh.clone()).closest_point(p),
    ] {
        let found = found.expect("non-empty");
        assert_eq!(found.triangle, TriangleId(1), "{found:?}");
        assert!((f64::from(found.distance) - expected).abs() <= 1e-5 * expected);
    }
    let one = TriMesh::new(
        vec![
            at(0.26, 0.26, 0.26),
            at(1.26, 0.26, 0.26),
            at(0.26, 1.26, 0.26),
        ],
        vec![[0, 1, 2]],
    )
    .expect("valid");
    let tree = MeshTree::<Aabb>::new(one);
    let d = tree.closest_point(p).expect("non-empty").distance;
    assert_eq!(
        tree.closest_point(PointQuery::within(p, d))
            .map(|a| a.distance),
        Some(d)
    );
}

/// Needles (two vertices a hair apart) and slivers (smallest angle from
/// 0.06° to 2°) among a few proper triangles, each with a point on it:
/// a needle's `f32` normal is noise, and its plane had pruned the needle
/// itself (the wrong triangle, or nothing within a limit), and the
/// region tests cancelled on slivers (a point inside a window sill came
/// out 0.05 from it). Every tree kind against both oracles, with and
/// without a maximum distance.
#[test]
fn needles_and_slivers_keep_their_nearest_points() {
    let mut rng = SplitMix(29);
    let mut checked = 0;
    for case in 0..300 {
        let a = rng.point(5.0);
        let along = rng.vector(-1.0, 1.0).normalize();
        let side = along.cross(&rng.vector(-1.0, 1.0)).normalize();
        let length = rng.range(0.5, 40.0);
        let b = a + along * length;
        let c = match case % 3 {
            // A needle: c a hair from b.
            0 => b + side * (length * 1e-7),
            // Slivers of aspect 30 to 1,000.
            _ => b + side * (length / [30.0, 100.0, 300.0, 1000.0][case % 4]),
        };
        let t = rng.range(0.0, 1.0);
        let p = a + (b - a) * t + (c - b) * (t * rng.range(0.0, 1.0));
        let mut triangles = vec![[a, b, c].map(|q| [q.x, q.y, q.z])];
        for _ in 0..1 + case % 6 {
            let q = p + rng.vector(-0.05, 0.05) * length;
            let (r, s) = (q + rng.vector(-1.0, 1.0), q + rng.vector(-1.0, 1.0));
            triangles.push([q, r, s].map(|q| [q.x, q.y, q.z]));
        }
        let mesh = triangle_soup(&triangles);
        let answer = MeshTree::<Aabb>::new(mesh.clone())
            .closest_point(p)
            .expect("a nearest point");
        check_accuracy(&mesh, &p, &answer);
        check_mesh::<Aabb>("needles", &mesh, &[p], false);
        check_mesh::<PackedObb>("needles", &mesh, &[p], false);
        check_mesh::<Obb>("needles", &mesh, &[p], false);
        check_mesh::<Sphere>("needles", &mesh, &[p], false);
        check_mesh::<Kdop14>("needles", &mesh, &[p], false);
        check_mesh::<Rss>("needles", &mesh, &[p], false);
        let within = PointQuery::within(p, answer.distance * 2.0 + 0.01);
        assert_eq!(
            MeshTree::<Aabb>::new(mesh.clone()).closest_point(within),
            brute_force(&mesh, &within),
            "case {case}"
        );
        checked += 1;
    }
    assert_eq!(checked, 300);
}

/// Every tree kind on a soup of 1e20 across, with points on and near it:
/// a sphere tree's distance to a node's centre overflowed `f32` when
/// squared, so a point inside its root sphere was infinitely far from it
/// and 57 of 200 points got a triangle 2.6% of the scale away.
#[test]
fn every_tree_kind_keeps_nearest_points_at_1e20() {
    let soup = TriMesh::random_soup(200, 1.0, 0.5, 11);
    let vertices = (soup.vertices().iter())
        .map(|v| Point::from(v.coords * 1e20))
        .collect();
    let mesh = TriMesh::new(vertices, soup.indices().to_vec()).unwrap();
    let mut rng = SplitMix(3);
    let points: Vec<Point> = (0..60)
        .map(|k| {
            mesh.triangle(TriangleId(k * 3)).centroid()
                + rng.vector(-1.0, 1.0) * 2e19 * (k % 3) as Real
        })
        .collect();
    check_mesh::<Aabb>("1e20", &mesh, &points, false);
    check_mesh::<Sphere>("1e20", &mesh, &points, false);
    check_mesh::<Obb>("1e20", &mesh, &points, false);
    check_mesh::<Rss>("1e20", &mesh, &points, false);
}
