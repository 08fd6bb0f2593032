//! Deterministic workloads and the side-by-side runner shared by the benches.
//! Inputs are generated outside the timed closures.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::Instant;

use boxtree::TriMesh;
use boxtree::math::{Isometry, Point, Rotation, Vector};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};

#[path = "../../tests/common/splitmix.rs"]
mod splitmix;
#[allow(unused_imports)]
pub use splitmix::SplitMix;
#[path = "../../tests/common/meshes.rs"]
mod meshes;
#[allow(unused_imports)]
pub use meshes::half_size;

/// The path of a mesh in the library's `tests/data` folder.
pub fn data(name: &str) -> String {
    format!("{}/../tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// parry3d's vector for one of ours.
pub fn pv(v: &Vector) -> parry3d::math::Vector {
    parry3d::math::Vector::new(v.x, v.y, v.z)
}

/// parry3d's vector for one of our points.
pub fn pp(p: &Point) -> parry3d::math::Vector {
    pv(&p.coords)
}

/// parry3d's rotation for one of ours.
pub fn prot(r: &Rotation) -> parry3d::math::Rotation {
    let q = r.quaternion();
    parry3d::math::Rotation::from_xyzw(q.i, q.j, q.k, q.w)
}

/// parry3d's triangle mesh for one of ours (same vertices and triangles).
pub fn parry_mesh(mesh: &TriMesh) -> parry3d::shape::TriMesh {
    parry3d::shape::TriMesh::new(
        mesh.vertices().iter().map(pp).collect(),
        mesh.indices().to_vec(),
    )
    .expect("valid mesh")
}

/// parry3d's pose for one of ours.
pub fn parry_pose(pose: &Isometry) -> parry3d::math::Pose {
    parry3d::math::Pose::from_parts(pv(&pose.translation.vector), prot(&pose.rotation))
}

/// Benchmarks `run` (which answers `items` queries per call) as `label` in
/// `group`, and returns criterion's median nanoseconds per item: the median
/// of criterion's own measurement samples, recorded as criterion takes
/// them, so the printed ratios and criterion's report come from one timer.
/// `sample_size` must be the group's. `None` when criterion did not measure
/// the function (filtered out, or a `--test` run).
pub fn bench_items(
    group: &mut BenchmarkGroup<'_, WallTime>,
    sample_size: usize,
    label: &str,
    items: usize,
    run: &mut dyn FnMut() -> usize,
) -> Option<f64> {
    let mut per_call: Vec<f64> = Vec::new();
    group.bench_function(label, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                black_box(run());
            }
            let elapsed = start.elapsed();
            per_call.push(elapsed.as_secs_f64() * 1e9 / iters as f64);
            elapsed
        })
    });
    // Criterion's warm-up calls come first; its measurement is the last
    // `sample_size` calls, one per sample.
    let warm_up = per_call.len().checked_sub(sample_size)?;
    Some(median(&mut per_call[warm_up..])? / items as f64)
}

/// The median of `values` (sorted in place), `None` when there are none.
fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n.is_multiple_of(2) => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
        _ => Some(values[n / 2]),
    }
}

/// [`bench_items`] for calls long enough to time one by one (tree builds,
/// a millisecond or more each), returning the median nanoseconds of the
/// single calls in criterion's measurement samples rather than the median
/// of the samples' means. On the development VM about one build in ten
/// meets memory the host took back after the previous build freed it
/// (virtio free page reporting: the fresh mappings then fault slowly), so
/// a sample's mean moved with how many such calls it happened to hold;
/// the single calls' median reads through them. Criterion's own report
/// still shows the mean-based estimate beside it.
pub fn bench_calls(
    group: &mut BenchmarkGroup<'_, WallTime>,
    sample_size: usize,
    label: &str,
    run: &mut dyn FnMut() -> usize,
) -> Option<f64> {
    let mut samples: Vec<Vec<f64>> = Vec::new();
    group.bench_function(label, |b| {
        b.iter_custom(|iters| {
            let mut calls = Vec::with_capacity(iters as usize);
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                black_box(run());
                let elapsed = start.elapsed();
                total += elapsed;
                calls.push(elapsed.as_secs_f64() * 1e9);
            }
            samples.push(calls);
            total
        })
    });
    // As in `bench_items`: the last `sample_size` calls of the closure are
    // criterion's measurement.
    let warm_up = samples.len().checked_sub(sample_size)?;
    median(&mut samples[warm_up..].concat())
}

/// Benchmarks boxtree and parry3d on the same inputs in one criterion group,
/// checks they agree on the answer count, and prints the median ratio.
///
/// Each closure runs the whole input set once and returns how many inputs
/// were hits/overlaps, so the work cannot be optimised away and both sides
/// are seen to answer the same question.
pub fn side_by_side(
    c: &mut Criterion,
    name: &str,
    items: usize,
    mut ours: impl FnMut() -> usize,
    mut parry: impl FnMut() -> usize,
) {
    let (ours_count, parry_count) = (ours(), parry());
    let Some((ours_ns, parry_ns)) = time_both(c, name, items, &mut ours, &mut parry) else {
        return;
    };
    println!(
        "side-by-side {name}: boxtree {ours_ns:.2} ns/query, parry3d {parry_ns:.2} ns/query, \
         speed-up {:.2}x (hits: boxtree {ours_count}, parry3d {parry_count} of {items})",
        parry_ns / ours_ns
    );
}

/// Runs both closures in one criterion group (throughput `items`) and
/// returns criterion's median nanoseconds per item of each ([`bench_items`]).
pub fn time_both(
    c: &mut Criterion,
    name: &str,
    items: usize,
    ours: &mut dyn FnMut() -> usize,
    parry: &mut dyn FnMut() -> usize,
) -> Option<(f64, f64)> {
    const SAMPLES: usize = 30;
    let mut group = c.benchmark_group(name);
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(items as u64));
    let ours_ns = bench_items(&mut group, SAMPLES, "boxtree", items, ours);
    let parry_ns = bench_items(&mut group, SAMPLES, "parry3d", items, parry);
    group.finish();
    ours_ns.zip(parry_ns)
}

/// The ratio of `ours`'s time to `theirs`'s, measured in alternation:
/// `rounds` rounds, each timing both on the same chunk of inputs (the
/// closures take the round and answer that round's chunk), the order
/// swapped every round. Returns the median ratio and its quartiles, and
/// the median time of a round of each (seconds).
///
/// Criterion times one function after the other, seconds apart; on a
/// shared machine whose speed drifts by several percent between such runs
/// (the raycast bench's rows moved by 7% between two runs of one binary),
/// their ratio carries that drift. Within a round both see the same state.
pub fn paired_ratio(
    rounds: usize,
    mut ours: impl FnMut(usize) -> usize,
    mut theirs: impl FnMut(usize) -> usize,
) -> PairedRatio {
    let time = |f: &mut dyn FnMut(usize) -> usize, round: usize| {
        let start = Instant::now();
        black_box(f(black_box(round)));
        start.elapsed().as_secs_f64()
    };
    // One untimed round each: caches and branch predictors warm.
    black_box((ours(0), theirs(0)));
    let times: Vec<(f64, f64)> = (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let a = time(&mut ours, round);
                (a, time(&mut theirs, round))
            } else {
                let b = time(&mut theirs, round);
                (time(&mut ours, round), b)
            }
        })
        .collect();
    let median = |mut v: Vec<f64>, q: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * q).round() as usize]
    };
    let ratios: Vec<f64> = times.iter().map(|(a, b)| a / b).collect();
    let ratio = [0.5, 0.25, 0.75].map(|q| median(ratios.clone(), q));
    PairedRatio {
        ratio,
        ours: median(times.iter().map(|t| t.0).collect(), 0.5),
        theirs: median(times.iter().map(|t| t.1).collect(), 0.5),
    }
}

/// What [`paired_ratio`] measured.
pub struct PairedRatio {
    /// Median, lower and upper quartile of the per-round ratios.
    pub ratio: [f64; 3],
    /// Median seconds of a round, ours and theirs.
    pub ours: f64,
    pub theirs: f64,
}

impl PairedRatio {
    /// "ours ns against theirs ns" per item, for rounds of `items` items.
    pub fn per_item(&self, items: usize) -> String {
        let ns = |seconds: f64| seconds * 1e9 / items as f64;
        format!("{:.1} ns against {:.1} ns", ns(self.ours), ns(self.theirs))
    }
}

/// The line of a paired any-hit and closest-hit measurement against
/// `peer`: both per-segment times and `ratio`'s reading of each pair.
pub fn paired_line_of(
    peer: &str,
    rounds: usize,
    segments: usize,
    [any, closest]: [PairedRatio; 2],
    ratio: impl Fn(&PairedRatio) -> String,
) -> String {
    let describe = |p: &PairedRatio| format!("{}, {}", p.per_item(segments), ratio(p));
    format!(
        "paired with {peer} ({rounds} alternating rounds of {segments} segments): \
         any-hit {}; closest hit {}",
        describe(&any),
        describe(&closest)
    )
}
