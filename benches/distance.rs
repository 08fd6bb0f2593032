//! Nearest point on a mesh, boxtree beside parry3d (`TriMesh` point
//! projection, `project_local_point`, not solid) on the same meshes and the
//! same points, in four bands of distance from the surface (on it, within
//! 1%, 1–10% and 10–100% of the box diagonal): one query per call, and a
//! batch on all cores.
//!
//! Mesh to mesh: FCL's env vs rob and the bunny against a half-size copy,
//! at random poses, boxtree's `PlacedMesh::distance` (AABB, packed and
//! plain OBB, and RSS trees) and `is_within`
//! beside parry3d's `query::distance` (TriMesh against TriMesh). With
//! `--features fcl` also FCL 0.7's `fcl::distance` on `BVHModel<OBBRSS>`
//! (`benches/fcl`), checked against boxtree's distances first.
//!
//! Run in `benches/` with `cargo bench --bench distance`. Each configuration prints a
//! `distance` line with ns/query and the speed-up over parry3d; criterion
//! records the same runs.

mod common;
#[cfg(feature = "fcl")]
mod fcl;

#[path = "../tests/common/bands.rs"]
mod bands;

use std::hint::black_box;

use boxtree::bvh::BoundingVolume;
use boxtree::{Aabb, ErrorBound, Isometry, MeshTree, Obb, PackedObb, Real, Rss, Threads, TriMesh};
use common::{SplitMix, bench_items, half_size, parry_mesh, parry_pose, pp};
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
    let parry = parry_mesh(&mesh);
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
            let ratio = parry_ratio(label, ns, &mut parry_ns);
            println!("distance {name} band {band} {label}: {ns:.1} ns/query{ratio}");
        }
        group.finish();
    }
}

/// Mesh–mesh distance at `poses` of B (A at the identity).
fn bench_pair(c: &mut Criterion, name: &str, a: &TriMesh, b: &TriMesh, poses: &[Isometry]) {
    let (aabb_a, aabb_b) = (
        MeshTree::<Aabb>::new(a.clone()),
        MeshTree::<Aabb>::new(b.clone()),
    );
    let (packed_a, packed_b) = (
        MeshTree::<PackedObb>::new(a.clone()),
        MeshTree::<PackedObb>::new(b.clone()),
    );
    let (obb_a, obb_b) = (
        MeshTree::<Obb>::new(a.clone()),
        MeshTree::<Obb>::new(b.clone()),
    );
    let (rss_a, rss_b) = (
        MeshTree::<Rss>::new(a.clone()),
        MeshTree::<Rss>::new(b.clone()),
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
                .distance(&aabb_b.placed(*p), ErrorBound::EXACT)
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
    #[cfg(feature = "fcl")]
    let fcl_pair = fcl_check(name, a, b, poses, &distances);
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
        #[cfg(feature = "fcl")]
        (
            "fcl distance (OBBRSS)",
            Box::new(|| {
                poses
                    .iter()
                    .map(|p| black_box(fcl_pair.distance(black_box(p))).0)
                    .filter(|d| *d <= 0.0)
                    .count()
            }),
        ),
        distance_run("aabb distance", &aabb_a, &aabb_b, poses, ErrorBound::EXACT),
        distance_run(
            "packed obb distance",
            &packed_a,
            &packed_b,
            poses,
            ErrorBound::EXACT,
        ),
        distance_run("obb distance", &obb_a, &obb_b, poses, ErrorBound::EXACT),
        distance_run("rss distance", &rss_a, &rss_b, poses, ErrorBound::EXACT),
        distance_run(
            "obb distance, 5% relative error",
            &obb_a,
            &obb_b,
            poses,
            ErrorBound::relative(0.05),
        ),
        within_run(
            "aabb is_within (median distance)",
            &aabb_a,
            &aabb_b,
            poses,
            tolerance,
        ),
        within_run(
            "obb is_within (median distance)",
            &obb_a,
            &obb_b,
            poses,
            tolerance,
        ),
    ];
    let mut group = c.benchmark_group(format!("distance/{name}"));
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(poses.len() as u64));
    let mut parry_ns = 0.0;
    #[cfg(feature = "fcl")]
    let mut fcl_ns = None;
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, poses.len(), &mut run) else {
            continue;
        };
        let ratio = parry_ratio(label, ns, &mut parry_ns);
        // boxtree's rows (after FCL's) also against FCL's distance; the
        // tolerance rows too, FCL having no tolerance query for meshes.
        #[cfg(feature = "fcl")]
        let ratio = if label.starts_with("fcl") {
            fcl_ns = Some(ns);
            ratio
        } else if label.starts_with("parry3d") {
            ratio
        } else {
            ratio + &fcl_ratio(ns, fcl_ns)
        };
        println!("distance {name} {label}: {:.2} us/pose{ratio}", ns / 1e3);
    }
    group.finish();
}

type Run<'a> = Box<dyn FnMut() -> usize + 'a>;

/// A row of boxtree distances between `a` (at the identity) and `b` at each
/// pose, counting the touching poses.
fn distance_run<'a, V: BoundingVolume>(
    label: &'a str,
    a: &'a MeshTree<V>,
    b: &'a MeshTree<V>,
    poses: &'a [Isometry],
    error: ErrorBound,
) -> (&'a str, Run<'a>) {
    let at = Isometry::identity();
    let run = move || {
        poses
            .iter()
            .filter_map(|p| black_box(a.placed(at).distance(&b.placed(*black_box(p)), error)))
            .filter(|d| d.distance == 0.0)
            .count()
    };
    (label, Box::new(run))
}

/// A row of boxtree tolerance queries, counting the poses within `tolerance`.
fn within_run<'a, V: BoundingVolume>(
    label: &'a str,
    a: &'a MeshTree<V>,
    b: &'a MeshTree<V>,
    poses: &'a [Isometry],
    tolerance: Real,
) -> (&'a str, Run<'a>) {
    let at = Isometry::identity();
    let run = move || {
        poses
            .iter()
            .filter(|p| black_box(a.placed(at).is_within(&b.placed(*black_box(*p)), tolerance)))
            .count()
    };
    (label, Box::new(run))
}

/// ", speed-up over parry3d 2.00x" for boxtree's rows; parry3d's own row
/// (its label starts with "parry3d") records its time in `parry_ns`.
fn parry_ratio(label: &str, ns: f64, parry_ns: &mut f64) -> String {
    if label.starts_with("parry3d") {
        *parry_ns = ns;
        return String::new();
    }
    if *parry_ns == 0.0 {
        return String::new();
    }
    format!(", speed-up over parry3d {:.2}x", *parry_ns / ns)
}

/// "; boxtree takes 0.50x FCL's time", when FCL's row was measured.
#[cfg(feature = "fcl")]
fn fcl_ratio(ours_ns: f64, fcl_ns: Option<f64>) -> String {
    fcl_ns
        .map(|fcl| format!("; boxtree takes {:.2}x FCL's time", ours_ns / fcl))
        .unwrap_or_default()
}

/// FCL's pair for [`bench_pair`], built once and timed (not a criterion
/// figure), then checked against boxtree's AABB-tree `distances` at every
/// pose: the largest difference, the poses differing by more than 1e-4 of
/// A's box diagonal, what FCL answers where boxtree finds the surfaces
/// touching, and whether FCL's nearest points are the distance apart.
#[cfg(feature = "fcl")]
fn fcl_check(
    name: &str,
    a: &TriMesh,
    b: &TriMesh,
    poses: &[Isometry],
    distances: &[Real],
) -> fcl::MeshPair {
    let start = std::time::Instant::now();
    let pair = fcl::MeshPair::new(a, b);
    let built = start.elapsed();
    let diagonal = 2.0 * f64::from(a.aabb().half_extents().norm());
    let (mut worst, mut off) = (0.0, 0);
    let (mut zero, mut negative, mut positive, mut largest) = (0, 0, 0, f64::NEG_INFINITY);
    let (mut fcl_only, mut gap) = (0, 0.0);
    for (pose, &ours) in poses.iter().zip(distances) {
        let (theirs, points) = pair.distance(pose);
        let ours = f64::from(ours);
        let difference = (theirs.max(0.0) - ours).abs();
        worst = f64::max(worst, difference);
        off += usize::from(difference > 1e-4 * diagonal);
        if ours == 0.0 {
            largest = largest.max(theirs);
            if theirs == 0.0 {
                zero += 1;
            } else if theirs < 0.0 {
                negative += 1;
            } else {
                positive += 1;
            }
        } else if theirs <= 0.0 {
            fcl_only += 1;
        } else {
            let between = (0..3)
                .map(|k| (points[k] - points[k + 3]).powi(2))
                .sum::<f64>()
                .sqrt();
            gap = f64::max(gap, (between - theirs).abs());
        }
    }
    println!(
        "distance {name} fcl: both BVHModel<OBBRSS> built in {:.2} ms (one build, not a criterion figure); \
         largest difference from boxtree's aabb distance {worst:.2e} (negatives as 0), {off} poses over 1e-4 of A's diagonal {diagonal:.3}; \
         at boxtree's touching poses FCL answers 0 at {zero}, negative at {negative}, positive at {positive} (largest {largest:.2e}); \
         {fcl_only} poses touching in FCL only; nearest points apart by the distance within {gap:.2e} elsewhere",
        built.as_secs_f64() * 1e3
    );
    pair
}

fn load(name: &str) -> TriMesh {
    TriMesh::load(common::data(name)).expect("mesh loads")
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
    let half = half_size(&bunny);
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
