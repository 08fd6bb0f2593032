//! Nanoseconds per primitive test, boxtree beside parry3d on the same inputs.
//!
//! Run with `cargo bench --bench primitives`; each group prints a
//! `side-by-side` line with both medians and the speed-up.

mod common;

use boxtree::intersect::{ray_aabb, segment_overlaps_aabb};
use boxtree::{Aabb, Obb, Segment};
use common::{SplitMix, pp, prot, pv, side_by_side};
use criterion::{Criterion, criterion_group, criterion_main};
use parry3d::query::RayCast;
use std::hint::black_box;

const N: usize = 4096;

fn obb_obb(c: &mut Criterion) {
    let mut rng = SplitMix(1);
    // Unit-ish boxes with centres spread so that about half the pairs overlap.
    let boxes: Vec<(Obb, Obb)> = (0..N)
        .map(|_| {
            let mut one =
                || Obb::from_rotation(rng.point(1.2), &rng.rotation(), rng.vector(0.2, 1.0));
            (one(), one())
        })
        .collect();
    let parry_boxes: Vec<_> = boxes
        .iter()
        .map(|(a, b)| {
            let pose = |o: &Obb| {
                let r = boxtree::Rotation::from_matrix(&o.axes);
                (
                    parry3d::math::Pose::from_parts(pp(&o.center), prot(&r)),
                    parry3d::shape::Cuboid::new(pv(&o.half_extents)),
                )
            };
            (pose(a), pose(b))
        })
        .collect();
    side_by_side(
        c,
        "obb_obb_overlap",
        N,
        || {
            boxes
                .iter()
                .filter(|(a, b)| black_box(a).overlaps(black_box(b)))
                .count()
        },
        || {
            parry_boxes
                .iter()
                .filter(|((pa, ca), (pb, cb))| {
                    let pos12 = pa.inv_mul(pb);
                    parry3d::query::details::intersection_test_cuboid_cuboid(
                        &pos12,
                        black_box(ca),
                        black_box(cb),
                    )
                })
                .count()
        },
    );
}

fn segments_and_boxes(rng: &mut SplitMix) -> Vec<(Segment, Aabb)> {
    (0..N)
        .map(|_| {
            let center = rng.point(1.0);
            let b = Aabb::from_center_half_extents(center, rng.vector(0.2, 1.0));
            (Segment::new(rng.point(3.0), rng.point(3.0)), b)
        })
        .collect()
}

fn segment_aabb_tests(c: &mut Criterion) {
    let inputs = segments_and_boxes(&mut SplitMix(2));
    let rays: Vec<_> = inputs.iter().map(|(s, _)| s.to_ray()).collect();
    let parry_inputs: Vec<_> = inputs
        .iter()
        .map(|(s, b)| {
            (
                parry3d::shape::Segment::new(pp(&s.a), pp(&s.b)),
                parry3d::query::Ray::new(pp(&s.a), pv(&s.direction())),
                parry3d::bounding_volume::Aabb::new(pp(&b.min), pp(&b.max)),
            )
        })
        .collect();
    side_by_side(
        c,
        "segment_aabb_sat",
        N,
        || {
            inputs
                .iter()
                .filter(|(s, b)| segment_overlaps_aabb(black_box(s), black_box(b)))
                .count()
        },
        || {
            parry_inputs
                .iter()
                .filter(|(s, _, b)| {
                    parry3d::query::details::intersection_test_aabb_segment(
                        black_box(b),
                        black_box(s),
                    )
                })
                .count()
        },
    );
    side_by_side(
        c,
        "segment_aabb_slab",
        N,
        || {
            rays.iter()
                .zip(&inputs)
                .filter(|(r, (_, b))| ray_aabb(black_box(r), 0.0, 1.0, black_box(b)).is_some())
                .count()
        },
        || {
            parry_inputs
                .iter()
                .filter(|(_, r, b)| {
                    black_box(b)
                        .cast_local_ray(black_box(r), 1.0, true)
                        .is_some()
                })
                .count()
        },
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = obb_obb, segment_aabb_tests
}
criterion_main!(benches);
