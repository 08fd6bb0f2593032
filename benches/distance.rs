//! Nearest point on a mesh, boxtree beside parry3d (`TriMesh` point
//! projection, `project_local_point`, not solid) on the same meshes and the
//! same points, in four bands of distance from the surface (on it, within
//! 1%, 1–10% and 10–100% of the box diagonal): one query per call, and a
//! batch on all cores.
//!
//! Mesh to mesh: FCL's env vs rob and the bunny against a half-size copy,
//! at random poses, boxtree's `PlacedMesh::distance` and `is_within`
//! beside parry3d's `query::distance` (TriMesh against TriMesh).
//!
//! Run with `cargo bench --bench distance`. Each configuration prints a
//! `distance` line with ns/query and the speed-up over parry3d; criterion
//! records the same runs.

mod common;

#[path = "../tests/common/bands.rs"]
mod bands;

use std::hint::black_box;

use boxtree::{Aabb, Isometry, MeshTree, PackedObb, Real, Threads, TriMesh};
use common::{SplitMix, bench_items, pp, prot, pv};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry3d::query::PointQuery as _;

const POINTS: usize = 25_000;
/// Fewer points on the million-triangle mesh, whose far bands take parry3d
/// tens of microseconds a point.
const HEIGHTFIELD_POINTS: usize = 5_000;
/// Poses per mesh pair (parry3d's mesh–mesh distance takes up to a millisecond).
const POSES: usize = 300;
const SAMPLES: usize = 10;

/// About a million triangles of rolling terrain.
fn heightfield() -> TriMesh {
    TriMesh::terrain(707, 1000.0, 30.0, 5)
}

fn bench_mesh(c: &mut Criterion, name: &str, mesh: TriMesh, count: usize) {
    let aabb = MeshTree::<Aabb>::new(mesh.clone());
    let obb = MeshTree::<PackedObb>::new(mesh.clone());
    let parry = parry3d::shape::TriMesh::new(
        mesh.vertices().iter().map(pp).collect(),
        mesh.indices().to_vec(),
    )
    .expect("valid mesh");
    let mut answers = Vec::new();
    for (band, (lo, hi)) in bands::BANDS.iter().enumerate() {
        let points = bands::points_in_band(&mesh, count, 40 + band as u64, band);
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
            "distance {name} band {:.0}-{:.0}% of the diagonal: {} triangles, {count} points, largest difference from parry3d {worst:.2e}",
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
            .throughput(Throughput::Elements(count as u64));
        let mut parry_ns = 0.0;
        for (label, mut run) in runs {
            let Some(ns) = bench_items(&mut group, SAMPLES, label, count, &mut run) else {
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

fn parry_mesh(mesh: &TriMesh) -> parry3d::shape::TriMesh {
    parry3d::shape::TriMesh::new(
        mesh.vertices().iter().map(pp).collect(),
        mesh.indices().to_vec(),
    )
    .expect("valid mesh")
}

fn parry_pose(pose: &Isometry) -> parry3d::math::Pose {
    parry3d::math::Pose::from_parts(pv(&pose.translation.vector), prot(&pose.rotation))
}

/// Mesh–mesh distance at `poses` of B (A at the identity).
fn bench_pair(c: &mut Criterion, name: &str, a: &TriMesh, b: &TriMesh, poses: &[Isometry]) {
    let (aabb_a, aabb_b) = (
        MeshTree::<Aabb>::new(a.clone()),
        MeshTree::<Aabb>::new(b.clone()),
    );
    let (obb_a, obb_b) = (
        MeshTree::<PackedObb>::new(a.clone()),
        MeshTree::<PackedObb>::new(b.clone()),
    );
    let (parry_a, parry_b) = (parry_mesh(a), parry_mesh(b));
    let parry_poses: Vec<_> = poses.iter().map(parry_pose).collect();
    let identity = parry3d::math::Pose::identity();
    let at = Isometry::identity();
    let distances: Vec<Real> = poses
        .iter()
        .map(|p| {
            aabb_a
                .placed(at)
                .distance(&aabb_b.placed(*p))
                .expect("finite")
                .distance
        })
        .collect();
    let (mut worst, mut touching) = (0.0, 0);
    for (d, p) in distances.iter().zip(&parry_poses) {
        let theirs = parry3d::query::distance(&identity, &parry_a, p, &parry_b).expect("supported");
        worst = Real::max(worst, (d - theirs.distance).abs());
        touching += usize::from(*d == 0.0);
    }
    // The tolerance query asks about the median distance: half yes, half no.
    let mut sorted = distances.clone();
    sorted.sort_by(Real::total_cmp);
    let tolerance = sorted[sorted.len() / 2];
    println!(
        "distance {name}: {} vs {} triangles, {} poses ({touching} touching), largest difference from parry3d {worst:.2e}; tolerance query at the median distance {tolerance:.3e}",
        a.len(),
        b.len(),
        poses.len()
    );
    type Run<'a> = Box<dyn FnMut() -> usize + 'a>;
    let runs: Vec<(&str, Run)> = vec![
        (
            "parry3d query::distance",
            Box::new(|| {
                parry_poses
                    .iter()
                    .map(|p| {
                        black_box(parry3d::query::distance(
                            &identity,
                            &parry_a,
                            black_box(p),
                            &parry_b,
                        ))
                    })
                    .filter(|d| d.as_ref().is_ok_and(|d| d.distance == 0.0))
                    .count()
            }),
        ),
        (
            "aabb distance",
            Box::new(|| {
                poses
                    .iter()
                    .filter_map(|p| {
                        black_box(aabb_a.placed(at).distance(&aabb_b.placed(*black_box(p))))
                    })
                    .filter(|d| d.distance == 0.0)
                    .count()
            }),
        ),
        (
            "obb distance",
            Box::new(|| {
                poses
                    .iter()
                    .filter_map(|p| {
                        black_box(obb_a.placed(at).distance(&obb_b.placed(*black_box(p))))
                    })
                    .filter(|d| d.distance == 0.0)
                    .count()
            }),
        ),
        (
            "aabb is_within (median distance)",
            Box::new(|| {
                poses
                    .iter()
                    .filter(|p| {
                        black_box(
                            aabb_a
                                .placed(at)
                                .is_within(&aabb_b.placed(**black_box(p)), tolerance),
                        )
                    })
                    .count()
            }),
        ),
        (
            "obb is_within (median distance)",
            Box::new(|| {
                poses
                    .iter()
                    .filter(|p| {
                        black_box(
                            obb_a
                                .placed(at)
                                .is_within(&obb_b.placed(**black_box(p)), tolerance),
                        )
                    })
                    .count()
            }),
        ),
    ];
    let mut group = c.benchmark_group(format!("distance/{name}"));
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(poses.len() as u64));
    let mut parry_ns = 0.0;
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, poses.len(), &mut run) else {
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
        println!("distance {name} {label}: {:.2} us/pose{ratio}", ns / 1e3);
    }
    group.finish();
}

fn load(name: &str) -> TriMesh {
    TriMesh::load(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).expect("mesh loads")
}

fn distance(c: &mut Criterion) {
    let bunny = load("bunny.obj");
    bench_mesh(c, "bunny", bunny.clone(), POINTS);
    bench_mesh(c, "heightfield", heightfield(), HEIGHTFIELD_POINTS);

    // FCL's own pair: rob anywhere in env's box, any rotation.
    let (env, rob) = (load("env.obj"), load("rob.obj"));
    let bounds = env.aabb();
    let mut rng = SplitMix(1999);
    let poses: Vec<Isometry> = (0..POSES)
        .map(|_| {
            let t = bounds.center() + rng.point(1.0).coords.component_mul(&bounds.half_extents());
            Isometry::from_parts(t.coords.into(), rng.rotation())
        })
        .collect();
    bench_pair(c, "env vs rob", &env, &rob, &poses);

    // The bunny against a copy half its size (about its box centre), turned
    // at random and moved within 1.45 times its box.
    let centre = bunny.aabb().center();
    let half = TriMesh::new(
        bunny
            .vertices()
            .iter()
            .map(|v| centre + (v - centre) * 0.5)
            .collect(),
        bunny.indices().to_vec(),
    )
    .expect("valid");
    let extent = bunny.aabb().half_extents() * 1.45;
    let poses: Vec<Isometry> = (0..POSES)
        .map(|_| {
            let rotation = rng.rotation();
            let t =
                centre + rng.point(1.0).coords.component_mul(&extent) - rotation * centre.coords;
            Isometry::from_parts(t.coords.into(), rotation)
        })
        .collect();
    bench_pair(c, "bunny vs half bunny", &bunny, &half, &poses);
}

criterion_group!(benches, distance);
criterion_main!(benches);
