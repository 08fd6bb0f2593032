//! Rays and segments against triangles: the watertight test of Woop, Benthin
//! and Wald, "Watertight Ray/Triangle Intersection" (JCGT 2(1), 2013).
//!
//! The ray is turned, once, into a permutation and shear that maps its
//! direction onto `+z`; each triangle is then tested in 2-D against the origin
//! by three edge functions. Two triangles sharing an edge compute that edge's
//! function from the same transformed vertices, with exactly opposite signs,
//! so a ray through a shared edge or vertex of a closed mesh cannot slip
//! between them. When an edge function rounds to exactly zero it is recomputed
//! in `f64`, where the products of `f32` values are exact (the paper's
//! fallback).
//!
//! Degenerate triangles (exactly collinear or coincident vertices, decided
//! with the exact predicates of
//! [`triangles_overlap`](crate::intersect::triangles_overlap)) never hit. The
//! paper's `det = 0` test alone does not ensure that: a general shear rounds
//! a collinear triangle into a 2-D sliver whose weights, and hence `t`, are
//! rounding noise (even negative). The exact check runs only on the hit path.
//! The price is in meshes that patch T-junctions with zero-area triangles:
//! there the rounded shear can leave a crack about one ulp wide that only
//! the degenerate triangle covered. Rays in a triangle's plane (`det = 0`)
//! and non-finite input never hit either.

use crate::intersect::triangle_triangle::is_degenerate;
use crate::math::{Point, Real};
use crate::shape::{Ray, Segment, Triangle};

/// Which sides of a triangle a ray may hit. The front face is the side the
/// normal `(b − a) × (c − a)` points to: its vertices wind counter-clockwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FaceCulling {
    /// Both faces are hit.
    #[default]
    Off,
    /// Back faces are culled: only rays arriving against the normal hit.
    Back,
    /// Front faces are culled: only rays arriving along the normal hit.
    Front,
}

/// Where a ray crosses a triangle.
///
/// The hit point is `w·a + u·b + v·c`, the same point as
/// [`Triangle::point_at`]`(u, v)`; the three weights are non-negative and sum
/// to 1 up to rounding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    /// Ray parameter of the hit, in units of the ray direction.
    pub t: Real,
    /// Barycentric weight of vertex `b`.
    pub u: Real,
    /// Barycentric weight of vertex `c`.
    pub v: Real,
    /// Barycentric weight of vertex `a`.
    pub w: Real,
    /// True when the ray arrived on the front face (against the normal).
    pub front_face: bool,
}

/// A ray prepared for many triangle tests: the per-ray part of Woop et al.
///
/// Built once per ray (no allocation; a few divisions), then
/// [`WatertightRay::intersect`] costs one 2-D transform per vertex and three
/// edge functions per triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatertightRay {
    origin: Point,
    /// Axis permutation: `kz` is the dominant direction axis; `kx`, `ky` follow
    /// it cyclically, swapped when the direction is negative along `kz` so the
    /// transform keeps the triangle winding.
    kx: usize,
    ky: usize,
    kz: usize,
    /// Shear `(dx/dz, dy/dz, 1/dz)` in permuted coordinates.
    sx: Real,
    sy: Real,
    sz: Real,
    culling: FaceCulling,
}

impl WatertightRay {
    /// Prepares `ray`; `None` when its direction is zero (or so small that
    /// `1/d` overflows) or when any coordinate is NaN or infinite.
    #[must_use]
    pub fn new(ray: &Ray) -> Option<Self> {
        if !ray.is_finite() {
            return None;
        }
        let d = ray.direction;
        let m = d.abs();
        let kz = if m.x >= m.y {
            if m.x >= m.z { 0 } else { 2 }
        } else if m.y >= m.z {
            1
        } else {
            2
        };
        let mut kx = (kz + 1) % 3;
        let mut ky = (kx + 1) % 3;
        if d[kz] < 0.0 {
            std::mem::swap(&mut kx, &mut ky);
        }
        let sz = 1.0 / d[kz];
        if !sz.is_finite() {
            return None;
        }
        Some(Self {
            origin: ray.origin,
            kx,
            ky,
            kz,
            // Multiplying by 1/d_z instead of dividing saves two divisions;
            // watertightness only needs the same constants for every triangle.
            sx: d[kx] * sz,
            sy: d[ky] * sz,
            sz,
            culling: FaceCulling::Off,
        })
    }

    /// The same ray with `culling` applied to every later [`WatertightRay::intersect`].
    #[must_use]
    pub fn with_culling(mut self, culling: FaceCulling) -> Self {
        self.culling = culling;
        self
    }

    /// The hit with `t ∈ [t_min, t_max]` (inclusive), or `None`.
    ///
    /// A ray through an edge or a vertex hits (every triangle whose closed
    /// 2-D projection contains it). `t` is `T / det` computed in `f32`; the
    /// range test is applied to that rounded value. Misses: degenerate
    /// triangles, rays in the triangle's plane, culled faces, NaN or infinite
    /// coordinates, and coordinates so large (beyond about `1e19` from the
    /// origin) that the edge functions overflow.
    #[must_use]
    pub fn intersect(&self, tri: &Triangle, t_min: Real, t_max: Real) -> Option<TriangleHit> {
        let (kx, ky, kz) = (self.kx, self.ky, self.kz);
        let a = tri.a - self.origin;
        let b = tri.b - self.origin;
        let c = tri.c - self.origin;
        // Shear and scale the vertices into the ray's frame (the ray is +z).
        let ax = a[kx] - self.sx * a[kz];
        let ay = a[ky] - self.sy * a[kz];
        let bx = b[kx] - self.sx * b[kz];
        let by = b[ky] - self.sy * b[kz];
        let cx = c[kx] - self.sx * c[kz];
        let cy = c[ky] - self.sy * c[kz];
        // Scaled barycentric weights of a, b, c: the edge functions of the
        // opposite edges, evaluated at the origin of the 2-D frame.
        let mut wa = cx * by - cy * bx;
        let mut wb = ax * cy - ay * cx;
        let mut wc = bx * ay - by * ax;
        if wa == 0.0 || wb == 0.0 || wc == 0.0 {
            wa = edge_function_f64(cx, by, cy, bx);
            wb = edge_function_f64(ax, cy, ay, cx);
            wc = edge_function_f64(bx, ay, by, ax);
        }
        let negative = wa < 0.0 || wb < 0.0 || wc < 0.0;
        let positive = wa > 0.0 || wb > 0.0 || wc > 0.0;
        let outside = match self.culling {
            FaceCulling::Off => negative && positive,
            FaceCulling::Back => negative,
            FaceCulling::Front => positive,
        };
        if outside {
            return None;
        }
        // det > 0 when the ray arrives against the normal (the permutation
        // and shear preserve orientation); 0 for edge-on triangles.
        let det = wa + wb + wc;
        if det == 0.0 {
            return None;
        }
        let az = self.sz * a[kz];
        let bz = self.sz * b[kz];
        let cz = self.sz * c[kz];
        let t_scaled = wa * az + wb * bz + wc * cz;
        let t = t_scaled / det;
        // Written as `!(…)` so that NaN misses.
        if !(t_min <= t && t <= t_max) {
            return None;
        }
        let finite = [ax, ay, bx, by, cx, cy, az, bz, cz, det, t]
            .iter()
            .all(|x| x.is_finite());
        if !finite || is_degenerate(tri) {
            return None;
        }
        let inv_det = 1.0 / det;
        Some(TriangleHit {
            t,
            u: wb * inv_det,
            v: wc * inv_det,
            w: wa * inv_det,
            front_face: det > 0.0,
        })
    }
}

/// `p·q − r·s` evaluated in `f64`, where both products of `f32` values are
/// exact and so is the sign of the difference.
fn edge_function_f64(p: Real, q: Real, r: Real, s: Real) -> Real {
    (f64::from(p) * f64::from(q) - f64::from(r) * f64::from(s)) as Real
}

/// The hit of the ray with `t ∈ [t_min, t_max]` on either face, or `None`.
///
/// For many triangles per ray, build a [`WatertightRay`] once instead.
#[must_use]
pub fn ray_triangle(ray: &Ray, t_min: Real, t_max: Real, tri: &Triangle) -> Option<TriangleHit> {
    WatertightRay::new(ray)?.intersect(tri, t_min, t_max)
}

/// The hit of the segment `a + t (b − a)`, `t ∈ [0, 1]`, on either face, or `None`.
///
/// Both ends are inclusive: a segment starting on the triangle hits at `t = 0`,
/// one ending on it at `t = 1`. A zero-length segment has no direction and
/// never hits (line of sight from a point to itself is clear).
#[must_use]
pub fn segment_triangle(segment: &Segment, tri: &Triangle) -> Option<TriangleHit> {
    ray_triangle(&segment.to_ray(), 0.0, 1.0, tri)
}
