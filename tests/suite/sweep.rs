//! Moving-object tests (sphere–plane, sphere–sphere, AABB–AABB) against an
//! independent oracle: dense time stepping of the static f64 overlap test.
//!
//! The oracle samples `u = k / STEPS` for `k = 0..=STEPS`. A reported first
//! contact must lie between the last sampled non-contact before the first
//! sampled contact and that contact (within `SLACK`); likewise for the last
//! contact. Random cases are kept only when they are `MARGIN` away from
//! grazing (relative to the size of the scene); grazing and touching cases are
//! pinned by named tests with exactly representable coordinates.

use crate::common;

use boxtree::bounding_volume::{Aabb, Sphere};
use boxtree::math::{Point, Real, Vector, nalgebra};
use boxtree::shape::Plane;
use boxtree::sweep::{SweepHit, sweep_aabb_aabb, sweep_sphere_plane, sweep_sphere_sphere};
use common::{SplitMix, point, vector};
use proptest::prelude::*;

/// Number of time steps of the oracle (step 5e-5).
const STEPS: usize = 20_000;
/// Distance from grazing, as a fraction of the scene size, below which a random case is skipped.
const MARGIN: f64 = 0.05;
/// Allowed time error beyond one oracle step: f32 rounding of the inputs
/// (relative 6e-8 of the scene size) over the approach speed, which the
/// margin keeps at least `MARGIN` scene sizes per frame.
const SLACK: f64 = 1e-5;

type V64 = nalgebra::Vector3<f64>;

fn wide(v: &Vector) -> V64 {
    v.cast::<f64>()
}

fn wide_point(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

/// A sweep case seen by the oracle: a signed clearance that is convex in time
/// (`≤ 0` exactly when the objects touch or overlap) and a size for the margin.
trait Clearance {
    fn clearance(&self, u: f64) -> f64;
    fn size(&self) -> f64;
}

/// The sampled contact run of a case: first and last contact sample.
struct Oracle {
    run: Option<(usize, usize)>,
    grazing: bool,
}

fn oracle(case: &impl Clearance) -> Oracle {
    let margin = MARGIN * case.size();
    let (mut run, mut lowest) = (None::<(usize, usize)>, f64::INFINITY);
    let (mut ended, mut split) = (false, false);
    for k in 0..=STEPS {
        let g = case.clearance(k as f64 / STEPS as f64);
        lowest = lowest.min(g);
        if g <= 0.0 {
            split |= ended;
            run = Some(run.map_or((k, k), |(first, _)| (first, k)));
        } else if run.is_some() {
            ended = true;
        }
    }
    let (start, end) = (case.clearance(0.0), case.clearance(1.0));
    let grazing = start.abs() < margin || end.abs() < margin || lowest.abs() < margin;
    // Rounding may split the run only where the clearance grazes zero.
    assert!(
        grazing || !split,
        "the contact set of convex objects in linear motion is one interval"
    );
    Oracle { run, grazing }
}

fn time(k: usize) -> f64 {
    k as f64 / STEPS as f64
}

fn assert_first_agrees(first: Option<Real>, oracle: &Oracle) {
    match (first, oracle.run) {
        (None, None) => {}
        (Some(first), Some((k, _))) => {
            let first = f64::from(first);
            if k == 0 {
                assert_eq!(first, 0.0, "in contact at the start");
            } else {
                assert!(
                    time(k - 1) - SLACK <= first && first <= time(k) + SLACK,
                    "first contact {first} outside oracle step [{}, {}]",
                    time(k - 1),
                    time(k)
                );
            }
        }
        (first, run) => panic!("reported first contact {first:?}, oracle contact samples {run:?}"),
    }
}

fn assert_agrees(hit: Option<SweepHit>, oracle: &Oracle) {
    assert_first_agrees(hit.map(|h| h.first), oracle);
    if let (Some(hit), Some((_, k))) = (hit, oracle.run) {
        assert!(
            0.0 <= hit.first && hit.first <= hit.last && hit.last <= 1.0,
            "{hit:?}"
        );
        let last = f64::from(hit.last);
        if k == STEPS {
            assert_eq!(last, 1.0, "in contact at the end");
        } else {
            assert!(
                time(k) - SLACK <= last && last <= time(k + 1) + SLACK,
                "last contact {last} outside oracle step [{}, {}]",
                time(k),
                time(k + 1)
            );
        }
    }
}

fn max_abs(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, |m, x| m.max(x.abs()))
}

// ---------------------------------------------------------------- cases

#[derive(Clone, Debug)]
struct SpherePlaneCase {
    sphere: Sphere,
    motion: Vector,
    plane: Plane,
}

impl Clearance for SpherePlaneCase {
    fn clearance(&self, u: f64) -> f64 {
        let c = wide_point(&self.sphere.center) + wide(&self.motion) * u;
        let s = wide(self.plane.normal()).dot(&c) - f64::from(self.plane.offset());
        s.abs() - f64::from(self.sphere.radius)
    }

    fn size(&self) -> f64 {
        let c = wide_point(&self.sphere.center);
        let end = c + wide(&self.motion);
        max_abs(c.iter().chain(end.iter()).copied().chain([
            f64::from(self.sphere.radius),
            f64::from(self.plane.offset()),
        ]))
    }
}

#[derive(Clone, Debug)]
struct SphereSphereCase {
    a: Sphere,
    a_motion: Vector,
    b: Sphere,
    b_motion: Vector,
}

impl SphereSphereCase {
    fn sweep(&self) -> Option<SweepHit> {
        sweep_sphere_sphere(&self.a, &self.a_motion, &self.b, &self.b_motion)
    }
}

impl Clearance for SphereSphereCase {
    fn clearance(&self, u: f64) -> f64 {
        let ca = wide_point(&self.a.center) + wide(&self.a_motion) * u;
        let cb = wide_point(&self.b.center) + wide(&self.b_motion) * u;
        (cb - ca).norm() - f64::from(self.a.radius) - f64::from(self.b.radius)
    }

    fn size(&self) -> f64 {
        let (a, b) = (wide_point(&self.a.center), wide_point(&self.b.center));
        let (a1, b1) = (a + wide(&self.a_motion), b + wide(&self.b_motion));
        let coords = [a, b, a1, b1].into_iter().flat_map(|p| [p.x, p.y, p.z]);
        max_abs(coords.chain([f64::from(self.a.radius), f64::from(self.b.radius)]))
    }
}

#[derive(Clone, Debug)]
struct AabbCase {
    a: Aabb,
    a_motion: Vector,
    b: Aabb,
    b_motion: Vector,
}

impl AabbCase {
    fn sweep(&self) -> Option<SweepHit> {
        sweep_aabb_aabb(&self.a, &self.a_motion, &self.b, &self.b_motion)
    }
}

impl Clearance for AabbCase {
    fn clearance(&self, u: f64) -> f64 {
        let (ta, tb) = (wide(&self.a_motion) * u, wide(&self.b_motion) * u);
        (0..3)
            .map(|i| {
                let (amin, amax) = (
                    f64::from(self.a.min[i]) + ta[i],
                    f64::from(self.a.max[i]) + ta[i],
                );
                let (bmin, bmax) = (
                    f64::from(self.b.min[i]) + tb[i],
                    f64::from(self.b.max[i]) + tb[i],
                );
                (amin - bmax).max(bmin - amax)
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn size(&self) -> f64 {
        let (am, bm) = (wide(&self.a_motion), wide(&self.b_motion));
        let corners = [
            (self.a.min, am),
            (self.a.max, am),
            (self.b.min, bm),
            (self.b.max, bm),
        ];
        max_abs(corners.iter().flat_map(|(p, m)| {
            let p = wide_point(p);
            let q = p + m;
            [p.x, p.y, p.z, q.x, q.y, q.z]
        }))
    }
}

// ------------------------------------------------------------- strategies

fn sphere_strategy(extent: Real) -> impl Strategy<Value = Sphere> {
    (
        point(extent),
        prop_oneof![1 => Just(0.0), 6 => 0.25f32..3.0],
    )
        .prop_map(|(c, r)| Sphere::new(c, r))
}

fn plane_strategy(extent: Real) -> impl Strategy<Value = Plane> {
    (point(extent), vector(1.0)).prop_filter_map("zero normal", |(p, n)| {
        Plane::from_point_normal(&p, &n).ok()
    })
}

fn motion_strategy(extent: Real) -> impl Strategy<Value = Vector> {
    prop_oneof![1 => Just(Vector::zeros()), 8 => vector(extent)]
}

fn sphere_plane_strategy() -> impl Strategy<Value = SpherePlaneCase> {
    (
        sphere_strategy(6.0),
        motion_strategy(12.0),
        plane_strategy(3.0),
    )
        .prop_map(|(sphere, motion, plane)| SpherePlaneCase {
            sphere,
            motion,
            plane,
        })
}

/// B's motion: free, or aimed at A's end position (so that many cases touch).
fn b_motion_strategy(
    a_end: Point,
    b_start: Point,
    free: impl Strategy<Value = Vector>,
) -> impl Strategy<Value = Vector> {
    prop_oneof![
        free,
        vector(3.0).prop_map(move |jitter| a_end + jitter - b_start)
    ]
}

fn sphere_sphere_strategy() -> impl Strategy<Value = SphereSphereCase> {
    (
        sphere_strategy(5.0),
        motion_strategy(10.0),
        sphere_strategy(5.0),
    )
        .prop_flat_map(|(a, a_motion, b)| {
            b_motion_strategy(a.center + a_motion, b.center, motion_strategy(10.0)).prop_map(
                move |b_motion| SphereSphereCase {
                    a,
                    a_motion,
                    b,
                    b_motion,
                },
            )
        })
}

fn aabb_strategy(extent: Real) -> impl Strategy<Value = Aabb> {
    (point(extent), vector(2.0)).prop_map(|(c, h)| Aabb::from_center_half_extents(c, h))
}

/// A motion with each component independently zero now and then (still axes).
fn axis_motion_strategy(extent: Real) -> impl Strategy<Value = Vector> {
    let component = prop_oneof![1 => Just(0.0), 3 => -extent..=extent];
    (component.clone(), component.clone(), component).prop_map(|(x, y, z)| Vector::new(x, y, z))
}

fn aabb_case_strategy() -> impl Strategy<Value = AabbCase> {
    (
        aabb_strategy(5.0),
        axis_motion_strategy(10.0),
        aabb_strategy(5.0),
    )
        .prop_flat_map(|(a, a_motion, b)| {
            b_motion_strategy(
                a.center() + a_motion,
                b.center(),
                axis_motion_strategy(10.0),
            )
            .prop_map(move |b_motion| AabbCase {
                a,
                a_motion,
                b,
                b_motion,
            })
        })
}

fn translated_plane(plane: &Plane, offset: &Vector) -> Plane {
    let on_plane = plane.project(&Point::origin()) + offset;
    Plane::from_point_normal(&on_plane, plane.normal()).expect("finite unit normal")
}

fn scaled_point(p: &Point, s: Real) -> Point {
    Point::from(p.coords * s)
}

proptest! {
    // ------------------------------------------------------------ oracle

    #[test]
    fn sphere_plane_agrees_with_time_stepping(case in sphere_plane_strategy()) {
        let oracle = oracle(&case);
        prop_assume!(!oracle.grazing);
        let hit = sweep_sphere_plane(&case.sphere, &case.motion, &case.plane);
        assert_first_agrees(hit.map(|h| h.time), &oracle);
        if let Some(hit) = hit {
            let size = case.size() as Real;
            let expected_center = case.sphere.center + case.motion * hit.time;
            prop_assert!((hit.center - expected_center).norm() <= 1e-6 * size);
            prop_assert!(case.plane.signed_distance(&hit.point).abs() <= 1e-6 * size);
            let reach = (hit.center - hit.point).norm();
            if hit.time > 0.0 {
                prop_assert!((reach - case.sphere.radius).abs() <= 1e-5 * size, "{hit:?}");
            } else {
                prop_assert!(reach <= case.sphere.radius + 1e-5 * size, "{hit:?}");
            }
        }
    }

    #[test]
    fn sphere_sphere_agrees_with_time_stepping(case in sphere_sphere_strategy()) {
        let oracle = oracle(&case);
        prop_assume!(!oracle.grazing);
        assert_agrees(case.sweep(), &oracle);
    }

    #[test]
    fn aabb_aabb_agrees_with_time_stepping(case in aabb_case_strategy()) {
        let oracle = oracle(&case);
        prop_assume!(!oracle.grazing);
        assert_agrees(case.sweep(), &oracle);
    }

    // ---------------------------------------------------------- symmetry

    #[test]
    fn sphere_sphere_is_symmetric(case in sphere_sphere_strategy()) {
        let swapped = sweep_sphere_sphere(&case.b, &case.b_motion, &case.a, &case.a_motion);
        prop_assert_eq!(case.sweep(), swapped);
    }

    #[test]
    fn aabb_aabb_is_symmetric(case in aabb_case_strategy()) {
        let swapped = sweep_aabb_aabb(&case.b, &case.b_motion, &case.a, &case.a_motion);
        prop_assert_eq!(case.sweep(), swapped);
    }

    // ------------------------------------------------------- invariances

    #[test]
    fn sphere_plane_is_invariant_under_translation(case in sphere_plane_strategy(), offset in vector(50.0)) {
        prop_assume!(!oracle(&case).grazing);
        let moved = Sphere::new(case.sphere.center + offset, case.sphere.radius);
        let hit = sweep_sphere_plane(&case.sphere, &case.motion, &case.plane);
        let moved_hit = sweep_sphere_plane(&moved, &case.motion, &translated_plane(&case.plane, &offset));
        prop_assert_eq!(hit.is_some(), moved_hit.is_some());
        if let (Some(hit), Some(moved_hit)) = (hit, moved_hit) {
            prop_assert!((hit.time - moved_hit.time).abs() <= 1e-4, "{hit:?} vs {moved_hit:?}");
        }
    }

    #[test]
    fn sphere_sphere_is_invariant_under_common_translation_and_velocity(
        case in sphere_sphere_strategy(),
        offset in vector(50.0),
        velocity in vector(20.0),
    ) {
        prop_assume!(!oracle(&case).grazing);
        let moved = SphereSphereCase {
            a: Sphere::new(case.a.center + offset, case.a.radius),
            a_motion: case.a_motion + velocity,
            b: Sphere::new(case.b.center + offset, case.b.radius),
            b_motion: case.b_motion + velocity,
        };
        assert_close(case.sweep(), moved.sweep(), 1e-4);
    }

    #[test]
    fn aabb_aabb_is_invariant_under_common_translation_and_velocity(
        case in aabb_case_strategy(),
        offset in vector(50.0),
        velocity in vector(20.0),
    ) {
        prop_assume!(!oracle(&case).grazing);
        let moved = AabbCase {
            a: Aabb::new(case.a.min + offset, case.a.max + offset),
            a_motion: case.a_motion + velocity,
            b: Aabb::new(case.b.min + offset, case.b.max + offset),
            b_motion: case.b_motion + velocity,
        };
        assert_close(case.sweep(), moved.sweep(), 1e-4);
    }

    #[test]
    fn sweeps_are_invariant_under_time_reversal(sphere in sphere_sphere_strategy(), boxes in aabb_case_strategy()) {
        if !oracle(&sphere).grazing {
            let reversed = sweep_sphere_sphere(
                &Sphere::new(sphere.a.center + sphere.a_motion, sphere.a.radius),
                &-sphere.a_motion,
                &Sphere::new(sphere.b.center + sphere.b_motion, sphere.b.radius),
                &-sphere.b_motion,
            );
            assert_close(sphere.sweep(), reversed.map(reverse), 1e-4);
        }
        if !oracle(&boxes).grazing {
            let shift = |b: &Aabb, m: &Vector| Aabb::new(b.min + m, b.max + m);
            let reversed = sweep_aabb_aabb(
                &shift(&boxes.a, &boxes.a_motion),
                &-boxes.a_motion,
                &shift(&boxes.b, &boxes.b_motion),
                &-boxes.b_motion,
            );
            assert_close(boxes.sweep(), reversed.map(reverse), 1e-4);
        }
    }

    /// Scaling every length by a power of two is exact in floating point, and
    /// contact times are scale-free: the answers must be bit-identical.
    #[test]
    fn sweeps_are_exactly_invariant_under_power_of_two_scaling(
        plane_case in sphere_plane_strategy(),
        spheres in sphere_sphere_strategy(),
        boxes in aabb_case_strategy(),
        exponent in -60i32..=60,
    ) {
        let s = (2.0 as Real).powi(exponent);
        let scale_sphere = |x: &Sphere| Sphere::new(scaled_point(&x.center, s), x.radius * s);

        // Both planes from the same normal, so that they normalise it identically.
        let (on_plane, normal) = (plane_case.plane.project(&Point::origin()), plane_case.plane.normal());
        let plane = Plane::from_point_normal(&on_plane, normal).unwrap();
        let scaled_plane = Plane::from_point_normal(&scaled_point(&on_plane, s), normal).unwrap();
        prop_assert_eq!(plane.normal(), scaled_plane.normal());
        let hit = sweep_sphere_plane(&plane_case.sphere, &plane_case.motion, &plane);
        let scaled = sweep_sphere_plane(&scale_sphere(&plane_case.sphere), &(plane_case.motion * s), &scaled_plane);
        prop_assert_eq!(hit.map(|h| h.time), scaled.map(|h| h.time));
        prop_assert_eq!(hit.map(|h| h.center.coords * s), scaled.map(|h| h.center.coords));

        let scaled = sweep_sphere_sphere(
            &scale_sphere(&spheres.a),
            &(spheres.a_motion * s),
            &scale_sphere(&spheres.b),
            &(spheres.b_motion * s),
        );
        prop_assert_eq!(spheres.sweep(), scaled);

        let scale_box = |b: &Aabb| Aabb::new(scaled_point(&b.min, s), scaled_point(&b.max, s));
        let scaled = sweep_aabb_aabb(&scale_box(&boxes.a), &(boxes.a_motion * s), &scale_box(&boxes.b), &(boxes.b_motion * s));
        prop_assert_eq!(boxes.sweep(), scaled);
    }
}

fn reverse(hit: SweepHit) -> SweepHit {
    SweepHit {
        first: 1.0 - hit.last,
        last: 1.0 - hit.first,
    }
}

fn assert_close(a: Option<SweepHit>, b: Option<SweepHit>, tolerance: Real) {
    match (a, b) {
        (None, None) => {}
        (Some(a), Some(b)) => assert!(
            (a.first - b.first).abs() <= tolerance && (a.last - b.last).abs() <= tolerance,
            "{a:?} vs {b:?}"
        ),
        _ => panic!("{a:?} vs {b:?}"),
    }
}

// ------------------------------------------------- seeded scale batches

/// Random cases at unit, huge (1e6) and tiny (1e-6) scale, biased towards
/// contact, each checked against the oracle; also checks the batch is not vacuous.
#[test]
fn sweeps_agree_with_time_stepping_at_huge_and_tiny_scales() {
    let mut rng = SplitMix(0x5eed_5eed);
    for scale in [1.0, 1e6, 1e-6] {
        let (mut checked, mut contacts) = (0, 0);
        for _ in 0..150 {
            let s = |p: Point| Point::from(p.coords * scale);
            let v = |rng: &mut SplitMix, e: Real| rng.point(e).coords * scale;
            let (ra, rb) = (rng.range(0.2, 2.0) * scale, rng.range(0.2, 2.0) * scale);
            // B aims roughly at A's end position, so that about half the cases touch.
            let a = Sphere::new(s(rng.point(5.0)), ra);
            let a_motion = v(&mut rng, 5.0);
            let b_start = s(rng.point(5.0));
            let b_motion = (a.center + a_motion + v(&mut rng, 2.0)) - b_start;
            let spheres = SphereSphereCase {
                a,
                a_motion,
                b: Sphere::new(b_start, rb),
                b_motion,
            };

            let plane =
                Plane::from_point_normal(&s(rng.point(2.0)), &rng.point(1.0).coords).unwrap();
            let plane_case = SpherePlaneCase {
                sphere: a,
                motion: b_motion,
                plane,
            };

            let half = |rng: &mut SplitMix| rng.point(2.0).coords.abs() * scale;
            let boxes = AabbCase {
                a: Aabb::from_center_half_extents(a.center, half(&mut rng)),
                a_motion,
                b: Aabb::from_center_half_extents(b_start, half(&mut rng)),
                b_motion,
            };

            let oracle_spheres = oracle(&spheres);
            if !oracle_spheres.grazing {
                assert_agrees(spheres.sweep(), &oracle_spheres);
                checked += 1;
                contacts += usize::from(oracle_spheres.run.is_some());
            }
            let oracle_plane = oracle(&plane_case);
            if !oracle_plane.grazing {
                let hit = sweep_sphere_plane(&plane_case.sphere, &plane_case.motion, &plane);
                assert_first_agrees(hit.map(|h| h.time), &oracle_plane);
                checked += 1;
                contacts += usize::from(oracle_plane.run.is_some());
            }
            let oracle_boxes = oracle(&boxes);
            if !oracle_boxes.grazing {
                assert_agrees(boxes.sweep(), &oracle_boxes);
                checked += 1;
                contacts += usize::from(oracle_boxes.run.is_some());
            }
        }
        assert!(
            checked >= 200 && contacts >= 80 && checked - contacts >= 40,
            "scale {scale}: {checked} checked, {contacts} contacts"
        );
    }
}

// ------------------------------------------------ sphere–plane regressions

fn ground() -> Plane {
    Plane::from_point_normal(&Point::origin(), &Vector::z()).unwrap()
}

fn sweep_ground(
    center: [Real; 3],
    radius: Real,
    motion: [Real; 3],
) -> Option<(Real, Point, Point)> {
    let sphere = Sphere::new(Point::from(center), radius);
    sweep_sphere_plane(&sphere, &Vector::from(motion), &ground())
        .map(|h| (h.time, h.center, h.point))
}

#[test]
fn sphere_plane_front_approach_hits_at_the_touching_time() {
    let hit = sweep_ground([3.0, 4.0, 5.0], 1.0, [0.0, 0.0, -8.0]);
    assert_eq!(
        hit,
        Some((0.5, Point::new(3.0, 4.0, 1.0), Point::new(3.0, 4.0, 0.0)))
    );
}

#[test]
fn sphere_plane_back_side_approach_is_a_hit() {
    let hit = sweep_ground([0.0, 0.0, -5.0], 1.0, [2.0, 0.0, 8.0]);
    assert_eq!(
        hit,
        Some((0.5, Point::new(1.0, 0.0, -1.0), Point::new(1.0, 0.0, 0.0)))
    );
}

#[test]
fn sphere_plane_penetrating_at_start_is_contact_at_zero() {
    for z in [0.5, -0.5, 0.0] {
        let hit = sweep_ground([1.0, 2.0, z], 1.0, [0.0, 0.0, 10.0]);
        assert_eq!(
            hit,
            Some((0.0, Point::new(1.0, 2.0, z), Point::new(1.0, 2.0, 0.0)))
        );
    }
}

#[test]
fn sphere_plane_touching_at_start_is_contact_at_zero_even_when_moving_away() {
    assert_eq!(
        sweep_ground([0.0, 0.0, 1.0], 1.0, [0.0, 0.0, 5.0]).map(|h| h.0),
        Some(0.0)
    );
    assert_eq!(
        sweep_ground([0.0, 0.0, -1.0], 1.0, [0.0, 0.0, -5.0]).map(|h| h.0),
        Some(0.0)
    );
}

#[test]
fn sphere_plane_touching_at_end_of_frame_is_a_hit() {
    let hit = sweep_ground([0.0, 0.0, 5.0], 1.0, [0.0, 0.0, -4.0]);
    assert_eq!(hit, Some((1.0, Point::new(0.0, 0.0, 1.0), Point::origin())));
    assert_eq!(
        sweep_ground([0.0, 0.0, -5.0], 1.0, [0.0, 0.0, 4.0]).map(|h| h.0),
        Some(1.0)
    );
}

#[test]
fn sphere_plane_contact_after_the_frame_is_not_reported() {
    assert_eq!(sweep_ground([0.0, 0.0, 5.0], 1.0, [0.0, 0.0, -3.5]), None);
    assert_eq!(sweep_ground([0.0, 0.0, -5.0], 1.0, [0.0, 0.0, 3.5]), None);
}

#[test]
fn sphere_plane_moving_away_is_not_a_hit() {
    assert_eq!(sweep_ground([0.0, 0.0, 5.0], 1.0, [0.0, 0.0, 3.0]), None);
    assert_eq!(sweep_ground([0.0, 0.0, -5.0], 1.0, [1.0, 0.0, -3.0]), None);
}

#[test]
fn sphere_plane_parallel_or_still_motion_does_not_divide_by_zero() {
    assert_eq!(sweep_ground([0.0, 0.0, 2.0], 1.0, [7.0, 3.0, 0.0]), None);
    assert_eq!(sweep_ground([0.0, 0.0, -2.0], 1.0, [0.0, 0.0, 0.0]), None);
    assert_eq!(
        sweep_ground([0.0, 0.0, 1.0], 1.0, [7.0, 3.0, 0.0]).map(|h| h.0),
        Some(0.0)
    );
    assert_eq!(
        sweep_ground([0.0, 0.0, -0.5], 1.0, [0.0, 0.0, 0.0]).map(|h| h.0),
        Some(0.0)
    );
}

#[test]
fn sphere_plane_moving_point_crossing_the_plane_is_a_hit() {
    let hit = sweep_ground([0.0, 0.0, 1.0], 0.0, [4.0, 0.0, -2.0]);
    assert_eq!(
        hit,
        Some((0.5, Point::new(2.0, 0.0, 0.0), Point::new(2.0, 0.0, 0.0)))
    );
    assert_eq!(
        sweep_ground([0.0, 0.0, 0.0], 0.0, [0.0, 0.0, 1.0]).map(|h| h.0),
        Some(0.0)
    );
    assert_eq!(sweep_ground([0.0, 0.0, 1.0], 0.0, [0.0, 0.0, -0.5]), None);
}

#[test]
fn sphere_plane_crossing_within_the_frame_reports_first_contact() {
    let hit = sweep_ground([0.0, 0.0, 3.0], 1.0, [0.0, 0.0, -8.0]);
    assert_eq!(
        hit,
        Some((0.25, Point::new(0.0, 0.0, 1.0), Point::origin()))
    );
    let hit = sweep_ground([0.0, 0.0, -3.0], 1.0, [0.0, 0.0, 8.0]);
    assert_eq!(
        hit,
        Some((0.25, Point::new(0.0, 0.0, -1.0), Point::origin()))
    );
}

#[test]
fn sphere_plane_tilted_plane_matches_the_analytic_time() {
    let plane =
        Plane::from_point_normal(&Point::new(1.0, 2.0, 3.0), &Vector::new(1.0, 1.0, 1.0)).unwrap();
    let sphere = Sphere::new(Point::new(5.0, 5.0, 5.0), 0.5);
    let motion = Vector::new(-6.0, -5.0, -4.0);
    let hit = sweep_sphere_plane(&sphere, &motion, &plane).unwrap();
    // s(u) = (15 − 15 u − 6) / √3, touching when s = 0.5.
    let expected = (9.0 - 0.5 * 3f64.sqrt()) / 15.0;
    assert!((f64::from(hit.time) - expected).abs() <= 1e-6, "{hit:?}");
    assert!(plane.signed_distance(&hit.point).abs() <= 1e-5);
    assert!(((hit.center - hit.point).norm() - 0.5).abs() <= 1e-5);
}

#[test]
fn sphere_plane_non_finite_or_negative_input_is_none() {
    let z = ground();
    let unit = Sphere::new(Point::new(0.0, 0.0, 2.0), 1.0);
    let down = Vector::new(0.0, 0.0, -4.0);
    assert!(sweep_sphere_plane(&unit, &down, &z).is_some());
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        let center = Sphere::new(Point::new(0.0, bad, 2.0), 1.0);
        assert_eq!(sweep_sphere_plane(&center, &down, &z), None);
        assert_eq!(
            sweep_sphere_plane(&unit, &Vector::new(bad, 0.0, -4.0), &z),
            None
        );
        assert_eq!(
            sweep_sphere_plane(&Sphere::new(unit.center, bad), &down, &z),
            None
        );
    }
    assert_eq!(
        sweep_sphere_plane(&Sphere::new(unit.center, -1.0), &down, &z),
        None
    );
}

// ----------------------------------------------- sphere–sphere regressions

/// Sphere A of radius 1 at rest at the origin; sphere B of radius 1 from `start` by `motion`.
fn sweep_unit_pair(start: [Real; 3], motion: [Real; 3]) -> Option<SweepHit> {
    let a = Sphere::new(Point::origin(), 1.0);
    let b = Sphere::new(Point::from(start), 1.0);
    sweep_sphere_sphere(&a, &Vector::zeros(), &b, &Vector::from(motion))
}

fn hit(first: Real, last: Real) -> Option<SweepHit> {
    Some(SweepHit { first, last })
}

#[test]
fn sphere_sphere_pass_through_reports_first_and_last_contact() {
    assert_eq!(
        sweep_unit_pair([-4.0, 0.0, 0.0], [8.0, 0.0, 0.0]),
        hit(0.25, 0.75)
    );
}

#[test]
fn sphere_sphere_both_moving_use_relative_motion() {
    let a = Sphere::new(Point::origin(), 1.0);
    let b = Sphere::new(Point::new(4.0, 0.0, 0.0), 1.0);
    let got = sweep_sphere_sphere(
        &a,
        &Vector::new(2.0, 1.0, 0.0),
        &b,
        &Vector::new(-2.0, 1.0, 0.0),
    );
    // Gap 4 − 4u reaches 2 at u = 0.5; they would separate at u = 1.5, clipped to 1.
    assert_eq!(got, hit(0.5, 1.0));
}

#[test]
fn sphere_sphere_contact_after_the_frame_is_not_reported() {
    assert_eq!(sweep_unit_pair([-10.0, 0.0, 0.0], [4.0, 0.0, 0.0]), None);
}

#[test]
fn sphere_sphere_contact_before_the_frame_is_not_reported() {
    // Both roots negative: they were in contact at u ∈ [−3, −2] and move apart.
    assert_eq!(sweep_unit_pair([10.0, 0.0, 0.0], [4.0, 0.0, 0.0]), None);
}

#[test]
fn sphere_sphere_moving_apart_while_overlapping_reports_the_exit() {
    assert_eq!(
        sweep_unit_pair([1.0, 0.0, 0.0], [4.0, 0.0, 0.0]),
        hit(0.0, 0.25)
    );
    assert_eq!(
        sweep_unit_pair([-1.0, 0.0, 0.0], [-4.0, 0.0, 0.0]),
        hit(0.0, 0.25)
    );
}

#[test]
fn sphere_sphere_touching_at_start_is_a_contact_at_zero() {
    assert_eq!(
        sweep_unit_pair([2.0, 0.0, 0.0], [4.0, 0.0, 0.0]),
        hit(0.0, 0.0)
    );
    assert_eq!(
        sweep_unit_pair([2.0, 0.0, 0.0], [-8.0, 0.0, 0.0]),
        hit(0.0, 0.5)
    );
}

#[test]
fn sphere_sphere_touching_at_end_of_frame_is_a_hit() {
    assert_eq!(
        sweep_unit_pair([-6.0, 0.0, 0.0], [4.0, 0.0, 0.0]),
        hit(1.0, 1.0)
    );
    assert_eq!(sweep_unit_pair([-6.0, 0.0, 0.0], [3.5, 0.0, 0.0]), None);
}

#[test]
fn sphere_sphere_tangent_graze_is_a_single_contact() {
    assert_eq!(
        sweep_unit_pair([-4.0, 2.0, 0.0], [8.0, 0.0, 0.0]),
        hit(0.5, 0.5)
    );
    assert_eq!(sweep_unit_pair([-4.0, 2.5, 0.0], [8.0, 0.0, 0.0]), None);
}

#[test]
fn sphere_sphere_without_relative_motion_does_not_divide_by_zero() {
    let common = Vector::new(3.0, -1.0, 2.0);
    let a = Sphere::new(Point::origin(), 1.0);
    for (x, expected) in [(1.5, hit(0.0, 1.0)), (2.0, hit(0.0, 1.0)), (2.5, None)] {
        let b = Sphere::new(Point::new(x, 0.0, 0.0), 1.0);
        assert_eq!(sweep_sphere_sphere(&a, &common, &b, &common), expected);
        assert_eq!(
            sweep_sphere_sphere(&a, &Vector::zeros(), &b, &Vector::zeros()),
            expected
        );
    }
    let point = Sphere::new(Point::new(1.0, 2.0, 3.0), 0.0);
    assert_eq!(
        sweep_sphere_sphere(&point, &common, &point, &common),
        hit(0.0, 1.0)
    );
}

#[test]
fn sphere_sphere_small_first_root_is_accurate() {
    // B just outside contact (gap 2⁻¹¹), closing fast: the small root must not
    // suffer the cancellation of (−b − √disc) / a. Coordinates make `c` exact.
    let a = Sphere::new(Point::origin(), 1.0);
    let b = Sphere::new(Point::new(1.0 + (2.0 as Real).powi(-11), 0.0, 0.0), 0.0);
    let motion = Vector::new(-1000.0, 30.0, 0.0);
    let got = sweep_sphere_sphere(&a, &Vector::zeros(), &b, &motion).unwrap();
    let (d, v) = (wide_point(&b.center), wide(&motion));
    let (qa, qb, qc) = (v.norm_squared(), d.dot(&v), d.norm_squared() - 1.0);
    let expected = qc / (-qb + (qb * qb - qa * qc).sqrt());
    let relative = (f64::from(got.first) - expected).abs() / expected;
    assert!(
        relative <= 1e-5,
        "first {} vs {expected}: relative error {relative}",
        got.first
    );
}

#[test]
fn sphere_sphere_extreme_magnitudes_do_not_overflow_or_underflow() {
    // Powers of two (2¹⁰⁰, 2⁻¹⁰⁰, and 2⁻¹⁴⁰ whose inputs are subnormal) keep the answer exact.
    for exponent in [100, -100, -140] {
        let scale = 2f64.powi(exponent) as Real;
        let s = |x: Real| x * scale;
        let a = Sphere::new(Point::origin(), s(1.0));
        let b = Sphere::new(Point::new(s(-4.0), 0.0, 0.0), s(1.0));
        let got = sweep_sphere_sphere(&a, &Vector::zeros(), &b, &Vector::new(s(8.0), 0.0, 0.0));
        assert_eq!(got, hit(0.25, 0.75), "scale 2^{exponent}");
    }
}

#[test]
fn sphere_sphere_non_finite_or_negative_input_is_none() {
    let a = Sphere::new(Point::origin(), 1.0);
    let b = Sphere::new(Point::new(3.0, 0.0, 0.0), 1.0);
    let (still, close) = (Vector::zeros(), Vector::new(-2.0, 0.0, 0.0));
    assert!(sweep_sphere_sphere(&a, &still, &b, &close).is_some());
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        let b_bad = Sphere::new(Point::new(3.0, bad, 0.0), 1.0);
        assert_eq!(sweep_sphere_sphere(&a, &still, &b_bad, &close), None);
        assert_eq!(
            sweep_sphere_sphere(&a, &Vector::new(bad, 0.0, 0.0), &b, &close),
            None
        );
        assert_eq!(
            sweep_sphere_sphere(&Sphere::new(Point::origin(), bad), &still, &b, &close),
            None
        );
    }
    assert_eq!(
        sweep_sphere_sphere(&Sphere::new(Point::origin(), -0.5), &still, &b, &close),
        None
    );
    // Finite input whose differences overflow is refused, not answered with NaN.
    let far = Sphere::new(Point::new(Real::MAX, 0.0, 0.0), 1.0);
    let near = Sphere::new(Point::new(-Real::MAX, 0.0, 0.0), 1.0);
    assert_eq!(sweep_sphere_sphere(&far, &still, &near, &still), None);
}

// ------------------------------------------------ AABB–AABB regressions

/// Box A = [0, 1]³ at rest; box B = [min, min + 1] moved by `motion`.
fn sweep_unit_boxes(min: [Real; 3], motion: [Real; 3]) -> Option<SweepHit> {
    let a = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let b = Aabb::new(Point::from(min), Point::from(min) + Vector::repeat(1.0));
    sweep_aabb_aabb(&a, &Vector::zeros(), &b, &Vector::from(motion))
}

#[test]
fn aabb_aabb_reports_entry_and_exit_times() {
    assert_eq!(
        sweep_unit_boxes([-3.0, 0.0, 0.0], [8.0, 0.0, 0.0]),
        hit(0.25, 0.5)
    );
    assert_eq!(
        sweep_unit_boxes([3.0, 0.0, 0.0], [-8.0, 0.0, 0.0]),
        hit(0.25, 0.5)
    );
}

#[test]
fn aabb_aabb_intersects_the_per_axis_intervals() {
    // x overlaps for u ∈ [1/4, 1/2], y for u ∈ [3/8, 5/8]: together [3/8, 1/2].
    assert_eq!(
        sweep_unit_boxes([-3.0, -4.0, 0.0], [8.0, 8.0, 0.0]),
        hit(0.375, 0.5)
    );
    // x for [1/4, 1/2], y for [5/8, 7/8]: each axis meets in the frame, the boxes never do.
    assert_eq!(sweep_unit_boxes([-3.0, -6.0, 0.0], [8.0, 8.0, 0.0]), None);
}

#[test]
fn aabb_aabb_both_moving_use_relative_motion() {
    let a = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let b = Aabb::new(Point::new(3.0, 0.0, 0.0), Point::new(4.0, 1.0, 1.0));
    let got = sweep_aabb_aabb(
        &a,
        &Vector::new(2.0, 5.0, 0.0),
        &b,
        &Vector::new(-2.0, 5.0, 0.0),
    );
    assert_eq!(got, hit(0.5, 1.0));
}

#[test]
fn aabb_aabb_contact_outside_the_frame_is_not_reported() {
    assert_eq!(sweep_unit_boxes([-3.0, 0.0, 0.0], [1.0, 0.0, 0.0]), None);
    assert_eq!(sweep_unit_boxes([3.0, 0.0, 0.0], [1.0, 0.0, 0.0]), None);
}

#[test]
fn aabb_aabb_touching_at_start_is_a_contact_at_zero() {
    for (min, motion) in [
        ([1.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        ([-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
    ] {
        let got = sweep_unit_boxes(min, motion);
        assert_eq!(got, hit(0.0, 0.0));
        assert!(got.unwrap().last.is_sign_positive(), "{got:?}");
    }
    assert_eq!(
        sweep_unit_boxes([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]),
        hit(0.0, 1.0)
    );
}

#[test]
fn aabb_aabb_touching_at_end_of_frame_is_a_hit() {
    assert_eq!(
        sweep_unit_boxes([-3.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
        hit(1.0, 1.0)
    );
    assert_eq!(sweep_unit_boxes([-3.0, 0.0, 0.0], [1.5, 0.0, 0.0]), None);
}

#[test]
fn aabb_aabb_still_axis_separated_never_meets() {
    assert_eq!(sweep_unit_boxes([-3.0, 2.0, 0.0], [8.0, 0.0, 0.0]), None);
    assert_eq!(sweep_unit_boxes([-3.0, 0.0, 0.0], [0.0, 0.0, 0.0]), None);
}

#[test]
fn aabb_aabb_still_axis_overlapping_or_touching_does_not_restrict() {
    assert_eq!(
        sweep_unit_boxes([-3.0, 0.5, 0.0], [8.0, 0.0, 0.0]),
        hit(0.25, 0.5)
    );
    assert_eq!(
        sweep_unit_boxes([-3.0, 1.0, -1.0], [8.0, 0.0, 0.0]),
        hit(0.25, 0.5)
    );
    assert_eq!(
        sweep_unit_boxes([0.5, 0.5, 0.5], [0.0, 0.0, 0.0]),
        hit(0.0, 1.0)
    );
}

#[test]
fn aabb_aabb_empty_or_non_finite_input_is_none() {
    let unit = Aabb::new(Point::origin(), Point::new(1.0, 1.0, 1.0));
    let still = Vector::zeros();
    assert_eq!(sweep_aabb_aabb(&Aabb::EMPTY, &still, &unit, &still), None);
    let inverted = Aabb::new(Point::new(1.0, 0.0, 0.0), Point::new(0.0, 1.0, 1.0));
    assert_eq!(sweep_aabb_aabb(&unit, &still, &inverted, &still), None);
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        let b = Aabb::new(Point::new(0.0, 0.0, bad), Point::new(1.0, 1.0, 1.0));
        assert_eq!(sweep_aabb_aabb(&unit, &still, &b, &still), None);
        assert_eq!(
            sweep_aabb_aabb(&unit, &Vector::new(0.0, bad, 0.0), &unit, &still),
            None
        );
    }
}
