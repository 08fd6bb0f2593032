//! Boxes, spheres and planes: AABB/OBB overlap, segment–box, sphere–box and
//! box–plane tests against independent oracles (the f64 generic SAT, corner
//! enumeration, dense sampling).

use crate::common;

use boxtree::fit::{pack_obb, packed_obb_with_axes};
use boxtree::intersect::{
    ConvexPolytope, PlaneSide, aabb_plane_side, obb_plane_side, polytopes_overlap, ray_aabb,
    ray_obb, segment_aabb, segment_obb, segment_overlaps_aabb, segment_overlaps_obb,
    sphere_overlaps_aabb, sphere_overlaps_obb,
};
use boxtree::math::nalgebra;
use boxtree::{
    Aabb, CenterExtents, Isometry, Obb, PackedObb, Plane, PlaneError, Point, Ray, Real, Segment,
    Sphere, Vector,
};
use common::{SplitMix, isometry, matrix, point, rotation, vector};
use proptest::prelude::*;

fn obb_overlaps_oracle(a: &Obb, b: &Obb) -> bool {
    let (ca, cb) = (a.corners(), b.corners());
    let (na, nb) = (
        [a.axis(0), a.axis(1), a.axis(2)],
        [b.axis(0), b.axis(1), b.axis(2)],
    );
    polytopes_overlap(
        &ConvexPolytope {
            vertices: &ca,
            face_normals: &na,
            edge_directions: &na,
        },
        &ConvexPolytope {
            vertices: &cb,
            face_normals: &nb,
            edge_directions: &nb,
        },
    )
}

fn segment_box_oracle(s: &Segment, b: &Aabb) -> bool {
    let corners = b.corners();
    let axes = [Vector::x(), Vector::y(), Vector::z()];
    let d = [s.direction()];
    let ends = [s.a, s.b];
    polytopes_overlap(
        &ConvexPolytope {
            vertices: &ends,
            face_normals: &[],
            edge_directions: &d,
        },
        &ConvexPolytope {
            vertices: &corners,
            face_normals: &axes,
            edge_directions: &axes,
        },
    )
}

fn obb_strategy(extent: f32) -> impl Strategy<Value = Obb> {
    (
        point(extent),
        rotation(),
        vector(extent).prop_map(|v| v.abs()),
    )
        .prop_map(|(c, r, h)| Obb::new(c, matrix(&r), h))
}

fn aabb_strategy(extent: f32) -> impl Strategy<Value = Aabb> {
    (point(extent), point(extent)).prop_map(|(a, b)| Aabb::from_corners(a, b))
}

/// Margin by which the pair is away from touching, measured by the f64 oracle
/// on shrunk/grown boxes: the boolean must agree whenever the answer is stable.
fn stable_obb_pair(a: &Obb, b: &Obb) -> Option<bool> {
    let grow = |o: &Obb, f: f32| {
        Obb::new(
            o.center,
            o.axes,
            o.half_extents * f + Vector::repeat(1e-3 * (f - 1.0)),
        )
    };
    let shrunk = obb_overlaps_oracle(&grow(a, 0.999), &grow(b, 0.999));
    let grown = obb_overlaps_oracle(&grow(a, 1.001), &grow(b, 1.001));
    (shrunk == grown).then_some(shrunk)
}

proptest! {
    #[test]
    fn obb_overlap_agrees_with_generic_sat(a in obb_strategy(4.0), b in obb_strategy(4.0)) {
        if let Some(expected) = stable_obb_pair(&a, &b) {
            prop_assert_eq!(a.overlaps(&b), expected);
        }
    }

    #[test]
    fn obb_overlap_is_symmetric(a in obb_strategy(4.0), b in obb_strategy(4.0)) {
        if stable_obb_pair(&a, &b).is_some() {
            prop_assert_eq!(a.overlaps(&b), b.overlaps(&a));
        }
    }

    #[test]
    fn obb_overlap_is_invariant_under_rigid_motion(a in obb_strategy(4.0), b in obb_strategy(4.0), iso in isometry(100.0)) {
        if stable_obb_pair(&a, &b).is_some() {
            prop_assert_eq!(a.overlaps(&b), a.transformed(&iso).overlaps(&b.transformed(&iso)));
        }
    }

    #[test]
    fn obb_with_identity_axes_matches_aabb_overlap(a in aabb_strategy(4.0), b in aabb_strategy(4.0)) {
        prop_assert_eq!(Obb::from_aabb(&a).overlaps(&Obb::from_aabb(&b)), a.overlaps(&b));
        prop_assert_eq!(a.to_center_extents().overlaps(&b.to_center_extents()), a.overlaps(&b));
    }

    #[test]
    fn obb_to_aabb_contains_corners_and_contains_point_agrees(o in obb_strategy(4.0), p in point(8.0)) {
        let aabb = o.to_aabb();
        for c in o.corners() {
            prop_assert!(aabb.expanded(1e-4).contains_point(&c));
        }
        let local = o.to_local(&p);
        let margin = (0..3).map(|i| (local[i].abs() - o.half_extents[i]).abs()).fold(f32::INFINITY, f32::min);
        if margin > 1e-4 {
            let inside = (0..3).all(|i| local[i].abs() <= o.half_extents[i]);
            prop_assert_eq!(o.contains_point(&p), inside);
            prop_assert_eq!(o.distance_squared(&p) == 0.0, inside);
        }
        prop_assert!(o.has_valid_frame(1e-5));
    }

    #[test]
    fn obb_closest_point_is_no_farther_than_any_sample(o in obb_strategy(4.0), p in point(8.0)) {
        let q = o.closest_point(&p);
        let best = (q - p).norm();
        prop_assert!((best * best - o.distance_squared(&p)).abs() <= 1e-3 * (1.0 + best * best));
        // Dense grid over the box volume and surface: no sample is closer.
        let n = 8;
        for i in 0..=n { for j in 0..=n { for k in 0..=n {
            let s = Vector::new(i as f32, j as f32, k as f32) / n as f32 * 2.0 - Vector::repeat(1.0);
            let sample = o.from_local(&s.component_mul(&o.half_extents));
            prop_assert!((sample - p).norm() >= best - 1e-4 * (1.0 + best));
        }}}
    }

    #[test]
    fn segment_box_sat_slab_and_oracle_agree(a in point(4.0), b in point(4.0), bx in aabb_strategy(3.0)) {
        let s = Segment::new(a, b);
        let expected_grown = segment_box_oracle(&s, &bx.expanded(1e-3));
        let expected_shrunk = segment_box_oracle(&s, &bx.expanded(-1e-3));
        if expected_grown == expected_shrunk && !bx.expanded(-1e-3).is_empty() {
            prop_assert_eq!(segment_overlaps_aabb(&s, &bx), expected_grown);
            prop_assert_eq!(segment_aabb(&s, &bx).is_some(), expected_grown);
        }
    }

    #[test]
    fn slab_entry_and_exit_points_lie_on_the_box(a in point(4.0), b in point(4.0), bx in aabb_strategy(3.0)) {
        let s = Segment::new(a, b);
        if let Some(hit) = segment_aabb(&s, &bx) {
            prop_assert!(0.0 <= hit.t_enter && hit.t_enter <= hit.t_exit && hit.t_exit <= 1.0);
            let tol = 1e-4;
            prop_assert!(bx.expanded(tol).contains_point(&hit.entry_point));
            prop_assert!(bx.expanded(tol).contains_point(&s.point_at(hit.t_exit)));
            // Just before the entry (if entry is not the start) the segment is outside.
            if hit.t_enter > 1e-3 {
                prop_assert!(!bx.expanded(-tol).contains_point(&s.point_at(hit.t_enter - 1e-3)));
            }
            // Dense sampling: every sample inside the box lies within [t_enter, t_exit].
            for i in 0..=200 {
                let t = i as f32 / 200.0;
                if bx.expanded(-tol).contains_point(&s.point_at(t)) {
                    prop_assert!(hit.t_enter - 1e-4 <= t && t <= hit.t_exit + 1e-4);
                }
            }
        } else {
            for i in 0..=200 {
                prop_assert!(!bx.expanded(-1e-4).contains_point(&s.point_at(i as f32 / 200.0)));
            }
        }
    }

    #[test]
    fn segment_obb_equals_segment_aabb_in_the_box_frame(a in point(4.0), b in point(4.0), o in obb_strategy(3.0)) {
        let s = Segment::new(a, b);
        let local = Segment::new(Point::from(o.to_local(&a)), Point::from(o.to_local(&b)));
        let local_box = Aabb::from_center_half_extents(Point::origin(), o.half_extents);
        if segment_overlaps_aabb(&local, &local_box.expanded(1e-3)) == segment_overlaps_aabb(&local, &local_box.expanded(-1e-3)) {
            prop_assert_eq!(segment_overlaps_obb(&s, &o), segment_overlaps_aabb(&local, &local_box));
            prop_assert_eq!(segment_obb(&s, &o).is_some(), segment_overlaps_aabb(&local, &local_box));
        }
        // Hit or miss may differ only within rounding of the frame change; t agrees closely.
        if let (Some(world), Some(boxed)) = (segment_obb(&s, &o), segment_aabb(&local, &local_box)) {
            prop_assert!((world.t_enter - boxed.t_enter).abs() <= 1e-5);
            prop_assert!((world.t_exit - boxed.t_exit).abs() <= 1e-5);
        }
    }

    #[test]
    fn sphere_box_overlap_matches_closest_point_distance(c in point(6.0), r in 0.0f32..3.0, o in obb_strategy(3.0)) {
        let s = Sphere::new(c, r);
        let d = (o.closest_point(&c) - c).norm();
        if (d - r).abs() > 1e-3 {
            prop_assert_eq!(sphere_overlaps_obb(&s, &o), d <= r);
        }
        let local = Sphere::new(Point::from(o.to_local(&c)), r);
        let local_box = Aabb::from_center_half_extents(Point::origin(), o.half_extents);
        if (d - r).abs() > 1e-3 {
            prop_assert_eq!(sphere_overlaps_aabb(&local, &local_box), d <= r);
        }
    }

    #[test]
    fn box_plane_side_matches_corner_enumeration(o in obb_strategy(4.0), p in point(4.0), n in vector(1.0)) {
        prop_assume!(n.norm() > 0.1);
        let plane = Plane::from_point_normal(&p, &n).unwrap();
        let d: Vec<f32> = o.corners().iter().map(|c| plane.signed_distance(c)).collect();
        let (lo, hi) = d.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), x| (l.min(*x), h.max(*x)));
        let expected = if lo > 1e-4 { Some(PlaneSide::Front) } else if hi < -1e-4 { Some(PlaneSide::Back) }
            else if lo < -1e-4 && hi > 1e-4 { Some(PlaneSide::Straddling) } else { None };
        if let Some(e) = expected {
            prop_assert_eq!(obb_plane_side(&o, &plane), e);
            let aabb = o.to_aabb();
            let da: Vec<f32> = aabb.corners().iter().map(|c| plane.signed_distance(c)).collect();
            let (alo, ahi) = da.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), x| (l.min(*x), h.max(*x)));
            if alo.abs() > 1e-4 && ahi.abs() > 1e-4 {
                let ae = if alo > 0.0 { PlaneSide::Front } else if ahi < 0.0 { PlaneSide::Back } else { PlaneSide::Straddling };
                prop_assert_eq!(aabb_plane_side(&aabb, &plane), ae);
            }
        }
    }

    #[test]
    fn aabb_union_contains_both_and_views_agree(a in aabb_strategy(4.0), b in aabb_strategy(4.0), p in point(5.0)) {
        let u = a.union(&b);
        prop_assert!(u.contains(&a) && u.contains(&b));
        prop_assert!(u.surface_area() >= a.surface_area().max(b.surface_area()) - 1e-4);
        let ce: CenterExtents = a.into();
        let margin = (0..3).map(|i| (p[i] - a.min[i]).abs().min((p[i] - a.max[i]).abs())).fold(f32::INFINITY, f32::min);
        if margin > 1e-4 {
            prop_assert_eq!(ce.contains_point(&p), a.contains_point(&p));
        }
        prop_assert_eq!(a.intersection(&b).is_empty(), !a.overlaps(&b));
    }

    #[test]
    fn plane_signed_distance_is_the_projection_offset(a in point(10.0), b in point(10.0), c in point(10.0), p in point(10.0)) {
        match Plane::from_points(&a, &b, &c) {
            Ok(plane) => {
                prop_assert!((plane.normal().norm() - 1.0).abs() < 1e-5);
                let q = plane.project(&p);
                prop_assert!(plane.signed_distance(&q).abs() < 1e-3);
                prop_assert!(((p - q).norm() - plane.signed_distance(&p).abs()).abs() < 1e-3);
                for v in [a, b, c] { prop_assert!(plane.signed_distance(&v).abs() < 1e-3); }
            }
            Err(e) => prop_assert_eq!(e, PlaneError::CollinearPoints),
        }
    }
}

#[test]
fn face_to_face_touching_boxes_overlap() {
    let a = Obb::from_aabb(&Aabb::new(
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 1.0, 1.0),
    ));
    let b = Obb::from_aabb(&Aabb::new(
        Point::new(1.0, 0.25, 0.25),
        Point::new(2.0, 0.75, 0.75),
    ));
    assert!(a.overlaps(&b) && b.overlaps(&a));
    let a_box = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let b_box = Aabb::new(Point::new(1.0, 1.0, 1.0), Point::new(2.0, 2.0, 2.0));
    assert!(
        a_box.overlaps(&b_box),
        "corner-touching AABBs overlap (inclusive test)"
    );
    assert!(
        a_box
            .to_center_extents()
            .overlaps(&b_box.to_center_extents())
    );
}

#[test]
fn edge_to_edge_touching_rotated_boxes_overlap() {
    // B is a unit cube rotated 45° about z whose vertical edge touches A's face x = 1.
    let r = boxtree::Rotation::from_axis_angle(&Vector::z_axis(), std::f32::consts::FRAC_PI_4);
    let h = 0.5;
    let reach = h * std::f32::consts::SQRT_2;
    let a = Obb::new(
        Point::origin(),
        boxtree::Matrix::identity(),
        Vector::repeat(h),
    );
    let touching = Obb::from_rotation(Point::new(h + reach, 0.0, 0.0), &r, Vector::repeat(h));
    let apart = Obb::from_rotation(
        Point::new(h + reach + 1e-3, 0.0, 0.0),
        &r,
        Vector::repeat(h),
    );
    assert!(a.overlaps(&touching));
    assert!(!a.overlaps(&apart));
}

#[test]
fn parallel_edges_with_rounding_noise_are_not_falsely_separated() {
    // The classic listing bug (SAT without a parallel-edge guard): when box axes
    // are parallel up to rounding, R = AᵀB is the identity plus noise that is
    // not skew-symmetric. On the degenerate axis Aᵢ × Bᵢ the projected distance
    // and radii are all noise-sized, and an unguarded test "separates" boxes
    // that overlap by half their size.
    let h = Vector::repeat(1.0);
    let a = Obb::new(Point::origin(), boxtree::Matrix::identity(), h);
    for row in 0..3 {
        for col in 0..3 {
            if row == col {
                continue;
            }
            for noise in [1e-7f32, -1e-7, 6e-8, 1e-8] {
                let mut axes = boxtree::Matrix::identity();
                axes[(row, col)] = noise;
                for k in 0..3 {
                    for sign in [1.0f32, -1.0] {
                        // B's centre 1.5 away along axis k: the boxes overlap by 0.5.
                        let mut c = Point::origin();
                        c[k] = 1.5 * sign;
                        let b = Obb::new(c, axes, h);
                        assert!(
                            a.overlaps(&b),
                            "false separation: noise {noise} at ({row},{col}), offset axis {k}"
                        );
                        assert!(b.overlaps(&a));
                    }
                }
            }
        }
    }
}

#[test]
fn nearly_parallel_long_boxes_overlapping_are_reported() {
    let mut rng = SplitMix(7);
    for _ in 0..20_000 {
        let angle = rng.range(-1e-5, 1e-5);
        let axis = Vector::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        let Some(axis) = nalgebra::Unit::try_new(axis, 1e-3) else {
            continue;
        };
        let r = boxtree::Rotation::from_axis_angle(&axis, angle);
        let long = Vector::new(1000.0, 1.0, 1.0);
        let a = Obb::new(Point::origin(), boxtree::Matrix::identity(), long);
        // B overlaps A by construction: its centre lies inside A.
        let c = Point::new(
            rng.range(-999.0, 999.0),
            rng.range(-0.9, 0.9),
            rng.range(-0.9, 0.9),
        );
        let b = Obb::from_rotation(c, &r, long);
        assert!(
            a.overlaps(&b) && b.overlaps(&a),
            "false separation at angle {angle}"
        );
    }
}

#[test]
fn identical_boxes_overlap_under_any_rotation() {
    let mut rng = SplitMix(11);
    for _ in 0..1000 {
        let r = rng.rotation();
        let c = rng.point(1e6);
        let o = Obb::from_rotation(c, &r, Vector::new(1e-6, 2e-6, 3e-6));
        assert!(o.overlaps(&o));
        let big = Obb::from_rotation(c, &r, Vector::new(1e6, 2e6, 3e6));
        assert!(big.overlaps(&big) && big.overlaps(&o) && o.overlaps(&big));
    }
}

#[test]
fn segment_lying_in_a_face_is_a_hit() {
    let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let s = Segment::new(Point::new(-1.0, 0.5, 1.0), Point::new(2.0, 0.5, 1.0));
    assert!(segment_overlaps_aabb(&s, &b));
    let hit = segment_aabb(&s, &b).expect("in-face segment hits");
    assert_eq!(hit.t_enter, 1.0 / 3.0);
    assert_eq!(hit.t_exit, 2.0 / 3.0);
    assert_eq!(hit.entry_point, Point::new(0.0, 0.5, 1.0));
}

#[test]
fn segment_touching_an_edge_or_corner_is_a_hit() {
    let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let edge = Segment::new(Point::new(-1.0, 1.0, 2.0), Point::new(1.0, 1.0, 0.0)); // grazes the edge y=1, x=0..1 at (0,1,1)
    assert!(segment_overlaps_aabb(&edge, &b));
    assert!(segment_aabb(&edge, &b).is_some());
    let corner = Segment::new(Point::new(2.0, 2.0, 2.0), Point::new(1.0, 1.0, 1.0));
    assert!(segment_overlaps_aabb(&corner, &b));
    assert_eq!(segment_aabb(&corner, &b).unwrap().t_enter, 1.0);
    let beside = Segment::new(
        Point::new(-1.0, 1.0 + 1e-6, 2.0),
        Point::new(1.0, 1.0 + 1e-6, 0.0),
    );
    assert!(!segment_overlaps_aabb(&beside, &b));
    assert!(segment_aabb(&beside, &b).is_none());
}

#[test]
fn segment_starting_inside_is_a_hit_at_zero() {
    let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let s = Segment::new(Point::new(0.5, 0.5, 0.5), Point::new(0.6, 0.5, 0.5));
    assert!(segment_overlaps_aabb(&s, &b));
    let hit = segment_aabb(&s, &b).unwrap();
    assert_eq!((hit.t_enter, hit.t_exit), (0.0, 1.0));
}

#[test]
fn axis_parallel_ray_on_a_face_plane_hits_without_nan() {
    let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    // Origin exactly on the plane x = 0 with zero x direction: 0 · ∞ would be NaN in a naive slab.
    let ray = Ray::new(Point::new(0.0, 0.5, -3.0), Vector::new(0.0, 0.0, 1.0));
    let hit = ray_aabb(&ray, 0.0, f32::INFINITY, &b).expect("ray along a face hits");
    assert_eq!((hit.t_enter, hit.t_exit), (3.0, 4.0));
    let outside = Ray::new(Point::new(-1e-7, 0.5, -3.0), Vector::new(0.0, 0.0, 1.0));
    assert!(ray_aabb(&outside, 0.0, f32::INFINITY, &b).is_none());
}

#[test]
fn zero_length_segment_hits_only_when_its_point_is_in_the_box() {
    let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    for (p, inside) in [
        (Point::new(0.5, 0.5, 0.5), true),
        (Point::new(1.0, 1.0, 1.0), true),
        (Point::new(1.5, 0.5, 0.5), false),
    ] {
        let s = Segment::new(p, p);
        assert_eq!(segment_overlaps_aabb(&s, &b), inside);
        assert_eq!(segment_aabb(&s, &b).is_some(), inside);
    }
}

#[test]
fn ray_obb_reports_world_entry_point() {
    let r = boxtree::Rotation::from_axis_angle(&Vector::z_axis(), 0.3);
    let o = Obb::from_rotation(Point::new(5.0, 0.0, 0.0), &r, Vector::new(1.0, 1.0, 1.0));
    let ray = Ray::new(Point::origin(), Vector::x());
    let hit = ray_obb(&ray, 0.0, 100.0, &o).unwrap();
    assert!(
        o.closest_point(&hit.entry_point) == hit.entry_point
            || o.distance_squared(&hit.entry_point) < 1e-10
    );
    assert!((hit.entry_point.y).abs() < 1e-6);
}

#[test]
fn non_finite_inputs_give_documented_answers() {
    let b = Aabb::new(Point::new(0.0, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    let nan = Point::new(f32::NAN, 0.5, 0.5);
    assert!(!segment_overlaps_aabb(
        &Segment::new(nan, Point::new(0.5, 0.5, 0.5)),
        &b
    ));
    assert!(segment_aabb(&Segment::new(nan, Point::new(0.5, 0.5, 0.5)), &b).is_none());
    assert!(
        ray_aabb(
            &Ray::new(Point::new(0.5, 0.5, 0.5), Vector::x()),
            f32::NAN,
            1.0,
            &b
        )
        .is_none()
    );
    assert!(
        ray_aabb(
            &Ray::new(Point::new(0.5, 0.5, 0.5), Vector::new(f32::NAN, 0.0, 0.0)),
            0.0,
            1.0,
            &b
        )
        .is_none()
    );
    assert!(!sphere_overlaps_aabb(&Sphere::new(nan, 1.0), &b));
    assert!(!sphere_overlaps_aabb(
        &Sphere::new(Point::origin(), f32::NAN),
        &b
    ));
    assert!(!b.contains_point(&nan));
    let o = Obb::from_aabb(&b);
    assert!(!sphere_overlaps_obb(&Sphere::new(nan, 1.0), &o));
    // A NaN box is never reported clear of another box or plane (conservative for tree pruning).
    let nan_box = Obb::new(nan, boxtree::Matrix::identity(), Vector::repeat(1.0));
    assert!(nan_box.overlaps(&o));
    let plane = Plane::from_point_normal(&Point::origin(), &Vector::z()).unwrap();
    assert_eq!(obb_plane_side(&nan_box, &plane), PlaneSide::Straddling);
    assert_eq!(
        Plane::from_point_normal(&nan, &Vector::z()),
        Err(PlaneError::NonFinite)
    );
    assert_eq!(
        Plane::from_points(&nan, &Point::origin(), &Point::new(1.0, 0.0, 0.0)),
        Err(PlaneError::NonFinite)
    );
}

#[test]
fn planes_from_degenerate_input_are_typed_errors() {
    let o = Point::origin();
    assert_eq!(
        Plane::from_point_normal(&o, &Vector::zeros()),
        Err(PlaneError::ZeroNormal)
    );
    let collinear = Plane::from_points(&o, &Point::new(1.0, 1.0, 1.0), &Point::new(2.0, 2.0, 2.0));
    assert_eq!(collinear, Err(PlaneError::CollinearPoints));
    assert_eq!(
        Plane::from_points(&o, &o, &o),
        Err(PlaneError::CollinearPoints)
    );
    let huge = Plane::from_points(
        &Point::new(3e30, 0.0, 0.0),
        &Point::new(0.0, 3e30, 0.0),
        &Point::new(0.0, 0.0, 3e30),
    )
    .unwrap();
    assert!((huge.normal() - Vector::repeat(1.0 / 3f32.sqrt())).norm() < 1e-5);
    let p = Plane::from_points(&o, &Point::new(1.0, 0.0, 0.0), &Point::new(0.0, 1.0, 0.0)).unwrap();
    assert_eq!(*p.normal(), Vector::z(), "counter-clockwise points face +z");
    assert_eq!(p.signed_distance(&Point::new(3.0, 4.0, -2.0)), -2.0);
    assert_eq!(
        p.flipped().signed_distance(&Point::new(3.0, 4.0, -2.0)),
        2.0
    );
}

#[test]
fn aabb_transform_bounds_every_transformed_corner() {
    let mut rng = SplitMix(3);
    for _ in 0..500 {
        let b = Aabb::from_corners(rng.point(5.0), rng.point(5.0));
        let iso = Isometry::from_parts(rng.point(10.0).coords.into(), rng.rotation());
        let t = b.transformed(&iso).expanded(1e-4);
        for c in b.corners() {
            assert!(t.contains_point(&(iso * c)));
        }
        assert!(Aabb::EMPTY.transformed(&iso).is_empty());
    }
    assert_eq!(Aabb::EMPTY.surface_area(), 0.0);
    assert!(
        Aabb::EMPTY
            .union(&Aabb::new(Point::origin(), Point::origin()))
            .contains_point(&Point::origin())
    );
}

// ---- Packed OBBs: the rotation as a quaternion's vector part ----

proptest! {
    /// Decoding any stored frame, including ones whose implied `w` is zero
    /// or whose vector part rounds past unit length, gives a rotation.
    #[test]
    fn packed_frames_decode_to_rotations(
        x in -1.0f32..1.0, y in -1.0f32..1.0, z in -1.0f32..1.0, scale in 0.0f32..1.0001,
    ) {
        let norm = (x * x + y * y + z * z).sqrt().max(1e-30);
        let v = [x / norm * scale, y / norm * scale, z / norm * scale];
        let axes = PackedObb::decode_axes(&v);
        let obb = Obb::new(Point::origin(), axes, Vector::repeat(1.0));
        prop_assert!(obb.has_valid_frame(1e-5), "{v:?} -> {axes}");
    }

    /// Encoding then decoding returns the frame to 1e-5 plus the error of
    /// recovering `w = sqrt(1 − |v|²)`: a few ulps of `|v|²` divided by
    /// `2w`, so growing as `ε / |w|` towards a half turn, where it reaches
    /// the documented sqrt(ε) bound. (A cut-off at |w| < 0.01 was too
    /// sharp: |w| = 0.0134 gave 1.4e-5.)
    #[test]
    fn packed_frames_round_trip(r in rotation()) {
        let axes = matrix(&r);
        let decoded = PackedObb::decode_axes(&PackedObb::encode_axes(&axes));
        let error = (decoded - axes).amax();
        let bound = (1e-5 + 16.0 * Real::EPSILON / r.w.abs()).min(1e-3);
        prop_assert!(error <= bound, "error {error} for {axes}");
    }

    /// A packed box contains the box it was packed from (every corner, and
    /// therefore, being convex, all of it) and is barely larger.
    #[test]
    fn packing_an_obb_contains_it(obb in obb_strategy(100.0)) {
        let packed = pack_obb(&obb);
        let unpacked = packed.unpack();
        let scale = obb.center.coords.amax() + obb.half_extents.amax() + 1.0;
        for corner in obb.corners() {
            let local = unpacked.to_local(&corner);
            for i in 0..3 {
                prop_assert!(local[i].abs() <= unpacked.half_extents[i] + 1e-5 * scale);
            }
        }
        prop_assert!(packed.volume() <= obb.volume() * 1.01 + 1e-3 * scale.powi(3));
    }

    /// Fitting in a packed frame contains every point with the same `f32`
    /// test the queries use.
    #[test]
    fn packed_fit_contains_its_points(
        r in rotation(),
        points in prop::collection::vec(point(1000.0), 1..40),
    ) {
        let packed = packed_obb_with_axes(PackedObb::encode_axes(&matrix(&r)), &points)
            .expect("finite points");
        let unpacked = packed.unpack();
        for p in &points {
            prop_assert!(unpacked.contains_point(p), "{p} outside {unpacked:?}");
        }
    }
}

#[test]
fn half_turn_frames_pack_exactly() {
    // w = 0: the case where recovering w from unit length is least precise.
    for axis in [Vector::x_axis(), Vector::y_axis(), Vector::z_axis()] {
        let r = boxtree::Rotation::from_axis_angle(&axis, std::f32::consts::PI);
        let axes = matrix(&r);
        let decoded = PackedObb::decode_axes(&PackedObb::encode_axes(&axes));
        assert!((decoded - axes).amax() < 1e-6, "{axes} -> {decoded}");
    }
    let identity = PackedObb::encode_axes(&boxtree::Matrix::identity());
    assert_eq!(identity, [0.0; 3]);
    assert_eq!(
        PackedObb::decode_axes(&identity),
        boxtree::Matrix::identity()
    );
}

#[test]
fn packed_fit_rejects_empty_and_non_finite_points() {
    assert_eq!(packed_obb_with_axes([0.0; 3], &[]), None);
    assert_eq!(
        packed_obb_with_axes([0.0; 3], &[Point::new(Real::NAN, 0.0, 0.0)]),
        None
    );
}
