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
//! polygon, which is how capsules are done: a capsule swept against an
//! edge is its axis's start point swept against the parallelogram of axis
//! and edge (their Minkowski difference), with the capsule's radius.
//!
//! Computed in `f64` from the `f32` inputs and rounded once. Fixed with
//! respect to the usual listings: a sphere touching or overlapping at the
//! start answers time 0 (inclusive), zero motion and motion parallel to the
//! plane or to an edge never divide by zero, degenerate triangles are hit
//! by their edges and vertices, and contacts after the frame are dropped.

use crate::bounding_volume::Sphere;
use crate::intersect::triangle_distance;
use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::{Segment, Triangle};
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
    /// shape comes from.
    pub normal: Vector,
}

/// The first time in the frame at which `sphere`, moved by `motion`,
/// touches the closed triangle `tri`.
///
/// The centre at time `u ∈ [0, 1]` is `sphere.center + u · motion`.
/// Touching counts; a sphere touching or overlapping the triangle at
/// `u = 0` answers time 0. `None` when it does not reach the triangle
/// within the frame, and for NaN or infinite input or a negative radius.
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
    if !valid {
        return None;
    }
    let center = wide(&sphere.center);
    let corners = tri.vertices().map(|p| wide(&p));
    let start = triangle_distance(
        tri,
        &Triangle::new(sphere.center, sphere.center, sphere.center),
    );
    if start.distance <= sphere.radius {
        let normal = away(&sphere.center, &start.p1, tri, motion);
        return Some(TriangleContact {
            time: 0.0,
            point: start.p1,
            normal,
        });
    }
    let hit = sweep_point_polygon(
        &center,
        f64::from(sphere.radius),
        &motion.cast::<f64>(),
        &corners,
    )?;
    Some(hit.rounded())
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
    if !valid {
        return None;
    }
    let start = triangle_distance(tri, &Triangle::new(axis.a, axis.b, axis.b));
    if start.distance <= radius {
        let normal = away(&start.p2, &start.p1, tri, motion);
        return Some(TriangleContact {
            time: 0.0,
            point: start.p1,
            normal,
        });
    }
    let (r, d) = (f64::from(radius), motion.cast::<f64>());
    let (a, e) = (wide(&axis.a), wide(&axis.b) - wide(&axis.a));
    let corners = tri.vertices().map(|p| wide(&p));
    // The axis's ends against the triangle, then the axis's side against
    // each edge: `a` against the parallelogram {q + u f − s e}.
    let mut best = sweep_point_polygon(&a, r, &d, &corners);
    best = earlier(best, sweep_point_polygon(&(a + e), r, &d, &corners));
    for k in 0..3 {
        let (q, f) = (corners[k], corners[(k + 1) % 3] - corners[k]);
        let parallelogram = [q, q + f, q + f - e, q - e];
        best = earlier(best, sweep_point_polygon(&a, r, &d, &parallelogram));
    }
    let time = best?.time;
    // Where it touches: the triangle's point nearest to the axis moved to
    // that time, and the direction from it to the axis.
    let shift = (d * time).cast::<Real>();
    let moved = Triangle::new(axis.a + shift, axis.b + shift, axis.b + shift);
    let at = triangle_distance(tri, &moved);
    Some(TriangleContact {
        time: (time as Real).clamp(0.0, 1.0),
        point: at.p1,
        normal: away(&at.p2, &at.p1, tri, motion),
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

/// The unit normal pushing a shape whose core point nearest to the
/// triangle is `core` off the triangle point `on`; on the triangle itself,
/// the face normal against the motion (or towards the shape's start side).
fn away(core: &Point, on: &Point, tri: &Triangle, motion: &Vector) -> Vector {
    let offset = core - on;
    let length = offset.norm();
    if length > 0.0 {
        return offset / length;
    }
    let n = tri.scaled_normal();
    let n = if n.norm() > 0.0 {
        n.normalize()
    } else {
        -motion.normalize()
    };
    if n.dot(motion) > 0.0 { -n } else { n }
}

/// The first contact of the point `c` moving by `d` with the closed convex
/// planar polygon `corners` (in order) grown by `r`, for a point that
/// starts farther than `r` from it; `None` when it stays clear in `[0, 1]`.
fn sweep_point_polygon(c: &V64, r: f64, d: &V64, corners: &[V64]) -> Option<Contact> {
    let n = corners.len();
    // Newell's normal: zero for a polygon without area.
    let mut normal = V64::zeros();
    for k in 0..n {
        normal += corners[k].cross(&corners[(k + 1) % n]);
    }
    let area = normal.norm();
    if area > 0.0 {
        let unit = normal / area;
        let s0 = (c - corners[0]).dot(&unit);
        let side = if s0 >= 0.0 { 1.0 } else { -1.0 };
        let approach = side * d.dot(&unit);
        if approach < 0.0 && s0.abs() > r {
            let time = (s0.abs() - r) / -approach;
            if time <= 1.0 {
                let point = c + d * time - unit * (side * r);
                let inside = (0..n).all(|k| {
                    let edge = corners[(k + 1) % n] - corners[k];
                    edge.cross(&(point - corners[k])).dot(&unit) >= 0.0
                });
                if inside {
                    // Nothing touches earlier: the plane itself is not reached before.
                    return Some(Contact {
                        time,
                        point,
                        normal: unit * side,
                    });
                }
            }
        }
    }
    let mut best: Option<Contact> = None;
    for k in 0..n {
        let (v, e) = (corners[k], corners[(k + 1) % n] - corners[k]);
        best = earlier(best, sweep_point_sphere(c, r, d, &v));
        best = earlier(best, sweep_point_cylinder(c, r, d, &v, &e));
    }
    best
}

/// The first time in `[0, 1]` the point `c + t d` comes within `r` of `v`,
/// for a point starting farther away.
fn sweep_point_sphere(c: &V64, r: f64, d: &V64, v: &V64) -> Option<Contact> {
    let m = c - v;
    let (a, b, k) = (d.norm_squared(), m.dot(d), m.norm_squared() - r * r);
    if k <= 0.0 || b >= 0.0 || a == 0.0 {
        return None;
    }
    let disc = b * b - a * k;
    if disc < 0.0 {
        return None;
    }
    // The smaller root in the stable form `k / q`, `q = −b + √disc > 0`.
    let time = k / (disc.sqrt() - b);
    if time > 1.0 {
        return None;
    }
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
    let (a, b, k) = (dd.norm_squared(), m.dot(&dd), m.norm_squared() - r * r);
    if k <= 0.0 || b >= 0.0 || a == 0.0 {
        return None;
    }
    let disc = b * b - a * k;
    if disc < 0.0 {
        return None;
    }
    let time = k / (disc.sqrt() - b);
    if time > 1.0 {
        return None;
    }
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

/// `v` normalised, or `−d` normalised for a zero `v` (a contact at radius 0).
fn unit_or(v: &V64, d: &V64) -> V64 {
    let length = v.norm();
    if length > 0.0 {
        v / length
    } else {
        -d.normalize()
    }
}
