//! Line-of-sight (any-hit) and closest-hit segment queries, boxtree beside
//! parry3d on the same mesh and the same 1,000,000 fixed camera-to-target
//! segments: one query per call, a batch answered on one thread (whose
//! descents are interleaved to overlap memory latency), and a batch on all
//! cores.
//!
//! Run with `cargo bench --bench raycast`. Each configuration prints a
//! `raycast` line with ns/query, Mrays/s, the blocked fraction and the
//! speed-up over parry3d; criterion records the same runs.

mod common;

use std::hint::black_box;

use boxtree::bvh::BuildOptions;
use boxtree::{Aabb, MeshTree, PackedObb, Point, Ray, Segment, Threads, TriMesh};
use common::{SplitMix, bench_items, parry_mesh, pp, pv};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry3d::query::RayCast;

const SEGMENTS: usize = 1_000_000;

/// About a million triangles: rolling terrain with 48 detailed spheres on it.
fn procedural_scene() -> TriMesh {
    let mut scene = TriMesh::terrain(600, 1000.0, 30.0, 5);
    let mut rng = SplitMix(17);
    for _ in 0..48 {
        let c = Point::new(
            rng.range(-450.0, 450.0),
            rng.range(-450.0, 450.0),
            rng.range(10.0, 40.0),
        );
        scene = scene.merged(&TriMesh::icosphere(c, rng.range(5.0, 25.0), 5));
    }
    scene
}

/// Camera-to-target segments: eyes above the scene, targets inside its box.
fn segments(mesh: &TriMesh, seed: u64, eye_lift: f32) -> Vec<Segment> {
    let bounds = mesh.aabb();
    let (c, h) = (bounds.center(), bounds.half_extents());
    let mut rng = SplitMix(seed);
    (0..SEGMENTS)
        .map(|_| {
            let mut eye = c + rng.point(1.0).coords.component_mul(&h);
            eye.z = bounds.max.z + eye_lift * h.z * rng.range(0.0, 1.0);
            let target = c + rng.point(1.0).coords.component_mul(&h);
            Segment::new(eye, target)
        })
        .collect()
}

fn bench_mesh(c: &mut Criterion, name: &str, mesh: TriMesh, segments: &[Segment]) {
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let obb = MeshTree::<PackedObb>::build(mesh.clone(), &BuildOptions::gottschalk());
    let parry = parry_mesh(&mesh);
    let rays: Vec<Ray> = segments.iter().map(Segment::to_ray).collect();
    // Batch answers go into buffers reused across iterations, as a game
    // reuses them across frames.
    let mut any_answers = Vec::new();
    let mut closest_answers = Vec::new();
    let mut pooled_answers = Vec::new();
    let parry_rays: Vec<parry3d::query::Ray> = segments
        .iter()
        .map(|s| parry3d::query::Ray::new(pp(&s.a), pv(&s.direction())))
        .collect();

    let blocked = segments
        .iter()
        .filter(|s| aabb.any_hit(*s).is_some())
        .count();
    let parry_blocked = parry_rays
        .iter()
        .filter(|r| parry.intersects_local_ray(r, 1.0))
        .count();
    println!(
        "raycast {name}: {} triangles, {SEGMENTS} segments, {:.1}% blocked (parry3d agrees on {:.1}%)",
        mesh.len(),
        100.0 * blocked as f64 / SEGMENTS as f64,
        100.0 * parry_blocked as f64 / SEGMENTS as f64
    );
    let per_triangle = |bytes: usize| bytes as f64 / mesh.len() as f64;
    println!(
        "raycast {name}: AABB MeshTree {:.0} bytes/triangle beside the mesh (binary tree {:.0}, 8-wide layout {:.0}, leaf triangles {:.0})",
        per_triangle(aabb.bytes()),
        per_triangle(aabb.bvh().stats().bytes),
        per_triangle(aabb.wide_layout_bytes()),
        per_triangle(aabb.bytes() - aabb.bvh().stats().bytes - aabb.wide_layout_bytes()),
    );

    // Every answer goes through `black_box`, so no query can skip work its
    // caller would use (a closest hit's normal and barycentrics).
    type Run<'a> = Box<dyn FnMut() -> usize + 'a>;
    let runs: Vec<(&str, Run)> = vec![
        (
            "parry3d any-hit (intersects_local_ray)",
            Box::new(|| {
                parry_rays
                    .iter()
                    .filter(|r| black_box(parry.intersects_local_ray(black_box(r), 1.0)))
                    .count()
            }),
        ),
        (
            "parry3d closest-hit (cast_local_ray_and_get_normal)",
            Box::new(|| {
                parry_rays
                    .iter()
                    .filter(|r| {
                        black_box(parry.cast_local_ray_and_get_normal(black_box(r), 1.0, false))
                            .is_some()
                    })
                    .count()
            }),
        ),
        (
            "aabb any-hit",
            Box::new(|| {
                segments
                    .iter()
                    .filter(|s| black_box(aabb.any_hit(*black_box(s))).is_some())
                    .count()
            }),
        ),
        (
            "aabb closest-hit",
            Box::new(|| {
                segments
                    .iter()
                    .filter(|s| black_box(aabb.closest_hit(*black_box(s))).is_some())
                    .count()
            }),
        ),
        (
            "obb any-hit",
            Box::new(|| {
                segments
                    .iter()
                    .filter(|s| black_box(obb.any_hit(*black_box(s))).is_some())
                    .count()
            }),
        ),
        (
            "obb closest-hit",
            Box::new(|| {
                segments
                    .iter()
                    .filter(|s| black_box(obb.closest_hit(*black_box(s))).is_some())
                    .count()
            }),
        ),
        (
            "aabb any-hit batch, one thread (interleaved)",
            Box::new(|| {
                aabb.segments_any_hit(black_box(segments), Threads::Current, &mut any_answers);
                any_answers.iter().filter(|h| h.is_some()).count()
            }),
        ),
        (
            "aabb closest-hit batch, one thread (interleaved)",
            Box::new(|| {
                aabb.rays_closest_hit(
                    black_box(&rays),
                    1.0,
                    Threads::Current,
                    &mut closest_answers,
                );
                closest_answers.iter().filter(|h| h.is_some()).count()
            }),
        ),
        (
            "aabb any-hit batched (all cores)",
            Box::new(|| {
                aabb.segments_any_hit(black_box(segments), Threads::All, &mut pooled_answers);
                pooled_answers.iter().filter(|h| h.is_some()).count()
            }),
        ),
    ];
    const SAMPLES: usize = 10;
    let mut group = c.benchmark_group(format!("raycast/{name}"));
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(SEGMENTS as u64));
    let mut parry_ns = [0.0; 2];
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, SEGMENTS, &mut run) else {
            continue;
        };
        let reference = if label.contains("closest") {
            parry_ns[1]
        } else {
            parry_ns[0]
        };
        if label.starts_with("parry3d any") {
            parry_ns[0] = ns;
        } else if label.starts_with("parry3d closest") {
            parry_ns[1] = ns;
        }
        let ratio = if label.starts_with("parry3d") || reference == 0.0 {
            String::new()
        } else {
            format!(", speed-up over parry3d {:.2}x", reference / ns)
        };
        println!(
            "raycast {name} {label}: {ns:.1} ns/query, {:.2} Mrays/s{ratio}",
            1e3 / ns
        );
    }
    group.finish();
}

fn raycast(c: &mut Criterion) {
    let bunny = TriMesh::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj"))
        .expect("bunny loads");
    let bunny_segments = segments(&bunny, 1, 1.0);
    bench_mesh(c, "bunny", bunny, &bunny_segments);
    let scene = procedural_scene();
    let scene_segments = segments(&scene, 2, 2.0);
    bench_mesh(c, "terrain+spheres", scene, &scene_segments);
}

criterion_group!(benches, raycast);
criterion_main!(benches);
