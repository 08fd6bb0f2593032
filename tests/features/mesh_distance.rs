//! Distance between placed meshes against two oracles: the brute force over
//! every triangle pair with the crate's own `f32` triangle routine (which
//! pins the descent: pruning, order, ties, for every tree kind) and an
//! `f64` evaluation (which pins accuracy to `64 ε` of the coordinates).

use crate::common;

use boxtree::intersect::{triangle_distance, triangles_overlap};
use boxtree::math::{Isometry, Point, Real, Vector};
use boxtree::{
    Aabb, ErrorBound, MeshDistance, MeshTree, PackedObb, Rss, Sphere, TriMesh, TriangleId,
    TrianglePair,
};
use common::exact64::{P64, add_scaled, cross, dot, norm, p64, point_segment, point_triangle, sub};
use common::{SplitMix, data_mesh, half_size};

/// Segment–segment distance in `f64`: the four endpoint-to-segment
/// distances, and the interior stationary point when it lies inside both.
fn segment_segment(p1: P64, q1: P64, p2: P64, q2: P64) -> f64 {
    let (d1, d2, r) = (sub(q1, p1), sub(q2, p2), sub(p1, p2));
    let (a, e, f) = (dot(d1, d1), dot(d2, d2), dot(d2, r));
    let mut best = point_segment(p1, p2, q2)
        .min(point_segment(q1, p2, q2))
        .min(point_segment(p2, p1, q1))
        .min(point_segment(q2, p1, q1));
    if a > 0.0 && e > 0.0 {
        let (b, c) = (dot(d1, d2), dot(d1, r));
        let denom = a * e - b * b;
        if denom > 0.0 {
            let s = (b * f - c * e) / denom;
            let t = (a * f - b * c) / denom;
            if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
                best = best.min(norm(sub(add_scaled(p1, d1, s), add_scaled(p2, d2, t))));
            }
        }
    }
    best
}

/// True when an edge of one triangle crosses the other (`f64`).
fn edges_cross(t: [P64; 3], u: [P64; 3]) -> bool {
    let n = cross(sub(u[1], u[0]), sub(u[2], u[0]));
    if dot(n, n) == 0.0 {
        return false;
    }
    (0..3).any(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let (da, db) = (dot(sub(a, u[0]), n), dot(sub(b, u[0]), n));
        if da * db > 0.0 || da == db {
            return false;
        }
        let x = add_scaled(a, sub(b, a), da / (da - db));
        [(u[0], u[1]), (u[1], u[2]), (u[2], u[0])]
            .iter()
            .all(|&(p, q)| dot(cross(sub(q, p), sub(x, p)), n) >= 0.0)
    })
}

fn triangle_triangle(t: [P64; 3], u: [P64; 3]) -> f64 {
    if edges_cross(t, u) || edges_cross(u, t) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for i in 0..3 {
        best = best
            .min(point_triangle(t[i], u))
            .min(point_triangle(u[i], t));
        for j in 0..3 {
            best = best.min(segment_segment(t[i], t[(i + 1) % 3], u[j], u[(j + 1) % 3]));
        }
    }
    best
}

/// The mesh's triangles in world space, in `f64`.
fn world64(mesh: &TriMesh, pose: &Isometry) -> Vec<[P64; 3]> {
    let pose = pose.cast::<f64>();
    mesh.triangles()
        .map(|t| {
            [t.a, t.b, t.c].map(|v| {
                let w = pose * v.cast::<f64>();
                [w.x, w.y, w.z]
            })
        })
        .collect()
}

fn oracle(a: &[[P64; 3]], b: &[[P64; 3]]) -> f64 {
    let mut best = f64::INFINITY;
    for t in a {
        for u in b {
            best = best.min(triangle_triangle(*t, *u));
        }
    }
    best
}

/// The brute force with the crate's own routine, B moved into A's frame as
/// the descent moves it (A placed at the identity, so `R_ab` is B's rotation).
fn brute_force(a: &TriMesh, b: &TriMesh, pose_b: &Isometry) -> MeshDistance {
    let rotation = *pose_b.rotation.to_rotation_matrix().matrix();
    let moved = |p: &Point| Point::from(rotation * p.coords + pose_b.translation.vector);
    let mut best: Option<MeshDistance> = None;
    for (ib, tb) in b.triangles().enumerate() {
        let tb = boxtree::Triangle::new(moved(&tb.a), moved(&tb.b), moved(&tb.c));
        for (ia, ta) in a.triangles().enumerate() {
            let found = triangle_distance(&ta, &tb);
            let pair = TrianglePair {
                a: TriangleId(ia as u32),
                b: TriangleId(ib as u32),
            };
            let better = best.is_none_or(|b| {
                found.distance < b.distance || (found.distance == b.distance && pair < b.triangles)
            });
            if better {
                best = Some(MeshDistance {
                    distance: found.distance,
                    point_a: found.p1,
                    point_b: found.p2,
                    triangles: pair,
                });
            }
        }
    }
    best.expect("non-empty meshes")
}

fn tolerance(scale: Real) -> f64 {
    64.0 * f64::from(Real::EPSILON) * f64::from(scale)
}

fn pose(rng: &mut SplitMix, extent: Real) -> Isometry {
    Isometry::from_parts(rng.vector(-extent, extent).into(), rng.rotation())
}

fn pairs() -> Vec<(&'static str, TriMesh, TriMesh)> {
    vec![
        (
            "ball vs box",
            TriMesh::icosphere(Point::new(0.2, 0.0, -0.1), 1.0, 1),
            TriMesh::cuboid(Point::new(-0.5, -0.7, -0.3), Point::new(0.5, 0.7, 0.3)),
        ),
        (
            "soup vs ball",
            TriMesh::random_soup(60, 1.0, 0.6, 3),
            TriMesh::icosphere(Point::origin(), 0.6, 1),
        ),
        (
            "terrain vs soup",
            TriMesh::terrain(6, 2.0, 0.5, 4),
            TriMesh::random_soup(30, 0.5, 0.4, 9),
        ),
    ]
}

#[test]
fn distances_answer_as_both_oracles_on_random_poses() {
    let mut rng = SplitMix(11);
    let mut touching = 0;
    for (name, mesh_a, mesh_b) in pairs() {
        let a = MeshTree::<Aabb>::new(mesh_a.clone());
        let b = MeshTree::<Aabb>::new(mesh_b.clone());
        let a_obb = MeshTree::<PackedObb>::new(mesh_a.clone());
        let b_sphere = MeshTree::<Sphere>::new(mesh_b.clone());
        let (a_rss, b_rss) = (
            MeshTree::<Rss>::new(mesh_a.clone()),
            MeshTree::<Rss>::new(mesh_b.clone()),
        );
        let a64 = world64(&mesh_a, &Isometry::identity());
        for k in 0..700 {
            let pose_b = pose(&mut rng, if k % 2 == 0 { 1.5 } else { 4.0 });
            let placed_a = a.placed(Isometry::identity());
            let ours = placed_a
                .distance(&b.placed(pose_b), ErrorBound::EXACT)
                .expect("finite poses");
            // Exactly the brute force, and the same from every tree kind;
            // at distance 0 the pair the overlap query finds first.
            let mixed = a_obb
                .placed(Isometry::identity())
                .distance(&b_sphere.placed(pose_b), ErrorBound::EXACT)
                .expect("finite");
            let swept = a_rss
                .placed(Isometry::identity())
                .distance(&b_rss.placed(pose_b), ErrorBound::EXACT)
                .expect("finite");
            let expected = brute_force(&mesh_a, &mesh_b, &pose_b);
            if expected.distance > 0.0 {
                assert_eq!(ours, expected, "{name} {pose_b:?}");
                assert_eq!(mixed, ours, "{name} {pose_b:?}");
                assert_eq!(swept, ours, "{name} {pose_b:?}");
            } else {
                for answer in [ours, mixed, swept] {
                    assert_eq!(answer.distance, 0.0);
                    let ta = mesh_a.triangle(answer.triangles.a);
                    let tb = mesh_b.triangle(answer.triangles.b).transformed(&pose_b);
                    assert!(
                        triangles_overlap(&ta, &tb),
                        "{name}: a pair that does not touch"
                    );
                    assert_eq!(answer.point_a, answer.point_b);
                }
            }
            // Accurate: against f64, with the points on their triangles.
            let b64 = world64(&mesh_b, &pose_b);
            let scale = 8.0;
            let tol = tolerance(scale);
            let exact = oracle(&a64, &b64);
            let got = f64::from(ours.distance);
            assert!((got - exact).abs() <= tol, "{name}: {got} vs {exact}");
            let on_a = point_triangle(p64(&ours.point_a), a64[ours.triangles.a.index()]);
            let on_b = point_triangle(p64(&ours.point_b), b64[ours.triangles.b.index()]);
            assert!(
                on_a <= tol && on_b <= tol,
                "{name}: points off their triangles"
            );
            let apart = f64::from((ours.point_a - ours.point_b).norm());
            assert!(
                (apart - got).abs() <= tol,
                "{name}: points {apart} apart for {got}"
            );
            // Zero exactly when the surfaces touch.
            let overlaps = placed_a.overlaps(&b.placed(pose_b));
            assert_eq!(ours.distance == 0.0, overlaps, "{name} {pose_b:?}");
            touching += usize::from(overlaps);
        }
    }
    assert!(touching > 200, "only {touching} touching poses");
}

#[test]
fn tolerance_queries_answer_as_the_distance() {
    let mut rng = SplitMix(12);
    for (name, mesh_a, mesh_b) in pairs() {
        let a = MeshTree::<Aabb>::new(mesh_a);
        let b = MeshTree::<PackedObb>::new(mesh_b);
        for _ in 0..500 {
            let (pose_a, pose_b) = (pose(&mut rng, 2.0), pose(&mut rng, 2.0));
            let (pa, pb) = (a.placed(pose_a), b.placed(pose_b));
            let d = pa
                .distance(&pb, ErrorBound::EXACT)
                .expect("finite")
                .distance;
            assert!(pa.is_within(&pb, d), "{name}");
            if d > 0.0 {
                assert!(!pa.is_within(&pb, d.next_down()), "{name}");
            }
            let t = rng.range(0.0, 1.0);
            assert_eq!(pa.is_within(&pb, t), d <= t, "{name}");
        }
    }
}

#[test]
fn a_common_rigid_motion_keeps_the_distance() {
    let mesh = data_mesh("bunny.obj");
    let small = TriMesh::icosphere(Point::origin(), 0.02, 2);
    let a = MeshTree::<Aabb>::new(mesh);
    let b = MeshTree::<Aabb>::new(small);
    let mut rng = SplitMix(13);
    for _ in 0..200 {
        let pose_b = Isometry::translation(
            rng.range(-0.1, 0.1),
            rng.range(0.0, 0.2),
            rng.range(-0.1, 0.1),
        );
        let d = a
            .placed(Isometry::identity())
            .distance(&b.placed(pose_b), ErrorBound::EXACT)
            .expect("finite");
        let motion = pose(&mut rng, 100.0);
        let moved = a
            .placed(motion)
            .distance(&b.placed(motion * pose_b), ErrorBound::EXACT)
            .expect("finite");
        assert!(
            (moved.distance - d.distance).abs() <= 1e-4,
            "{} vs {}",
            moved.distance,
            d.distance
        );
        assert!(
            (moved.point_a - motion * d.point_a).norm() <= 1e-3 || moved.triangles != d.triangles
        );
    }
}

#[test]
fn bad_input_gives_no_answer() {
    let a = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 1));
    let b = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 1));
    let bad = Isometry::translation(Real::NAN, 0.0, 0.0);
    let good = Isometry::translation(5.0, 0.0, 0.0);
    assert_eq!(
        a.placed(bad).distance(&b.placed(good), ErrorBound::EXACT),
        None
    );
    assert_eq!(
        a.placed(good).distance(&b.placed(bad), ErrorBound::EXACT),
        None
    );
    assert!(!a.placed(bad).is_within(&b.placed(good), 10.0));
    for t in [Real::NAN, -1.0] {
        assert!(!a.placed(good).is_within(&b.placed(good), t));
    }
    // Containment without touching is a positive distance.
    let inner = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 0.5, 1));
    let d = a
        .placed(good)
        .distance(&inner.placed(good), ErrorBound::EXACT)
        .expect("finite");
    assert!(d.distance > 0.3, "{d:?}");
    let _ = Vector::zeros();
    // A mesh whose vertices leave f32's range in the other's frame (a
    // review's case): no answer, not an infinite distance with NaN points.
    let beyond = MeshTree::<Aabb>::new(
        TriMesh::new(
            vec![
                Point::new(-3e38, 0.0, 0.0),
                Point::new(-2e38, 1.0, 0.0),
                Point::new(-2e38, 0.0, 1.0),
            ],
            vec![[0, 1, 2]],
        )
        .expect("finite"),
    );
    let unit = MeshTree::<Aabb>::new(
        TriMesh::new(
            vec![
                Point::origin(),
                Point::new(1.0, 0.0, 0.0),
                Point::new(0.0, 1.0, 0.0),
            ],
            vec![[0, 1, 2]],
        )
        .expect("finite"),
    );
    let far = beyond.placed(Isometry::translation(-1.5e38, 0.0, 0.0));
    let here = unit.placed(Isometry::identity());
    assert_eq!(here.distance(&far, ErrorBound::EXACT), None);
    assert_eq!(far.distance(&here, ErrorBound::EXACT), None);
}

#[test]
fn segment_and_triangle_distances_answer_as_f64() {
    use boxtree::Segment;
    use boxtree::intersect::closest_points_segments;
    let mut rng = SplitMix(14);
    for k in 0..20_000 {
        let p1 = rng.point(2.0);
        // Zero-length, parallel and general segments.
        let q1 = if k % 7 == 0 { p1 } else { rng.point(2.0) };
        let p2 = rng.point(2.0);
        let q2 = match k % 5 {
            0 => p2,
            1 => p2 + (q1 - p1) * rng.range(-2.0, 2.0),
            _ => rng.point(2.0),
        };
        let c = closest_points_segments(&Segment::new(p1, q1), &Segment::new(p2, q2));
        let exact = segment_segment(p64(&p1), p64(&q1), p64(&p2), p64(&q2));
        let got = f64::from((c.c1 - c.c2).norm());
        assert!(
            (got - exact).abs() <= tolerance(8.0),
            "{k}: {got} vs {exact}"
        );
        assert!((0.0..=1.0).contains(&c.s) && (0.0..=1.0).contains(&c.t));
        let t1 = boxtree::Triangle::new(p1, q1, rng.point(2.0));
        let t2 = boxtree::Triangle::new(p2, q2, rng.point(2.0));
        let d = triangle_distance(&t1, &t2);
        let exact = triangle_triangle(
            [t1.a, t1.b, t1.c].map(|v| p64(&v)),
            [t2.a, t2.b, t2.c].map(|v| p64(&v)),
        );
        assert!(
            (f64::from(d.distance) - exact).abs() <= tolerance(8.0),
            "{k}: {} vs {exact}",
            d.distance
        );
        assert_eq!(
            d.distance == 0.0,
            triangles_overlap(&t1, &t2) || exact == 0.0 && d.distance == 0.0
        );
    }
}

#[test]
fn error_bounds_stay_within_their_promise() {
    let mut rng = SplitMix(15);
    let bunny = data_mesh("bunny.obj");
    let centre = bunny.aabb().center();
    let half = half_size(&bunny);
    let (a, b) = (
        MeshTree::<PackedObb>::new(bunny.clone()),
        MeshTree::<Aabb>::new(half),
    );
    let extent = bunny.aabb().half_extents() * 1.6;
    let bounds = [
        ErrorBound::relative(0.1),
        ErrorBound::absolute(0.005),
        ErrorBound {
            relative: 0.02,
            absolute: 0.001,
        },
    ];
    let mut looser = 0;
    for _ in 0..150 {
        let rotation = rng.rotation();
        let t = centre + rng.point(1.0).coords.component_mul(&extent) - rotation * centre.coords;
        let pose = Isometry::from_parts(t.coords.into(), rotation);
        let (pa, pb) = (a.placed(Isometry::identity()), b.placed(pose));
        let exact = pa.distance(&pb, ErrorBound::EXACT).expect("finite");
        for bound in bounds {
            let d = pa.distance(&pb, bound).expect("finite");
            let promise =
                (exact.distance * (1.0 + bound.relative)).max(exact.distance + bound.absolute);
            assert!(
                d.distance >= exact.distance && d.distance <= promise * (1.0 + 1e-5),
                "{bound:?}: {} for {}",
                d.distance,
                exact.distance
            );
            // The points still lie the reported distance apart.
            assert!(((d.point_a - d.point_b).norm() - d.distance).abs() <= 1e-5);
            looser += usize::from(d.distance > exact.distance);
        }
        // Nonsense bounds count as exact.
        assert_eq!(
            pa.distance(
                &pb,
                ErrorBound {
                    relative: Real::NAN,
                    absolute: -1.0
                }
            ),
            Some(exact)
        );
    }
    assert!(
        looser > 0,
        "no bound ever answered above the exact distance"
    );
}

#[test]
fn meshes_far_apart_at_large_and_small_scales_keep_their_distance() {
    // Fourth powers of edges below about 1e-10 or above about 1e9 leave
    // `f32`'s normal range: every vertex then projected onto itself and
    // cubes 2e10 apart measured 0 (and 1e-11 cubes came out too near).
    for s in [1e-11, 1e-6, 1.0, 1e6, 5e9, 1e10, 1e12] {
        let half = Vector::repeat(0.5 * s);
        let cube = TriMesh::cuboid(Point::from(-half), Point::from(half));
        let a = MeshTree::<Aabb>::new(cube.clone());
        let b = MeshTree::<PackedObb>::new(cube.clone());
        let apart = Vector::new(3.0 * s, 0.0, 0.0);
        let turned = nalgebra::UnitQuaternion::from_euler_angles(0.3, 0.2, 0.1);
        for pose_b in [
            Isometry::translation(apart.x, apart.y, apart.z),
            Isometry::from_parts(apart.into(), turned),
        ] {
            let got = a
                .placed(Isometry::identity())
                .distance(&b.placed(pose_b), ErrorBound::EXACT)
                .expect("finite")
                .distance;
            let exact = oracle(
                &world64(&cube, &Isometry::identity()),
                &world64(&cube, &pose_b),
            );
            assert!(
                (f64::from(got) - exact).abs() <= 1e-5 * exact,
                "scale {s}: {got} against {exact}"
            );
        }
        let t1 = boxtree::Triangle::new(
            Point::origin(),
            Point::new(s, 0.0, 0.0),
            Point::new(0.0, s, 0.0),
        );
        let up = Vector::new(0.0, 0.0, s);
        let t2 = boxtree::Triangle::new(t1.a + up, t1.b + up, t1.c + up);
        let d = triangle_distance(&t1, &t2).distance;
        assert!((d - s).abs() <= 1e-6 * s, "scale {s}: {d}");
    }
}

/// Crossed edges and a vertex over a face, the pairs the cubes above never
/// meet, at every scale: the edge solve multiplies four lengths (which
/// came out NaN above 4e9 and as the parallel case below 1e-11), and a
/// proper triangle's squared normal that underflowed to 0 lost its face.
#[test]
fn crossed_edges_and_a_vertex_over_a_face_keep_their_distance_at_every_scale() {
    use boxtree::Segment;
    use boxtree::intersect::closest_points_segments;
    for s in [1e-20, 1e-15, 1e-12, 1e-6, 1.0, 1e6, 4e9, 1e10, 1e12, 1e18] {
        let p = |x: Real, y: Real, z: Real| Point::new(x * s, y * s, z * s);
        // Two triangles whose nearest features are crossed edges, 0.5 s apart.
        let a = [p(-1.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 0.0, -1.0)];
        let b = [p(0.0, -1.0, 0.5), p(0.0, 1.0, 0.5), p(0.0, 0.0, 1.5)];
        // A vertex of the second 0.5 s above the face of the first.
        let face = [p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0)];
        let over = [p(0.25, 0.25, 0.5), p(0.3, 0.25, 2.0), p(0.25, 0.3, 2.0)];
        for (first, second) in [(a, b), (face, over)] {
            let [t1, t2] = [first, second].map(|[a, b, c]| boxtree::Triangle::new(a, b, c));
            let d = triangle_distance(&t1, &t2);
            let expected = 0.5 * s;
            assert!(
                (d.distance - expected).abs() <= 1e-5 * expected,
                "scale {s}: {} against {expected}",
                d.distance
            );
            let gap = (d.p1.cast::<f64>() - d.p2.cast::<f64>()).norm();
            assert!((gap - f64::from(expected)).abs() <= 1e-5 * f64::from(expected));
            let to_soup = |t: [Point; 3]| {
                TriMesh::new(t.to_vec(), vec![[0, 1, 2]]).expect("one proper triangle")
            };
            let (m1, m2) = (
                MeshTree::<Aabb>::new(to_soup(first)),
                MeshTree::<Aabb>::new(to_soup(second)),
            );
            let placed = m1
                .placed(Isometry::identity())
                .distance(&m2.placed(Isometry::identity()), ErrorBound::EXACT)
                .expect("finite");
            assert!(
                (placed.distance - expected).abs() <= 1e-5 * expected,
                "scale {s}: mesh distance {}",
                placed.distance
            );
        }
        // The segments alone: the crossed edges' nearest points.
        let c = closest_points_segments(
            &Segment::new(p(-1.0, 0.0, 0.0), p(1.0, 0.0, 0.0)),
            &Segment::new(p(0.0, -1.0, 0.5), p(0.0, 1.0, 0.5)),
        );
        assert_eq!((c.s, c.t), (0.5, 0.5), "scale {s}");
        assert_eq!(c.c1, Point::origin(), "scale {s}");
        assert_eq!(c.c2, p(0.0, 0.0, 0.5), "scale {s}");
    }
}

/// The unit right triangle in the xy plane.
const FACE: [[Real; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

/// An AABB tree over one triangle.
fn one_triangle(triangle: [[Real; 3]; 3]) -> MeshTree<Aabb> {
    MeshTree::new(common::triangle_soup(&[triangle]))
}

#[test]
fn needles_through_a_face_touch_it_in_either_order() {
    // A zero-area triangle (the segment x in [0, 2]) placed across a face:
    // mapped into the face's frame its rounded vertices have an area, so
    // it was measured as a proper triangle, apart, while the other order
    // (the face mapped into the needle's frame) answered 0.
    let face = one_triangle(FACE);
    let stick = one_triangle([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]);
    for ([w, i, j, k], [x, y, z]) in [
        (
            [-0.10253392, 0.49695265, 0.042815253, -0.8606345],
            [1.1104448, 0.051772833, 1.2354536],
        ),
        (
            [0.73707676, 0.51079273, 0.43870783, 0.05782719],
            [-0.0020745993, 0.72351503, 0.12328744],
        ),
        (
            [-0.21797104, 0.6421541, 0.73158514, 0.07007162],
            [0.6913562, -0.1623249, -0.16546476],
        ),
    ] {
        let rotation =
            nalgebra::UnitQuaternion::new_normalize(nalgebra::Quaternion::new(w, i, j, k));
        let pose = Isometry::from_parts(Vector::new(x, y, z).into(), rotation);
        let exact = oracle(
            &world64(face.mesh(), &Isometry::identity()),
            &world64(stick.mesh(), &pose),
        );
        assert_eq!(exact, 0.0, "the stick crosses the face");
        let (placed_face, placed_stick) = (face.placed(Isometry::identity()), stick.placed(pose));
        for d in [
            placed_face.distance(&placed_stick, ErrorBound::EXACT),
            placed_stick.distance(&placed_face, ErrorBound::EXACT),
        ] {
            assert_eq!(d.expect("finite").distance, 0.0, "{pose:?}");
        }
        assert!(placed_face.is_within(&placed_stick, 0.0));
    }
}

#[test]
fn tolerance_queries_hold_for_needles_and_slivers() {
    // The plane of a needle or a sliver, mapped into the other mesh's
    // frame, is rounding noise and no lower bound: `is_within` refused
    // distances up to 55 times the true one.
    let face = one_triangle(FACE);
    let mut rng = SplitMix(77);
    for thin in [
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
        [[-1.0, -1.0, 0.2], [1.0, 1.0, 0.2], [1.0, 1.000001, 0.2]],
    ] {
        let thin_tree = one_triangle(thin);
        let mesh = thin_tree.mesh().clone();
        for _ in 0..3000 {
            let pose_b = pose(&mut rng, 1.5);
            let (pa, pb) = (face.placed(Isometry::identity()), thin_tree.placed(pose_b));
            let exact = oracle(
                &world64(face.mesh(), &Isometry::identity()),
                &world64(&mesh, &pose_b),
            );
            for (first, second) in [(&pa, &pb), (&pb, &pa)] {
                let d = first
                    .distance(second, ErrorBound::EXACT)
                    .expect("finite")
                    .distance;
                assert!(
                    (f64::from(d) - exact).abs() <= 1e-5,
                    "{pose_b:?}: {d} against {exact}"
                );
                assert!(
                    first.is_within(second, d),
                    "{pose_b:?}: not within its own distance {d}"
                );
            }
        }
    }
}

/// Box gaps whose squares leave `f32`'s normal range: meshes about 2e19
/// apart (an infinite gap pruned the nearer pair, and the distance came
/// out 2.5e19 from the farther one), and meshes 1e-22 apart, where the
/// tolerance query answered false at the distance itself.
#[test]
fn gaps_beyond_f32_squares_keep_the_nearest_pair() {
    let triangle = |p: Vector, edge: Real| {
        [
            Point::from(p),
            Point::from(p + Vector::new(edge, 0.0, 0.0)),
            Point::from(p + Vector::new(0.0, edge, 0.0)),
        ]
    };
    let soup = |triangles: &[[Point; 3]]| {
        let vertices = triangles.iter().flatten().copied().collect();
        let faces = (0..triangles.len() as u32)
            .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
            .collect();
        TriMesh::new(vertices, faces).expect("valid")
    };
    let a = MeshTree::<Aabb>::new(soup(&[
        triangle(Vector::new(0.0, -6e18, 0.0), 1e13),
        triangle(Vector::zeros(), 1.0),
    ]));
    let b = MeshTree::<Aabb>::new(soup(&[triangle(Vector::new(0.0, 1.9e19, 0.0), 1e13)]));
    let (pa, pb) = (
        a.placed(Isometry::identity()),
        b.placed(Isometry::identity()),
    );
    let found = pa.distance(&pb, ErrorBound::EXACT).expect("finite");
    assert_eq!(
        found.triangles,
        TrianglePair {
            a: TriangleId(1),
            b: TriangleId(0)
        }
    );
    assert!((found.distance - 1.9e19).abs() <= 1e13, "{found:?}");
    assert!(pa.is_within(&pb, 2e19));
    assert!(!pa.is_within(&pb, 1.8e19));

    let s = (2.0 as Real).powi(-73);
    let c = 0.26;
    let a = MeshTree::<Aabb>::new(soup(&[[
        Point::origin(),
        Point::new(-s, 0.0, 0.0),
        Point::new(0.0, -s, 0.0),
    ]]));
    let b = MeshTree::<Aabb>::new(soup(&[triangle(Vector::repeat(c * s), s)]));
    let (pa, pb) = (
        a.placed(Isometry::identity()),
        b.placed(Isometry::identity()),
    );
    let d = pa
        .distance(&pb, ErrorBound::EXACT)
        .expect("finite")
        .distance;
    let expected = (3.0f64).sqrt() * f64::from(c) * f64::from(s);
    assert!((f64::from(d) - expected).abs() <= 1e-5 * expected, "{d}");
    assert!(pa.is_within(&pb, d));
}
