//! Scenes: a town of instanced buildings (line of sight and closest hits
//! from head height) and a field of moving objects (update and all
//! overlapping pairs per frame), boxtree's `Scene` beside parry3d's
//! `partitioning::Bvh` over instance boxes with shared `TriMesh`es, and
//! beside one flattened `MeshTree` of the same world.
//!
//! With `--features fcl` the field also runs in FCL 0.7 (`benches/fcl`):
//! its dynamic AABB tree manager over shared `BVHModel<OBBRSS>`es.
//!
//! Run in `benches/` with `cargo bench --bench scene`. Each configuration prints a
//! `scene` line with criterion's median per query (or per frame) and the
//! ratio to parry3d; criterion records the same runs.

mod common;
#[cfg(feature = "embree")]
mod embree;
#[cfg(feature = "fcl")]
mod fcl;

use std::hint::black_box;
use std::sync::Arc;

use boxtree::math::nalgebra::Translation3;
use boxtree::math::{Isometry, Point, Real, Rotation, Vector};
type Translation = Translation3<Real>;
use boxtree::{
    Aabb, CameraBoom, Filter, MeshTree, ObjectId, PairSet, Scene, SceneMesh, Segment, Threads,
    TriMesh,
};
use common::{SplitMix, bench_items, parry_mesh, parry_pose, pp, pv};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use parry3d::query::RayCast;

const SEGMENTS: usize = 1_000_000;
const SAMPLES: usize = 10;

/// `mesh` moved by `offset`.
fn moved(mesh: &TriMesh, offset: Vector) -> TriMesh {
    let vertices = mesh.vertices().iter().map(|p| p + offset).collect();
    TriMesh::new(vertices, mesh.indices().to_vec()).expect("valid")
}

/// Building `k` of 21: a block with a bumpy roof and a dome, about 2,900
/// triangles, 6–14 m wide and 8–30 m tall.
fn building(k: u64) -> TriMesh {
    let mut rng = SplitMix(100 + k);
    let (w, d, h) = (
        rng.range(6.0, 14.0),
        rng.range(6.0, 14.0),
        rng.range(8.0, 30.0),
    );
    let block = TriMesh::cuboid(
        Point::new(-w / 2.0, -d / 2.0, 0.0),
        Point::new(w / 2.0, d / 2.0, h),
    );
    let roof = moved(
        &TriMesh::terrain(30, w.min(d), 1.5, k),
        Vector::new(0.0, 0.0, h),
    );
    let dome = TriMesh::icosphere(Point::new(0.0, 0.0, h + 1.0), w.min(d) / 4.0, 3);
    block.merged(&roof).merged(&dome)
}

struct Town {
    scene: Scene,
    /// Per instance: which building and where.
    instances: Vec<(usize, Isometry)>,
    buildings: Vec<Arc<MeshTree<Aabb>>>,
    segments: Vec<Segment>,
}

/// 2,180 instances of 21 buildings on a 47 × 47 grid of 20 m lots, turned
/// at random about the vertical, and segments from head height in the
/// streets to points on and around the buildings up to 200 m away.
fn town() -> Town {
    let buildings: Vec<Arc<MeshTree<Aabb>>> = (0..21)
        .map(|k| Arc::new(MeshTree::<Aabb>::new(building(k))))
        .collect();
    let mut rng = SplitMix(2181);
    let mut scene = Scene::new();
    let mut instances = Vec::new();
    for i in 0..47 {
        for j in 0..47 {
            if instances.len() == 2_180 {
                break;
            }
            let kind = rng.next_u64() as usize % buildings.len();
            let at = Vector::new(20.0 * i as Real - 460.0, 20.0 * j as Real - 460.0, 0.0);
            let turn =
                Rotation::from_axis_angle(&Vector::z_axis(), rng.range(0.0, std::f32::consts::TAU));
            let pose = Isometry::from_parts(Translation::from(at), turn);
            scene.add(buildings[kind].clone(), pose).expect("finite");
            instances.push((kind, pose));
        }
    }
    scene.update();
    let segments = (0..SEGMENTS)
        .map(|_| {
            // Streets run between the lots, at multiples of 20 m plus 10.
            let street =
                |rng: &mut SplitMix| 20.0 * (rng.range(-23.0, 23.0)).round() + 10.0 - 460.0;
            let along = rng.range(-470.0, 470.0);
            let eye = if rng.next_u64().is_multiple_of(2) {
                Point::new(street(&mut rng), along, 1.7)
            } else {
                Point::new(along, street(&mut rng), 1.7)
            };
            let reach = Vector::new(rng.range(-200.0, 200.0), rng.range(-200.0, 200.0), 0.0);
            let target = Point::new(eye.x + reach.x, eye.y + reach.y, rng.range(0.0, 30.0));
            Segment::new(eye, target)
        })
        .collect();
    Town {
        scene,
        instances,
        buildings,
        segments,
    }
}

/// boxtree against parry3d in alternating rounds of 20,000 segments
/// ([`common::paired_ratio`]): both medians per query and parry3d's time
/// over boxtree's, for any-hit and closest hit.
fn paired_parry_line(
    segments: &[Segment],
    rays: &[parry3d::query::Ray],
    any: impl Fn(&Segment) -> bool,
    closest: impl Fn(&Segment) -> bool,
    parry_any: impl Fn(&parry3d::query::Ray) -> bool,
    parry_closest: impl Fn(&parry3d::query::Ray) -> bool,
) -> String {
    const CHUNK: usize = 20_000;
    let rounds = segments.len() / CHUNK;
    fn count<T>(items: &[T], round: usize, hit: &impl Fn(&T) -> bool) -> usize {
        items[round * CHUNK..(round + 1) * CHUNK]
            .iter()
            .filter(|item| black_box(hit(black_box(item))))
            .count()
    }
    let pairs = [
        common::paired_ratio(
            rounds,
            |r| count(segments, r, &any),
            |r| count(rays, r, &parry_any),
        ),
        common::paired_ratio(
            rounds,
            |r| count(segments, r, &closest),
            |r| count(rays, r, &parry_closest),
        ),
    ];
    common::paired_line_of("parry3d", rounds, CHUNK, pairs, |p| {
        let [median, low, high] = p.ratio.map(|r| 1.0 / r);
        format!("speed-up {median:.2}x (quartiles {high:.2}-{low:.2})")
    })
}

fn bench_town(c: &mut Criterion) {
    let town = town();
    let Town {
        scene,
        instances,
        buildings,
        segments,
    } = &town;
    let distinct: usize = buildings.iter().map(|b| b.mesh().len()).sum();
    let flat_triangles: usize = instances
        .iter()
        .map(|(k, _)| buildings[*k].mesh().len())
        .sum();
    println!(
        "scene town: {} instances of {} buildings ({distinct} distinct triangles, {flat_triangles} flattened), {} segments",
        instances.len(),
        buildings.len(),
        segments.len()
    );

    // parry3d: a BVH over the instances' world boxes, shared TriMeshes.
    let parry_meshes: Vec<parry3d::shape::TriMesh> =
        buildings.iter().map(|b| parry_mesh(b.mesh())).collect();
    let parry_poses: Vec<parry3d::math::Pose> =
        instances.iter().map(|(_, p)| parry_pose(p)).collect();
    let parry_bvh = {
        let boxes: Vec<_> = instances
            .iter()
            .zip(&parry_poses)
            .map(|((k, _), pose)| parry_meshes[*k].local_aabb().transform_by(pose))
            .collect();
        Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes)
    };
    let parry_rays: Vec<parry3d::query::Ray> = segments
        .iter()
        .map(|s| parry3d::query::Ray::new(pp(&s.a), pv(&s.direction())))
        .collect();
    let parry_any = |ray: &parry3d::query::Ray| {
        parry_bvh
            .leaves(|node| node.cast_ray(ray, 1.0) < Real::MAX)
            .any(|leaf| {
                let leaf = leaf as usize;
                parry_meshes[instances[leaf].0].intersects_ray(&parry_poses[leaf], ray, 1.0)
            })
    };
    let parry_closest = |ray: &parry3d::query::Ray| {
        parry_bvh.cast_ray(ray, 1.0, |leaf, best| {
            let leaf = leaf as usize;
            parry_meshes[instances[leaf].0].cast_ray(&parry_poses[leaf], ray, best, true)
        })
    };

    let everything = Filter::everything();
    let blocked = segments
        .iter()
        .filter(|s| scene.any_hit(*s, &everything).is_some())
        .count();
    let parry_blocked = parry_rays.iter().filter(|r| parry_any(r)).count();
    println!(
        "scene town: {:.1}% of segments blocked (parry3d {:.1}%); scene {:.2} MiB beside {:.2} MiB of distinct meshes and trees",
        100.0 * blocked as f64 / segments.len() as f64,
        100.0 * parry_blocked as f64 / segments.len() as f64,
        scene.bytes() as f64 / (1 << 20) as f64,
        scene.mesh_bytes() as f64 / (1 << 20) as f64,
    );

    let mut group = c.benchmark_group("scene/town build");
    group.sample_size(SAMPLES);
    let build = bench_items(
        &mut group,
        SAMPLES,
        "boxtree Scene::add + update",
        1,
        &mut || {
            let mut fresh = Scene::new();
            for (k, pose) in instances {
                fresh.add(buildings[*k].clone(), *pose).expect("finite");
            }
            fresh.update();
            fresh.len()
        },
    );
    let parry_build = bench_items(
        &mut group,
        SAMPLES,
        "parry3d Bvh::from_leaves",
        1,
        &mut || {
            let boxes: Vec<_> = instances
                .iter()
                .zip(&parry_poses)
                .map(|((k, _), pose)| parry_meshes[*k].local_aabb().transform_by(pose))
                .collect();
            Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes).leaf_count() as usize
        },
    );
    group.finish();
    if let (Some(ours), Some(theirs)) = (build, parry_build) {
        println!(
            "scene town build: boxtree {:.2} ms, parry3d {:.2} ms (instance boxes and tree only), ratio {:.2}x",
            ours / 1e6,
            theirs / 1e6,
            theirs / ours
        );
    }

    let mut any_out = Vec::new();
    #[cfg(feature = "embree")]
    let embree = {
        let meshes: Vec<&TriMesh> = buildings.iter().map(|b| b.mesh()).collect();
        let start = std::time::Instant::now();
        let embree = embree::EmbreeScene::instanced(&meshes, instances);
        let blocked = segments.iter().filter(|s| embree.occluded(s)).count();
        // Answers side by side: hit or miss, and how far apart the `t`s are.
        let (mut differ, mut worst) = (0, 0.0f32);
        for s in &segments[..100_000] {
            match (
                scene.closest_hit(s, &Filter::everything()),
                embree.closest(s),
            ) {
                (Some(ours), Some((t, _))) => {
                    worst = worst.max((ours.hit.t - t).abs() * s.length())
                }
                (None, None) => {}
                _ => differ += 1,
            }
        }
        println!(
            "scene town embree3: of 100,000 closest hits, {differ} hit in one and not the other; largest distance between hit points along the segment {:.2e} m",
            worst
        );
        println!(
            "scene town embree3: instanced scene (robust) built in {:.1} ms (one build, not a criterion figure, distinct meshes included); {:.1}% blocked",
            start.elapsed().as_secs_f64() * 1e3,
            100.0 * blocked as f64 / segments.len() as f64
        );
        embree
    };
    type Run<'a> = Box<dyn FnMut() -> usize + 'a>;
    #[allow(unused_mut)]
    let mut runs: Vec<(&str, Run)> = vec![
        (
            "parry3d any-hit (Bvh::leaves + intersects_ray)",
            Box::new(|| {
                parry_rays
                    .iter()
                    .filter(|r| black_box(parry_any(black_box(r))))
                    .count()
            }),
        ),
        (
            "parry3d closest-hit (Bvh::cast_ray + cast_ray)",
            Box::new(|| {
                parry_rays
                    .iter()
                    .filter(|r| black_box(parry_closest(black_box(r))).is_some())
                    .count()
            }),
        ),
        (
            "boxtree scene any-hit",
            Box::new(|| {
                segments
                    .iter()
                    .filter(|s| black_box(scene.any_hit(*black_box(s), &everything)).is_some())
                    .count()
            }),
        ),
        (
            "boxtree scene closest-hit",
            Box::new(|| {
                segments
                    .iter()
                    .filter(|s| black_box(scene.closest_hit(*black_box(s), &everything)).is_some())
                    .count()
            }),
        ),
        (
            "boxtree scene any-hit batch (all cores)",
            Box::new(|| {
                scene.segments_any_hit(
                    black_box(segments),
                    &everything,
                    Threads::All,
                    &mut any_out,
                );
                any_out.iter().filter(|h| h.is_some()).count()
            }),
        ),
    ];
    #[cfg(feature = "embree")]
    {
        let embree = &embree;
        runs.push((
            "embree3 instanced any-hit (rtcOccluded1, robust)",
            Box::new(move || {
                segments
                    .iter()
                    .filter(|s| black_box(embree.occluded(black_box(s))))
                    .count()
            }),
        ));
        runs.push((
            "embree3 instanced closest-hit (rtcIntersect1, robust)",
            Box::new(move || {
                segments
                    .iter()
                    .filter(|s| black_box(embree.closest(black_box(s))).is_some())
                    .count()
            }),
        ));
    }
    let mut group = c.benchmark_group("scene/town");
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(segments.len() as u64));
    let mut ours_ns = [0.0; 2];
    let mut parry_ns = [0.0; 2];
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, segments.len(), &mut run) else {
            continue;
        };
        let slot = usize::from(label.contains("closest"));
        if label == "boxtree scene any-hit" || label == "boxtree scene closest-hit" {
            ours_ns[slot] = ns;
        }
        if label.starts_with("parry3d") {
            parry_ns[slot] = ns;
            println!("scene town {label}: {ns:.0} ns/query");
        } else if label.starts_with("embree3") {
            println!(
                "scene town {label}: {ns:.0} ns/query; boxtree takes {:.2}x Embree's time",
                ours_ns[slot] / ns
            );
        } else {
            println!(
                "scene town {label}: {ns:.0} ns/query, speed-up over parry3d {:.2}x",
                parry_ns[slot] / ns
            );
        }
    }
    group.finish();
    // The speed-ups over parry3d with the two alternated on the same chunks
    // of segments: parry3d's rows moved by up to 1.7x between runs, and
    // criterion's rows carry that drift into the ratio.
    println!(
        "scene town {}",
        paired_parry_line(
            segments,
            &parry_rays,
            |s| scene.any_hit(*s, &everything).is_some(),
            |s| scene.closest_hit(*s, &everything).is_some(),
            |r| parry_any(r),
            |r| parry_closest(r).is_some(),
        )
    );
    // The same ratios with the two alternated on the same chunks of
    // segments, free of the drift between rows.
    #[cfg(feature = "embree")]
    println!(
        "scene town {}",
        embree::paired_line(
            &embree,
            segments,
            |s| scene.any_hit(*s, &everything).is_some(),
            |s| scene.closest_hit(*s, &everything).is_some(),
        )
    );

    // Third-person cameras: a boom from head height 4 m back (away from the
    // segment's target) and 2 m up, a 0.3 m lens, 100,000 of them.
    let booms: Vec<CameraBoom> = segments
        .iter()
        .take(100_000)
        .map(|s| {
            let ahead = s.b - s.a;
            let back = -Vector::new(ahead.x, ahead.y, 0.0).normalize() * 4.0;
            CameraBoom {
                pivot: s.a,
                desired: s.a + back + Vector::new(0.0, 0.0, 2.0),
                radius: 0.3,
            }
        })
        .collect();
    let mut stops = Vec::new();
    let mut group = c.benchmark_group("scene/town booms");
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(booms.len() as u64));
    let boom_runs: Vec<(&str, Run)> = vec![
        (
            "camera boom",
            Box::new(|| {
                booms
                    .iter()
                    .filter(|b| {
                        black_box(scene.camera_boom(black_box(b), &everything))
                            .is_some_and(|s| s.blocker.is_some())
                    })
                    .count()
            }),
        ),
        (
            "camera booms batch (all cores)",
            Box::new(|| {
                scene.camera_booms(black_box(&booms), &everything, Threads::All, &mut stops);
                stops
                    .iter()
                    .flatten()
                    .filter(|s| s.blocker.is_some())
                    .count()
            }),
        ),
    ];
    for (label, mut run) in boom_runs {
        if let Some(ns) = bench_items(&mut group, SAMPLES, label, booms.len(), &mut run) {
            println!(
                "scene town {label}: {ns:.0} ns/boom, {:.1} M booms/s",
                1e3 / ns
            );
        }
    }
    group.finish();

    // The flattened world: every instance's triangles in one tree.
    let mut world = TriMesh::new(vec![Point::origin(); 3], vec![[0, 1, 2]]).expect("one triangle");
    let mut vertices = Vec::with_capacity(flat_triangles * 3 / 2);
    let mut indices = Vec::with_capacity(flat_triangles);
    for (k, pose) in instances {
        let mesh = buildings[*k].mesh();
        let base = vertices.len() as u32;
        vertices.extend(mesh.vertices().iter().map(|v| pose * v));
        indices.extend(mesh.indices().iter().map(|t| t.map(|i| i + base)));
    }
    world = TriMesh::new(vertices, indices).unwrap_or(world);
    let start = std::time::Instant::now();
    let flat = MeshTree::<Aabb>::new(world);
    println!(
        "scene town flattened: {} triangles, built in {:.2} s (one build, not a criterion figure), {:.0} MiB beside the mesh",
        flat.mesh().len(),
        start.elapsed().as_secs_f64(),
        flat.bytes() as f64 / (1 << 20) as f64
    );
    let mut group = c.benchmark_group("scene/town flattened");
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(segments.len() as u64));
    for (label, closest) in [
        ("flattened MeshTree any-hit", false),
        ("flattened MeshTree closest-hit", true),
    ] {
        let mut run = || {
            segments
                .iter()
                .filter(|s| {
                    if closest {
                        black_box(flat.closest_hit(*black_box(s))).is_some()
                    } else {
                        black_box(flat.any_hit(*black_box(s))).is_some()
                    }
                })
                .count()
        };
        if let Some(ns) = bench_items(&mut group, SAMPLES, label, segments.len(), &mut run) {
            println!("scene town {label}: {ns:.0} ns/query");
        }
    }
    group.finish();

    // Nearest points: the segments' targets (on and around the buildings),
    // on the scene, on the flattened world, and on the town moved 1e5 m
    // out (where the scene's pruning once searched 1.5 m beyond the best).
    let points: Vec<Point> = segments.iter().take(100_000).map(|s| s.b).collect();
    let far = Vector::new(1e5, -1e5, 0.0);
    let mut moved = Scene::new();
    for (k, pose) in instances {
        let at = Translation::from(pose.translation.vector + far);
        moved
            .add(
                buildings[*k].clone(),
                Isometry::from_parts(at, pose.rotation),
            )
            .expect("finite");
    }
    moved.update();
    let moved_points: Vec<Point> = points.iter().map(|p| p + far).collect();
    let worst = points
        .iter()
        .take(10_000)
        .filter_map(|p| {
            let ours = scene.closest_point(*p, &everything)?.projection.distance;
            Some((ours - flat.closest_point(*p)?.distance).abs())
        })
        .fold(0.0, Real::max);
    println!(
        "scene town nearest points: {} points; of the first 10,000, the largest difference between the scene's and the flattened world's distances {worst:.2e} m",
        points.len()
    );
    let nearest = |scene: &Scene, points: &[Point]| {
        points
            .iter()
            .filter(|p| black_box(scene.closest_point(**black_box(p), &everything)).is_some())
            .count()
    };
    let point_runs: Vec<(&str, Run)> = vec![
        (
            "boxtree Scene::closest_point",
            Box::new(|| nearest(scene, &points)),
        ),
        (
            "flattened MeshTree::closest_point",
            Box::new(|| {
                points
                    .iter()
                    .filter(|p| black_box(flat.closest_point(**black_box(p))).is_some())
                    .count()
            }),
        ),
        (
            "boxtree Scene::closest_point, town moved 1e5 m out",
            Box::new(|| nearest(&moved, &moved_points)),
        ),
    ];
    let mut group = c.benchmark_group("scene/town nearest points");
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(points.len() as u64));
    for (label, mut run) in point_runs {
        if let Some(ns) = bench_items(&mut group, SAMPLES, label, points.len(), &mut run) {
            println!("scene town {label}: {ns:.0} ns/point");
        }
    }
    group.finish();
}

/// 10,000 objects of 10 meshes (200 to 2,000 triangles, about 1 m across)
/// in a 60 m cube, 1,000 of them moving each frame. AABB mesh trees: their
/// all-pairs pass takes 15% less time here than packed OBB trees' (17.4
/// against 20.5 ms in scratch runs of one layout).
fn bench_field(c: &mut Criterion) {
    let meshes: Vec<Arc<MeshTree<Aabb>>> = (0..10u64)
        .map(|k| {
            let mesh = match k % 3 {
                0 => TriMesh::icosphere(Point::origin(), 0.5, 2 + (k % 2) as u32),
                1 => TriMesh::terrain(10 + 5 * k as u32 / 3, 1.0, 0.3, k),
                _ => TriMesh::random_soup(200 + 180 * k as u32, 0.5, 0.2, k),
            };
            Arc::new(MeshTree::<Aabb>::new(mesh))
        })
        .collect();
    let mut rng = SplitMix(10_000);
    let mut scene = Scene::new();
    let mut ids = Vec::new();
    #[cfg(feature = "fcl")]
    let mut placements: Vec<(usize, Isometry)> = Vec::new();
    for k in 0..10_000usize {
        let pose = Isometry::from_parts(Translation::from(rng.vector(-30.0, 30.0)), rng.rotation());
        #[cfg(feature = "fcl")]
        placements.push((k % meshes.len(), pose));
        ids.push(
            scene
                .add(SceneMesh::Aabb(meshes[k % meshes.len()].clone()), pose)
                .expect("finite"),
        );
    }
    scene.update();
    // The first 1,000 objects move each frame: a step of up to 0.2 m and a
    // small turn, bouncing off the field's walls.
    let mut moving: Vec<(Isometry, Vector, Rotation)> = ids[..1_000]
        .iter()
        .map(|&id| {
            let step = rng.vector(-0.2, 0.2);
            let turn = Rotation::from_scaled_axis(rng.vector(-0.02, 0.02));
            (scene.pose(id).expect("live"), step, turn)
        })
        .collect();
    let everything = Filter::everything();
    let pairs = scene.overlapping_pairs(&everything, |_, _| false, Threads::Current);
    println!(
        "scene field: 10000 objects, {} overlapping pairs in the first frame",
        pairs.len()
    );
    #[cfg(feature = "fcl")]
    let (mut fcl_field, mut fcl_moving) = {
        let tri_meshes: Vec<&TriMesh> = meshes.iter().map(|m| m.mesh()).collect();
        let start = std::time::Instant::now();
        let mut field = fcl::Field::new(&tri_meshes, &placements);
        let built = start.elapsed();
        // Both worlds before any motion: the same pairs, object k being ids[k].
        let index: std::collections::HashMap<ObjectId, u32> = ids
            .iter()
            .enumerate()
            .map(|(k, &id)| (id, k as u32))
            .collect();
        let ours: std::collections::BTreeSet<(u32, u32)> = pairs
            .iter()
            .map(|p| {
                let (a, b) = (index[&p.a], index[&p.b]);
                (a.min(b), a.max(b))
            })
            .collect();
        let theirs: std::collections::BTreeSet<(u32, u32)> =
            field.all_pairs().into_iter().collect();
        println!(
            "scene field fcl: built in {:.1} ms (one build, not a criterion figure: {} BVHModel<OBBRSS>, DynamicAABBTreeCollisionManager); \
             first frame {} pairs, {} only in boxtree, {} only in FCL",
            built.as_secs_f64() * 1e3,
            tri_meshes.len(),
            theirs.len(),
            ours.difference(&theirs).count(),
            theirs.difference(&ours).count()
        );
        // FCL's own copy of the motion, so boxtree's frames stay as they were.
        (field, moving.clone())
    };

    let mut group = c.benchmark_group("scene/field");
    group.sample_size(SAMPLES);
    let mut rebuilds = 0;
    let update = bench_items(
        &mut group,
        SAMPLES,
        "boxtree move 1000 + update",
        1,
        &mut || {
            move_objects(&mut scene, &ids, &mut moving);
            let rebuilt = scene.update().rebuilt;
            rebuilds += usize::from(rebuilt);
            usize::from(rebuilt)
        },
    );
    if let Some(ns) = update {
        println!(
            "scene field: move 1000 objects + update {:.3} ms per frame ({rebuilds} rebuilds over every frame run)",
            ns / 1e6
        );
    }
    #[cfg(feature = "fcl")]
    if let Some(fcl_ns) = bench_items(
        &mut group,
        SAMPLES,
        "fcl move 1000 + update",
        1,
        &mut || {
            step_objects(&mut fcl_moving, |k, pose| fcl_field.set_pose(k, pose));
            fcl_field.update();
            0
        },
    ) {
        println!(
            "scene field fcl: move 1000 objects + update {:.3} ms per frame (update with the moved objects){}",
            fcl_ns / 1e6,
            fcl_ratio(update, fcl_ns)
        );
    }
    #[cfg(feature = "fcl")]
    let mut one_thread = None;
    for (label, threads) in [
        ("boxtree all pairs, one thread", Threads::Current),
        ("boxtree all pairs, all cores", Threads::All),
    ] {
        if let Some(ns) = bench_items(&mut group, SAMPLES, label, 1, &mut || {
            scene
                .overlapping_pairs(&everything, |_, _| false, threads)
                .len()
        }) {
            println!("scene field {label}: {:.2} ms per frame", ns / 1e6);
            #[cfg(feature = "fcl")]
            if threads == Threads::Current {
                one_thread = Some(ns);
            }
        }
    }
    #[cfg(feature = "fcl")]
    {
        let label = "fcl all pairs, one thread";
        if let Some(fcl_ns) = bench_items(&mut group, SAMPLES, label, 1, &mut || {
            fcl_field.pair_count()
        }) {
            println!(
                "scene field {label}: {:.2} ms per frame (exact narrow phase, one contact){}",
                fcl_ns / 1e6,
                fcl_ratio(one_thread, fcl_ns)
            );
        }
    }
    // A frame as a game runs it: 1,000 smooth moves, update, and the pairs
    // kept from the last frame brought up to date (only moved objects
    // tested again).
    let mut kept = PairSet::new();
    scene.update_pairs(&mut kept, &everything, |_, _| false, Threads::Current);
    let label = "boxtree move 1000 + update + incremental pairs, one thread";
    if let Some(ns) = bench_items(&mut group, SAMPLES, label, 1, &mut || {
        move_objects(&mut scene, &ids, &mut moving);
        scene.update();
        scene.update_pairs(&mut kept, &everything, |_, _| false, Threads::Current);
        kept.pairs().len()
    }) {
        println!(
            "scene field {label}: {:.2} ms per frame ({} pairs)",
            ns / 1e6,
            kept.pairs().len()
        );
    }
    group.finish();
}

/// "; boxtree takes 0.50x FCL's time", when boxtree's row was measured.
#[cfg(feature = "fcl")]
fn fcl_ratio(ours_ns: Option<f64>, fcl_ns: f64) -> String {
    ours_ns
        .map(|ours| format!("; boxtree takes {:.2}x FCL's time", ours / fcl_ns))
        .unwrap_or_default()
}

/// One frame of motion: each moving object takes its step and turn,
/// bouncing off the field's walls at ±30 m.
fn move_objects(scene: &mut Scene, ids: &[ObjectId], moving: &mut [(Isometry, Vector, Rotation)]) {
    step_objects(moving, |k, pose| {
        scene.set_pose(ids[k], *pose).expect("live")
    });
}

/// The motion of [`move_objects`], handing each moving object's new pose
/// (by its index in `moving`) to `place`.
fn step_objects(
    moving: &mut [(Isometry, Vector, Rotation)],
    mut place: impl FnMut(usize, &Isometry),
) {
    for (k, (pose, step, turn)) in moving.iter_mut().enumerate() {
        let mut at = pose.translation.vector + *step;
        for axis in 0..3 {
            if at[axis].abs() > 30.0 {
                step[axis] = -step[axis];
                at[axis] += 2.0 * step[axis];
            }
        }
        *pose = Isometry::from_parts(Translation::from(at), *turn * pose.rotation);
        place(k, pose);
    }
}

criterion_group!(benches, bench_town, bench_field);
criterion_main!(benches);
