//! Oriented-box fitting and the covariance behind it, against independent
//! oracles: exact `f64` containment of every input point, edge-midpoint
//! quadrature for surface covariances, the generating box for points sampled
//! on a box, and brute-force face-flush boxes over brute-force hull faces.

use crate::common;

use boxtree::fit::{
    CovarianceAccumulator, CovarianceSource, Hull, convex_hull, obb_from_points_covariance,
    obb_from_points_hull_covariance, obb_from_points_min_volume, obb_from_triangles_covariance,
    obb_with_axes, point_covariance, principal_frame, triangle_covariance,
};
use boxtree::math::nalgebra;
use boxtree::{Matrix, Obb, Point, Real, Triangle, Vector};
use common::{SplitMix, isometry, matrix, octahedron, point, rotation};
use proptest::prelude::*;

type V64 = nalgebra::Vector3<f64>;
type M64 = nalgebra::Matrix3<f64>;

// ---------------------------------------------------------------------------
// Oracles and generators
// ---------------------------------------------------------------------------

/// Every point passes `contains_point`, and its exact local coordinates
/// (`f64`, from the box's own `f32` centre and axes) lie within the half-extents.
fn assert_contains_all(name: &str, obb: &Obb, points: &[Point]) {
    let axes = obb.axes.cast::<f64>();
    let center = obb.center.coords.cast::<f64>();
    let half = obb.half_extents.cast::<f64>();
    for p in points {
        assert!(obb.contains_point(p), "{name}: {p:?} not in {obb:?}");
        let local = axes.tr_mul(&(p.coords.cast::<f64>() - center));
        for i in 0..3 {
            assert!(
                local[i].abs() <= half[i],
                "{name}: {p:?} outside axis {i} of {obb:?} in exact arithmetic"
            );
        }
    }
}

/// A finite box with non-negative extents and an orthonormal right-handed frame.
fn assert_valid(name: &str, obb: &Obb) {
    assert!(
        obb.has_valid_frame(1e-5),
        "{name}: invalid frame {:?}",
        obb.axes
    );
    assert!(
        obb.center.coords.iter().all(|c| c.is_finite()),
        "{name}: centre {obb:?}"
    );
    assert!(
        obb.half_extents.iter().all(|h| h.is_finite() && *h >= 0.0),
        "{name}: extents {obb:?}"
    );
}

/// A point-cloud fitting function.
type PointFit = fn(&[Point]) -> Option<Obb>;

/// Every point fit of `points`, by name.
fn point_fits(points: &[Point]) -> Vec<(&'static str, Obb)> {
    let fits: [(&str, PointFit); 3] = [
        ("vertex covariance", obb_from_points_covariance),
        ("hull covariance", obb_from_points_hull_covariance),
        ("min volume", obb_from_points_min_volume),
    ];
    fits.iter()
        .map(|(name, fit)| {
            (
                *name,
                fit(points).unwrap_or_else(|| panic!("{name}: no box")),
            )
        })
        .collect()
}

fn check_point_fits(points: &[Point]) {
    for (name, obb) in point_fits(points) {
        assert_valid(name, &obb);
        assert_contains_all(name, &obb, points);
    }
}

/// Triangles `(p0, p1, p2), (p3, p4, p5), …` (a soup from a cloud).
fn soup(points: &[Point]) -> Vec<Triangle> {
    points
        .chunks_exact(3)
        .map(|c| Triangle::new(c[0], c[1], c[2]))
        .collect()
}

fn triangle_vertices(triangles: &[Triangle]) -> Vec<Point> {
    triangles.iter().flat_map(Triangle::vertices).collect()
}

/// A cloud: a random shape scaled by `spread` around a centre up to `offset` away.
fn cloud() -> impl Strategy<Value = Vec<Point>> {
    (
        prop::collection::vec(point(1.0), 1..40),
        prop_oneof![Just(1e-6 as Real), Just(1e-3), Just(1.0), Just(1e3)],
        prop_oneof![3 => Just(0.0 as Real), 1 => Just(1e6)],
        rotation(),
    )
        .prop_map(|(points, spread, offset, r)| {
            let shift = Vector::new(offset, -0.5 * offset, 0.25 * offset);
            points
                .iter()
                .map(|p| Point::from(r * (p.coords * spread) + shift))
                .collect()
        })
}

/// A triangle soup with some exactly degenerate triangles mixed in.
fn triangle_soup() -> impl Strategy<Value = Vec<Triangle>> {
    prop::collection::vec((point(10.0), point(10.0), point(10.0), 0u8..6), 1..30).prop_map(|ts| {
        ts.into_iter()
            .map(|(a, b, c, kind)| match kind {
                0 => Triangle::new(a, a, b), // repeated vertex
                1 => Triangle::new(a, b, Point::from((a.coords + b.coords) * 0.5)), // collinear
                _ => Triangle::new(a, b, c),
            })
            .collect()
    })
}

/// The triangles whose area is not rounding-sized: degenerate and sliver triangles
/// gain or lose their tiny area when moved in f32, which moves a surface covariance
/// (zero-area triangles are tested on their own).
fn well_shaped(triangles: Vec<Triangle>) -> Vec<Triangle> {
    let longest = |t: &Triangle| {
        t.edges()
            .iter()
            .map(|e| e.norm_squared())
            .fold(0.0, Real::max)
    };
    triangles
        .into_iter()
        .filter(|t| t.area() > 1e-3 * longest(t))
        .collect()
}

/// `n` points on the surface of the box (and its 8 corners), as in the brief's quality test.
fn box_surface_samples(obb: &Obb, n: usize, rng: &mut SplitMix) -> Vec<Point> {
    let mut points: Vec<Point> = obb.corners().to_vec();
    for _ in 0..n {
        let mut s = Vector::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        let face = (rng.next_u64() % 6) as usize;
        s[face / 2] = if face.is_multiple_of(2) { -1.0 } else { 1.0 };
        points.push(obb.from_local(&s.component_mul(&obb.half_extents)));
    }
    points
}

fn random_box(half_extents: Vector, rng: &mut SplitMix) -> Obb {
    Obb::from_rotation(rng.point(100.0), &rng.rotation(), half_extents)
}

/// Volume of the box with axes `frame` around `points`, in `f64`.
fn volume_in_frame(points: &[V64], frame: &M64) -> f64 {
    (0..3)
        .map(|i| {
            let axis = frame.column(i);
            let values = points.iter().map(|p| axis.dot(p));
            values.clone().fold(f64::NEG_INFINITY, f64::max) - values.fold(f64::INFINITY, f64::min)
        })
        .product()
}

fn widen(points: &[Point]) -> Vec<V64> {
    points.iter().map(|p| p.coords.cast::<f64>()).collect()
}

/// A unit vector perpendicular to `n`.
fn perpendicular(n: &V64) -> V64 {
    let helper = if n.x.abs() < 0.6 { V64::x() } else { V64::y() };
    n.cross(&helper).normalize()
}

/// Brute force: the smallest box flush with a hull face, each face found as a
/// triple with every point on one side, its in-plane angle sampled every 0.25°.
fn brute_force_face_flush_volume(points: &[Point]) -> f64 {
    let p = widen(points);
    let scale = p.iter().map(|v| v.amax()).fold(0.0, f64::max).max(1.0);
    let mut best = f64::INFINITY;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            for k in j + 1..p.len() {
                let Some(n) = (p[j] - p[i]).cross(&(p[k] - p[i])).try_normalize(1e-12) else {
                    continue;
                };
                let sides = p.iter().map(|q| n.dot(&(q - p[i])));
                let (lo, hi) = sides.fold((0.0f64, 0.0f64), |(lo, hi), d| (lo.min(d), hi.max(d)));
                if lo < -1e-9 * scale && hi > 1e-9 * scale {
                    continue;
                }
                let u = perpendicular(&n);
                let v = n.cross(&u);
                for step in 0..360 {
                    let angle = step as f64 * std::f64::consts::FRAC_PI_2 / 360.0;
                    let a = u * angle.cos() + v * angle.sin();
                    let frame = M64::from_columns(&[a, n.cross(&a), n]);
                    best = best.min(volume_in_frame(&p, &frame));
                }
            }
        }
    }
    best
}

/// The regular icosahedron's 12 vertices.
fn icosahedron() -> Vec<Point> {
    let g = (1.0 + (5.0 as Real).sqrt()) / 2.0;
    let mut v = Vec::new();
    for (a, b) in [(1.0, g), (1.0, -g), (-1.0, g), (-1.0, -g)] {
        v.push(Point::new(0.0, a, b));
        v.push(Point::new(a, b, 0.0));
        v.push(Point::new(b, 0.0, a));
    }
    v
}

/// `n` points of a Fibonacci sphere of radius 2.
fn sphere_samples(n: usize) -> Vec<Point> {
    let golden = std::f32::consts::PI * (3.0 - (5.0 as Real).sqrt());
    (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as Real + 0.5) / n as Real;
            let r = (1.0 - y * y).sqrt();
            let t = golden * i as Real;
            Point::new(2.0 * r * t.cos(), 2.0 * y, 2.0 * r * t.sin())
        })
        .collect()
}

fn cube_corners() -> Vec<Point> {
    (0..8)
        .map(|i| {
            Point::new(
                (i & 1) as Real,
                ((i >> 1) & 1) as Real,
                ((i >> 2) & 1) as Real,
            )
        })
        .collect()
}

/// The named degenerate and symmetric sets of the brief.
fn special_sets() -> Vec<(&'static str, Vec<Point>)> {
    let r = matrix(&SplitMix(7).rotation());
    let rotated = |points: Vec<Point>| {
        points
            .iter()
            .map(|p| Point::from(r * p.coords))
            .collect::<Vec<_>>()
    };
    let collinear: Vec<Point> = (0..10)
        .map(|i| Point::new(1.0, 2.0, 3.0) + Vector::new(0.3, -0.2, 0.7) * i as Real)
        .collect();
    let mut rng = SplitMix(11);
    let coplanar: Vec<Point> = (0..20)
        .map(|_| Point::from(r * Vector::new(rng.range(-3.0, 3.0), rng.range(-1.0, 1.0), 0.0)))
        .collect();
    let octahedron = octahedron().vertices().to_vec();
    vec![
        ("single point", vec![Point::new(3.0, -1.0, 2.0)]),
        (
            "duplicates of one point",
            vec![Point::new(0.5, 0.5, 0.5); 5],
        ),
        (
            "duplicates of three points",
            [
                Point::origin(),
                Point::new(1.0, 2.0, 0.0),
                Point::new(0.0, 0.0, 4.0),
            ]
            .repeat(4),
        ),
        (
            "two points",
            vec![Point::origin(), Point::new(1.0, 1.0, 1.0)],
        ),
        ("collinear", collinear.clone()),
        ("collinear rotated", rotated(collinear)),
        ("coplanar", coplanar),
        (
            "axis-aligned square",
            vec![
                Point::origin(),
                Point::new(1.0, 0.0, 0.0),
                Point::new(1.0, 1.0, 0.0),
                Point::new(0.0, 1.0, 0.0),
            ],
        ),
        ("cube corners", cube_corners()),
        ("cube corners rotated", rotated(cube_corners())),
        ("octahedron", octahedron.clone()),
        ("octahedron rotated", rotated(octahedron)),
        ("icosahedron", icosahedron()),
        ("icosahedron rotated", rotated(icosahedron())),
        ("sphere samples", sphere_samples(300)),
        (
            "tetrahedron",
            vec![
                Point::origin(),
                Point::new(1.0, 0.0, 0.0),
                Point::new(0.0, 1.0, 0.0),
                Point::new(0.0, 0.0, 1.0),
            ],
        ),
    ]
}

// ---------------------------------------------------------------------------
// Covariance
// ---------------------------------------------------------------------------

/// Independent oracle: the surface covariance by the edge-midpoint rule (exact for
/// quadratics), raw moments about the origin, no parallel-axis rearrangement.
fn quadrature_covariance(triangles: &[Triangle]) -> Option<(V64, M64)> {
    let mut area = 0.0;
    let mut first = V64::zeros();
    let mut second = M64::zeros();
    for t in triangles {
        let [a, b, c] = t.vertices().map(|p| p.coords.cast::<f64>());
        let w = 0.5 * (b - a).cross(&(c - a)).norm();
        for m in [(a + b) * 0.5, (b + c) * 0.5, (c + a) * 0.5] {
            first += m * (w / 3.0);
            second += m * m.transpose() * (w / 3.0);
        }
        area += w;
    }
    (area > 0.0).then(|| {
        let mean = first / area;
        (mean, second / area - mean * mean.transpose())
    })
}

fn assert_matrix_close(a: &M64, b: &M64, tolerance: f64) {
    assert!(
        (a - b).amax() <= tolerance,
        "{a} vs {b} (tolerance {tolerance})"
    );
}

proptest! {
    #[test]
    fn surface_covariance_matches_midpoint_quadrature(triangles in triangle_soup()) {
        let Some((mean, expected)) = quadrature_covariance(&triangles) else { return Ok(()) };
        let got = triangle_covariance(&triangles).expect("finite input");
        prop_assert_eq!(got.source, CovarianceSource::Surface);
        let scale = 1.0 + mean.norm_squared() + expected.amax();
        assert_matrix_close(&got.matrix, &expected, 1e-10 * scale);
        prop_assert!((got.mean.coords - mean).amax() <= 1e-12 * (1.0 + mean.amax()));
    }

    #[test]
    fn accumulator_merge_equals_direct_accumulation(triangles in triangle_soup(), split in 0.0f64..1.0, points in prop::collection::vec(point(5.0), 0..5)) {
        let k = (split * triangles.len() as f64) as usize;
        let mut left = CovarianceAccumulator::from_triangles(&triangles[..k]);
        let mut right = CovarianceAccumulator::from_triangles(&triangles[k..]);
        points.iter().for_each(|p| right.add_point(p));
        let mut direct = CovarianceAccumulator::from_triangles(&triangles);
        points.iter().for_each(|p| direct.add_point(p));
        left.merge(&right);
        prop_assert_eq!(left.vertex_count(), direct.vertex_count());
        prop_assert!((left.area() - direct.area()).abs() <= 1e-12 * direct.area());
        let (a, b) = (left.covariance().unwrap(), direct.covariance().unwrap());
        prop_assert_eq!(a.source, b.source);
        assert_matrix_close(&a.matrix, &b.matrix, 1e-10 * (1.0 + b.matrix.amax()));
        let (va, vb) = (left.vertex_covariance().unwrap(), direct.vertex_covariance().unwrap());
        assert_matrix_close(&va.matrix, &vb.matrix, 1e-10 * (1.0 + vb.matrix.amax()));
        let (ma, mb) = (left.mean().unwrap(), direct.mean().unwrap());
        prop_assert!((ma - mb).amax() <= 1e-5 * (1.0 + mb.coords.amax()));
    }

    #[test]
    fn surface_covariance_rotates_with_the_surface(triangles in triangle_soup(), motion in isometry(10.0)) {
        let triangles = well_shaped(triangles);
        let Some(before) = triangle_covariance(&triangles) else { return Ok(()) };
        let moved: Vec<Triangle> = triangles.iter().map(|t| t.transformed(&motion)).collect();
        let after = triangle_covariance(&moved).unwrap();
        prop_assert_eq!(before.source, after.source);
        let r = motion.rotation.to_rotation_matrix().matrix().cast::<f64>();
        let expected = r * before.matrix * r.transpose();
        // f32 rounding of the moved vertices (coordinates up to ~30) dominates.
        assert_matrix_close(&after.matrix, &expected, 1e-5 * (1.0 + before.matrix.amax()));
    }
}

#[test]
fn zero_area_triangles_never_feed_the_surface_covariance() {
    let base = vec![
        Triangle::new(
            Point::origin(),
            Point::new(2.0, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
        ),
        Triangle::new(
            Point::new(0.0, 0.0, 1.0),
            Point::new(1.0, 3.0, 1.0),
            Point::new(0.0, 1.0, 2.0),
        ),
    ];
    let mut with_degenerate = base.clone();
    with_degenerate.push(Triangle::new(
        Point::new(50.0, 0.0, 0.0),
        Point::new(60.0, 0.0, 0.0),
        Point::new(70.0, 0.0, 0.0),
    ));
    with_degenerate.push(Triangle::new(
        Point::new(-9.0, 9.0, 9.0),
        Point::new(-9.0, 9.0, 9.0),
        Point::new(1.0, 1.0, 1.0),
    ));
    let a = triangle_covariance(&base).unwrap();
    let b = triangle_covariance(&with_degenerate).unwrap();
    assert_eq!(a.matrix, b.matrix);
    assert_eq!(a.mean, b.mean);
    // The degenerate triangles are still inside the fitted box.
    let obb = obb_from_triangles_covariance(&with_degenerate).unwrap();
    assert_contains_all(
        "with degenerate",
        &obb,
        &triangle_vertices(&with_degenerate),
    );
}

#[test]
fn all_degenerate_triangles_fall_back_to_the_vertex_covariance() {
    let triangles = vec![
        Triangle::new(
            Point::origin(),
            Point::new(1.0, 1.0, 0.0),
            Point::new(2.0, 2.0, 0.0),
        ),
        Triangle::new(
            Point::new(0.0, 0.0, 3.0),
            Point::new(0.0, 0.0, 3.0),
            Point::new(1.0, 0.0, 3.0),
        ),
    ];
    let got = triangle_covariance(&triangles).unwrap();
    assert_eq!(got.source, CovarianceSource::Vertices);
    let expected = point_covariance(&triangle_vertices(&triangles)).unwrap();
    assert_matrix_close(&got.matrix, &expected.matrix, 1e-12);
    let obb = obb_from_triangles_covariance(&triangles).unwrap();
    assert_valid("all degenerate", &obb);
    assert_contains_all("all degenerate", &obb, &triangle_vertices(&triangles));
}

#[test]
fn point_covariance_is_the_population_covariance() {
    let points = [
        Point::new(1.0, 0.0, 0.0),
        Point::new(-1.0, 0.0, 0.0),
        Point::new(0.0, 2.0, 0.0),
        Point::new(0.0, -2.0, 4.0),
    ];
    let c = point_covariance(&points).unwrap();
    let p = widen(&points);
    let mean = p.iter().sum::<V64>() / 4.0;
    let expected = p
        .iter()
        .map(|v| (v - mean) * (v - mean).transpose())
        .sum::<M64>()
        / 4.0;
    assert_matrix_close(&c.matrix, &expected, 1e-12);
    assert_eq!(c.source, CovarianceSource::Vertices);
}

/// The unit square `[0, 1]²` tiled by a fan of `2 · segments` triangles around its diagonal.
fn diagonal_fan(width: Real, segments: usize) -> Vec<Triangle> {
    let d = |k: usize| {
        Point::new(
            width * k as Real / segments as Real,
            k as Real / segments as Real,
            0.0,
        )
    };
    (0..segments)
        .flat_map(|k| {
            [
                Triangle::new(d(k), Point::new(width, 0.0, 0.0), d(k + 1)),
                Triangle::new(d(k), d(k + 1), Point::new(0.0, 1.0, 0.0)),
            ]
        })
        .collect()
}

#[test]
fn surface_covariance_is_invariant_to_retessellation_but_vertex_covariance_is_not() {
    // A square as 2 and as 200 triangles: the same surface, the same covariance.
    let (two, many) = (diagonal_fan(1.0, 1), diagonal_fan(1.0, 100));
    assert_eq!(many.len(), 200);
    let (a, b) = (
        triangle_covariance(&two).unwrap(),
        triangle_covariance(&many).unwrap(),
    );
    assert_matrix_close(&a.matrix, &b.matrix, 1e-9);
    assert_matrix_close(
        &a.matrix,
        &M64::from_diagonal(&V64::new(1.0 / 12.0, 1.0 / 12.0, 0.0)),
        1e-9,
    );
    // The vertex covariance of the 200 triangles is not isotropic in the plane: the
    // corners (1, 0) and (0, 1), repeated 100 times, pull it along the anti-diagonal.
    let vertices = point_covariance(&triangle_vertices(&many)).unwrap();
    assert!(vertices.matrix[(0, 1)] < -0.02, "{}", vertices.matrix);

    // A 2 × 1 rectangle (distinct eigenvalues): same axes from 2 or 200 triangles...
    let (two, many) = (diagonal_fan(2.0, 1), diagonal_fan(2.0, 100));
    let (fa, fb) = (
        triangle_covariance(&two).unwrap().frame(),
        triangle_covariance(&many).unwrap().frame(),
    );
    for i in 0..3 {
        assert!(
            fa.column(i).dot(&fb.column(i)).abs() > 1.0 - 1e-6,
            "axis {i}: {fa} vs {fb}"
        );
    }
    assert!(
        fa.column(0).dot(&Vector::x()).abs() > 1.0 - 1e-6,
        "long side first: {fa}"
    );
    // ...and so the same box, the rectangle itself.
    let box_many = obb_from_triangles_covariance(&many).unwrap();
    assert!((box_many.surface_area() - 4.0).abs() < 1e-4, "{box_many:?}");
    // ...but the vertex covariance turns towards the diagonal, and its box is worse.
    let fv = point_covariance(&triangle_vertices(&many)).unwrap().frame();
    let angle = fv.column(0).dot(&Vector::x()).abs().acos().to_degrees();
    assert!(angle > 5.0, "vertex axis only {angle}° from the long side");
    let vertex_box = obb_from_points_covariance(&triangle_vertices(&many)).unwrap();
    assert!(vertex_box.surface_area() > 4.4, "{vertex_box:?}");
}

#[test]
fn principal_frame_is_a_rotation_for_repeated_and_degenerate_eigenvalues() {
    let r = matrix(&SplitMix(3).rotation()).cast::<f64>();
    let conj = |d: M64| r * d * r.transpose();
    let cases: Vec<(&str, M64)> = vec![
        ("zero", M64::zeros()),
        ("identity", M64::identity()),
        ("scaled identity", M64::identity() * 5.0),
        ("rotated scaled identity", conj(M64::identity() * 5.0)),
        (
            "double top",
            conj(M64::from_diagonal(&V64::new(2.0, 2.0, 1.0))),
        ),
        (
            "double bottom",
            conj(M64::from_diagonal(&V64::new(2.0, 1.0, 1.0))),
        ),
        ("flat", conj(M64::from_diagonal(&V64::new(1.0, 1.0, 0.0)))),
        (
            "rank one",
            conj(M64::from_diagonal(&V64::new(3.0, 0.0, 0.0))),
        ),
        (
            "near repeated",
            conj(M64::from_diagonal(&V64::new(1.0, 1.0 + 1e-15, 1.0 - 1e-15))),
        ),
        ("tiny", conj(M64::identity() * 1e-300)),
        (
            "huge",
            conj(M64::from_diagonal(&V64::new(1e300, 1e299, 1.0))),
        ),
        (
            "cube corners",
            point_covariance(&cube_corners()).unwrap().matrix,
        ),
        (
            "icosahedron",
            point_covariance(&icosahedron()).unwrap().matrix,
        ),
    ];
    for (name, m) in cases {
        let frame = principal_frame(&m);
        let obb = Obb::new(Point::origin(), frame, Vector::zeros());
        assert!(obb.has_valid_frame(1e-6), "{name}: {frame}");
    }
    for bad in [f64::NAN, f64::INFINITY] {
        let mut m = M64::identity();
        m[(1, 2)] = bad;
        assert_eq!(principal_frame(&m), Matrix::identity());
    }
}

proptest! {
    #[test]
    fn principal_frame_sorts_axes_by_decreasing_eigenvalue(r in rotation(), l in (0.1f64..10.0, 0.1f64..10.0, 0.1f64..10.0)) {
        let rotation = matrix(&r).cast::<f64>();
        let mut values = [l.0, l.1, l.2];
        values.sort_by(|a, b| b.total_cmp(a));
        prop_assume!(values[0] > values[1] * 1.01 && values[1] > values[2] * 1.01);
        let m = rotation * M64::from_diagonal(&V64::new(l.0, l.1, l.2)) * rotation.transpose();
        let frame = principal_frame(&m).cast::<f64>();
        for (i, expected) in values.iter().enumerate() {
            let axis = frame.column(i);
            let rayleigh = (axis.transpose() * m * axis)[0];
            prop_assert!((rayleigh - expected).abs() <= 1e-5 * values[0], "axis {}: {} vs {}", i, rayleigh, expected);
        }
        prop_assert!(frame.determinant() > 0.0);
    }
}

// ---------------------------------------------------------------------------
// Box fits: containment and validity
// ---------------------------------------------------------------------------

proptest! {
    #[test]
    fn every_point_fit_contains_every_input_point(points in cloud()) {
        check_point_fits(&points);
    }

    #[test]
    fn triangle_covariance_fit_moves_with_the_triangles(triangles in triangle_soup(), motion in isometry(100.0)) {
        let triangles = well_shaped(triangles);
        let Some(covariance) = triangle_covariance(&triangles) else { return Ok(()) };
        // Equivariance needs a unique frame: well-separated eigenvalues.
        let mut l = covariance.matrix.symmetric_eigenvalues();
        l.as_mut_slice().sort_by(|a, b| b.total_cmp(a));
        prop_assume!(l[0] > 1.05 * l[1] && l[1] > 1.05 * l[2] && l[2] > 1e-3 * l[0]);
        let moved: Vec<Triangle> = triangles.iter().map(|t| t.transformed(&motion)).collect();
        let (before, after) = (obb_from_triangles_covariance(&triangles).unwrap(), obb_from_triangles_covariance(&moved).unwrap());
        let expected = before.transformed(&motion);
        prop_assert!((after.volume() / before.volume() - 1.0).abs() < 1e-3, "{:?} vs {:?}", after, expected);
        prop_assert!((after.center - expected.center).norm() < 1e-3 * (1.0 + before.half_extents.norm()));
        for i in 0..3 {
            prop_assert!(after.axis(i).dot(&expected.axis(i)).abs() > 1.0 - 1e-4);
        }
    }

    #[test]
    fn triangle_covariance_fit_contains_every_vertex(triangles in triangle_soup(), motion in isometry(1e3)) {
        let moved: Vec<Triangle> = triangles.iter().map(|t| t.transformed(&motion)).collect();
        let obb = obb_from_triangles_covariance(&moved).unwrap();
        assert_valid("triangles", &obb);
        assert_contains_all("triangles", &obb, &triangle_vertices(&moved));
    }

    #[test]
    fn box_with_given_axes_contains_every_point(points in cloud(), r in rotation()) {
        let obb = obb_with_axes(&points, &matrix(&r)).unwrap();
        assert_contains_all("given axes", &obb, &points);
    }
}

#[test]
fn degenerate_and_symmetric_sets_give_valid_containing_boxes() {
    for (name, points) in special_sets() {
        for (fit, obb) in point_fits(&points) {
            let label = format!("{name} / {fit}");
            assert_valid(&label, &obb);
            assert_contains_all(&label, &obb, &points);
        }
        let triangles = soup(&points);
        if !triangles.is_empty() {
            let obb = obb_from_triangles_covariance(&triangles).unwrap();
            assert_valid(name, &obb);
            assert_contains_all(name, &obb, &triangle_vertices(&triangles));
        }
    }
}

#[test]
fn lower_dimensional_sets_give_flat_boxes() {
    let point = [Point::new(3.0, -1.0, 2.0)];
    let segment = [
        Point::new(1.0, 2.0, 3.0),
        Point::new(4.0, 0.0, 9.0),
        Point::new(2.5, 1.0, 6.0),
    ];
    for (fit, obb) in point_fits(&point) {
        assert!(obb.half_extents.amax() <= 1e-6, "{fit}: {obb:?}");
    }
    let length = (segment[1] - segment[0]).norm();
    for (fit, obb) in point_fits(&segment) {
        let mut h = obb.half_extents;
        h.as_mut_slice().sort_by(|a, b| b.total_cmp(a));
        assert!(
            (h[0] - length / 2.0).abs() <= 1e-5 * length && h[1] <= 1e-5 * length,
            "{fit}: {obb:?}"
        );
    }
}

#[test]
fn empty_or_non_finite_input_gives_none() {
    let fits: [PointFit; 3] = [
        obb_from_points_covariance,
        obb_from_points_hull_covariance,
        obb_from_points_min_volume,
    ];
    for fit in fits {
        assert_eq!(fit(&[]), None);
        for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
            assert_eq!(
                fit(&[
                    Point::origin(),
                    Point::new(1.0, bad, 0.0),
                    Point::new(0.0, 0.0, 1.0)
                ]),
                None
            );
        }
    }
    assert_eq!(obb_from_triangles_covariance(&[]), None);
    let nan_triangle = Triangle::new(
        Point::origin(),
        Point::new(Real::NAN, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    );
    let good = Triangle::new(
        Point::origin(),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    );
    assert_eq!(obb_from_triangles_covariance(&[good, nan_triangle]), None);
    assert_eq!(triangle_covariance(&[good, nan_triangle]), None);
    assert_eq!(obb_with_axes(&[], &Matrix::identity()), None);
    assert_eq!(CovarianceAccumulator::new().covariance(), None);
}

// ---------------------------------------------------------------------------
// Box fits: quality
// ---------------------------------------------------------------------------

#[test]
fn surface_covariance_fit_of_a_box_mesh_is_the_box() {
    let mut rng = SplitMix(5);
    for h in [Vector::new(3.0, 2.0, 1.0), Vector::new(0.5, 4.0, 1.5)] {
        let obb = random_box(h, &mut rng);
        let c = obb.corners();
        // Each face as two triangles (corner index bits: x = 1, y = 2, z = 4).
        let quads = [
            [0, 2, 6, 4],
            [1, 5, 7, 3],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 1, 3, 2],
            [4, 6, 7, 5],
        ];
        let mesh: Vec<Triangle> = quads
            .iter()
            .flat_map(|q| {
                [
                    Triangle::new(c[q[0]], c[q[1]], c[q[2]]),
                    Triangle::new(c[q[0]], c[q[2]], c[q[3]]),
                ]
            })
            .collect();
        let fit = obb_from_triangles_covariance(&mesh).unwrap();
        assert!(
            (fit.volume() / obb.volume() - 1.0).abs() < 1e-4,
            "{fit:?} vs {obb:?}"
        );
    }
}

#[test]
fn min_volume_fit_of_points_on_a_rotated_box_is_within_one_percent() {
    let aspects = [
        Vector::new(1.0, 1.0, 1.0),
        Vector::new(1.0, 1.01, 0.995),
        Vector::new(2.0, 1.0, 0.5),
        Vector::new(5.0, 1.0, 1.0),
        Vector::new(10.0, 3.0, 0.1),
    ];
    for seed in 0..6 {
        let mut rng = SplitMix(seed);
        for h in aspects {
            let truth = random_box(h * rng.range(0.5, 2.0), &mut rng);
            let points = box_surface_samples(&truth, 200, &mut rng);
            let fit = obb_from_points_min_volume(&points).unwrap();
            let ratio = fit.volume() / truth.volume();
            // Any box around the corners has at least the true volume (up to rounding).
            assert!(
                (1.0 - 1e-4..=1.01).contains(&ratio),
                "seed {seed}, {h:?}: ratio {ratio}"
            );
            assert_contains_all("min volume", &fit, &points);
            // Without the corners the optimum may be a little smaller than the box.
            let surface_only = &points[8..];
            let ratio = obb_from_points_min_volume(surface_only).unwrap().volume() / truth.volume();
            assert!(
                ratio <= 1.01,
                "seed {seed}, {h:?}, surface only: ratio {ratio}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn min_volume_fit_is_no_worse_than_the_statistical_fits(points in cloud()) {
        let min = obb_from_points_min_volume(&points).unwrap();
        let hull_cov = obb_from_points_hull_covariance(&points).unwrap();
        match convex_hull(&points).unwrap() {
            Hull::Solid(_) => {
                let others = [
                    hull_cov,
                    obb_from_points_covariance(&points).unwrap(),
                    obb_with_axes(&points, &Matrix::identity()).unwrap(),
                ];
                for other in others {
                    prop_assert!(min.volume() <= other.volume(), "{:?} vs {:?}", min, other);
                }
            }
            Hull::Flat(_) => prop_assert!(min.surface_area() <= hull_cov.surface_area()),
            _ => {}
        }
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn min_volume_fit_is_no_worse_than_brute_force_face_flush_boxes(points in prop::collection::vec(point(10.0), 4..12)) {
        prop_assume!(matches!(convex_hull(&points), Ok(Hull::Solid(_))));
        let oracle = brute_force_face_flush_volume(&points);
        let fit = obb_from_points_min_volume(&points).unwrap();
        // An f32 box cannot resolve its extents better than a few ε₃₂ of its size:
        // on a thin box that slack is a large share of the volume.
        let slack = f64::from(fit.surface_area() * 8.0 * Real::EPSILON * fit.half_extents.norm());
        prop_assert!(f64::from(fit.volume()) <= oracle * (1.0 + 1e-6) + slack, "{} vs {}", fit.volume(), oracle);
    }
}

#[test]
fn min_volume_fit_is_no_worse_than_a_dense_random_search() {
    for seed in 0..8 {
        let mut rng = SplitMix(100 + seed);
        let stretch = Vector::new(
            rng.range(0.2, 3.0),
            rng.range(0.2, 3.0),
            rng.range(0.2, 3.0),
        );
        let points: Vec<Point> = (0..30)
            .map(|_| Point::from(rng.point(1.0).coords.component_mul(&stretch)))
            .collect();
        let p = widen(&points);
        let oracle = (0..20_000)
            .map(|_| volume_in_frame(&p, &matrix(&rng.rotation()).cast::<f64>()))
            .fold(f64::INFINITY, f64::min);
        let fit = obb_from_points_min_volume(&points).unwrap();
        assert!(
            f64::from(fit.volume()) <= oracle * (1.0 + 1e-3),
            "seed {seed}: {} vs {oracle}",
            fit.volume()
        );
    }
}

#[test]
fn min_volume_fit_of_coplanar_points_has_the_minimum_area_rectangle() {
    for seed in 0..10 {
        let mut rng = SplitMix(200 + seed);
        let r = matrix(&rng.rotation());
        let local: Vec<V64> = (0..15)
            .map(|_| {
                V64::new(
                    rng.range(-3.0, 3.0) as f64,
                    rng.range(-1.0, 1.0) as f64,
                    0.0,
                )
            })
            .collect();
        let points: Vec<Point> = local
            .iter()
            .map(|v| Point::from(r * v.cast::<Real>()))
            .collect();
        // Oracle: the in-plane rectangle over 36 000 sampled angles.
        let oracle = (0..36_000)
            .map(|k| {
                let a = k as f64 * std::f64::consts::FRAC_PI_2 / 36_000.0;
                let span = |d: V64| {
                    let values = local.iter().map(|v| d.dot(v));
                    values.clone().fold(f64::NEG_INFINITY, f64::max)
                        - values.fold(f64::INFINITY, f64::min)
                };
                span(V64::new(a.cos(), a.sin(), 0.0)) * span(V64::new(-a.sin(), a.cos(), 0.0))
            })
            .fold(f64::INFINITY, f64::min);
        let fit = obb_from_points_min_volume(&points).unwrap();
        let h = fit.half_extents.cast::<f64>();
        let area = 4.0 * (h.x * h.y).max(h.y * h.z).max(h.z * h.x);
        assert!(
            area <= oracle * (1.0 + 1e-4),
            "seed {seed}: {area} vs {oracle}"
        );
        assert!(h.amin() <= 1e-5 * h.amax(), "seed {seed}: thickness {h}");
        assert_contains_all("coplanar", &fit, &points);
    }
}
