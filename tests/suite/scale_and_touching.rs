//! Primitive answers at the ends of `f32`'s range and at exact touches:
//! each case is a reproducer from a differential hunt against `f64`
//! oracles, where a square or a product of three coordinates overflowed,
//! went subnormal or rounded a touch apart.

use crate::common::SplitMix;
use boxtree::fit::{obb_from_points_covariance, obb_from_points_min_volume, ritter_sphere};
use boxtree::fit::{sphere_from_aabb, welzl_sphere};
use boxtree::intersect::{
    segment_overlaps_aabb, sphere_overlaps_aabb, sphere_overlaps_obb, triangle_overlaps_aabb,
    triangle_overlaps_obb,
};
use boxtree::sweep::sweep_sphere_sphere;
use boxtree::{Aabb, Matrix, Obb, Point, Segment, Sphere, Triangle, Vector};

fn unit_box() -> Aabb {
    Aabb::new(Point::new(-1.0, -1.0, -1.0), Point::new(1.0, 1.0, 1.0))
}

fn unit_obb() -> Obb {
    Obb::new(
        Point::origin(),
        Matrix::identity(),
        Vector::new(1.0, 1.0, 1.0),
    )
}

#[test]
fn spheres_far_apart_do_not_overlap_when_their_squares_overflow_f32() {
    // 1e25 away with radius 2e19: both squares were +inf in f32, and ∞ ≤ ∞.
    let far = Sphere::new(Point::new(1e25, 0.0, 0.0), 2e19);
    assert!(!sphere_overlaps_aabb(&far, &unit_box()));
    assert!(!sphere_overlaps_obb(&far, &unit_obb()));
    assert!(!far.overlaps(&Sphere::new(Point::origin(), 1.0)));
    assert!(!far.contains_point(&Point::origin()));
    // A radius that does reach the box.
    let reaching = Sphere::new(Point::new(1e25, 0.0, 0.0), 1e25);
    assert!(sphere_overlaps_aabb(&reaching, &unit_box()));
    assert!(sphere_overlaps_obb(&reaching, &unit_obb()));
    assert!(reaching.overlaps(&Sphere::new(Point::origin(), 1.0)));
}

#[test]
fn integer_spheres_touching_exactly_overlap_and_sweep_from_zero() {
    // |c₂ − c₁| = 20045 = 8018 + 12027 exactly; in f32 the squares rounded.
    let (a, b) = (
        Sphere::new(Point::origin(), 8018.0),
        Sphere::new(Point::new(12027.0, 16036.0, 0.0), 12027.0),
    );
    assert!(a.overlaps(&b) && b.overlaps(&a));
    let still = sweep_sphere_sphere(&a, &Vector::zeros(), &b, &Vector::zeros())
        .expect("touching spheres are in contact");
    assert_eq!((still.first, still.last), (0.0, 1.0));
    // Approaching from the touching start: contact from the first instant.
    let towards = Vector::new(-3.0, -4.0, 0.0);
    let hit = sweep_sphere_sphere(&a, &Vector::zeros(), &b, &towards).expect("contact");
    assert_eq!(hit.first, 0.0);
    // Moving apart from the touch: in contact at the start only.
    let away = sweep_sphere_sphere(&a, &Vector::zeros(), &b, &-towards).expect("contact");
    assert_eq!((away.first, away.last), (0.0, 0.0));
}

#[test]
fn sphere_fits_of_sets_wider_than_f32_squares_stay_finite() {
    let points = [Point::new(-1e20, 0.0, 0.0), Point::new(1e20, 0.0, 0.0)];
    for (name, sphere) in [
        ("welzl", welzl_sphere(&points)),
        ("ritter", ritter_sphere(&points)),
        ("box", sphere_from_aabb(&points)),
    ] {
        let sphere = sphere.expect("finite input");
        assert!(
            sphere.radius.is_finite() && sphere.radius >= 1e20 && sphere.radius <= 1.001e20,
            "{name}: {sphere:?}"
        );
        assert!(points.iter().all(|p| sphere.contains_point(p)), "{name}");
    }
}

#[test]
fn triangles_through_a_box_overlap_it_at_any_scale() {
    // Through the box's centre; from about 5e12 the normal axis's products
    // overflowed f32 and ∞ − ∞ separated.
    let big = |s: f32| {
        Triangle::new(
            Point::new(s, -s, 0.0),
            Point::new(0.0, s, -s),
            Point::new(-s, 0.0, s),
        )
    };
    for s in [1e3, 5e12, 1e13, 1e20, 1e30] {
        assert!(triangle_overlaps_aabb(&big(s), &unit_box()), "{s}");
        assert!(triangle_overlaps_obb(&big(s), &unit_obb()), "{s}");
        // The same plane moved off the box (x + y + z = 3s/100) misses it.
        let shifted = big(s);
        let off = Vector::new(0.01 * s, 0.01 * s, 0.01 * s);
        let away = Triangle::new(shifted.a + off, shifted.b + off, shifted.c + off);
        assert!(!triangle_overlaps_aabb(&away, &unit_box()), "{s}");
        assert!(!triangle_overlaps_obb(&away, &unit_obb()), "{s}");
    }
    // A tiny triangle 24% deep in a tiny box: the products went subnormal.
    let tiny = Triangle::new(
        Point::new(1.4210855e-14, -5.3290705e-15, -8.881784e-15),
        Point::new(3.5527137e-15, 5.3290705e-15, 1.15463195e-14),
        Point::new(-9.769963e-15, 1.8651747e-14, -8.881784e-15),
    );
    let tiny_box = Aabb::new(
        Point::new(-1.4210855e-14, -1.0658141e-14, -5.3290705e-15),
        Point::new(-5.3290705e-15, 1.4210855e-14, 1.2434498e-14),
    );
    assert!(triangle_overlaps_aabb(&tiny, &tiny_box));
    // Scaled by 2⁴⁰ (exact) it decided the same way before the fix too.
    let scale = 1_099_511_627_776.0;
    let scaled = Triangle::new(tiny.a * scale, tiny.b * scale, tiny.c * scale);
    let scaled_box = Aabb::new(tiny_box.min * scale, tiny_box.max * scale);
    assert!(triangle_overlaps_aabb(&scaled, &scaled_box));
}

#[test]
fn minimum_volume_boxes_of_huge_clouds_are_no_larger_than_the_covariance_box() {
    // About 1e33 across: the f32 volumes were all infinite, and the first
    // frame was kept.
    let points = [
        (-4.3163843e32, -4.7398883e33, 2.5507532e33),
        (-4.3178014e32, -4.7399923e33, 2.5510028e33),
        (-4.3192184e32, -4.740096e33, 2.5512525e33),
        (-4.3206355e32, -4.7402e33, 2.5515021e33),
        (-4.322053e32, -4.740304e33, 2.5517517e33),
        (-4.32347e32, -4.740408e33, 2.5520015e33),
        (-4.324887e32, -4.7405116e33, 2.552251e33),
    ]
    .map(|(x, y, z)| Point::new(x, y, z));
    let volume = |b: &Obb| {
        b.half_extents
            .iter()
            .map(|&h| 2.0 * f64::from(h))
            .product::<f64>()
    };
    let best = obb_from_points_min_volume(&points).expect("a box");
    let covariance = obb_from_points_covariance(&points).expect("a box");
    assert!(
        volume(&best) <= volume(&covariance),
        "{} > {}",
        volume(&best),
        volume(&covariance)
    );
}

#[test]
fn segments_ending_exactly_on_a_box_face_overlap_it() {
    // The hunt's case: `b` is the box's corner-adjacent face point.
    let segment = Segment::new(
        Point::new(1.3056133, 0.82700497, 1.4252516),
        Point::new(0.79761183, 0.035042707, -0.52368104),
    );
    let aabb = Aabb::new(
        Point::new(-0.053144306, -0.14336132, -0.5759912),
        Point::new(0.79761183, 0.33921713, -0.2432697),
    );
    assert!(aabb.contains_point(&segment.b));
    assert!(segment_overlaps_aabb(&segment, &aabb));
    // Random boxes and segments from outside to a point of a face, both ways.
    let mut rng = SplitMix(17);
    for _ in 0..20_000 {
        let (p, q) = (rng.point(2.0), rng.point(2.0));
        let aabb = Aabb::new(p.inf(&q), p.sup(&q));
        let axis = (rng.next_u64() % 3) as usize;
        let mut on = aabb.min
            + (aabb.max - aabb.min).component_mul(&Vector::new(
                rng.range(0.0, 1.0),
                rng.range(0.0, 1.0),
                rng.range(0.0, 1.0),
            ));
        on[axis] = if rng.next_u64().is_multiple_of(2) {
            aabb.min[axis]
        } else {
            aabb.max[axis]
        };
        let on = on.sup(&aabb.min).inf(&aabb.max);
        let mut outside = rng.point(4.0);
        outside[axis] = if on[axis] == aabb.min[axis] {
            aabb.min[axis] - 1.0
        } else {
            aabb.max[axis] + 1.0
        };
        assert!(segment_overlaps_aabb(&Segment::new(outside, on), &aabb));
        assert!(segment_overlaps_aabb(&Segment::new(on, outside), &aabb));
        // Stopping one f32 step short along the face's axis misses.
        let mut short = on;
        short[axis] = if on[axis] == aabb.min[axis] {
            on[axis].next_down()
        } else {
            on[axis].next_up()
        };
        assert!(!segment_overlaps_aabb(&Segment::new(outside, short), &aabb));
    }
}

#[test]
fn hits_on_tiny_triangles_keep_their_t() {
    // `t`'s products went subnormal in `f32` above the edge functions'
    // own `f64` switch: a 1e-14 triangle's `t` came out 0.09% off, a
    // 1e-12 one under a direction of length 1e10 at `t = 0`.
    use boxtree::{MeshTree, Ray, TriMesh};
    let mut checked = 0;
    for size in [1e-8f32, 1e-10, 1e-12, 1e-14, 1e-16] {
        let mesh = TriMesh::new(
            vec![
                Point::origin(),
                Point::new(size, 0.0, 0.0),
                Point::new(0.0, size, 0.0),
            ],
            vec![[0, 1, 2]],
        )
        .unwrap();
        let tree = MeshTree::<Aabb>::new(mesh);
        for height in [size, size * 37.0, size * 1e3] {
            for length in [1e-3f32, 1.0, 1e5, 1e10] {
                let origin = Point::new(0.25 * size, 0.375 * size, height);
                let ray = Ray::new(origin, Vector::new(0.0, 0.0, -length));
                let exact = f64::from(height) / f64::from(length);
                let hit = tree.closest_hit(ray).expect("straight down onto it");
                let error = (f64::from(hit.t) - exact).abs() / exact;
                assert!(
                    error < 1e-6,
                    "size {size:e} height {height:e} length {length:e}: t {:e} against {exact:e}",
                    hit.t
                );
                // Just short of the hit: no hit.
                let short = (exact * (1.0 - 1e-5)) as f32;
                assert!(tree.closest_hit(ray.span(0.0, short)).is_none());
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 60);
}
