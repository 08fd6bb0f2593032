//! A moving sphere (and a moving capsule) against a fixed triangle: the
//! time of first contact, the contact point and normal.
//!
//! The sphere touches the triangle when its centre comes within `r` of it.
//! Before touching, the centre is farther than `r` from every feature, so
//! the first contact is the earliest of three kinds (Ericson, *Real-Time
//! Collision Detection* §5.5.6; Eberly, "Intersection of a Triangle and a
//! Moving Sphere"): the face, when the point where the sphere first meets
//! the plane lies in the triangle (a plane sweep, §5.5.3); an edge, where
//! the centre's path enters the cylinder of radius `r` around it (§5.3.7)
//! between the edge's ends; a vertex, where the path enters the sphere of
//! radius `r` around it (§5.3.2). The same holds for any convex planar
//! polygon, which is how capsules are done: a capsule swept against the
//! triangle is its axis's start point swept against the prism of triangle
//! and axis (their Minkowski difference), with the capsule's radius. A
//! moving separating-axis test on the prism's faces rejects most
//! triangles first; a face reached from outside is the first contact,
//! with no edge to test.
//!
//! Computed in `f64` from the `f32` inputs and rounded once. Fixed with
//! respect to the usual listings: a sphere touching or overlapping at the
//! start answers time 0 (inclusive), zero motion and motion parallel to the
//! plane or to an edge never divide by zero, degenerate triangles are hit
//! by their edges and vertices, and contacts after the frame are dropped.

use crate::bounding_volume::{Aabb, Sphere};
use crate::intersect::{segment_parameters, segment_triangle};
use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::{Segment, Triangle};
use crate::sweep::moving_sat::{first_overlap, interval};
use crate::sweep::swept_box_meets;
use nalgebra::Vector3;

type V64 = Vector3<f64>;

/// The first contact of a moving shape with a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleContact {
    /// Time of first contact in `[0, 1]`: the fraction of the motion.
    pub time: Real,
    /// The contact point on the triangle (at a start in contact: the
    /// triangle's point nearest to the shape).
    pub point: Point,
    /// Unit normal at the contact, from the triangle towards the shape:
    /// the direction that moves the shape off. At a start in deep contact
    /// (the shape's core on the triangle) the face normal on the side the
    /// shape comes from; `+z` where nothing gives a direction (a shape
    /// resting on a zero-area point triangle without motion).
    pub normal: Vector,
}

/// The first time in the frame at which `sphere`, moved by `motion`,
/// touches the closed triangle `tri`.
///
/// The centre at time `u ∈ [0, 1]` is `sphere.center + u · motion`.
/// Touching counts; a sphere touching or overlapping the triangle at
/// `u = 0` answers time 0. `None` when it does not reach the triangle
/// within the frame, and for NaN or infinite input or a negative radius.
///
/// Radius 0 is the segment raycast from the centre to `centre + motion`
/// ([`sweep_point_along`]), decided
/// exactly as [`crate::intersect::segment_triangle`] decides it: ends on
/// the closed triangle hit, degenerate triangles and segments lying in
/// the plane miss, and a point that does not move touches nothing.
#[must_use]
pub fn sweep_sphere_triangle(
    sphere: &Sphere,
    motion: &Vector,
    tri: &Triangle,
) -> Option<TriangleContact> {
    let valid = is_finite_point(&sphere.center)
        && is_finite_vector(motion)
        && tri.vertices().iter().all(is_finite_point)
        && sphere.radius.is_finite()
        && sphere.radius >= 0.0;
    if !valid
        || !swept_box_meets(
            &Aabb::new(sphere.center, sphere.center),
            sphere.radius,
            motion,
            tri,
        )
    {
        return None;
    }
    if sphere.radius == 0.0 {
        return sweep_point_along(&Segment::new(sphere.center, sphere.center + motion), tri);
    }
    sphere_triangle_contact(sphere, motion, tri)
}

/// [`sweep_sphere_triangle`] for a sphere of positive radius, after its
/// checks: for descents that have checked the cast once and each
/// triangle's box already.
pub(crate) fn sphere_triangle_contact(
    sphere: &Sphere,
    motion: &Vector,
    tri: &Triangle,
) -> Option<TriangleContact> {
    let (c, r, d) = (
        wide(&sphere.center),
        f64::from(sphere.radius),
        motion.cast::<f64>(),
    );
    let corners = tri.vertices().map(|p| wide(&p));
    if passes_beside(&c, r, &d, &corners) {
        return None;
    }
    // The plane's distance bounds the triangle's: far from the plane, no
    // contact at the start.
    let unit = unit_normal(&corners);
    if !beyond_plane(&[c], r, &corners, unit) {
        let (distance, nearest) = point_polygon(&c, &corners, unit);
        if distance <= r {
            return Some(start_contact(&c, &nearest, &corners, &d));
        }
    }
    sweep_point_polygon(&c, r, &d, &corners, unit).map(|hit| hit.rounded())
}

/// True when the sphere's path passes beside the triangle: on an axis
/// across both the motion and an edge the sphere's projection stands
/// still, and lies beyond the triangle's by more than `r` (compared
/// squared, the axes unnormalised). A rejection only, padded far above
/// `f64` rounding; the sweep decides every other case.
fn passes_beside(c: &V64, r: f64, d: &V64, corners: &[V64; 3]) -> bool {
    (0..3).any(|k| {
        let axis = (corners[(k + 1) % 3] - corners[k]).cross(d);
        let (lo, hi) = interval(corners, &axis);
        let at = c.dot(&axis);
        let gap = (lo - at).max(at - hi);
        gap > 0.0
            && gap * gap
                > (r * r + 1e-9 * (r * r + at * at / axis.norm_squared())) * axis.norm_squared()
    })
}

/// A point moving along `path`: the watertight segment test with exact
/// ends ([`segment_triangle`]), the contact normal the face's, towards the
/// side the point came from. What a sphere of radius 0 does. A triangle
/// whose `f32` normal is zero ([`Triangle::is_degenerate`]) is never
/// touched, as the mesh trees' raycasts never hit one; the unit normal of
/// the others comes from the `f64` cross product, so slivers and tiny
/// triangles still get one (normalising the `f32` one gave NaN).
#[must_use]
pub fn sweep_point_along(path: &Segment, tri: &Triangle) -> Option<TriangleContact> {
    if tri.is_degenerate() {
        return None;
    }
    let hit = segment_triangle(path, tri)?;
    let normal = tri.scaled_normal_wide().normalize().cast::<Real>();
    Some(TriangleContact {
        time: hit.t,
        point: Point::from(tri.a.coords * hit.w + tri.b.coords * hit.u + tri.c.coords * hit.v),
        normal: if hit.front_face { normal } else { -normal },
    })
}

/// The first time in the frame at which the capsule of `radius` around the
/// segment `axis`, moved by `motion`, touches the closed triangle `tri`.
/// Same conventions as [`sweep_sphere_triangle`].
#[must_use]
pub fn sweep_capsule_triangle(
    axis: &Segment,
    radius: Real,
    motion: &Vector,
    tri: &Triangle,
) -> Option<TriangleContact> {
    let valid = is_finite_point(&axis.a)
        && is_finite_point(&axis.b)
        && is_finite_vector(motion)
        && tri.vertices().iter().all(is_finite_point)
        && radius.is_finite()
        && radius >= 0.0;
    let core = Aabb::new(axis.a.inf(&axis.b), axis.a.sup(&axis.b));
    if !valid || !swept_box_meets(&core, radius, motion, tri) {
        return None;
    }
    let time = capsule_first(axis, radius, motion, tri, 1.0)?;
    let (r, d) = (f64::from(radius), motion.cast::<f64>());
    let (a, b) = (wide(&axis.a), wide(&axis.b));
    let corners = tri.vertices().map(|p| wide(&p));
    let face = unit_normal(&corners);
    let (distance, on_axis, on_triangle) =
        segment_polygon(&(a + d * time), &(b + d * time), &corners, face);
    if time == 0.0 && distance <= r {
        return Some(start_contact(&on_axis, &on_triangle, &corners, &d));
    }
    // Where it touches: the triangle's point nearest to the axis moved to
    // that time, and the direction from it to the axis. When that offset
    // is within rounding of zero (a radius of 0, or one far below the
    // coordinates) its direction is noise, which could point along the
    // motion: the direction of approach just before the contact stands in.
    let scale = corners
        .iter()
        .chain([&a, &b])
        .map(|v| v.amax())
        .fold(d.amax(), f64::max);
    let resolved = |offset: f64| offset > 1e-9 * scale;
    let mut offset = on_axis - on_triangle;
    if !resolved(distance) {
        for back in [1e-6, 1e-4, 1e-2] {
            let earlier = (time - back).max(0.0);
            let (gap, axis_point, triangle_point) =
                segment_polygon(&(a + d * earlier), &(b + d * earlier), &corners, face);
            if resolved(gap) {
                offset = axis_point - triangle_point;
                break;
            }
        }
    }
    Some(TriangleContact {
        time: (time as Real).clamp(0.0, 1.0),
        point: Point::from(on_triangle.cast::<Real>()),
        normal: unit_or(&offset, &d).cast::<Real>(),
    })
}

/// [`sweep_capsule_triangle`]'s time alone (without the contact point),
/// when it may be at most `t_max`: for descents that keep only the
/// earliest contact, which have checked the cast and the triangle's box.
pub(crate) fn capsule_triangle_time(
    axis: &Segment,
    radius: Real,
    motion: &Vector,
    tri: &Triangle,
    t_max: Real,
) -> Option<Real> {
    capsule_first(axis, radius, motion, tri, f64::from(t_max)).map(|t| (t as Real).clamp(0.0, 1.0))
}

/// A lower bound on the capsule's first contact time with the triangle,
/// `None` when it cannot touch it within `[0, t_max]`: the moving
/// separating-axis test on the faces of the prism that the capsule's
/// start point sweeps against (the triangle's normal and each edge
/// crossed with the axis `e`) and on the directions across the motion
/// (the axis and each edge crossed with it), the capsule's interval grown
/// by `r`. Those
/// axes alone are a necessary condition, not a complete test, so they
/// only reject and bound; the exact features decide. Grown by a relative
/// pad far above `f64` rounding, so touching contacts reach them.
fn prism_entry(a: &V64, e: &V64, r: f64, d: &V64, corners: &[V64; 3], t_max: f64) -> Option<f64> {
    let edges = [
        corners[1] - corners[0],
        corners[2] - corners[1],
        corners[0] - corners[2],
    ];
    let lengths = edges.map(|f| f.norm());
    let (length, travel) = (e.norm(), d.norm());
    let axes = [
        // Across the motion the capsule's projection stands still: its
        // path's plane (axis × motion) and each edge × motion.
        (e.cross(d), length * travel),
        (edges[0].cross(d), lengths[0] * travel),
        (edges[1].cross(d), lengths[1] * travel),
        (edges[2].cross(d), lengths[2] * travel),
        (edges[0].cross(&edges[1]), lengths[0] * lengths[1]),
        (edges[0].cross(e), lengths[0] * length),
        (edges[1].cross(e), lengths[1] * length),
        (edges[2].cross(e), lengths[2] * length),
    ];
    let scale = [*a, a + e, a + d]
        .iter()
        .chain(corners)
        .map(|p| p.amax())
        .fold(r, f64::max);
    let grown = r + 1e-9 * scale;
    let core = [*a, a + e];
    let capsule = |l: &V64| {
        let (lo, hi) = interval(&core, l);
        let grown = grown * l.norm();
        (lo - grown, hi + grown)
    };
    first_overlap(&axes, d, t_max + 1e-9, capsule, |l| interval(corners, l)).map(|(t, _)| t)
}

/// The capsule's first contact time in `f64` (0 for a start in contact),
/// for valid input.
fn capsule_first(
    axis: &Segment,
    radius: Real,
    motion: &Vector,
    tri: &Triangle,
    t_max: f64,
) -> Option<f64> {
    let (r, d) = (f64::from(radius), motion.cast::<f64>());
    let (a, b) = (wide(&axis.a), wide(&axis.b));
    let e = b - a;
    let corners = tri.vertices().map(|p| wide(&p));
    let lower = prism_entry(&a, &e, r, &d, &corners, t_max)?;
    let unit = unit_normal(&corners);
    if lower == 0.0
        && !beyond_plane(&[a, b], r, &corners, unit)
        && segment_polygon(&a, &b, &corners, unit).0 <= r
    {
        return Some(0.0);
    }
    if let Some(prism) = unit.and_then(|n| Prism::new(&corners, &e, n)) {
        return prism.first_contact(&a, &b, r, &d);
    }
    // A flat prism (the axis parallel to the triangle's plane, or no
    // area): every feature, faces from either side. The axis's ends
    // against the triangle; then the axis's side against each edge, `a`
    // against the face of the parallelogram {q + u f − s e} (its rim is
    // the ends against the edges, and the vertices against the side);
    // then each vertex against the side, `a` against the segment {q − s e}.
    let mut best = sweep_point_polygon(&a, r, &d, &corners, unit);
    best = earlier(best, sweep_point_polygon(&b, r, &d, &corners, unit));
    for k in 0..3 {
        let (q, f) = (corners[k], corners[(k + 1) % 3] - corners[k]);
        let parallelogram = [q, q + f, q + f - e, q - e];
        let face = unit_normal(&parallelogram);
        best = earlier(best, sweep_point_face(&a, r, &d, &parallelogram, face));
        best = earlier(best, sweep_point_cylinder(&a, r, &d, &q, &-e));
    }
    best.map(|hit| hit.time)
}

/// The prism `P = {q − s e : q ∈ T, s ∈ [0, 1]}` that a capsule's start
/// point `a` sweeps against (the capsule around `a..a+e` touches the
/// triangle `T` exactly when `a` comes within `r` of `P`), when it has
/// volume: its five faces with their outward unit normals.
struct Prism<'a> {
    corners: &'a [V64; 3],
    e: V64,
    /// The triangle's unit normal (corner order) and the sign that turns
    /// it outward at the face `T` (the face `T − e` faces the other way).
    normal: V64,
    outward: f64,
    /// Each side `k` (corners `q, q + f, q + f − e, q − e`): its unit
    /// normal in corner order and the sign that turns it outward.
    sides: [(V64, f64); 3],
}

impl<'a> Prism<'a> {
    /// `None` when the prism is flat or nearly so: an axis in the
    /// triangle's plane (exactly, in the input, still leaves rounding
    /// noise in `normal · e`) or a needle triangle gives outward signs
    /// that rounding decides, and the face shortcut would trust them.
    /// Those go to the flat path, which tests every feature.
    fn new(corners: &'a [V64; 3], e: &V64, normal: V64) -> Option<Self> {
        const THIN: f64 = 1e-9;
        let across = normal.dot(e);
        if !(across * across > THIN * THIN * e.norm_squared()) {
            return None;
        }
        let mut sides = [(V64::zeros(), 0.0); 3];
        for (k, side) in sides.iter_mut().enumerate() {
            let (q, f) = (corners[k], corners[(k + 1) % 3] - corners[k]);
            let n = f.cross(&-e);
            let to_third = corners[(k + 2) % 3] - q;
            let third = to_third.dot(&n);
            let bound = THIN * THIN * to_third.norm_squared() * n.norm_squared();
            if !(third * third > bound) {
                return None;
            }
            let length = n.norm();
            *side = (n / length, if third > 0.0 { -1.0 } else { 1.0 });
        }
        Some(Prism {
            corners,
            e: *e,
            normal,
            outward: across.signum(),
            sides,
        })
    }

    /// The first time in `[0, 1]` the point `a` moving by `d`, starting
    /// farther than `r` from the prism, comes within `r` of it (`b = a + e`).
    ///
    /// A face touched from outside comes first: the prism lies behind
    /// that face's plane, which the point reaches no earlier than anything
    /// else of the prism, so the edges need no test. Otherwise the first
    /// contact is on an edge or a vertex (a face is reached first only
    /// from outside): the nine edges' cylinders and six vertices' spheres.
    fn first_contact(&self, a: &V64, b: &V64, r: f64, d: &V64) -> Option<f64> {
        let corners = self.corners;
        let mut face = face_from_outside(a, r, d, corners, &self.normal, self.outward);
        // `a` against the face `T − e` is `b` against `T`.
        face = earlier_time(
            face,
            face_from_outside(b, r, d, corners, &self.normal, -self.outward),
        );
        for (k, (n, outward)) in self.sides.iter().enumerate() {
            let (q, f) = (corners[k], corners[(k + 1) % 3] - corners[k]);
            let parallelogram = [q, q + f, q + f - self.e, q - self.e];
            face = earlier_time(
                face,
                face_from_outside(a, r, d, &parallelogram, n, *outward),
            );
        }
        if face.is_some() {
            return face;
        }
        let mut best = None;
        for k in 0..3 {
            let (q, f) = (corners[k], corners[(k + 1) % 3] - corners[k]);
            for p in [a, b] {
                best = earlier(best, sweep_point_sphere(p, r, d, &q));
                best = earlier(best, sweep_point_cylinder(p, r, d, &q, &f));
            }
            best = earlier(best, sweep_point_cylinder(a, r, d, &q, &-self.e));
        }
        best.map(|hit| hit.time)
    }
}

/// When the point `p` moving by `d` comes within `r` of the convex planar
/// polygon `corners` through its face, approaching from the side
/// `outward · normal` (`normal` the unit normal in corner order) and
/// starting farther than `r` from the plane.
fn face_from_outside(
    p: &V64,
    r: f64,
    d: &V64,
    corners: &[V64],
    normal: &V64,
    outward: f64,
) -> Option<f64> {
    let s0 = outward * (p - corners[0]).dot(normal);
    let approach = outward * d.dot(normal);
    if !(s0 > r && approach < 0.0) {
        return None;
    }
    let time = (s0 - r) / -approach;
    let foot = p + d * time - normal * (outward * r);
    (time <= 1.0 && inside(&foot, corners, normal)).then_some(time)
}

fn earlier_time(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// The contact of a shape that starts touching: its core point `core`
/// nearest to the triangle point `on`.
fn start_contact(core: &V64, on: &V64, corners: &[V64; 3], d: &V64) -> TriangleContact {
    let offset = core - on;
    let length = offset.norm();
    let normal = if length > 0.0 {
        offset / length
    } else {
        // On the triangle itself: the face normal against the motion.
        let n = (corners[1] - corners[0]).cross(&(corners[2] - corners[0]));
        let n = if n.norm() > 0.0 {
            n.normalize()
        } else {
            unit_or(&V64::zeros(), d)
        };
        if n.dot(d) > 0.0 { -n } else { n }
    };
    TriangleContact {
        time: 0.0,
        point: Point::from(on.cast::<Real>()),
        normal: normal.cast::<Real>(),
    }
}

/// True when every point of `core` lies farther than `r` from the
/// triangle's plane, all on one side (false for a triangle without area).
fn beyond_plane(core: &[V64], r: f64, corners: &[V64; 3], unit: Option<V64>) -> bool {
    let Some(unit) = unit else {
        return false;
    };
    let side = |p: &V64| (p - corners[0]).dot(&unit);
    core.iter().all(|p| side(p) > r) || core.iter().all(|p| side(p) < -r)
}

/// The distance from `p` to the closed convex planar polygon `corners`,
/// and the polygon's nearest point: the projection onto the plane when it
/// falls inside, else the nearest point of a side.
fn point_polygon(p: &V64, corners: &[V64], unit: Option<V64>) -> (f64, V64) {
    let n = corners.len();
    if let Some(unit) = unit {
        let projected = p - unit * (p - corners[0]).dot(&unit);
        if inside(&projected, corners, &unit) {
            return ((p - projected).norm(), projected);
        }
    }
    let mut best = (f64::INFINITY, corners[0]);
    for k in 0..n {
        let q = point_segment(p, &corners[k], &corners[(k + 1) % n]);
        let distance = (p - q).norm();
        if distance < best.0 {
            best = (distance, q);
        }
    }
    best
}

/// The distance between the segment `a..b` and the closed triangle, with
/// the nearest points on each: 0 where the segment passes through it,
/// else the least of its ends against the triangle and of it against the
/// triangle's sides.
fn segment_polygon(a: &V64, b: &V64, corners: &[V64; 3], unit: Option<V64>) -> (f64, V64, V64) {
    if let Some(normal) = unit {
        let (sa, sb) = ((a - corners[0]).dot(&normal), (b - corners[0]).dot(&normal));
        if (sa <= 0.0 && sb >= 0.0 || sa >= 0.0 && sb <= 0.0) && sa != sb {
            let crossing = a + (b - a) * (sa / (sa - sb));
            if inside(&crossing, corners, &normal) {
                return (0.0, crossing, crossing);
            }
        }
    }
    let (da, qa) = point_polygon(a, corners, unit);
    let (db, qb) = point_polygon(b, corners, unit);
    let mut best = if da <= db { (da, *a, qa) } else { (db, *b, qb) };
    for k in 0..3 {
        let (p, q) = segment_segment(a, b, &corners[k], &corners[(k + 1) % 3]);
        let distance = (p - q).norm();
        if distance < best.0 {
            best = (distance, p, q);
        }
    }
    best
}

/// The point of the segment `a..b` nearest to `p`.
fn point_segment(p: &V64, a: &V64, b: &V64) -> V64 {
    let e = b - a;
    let ee = e.norm_squared();
    if ee == 0.0 {
        return *a;
    }
    a + e * ((p - a).dot(&e) / ee).clamp(0.0, 1.0)
}

/// The nearest points of two segments, in `f64`.
fn segment_segment(p1: &V64, q1: &V64, p2: &V64, q2: &V64) -> (V64, V64) {
    let (d1, d2) = (q1 - p1, q2 - p2);
    let (s, t) = segment_parameters(&d1, &d2, &(p1 - p2), 0.0);
    (p1 + d1 * s, p2 + d2 * t)
}

/// The unit normal of a planar polygon by Newell's method (its sum is
/// twice the area along the normal), computed once per polygon and handed
/// to every test of it; `None` for a polygon without area.
fn unit_normal(corners: &[V64]) -> Option<V64> {
    let n = corners.len();
    let normal = (0..n).fold(V64::zeros(), |sum, k| {
        sum + corners[k].cross(&corners[(k + 1) % n])
    });
    let length = normal.norm();
    (length > 0.0).then(|| normal / length)
}

/// True when the point `p` of the polygon's plane lies in the closed
/// polygon (`normal` its orientation, any length).
fn inside(p: &V64, corners: &[V64], normal: &V64) -> bool {
    let n = corners.len();
    (0..n).all(|k| {
        let edge = corners[(k + 1) % n] - corners[k];
        edge.cross(&(p - corners[k])).dot(normal) >= 0.0
    })
}

/// A contact in `f64`, before rounding.
#[derive(Clone, Copy, Debug)]
struct Contact {
    time: f64,
    point: V64,
    normal: V64,
}

impl Contact {
    fn rounded(&self) -> TriangleContact {
        TriangleContact {
            time: (self.time as Real).clamp(0.0, 1.0),
            point: Point::from(self.point.cast::<Real>()),
            normal: self.normal.cast::<Real>(),
        }
    }
}

fn earlier(a: Option<Contact>, b: Option<Contact>) -> Option<Contact> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.time < x.time { y } else { x }),
        (x, y) => x.or(y),
    }
}

fn wide(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

/// The first contact of the point `c` moving by `d` with the closed convex
/// planar polygon `corners` (in order) grown by `r`, for a point that
/// starts farther than `r` from it; `None` when it stays clear in `[0, 1]`.
fn sweep_point_polygon(
    c: &V64,
    r: f64,
    d: &V64,
    corners: &[V64],
    unit: Option<V64>,
) -> Option<Contact> {
    // A face contact comes first: the plane itself is not reached before.
    if let Some(face) = sweep_point_face(c, r, d, corners, unit) {
        return Some(face);
    }
    let n = corners.len();
    let mut best: Option<Contact> = None;
    for k in 0..n {
        let (v, e) = (corners[k], corners[(k + 1) % n] - corners[k]);
        best = earlier(best, sweep_point_sphere(c, r, d, &v));
        best = earlier(best, sweep_point_cylinder(c, r, d, &v, &e));
    }
    best
}

/// The contact of the point `c` moving by `d` with the face of the convex
/// planar polygon `corners` grown by `r`: where the point first comes
/// within `r` of the plane, if that foot lies in the closed polygon.
fn sweep_point_face(
    c: &V64,
    r: f64,
    d: &V64,
    corners: &[V64],
    unit: Option<V64>,
) -> Option<Contact> {
    let unit = unit?;
    let s0 = (c - corners[0]).dot(&unit);
    let side = if s0 >= 0.0 { 1.0 } else { -1.0 };
    let approach = side * d.dot(&unit);
    if !(approach < 0.0 && s0.abs() > r) {
        return None;
    }
    let time = (s0.abs() - r) / -approach;
    let point = c + d * time - unit * (side * r);
    (time <= 1.0 && inside(&point, corners, &unit)).then_some(Contact {
        time,
        point,
        normal: unit * side,
    })
}

/// The first time in `[0, 1]` the point `c + t d` comes within `r` of `v`,
/// for a point starting farther away.
fn sweep_point_sphere(c: &V64, r: f64, d: &V64, v: &V64) -> Option<Contact> {
    let m = c - v;
    let time = entry_time(d.norm_squared(), m.dot(d), m.norm_squared() - r * r)?;
    let centre = c + d * time;
    Some(Contact {
        time,
        point: *v,
        normal: unit_or(&(centre - v), d),
    })
}

/// The first time in `[0, 1]` the point `c + t d` comes within `r` of the
/// segment `v + s e`, `s ∈ [0, 1]`, through its side (the ends are
/// [`sweep_point_sphere`]'s), for a point starting outside the cylinder.
fn sweep_point_cylinder(c: &V64, r: f64, d: &V64, v: &V64, e: &V64) -> Option<Contact> {
    let ee = e.norm_squared();
    if ee == 0.0 {
        return None;
    }
    // Components across the axis: `x⊥ = x − (x·e / e·e) e`.
    let across = |x: &V64| x - e * (x.dot(e) / ee);
    let (m, dd) = (across(&(c - v)), across(d));
    let time = entry_time(dd.norm_squared(), m.dot(&dd), m.norm_squared() - r * r)?;
    let centre = c + d * time;
    let s = (centre - v).dot(e) / ee;
    if !(0.0..=1.0).contains(&s) {
        return None;
    }
    let point = v + e * s;
    Some(Contact {
        time,
        point,
        normal: unit_or(&(centre - point), d),
    })
}

/// The first time in `[0, 1]` at which `a t² + 2 b t + k` reaches 0, for
/// a start outside (`k > 0`) moving inwards (`b < 0`): the smaller root in
/// the stable form `k / q`, `q = −b + √(b² − a k)` (no cancellation).
fn entry_time(a: f64, b: f64, k: f64) -> Option<f64> {
    if k <= 0.0 || b >= 0.0 || a == 0.0 {
        return None;
    }
    let disc = b * b - a * k;
    if disc < 0.0 {
        return None;
    }
    let time = k / (disc.sqrt() - b);
    (time <= 1.0).then_some(time)
}

/// `v` normalised, or `−d` normalised for a zero `v` (a contact at radius
/// 0), or `+z` when both are zero (a shape resting on a point triangle
/// without motion: no direction is better than another).
fn unit_or(v: &V64, d: &V64) -> V64 {
    let (length, speed) = (v.norm(), d.norm());
    if length > 0.0 {
        v / length
    } else if speed > 0.0 {
        -d / speed
    } else {
        V64::z()
    }
}
