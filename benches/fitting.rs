//! Bounding-volume fitting time against the number of points: Ritter and
//! Welzl spheres, Quickhull, the two covariance OBBs and the near-minimum-volume
//! OBB, on 1k, 10k, 100k and 1M points, so the growth with `n` is visible.
//!
//! Run in `benches/` with `cargo bench --bench fitting`. Every (method, n) prints one
//! `fit` line with the median time of one fit and the nanoseconds per point;
//! criterion records the same fits. The input is a deterministic cloud
//! uniform in a rotated, shifted ellipsoid with semi-axes 4, 2 and 1 (its
//! hull grows like `√n` vertices, unlike a box's); the triangle fit gets the
//! same `n` points as `n/3` triangles of consecutive points. A method whose
//! single fit takes longer than [`CAP_SECONDS`] is not run at larger `n`, and
//! the output says so.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use boxtree::fit::{
    Hull, convex_hull, obb_from_points_hull_covariance, obb_from_points_min_volume,
    obb_from_triangles_covariance, ritter_sphere, welzl_sphere,
};
use boxtree::{Point, Triangle, Vector};
use common::{SplitMix, bench_items};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};

/// The point counts, smallest first.
const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// A method whose single fit exceeds this many seconds skips the larger sizes.
const CAP_SECONDS: f64 = 5.0;

/// `n` points uniform in the ellipsoid `(x/4)² + (y/2)² + z² ≤ 1`, rotated and shifted.
fn ellipsoid_cloud(n: usize) -> Vec<Point> {
    let mut rng = SplitMix(0xF17);
    let rotation = rng.rotation();
    let shift = Vector::new(10.0, -5.0, 3.0);
    let mut points = Vec::with_capacity(n);
    while points.len() < n {
        let unit = rng.point(1.0);
        if unit.coords.norm_squared() <= 1.0 {
            let local = Vector::new(4.0 * unit.x, 2.0 * unit.y, unit.z);
            points.push(Point::from(rotation * local + shift));
        }
    }
    points
}

/// The points as `n/3` triangles of consecutive points.
fn triangles_of(points: &[Point]) -> Vec<Triangle> {
    points
        .chunks_exact(3)
        .map(|c| Triangle::new(c[0], c[1], c[2]))
        .collect()
}

/// One fitting method: its name and a run over the inputs returning a small
/// number derived from the result, so the fit cannot be optimised away.
struct Method {
    name: &'static str,
    run: fn(&[Point], &[Triangle]) -> usize,
}

const METHODS: [Method; 6] = [
    Method {
        name: "ritter sphere",
        run: |p, _| ritter_sphere(p).map_or(0, |s| s.radius.to_bits() as usize),
    },
    Method {
        name: "welzl sphere",
        run: |p, _| welzl_sphere(p).map_or(0, |s| s.radius.to_bits() as usize),
    },
    Method {
        name: "quickhull",
        run: |p, _| match convex_hull(p) {
            Ok(Hull::Solid(h) | Hull::Flat(h)) => h.vertices.len(),
            Ok(_) | Err(_) => 0,
        },
    },
    Method {
        name: "covariance obb (hull)",
        run: |p, _| obb_from_points_hull_covariance(p).map_or(0, |o| o.volume().to_bits() as usize),
    },
    Method {
        name: "covariance obb (triangles)",
        run: |_, t| obb_from_triangles_covariance(t).map_or(0, |o| o.volume().to_bits() as usize),
    },
    Method {
        name: "min-volume obb",
        run: |p, _| obb_from_points_min_volume(p).map_or(0, |o| o.volume().to_bits() as usize),
    },
];

fn fitting(c: &mut Criterion) {
    let clouds: Vec<(Vec<Point>, Vec<Triangle>)> = SIZES
        .iter()
        .map(|&n| {
            let points = ellipsoid_cloud(n);
            let triangles = triangles_of(&points);
            (points, triangles)
        })
        .collect();
    for method in &METHODS {
        const SAMPLES: usize = 10;
        let mut group = c.benchmark_group(format!("fit/{}", method.name));
        group
            .sample_size(SAMPLES)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        for (points, triangles) in &clouds {
            let n = points.len();
            let mut run = || (method.run)(black_box(points), black_box(triangles));
            let start = Instant::now();
            let answer = run();
            let first = start.elapsed().as_secs_f64();
            if first > CAP_SECONDS {
                println!(
                    "fit {} n={n}: one fit took {first:.1} s > {CAP_SECONDS} s; capped at n={} \
                     (not timed at this or larger n)",
                    method.name,
                    n / 10
                );
                break;
            }
            let Some(ns_per_point) = bench_items(&mut group, SAMPLES, &format!("{n}"), n, &mut run)
            else {
                continue;
            };
            let median_ms = ns_per_point * n as f64 / 1e6;
            let detail = if method.name == "quickhull" {
                format!(" ({answer} hull vertices)")
            } else {
                String::new()
            };
            println!(
                "fit {} n={n}: median {median_ms:.3} ms, {ns_per_point:.1} ns/point{detail}",
                method.name
            );
        }
        group.finish();
    }
}

criterion_group!(benches, fitting);
criterion_main!(benches);
