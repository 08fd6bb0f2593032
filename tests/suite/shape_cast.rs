//! Shape casts: the sphere–triangle and capsule–triangle sweeps against an
//! `f64` oracle (the clearance `distance − r` is convex in time, so its
//! first zero is found by a minimisation and a bisection), then the casts
//! over trees, placed meshes and scenes against every triangle one by one.

use crate::common;

use boxtree::bounding_volume::Sphere;
use boxtree::math::{Point, Real, Rotation, Vector};
use boxtree::shape::{Segment, Triangle};
use boxtree::sweep::{TriangleContact, sweep_capsule_triangle, sweep_sphere_triangle};
use common::exact64::{P64, add_scaled, norm, p64, point_triangle, sub};
use common::point;
use proptest::prelude::*;

/// The least of a convex function on `[lo, hi]` and where it is (golden section).
fn minimise(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> (f64, f64) {
    const PHI: f64 = 0.618_033_988_749_894_9;
    for _ in 0..90 {
        let (a, b) = (hi - PHI * (hi - lo), lo + PHI * (hi - lo));
        if f(a) <= f(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    let at = 0.5 * (lo + hi);
    (f(at), at)
}

/// The distance from the segment `a..b` to the triangle: convex along the segment.
fn segment_triangle(a: P64, b: P64, tri: [P64; 3]) -> f64 {
    let d = sub(b, a);
    minimise(|s| point_triangle(add_scaled(a, d, s), tri), 0.0, 1.0).0
}

/// The first time in `[0, 1]` the clearance reaches 0, `None` if it stays
/// positive, and whether the case grazes (its least clearance lies within
/// `margin` of 0, where `f32` rounding may decide either way).
fn first_contact(clearance: impl Fn(f64) -> f64, margin: f64) -> (Option<f64>, bool) {
    if clearance(0.0) <= 0.0 {
        return (Some(0.0), clearance(0.0).abs() < margin);
    }
    let (least, at) = minimise(&clearance, 0.0, 1.0);
    let grazing = least.abs() < margin || clearance(0.0) < margin;
    if least > 0.0 {
        return (None, grazing);
    }
    let (mut lo, mut hi) = (0.0, at);
    for _ in 0..90 {
        let mid = 0.5 * (lo + hi);
        if clearance(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (Some(hi), grazing)
}

/// Checks a contact against the oracle: same verdict, time within
/// `tolerance`, the point on the triangle, the normal a unit vector.
fn check(
    ours: Option<TriangleContact>,
    expected: (Option<f64>, bool),
    tri: &Triangle,
    tolerance: f64,
) -> Result<(), TestCaseError> {
    let (time, grazing) = expected;
    if grazing {
        return Ok(());
    }
    match (ours, time) {
        (None, None) => Ok(()),
        (Some(hit), Some(t)) => {
            prop_assert!(
                (f64::from(hit.time) - t).abs() <= tolerance,
                "time {} against {t}",
                hit.time
            );
            let off = point_triangle(p64(&hit.point), tri.vertices().map(|v| p64(&v)));
            prop_assert!(off <= tolerance, "contact point {off} off the triangle");
            prop_assert!((hit.normal.norm() - 1.0).abs() < 1e-4, "{:?}", hit.normal);
            Ok(())
        }
        (ours, time) => Err(TestCaseError::fail(format!(
            "ours {ours:?}, oracle {time:?}"
        ))),
    }
}

fn triangle_strategy(extent: Real) -> impl Strategy<Value = Triangle> {
    prop_oneof![
        4 => (point(extent), point(extent), point(extent))
            .prop_map(|(a, b, c)| Triangle::new(a, b, c)),
        // Degenerate: a needle and a point.
        1 => (point(extent), point(extent)).prop_map(|(a, b)| Triangle::new(a, b, b)),
        1 => point(extent).prop_map(|a| Triangle::new(a, a, a)),
    ]
}

fn motion_strategy(extent: Real) -> impl Strategy<Value = Vector> {
    prop_oneof![
        6 => point(extent).prop_map(|p| p.coords),
        1 => Just(Vector::zeros()),
    ]
}

proptest! {
    #[test]
    fn sphere_sweeps_match_the_clearance_oracle(
        tri in triangle_strategy(2.0),
        center in point(3.0),
        radius in 0.0f32..1.0,
        motion in motion_strategy(4.0),
    ) {
        let sphere = Sphere::new(center, radius);
        let ours = sweep_sphere_triangle(&sphere, &motion, &tri);
        let corners = tri.vertices().map(|v| p64(&v));
        let (c, d) = (p64(&center), p64(&Point::from(motion)));
        let clearance = |t: f64| point_triangle(add_scaled(c, d, t), corners) - f64::from(radius);
        let tolerance = 1e-4 * (1.0 + norm(d)).recip().max(1.0);
        check(ours, first_contact(clearance, 1e-4), &tri, tolerance)?;
        if let Some(hit) = ours {
            // Touching at the reported time: the centre lies `r` from the point.
            let centre = center + motion * hit.time;
            prop_assert!(((centre - hit.point).norm() - radius).abs() < 2e-3 || hit.time == 0.0);
        }
    }

    #[test]
    fn capsule_sweeps_match_the_clearance_oracle(
        tri in triangle_strategy(2.0),
        a in point(3.0),
        b in point(3.0),
        radius in 0.0f32..0.7,
        motion in motion_strategy(4.0),
    ) {
        let axis = Segment::new(a, b);
        let ours = sweep_capsule_triangle(&axis, radius, &motion, &tri);
        let corners = tri.vertices().map(|v| p64(&v));
        let (pa, pb, d) = (p64(&a), p64(&b), p64(&Point::from(motion)));
        let clearance = |t: f64| {
            segment_triangle(add_scaled(pa, d, t), add_scaled(pb, d, t), corners) - f64::from(radius)
        };
        check(ours, first_contact(clearance, 1e-4), &tri, 1e-4)?;
    }

    /// An axis parallel to the triangle's plane makes the prism that the
    /// sweep works on flat: the other branch, checked on its own.
    #[test]
    fn flat_capsule_sweeps_match_the_clearance_oracle(
        tri in triangle_strategy(2.0),
        a in point(3.0),
        b in point(3.0),
        height in -1.0f32..1.0,
        radius in 0.0f32..0.7,
        motion in motion_strategy(4.0),
    ) {
        let flat = |p: Point| Point::new(p.x, p.y, 0.5);
        let tri = Triangle::new(flat(tri.a), flat(tri.b), flat(tri.c));
        let lift = |p: Point| Point::new(p.x, p.y, height);
        let axis = Segment::new(lift(a), lift(b));
        let ours = sweep_capsule_triangle(&axis, radius, &motion, &tri);
        let corners = tri.vertices().map(|v| p64(&v));
        let (pa, pb, d) = (p64(&axis.a), p64(&axis.b), p64(&Point::from(motion)));
        let clearance = |t: f64| {
            segment_triangle(add_scaled(pa, d, t), add_scaled(pb, d, t), corners) - f64::from(radius)
        };
        check(ours, first_contact(clearance, 1e-4), &tri, 1e-4)?;
    }
}

#[test]
fn listing_bugs_stay_fixed() {
    let tri = Triangle::new(
        Point::new(0.0, 0.0, 0.0),
        Point::new(2.0, 0.0, 0.0),
        Point::new(0.0, 2.0, 0.0),
    );
    let ball = |x: Real, y: Real, z: Real, r: Real| Sphere::new(Point::new(x, y, z), r);
    // Face contact from above, touching exactly at the end of the frame.
    let hit = sweep_sphere_triangle(
        &ball(0.5, 0.5, 2.0, 0.5),
        &Vector::new(0.0, 0.0, -1.5),
        &tri,
    )
    .expect("touches at the end");
    assert_eq!(hit.time, 1.0);
    assert_eq!(hit.normal, Vector::z());
    // From below: the back face counts, its normal points down.
    let hit = sweep_sphere_triangle(
        &ball(0.5, 0.5, -2.0, 0.5),
        &Vector::new(0.0, 0.0, 3.0),
        &tri,
    )
    .expect("back face");
    assert_eq!(hit.time, 0.5);
    assert_eq!(hit.normal, -Vector::z());
    // Moving away, and stopping short: no contact.
    assert!(
        sweep_sphere_triangle(&ball(0.5, 0.5, 2.0, 0.5), &Vector::new(0.0, 0.0, 1.0), &tri)
            .is_none()
    );
    assert!(
        sweep_sphere_triangle(
            &ball(0.5, 0.5, 2.0, 0.5),
            &Vector::new(0.0, 0.0, -1.4),
            &tri
        )
        .is_none()
    );
    // Parallel to the plane, beside the triangle: reaches the edge x = 0 from
    // x < 0, no division by zero.
    let hit = sweep_sphere_triangle(
        &ball(-2.0, 0.5, 0.25, 0.5),
        &Vector::new(4.0, 0.0, 0.0),
        &tri,
    )
    .expect("edge contact");
    // The centre, 0.25 above the plane, comes within 0.5 of the edge line
    // at x = −√(0.5² − 0.25²).
    let expected = (2.0 - (0.25f32 - 0.0625).sqrt()) / 4.0;
    assert!((hit.time - expected).abs() < 1e-6, "{hit:?}");
    assert!(
        hit.point.x.abs() < 1e-6 && (hit.point.y - 0.5).abs() < 1e-6,
        "{hit:?}"
    );
    // Touching and overlapping at the start answer 0; still objects too.
    let touching = ball(0.5, 0.5, 0.5, 0.5);
    for motion in [Vector::zeros(), Vector::new(0.0, 0.0, 1.0)] {
        let hit = sweep_sphere_triangle(&touching, &motion, &tri).expect("in contact");
        assert_eq!(hit.time, 0.0);
        assert_eq!(hit.normal, Vector::z());
    }
    assert!(sweep_sphere_triangle(&ball(0.5, 0.5, 2.0, 0.5), &Vector::zeros(), &tri).is_none());
    // A degenerate triangle (a point) is hit like a sphere.
    let dot = Triangle::new(Point::origin(), Point::origin(), Point::origin());
    let hit = sweep_sphere_triangle(
        &ball(-3.0, 0.0, 0.0, 1.0),
        &Vector::new(4.0, 0.0, 0.0),
        &dot,
    )
    .expect("point contact");
    assert_eq!(hit.time, 0.5);
    assert_eq!(hit.normal, -Vector::x());
    // Bad input: no answer, no panic.
    assert!(sweep_sphere_triangle(&ball(Real::NAN, 0.0, 0.0, 1.0), &Vector::x(), &tri).is_none());
    assert!(sweep_sphere_triangle(&ball(0.0, 0.0, 5.0, -1.0), &Vector::x(), &tri).is_none());
    assert!(
        sweep_sphere_triangle(
            &ball(0.0, 0.0, 5.0, 1.0),
            &Vector::new(0.0, Real::INFINITY, 0.0),
            &tri
        )
        .is_none()
    );
    // A capsule lying flat, falling onto the face: contact at once along its length.
    let axis = Segment::new(Point::new(0.25, 0.25, 1.0), Point::new(1.0, 0.5, 1.0));
    let hit =
        sweep_capsule_triangle(&axis, 0.25, &Vector::new(0.0, 0.0, -1.5), &tri).expect("face");
    assert_eq!(hit.time, 0.5);
    assert_eq!(hit.normal, Vector::z());
    // A capsule crossing over an edge side-on: its axis meets the edge's
    // line at a right angle, contact through the side, not an end.
    let axis = Segment::new(Point::new(-1.0, 1.0, -1.0), Point::new(-1.0, 1.0, 1.0));
    let hit = sweep_capsule_triangle(&axis, 0.5, &Vector::new(2.0, 0.0, 0.0), &tri).expect("side");
    assert!((hit.time - 0.25).abs() < 1e-6, "{hit:?}");
    assert!(
        hit.point.x.abs() < 1e-6 && (hit.point.y - 1.0).abs() < 1e-6,
        "{hit:?}"
    );
    assert!((hit.normal + Vector::x()).norm() < 1e-6, "{hit:?}");
}

// ------------------------------------------------------------ over trees

use boxtree::bvh::BoundingVolume;
use boxtree::math::Isometry;
use boxtree::{
    Aabb, CastHit, CastShape, Kdop14, MeshTree, Obb, PackedObb, Rss, ShapeCast, TriMesh, TriangleId,
};
use common::{SplitMix, data_mesh};

/// The earliest contact over every triangle, ties to the lowest id.
fn brute_force(mesh: &TriMesh, cast: &ShapeCast) -> Option<CastHit> {
    let mut best: Option<CastHit> = None;
    for (k, tri) in mesh.triangles().enumerate() {
        if let Some(c) = cast.against(&tri)
            && best.is_none_or(|b| c.time < b.time)
        {
            best = Some(CastHit {
                time: c.time,
                triangle: TriangleId(k as u32),
                point: c.point,
                normal: c.normal,
            });
        }
    }
    best
}

fn cast_meshes() -> Vec<(&'static str, TriMesh)> {
    let bunny = data_mesh("bunny.obj");
    // A soup with zero-area triangles mixed in.
    let soup = TriMesh::random_soup(300, 1.0, 0.3, 7);
    let mut indices = soup.indices().to_vec();
    for k in 0..30 {
        let [a, b, _] = indices[k * 7];
        indices.push([a, b, b]);
    }
    let soup = TriMesh::new(soup.vertices().to_vec(), indices).expect("valid");
    vec![
        ("bunny", bunny),
        ("terrain", TriMesh::terrain(24, 4.0, 0.6, 3)),
        ("soup", soup),
    ]
}

/// Casts over `mesh`'s box: spheres and capsules of sizes from nothing to
/// a fifth of the box, long and short motions, some still, some starting
/// in contact.
fn random_casts(mesh: &TriMesh, count: usize, seed: u64) -> Vec<ShapeCast> {
    let bounds = mesh.aabb();
    let (centre, half) = (bounds.center(), bounds.half_extents());
    let size = half.norm();
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|k| {
            let at = |rng: &mut SplitMix| centre + rng.vector(-1.3, 1.3).component_mul(&half);
            let start = at(&mut rng);
            let motion = match k % 5 {
                0 => Vector::zeros(),
                1 => rng.vector(-0.05, 0.05) * size,
                _ => at(&mut rng) - start,
            };
            let radius = match k % 4 {
                0 => 0.0,
                _ => rng.range(0.0, 0.2) * size,
            };
            if k % 3 == 0 {
                let axis = Segment::new(start, start + rng.vector(-0.2, 0.2) * size);
                ShapeCast::capsule(axis, radius, motion)
            } else if k % 3 == 1 {
                let turn = *rng.rotation().to_rotation_matrix().matrix();
                let half = rng.vector(0.0, 0.15) * size;
                ShapeCast::obb(Obb::new(start, turn, half), motion)
            } else {
                ShapeCast::sphere(start, radius, motion)
            }
        })
        .collect()
}

fn check_tree<V: BoundingVolume>(
    name: &str,
    mesh: &TriMesh,
    casts: &[ShapeCast],
    answers: &[Option<CastHit>],
) {
    let tree = MeshTree::<V>::new(mesh.clone());
    for (cast, &expected) in casts.iter().zip(answers) {
        assert_eq!(tree.cast_closest_hit(cast), expected, "{name} {cast:?}");
        let any = tree.cast_any_hit(cast);
        assert_eq!(any.is_some(), expected.is_some(), "{name} {cast:?}");
        if let Some(t) = any {
            assert!(cast.against(&mesh.triangle(t)).is_some(), "{name}");
        }
    }
}

#[test]
fn every_tree_kind_casts_as_every_triangle() {
    // `BOXTREE_LONG_TESTS=1`: 200,000 casts per mesh, a third each
    // spheres (a quarter of them of radius 0), capsules and boxes.
    let count = common::long_or(200_000, 600);
    for (name, mesh) in cast_meshes() {
        let casts = random_casts(&mesh, count, 31);
        let answers: Vec<_> = casts.iter().map(|c| brute_force(&mesh, c)).collect();
        let hits = answers.iter().flatten().count();
        let starts = answers.iter().flatten().filter(|h| h.time == 0.0).count();
        assert!(
            hits > count / 4 && hits < count * 11 / 12,
            "{name}: {hits} of {count} hit"
        );
        assert!(
            starts > 20 && starts < hits - 50,
            "{name}: {starts} start in contact"
        );
        check_tree::<Aabb>(name, &mesh, &casts, &answers);
        check_tree::<PackedObb>(name, &mesh, &casts, &answers);
        check_tree::<Obb>(name, &mesh, &casts, &answers);
        check_tree::<boxtree::Sphere>(name, &mesh, &casts, &answers);
        check_tree::<Kdop14>(name, &mesh, &casts, &answers);
        check_tree::<Rss>(name, &mesh, &casts, &answers);
    }
}

#[test]
fn far_meshes_and_long_casts_cast_as_every_triangle() {
    // Node boxes grow by the rounding of the mesh's coordinates and the
    // shape's size; the path's own size counts by `f64` ulps only (the
    // leaves' sweeps run in `f64`). Meshes far from the origin, and casts
    // from far away along long motions, must still answer as a loop over
    // every triangle does.
    let count = common::long_or(20_000, 300);
    let mut rng = SplitMix(43);
    for (name, mesh) in cast_meshes() {
        for far in [1e3, 1e4, 1e5] {
            let offset = Vector::new(far, -far, 0.5 * far);
            let moved: Vec<Point> = mesh.vertices().iter().map(|v| v + offset).collect();
            let mesh = TriMesh::new(moved, mesh.indices().to_vec()).expect("finite");
            let mut casts = random_casts(&mesh, count, 37);
            // From up to a thousand sizes away, aimed through the mesh.
            let (centre, size) = (mesh.aabb().center(), mesh.aabb().half_extents().norm());
            for k in 0..count {
                let away = rng.point(1.0).coords * size * rng.range(10.0, 1000.0);
                let start = centre + away;
                let motion = -away * rng.range(1.0, 2.5) + rng.vector(-0.3, 0.3) * size;
                let radius = rng.range(0.0, 0.1) * size;
                casts.push(if k % 2 == 0 {
                    ShapeCast::sphere(start, radius, motion)
                } else {
                    ShapeCast::capsule(
                        Segment::new(start, start + rng.vector(-0.2, 0.2) * size),
                        radius,
                        motion,
                    )
                });
            }
            let answers: Vec<_> = casts.iter().map(|c| brute_force(&mesh, c)).collect();
            assert!(
                answers.iter().flatten().count() > count / 4,
                "{name} at {far}"
            );
            check_tree::<Aabb>(name, &mesh, &casts, &answers);
            check_tree::<Obb>(name, &mesh, &casts, &answers);
        }
    }
}

#[test]
fn placed_meshes_cast_in_world_space() {
    let mesh = data_mesh("bunny.obj");
    let tree = MeshTree::<Aabb>::new(mesh.clone());
    let mut rng = SplitMix(32);
    let size = mesh.aabb().half_extents().norm();
    for far in [0.0, 1e4] {
        let rotation: Rotation = rng.rotation();
        let offset = rng.vector(-1.0, 1.0) * size + Vector::repeat(far);
        let pose = Isometry::from_parts(offset.into(), rotation);
        let world = TriMesh::new(
            mesh.vertices().iter().map(|v| pose * v).collect(),
            mesh.indices().to_vec(),
        )
        .expect("valid");
        let placed = tree.placed(pose);
        let mut compared = 0;
        for cast in random_casts(&world, 300, 33) {
            let (ours, expected) = (placed.cast_closest_hit(&cast), brute_force(&world, &cast));
            // The two differ by the rounding of the vertices' and the
            // cast's transforms: compare times, skipping grazing verdicts.
            match (ours, expected) {
                (Some(a), Some(b)) => {
                    let tolerance = 1e-3 * (1.0 + far / size) / (1.0 + cast.motion.norm() / size);
                    assert!((a.time - b.time).abs() <= tolerance, "{a:?} vs {b:?}");
                    let p = world.triangle(a.triangle);
                    let on = boxtree::intersect::closest_point_on_triangle(&a.point, &p);
                    assert!((on.point - a.point).norm() <= 1e-3 * (size + far));
                    compared += 1;
                }
                (None, None) => {}
                (a, b) => {
                    // A verdict may flip only when the shape grazes.
                    let tolerance = 1e-3 * (size + far);
                    assert!(grazes(&world, &cast, tolerance), "{a:?} vs {b:?}");
                }
            }
            assert_eq!(placed.cast_any_hit(&cast).is_some(), ours.is_some());
        }
        assert!(compared > 100, "{compared}");
    }
}

/// True when the cast's shape comes within `tolerance` of the mesh without
/// clearly touching it, or touches it only within `tolerance` (sampled
/// along the path): where the rounding of two transforms may decide.
fn grazes(mesh: &TriMesh, cast: &ShapeCast, tolerance: Real) -> bool {
    (0..=200).any(|k| {
        let t = k as Real / 200.0;
        let shift = cast.motion * t;
        mesh.triangles().any(|tri| match cast.shape {
            CastShape::Sphere(s) => {
                let at = s.center + shift;
                let core = Triangle::new(at, at, at);
                let d = boxtree::intersect::triangle_distance(&tri, &core).distance;
                (d - s.radius).abs() <= tolerance
            }
            CastShape::Capsule { axis, radius } => {
                let core = Triangle::new(axis.a + shift, axis.b + shift, axis.b + shift);
                let d = boxtree::intersect::triangle_distance(&tri, &core).distance;
                (d - radius).abs() <= tolerance
            }
            CastShape::Box(b) => {
                let at = moved(&b, &cast.motion, t);
                box_meets(&at, tolerance, &tri) && !box_meets(&at, -tolerance, &tri)
            }
            _ => true,
        })
    })
}

#[test]
fn bad_casts_answer_nothing() {
    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 2));
    let bad = [
        ShapeCast::sphere(Point::new(Real::NAN, 0.0, 0.0), 0.1, Vector::x()),
        ShapeCast::sphere(Point::new(-3.0, 0.0, 0.0), -0.1, Vector::x() * 6.0),
        ShapeCast::sphere(
            Point::new(-3.0, 0.0, 0.0),
            0.1,
            Vector::new(Real::INFINITY, 0.0, 0.0),
        ),
        ShapeCast::capsule(
            Segment::new(Point::new(-3.0, 0.0, 0.0), Point::new(-3.0, Real::NAN, 0.0)),
            0.1,
            Vector::x() * 6.0,
        ),
    ];
    for cast in &bad {
        assert_eq!(tree.cast_closest_hit(cast), None, "{cast:?}");
        assert_eq!(tree.cast_any_hit(cast), None, "{cast:?}");
        assert_eq!(
            tree.placed(Isometry::identity()).cast_closest_hit(cast),
            None
        );
    }
    // A sphere enclosing the whole ball but touching nothing: no contact.
    let around = ShapeCast::sphere(Point::origin(), 0.5, Vector::zeros());
    assert_eq!(tree.cast_closest_hit(&around), None);
    // Starting on the surface: time 0.
    let on = ShapeCast::sphere(Point::new(1.0, 0.0, 0.0), 0.01, Vector::x());
    assert_eq!(tree.cast_closest_hit(&on).map(|h| h.time), Some(0.0));
}

// ------------------------------------------------------------ box casts

use boxtree::intersect::{ConvexPolytope, polytopes_overlap};
use boxtree::sweep::sweep_box_triangle;
use common::rotation;

/// True when the box with half-extents grown by `grow` (negative shrinks)
/// overlaps the triangle, by the slow general `f64` separating-axis test.
fn box_meets(obb: &Obb, grow: Real, tri: &Triangle) -> bool {
    let half = obb.half_extents.map(|h| (h + grow).max(0.0));
    let grown = Obb::new(obb.center, obb.axes, half);
    let corners = grown.corners();
    let axes = [0, 1, 2].map(|i| obb.axis(i));
    let box_shape = ConvexPolytope {
        vertices: &corners,
        face_normals: &axes,
        edge_directions: &axes,
    };
    let vertices = tri.vertices();
    let edges = [tri.b - tri.a, tri.c - tri.b, tri.a - tri.c];
    let normal = [tri.scaled_normal()];
    let tri_shape = ConvexPolytope {
        vertices: &vertices,
        face_normals: &normal,
        edge_directions: &edges,
    };
    polytopes_overlap(&box_shape, &tri_shape)
}

fn moved(obb: &Obb, motion: &Vector, t: Real) -> Obb {
    Obb::new(obb.center + motion * t, obb.axes, obb.half_extents)
}

proptest! {
    #[test]
    fn box_sweeps_match_a_time_stepping_oracle(
        tri in triangle_strategy(2.0),
        center in point(3.0),
        turn in rotation(),
        half in (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0),
        motion in motion_strategy(4.0),
    ) {
        let axes = *turn.to_rotation_matrix().matrix();
        let obb = Obb::new(center, axes, Vector::new(half.0, half.1, half.2));
        let ours = sweep_box_triangle(&obb, &motion, &tri);
        const STEPS: usize = 400;
        let tolerance = 1e-3;
        match ours {
            Some(hit) => {
                // Touching at the reported time, and nowhere before it.
                prop_assert!(box_meets(&moved(&obb, &motion, hit.time), tolerance, &tri), "{hit:?}");
                for k in 0..STEPS {
                    let t = k as Real / STEPS as Real;
                    if t >= hit.time - 1e-3 {
                        break;
                    }
                    prop_assert!(!box_meets(&moved(&obb, &motion, t), -tolerance, &tri), "contact at {t} before {hit:?}");
                }
                let off = point_triangle(p64(&hit.point), tri.vertices().map(|v| p64(&v)));
                prop_assert!(off <= 1e-3, "contact point {off} off the triangle");
                prop_assert!((hit.normal.norm() - 1.0).abs() < 1e-4);
                if hit.time > 0.0 {
                    // The normal points off the triangle: moving the box
                    // along it separates them.
                    let at = moved(&obb, &motion, hit.time);
                    let off = Obb::new(at.center + hit.normal * 0.01, at.axes, at.half_extents);
                    prop_assert!(!box_meets(&off, 0.005, &tri), "{hit:?}");
                }
            }
            None => {
                for k in 0..=STEPS {
                    let t = k as Real / STEPS as Real;
                    prop_assert!(!box_meets(&moved(&obb, &motion, t), -tolerance, &tri), "missed contact at {t}");
                }
            }
        }
    }
}

#[test]
fn box_casts_meet_faces_edges_and_corners() {
    let tri = Triangle::new(
        Point::new(0.0, 0.0, 0.0),
        Point::new(2.0, 0.0, 0.0),
        Point::new(0.0, 2.0, 0.0),
    );
    let unit = |x: Real, y: Real, z: Real| {
        Obb::new(
            Point::new(x, y, z),
            boxtree::math::Matrix::identity(),
            Vector::repeat(0.25),
        )
    };
    // Falling flat onto the face.
    let hit =
        sweep_box_triangle(&unit(0.5, 0.5, 2.0), &Vector::new(0.0, 0.0, -3.5), &tri).expect("face");
    assert!((hit.time - 0.5).abs() < 1e-6, "{hit:?}");
    assert_eq!(hit.normal, Vector::z());
    assert!(
        hit.point.z.abs() < 1e-5 && (hit.point.x - 0.5).abs() < 1e-5,
        "{hit:?}"
    );
    // Sliding in the plane onto the edge x = 0: the box's face meets it.
    let hit =
        sweep_box_triangle(&unit(-2.0, 0.5, 0.0), &Vector::new(4.0, 0.0, 0.0), &tri).expect("edge");
    assert!((hit.time - 1.75 / 4.0).abs() < 1e-6, "{hit:?}");
    assert_eq!(hit.normal, -Vector::x());
    // Moving parallel to a face axis beside the triangle: no contact, no NaN.
    assert!(sweep_box_triangle(&unit(-2.0, 0.5, 1.0), &Vector::new(4.0, 0.0, 0.0), &tri).is_none());
    // Overlapping at the start, and still: time 0.
    let hit = sweep_box_triangle(&unit(0.5, 0.5, 0.1), &Vector::zeros(), &tri).expect("start");
    assert_eq!(hit.time, 0.0);
    assert_eq!(hit.normal, Vector::z());
    // A turned box meets the face with a corner: the contact point is that corner.
    let turned = Obb::from_rotation(
        Point::new(0.5, 0.5, 2.0),
        &Rotation::from_euler_angles(0.6, 0.5, 0.0),
        Vector::repeat(0.25),
    );
    let hit = sweep_box_triangle(&turned, &Vector::new(0.0, 0.0, -4.0), &tri).expect("corner");
    let lowest = turned
        .corners()
        .into_iter()
        .min_by(|a, b| a.z.total_cmp(&b.z))
        .expect("corners");
    let expected = lowest + Vector::new(0.0, 0.0, -4.0) * hit.time;
    assert!(
        (hit.point - expected).norm() < 1e-4,
        "{hit:?} vs {expected:?}"
    );
    // Bad input.
    let flat = Obb {
        center: Point::origin(),
        axes: boxtree::math::Matrix::identity(),
        half_extents: Vector::new(-1.0, 1.0, 1.0),
    };
    assert!(sweep_box_triangle(&flat, &Vector::x(), &tri).is_none());
}

#[test]
fn zero_radius_casts_are_the_segment_raycast() {
    let long = common::long_tests();
    let count = if long { 200_000 } else { 4_000 };
    for (name, mesh) in cast_meshes() {
        let tree = MeshTree::<Aabb>::new(mesh.clone());
        let obb = MeshTree::<PackedObb>::new(mesh.clone());
        let bounds = mesh.aabb();
        let (centre, half) = (bounds.center(), bounds.half_extents());
        let mut rng = SplitMix(41);
        let (mut hits, mut on_ends) = (0, 0);
        for k in 0..count {
            let mut a = centre + rng.vector(-1.3, 1.3).component_mul(&half);
            let mut b = centre + rng.vector(-1.3, 1.3).component_mul(&half);
            // A quarter end exactly on a vertex, a quarter start on one.
            let vertex = mesh.vertices()[rng.next_u64() as usize % mesh.vertices().len()];
            match k % 4 {
                0 => b = vertex,
                1 => a = vertex,
                _ => {}
            }
            let segment = Segment::new(a, b);
            let cast = ShapeCast::sphere_along(&segment, 0.0);
            for (kind, ray, swept) in [
                (
                    "aabb",
                    tree.closest_hit(segment),
                    tree.cast_closest_hit(&cast),
                ),
                ("obb", obb.closest_hit(segment), obb.cast_closest_hit(&cast)),
            ] {
                assert_eq!(
                    ray.map(|h| (h.t, h.triangle)),
                    swept.map(|h| (h.time, h.triangle)),
                    "{name} {kind} {segment:?}"
                );
                if let (Some(r), Some(s)) = (ray, swept) {
                    // The normal faces the side the point came from.
                    assert!(s.normal.dot(&(b - a)) <= 0.0 || r.t == 0.0, "{name} {kind}");
                }
            }
            assert_eq!(
                tree.any_hit(segment).is_some(),
                tree.cast_any_hit(&cast).is_some(),
                "{name} {segment:?}"
            );
            let hit = tree.closest_hit(segment);
            hits += usize::from(hit.is_some());
            on_ends += usize::from(hit.is_some_and(|h| h.t == 0.0 || h.t == 1.0));
        }
        assert!(
            hits > count / 5 && on_ends > count / 10,
            "{name}: {hits} hits, {on_ends} at an end"
        );
    }
}

// ------------------------------------------------- triangles and meshes

use boxtree::intersect::triangle_distance;
use boxtree::sweep::sweep_triangle_triangle;
use boxtree::{MeshCastHit, TrianglePair};

fn triangle_shape(tri: &Triangle) -> ([Point; 3], [Vector; 1], [Vector; 3]) {
    (
        tri.vertices(),
        [tri.scaled_normal()],
        [tri.b - tri.a, tri.c - tri.b, tri.a - tri.c],
    )
}

/// True when the triangles overlap: by the slow general `f64` test, or
/// for a triangle without area (where that test's axes fall short) by
/// their distance.
fn triangles_meet(a: &Triangle, b: &Triangle) -> bool {
    if a.scaled_normal().norm() == 0.0 || b.scaled_normal().norm() == 0.0 {
        return triangle_distance(a, b).distance <= 1e-6;
    }
    let ((va, na, ea), (vb, nb, eb)) = (triangle_shape(a), triangle_shape(b));
    // In-plane axes for coplanar pairs: each normal crossed with its edges.
    let (ia, ib): (Vec<Vector>, Vec<Vector>) = (
        ea.iter().map(|e| na[0].cross(e)).collect(),
        eb.iter().map(|e| nb[0].cross(e)).collect(),
    );
    let faces_a: Vec<Vector> = na.iter().chain(&ia).copied().collect();
    let faces_b: Vec<Vector> = nb.iter().chain(&ib).copied().collect();
    polytopes_overlap(
        &ConvexPolytope {
            vertices: &va,
            face_normals: &faces_a,
            edge_directions: &ea,
        },
        &ConvexPolytope {
            vertices: &vb,
            face_normals: &faces_b,
            edge_directions: &eb,
        },
    )
}

fn shifted(t: &Triangle, v: Vector) -> Triangle {
    Triangle::new(t.a + v, t.b + v, t.c + v)
}

proptest! {
    #[test]
    fn triangle_sweeps_match_a_time_stepping_oracle(
        moving in triangle_strategy(2.0),
        fixed in triangle_strategy(2.0),
        motion in motion_strategy(4.0),
    ) {
        let ours = sweep_triangle_triangle(&moving, &motion, &fixed);
        const STEPS: usize = 400;
        // Distances at the sampled times decide the oracle's verdicts
        // beyond a band of rounding around touching.
        let gap = |t: Real| triangle_distance(&shifted(&moving, motion * t), &fixed).distance;
        match ours {
            Some(hit) => {
                prop_assert!(gap(hit.time) <= 1e-4, "{hit:?}: {} apart", gap(hit.time));
                for k in 0..STEPS {
                    let t = k as Real / STEPS as Real;
                    if t >= hit.time - 1e-3 {
                        break;
                    }
                    prop_assert!(!triangles_meet(&shifted(&moving, motion * t), &fixed) || gap(t) > 0.0,
                        "contact at {t} before {hit:?}");
                }
                let off = point_triangle(p64(&hit.point), fixed.vertices().map(|v| p64(&v)));
                prop_assert!(off <= 1e-4, "contact point {off} off the triangle");
                let flat = |t: &Triangle| t.scaled_normal().norm() == 0.0;
                if hit.time > 0.0 && !flat(&moving) && !flat(&fixed) {
                    // The normal points off the fixed triangle (for
                    // triangles without area it is the last clear offset).
                    let at = shifted(&moving, motion * hit.time + hit.normal * 0.01);
                    prop_assert!(triangle_distance(&at, &fixed).distance > 0.005, "{hit:?}");
                }
            }
            None => {
                // A contact lasting two samples is beyond grazing.
                let meets = |k: usize| {
                    let t = k as Real / STEPS as Real;
                    triangles_meet(&shifted(&moving, motion * t), &fixed)
                };
                for k in 0..STEPS {
                    prop_assert!(!(meets(k) && meets(k + 1)), "missed contact at step {k}");
                }
            }
        }
    }
}

/// Every triangle pair in world space, one by one.
fn mesh_brute_force(a: &TriMesh, b: &TriMesh, motion: &Vector) -> Option<(Real, TrianglePair)> {
    let mut best: Option<(Real, TrianglePair)> = None;
    for (i, ta) in a.triangles().enumerate() {
        for (j, tb) in b.triangles().enumerate() {
            if let Some(c) = sweep_triangle_triangle(&ta, motion, &tb) {
                let pair = TrianglePair {
                    a: TriangleId(i as u32),
                    b: TriangleId(j as u32),
                };
                if best.is_none_or(|(t, p)| c.time < t || (c.time == t && pair < p)) {
                    best = Some((c.time, pair));
                }
            }
        }
    }
    best
}

fn in_world(mesh: &TriMesh, pose: &Isometry) -> TriMesh {
    TriMesh::new(
        mesh.vertices().iter().map(|v| pose * v).collect(),
        mesh.indices().to_vec(),
    )
    .expect("valid")
}

#[test]
fn moving_meshes_touch_as_every_triangle_pair() {
    let pairs = [
        (
            TriMesh::icosphere(Point::origin(), 1.0, 1),
            TriMesh::cuboid(Point::new(-1.0, -0.5, -0.25), Point::new(1.0, 0.5, 0.25)),
        ),
        (
            TriMesh::random_soup(40, 1.0, 0.5, 5),
            TriMesh::terrain(6, 3.0, 0.6, 2),
        ),
    ];
    let mut rng = SplitMix(51);
    let (mut hits, mut starts, mut compared) = (0, 0, 0);
    for (mesh_a, mesh_b) in &pairs {
        let (aabb_a, obb_b) = (
            MeshTree::<Aabb>::new(mesh_a.clone()),
            MeshTree::<PackedObb>::new(mesh_b.clone()),
        );
        let obb_a = MeshTree::<Obb>::new(mesh_a.clone());
        for k in 0..150 {
            let pose_a = Isometry::from_parts(rng.vector(-3.0, 3.0).into(), rng.rotation());
            let pose_b = Isometry::from_parts(rng.vector(-1.0, 1.0).into(), rng.rotation());
            let motion = if k % 10 == 0 {
                Vector::zeros()
            } else {
                rng.vector(-6.0, 6.0)
            };
            let ours: Option<MeshCastHit> = aabb_a
                .placed(pose_a)
                .cast_against(&motion, &obb_b.placed(pose_b));
            let other = obb_a
                .placed(pose_a)
                .cast_against(&motion, &obb_b.placed(pose_b));
            let (world_a, world_b) = (in_world(mesh_a, &pose_a), in_world(mesh_b, &pose_b));
            let expected = mesh_brute_force(&world_a, &world_b, &motion);
            match (ours, expected) {
                (Some(hit), Some((t, _))) => {
                    assert!((hit.time - t).abs() <= 1e-3, "{hit:?} vs {t}");
                    let tb = world_b.triangle(hit.triangles.b);
                    let on = boxtree::intersect::closest_point_on_triangle(&hit.point, &tb);
                    assert!((on.point - hit.point).norm() <= 1e-3, "{hit:?}");
                    assert!((hit.normal.norm() - 1.0).abs() < 1e-4);
                    hits += 1;
                    starts += usize::from(hit.time == 0.0);
                    compared += 1;
                }
                (None, None) => {}
                (a, b) => {
                    // Only where the meshes graze may the rounding of the
                    // poses decide differently.
                    let least = (0..=100)
                        .map(|s| {
                            let t = s as Real / 100.0;
                            let moved = in_world(
                                &world_a,
                                &Isometry::translation(motion.x * t, motion.y * t, motion.z * t),
                            );
                            moved
                                .triangles()
                                .flat_map(|ta| {
                                    world_b
                                        .triangles()
                                        .map(move |tb| triangle_distance(&ta, &tb).distance)
                                })
                                .fold(Real::INFINITY, Real::min)
                        })
                        .fold(Real::INFINITY, Real::min);
                    assert!(least <= 1e-3, "{a:?} vs {b:?}: {least} apart at best");
                }
            }
            // Tree kinds agree to rounding.
            assert_eq!(ours.is_some(), other.is_some());
            if let (Some(x), Some(y)) = (ours, other) {
                assert!((x.time - y.time).abs() <= 1e-5, "{x:?} vs {y:?}");
            }
        }
    }
    assert!(
        hits > 60 && starts > 10 && starts < hits,
        "{hits} hits, {starts} at the start"
    );
    assert!(compared > 50);
    // Bad input.
    let a = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 1));
    let nan = Vector::new(Real::NAN, 0.0, 0.0);
    assert!(
        a.placed(Isometry::identity())
            .cast_against(&nan, &a.placed(Isometry::translation(3.0, 0.0, 0.0)))
            .is_none()
    );
}

#[test]
fn casts_whose_reach_overflows_do_not_enter_unused_lanes() {
    // A sphere of radius 2e38 moved 3e38: the grown node boxes and the
    // path's reach overflow to infinity, where an unused lane's infinite
    // planes give NaN (the descent read such a lane as a node and indexed
    // out of bounds).
    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 1));
    let cast = ShapeCast::sphere(Point::origin(), 2e38, Vector::new(3e38, 0.0, 0.0));
    let hit = tree.cast_closest_hit(&cast).expect("starts in contact");
    assert_eq!(hit.time, 0.0);
    assert!(tree.cast_any_hit(&cast).is_some());
}

/// Found by review: an axis lying exactly in the triangle's plane leaves
/// only rounding noise across it, and the prism's face shortcut must not
/// trust the signs that noise gives (the sweep answered no contact).
#[test]
fn capsules_with_an_axis_in_the_triangle_plane_touch() {
    let p = |x: Real, y: Real, z: Real| Point::new(x, y, z);
    let tri = Triangle::new(p(0.8, 3.0, -2.6), p(-2.5, 1.0, -2.4), p(1.9, 2.8, -1.5));
    let axis = Segment::new(
        p(0.25, 3.1, -2.399_999_9),
        p(-1.95, 0.899_999_86, -1.100_000_1),
    );
    let motion = Vector::new(0.0, 0.0, -1.5);
    let hit = sweep_capsule_triangle(&axis, 0.25, &motion, &tri).expect("passes through it");
    let (corners, (pa, pb, d)) = (
        tri.vertices().map(|v| p64(&v)),
        (p64(&axis.a), p64(&axis.b), p64(&Point::from(motion))),
    );
    let clearance =
        |t: f64| segment_triangle(add_scaled(pa, d, t), add_scaled(pb, d, t), corners) - 0.25;
    let (expected, _) = first_contact(clearance, 1e-4);
    assert!((f64::from(hit.time) - expected.expect("oracle contact")).abs() < 1e-4);
    let tree =
        MeshTree::<Aabb>::new(TriMesh::new(tri.vertices().to_vec(), vec![[0, 1, 2]]).unwrap());
    let cast = ShapeCast::capsule(axis, 0.25, motion);
    assert_eq!(tree.cast_closest_hit(&cast).map(|h| h.time), Some(hit.time));
}

/// Found by review: a box touching one triangle exactly at the end of its
/// cast, and a lower-id triangle a hair after the end, answered nothing
/// (the descent kept the later triangle, whose contact the sweep then
/// refused): the descent's time bound never passes the cast's end.
#[test]
fn box_casts_touching_at_the_end_keep_their_contact() {
    for depth in [1e-7, 2e-7, 3e-7, 4e-7] {
        let below = |x: Real, y: Real| Point::new(x, y, -depth);
        let at = |x: Real, y: Real| Point::new(x, y, 0.0);
        let mesh = TriMesh::new(
            vec![
                below(-5.0, -5.0),
                below(5.0, -5.0),
                below(0.0, 5.0),
                at(-5.0, -5.0),
                at(5.0, -5.0),
                at(0.0, 5.0),
            ],
            vec![[0, 1, 2], [3, 4, 5]],
        )
        .unwrap();
        let cast = ShapeCast::obb(
            Obb::new(
                Point::new(0.0, 0.0, 1.5),
                boxtree::math::Matrix::identity(),
                Vector::repeat(0.5),
            ),
            Vector::new(0.0, 0.0, -1.0),
        );
        let expected = brute_force(&mesh, &cast);
        assert_eq!(
            expected.map(|h| (h.time, h.triangle)),
            Some((1.0, TriangleId(1)))
        );
        let aabb = MeshTree::<Aabb>::new(mesh.clone());
        let obb = MeshTree::<Obb>::new(mesh);
        assert_eq!(aabb.cast_closest_hit(&cast), expected, "{depth}");
        assert_eq!(obb.cast_closest_hit(&cast), expected, "{depth}");
    }
}

/// Found by review: the plane rejection of a needle triangle trusted a
/// normal that rounding dominates, and refused a point capsule resting on
/// one of its vertices, which the sweep itself touches.
#[test]
fn casts_resting_on_needle_triangles_touch_them() {
    let tri = Triangle::new(
        Point::new(-0.165_351_47, -0.826_857_1, 0.631_201_27),
        Point::new(-0.055_598_408, -0.826_469_8, 0.850_466_2),
        Point::new(-0.110_474_94, -0.826_663_43, 0.740_833_76),
    );
    let mesh = TriMesh::new(tri.vertices().to_vec(), vec![[0, 1, 2]]).unwrap();
    let tree = MeshTree::<Aabb>::new(mesh.clone());
    for p in tri.vertices() {
        for cast in [
            ShapeCast::capsule(Segment::new(p, p), 0.0, Vector::zeros()),
            ShapeCast::sphere(p, 1e-6, Vector::zeros()),
        ] {
            let expected = brute_force(&mesh, &cast);
            assert_eq!(expected.map(|h| h.time), Some(0.0), "{cast:?}");
            assert_eq!(tree.cast_closest_hit(&cast), expected, "{cast:?}");
            assert!(tree.cast_any_hit(&cast).is_some(), "{cast:?}");
        }
    }
}

/// Found by review: a capsule longer than about 1.8e19 counted as invalid,
/// its bounding radius overflowing `f32` on the way (the squares of its
/// coordinates), though the sweep itself answers it.
#[test]
fn capsules_longer_than_f32_squares_reach_still_cast() {
    let floor = TriMesh::new(
        vec![
            Point::new(-1.0, -1.0, 0.0),
            Point::new(1.0, -1.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let tree = MeshTree::<Aabb>::new(floor.clone());
    let axis = Segment::new(Point::new(-1e20, 0.0, 1.0), Point::new(1e20, 0.0, 1.0));
    let cast = ShapeCast::capsule(axis, 0.5, Vector::new(0.0, 0.0, -1.0));
    let expected = brute_force(&floor, &cast);
    assert_eq!(expected.map(|h| h.time), Some(0.5));
    assert_eq!(tree.cast_closest_hit(&cast), expected);
    assert_eq!(tree.cast_any_hit(&cast), Some(TriangleId(0)));
}

/// Found by review: a shape resting on a point triangle without motion has
/// no direction to give, and its normal came out NaN.
#[test]
fn contacts_with_point_triangles_have_unit_normals() {
    let p = Point::new(0.5, -0.25, 2.0);
    let tri = Triangle::new(p, p, p);
    for cast in [
        ShapeCast::sphere(p, 0.5, Vector::zeros()),
        ShapeCast::capsule(Segment::new(p, p + Vector::x()), 0.5, Vector::zeros()),
    ] {
        let hit = cast.against(&tri).expect("resting on it");
        assert_eq!(hit.time, 0.0);
        assert!((hit.normal.norm() - 1.0).abs() < 1e-6, "{:?}", hit.normal);
    }
}

/// A sliver whose `f32` normal is exactly zero though its corners are not
/// collinear: the raycasts never hit it, and a point cast (a sphere of
/// radius 0) answers the same, with no NaN normal; a tiny proper triangle,
/// whose `f32` normal cannot be normalised, still gets a unit normal.
#[test]
fn point_casts_skip_slivers_as_raycasts_do_and_keep_unit_normals() {
    let e = Real::EPSILON;
    let sliver = [
        Point::new(0.0, 0.0, 0.0),
        Point::new(1.0, 1.0 + e, 0.0),
        Point::new(1.0 + e, 1.0 + 2.0 * e, 0.0),
    ];
    let tri = Triangle::new(sliver[0], sliver[1], sliver[2]);
    assert!(tri.is_degenerate());
    let segment = Segment::new(Point::new(0.5, 0.25, 1.0), sliver[1]);
    assert_eq!(boxtree::sweep::sweep_point_along(&segment, &tri), None);
    let tree = MeshTree::<Aabb>::new(
        TriMesh::new(sliver.to_vec(), vec![[0, 1, 2]]).expect("not collinear"),
    );
    let cast = ShapeCast::sphere_along(&segment, 0.0);
    assert_eq!(tree.closest_hit(segment), None);
    assert_eq!(tree.cast_closest_hit(&cast), None);
    assert!(tree.cast_any_hit(&cast).is_none());

    let s = 1e-20;
    let tiny = Triangle::new(
        Point::new(0.0, 0.0, 0.0),
        Point::new(s, 0.0, 0.0),
        Point::new(0.0, s, 0.0),
    );
    let down = Segment::new(
        Point::new(0.25 * s, 0.25 * s, s),
        Point::new(0.25 * s, 0.25 * s, -s),
    );
    let contact = boxtree::sweep::sweep_point_along(&down, &tiny).expect("crosses");
    // (The time itself is only as good as the `f32` edge functions of
    // such a triangle, whose products are subnormal.)
    assert!((contact.time - 0.5).abs() < 1e-3, "{contact:?}");
    assert_eq!(contact.normal, Vector::new(0.0, 0.0, 1.0));
}

/// A capsule of radius 0 (a moving segment) touches a triangle where the
/// offset between their nearest points is rounding noise: its direction
/// pointed along the motion in about 10 of 40,000 random sweeps (the
/// reproducer below had `normal · motion = +1.32`). The direction of
/// approach just before the contact stands in, as a radius of 1e-7 gives.
#[test]
fn zero_radius_capsules_get_the_normal_of_their_approach() {
    let tri = Triangle::new(
        Point::new(-0.835_431_1, -0.300_082_45, 0.324_608_56),
        Point::new(-0.686_655_64, -0.437_131_05, 0.743_044_14),
        Point::new(0.264_840_13, 0.410_775_3, -0.744_407_8),
    );
    let axis = Segment::new(
        Point::new(0.438_406_68, 0.195_810_42, -0.107_542_03),
        Point::new(0.218_061_04, 0.027_949_333, 0.121_344_93),
    );
    let motion = Vector::new(-1.713_246_6, -0.589_761_73, 0.415_985_3);
    let zero = sweep_capsule_triangle(&axis, 0.0, &motion, &tri).expect("touches");
    let thin = sweep_capsule_triangle(&axis, 1e-7, &motion, &tri).expect("touches");
    assert!(zero.normal.dot(&motion) <= 0.0, "{zero:?}");
    assert!(
        (zero.normal - thin.normal).norm() < 1e-3,
        "{zero:?} against {thin:?}"
    );

    let mut rng = SplitMix(404);
    let mut touched = 0;
    for _ in 0..40_000 {
        let tri = Triangle::new(rng.point(1.0), rng.point(1.0), rng.point(1.0));
        let axis = Segment::new(rng.point(1.0), rng.point(1.0));
        let motion = rng.vector(-2.0, 2.0);
        if let Some(c) = sweep_capsule_triangle(&axis, 0.0, &motion, &tri) {
            touched += 1;
            assert!((c.normal.norm() - 1.0).abs() < 1e-5, "{c:?}");
            // Moving on after the contact time, never away from the normal.
            assert!(
                c.time == 0.0 || c.normal.dot(&motion) <= 1e-5 * motion.norm(),
                "{tri:?} {axis:?} {motion:?}: {c:?}"
            );
        }
    }
    assert!(touched > 4_000, "{touched}");
}

/// A degenerate moving triangle (a segment) swept onto a face: the normal
/// came from the offset at the bisection's last clear moment, rounding
/// noise by then, and pointed away from the side the segment came from.
/// A hair-thick proper neighbour of the segment gives the expected normal.
#[test]
fn degenerate_triangle_sweeps_take_the_normal_of_their_approach() {
    let p = Point::new(-0.031_775_832, -0.347_657_2, -0.601_093_04);
    let moving = Triangle::new(Point::new(-0.178_692_82, 0.479_932_07, -0.895_069_96), p, p);
    let fixed = Triangle::new(
        Point::new(0.452_594_4, 0.360_154_15, -0.834_829_9),
        Point::new(-0.379_693_87, -0.994_842_05, 0.189_752_82),
        Point::new(-0.515_466_1, 0.077_552_44, -0.051_925_3),
    );
    let motion = Vector::new(0.021_362_305, 0.498_369_46, 1.270_411_7);
    let c = sweep_triangle_triangle(&moving, &motion, &fixed).expect("touches");
    assert!(c.normal.dot(&motion) < 0.0, "{c:?}");
    let thick = Triangle::new(moving.a, p, p + Vector::new(1e-4, -1e-4, 1e-4));
    let expected = sweep_triangle_triangle(&thick, &motion, &fixed).expect("touches");
    assert!(
        (c.normal - expected.normal).norm() < 0.05,
        "{c:?} against {expected:?}"
    );
}

/// Triangles without area swept through proper ones: a point crosses a
/// face for an instant, and a search for the distance's first zero found
/// no sample there (15% of such sweeps were missed, and mesh casts then
/// reported a later contact). A moving point against the crossing of the
/// face's plane in `f64`, both ways round; a moving segment crossing the
/// face against the earlier of its two ends' crossings (each point of it
/// crosses inside the face, at a time linear along it).
#[test]
fn points_and_segments_sweeping_through_faces_are_found() {
    let mut rng = SplitMix(77);
    let mut checked = 0;
    while checked < 2000 {
        let fixed = Triangle::new(rng.point(1.0), rng.point(1.0), rng.point(1.0));
        let n = fixed.scaled_normal();
        if n.norm() < 0.05 {
            continue;
        }
        // Through a point of the face 10% or more from its edges, not
        // grazing it.
        let (u, v) = (rng.range(0.1, 0.8), rng.range(0.1, 0.8));
        if u + v > 0.9 {
            continue;
        }
        let start = fixed.point_at(u, v) + rng.vector(-3.0, 3.0);
        let motion = (fixed.point_at(u, v) - start) * rng.range(1.1, 2.0);
        if n.normalize().dot(&motion.normalize()).abs() < 0.1 {
            continue;
        }
        let crossing = |from: Point| {
            let [a, b, c] = fixed.vertices().map(|v| v.coords.cast::<f64>());
            let n = (b - a).cross(&(c - a));
            n.dot(&(a - from.coords.cast::<f64>())) / n.dot(&motion.cast::<f64>())
        };
        let close = |time: Real, expected: f64| (f64::from(time) - expected).abs() <= 1e-6;
        let point = Triangle::new(start, start, start);
        let got = sweep_triangle_triangle(&point, &motion, &fixed).expect("a point crossing");
        assert!(
            close(got.time, crossing(start)),
            "{got:?}, {fixed:?} {start:?} {motion:?}"
        );
        // The normal points from the face towards the point's side: the
        // face's normal, against the motion.
        let unit_n = n.normalize();
        assert!(
            (got.normal.dot(&unit_n).abs() - 1.0).abs() < 1e-4,
            "{got:?}"
        );
        assert!(got.normal.dot(&motion) < 0.0, "{got:?}");
        let back = sweep_triangle_triangle(&fixed, &-motion, &point).expect("the other way");
        assert!(close(back.time, crossing(start)));
        let other = start + rng.vector(-0.01, 0.01);
        let lands = add_scaled(p64(&other), p64(&Point::from(motion)), crossing(other));
        if point_triangle(lands, fixed.vertices().map(|v| p64(&v))) > 1e-9 {
            continue;
        }
        let segment = Triangle::new(start, other, other);
        let got = sweep_triangle_triangle(&segment, &motion, &fixed).expect("a segment crossing");
        assert!(
            close(got.time, crossing(start).min(crossing(other))),
            "{got:?} {} {} {fixed:?} {segment:?} {motion:?}",
            crossing(start),
            crossing(other)
        );
        checked += 1;
    }
}
