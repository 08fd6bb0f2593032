//! Quickhull: topology (closed, consistently oriented 2-manifold, Euler's
//! formula), containment of every input point, and volume against an
//! independent O(n⁴) brute force; degenerate inputs give the typed results.

use crate::common;

use boxtree::fit::{ConvexHull, Hull, HullError, convex_hull};
use boxtree::math::nalgebra;
use boxtree::{Point, Vector};
use common::{SplitMix, isometry, point};
use proptest::prelude::*;
use std::collections::HashMap;

type V64 = nalgebra::Vector3<f64>;

fn wide(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

/// The hull's documented tolerance, recomputed from the input: `3 ε (hx + hy + hz)`.
fn tolerance(points: &[Point]) -> f64 {
    let (lo, hi) = points.iter().map(wide).fold(
        (V64::repeat(f64::INFINITY), V64::repeat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.inf(&p), hi.sup(&p)),
    );
    let half = (hi - lo) * 0.5;
    3.0 * f64::from(f32::EPSILON) * half.sum()
}

/// Allowed distance of an input point above a solid hull's face: the
/// documented tolerance (dropped points are within it of the hull, which
/// stays convex), plus 1 % for `f64` rounding.
fn slack(points: &[Point]) -> f64 {
    1.01 * tolerance(points)
}

/// Allowed distance of an input point from a flat hull's plane or outside its
/// edges: points and polygon vertices are each within the tolerance of the
/// hull's reference plane, so a plane fitted through the polygon may be
/// tilted by about twice that.
fn flat_slack(points: &[Point]) -> f64 {
    3.0 * tolerance(points)
}

/// Largest distance of any input point above the plane of any triangle.
fn worst_excursion(points: &[Point], hull: &ConvexHull) -> f64 {
    let points: Vec<_> = points.iter().map(wide).collect();
    let mut worst = f64::NEG_INFINITY;
    for t in &hull.triangles {
        let [a, b, c] = t.map(|i| wide(&hull.vertices[i as usize]));
        let Some(n) = (b - a).cross(&(c - a)).try_normalize(0.0) else {
            continue;
        };
        for p in &points {
            worst = worst.max(n.dot(&(p - a)));
        }
    }
    worst
}

fn volume(hull: &ConvexHull) -> f64 {
    let origin = wide(&hull.vertices[0]);
    hull.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| wide(&hull.vertices[i as usize]) - origin);
            a.dot(&b.cross(&c)) / 6.0
        })
        .sum()
}

/// Checks a solid hull: vertices drawn from the input, its topology, and
/// every input point within the slack of every face plane.
fn check_solid(points: &[Point], hull: &ConvexHull) -> Result<(), TestCaseError> {
    for v in &hull.vertices {
        prop_assert!(
            points.contains(v),
            "hull vertex {v:?} is not an input point"
        );
    }
    check_topology(points, hull)?;
    let worst = worst_excursion(points, hull);
    prop_assert!(
        worst <= slack(points),
        "a point lies {worst} above a face (slack {})",
        slack(points)
    );
    Ok(())
}

/// Every directed edge matched by its reverse exactly once, V − E + F = 2,
/// and positive volume.
fn check_topology(points: &[Point], hull: &ConvexHull) -> Result<(), TestCaseError> {
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for t in &hull.triangles {
        prop_assert!(
            t[0] != t[1] && t[1] != t[2] && t[2] != t[0],
            "repeated index in {t:?}"
        );
        for i in 0..3 {
            prop_assert!((t[i] as usize) < hull.vertices.len());
            *edges.entry((t[i], t[(i + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &count) in &edges {
        prop_assert_eq!(count, 1, "directed edge {:?} used {} times", (a, b), count);
        prop_assert_eq!(
            edges.get(&(b, a)),
            Some(&1),
            "edge {:?} has no opposite",
            (a, b)
        );
    }
    let (v, e, f) = (
        hull.vertices.len() as i64,
        edges.len() as i64 / 2,
        hull.triangles.len() as i64,
    );
    prop_assert_eq!(
        v - e + f,
        2,
        "Euler characteristic of V={} E={} F={}",
        v,
        e,
        f
    );
    prop_assert!(
        volume(hull) > 0.0,
        "non-positive volume for {} points",
        points.len()
    );
    Ok(())
}

fn solid(points: &[Point]) -> ConvexHull {
    match convex_hull(points) {
        Ok(Hull::Solid(h)) => {
            check_solid(points, &h).unwrap();
            h
        }
        other => panic!("expected a solid hull, got {other:?}"),
    }
}

/// The hull volume by brute force, for points in general position: a triangle
/// `(i, j, k)` is a face when every other point is strictly on one side.
fn brute_force_volume(points: &[Point]) -> f64 {
    let p: Vec<V64> = points.iter().map(wide).collect();
    let centroid = p.iter().sum::<V64>() / p.len() as f64;
    let mut total = 0.0;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            for k in j + 1..p.len() {
                let n = (p[j] - p[i]).cross(&(p[k] - p[i]));
                let side = |q: &V64| n.dot(&(q - p[i]));
                let (mut above, mut below) = (false, false);
                for (l, q) in p.iter().enumerate() {
                    if l != i && l != j && l != k {
                        above |= side(q) > 0.0;
                        below |= side(q) < 0.0;
                    }
                }
                if above != below {
                    // Cone from the centroid; sign from the face's outward side.
                    let tet =
                        (p[i] - centroid).dot(&(p[j] - centroid).cross(&(p[k] - centroid))) / 6.0;
                    total += tet.abs();
                }
            }
        }
    }
    total
}

/// Points in general position with well-separated coordinates.
fn random_cloud(rng: &mut SplitMix, n: usize, extent: f32) -> Vec<Point> {
    (0..n).map(|_| rng.point(extent)).collect()
}

fn on_sphere(rng: &mut SplitMix, n: usize, radius: f32) -> Vec<Point> {
    (0..n)
        .map(|_| {
            loop {
                let v = rng.point(1.0).coords;
                if v.norm() > 0.1 {
                    break Point::from(v.normalize() * radius);
                }
            }
        })
        .collect()
}

fn cube_corners(half: f32) -> Vec<Point> {
    (0..8)
        .map(|i| {
            let s = |bit: i32| if i & bit == 0 { -half } else { half };
            Point::new(s(1), s(2), s(4))
        })
        .collect()
}

#[test]
fn empty_input_is_an_error() {
    assert_eq!(convex_hull(&[]), Err(HullError::Empty));
}

#[test]
fn non_finite_input_reports_the_first_bad_index() {
    let mut points = cube_corners(1.0);
    points[3].y = f32::NAN;
    points[5].x = f32::INFINITY;
    assert_eq!(convex_hull(&points), Err(HullError::NonFinite { index: 3 }));
    assert_eq!(
        convex_hull(&[Point::new(0.0, f32::NEG_INFINITY, 0.0)]),
        Err(HullError::NonFinite { index: 0 })
    );
}

#[test]
fn one_point_and_its_duplicates_give_a_point() {
    let p = Point::new(1.0, -2.0, 3.5);
    assert_eq!(convex_hull(&[p]), Ok(Hull::Point(p)));
    let hull = convex_hull(&[p; 5]).unwrap();
    assert_eq!(hull, Hull::Point(p));
    assert_eq!(hull.vertices(), &[p]);
    assert!(hull.triangles().is_empty());
}

#[test]
fn two_points_give_a_segment() {
    let (a, b) = (Point::new(0.0, 0.0, 0.0), Point::new(1.0, 2.0, 3.0));
    let Ok(Hull::Segment(ends)) = convex_hull(&[a, b, a, b]) else {
        panic!("expected a segment")
    };
    assert!(ends == [a, b] || ends == [b, a]);
}

#[test]
fn collinear_points_give_the_extreme_segment() {
    let mut rng = SplitMix(7);
    let (origin, dir) = (Point::new(3.0, -1.0, 2.0), Vector::new(0.25, 0.5, -1.0));
    let mut points: Vec<Point> = (0..100)
        .map(|_| origin + dir * rng.range(-4.0, 4.0))
        .collect();
    points.push(origin + dir * 5.0);
    points.push(origin - dir * 6.0);
    points.extend_from_slice(&points.clone()[..10]);
    let Ok(Hull::Segment(ends)) = convex_hull(&points) else {
        panic!("expected a segment")
    };
    let far = [origin + dir * 5.0, origin - dir * 6.0];
    assert!(ends == far || ends == [far[1], far[0]], "{ends:?}");
    assert_eq!(convex_hull(&points).unwrap().vertices().len(), 2);
}

/// Checks a flat hull: a convex polygon whose fan triangles all face the same
/// way, containing every input point in its plane (within the slack).
fn check_flat(points: &[Point], hull: &ConvexHull) {
    let m = hull.vertices.len();
    assert!(m >= 3);
    assert_eq!(hull.triangles.len(), m - 2);
    let ring: Vec<V64> = hull.vertices.iter().map(wide).collect();
    let normal = hull
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| ring[i as usize]);
            (b - a).cross(&(c - a))
        })
        .sum::<V64>()
        .normalize();
    for t in &hull.triangles {
        let [a, b, c] = t.map(|i| ring[i as usize]);
        assert!(
            (b - a).cross(&(c - a)).dot(&normal) > 0.0,
            "triangle {t:?} flipped"
        );
    }
    let slack = flat_slack(points);
    for p in points {
        let p = wide(p);
        assert!(normal.dot(&(p - ring[0])).abs() <= slack);
        for i in 0..m {
            let (a, b) = (ring[i], ring[(i + 1) % m]);
            let inward = normal.cross(&(b - a)).normalize();
            assert!(
                inward.dot(&(p - a)) >= -slack,
                "point outside polygon edge {i}"
            );
        }
    }
}

#[test]
fn three_points_give_a_flat_triangle() {
    let points = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    ];
    let Ok(Hull::Flat(hull)) = convex_hull(&points) else {
        panic!("expected a flat hull")
    };
    assert_eq!(hull.vertices.len(), 3);
    assert_eq!(hull.triangles.len(), 1);
    check_flat(&points, &hull);
}

#[test]
fn coplanar_points_give_a_flat_polygon_with_the_brute_force_area() {
    let mut rng = SplitMix(11);
    for trial in 0..20 {
        // An axis-aligned plane (exactly coplanar) or a rotated one (rounded).
        let rotation = if trial % 2 == 0 {
            boxtree::Rotation::identity()
        } else {
            rng.rotation()
        };
        let flat: Vec<Point> = (0..50)
            .map(|_| Point::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0), 0.0))
            .collect();
        let points: Vec<Point> = flat
            .iter()
            .map(|p| rotation * p + Vector::new(1.0, 2.0, 3.0))
            .collect();
        let Ok(Hull::Flat(hull)) = convex_hull(&points) else {
            panic!("expected a flat hull")
        };
        check_flat(&points, &hull);
        // Area against the brute-force 2-D hull: edge (i, j) is a hull edge when
        // every other point is strictly left of it.
        let area: f64 = hull
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| wide(&hull.vertices[i as usize]));
                0.5 * (b - a).cross(&(c - a)).norm()
            })
            .sum();
        let q: Vec<[f64; 2]> = flat
            .iter()
            .map(|p| [f64::from(p.x), f64::from(p.y)])
            .collect();
        let mut brute = 0.0;
        for i in 0..q.len() {
            for j in 0..q.len() {
                let left = |k: usize| {
                    (q[j][0] - q[i][0]) * (q[k][1] - q[i][1])
                        - (q[j][1] - q[i][1]) * (q[k][0] - q[i][0])
                };
                if i != j && (0..q.len()).all(|k| k == i || k == j || left(k) > 0.0) {
                    brute += 0.5 * (q[i][0] * q[j][1] - q[j][0] * q[i][1]);
                }
            }
        }
        assert!(
            (area - brute).abs() <= 1e-5 * brute,
            "trial {trial}: area {area} vs {brute}"
        );
    }
}

#[test]
fn cube_corners_give_twelve_triangles() {
    let points = cube_corners(1.0);
    let hull = solid(&points);
    assert_eq!(hull.vertices.len(), 8);
    assert_eq!(hull.triangles.len(), 12);
    assert!((volume(&hull) - 8.0).abs() < 1e-12);
}

#[test]
fn cube_with_interior_face_and_duplicate_points_keeps_only_the_corners() {
    let mut rng = SplitMix(3);
    let mut points = cube_corners(2.0);
    points.extend((0..200).map(|_| rng.point(1.9)));
    points.extend(cube_corners(2.0));
    // Points exactly on the faces and edges are dropped as well.
    points.extend((0..50).map(|_| Point::new(2.0, rng.range(-2.0, 2.0), rng.range(-2.0, 2.0))));
    points.extend((0..50).map(|_| Point::new(rng.range(-2.0, 2.0), -2.0, 2.0)));
    let hull = solid(&points);
    assert_eq!(hull.vertices.len(), 8);
    assert_eq!(hull.triangles.len(), 12);
    assert!((volume(&hull) - 64.0).abs() < 1e-9);
}

#[test]
fn integer_grid_with_coplanar_faces_gives_the_box() {
    let mut points = Vec::new();
    for i in 0..5 {
        for j in 0..4 {
            for k in 0..3 {
                points.push(Point::new(i as f32, j as f32, k as f32));
            }
        }
    }
    let hull = solid(&points);
    assert_eq!(hull.vertices.len(), 8);
    assert!((volume(&hull) - 24.0).abs() < 1e-9);
}

#[test]
fn points_on_a_sphere_are_all_hull_vertices() {
    let mut rng = SplitMix(5);
    let points = on_sphere(&mut rng, 300, 10.0);
    let hull = solid(&points);
    assert_eq!(hull.vertices.len(), 300);
    assert_eq!(hull.triangles.len(), 2 * 300 - 4);
}

#[test]
fn random_clouds_give_valid_hulls_with_the_brute_force_volume() {
    let mut rng = SplitMix(17);
    for n in [4, 5, 6, 8, 10, 12, 14] {
        for _ in 0..10 {
            let points = random_cloud(&mut rng, n, 5.0);
            let hull = solid(&points);
            let brute = brute_force_volume(&points);
            assert!(
                (volume(&hull) - brute).abs() <= 1e-9 * brute.max(1.0),
                "n={n}: {} vs {brute}",
                volume(&hull)
            );
        }
    }
}

#[test]
fn large_random_clouds_give_valid_hulls() {
    let mut rng = SplitMix(19);
    for n in [100, 1000, 5000] {
        solid(&random_cloud(&mut rng, n, 100.0));
        solid(&on_sphere(&mut rng, n, 1.0));
    }
}

#[test]
fn near_coplanar_noise_gives_a_valid_flat_or_solid_hull() {
    let mut rng = SplitMix(23);
    for amplitude in [0.0, 1e-9, 1e-7, 1e-6, 1e-5, 1e-3, 1e-1] {
        for trial in 0..5 {
            let rotation = rng.rotation();
            let points: Vec<Point> = (0..400)
                .map(|_| {
                    rotation
                        * Point::new(
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                            amplitude * rng.range(-1.0, 1.0),
                        )
                })
                .collect();
            match convex_hull(&points) {
                Ok(Hull::Solid(hull)) => check_solid(&points, &hull).unwrap(),
                Ok(Hull::Flat(hull)) => {
                    assert!(
                        amplitude < 1e-5,
                        "amplitude {amplitude} trial {trial} gave a flat hull"
                    );
                    check_flat(&points, &hull);
                }
                other => panic!("amplitude {amplitude}: {other:?}"),
            }
        }
    }
}

#[test]
fn nearly_collinear_points_give_a_valid_hull() {
    let mut rng = SplitMix(29);
    for amplitude in [0.0, 1e-8, 1e-6, 1e-4] {
        let points: Vec<Point> = (0..200)
            .map(|_| {
                Point::new(
                    rng.range(-1.0, 1.0),
                    amplitude * rng.range(-1.0, 1.0),
                    amplitude * rng.range(-1.0, 1.0),
                )
            })
            .collect();
        match convex_hull(&points).unwrap() {
            Hull::Solid(hull) => check_solid(&points, &hull).unwrap(),
            Hull::Flat(hull) => check_flat(&points, &hull),
            Hull::Segment(ends) => {
                let tol = tolerance(&points);
                let (a, b) = (wide(&ends[0]), wide(&ends[1]));
                let axis = (b - a).normalize();
                for p in &points {
                    let d = wide(p) - a;
                    assert!(d.cross(&axis).norm() <= tol);
                    assert!(d.dot(&axis) >= -tol && d.dot(&axis) <= (b - a).norm() + tol);
                }
            }
            Hull::Point(_) => panic!("distinct points gave a point"),
        }
    }
}

#[test]
fn huge_tiny_and_far_from_origin_coordinates_give_valid_hulls() {
    let mut rng = SplitMix(31);
    let unit = random_cloud(&mut rng, 500, 1.0);
    for scale in [1e6f32, 1e-6, 1e30, 1e-30] {
        let points: Vec<Point> = unit.iter().map(|p| p * scale).collect();
        solid(&points);
    }
    // A unit cloud a million units away: the tolerance follows the cloud's extent.
    let offset = Vector::repeat(1e6);
    let far: Vec<Point> = unit.iter().map(|p| p + offset).collect();
    solid(&far);
}

#[test]
fn power_of_two_scaling_gives_the_same_triangles() {
    let mut rng = SplitMix(37);
    let points = random_cloud(&mut rng, 300, 3.0);
    let reference = solid(&points);
    for scale in [0.125f32, 1024.0, 2f32.powi(-60), 2f32.powi(60)] {
        let scaled: Vec<Point> = points.iter().map(|p| p * scale).collect();
        let hull = solid(&scaled);
        assert_eq!(hull.triangles, reference.triangles);
        assert_eq!(hull.vertices.len(), reference.vertices.len());
    }
}

#[test]
fn hundred_thousand_points_are_hulled() {
    let mut rng = SplitMix(41);
    let points = random_cloud(&mut rng, 100_000, 1.0);
    let Ok(Hull::Solid(hull)) = convex_hull(&points) else {
        panic!("expected a solid hull")
    };
    // Containment against a sample of the points keeps the check fast.
    let sample: Vec<Point> = points
        .iter()
        .step_by(97)
        .copied()
        .chain(hull.vertices.iter().copied())
        .collect();
    assert!(worst_excursion(&sample, &hull) <= slack(&points));
}

#[test]
fn a_million_points_are_hulled() {
    if !common::long_tests() {
        return;
    }
    let mut rng = SplitMix(43);
    for points in [
        random_cloud(&mut rng, 1_000_000, 1.0),
        on_sphere(&mut rng, 1_000_000, 1.0),
    ] {
        let start = std::time::Instant::now();
        let Ok(Hull::Solid(hull)) = convex_hull(&points) else {
            panic!("expected a solid hull")
        };
        eprintln!(
            "1e6 points: {} hull vertices in {:?}",
            hull.vertices.len(),
            start.elapsed()
        );
        check_topology(&points, &hull).unwrap();
        // Containment on a sample of points against a sample of faces.
        let sample: Vec<Point> = points.iter().step_by(1009).copied().collect();
        let faces = ConvexHull {
            vertices: hull.vertices.clone(),
            triangles: hull.triangles.iter().step_by(101).copied().collect(),
        };
        assert!(worst_excursion(&sample, &faces) <= slack(&points));
    }
}

#[test]
fn hull_triangles_match_the_index_triangles() {
    let hull = convex_hull(&cube_corners(1.0)).unwrap();
    let Hull::Solid(inner) = &hull else {
        panic!("expected a solid hull")
    };
    let shapes = hull.triangles();
    assert_eq!(shapes.len(), inner.triangles.len());
    for (i, t) in shapes.iter().enumerate() {
        assert_eq!(*t, inner.triangle(i));
        // Outward: the centre (origin) is behind every face.
        assert!(t.scaled_normal().dot(&(Point::origin() - t.a)) < 0.0);
    }
}

/// Points drawn from a small palette so that duplicates, collinear and
/// coplanar subsets are common.
fn clustered_cloud() -> impl Strategy<Value = Vec<Point>> {
    prop::collection::vec(point(4.0), 1..6).prop_flat_map(|palette| {
        let n = palette.len();
        prop::collection::vec((0..n, 0..n, -1.0f32..2.0), 1..40).prop_map(move |picks| {
            picks
                .iter()
                .map(|&(i, j, t)| palette[i] + (palette[j] - palette[i]) * t.round())
                .collect()
        })
    })
}

fn check_any(points: &[Point]) -> Result<(), TestCaseError> {
    match convex_hull(points) {
        Ok(Hull::Solid(hull)) => check_solid(points, &hull)?,
        Ok(Hull::Flat(hull)) => check_flat(points, &hull),
        Ok(Hull::Segment(ends)) => prop_assert!(ends[0] != ends[1]),
        Ok(Hull::Point(p)) => prop_assert!(points.iter().all(|q| *q == p)),
        Err(e) => prop_assert!(false, "unexpected error {e:?}"),
    }
    Ok(())
}

proptest! {
    #[test]
    fn random_small_clouds_match_the_brute_force_volume(points in prop::collection::vec(point(10.0), 4..11)) {
        if let Ok(Hull::Solid(hull)) = convex_hull(&points) {
            check_solid(&points, &hull)?;
            let brute = brute_force_volume(&points);
            // Merging points within the tolerance changes the volume by at
            // most tolerance × area; the bounding box bounds the area.
            let bound = 10.0 * tolerance(&points) * 6.0 * 20.0f64.powi(2);
            prop_assert!((volume(&hull) - brute).abs() <= bound, "{} vs {}", volume(&hull), brute);
        }
    }

    #[test]
    fn clustered_clouds_with_duplicates_and_coplanar_subsets_give_valid_hulls(points in clustered_cloud()) {
        check_any(&points)?;
    }

    #[test]
    fn hull_volume_is_invariant_under_rigid_motion(points in prop::collection::vec(point(5.0), 4..60), iso in isometry(50.0)) {
        if let Ok(Hull::Solid(hull)) = convex_hull(&points) {
            let moved: Vec<Point> = points.iter().map(|p| iso * p).collect();
            let Ok(Hull::Solid(moved_hull)) = convex_hull(&moved) else {
                return Err(TestCaseError::fail("moved hull is not solid"));
            };
            check_solid(&moved, &moved_hull)?;
            let bound = 100.0 * (tolerance(&points) + tolerance(&moved)) * 6.0 * 10.0f64.powi(2);
            prop_assert!((volume(&hull) - volume(&moved_hull)).abs() <= bound);
        }
    }
}

/// Seeded adversarial families: slabs and needles a few tolerances thick,
/// rotated integer grids and cube surfaces (coplanar up to rounding),
/// stacked circles, noisy spheres, and a cloud far from the origin.
#[test]
fn adversarial_families_give_valid_hulls() {
    let rounds = common::long_or(5000, 150);
    let mut rng = SplitMix(47);
    for round in 0..rounds {
        let rotation = rng.rotation();
        let kind = (rng.next_u64() % 7) as usize;
        let n = [10, 50, 300, 3000][(rng.next_u64() % 4) as usize];
        let thin = [1e-7f32, 5e-7, 1e-6, 2e-6, 5e-6, 1e-5][(rng.next_u64() % 6) as usize];
        let points: Vec<Point> = (0..n)
            .map(|_| match kind {
                0 => {
                    rotation
                        * Point::new(
                            rng.range(-1.0, 1.0),
                            rng.range(-1.0, 1.0),
                            thin * rng.range(-1.0, 1.0),
                        )
                }
                1 => {
                    rotation
                        * Point::new(
                            (rng.range(0.0, 5.0)).floor(),
                            (rng.range(0.0, 5.0)).floor(),
                            (rng.range(0.0, 3.0)).floor(),
                        )
                }
                2 => {
                    let a = rng.range(0.0, 6.3);
                    rotation * Point::new(a.cos(), a.sin(), (rng.range(0.0, 4.0)).floor())
                }
                3 => {
                    rotation
                        * Point::from(
                            rng.point(1.0).coords.normalize() * (1.0 + thin * rng.range(-1.0, 1.0)),
                        )
                }
                4 => {
                    rotation
                        * Point::new(
                            rng.range(-1.0, 1.0),
                            thin * rng.range(-1.0, 1.0),
                            thin * rng.range(-1.0, 1.0),
                        )
                }
                5 => {
                    // Cube surface points, rotated.
                    let mut p = rng.point(1.0);
                    let axis = (rng.next_u64() % 3) as usize;
                    p[axis] = if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 };
                    rotation * p
                }
                _ => {
                    Point::new(
                        rng.range(-1.0, 1.0),
                        rng.range(-1.0, 1.0),
                        rng.range(-1.0, 1.0),
                    ) * 1e3
                        + Vector::repeat(1e5)
                }
            })
            .collect();
        if let Err(e) = check_any(&points) {
            panic!("round {round} kind {kind} n {n} thin {thin}: {e:?}");
        }
    }
}
