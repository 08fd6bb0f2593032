//! Nanoseconds per primitive test, boxtree beside parry3d on the same inputs.
//!
//! Run in `benches/` with `cargo bench --bench primitives`; each group prints a
//! `side-by-side` line with both medians and the speed-up.

mod common;

use boxtree::intersect::{WatertightRay, ray_aabb, segment_overlaps_aabb, triangles_overlap};
use boxtree::{Aabb, Obb, Segment, Triangle};
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

fn random_triangle(rng: &mut SplitMix, center: boxtree::Point, size: f32) -> Triangle {
    let mut corner = || center + rng.vector(-size, size);
    Triangle::new(corner(), corner(), corner())
}

fn parry_triangle(t: &Triangle) -> parry3d::shape::Triangle {
    parry3d::shape::Triangle::new(pp(&t.a), pp(&t.b), pp(&t.c))
}

fn ray_triangle_tests(c: &mut Criterion) {
    let mut rng = SplitMix(3);
    // Segments through a unit region and triangles around it: about a third hit.
    let inputs: Vec<(Segment, Triangle)> = (0..N)
        .map(|_| {
            let center = rng.point(0.2);
            let t = random_triangle(&mut rng, center, 1.0);
            (Segment::new(rng.point(2.0), rng.point(2.0)), t)
        })
        .collect();
    // The watertight ray is prepared per query, as a single ray-triangle call would.
    let parry_inputs: Vec<_> = inputs
        .iter()
        .map(|(s, t)| {
            (
                parry3d::query::Ray::new(pp(&s.a), pv(&s.direction())),
                parry_triangle(t),
            )
        })
        .collect();
    side_by_side(
        c,
        "ray_triangle",
        N,
        || {
            inputs
                .iter()
                .filter(|(s, t)| {
                    WatertightRay::new(&black_box(s).to_ray())
                        .and_then(|r| r.intersect(black_box(t), 0.0, 1.0))
                        .is_some()
                })
                .count()
        },
        || {
            parry_inputs
                .iter()
                .filter(|(r, t)| {
                    black_box(t)
                        .cast_local_ray(black_box(r), 1.0, false)
                        .is_some()
                })
                .count()
        },
    );
}

fn triangle_triangle_tests(c: &mut Criterion) {
    let mut rng = SplitMix(4);
    let inputs: Vec<(Triangle, Triangle)> = (0..N)
        .map(|_| {
            let (ca, cb) = (rng.point(0.5), rng.point(0.5));
            (
                random_triangle(&mut rng, ca, 1.0),
                random_triangle(&mut rng, cb, 1.0),
            )
        })
        .collect();
    let parry_inputs: Vec<_> = inputs
        .iter()
        .map(|(a, b)| (parry_triangle(a), parry_triangle(b)))
        .collect();
    let identity = parry3d::math::Pose::IDENTITY;
    side_by_side(
        c,
        "triangle_triangle (parry3d: generic GJK intersection_test)",
        N,
        || {
            inputs
                .iter()
                .filter(|(a, b)| triangles_overlap(black_box(a), black_box(b)))
                .count()
        },
        || {
            parry_inputs
                .iter()
                .filter(|(a, b)| {
                    parry3d::query::intersection_test(
                        &identity,
                        black_box(a),
                        &identity,
                        black_box(b),
                    )
                    .is_ok_and(|i| i.intersecting)
                })
                .count()
        },
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = obb_obb, segment_aabb_tests, ray_triangle_tests, triangle_triangle_tests
}
criterion_main!(benches);
