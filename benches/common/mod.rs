//! Deterministic workloads and the side-by-side runner shared by the benches.
//! Inputs are generated outside the timed closures.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::Instant;

use boxtree::math::{Point, Rotation, Vector};
use criterion::{Criterion, Throughput};

#[path = "../../tests/common/splitmix.rs"]
mod splitmix;
#[allow(unused_imports)]
pub use splitmix::SplitMix;

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

/// Median nanoseconds per item of `run` (which processes `items` items per
/// call): up to 31 calls, fewer when each takes long (at least 3, about 3 s).
pub fn median_ns_per_item(run: &mut dyn FnMut() -> usize, items: usize) -> f64 {
    let budget = Instant::now();
    let mut samples = Vec::new();
    while samples.len() < 31 && (samples.len() < 3 || budget.elapsed().as_secs_f64() < 3.0) {
        let start = Instant::now();
        black_box(run());
        samples.push(start.elapsed().as_nanos() as f64 / items as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
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
    let (ours_ns, parry_ns) = time_both(c, name, items, &mut ours, &mut parry);
    println!(
        "side-by-side {name}: boxtree {ours_ns:.2} ns/query, parry3d {parry_ns:.2} ns/query, \
         speed-up {:.2}x (hits: boxtree {ours_count}, parry3d {parry_count} of {items})",
        parry_ns / ours_ns
    );
}

/// Runs both closures in one criterion group (throughput `items`) and
/// returns their median nanoseconds per item, measured again outside criterion
/// so the ratio can be printed in the same run.
pub fn time_both(
    c: &mut Criterion,
    name: &str,
    items: usize,
    ours: &mut dyn FnMut() -> usize,
    parry: &mut dyn FnMut() -> usize,
) -> (f64, f64) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(items as u64));
    group.bench_function("boxtree", |b| b.iter(|| black_box(ours())));
    group.bench_function("parry3d", |b| b.iter(|| black_box(parry())));
    group.finish();
    (
        median_ns_per_item(ours, items),
        median_ns_per_item(parry, items),
    )
}

/// Median milliseconds of one call of `run` (for builds: no criterion group).
///
/// Calls `run` untimed for a quarter of a second (at least once), then
/// times calls for at least a second and 31 calls, or, when each takes
/// long, about 3 s and at least 3 calls. The first calls after a criterion
/// group or another mesh ran up to 2x slower for several milliseconds, so
/// 31 calls of a 15 µs build (FCL's rob), half a millisecond in all, put
/// its printed speed-up anywhere from 1.2x to 1.9x between runs.
pub fn median_ms(run: &mut dyn FnMut() -> usize) -> f64 {
    let warm_up = Instant::now();
    loop {
        black_box(run());
        if warm_up.elapsed().as_secs_f64() >= 0.25 {
            break;
        }
    }
    let budget = Instant::now();
    let mut samples = Vec::new();
    loop {
        let elapsed = budget.elapsed().as_secs_f64();
        let enough = samples.len() >= 31 && elapsed >= 1.0;
        if samples.len() >= 3 && (enough || elapsed >= 3.0) {
            break;
        }
        let start = Instant::now();
        black_box(run());
        samples.push(start.elapsed().as_secs_f64() * 1e3);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
