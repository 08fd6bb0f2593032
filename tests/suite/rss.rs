//! Rectangle swept spheres: the rectangle distance against an independent
//! oracle (each rectangle as two triangles, `triangle_distance`), the fit's
//! containment and tightness, and the volume's point distance.

use crate::common;

use boxtree::bvh::{BoundingVolume, ObbFit};
use boxtree::fit::rss_with_axes;
use boxtree::intersect::{rectangle_distance, rss_distance, triangle_distance};
use boxtree::math::{Isometry, Matrix, Point, Real, Rotation, Vector};
use boxtree::{Rectangle, Rss, Triangle};
use common::{SplitMix, rotation};
use proptest::prelude::*;

/// The rectangle as its two triangles.
fn halves(r: &Rectangle) -> [Triangle; 2] {
    let [a, b, c, d] = r.corners();
    [Triangle::new(a, b, c), Triangle::new(a, c, d)]
}

/// The least distance over the four triangle pairs.
fn oracle(a: &Rectangle, b: &Rectangle) -> Real {
    let mut least = Real::INFINITY;
    for ta in &halves(a) {
        for tb in &halves(b) {
            least = least.min(triangle_distance(ta, tb).distance);
        }
    }
    least
}

fn rectangle(center: Point, rotation: &Rotation, half: [Real; 2]) -> Rectangle {
    let m = rotation.to_rotation_matrix();
    let axes = [m * Vector::x(), m * Vector::y()];
    Rectangle::new(center, axes, half)
}

fn tolerance(a: &Rectangle, b: &Rectangle) -> Real {
    let scale = a.center.coords.amax() + b.center.coords.amax() + 2.0;
    64.0 * Real::EPSILON * scale
}

fn arb_rectangle(extent: Real) -> impl Strategy<Value = Rectangle> {
    (common::point(extent), rotation(), 0.0f32..1.0, 0.0f32..1.0)
        .prop_map(|(c, r, hu, hv)| rectangle(c, &r, [hu, hv]))
}

proptest! {
    #[test]
    fn rectangle_distance_matches_the_triangle_pairs(
        a in arb_rectangle(2.0),
        b in arb_rectangle(2.0),
    ) {
        let (ours, expected) = (rectangle_distance(&a, &b), oracle(&a, &b));
        prop_assert!((ours - expected).abs() <= tolerance(&a, &b), "{ours} vs {expected}");
        // Symmetric.
        let back = rectangle_distance(&b, &a);
        prop_assert!((back - ours).abs() <= tolerance(&a, &b));
    }
}

#[test]
fn crossing_touching_coplanar_and_degenerate_rectangles() {
    let flat = rectangle(Point::origin(), &Rotation::identity(), [1.0, 0.5]);
    let about = |axis: Vector, angle: Real| Rotation::from_axis_angle(&nalgebra_unit(axis), angle);
    let cases = [
        // Crossing like an X: neither corner set comes near, a side passes through.
        (
            "cross",
            rectangle(Point::origin(), &about(Vector::x(), 1.0), [0.25, 2.0]),
            0.0,
        ),
        // Standing on the face, touching it along a side.
        (
            "standing",
            rectangle(
                Point::new(0.0, 0.0, 0.5),
                &about(Vector::x(), std::f32::consts::FRAC_PI_2),
                [0.5, 0.5],
            ),
            0.0,
        ),
        // Coplanar, one inside the other.
        (
            "inside",
            rectangle(
                Point::new(0.25, 0.0, 0.0),
                &about(Vector::z(), 0.3),
                [0.25, 0.125],
            ),
            0.0,
        ),
        // Coplanar and apart along x.
        (
            "coplanar apart",
            rectangle(Point::new(3.0, 0.0, 0.0), &Rotation::identity(), [1.0, 0.5]),
            1.0,
        ),
        // Parallel, stacked.
        (
            "stacked",
            rectangle(
                Point::new(0.5, 0.25, 2.0),
                &Rotation::identity(),
                [1.0, 0.5],
            ),
            2.0,
        ),
        // Side over side, crossed at right angles, one unit up.
        (
            "sides",
            rectangle(
                Point::new(2.0, 0.0, 1.0),
                &about(Vector::z(), std::f32::consts::FRAC_PI_2),
                [1.0, 1.0],
            ),
            (0.0f32 + 1.0).sqrt(),
        ),
        // A point (zero half lengths) above the face.
        (
            "point",
            rectangle(
                Point::new(0.5, 0.25, 0.75),
                &Rotation::identity(),
                [0.0, 0.0],
            ),
            0.75,
        ),
        // A segment (one zero half length) beside a corner.
        (
            "segment",
            rectangle(Point::new(2.0, 1.5, 0.0), &Rotation::identity(), [0.0, 0.5]),
            (1.0f32 + 0.25).sqrt(),
        ),
    ];
    for (name, other, expected) in cases {
        let ours = rectangle_distance(&flat, &other);
        let tol = tolerance(&flat, &other);
        assert!(
            (ours - expected).abs() <= tol,
            "{name}: {ours} vs {expected}"
        );
        assert!(
            (oracle(&flat, &other) - expected).abs() <= tol,
            "{name}: oracle"
        );
    }
}

fn nalgebra_unit(v: Vector) -> boxtree::math::nalgebra::Unit<Vector> {
    boxtree::math::nalgebra::Unit::new_normalize(v)
}

#[test]
fn fits_contain_their_points_and_balls_and_hug_flat_sets() {
    let mut rng = SplitMix(21);
    for k in 0..400 {
        let rotation = rng.rotation();
        let axes: Matrix = *rotation.to_rotation_matrix().matrix();
        let thickness = if k % 4 == 0 { 0.0 } else { rng.range(0.0, 0.5) };
        let offset = rng.point(100.0).coords * if k % 3 == 0 { 1.0 } else { 0.0 };
        let balls: Vec<(Point, Real)> = (0..12)
            .map(|i| {
                let local = Vector::new(
                    rng.range(-2.0, 2.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-thickness, thickness),
                );
                let r = if i % 2 == 0 && k % 5 == 0 {
                    rng.range(0.0, 0.3)
                } else {
                    0.0
                };
                (Point::from(offset) + rotation * local, r)
            })
            .collect();
        let rss = rss_with_axes(&balls, &axes).expect("finite input");
        for (p, r) in &balls {
            // Every point of each ball lies inside: its centre within `radius - r`.
            assert!(
                rss.rectangle_distance(p) + r <= rss.radius,
                "case {k}: {p:?} radius {r} outside {rss:?}"
            );
        }
        if thickness == 0.0 && balls.iter().all(|b| b.1 == 0.0) {
            // A flat set: no more radius than rounding.
            assert!(
                rss.radius <= 1e-4 * (1.0 + offset.amax()),
                "case {k}: {rss:?}"
            );
        }
        // The radius covers no more than the set's depth range needs, plus
        // what the corners added.
        assert!(rss.radius <= thickness + 0.3 + 2.0 + 1e-3, "case {k}");
    }
    // Corners at mid-depth and a deep centre: the sides pulled in for the
    // corners' depth leave each corner beyond both, which the radius must cover.
    let corners_and_centre = [
        (Point::new(-2.0, -1.0, 0.0), 0.0),
        (Point::new(2.0, -1.0, 0.0), 0.0),
        (Point::new(2.0, 1.0, 0.0), 0.0),
        (Point::new(-2.0, 1.0, 0.0), 0.0),
        (Point::new(0.0, 0.0, 0.5), 0.0),
        (Point::new(0.0, 0.0, -0.5), 0.0),
    ];
    let rss = rss_with_axes(&corners_and_centre, &Matrix::identity()).expect("finite");
    for (p, _) in &corners_and_centre {
        assert!(
            rss.rectangle_distance(p) <= rss.radius,
            "{p:?} outside {rss:?}"
        );
    }
    assert!(rss_with_axes(&[], &Matrix::identity()).is_none());
    assert!(
        rss_with_axes(
            &[(Point::new(Real::NAN, 0.0, 0.0), 0.0)],
            &Matrix::identity()
        )
        .is_none()
    );
}

#[test]
fn refits_contain_their_children() {
    let mut rng = SplitMix(22);
    for _ in 0..200 {
        let triangles = |rng: &mut SplitMix| -> Vec<Triangle> {
            let c = rng.point(3.0);
            (0..3)
                .map(|_| {
                    Triangle::new(
                        c + rng.vector(-1.0, 1.0),
                        c + rng.vector(-1.0, 1.0),
                        c + rng.vector(-1.0, 1.0),
                    )
                })
                .collect()
        };
        let (left, right) = (triangles(&mut rng), triangles(&mut rng));
        let (l, r) = (
            Rss::fit(&left, ObbFit::Triangles),
            Rss::fit(&right, ObbFit::Triangles),
        );
        let all: Vec<Triangle> = left.iter().chain(&right).copied().collect();
        let parent = Rss::fit(&all, ObbFit::Triangles).refit_parent(&l, &r);
        // Each child: its rectangle's corners pushed out by its radius in
        // every direction stay inside the parent.
        for child in [l, r] {
            for corner in child.corners() {
                for direction in [
                    Vector::x(),
                    -Vector::x(),
                    Vector::y(),
                    -Vector::y(),
                    Vector::z(),
                    -Vector::z(),
                    child.normal(),
                ] {
                    let p = corner + direction * child.radius;
                    assert!(
                        parent.contains_point_within(&p, 1e-5),
                        "{p:?} outside {parent:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn point_distance_is_the_rectangle_distance_less_the_radius() {
    let mut rng = SplitMix(23);
    let core = rectangle(Point::new(1.0, 2.0, 3.0), &rng.rotation(), [1.0, 0.5]);
    let r = Rss::new(core.center, core.axes, core.half_lengths, 0.25);
    assert_eq!(Rectangle::from(&r), core);
    // Parallel and two apart: 2 less both radii.
    let above = Rss::new(
        core.center + core.normal() * 2.0,
        core.axes,
        core.half_lengths,
        0.5,
    );
    assert!((rss_distance(&r, &above) - 1.25).abs() < 1e-5);
    for _ in 0..1000 {
        let p = Point::new(1.0, 2.0, 3.0) + rng.vector(-3.0, 3.0);
        // Dense sampling of the rectangle as the oracle of the core distance.
        let mut least = Real::INFINITY;
        for i in 0..=40 {
            for j in 0..=40 {
                let (s, t) = (i as Real / 20.0 - 1.0, j as Real / 20.0 - 1.0);
                let q = r.center + r.axes[0] * s + r.axes[1] * (0.5 * t);
                least = least.min((p - q).norm());
            }
        }
        let expected = (least - 0.25).max(0.0);
        let ours = r.point_distance_squared(&p).sqrt();
        assert!(
            ours <= expected + 1e-5 && ours >= expected - 0.04,
            "{ours} vs {expected}"
        );
        assert_eq!(r.contains_point_within(&p, 0.0), core.distance(&p) <= 0.25);
    }
    assert!(
        r.point_distance_squared(&Point::new(Real::NAN, 0.0, 0.0))
            .is_nan()
    );
    // The box and the axis-aligned box hold the volume.
    let (b, aabb) = (r.oriented_box(), r.to_aabb());
    for corner in r.corners() {
        for d in [r.normal(), -r.normal()] {
            let p = corner + d * 0.25;
            assert!(b.contains_point(&p) || b.distance_squared(&p) < 1e-10);
            assert!(aabb.contains_point(&p));
        }
    }
    let _ = Isometry::identity();
}
