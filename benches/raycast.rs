//! Line-of-sight (any-hit) and closest-hit segment queries, boxtree beside
//! parry3d (and Embree 3, with `--features embree`) on the same mesh and
//! the same 1,000,000 fixed camera-to-target segments: one query per call,
//! a batch answered on one thread (whose descents are interleaved to
//! overlap memory latency on trees that outgrow the shared cache, as the
//! header line says), and a batch on all cores. Meshes: the bunny,
//! a procedural town of thin walls, railings and long roof triangles
//! (`TriMesh::city`), and a 1M-triangle terrain with spheres.
//!
//! Run in `benches/` with `cargo bench --bench raycast`. Each configuration prints a
//! `raycast` line with ns/query, Mrays/s, the blocked fraction, the
//! speed-up over parry3d and the ratio to Embree's time; criterion records
//! the same runs.

mod common;
#[cfg(feature = "embree")]
mod embree;

use std::hint::black_box;

use boxtree::bvh::{BoundingVolume, BuildOptions, SplitRule, SplitSearch};
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

/// How many of `segments` hit `tree` (any-hit), each answer through
/// `black_box` so no query can skip work.
fn any_hits<V: BoundingVolume>(tree: &MeshTree<V>, segments: &[Segment]) -> usize {
    segments
        .iter()
        .filter(|s| black_box(tree.any_hit(*black_box(s))).is_some())
        .count()
}

/// How many of `segments` hit `tree` (closest hit, normal and barycentrics
/// included), as [`any_hits`].
fn closest_hits<V: BoundingVolume>(tree: &MeshTree<V>, segments: &[Segment]) -> usize {
    segments
        .iter()
        .filter(|s| black_box(tree.closest_hit(*black_box(s))).is_some())
        .count()
}

fn bench_mesh(c: &mut Criterion, name: &str, mesh: TriMesh, segments: &[Segment]) {
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let obb = MeshTree::<PackedObb>::build(mesh.clone(), &BuildOptions::gottschalk());
    // The same AABB tree with every axis and every triangle binned.
    let thorough = MeshTree::<Aabb>::build(
        mesh.clone(),
        &BuildOptions::sah().with_split(SplitRule::Sah {
            bins: 32,
            search: SplitSearch::Thorough,
        }),
    );
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
    #[cfg(feature = "embree")]
    let embree = embree_beside(name, &mesh, &aabb, segments);
    let parry_blocked = parry_rays
        .iter()
        .filter(|r| parry.intersects_local_ray(r, 1.0))
        .count();
    println!(
        "raycast {name}: {} triangles, {SEGMENTS} segments, {:.1}% blocked (parry3d agrees on {:.1}%); one-thread batches {}",
        mesh.len(),
        100.0 * blocked as f64 / SEGMENTS as f64,
        100.0 * parry_blocked as f64 / SEGMENTS as f64,
        if aabb.batches_interleave() {
            "interleave descents"
        } else {
            "answer one query at a time"
        },
    );
    let per_triangle = |bytes: usize| bytes as f64 / mesh.len() as f64;
    println!(
        "raycast {name}: AABB MeshTree {:.0} bytes/triangle beside the mesh (binary tree {:.0}, 8-wide layout {:.0}, leaf triangles {:.0})",
        per_triangle(aabb.bytes()),
        per_triangle(aabb.bvh().stats().bytes),
        per_triangle(aabb.wide_layout_bytes()),
        per_triangle(aabb.bytes() - aabb.bvh().stats().bytes - aabb.wide_layout_bytes()),
    );
    let huge = |bytes: Option<usize>| {
        bytes.map_or("unknown".into(), |b| format!("{:.1} MB", b as f64 / 1e6))
    };
    println!(
        "raycast {name}: on huge pages (kernel's count): AABB tree {} of {:.1} MB, OBB tree {} of {:.1} MB; OBB MeshTree {:.0} bytes/triangle (8-wide AABB layout {:.0})",
        huge(aabb.huge_page_bytes()),
        aabb.bytes() as f64 / 1e6,
        huge(obb.huge_page_bytes()),
        obb.bytes() as f64 / 1e6,
        per_triangle(obb.bytes()),
        per_triangle(obb.wide_layout_bytes()),
    );

    // Every answer goes through `black_box`, so no query can skip work its
    // caller would use (a closest hit's normal and barycentrics).
    type Run<'a> = Box<dyn FnMut() -> usize + 'a>;
    #[allow(unused_mut)]
    let mut runs: Vec<(&str, Run)> = vec![
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
        ("aabb any-hit", Box::new(|| any_hits(&aabb, segments))),
        (
            "aabb closest-hit",
            Box::new(|| closest_hits(&aabb, segments)),
        ),
        (
            "aabb any-hit, thorough split search",
            Box::new(|| any_hits(&thorough, segments)),
        ),
        (
            "aabb closest-hit, thorough split search",
            Box::new(|| closest_hits(&thorough, segments)),
        ),
        ("obb any-hit", Box::new(|| any_hits(&obb, segments))),
        ("obb closest-hit", Box::new(|| closest_hits(&obb, segments))),
        (
            "aabb any-hit batch, one thread",
            Box::new(|| {
                aabb.segments_any_hit(black_box(segments), Threads::Current, &mut any_answers);
                any_answers.iter().filter(|h| h.is_some()).count()
            }),
        ),
        (
            "aabb closest-hit batch, one thread",
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
    #[cfg(feature = "embree")]
    {
        let embree = &embree;
        runs.insert(
            2,
            (
                "embree3 any-hit (rtcOccluded1, robust)",
                Box::new(|| {
                    segments
                        .iter()
                        .filter(|s| black_box(embree.occluded(black_box(s))))
                        .count()
                }),
            ),
        );
        runs.insert(
            3,
            (
                "embree3 closest-hit (rtcIntersect1, robust)",
                Box::new(|| {
                    segments
                        .iter()
                        .filter(|s| black_box(embree.closest(black_box(s))).is_some())
                        .count()
                }),
            ),
        );
    }
    const SAMPLES: usize = 10;
    let mut group = c.benchmark_group(format!("raycast/{name}"));
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(SEGMENTS as u64));
    let (mut parry_ns, mut embree_ns) = ([0.0; 2], [0.0; 2]);
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, SEGMENTS, &mut run) else {
            continue;
        };
        let slot = usize::from(label.contains("closest"));
        let mut ratios = String::new();
        if label.starts_with("parry3d") {
            parry_ns[slot] = ns;
        } else if label.starts_with("embree3") {
            embree_ns[slot] = ns;
        } else {
            if parry_ns[slot] > 0.0 {
                ratios += &format!(", speed-up over parry3d {:.2}x", parry_ns[slot] / ns);
            }
            if embree_ns[slot] > 0.0 {
                ratios += &format!(", {:.2}x Embree's time", ns / embree_ns[slot]);
            }
        }
        println!(
            "raycast {name} {label}: {ns:.1} ns/query, {:.2} Mrays/s{ratios}",
            1e3 / ns
        );
    }
    group.finish();
    #[cfg(feature = "embree")]
    println!(
        "raycast {name} {}",
        embree::paired_line(
            &embree,
            segments,
            |s| aabb.any_hit(*s).is_some(),
            |s| aabb.closest_hit(*s).is_some(),
        )
    );
}

/// Embree's scene over `mesh`, its answers checked against boxtree's on
/// the first 100,000 segments (hit or miss, and the distance between the
/// closest hit points), with its build time.
#[cfg(feature = "embree")]
fn embree_beside(
    name: &str,
    mesh: &TriMesh,
    aabb: &MeshTree<Aabb>,
    segments: &[Segment],
) -> embree::EmbreeScene {
    let start = std::time::Instant::now();
    let embree = embree::EmbreeScene::single(mesh);
    let built = start.elapsed();
    let (mut differ, mut worst) = (0, 0.0f32);
    for s in &segments[..100_000] {
        match (aabb.closest_hit(*s), embree.closest(s)) {
            (Some(ours), Some((t, _))) => worst = worst.max((ours.t - t).abs() * s.length()),
            (None, None) => {}
            _ => differ += 1,
        }
    }
    println!(
        "raycast {name} embree3: built in {:.1} ms (robust, one thread); of 100,000 closest hits {differ} hit in one and not the other, hit points at most {worst:.2e} apart",
        built.as_secs_f64() * 1e3
    );
    embree
}

fn raycast(c: &mut Criterion) {
    let bunny = TriMesh::load(common::data("bunny.obj")).expect("bunny loads");
    let bunny_segments = segments(&bunny, 1, 1.0);
    bench_mesh(c, "bunny", bunny, &bunny_segments);
    let city = TriMesh::city(10, 3);
    let city_segments = segments(&city, 3, 1.0);
    bench_mesh(c, "city", city, &city_segments);
    let scene = procedural_scene();
    let scene_segments = segments(&scene, 2, 2.0);
    bench_mesh(c, "terrain+spheres", scene, &scene_segments);
}

criterion_group!(benches, raycast);
criterion_main!(benches);
