//! Nearest point on a mesh, boxtree beside parry3d (`TriMesh` point
//! projection, `project_local_point`, not solid) on the same meshes and the
//! same points, in four bands of distance from the surface (on it, within
//! 1%, 1–10% and 10–100% of the box diagonal): one query per call, and a
//! batch on all cores.
//!
//! Run with `cargo bench --bench distance`. Each configuration prints a
//! `distance` line with ns/query and the speed-up over parry3d; criterion
//! records the same runs.

mod common;

#[path = "../tests/common/bands.rs"]
mod bands;

use std::hint::black_box;

use boxtree::{Aabb, MeshTree, PackedObb, Real, Threads, TriMesh};
use common::{SplitMix, bench_items, pp};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry3d::query::PointQuery as _;

const POINTS: usize = 25_000;
const SAMPLES: usize = 10;

/// About a million triangles of rolling terrain.
fn heightfield() -> TriMesh {
    TriMesh::terrain(707, 1000.0, 30.0, 5)
}

fn bench_mesh(c: &mut Criterion, name: &str, mesh: TriMesh) {
    let aabb = MeshTree::<Aabb>::new(mesh.clone());
    let obb = MeshTree::<PackedObb>::new(mesh.clone());
    let parry = parry3d::shape::TriMesh::new(
        mesh.vertices().iter().map(pp).collect(),
        mesh.indices().to_vec(),
    )
    .expect("valid mesh");
    let mut answers = Vec::new();
    for (band, (lo, hi)) in bands::BANDS.iter().enumerate() {
        let points = bands::points_in_band(&mesh, POINTS, 40 + band as u64, band);
        let parry_points: Vec<_> = points.iter().map(pp).collect();
        // Both answer every point; their distances agree to rounding.
        let worst = points
            .iter()
            .zip(&parry_points)
            .map(|(p, q)| {
                let ours = aabb.closest_point(p).expect("non-empty").distance;
                let theirs = (parry.project_local_point(*q, false).point - *q).length();
                (ours - theirs).abs()
            })
            .fold(0.0, Real::max);
        println!(
            "distance {name} band {:.0}-{:.0}% of the diagonal: {} triangles, {POINTS} points, largest difference from parry3d {worst:.2e}",
            lo * 100.0,
            hi * 100.0,
            mesh.len(),
        );
        type Run<'a> = Box<dyn FnMut() -> usize + 'a>;
        let runs: Vec<(&str, Run)> = vec![
            (
                "parry3d project_local_point",
                Box::new(|| {
                    parry_points
                        .iter()
                        .map(|q| black_box(parry.project_local_point(*black_box(q), false)))
                        .filter(|p| p.is_inside)
                        .count()
                }),
            ),
            (
                "aabb closest_point",
                Box::new(|| {
                    points
                        .iter()
                        .filter_map(|p| black_box(aabb.closest_point(black_box(p))))
                        .filter(|a| a.distance == 0.0)
                        .count()
                }),
            ),
            (
                "obb closest_point",
                Box::new(|| {
                    points
                        .iter()
                        .filter_map(|p| black_box(obb.closest_point(black_box(p))))
                        .filter(|a| a.distance == 0.0)
                        .count()
                }),
            ),
            (
                "aabb closest_points batch (all cores)",
                Box::new(|| {
                    aabb.closest_points(
                        black_box(&points),
                        Real::INFINITY,
                        Threads::All,
                        &mut answers,
                    );
                    answers
                        .iter()
                        .flatten()
                        .filter(|a| a.distance == 0.0)
                        .count()
                }),
            ),
        ];
        let mut group = c.benchmark_group(format!("distance/{name}/band{band}"));
        group
            .sample_size(SAMPLES)
            .throughput(Throughput::Elements(POINTS as u64));
        let mut parry_ns = 0.0;
        for (label, mut run) in runs {
            let Some(ns) = bench_items(&mut group, SAMPLES, label, POINTS, &mut run) else {
                continue;
            };
            if label.starts_with("parry3d") {
                parry_ns = ns;
            }
            let ratio = if label.starts_with("parry3d") || parry_ns == 0.0 {
                String::new()
            } else {
                format!(", speed-up over parry3d {:.2}x", parry_ns / ns)
            };
            println!("distance {name} band {band} {label}: {ns:.1} ns/query{ratio}");
        }
        group.finish();
    }
}

fn distance(c: &mut Criterion) {
    let bunny = TriMesh::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj"))
        .expect("bunny loads");
    bench_mesh(c, "bunny", bunny);
    bench_mesh(c, "heightfield", heightfield());
    let _ = SplitMix(0);
}

criterion_group!(benches, distance);
criterion_main!(benches);
