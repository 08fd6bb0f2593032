//! The numbers behind `examples/fitting_table.rs`, against independent oracles:
//! closed-form volumes and a seeded Monte Carlo count for the exact k-DOP-26
//! volume, brute-force containment and the mesh's own enclosed volume for
//! every fit, a sampled-rotation search for the minimum-volume box, and the
//! half-diameter lower bound and a Bădoiu–Clarkson upper bound for Welzl's
//! sphere.

use crate::common;

#[path = "../../examples/fitting_table.rs"]
#[allow(dead_code)]
mod table;

use std::time::Duration;

use boxtree::fit::{Hull, convex_hull};
use boxtree::math::nalgebra;
use boxtree::{Kdop26, Point, TriMesh};
use common::{SplitMix, octahedron, point};
use proptest::prelude::*;
use table::{Row, kdop_volume, measure};

type V64 = nalgebra::Vector3<f64>;

fn bunny() -> TriMesh {
    TriMesh::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj"))
        .expect("bunny.obj loads")
}

fn bunny_row() -> Row {
    measure("bunny", &bunny(), Duration::ZERO)
}

fn wide(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

fn assert_relative_eq(actual: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tolerance * expected.abs(),
        "{what}: {actual} vs {expected} (relative tolerance {tolerance})"
    );
}

/// The volume of the points' convex hull (divergence theorem over the hull's triangles); 0 if flat.
fn hull_volume(points: &[Point]) -> f64 {
    match convex_hull(points) {
        Ok(Hull::Solid(hull)) => (0..hull.triangles.len())
            .map(|i| {
                let [a, b, c] = hull.triangle(i).vertices().map(|p| wide(&p));
                a.dot(&b.cross(&c)) / 6.0
            })
            .sum(),
        _ => 0.0,
    }
}

/// The cube of the points' AABB diagonal: the scale of the clipping's rounding error.
fn diagonal_cubed(points: &[Point]) -> f64 {
    let aabb = boxtree::Aabb::from_points(points);
    (aabb.max - aabb.min).cast::<f64>().norm().powi(3)
}

/// Uniform in `[0, 1)` with 53 random bits.
fn unit(rng: &mut SplitMix) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

// ---------------------------------------------------------------------------
// Exact k-DOP-26 volume
// ---------------------------------------------------------------------------

#[test]
fn kdop_volume_of_a_box_is_the_box() {
    let corners: Vec<Point> = (0..8)
        .map(|i| {
            Point::new(
                if i & 1 == 0 { -1.0 } else { 2.0 },
                if i & 2 == 0 { 0.0 } else { 1.0 },
                if i & 4 == 0 { 3.0 } else { 5.0 },
            )
        })
        .collect();
    assert_relative_eq(
        kdop_volume(&Kdop26::from_points(&corners)),
        6.0,
        1e-12,
        "box",
    );
}

#[test]
fn kdop_volume_of_an_octahedron_is_four_thirds() {
    // Its faces lie on the corner-diagonal slabs |±x ± y ± z| ≤ 1.
    let vertices = octahedron().vertices().to_vec();
    assert_relative_eq(
        kdop_volume(&Kdop26::from_points(&vertices)),
        4.0 / 3.0,
        1e-12,
        "octahedron",
    );
}

#[test]
fn kdop_volume_of_a_regular_tetrahedron_is_eight_thirds() {
    // Alternate cube corners: the cube minus four corner tetrahedra of volume 4/3.
    let vertices = [
        Point::new(1.0, 1.0, 1.0),
        Point::new(1.0, -1.0, -1.0),
        Point::new(-1.0, 1.0, -1.0),
        Point::new(-1.0, -1.0, 1.0),
    ];
    assert_relative_eq(
        kdop_volume(&Kdop26::from_points(&vertices)),
        8.0 / 3.0,
        1e-12,
        "tetrahedron",
    );
}

#[test]
fn kdop_volume_of_a_single_point_or_flat_set_is_zero() {
    assert_eq!(
        kdop_volume(&Kdop26::from_points(&[Point::new(1.0, 2.0, 3.0)])),
        0.0
    );
    let flat = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
    ];
    assert_eq!(kdop_volume(&Kdop26::from_points(&flat)), 0.0);
    assert_eq!(kdop_volume(&Kdop26::EMPTY), 0.0);
}

#[test]
fn kdop_volume_of_every_table_mesh_matches_monte_carlo() {
    for (name, mesh) in table::meshes() {
        let kdop = Kdop26::from_points(mesh.vertices());
        let directions = Kdop26::directions().map(|d| d.cast::<f64>());
        let (min, max) = (kdop.min().map(f64::from), kdop.max().map(f64::from));
        let mut rng = SplitMix(26);
        const SAMPLES: usize = 400_000;
        let inside = (0..SAMPLES)
            .filter(|_| {
                let p = V64::from_fn(|i, _| min[i] + (max[i] - min[i]) * unit(&mut rng));
                (0..13).all(|i| {
                    let s = directions[i].dot(&p);
                    min[i] <= s && s <= max[i]
                })
            })
            .count();
        let fraction = inside as f64 / SAMPLES as f64;
        let box_volume: f64 = (0..3).map(|i| max[i] - min[i]).product();
        // Five standard errors of the binomial count.
        let tolerance = 5.0 * (fraction * (1.0 - fraction) / SAMPLES as f64).sqrt() / fraction;
        assert_relative_eq(kdop_volume(&kdop), fraction * box_volume, tolerance, &name);
    }
}

proptest! {
    #[test]
    fn kdop_volume_lies_between_hull_and_box(points in prop::collection::vec(point(10.0), 4..40)) {
        let kdop = Kdop26::from_points(&points);
        let volume = kdop_volume(&kdop);
        let aabb = kdop.to_aabb();
        let box_volume = (aabb.max - aabb.min).cast::<f64>().product();
        let hull = hull_volume(&points);
        // The hull's f32 tolerance and f64 rounding: far below 1e-6 of these volumes.
        let slack = 1e-6 * box_volume;
        prop_assert!(hull <= volume + slack, "hull {hull} > k-DOP {volume}");
        prop_assert!(volume <= box_volume + slack, "k-DOP {volume} > box {box_volume}");
    }

    #[test]
    fn kdop_volume_is_invariant_under_axis_permutation_and_reflection(
        points in prop::collection::vec(point(10.0), 4..40),
        permutation in 0usize..6,
        signs in 0u8..8,
    ) {
        // The 26 directions are mapped onto themselves, so the slabs only trade
        // places, but `x + y + z` is summed in another order in f32: each slab
        // value may move by a couple of ulps of `|x| + |y| + |z|`, which moves
        // the volume by at most the surface area (≤ 2·diagonal²) times that.
        let axes = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]][permutation];
        let moved: Vec<Point> = points
            .iter()
            .map(|p| Point::from(boxtree::Vector::from_fn(|i, _| if signs >> i & 1 == 1 { -p[axes[i]] } else { p[axes[i]] })))
            .collect();
        let (a, b) = (kdop_volume(&Kdop26::from_points(&points)), kdop_volume(&Kdop26::from_points(&moved)));
        let reach = points.iter().map(|p| p.coords.abs().sum()).fold(0.0, f32::max);
        let slab_shift = 4.0 * f64::from(f32::EPSILON) * f64::from(reach);
        let slack = 2.0 * diagonal_cubed(&points).powf(2.0 / 3.0) * slab_shift + 1e-9 * diagonal_cubed(&points);
        prop_assert!((a - b).abs() <= slack, "{a} vs {b}");
    }

    #[test]
    fn kdop_volume_scales_with_the_cube_of_the_size(
        points in prop::collection::vec(point(10.0), 4..40),
        exponent in prop::sample::select(vec![-20i32, -1, 1, 20]),
    ) {
        // Scaling by a power of two is exact in f32, tiny (1e-6) to huge (1e7) coordinates.
        let scale = 2.0f32.powi(exponent);
        let scaled: Vec<Point> = points.iter().map(|p| Point::from(p.coords * scale)).collect();
        let (a, b) = (kdop_volume(&Kdop26::from_points(&points)), kdop_volume(&Kdop26::from_points(&scaled)));
        let expected = a * f64::from(scale).powi(3);
        prop_assert!((expected - b).abs() <= 1e-9 * diagonal_cubed(&scaled), "{a} · {scale}³ vs {b}");
    }
}

// ---------------------------------------------------------------------------
// The bunny row of the table
// ---------------------------------------------------------------------------

#[test]
fn every_bunny_fit_contains_every_vertex_and_the_enclosed_volume() {
    let mesh = bunny();
    let row = measure("bunny", &mesh, Duration::ZERO);
    let fits = &row.fits;
    for p in mesh.vertices() {
        assert!(fits.aabb.contains_point(p), "AABB misses {p:?}");
        assert!(fits.kdop26.contains_point(p), "k-DOP misses {p:?}");
        assert!(
            fits.obb_hull_covariance.contains_point(p),
            "hull covariance OBB misses {p:?}"
        );
        assert!(
            fits.obb_triangle_covariance.contains_point(p),
            "triangle covariance OBB misses {p:?}"
        );
        assert!(
            fits.obb_min_volume.contains_point(p),
            "min-volume OBB misses {p:?}"
        );
        assert!(fits.ritter.contains_point(p), "Ritter misses {p:?}");
        assert!(fits.welzl.contains_point(p), "Welzl misses {p:?}");
    }
    // The bunny is closed and outward-oriented: its own volume bounds every fit from below.
    let enclosed: f64 = mesh
        .triangles()
        .map(|t| {
            let [a, b, c] = t.vertices().map(|p| wide(&p));
            a.dot(&b.cross(&c)) / 6.0
        })
        .sum();
    assert!(enclosed > 0.0);
    for (name, volume) in table::PerFit::HEADERS.iter().zip(row.volumes.values()) {
        assert!(
            enclosed <= volume,
            "{name}: {volume} below the bunny's own volume {enclosed}"
        );
    }
}

#[test]
fn bunny_kdop_is_no_larger_than_its_aabb() {
    let volumes = bunny_row().volumes;
    assert!(volumes.kdop26 <= volumes.aabb, "{volumes:?}");
}

#[test]
fn bunny_min_volume_obb_beats_both_covariance_fits_and_every_sampled_rotation() {
    let mesh = bunny();
    let volumes = measure("bunny", &mesh, Duration::ZERO).volumes;
    assert!(
        volumes.obb_min_volume <= volumes.obb_hull_covariance,
        "{volumes:?}"
    );
    assert!(
        volumes.obb_min_volume <= volumes.obb_triangle_covariance,
        "{volumes:?}"
    );
    // Oracle: the tightest box over 2000 seeded random orientations, in f64.
    let points: Vec<V64> = mesh.vertices().iter().map(wide).collect();
    let mut rng = SplitMix(2000);
    let sampled = (0..2000)
        .map(|_| {
            let axes = rng
                .rotation()
                .to_rotation_matrix()
                .into_inner()
                .cast::<f64>();
            let (lo, hi) = points.iter().fold(
                (V64::repeat(f64::INFINITY), V64::repeat(f64::NEG_INFINITY)),
                |(lo, hi), p| {
                    let local = axes.tr_mul(p);
                    (lo.inf(&local), hi.sup(&local))
                },
            );
            (hi - lo).product()
        })
        .fold(f64::INFINITY, f64::min);
    assert!(
        volumes.obb_min_volume <= sampled,
        "min-volume OBB {} > best sampled box {sampled}",
        volumes.obb_min_volume
    );
}

#[test]
fn bunny_welzl_sphere_is_minimal_between_half_diameter_and_an_iterative_upper_bound() {
    let mesh = bunny();
    let fits = measure("bunny", &mesh, Duration::ZERO).fits;
    let (welzl, ritter) = (f64::from(fits.welzl.radius), f64::from(fits.ritter.radius));
    assert!(welzl <= ritter, "Welzl {welzl} > Ritter {ritter}");
    let points: Vec<V64> = mesh.vertices().iter().map(wide).collect();
    // Lower bound: any enclosing sphere's radius is at least half the diameter (brute force).
    let diameter = points
        .iter()
        .enumerate()
        .flat_map(|(i, a)| points[i + 1..].iter().map(move |b| (a - b).norm()))
        .fold(0.0, f64::max);
    assert!(
        diameter / 2.0 <= welzl,
        "Welzl {welzl} below half the diameter {diameter}"
    );
    // Upper bound: Bădoiu–Clarkson's core-set iteration (step towards the
    // farthest point by 1/(k+1)); any centre's farthest distance bounds the
    // minimum from above, and after 10⁴ steps it is within 1 % of it.
    let farthest = |c: &V64| points.iter().map(|p| (p - c).norm()).fold(0.0, f64::max);
    let mut center = points[0];
    for k in 1..10_000 {
        let far = *points
            .iter()
            .max_by(|a, b| {
                (*a - center)
                    .norm_squared()
                    .total_cmp(&(*b - center).norm_squared())
            })
            .expect("the bunny has vertices");
        center += (far - center) / (k as f64 + 1.0);
    }
    let upper = farthest(&center);
    // Welzl's radius carries the f32 rounding of its centre and radius (module doc of fit::sphere).
    assert!(
        welzl <= upper * (1.0 + 1e-6),
        "Welzl {welzl} above the upper bound {upper}"
    );
    assert!(
        ritter > upper,
        "Ritter {ritter} should be measurably above the minimum (≤ {upper})"
    );
}
