//! Mesh-vs-mesh overlap (boolean with early exit), boxtree's OBB and AABB
//! trees beside parry3d on the same fixed poses, and every touching pair.
//!
//! Scenes: FCL's classic pair (`env.obj` at the identity, `rob.obj` at random
//! poses inside env's bounds), a ball on terrain and on a flat plate, and the
//! Stanford bunny against itself, their poses chosen half overlapping; and
//! the bunny against a copy half its size with every pose as drawn (about
//! 47% overlapping). parry3d
//! answers with `parry3d::query::intersection_test(&pose1, &trimesh1, &pose2,
//! &trimesh2)`, which for two `TriMesh`es dispatches to its composite-shape
//! path (every triangle of mesh 1 whose box meets mesh 2's box queries mesh
//! 2's BVH, and triangle pairs go to GJK). With `--features fcl`, env vs rob
//! and the half bunny also run FCL 0.7's boolean `fcl::collide` on
//! `BVHModel<OBBRSS>` (`benches/fcl`), its answers checked against boxtree's
//! first.
//!
//! Run in `benches/` with `cargo bench --bench overlap`. Each configuration prints an
//! `overlap` line with ns/query, the speed-up over parry3d (and the ratio to
//! FCL's time) and the volume and triangle tests per query; criterion
//! records the same runs.

mod common;
#[cfg(feature = "fcl")]
mod fcl;

use std::hint::black_box;

use boxtree::bvh::BuildOptions;
use boxtree::math::nalgebra::Translation3;
use boxtree::{
    Aabb, BoundingVolume, Isometry, MeshTree, Obb, OverlapStats, PackedObb, Point, TriMesh, Vector,
};
use common::{SplitMix, bench_items, half_size, parry_mesh, parry_pose};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};

/// Poses of the bunny against its half-size copy, all of them as drawn.
const HALF_BUNNY_POSES: usize = 10_000;

fn load(name: &str) -> TriMesh {
    TriMesh::load(common::data(name)).expect("bench mesh loads")
}

/// `count` poses for B, half overlapping A (by boxtree's answer, which the
/// run checks against parry3d's), drawn from `sample` in a fixed order.
fn poses(
    a: &MeshTree<PackedObb>,
    b: &MeshTree<PackedObb>,
    count: usize,
    mut sample: impl FnMut() -> Isometry,
) -> Vec<Isometry> {
    let (mut hits, mut misses) = (Vec::new(), Vec::new());
    while hits.len() < count / 2 || misses.len() < count - count / 2 {
        let pose = sample();
        let list = if a.placed(Isometry::identity()).overlaps(&b.placed(pose)) {
            &mut hits
        } else {
            &mut misses
        };
        list.push(pose);
    }
    hits.truncate(count / 2);
    misses.truncate(count - count / 2);
    // Interleave, so the hardware sees no long runs of one kind.
    hits.into_iter()
        .zip(misses)
        .flat_map(|(h, m)| [h, m])
        .collect()
}

fn boxtree_run<A: BoundingVolume, B: BoundingVolume>(
    a: &MeshTree<A>,
    b: &MeshTree<B>,
    poses: &[Isometry],
) -> usize {
    let placed_a = a.placed(Isometry::identity());
    poses
        .iter()
        .filter(|pose| placed_a.overlaps(&b.placed(*black_box(*pose))))
        .count()
}

fn stats_per_query<A: BoundingVolume, B: BoundingVolume>(
    a: &MeshTree<A>,
    b: &MeshTree<B>,
    poses: &[Isometry],
) -> (f64, f64) {
    let mut stats = OverlapStats::default();
    for pose in poses {
        let _ = a
            .placed(Isometry::identity())
            .first_contact(&b.placed(*pose), Some(&mut stats));
    }
    let n = poses.len() as f64;
    (
        stats.volume_tests as f64 / n,
        stats.triangle_tests as f64 / n,
    )
}

type Run<'a> = Box<dyn FnMut() -> usize + 'a>;

/// A row of boxtree overlap tests between `a` (at the identity) and `b` at
/// each pose, counting the overlapping poses.
fn overlap_run<'a, A: BoundingVolume, B: BoundingVolume>(
    label: &'a str,
    a: &'a MeshTree<A>,
    b: &'a MeshTree<B>,
    poses: &'a [Isometry],
) -> (&'a str, Run<'a>) {
    (label, Box::new(move || boxtree_run(a, b, poses)))
}

/// Benchmarks the pair at `poses` (B's, A at the identity), with FCL's
/// boolean collide beside the others when `with_fcl` and the `fcl` feature
/// are on.
fn bench_pair(
    c: &mut Criterion,
    name: &str,
    a: &TriMesh,
    b: &TriMesh,
    poses: &[Isometry],
    with_fcl: bool,
) {
    print_build_times(name, a, b);
    let (obb_a, obb_b) = (
        MeshTree::<PackedObb>::build(a.clone(), &BuildOptions::gottschalk()),
        MeshTree::<PackedObb>::build(b.clone(), &BuildOptions::gottschalk()),
    );
    // The same OBB trees with full rotation matrices (68- instead of 44-byte nodes).
    let (matrix_a, matrix_b) = (
        MeshTree::<Obb>::build(a.clone(), &BuildOptions::gottschalk()),
        MeshTree::<Obb>::build(b.clone(), &BuildOptions::gottschalk()),
    );
    let (aabb_a, aabb_b) = (
        MeshTree::<Aabb>::build(a.clone(), &BuildOptions::sah()),
        MeshTree::<Aabb>::build(b.clone(), &BuildOptions::sah()),
    );
    let (parry_a, parry_b) = (parry_mesh(a), parry_mesh(b));
    let parry_poses: Vec<parry3d::math::Pose> = poses.iter().map(parry_pose).collect();
    let identity = parry3d::math::Pose::identity();
    let parry_run = || {
        parry_poses
            .iter()
            .filter(|pose| {
                parry3d::query::intersection_test(&identity, &parry_a, black_box(pose), &parry_b)
                    .expect("TriMesh pairs are supported")
                    .intersecting
            })
            .count()
    };

    let n = poses.len();
    let placed_a = obb_a.placed(Isometry::identity());
    let overlapping: Vec<bool> = poses
        .iter()
        .map(|pose| placed_a.overlaps(&obb_b.placed(*pose)))
        .collect();
    let counts = [
        overlapping.iter().filter(|&&o| o).count(),
        boxtree_run(&aabb_a, &aabb_b, poses),
        parry_run(),
    ];
    println!(
        "overlap {name}: {} vs {} triangles, {n} poses, {:.1}% overlapping; overlapping: boxtree obb {}, aabb {}, parry3d {}",
        a.len(),
        b.len(),
        100.0 * counts[0] as f64 / n as f64,
        counts[0],
        counts[1],
        counts[2]
    );
    #[cfg(feature = "fcl")]
    let fcl_pair = with_fcl.then(|| fcl_check(name, a, b, poses, &overlapping));
    // FCL's rows need the `fcl` feature.
    #[cfg(not(feature = "fcl"))]
    let _ = (with_fcl, overlapping);

    let mut runs: Vec<(&str, Run)> = vec![(
        "parry3d intersection_test (TriMesh vs TriMesh)",
        Box::new(parry_run),
    )];
    #[cfg(feature = "fcl")]
    if let Some(pair) = &fcl_pair {
        let run = || {
            poses
                .iter()
                .filter(|pose| pair.collides(black_box(pose)))
                .count()
        };
        runs.push(("fcl collide (OBBRSS, boolean)", Box::new(run)));
    }
    runs.extend([
        overlap_run("boxtree obb-obb overlaps", &obb_a, &obb_b, poses),
        overlap_run(
            "boxtree obb-obb overlaps, unpacked matrices",
            &matrix_a,
            &matrix_b,
            poses,
        ),
        overlap_run("boxtree aabb-aabb overlaps", &aabb_a, &aabb_b, poses),
        overlap_run("boxtree obb-aabb overlaps", &obb_a, &aabb_b, poses),
    ]);
    const SAMPLES: usize = 10;
    let mut group = c.benchmark_group(format!("overlap/{name}"));
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(n as u64));
    let mut parry_ns = 0.0;
    #[cfg(feature = "fcl")]
    let mut fcl_ns = None;
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, n, &mut run) else {
            continue;
        };
        if label.starts_with("parry3d") {
            parry_ns = ns;
            println!("overlap {name} {label}: {ns:.0} ns/query");
            continue;
        }
        let ratios = format!(", speed-up over parry3d {:.2}x", parry_ns / ns);
        // boxtree's rows (after FCL's) also against FCL's time.
        #[cfg(feature = "fcl")]
        let ratios = if label.starts_with("fcl") {
            fcl_ns = Some(ns);
            ratios
        } else {
            ratios + &fcl_ratio(ns, fcl_ns)
        };
        println!("overlap {name} {label}: {ns:.0} ns/query{ratios}");
    }

    for (label, (volumes, triangles)) in [
        ("obb-obb", stats_per_query(&obb_a, &obb_b, poses)),
        ("aabb-aabb", stats_per_query(&aabb_a, &aabb_b, poses)),
        ("obb-aabb", stats_per_query(&obb_a, &aabb_b, poses)),
    ] {
        println!(
            "overlap {name} {label}: {volumes:.1} volume tests/query, {triangles:.1} triangle tests/query"
        );
    }
    // Every touching pair (no early exit): boxtree only, parry3d has no such query.
    all_pairs(&mut group, SAMPLES, name, "obb-obb", &obb_a, &obb_b, poses);
    all_pairs(
        &mut group,
        SAMPLES,
        name,
        "aabb-aabb",
        &aabb_a,
        &aabb_b,
        poses,
    );
    group.finish();
}

/// Benchmarks `touching_pairs` without a limit (every touching pair) over the poses.
fn all_pairs<A: BoundingVolume, B: BoundingVolume>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    samples: usize,
    name: &str,
    label: &str,
    a: &MeshTree<A>,
    b: &MeshTree<B>,
    poses: &[Isometry],
) {
    let placed_a = a.placed(Isometry::identity());
    let mut run = || {
        poses
            .iter()
            .map(|pose| placed_a.touching_pairs(&b.placed(*pose), None, None).len())
            .sum()
    };
    let label = format!("boxtree {label} touching_pairs (all pairs)");
    let Some(ns) = bench_items(group, samples, &label, poses.len(), &mut run) else {
        return;
    };
    let mut stats = OverlapStats::default();
    let pairs: usize = poses
        .iter()
        .map(|pose| {
            placed_a
                .touching_pairs(&b.placed(*pose), None, Some(&mut stats))
                .len()
        })
        .sum();
    let per_query = |count: u64| count as f64 / poses.len() as f64;
    println!(
        "overlap {name} {label}: {ns:.0} ns/query, {:.1} touching pairs/query, {:.1} volume tests/query, {:.1} triangle tests/query",
        per_query(pairs as u64),
        per_query(stats.volume_tests),
        per_query(stats.triangle_tests)
    );
}

/// "; boxtree takes 0.50x FCL's time", when FCL's row was measured.
#[cfg(feature = "fcl")]
fn fcl_ratio(ours_ns: f64, fcl_ns: Option<f64>) -> String {
    fcl_ns
        .map(|fcl| format!("; boxtree takes {:.2}x FCL's time", ours_ns / fcl))
        .unwrap_or_default()
}

/// The fastest of five serial builds of both query-ready trees, per volume
/// (not a criterion figure: the build bench has those, per mesh).
fn print_build_times(name: &str, a: &TriMesh, b: &TriMesh) {
    fn both<V: BoundingVolume>(a: &TriMesh, b: &TriMesh, options: &BuildOptions) -> f64 {
        (0..5)
            .map(|_| {
                let start = std::time::Instant::now();
                let trees = (
                    MeshTree::<V>::build(a.clone(), options),
                    MeshTree::<V>::build(b.clone(), options),
                );
                let elapsed = start.elapsed().as_secs_f64() * 1e3;
                black_box(trees);
                elapsed
            })
            .fold(f64::INFINITY, f64::min)
    }
    let gottschalk = BuildOptions::gottschalk().serial();
    println!(
        "overlap {name}: both trees built serially in {:.2} ms (packed OBB), {:.2} ms (OBB), {:.2} ms (AABB), fastest of 5",
        both::<PackedObb>(a, b, &gottschalk),
        both::<Obb>(a, b, &gottschalk),
        both::<Aabb>(a, b, &BuildOptions::sah().serial()),
    );
}

/// FCL's pair for [`bench_pair`], built five times and timed (the fastest;
/// not a criterion figure), then checked against boxtree's packed-OBB answers
/// (`overlapping`, one per pose): FCL's overlapping count beside boxtree's,
/// the poses where they differ (printed, not a panic: FCL decides with its
/// own triangle test in double precision), and FCL's volume and triangle
/// tests per query.
#[cfg(feature = "fcl")]
fn fcl_check(
    name: &str,
    a: &TriMesh,
    b: &TriMesh,
    poses: &[Isometry],
    overlapping: &[bool],
) -> fcl::MeshPair {
    let mut built = std::time::Duration::MAX;
    for _ in 0..4 {
        let start = std::time::Instant::now();
        drop(black_box(fcl::MeshPair::new(a, b)));
        built = built.min(start.elapsed());
    }
    let start = std::time::Instant::now();
    let pair = fcl::MeshPair::new(a, b);
    let built = built.min(start.elapsed());
    let (mut hits, mut fcl_only, mut boxtree_only) = (0, 0, 0);
    let (mut volume_tests, mut triangle_tests) = (0, 0);
    for (pose, &ours) in poses.iter().zip(overlapping) {
        let theirs = pair.collide_counts(pose);
        assert_eq!(
            theirs.hit,
            pair.collides(pose),
            "the counting traversal answers as fcl::collide"
        );
        hits += usize::from(theirs.hit);
        fcl_only += usize::from(theirs.hit && !ours);
        boxtree_only += usize::from(ours && !theirs.hit);
        volume_tests += theirs.volume_tests;
        triangle_tests += theirs.triangle_tests;
    }
    let n = poses.len() as f64;
    let ours = overlapping.iter().filter(|&&o| o).count();
    println!(
        "overlap {name} fcl: both BVHModel<OBBRSS> built in {:.2} ms (fastest of 5, not a criterion figure); \
         overlapping: FCL {hits}, boxtree obb {ours}; {:.1} volume tests/query, {:.1} triangle tests/query",
        built.as_secs_f64() * 1e3,
        volume_tests as f64 / n,
        triangle_tests as f64 / n
    );
    if fcl_only + boxtree_only > 0 {
        println!(
            "overlap {name} fcl: *** FCL AND BOXTREE DISAGREE at {} of {} poses: {fcl_only} overlapping in FCL only, {boxtree_only} in boxtree only ***",
            fcl_only + boxtree_only,
            poses.len()
        );
    }
    pair
}

fn overlap(c: &mut Criterion) {
    let env = load("env.obj");
    let rob = load("rob.obj");
    let (env_tree, rob_tree) = (
        MeshTree::<PackedObb>::build(env.clone(), &BuildOptions::gottschalk()),
        MeshTree::<PackedObb>::build(rob.clone(), &BuildOptions::gottschalk()),
    );
    let bounds = env.aabb();
    let mut rng = SplitMix(1996);
    let env_poses = poses(&env_tree, &rob_tree, 2000, || {
        let t = bounds.center() + rng.point(1.0).coords.component_mul(&bounds.half_extents());
        Isometry::from_parts(Translation3::from(t.coords), rng.rotation())
    });
    bench_pair(c, "env vs rob", &env, &rob, &env_poses, true);

    // Procedural: a ball on rolling terrain, and on a flat plate (whose nodes
    // have no volume, so the descent rule splits the ball first).
    let terrain = TriMesh::terrain(100, 100.0, 6.0, 3);
    let ball = TriMesh::icosphere(Point::origin(), 4.0, 3);
    let (terrain_tree, ball_tree) = (
        MeshTree::<PackedObb>::build(terrain.clone(), &BuildOptions::gottschalk()),
        MeshTree::<PackedObb>::build(ball.clone(), &BuildOptions::gottschalk()),
    );
    let mut rng = SplitMix(7);
    let terrain_poses = poses(&terrain_tree, &ball_tree, 1000, || {
        let t = Vector::new(
            rng.range(-45.0, 45.0),
            rng.range(-45.0, 45.0),
            rng.range(-8.0, 8.0),
        );
        Isometry::from_parts(Translation3::from(t), rng.rotation())
    });
    bench_pair(c, "terrain vs ball", &terrain, &ball, &terrain_poses, false);
    let plate = TriMesh::terrain(60, 100.0, 0.0, 1);
    let plate_tree = MeshTree::<PackedObb>::build(plate.clone(), &BuildOptions::gottschalk());
    let mut rng = SplitMix(8);
    let plate_poses = poses(&plate_tree, &ball_tree, 1000, || {
        let t = Vector::new(
            rng.range(-45.0, 45.0),
            rng.range(-45.0, 45.0),
            rng.range(-5.0, 5.0),
        );
        Isometry::from_parts(Translation3::from(t), rng.rotation())
    });
    bench_pair(c, "flat plate vs ball", &plate, &ball, &plate_poses, false);

    let bunny = load("bunny.obj");
    let bunny_tree = MeshTree::<PackedObb>::build(bunny.clone(), &BuildOptions::gottschalk());
    let (center, reach) = (bunny.aabb().center(), bunny.aabb().half_extents().norm());
    let mut rng = SplitMix(2013);
    let bunny_poses = poses(&bunny_tree, &bunny_tree, 400, || {
        let rotation = rng.rotation();
        // Place the rotated copy's centre within 1.6 half-diagonals of the original's.
        let t = center + rng.point(1.0).coords * (1.6 * reach) - rotation * center.coords;
        Isometry::from_parts(Translation3::from(t.coords), rotation)
    });
    bench_pair(c, "bunny vs bunny", &bunny, &bunny, &bunny_poses, false);

    // The bunny against a copy half its size (about its box centre), turned
    // at random and moved within 1.45 times its box: every pose as drawn,
    // about 47% overlapping (as in the distance bench).
    let centre = bunny.aabb().center();
    let half = half_size(&bunny);
    let extent = bunny.aabb().half_extents() * 1.45;
    let mut rng = SplitMix(1945);
    let half_poses: Vec<Isometry> = (0..HALF_BUNNY_POSES)
        .map(|_| {
            let rotation = rng.rotation();
            let t =
                centre + rng.point(1.0).coords.component_mul(&extent) - rotation * centre.coords;
            Isometry::from_parts(Translation3::from(t.coords), rotation)
        })
        .collect();
    bench_pair(c, "bunny vs half bunny", &bunny, &half, &half_poses, true);
}

criterion_group!(benches, overlap);
criterion_main!(benches);
