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

use crate::exact;
use crate::intersect::triangle_triangle::is_degenerate;
use crate::math::{Point, Real, Vector, is_finite_point};
use crate::shape::{Ray, Segment, Triangle};

mod endpoints;
mod lanes;

pub(crate) use endpoints::end_thresholds;
use endpoints::{barycentric, depth_hull};
pub(crate) use lanes::TriangleLanes;

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
///
/// The paper permutes each vertex's coordinates (`kx`, `ky`, `kz`) and then
/// shears them. Here the permutation is folded into three row vectors made
/// once per ray, so a vertex is transformed by three dot products with no
/// indexing by runtime axis. With a row holding `1`, `0` and `−s` the dot
/// product rounds exactly as the paper's `p[kx] − s·p[kz]` (the `1·` and
/// `0·` terms are exact), so shared vertices still map to identical values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WatertightRay {
    origin: Point,
    /// The ray's direction as given: with `origin` it defines the exact
    /// points `origin + t·direction` that the range ends name.
    direction: Vector,
    /// The exact point at `t = 1` when the ray was made from a segment
    /// ([`WatertightRay::from_segment`]): the segment's end `b`, which
    /// `origin + 1·(b − a)` only approximates once `b − a` is rounded.
    end: Option<Point>,
    /// `|d_kz|`, to turn the scaled depths back into lengths for the
    /// rounding bound of `t`.
    depth_unit: Real,
    /// `e_kx − (dx/dz)·e_kz`: the sheared 2-D `x` of a vertex relative to
    /// the origin. `kz` is the dominant direction axis; `kx`, `ky` follow it
    /// cyclically, swapped when the direction is negative along `kz` so the
    /// transform keeps the triangle winding.
    row_x: Vector,
    /// `e_ky − (dy/dz)·e_kz`: the sheared 2-D `y`.
    row_y: Vector,
    /// `(1/dz)·e_kz`: the scaled depth.
    row_z: Vector,
    culling: FaceCulling,
}

impl WatertightRay {
    /// Prepares `ray`; `None` when its direction is zero (or so small that
    /// `1/d` overflows) or when any coordinate is NaN or infinite.
    #[must_use]
    #[inline(always)]
    pub fn new(ray: &Ray) -> Option<Self> {
        let (prepared, usable) = Self::prepare(ray, None);
        usable.then_some(prepared)
    }

    /// [`WatertightRay::new`] (with `end` as the exact point at `t = 1`)
    /// computed whatever the input, beside whether it is usable. Built in
    /// one piece, with no `Option` around it: the query set-ups copy it
    /// into place, and copies of an `Option` of this size were made of
    /// stores that the first reads of the ray could not be forwarded from.
    #[inline(always)]
    pub(crate) fn prepare(ray: &Ray, end: Option<Point>) -> (Self, bool) {
        let d = ray.direction;
        let m = d.abs();
        // The dominant axis kz as a unit vector, and kx, ky following it
        // cyclically, all without branches (random ray directions make the
        // axis choice unpredictable) and without indexing memory.
        let x_dom = m.x >= m.y && m.x >= m.z;
        let y_dom = !x_dom & (m.y >= m.z);
        let z_dom = !x_dom & !y_dom;
        let flag = |b: bool| Real::from(u8::from(b));
        let (x_dom, y_dom, z_dom) = (flag(x_dom), flag(y_dom), flag(z_dom));
        let unit_z = Vector::new(x_dom, y_dom, z_dom);
        let next = Vector::new(z_dom, x_dom, y_dom);
        let after = Vector::new(y_dom, z_dom, x_dom);
        let dz = unit_z.dot(&d);
        // Swapped when the direction is negative along kz, to keep the
        // winding; blended with a 0/1 weight (exact) instead of a branch.
        let swap = flag(dz < 0.0);
        let unit_x = next + (after - next) * swap;
        let unit_y = after + (next - after) * swap;
        let sz = 1.0 / dz;
        let usable = ray.is_finite() & sz.is_finite() & end.is_none_or(|e| is_finite_point(&e));
        // Multiplying by 1/d_z instead of dividing saves two divisions;
        // watertightness only needs the same constants for every triangle.
        // Each row is exact: 1 and 0 entries plus one rounded product.
        let (sx, sy) = (unit_x.dot(&d) * sz, unit_y.dot(&d) * sz);
        let row_x = unit_x - unit_z * sx;
        let row_y = unit_y - unit_z * sy;
        let row_z = unit_z * sz;
        let prepared = Self {
            origin: ray.origin,
            direction: d,
            end,
            depth_unit: dz.abs(),
            row_x,
            row_y,
            row_z,
            culling: FaceCulling::Off,
        };
        (prepared, usable)
    }

    /// Prepares the segment as the ray `a + t (b − a)`, remembering `b`
    /// itself as the exact point at `t = 1`, so that a segment ending
    /// exactly on a triangle is decided by its true end; `None` for a
    /// zero-length or non-finite segment.
    #[must_use]
    #[inline(always)]
    pub fn from_segment(segment: &Segment) -> Option<Self> {
        if !is_finite_point(&segment.b) {
            return None;
        }
        Some(Self::new(&segment.to_ray())?.ending_at(segment.b))
    }

    /// The same ray with `end` as its exact point at `t = 1` (finite, and
    /// within rounding of `origin + direction`: a segment's end).
    #[must_use]
    #[inline(always)]
    pub(crate) fn ending_at(mut self, end: Point) -> Self {
        self.end = Some(end);
        self
    }

    /// The same ray with `culling` applied to every later [`WatertightRay::intersect`].
    #[must_use]
    pub fn with_culling(mut self, culling: FaceCulling) -> Self {
        self.culling = culling;
        self
    }

    /// The hit with `t ∈ [t_min, t_max]` (inclusive), or `None`.
    ///
    /// # The endpoint contract
    ///
    /// - A ray through an edge or a vertex hits every triangle whose closed
    ///   2-D projection (in the ray's sheared frame) contains it: the
    ///   watertight rule, so a closed mesh never lets a ray slip through.
    /// - The range ends are exact points: `t = 0` is the origin, `t = 1` a
    ///   segment's end `b` (for a ray made by [`WatertightRay::from_segment`]),
    ///   any other finite `t` the exact point `origin + t·direction`.
    /// - Where the line crosses the plane near an end (the triangle's depths
    ///   reach that end), which side of the plane each end lies on is
    ///   decided exactly (adaptive predicates after Shewchuk 1997): an end
    ///   exactly on the plane hits at exactly that end's `t` (0 or 1 for a
    ///   segment), an end one ulp short of it misses, and a crossing
    ///   strictly inside the range is clamped into it.
    /// - An origin, or a segment end, lying exactly on the closed triangle
    ///   (edges and vertices included) hits at its `t` even where the
    ///   rounded test saw the line pass just outside: a segment touching a
    ///   ridge or a mesh boundary at its end. Rays starting on a surface
    ///   therefore hit it at `t = 0`; start at `t_min > 0` to leave one.
    ///   An end exactly in the plane but off the closed triangle misses it,
    ///   even where the rounded test saw the line pass through it further
    ///   on (a grazing line).
    /// - Grazing lines: a segment that stays within rounding of a
    ///   triangle's plane along its length (an angle to the plane near
    ///   `f32`'s resolution over the triangle's size) is decided by the
    ///   rounded test of the line through `a` along the rounded `b − a`,
    ///   ends excepted: it may hit a triangle that its exact line crosses
    ///   the plane beside, or miss one it crosses, by up to the coordinates'
    ///   rounding over the sine of that angle, and its `t` then lies
    ///   anywhere in the triangle's depth range. That line never slips
    ///   through a closed mesh, but the segment itself may (one ending
    ///   less than an ulp inside the surface, whose rounded direction's
    ///   line stays outside it).
    /// - Misses: degenerate triangles, a range lying exactly in the
    ///   triangle's plane (edge-on), culled faces, zero-length segments,
    ///   and NaN or infinite coordinates. Coordinates so large (about
    ///   `1e19` and beyond) that the sheared products overflow are tested
    ///   again at a smaller power of two, which changes no rounding, so
    ///   hits hold up to `f32`'s largest values (mesh trees beyond `2⁶⁰`
    ///   take their binary kernels, which test this way). At the other end, a
    ///   hit on a triangle below about `1e-15` takes its edge functions
    ///   from `f64` products (in `f32` they go subnormal below `1e-19`),
    ///   and `t` comes from `f64` products wherever its `f32` ones could
    ///   be subnormal (tiny triangles, long directions), so `t` and the
    ///   weights hold down to edges of about `1e-22`, below
    ///   which the mesh trees count a triangle whose `f32` normal is zero
    ///   as degenerate; the hit-or-miss decision there is still `f32`'s,
    ///   watertight only to the rounding of subnormal products.
    #[must_use]
    #[inline(always)]
    pub fn intersect(&self, tri: &Triangle, t_min: Real, t_max: Real) -> Option<TriangleHit> {
        self.intersect_lanes::<true>(&TriangleLanes::from(tri), t_min, t_max, t_max)
            .filter(|_| !is_degenerate(tri))
    }

    /// [`WatertightRay::intersect`] without the exact collinearity check, on
    /// a triangle stored by axis: for the mesh trees, which decide once per
    /// triangle whether it can be hit and keep that flag, so the hit path
    /// stays free of the exact predicates. All three vertices go
    /// through the shear in the same 4-lane operations (the per-vertex
    /// arithmetic, and hence watertightness, is that of the scalar form:
    /// the rows' 1 and 0 entries make every summation order round alike),
    /// and the three edge functions are one lane-rotated product.
    ///
    /// `[t_min, t_max]` is the query's range, whose ends are decided
    /// exactly; `t_cap ≤ t_max` is a further bound compared in rounded
    /// arithmetic (a closest-hit descent's best `t` so far).
    ///
    /// `CAREFUL = false` skips the endpoint decisions: for triangles in a
    /// leaf whose box holds neither end of the range (so no end can lie on
    /// them, and no crossing near an end can be theirs), where the rounded
    /// range test is the answer. The mesh trees' box kernels tell which
    /// leaves those are, so the common case pays nothing for exact ends.
    #[inline(always)]
    pub(crate) fn intersect_lanes<const CAREFUL: bool>(
        &self,
        tri: &TriangleLanes,
        t_min: Real,
        t_max: Real,
        t_cap: Real,
    ) -> Option<TriangleHit> {
        let o = &self.origin;
        let (px, py, pz) = (
            tri.x.map(|v| v - o.x),
            tri.y.map(|v| v - o.y),
            tri.z.map(|v| v - o.z),
        );
        // Shear and scale the vertices into the ray's frame (the ray is +z):
        // lane 0, 1, 2 hold a, b, c.
        let frame = |r: &Vector| -> Lanes {
            std::array::from_fn(|i| r.x * px[i] + r.y * py[i] + r.z * pz[i])
        };
        let (x, y) = (frame(&self.row_x), frame(&self.row_y));
        // Scaled barycentric weights of a, b, c: the edge functions of the
        // opposite edges, evaluated at the origin of the 2-D frame.
        let next = |v: &Lanes| [v[1], v[2], v[0], v[3]];
        let after = |v: &Lanes| [v[2], v[0], v[1], v[3]];
        let (x1, y1, x2, y2) = (next(&x), next(&y), after(&x), after(&y));
        let w: Lanes = std::array::from_fn(|i| x2[i] * y1[i] - y2[i] * x1[i]);
        let [mut wa, mut wb, mut wc, _] = w;
        // The three edge functions in `f64`, where the products of `f32`
        // values are exact, scaled by a power of two into `f32`'s normal
        // range when all are tiny (see `normalising_scale`): the scale keeps
        // every sign and every ratio (`t`, the weights).
        let [ax, bx, cx, _] = x;
        let [ay, by, cy, _] = y;
        let exact = || {
            let e = [
                edge_function_f64(cx, by, cy, bx),
                edge_function_f64(ax, cy, ay, cx),
                edge_function_f64(bx, ay, by, ax),
            ];
            let scale = normalising_scale(e[0].abs().max(e[1].abs()).max(e[2].abs()));
            e.map(|v| (v * scale) as Real)
        };
        if wa == 0.0 || wb == 0.0 || wc == 0.0 {
            [wa, wb, wc] = exact();
        }
        let (mixed, outside) = self.sides([wa, wb, wc]);
        // det > 0 when the ray arrives against the normal (the permutation
        // and shear preserve orientation); 0 for edge-on triangles.
        let det = wa + wb + wc;
        if CAREFUL && (mixed | (det == 0.0)) {
            // The line misses the closed triangle, or lies in its plane, as
            // far as this rounding can tell. An end of the range lying
            // exactly on the triangle's boundary may still touch it (the
            // line then passes within rounding of an edge); only triangles
            // whose depths reach such an end are looked at again.
            if self.may_touch_an_end(&frame(&self.row_z), t_min, t_max)
                && self.box_may_hold_end(tri, t_min, t_max)
            {
                let near = self.edge_rounding_bound(&px, &py, &pz, &x, &y);
                let front = (wa >= -near) & (wb >= -near) & (wc >= -near);
                let back = (wa <= near) & (wb <= near) & (wc <= near);
                if front | back {
                    return self.end_on_triangle(tri, t_min, t_max, t_cap);
                }
            }
            return None;
        }
        if outside || det == 0.0 {
            return None;
        }
        // A triangle below about 1e-15: its `f32` edge functions lie near or
        // in the subnormal range, where below about 1e-19 they lose their
        // precision (`t` and the weights off, `1/det` infinite). They are
        // taken again from `exact` on the hit path only, so the miss
        // decisions above stay `f32`'s (such tiny meshes are watertight only
        // to the rounding of subnormal products).
        let (wa, wb, wc, det) = if det.abs() < TINY_DETERMINANT {
            let [a, b, c] = exact();
            let det = a + b + c;
            if self.sides([a, b, c]).1 || det == 0.0 {
                return None;
            }
            (a, b, c, det)
        } else {
            (wa, wb, wc, det)
        };
        let z = frame(&self.row_z);
        let t_scaled = wa * z[0] + wb * z[1] + wc * z[2];
        let mut t = t_scaled / det;
        // The products may be subnormal or 0 in `f32` (a triangle of 1e-14
        // gave `t` 0.09% off, one of 1e-12 under a long direction `t = 0`):
        // below 2⁻¹⁰⁰ their sum is taken again in `f64`, where products of
        // `f32` values are exact (0 stays 0). Off the common path: the
        // careful test asks first; the rounded one only where its range
        // test fails or the sum is that small, in one branch (a branch of
        // its own cost any-hit 3%).
        let tiny = t_scaled.abs() < TINY_DETERMINANT;
        let t_in_f64 = || {
            let scaled = f64::from(wa) * f64::from(z[0])
                + f64::from(wb) * f64::from(z[1])
                + f64::from(wc) * f64::from(z[2]);
            (scaled / f64::from(det)) as Real
        };
        if CAREFUL && tiny {
            t = t_in_f64();
        }
        // `v · 0` is NaN exactly for infinite or NaN `v`.
        let finite = |t: Real| {
            let zero: Lanes = std::array::from_fn(|i| x[i] * 0.0 + y[i] * 0.0 + z[i] * 0.0);
            (zero[0] + zero[1]) + (zero[2] + (det * 0.0 + t * 0.0)) == 0.0
        };
        if CAREFUL && !finite(t) {
            // Sheared coordinates or their products beyond `f32`'s range
            // (coordinates of about 1e19 and more): the same test at a
            // smaller power of two, which scales every rounding exactly.
            return self.intersect_rescaled(tri, t_min, t_max, t_cap);
        }
        if CAREFUL {
            // `t` is an average of the vertices' depths `z`, and so is the
            // exact crossing: when every depth lies inside the range by more
            // than their rounding, so does the crossing, and neither end can
            // lie on the triangle. Otherwise the ends decide exactly.
            let (near, far) = depth_hull(&z);
            // Written as `!(…)` so that NaN misses.
            if !(near > t_min && far < t_max) && self.box_may_hold_end(tri, t_min, t_max) {
                if !(far >= t_min && near <= t_max && finite(t)) {
                    return None;
                }
                let (decided, on_plane) = self.decide_range(tri, t, t_min, t_max)?;
                if !(decided <= t_cap) {
                    return None;
                }
                t = decided;
                if let Some(point) = on_plane {
                    // An end exactly in the plane hits only where it lies on
                    // the closed triangle: a grazing line may pass within
                    // rounding of the triangle far beyond the end. (A
                    // neighbour holding the end still finds it: its box
                    // holds that end too, see `end_on_triangle`.)
                    let triangle = tri.triangle();
                    let [a, b, c] = triangle.vertices();
                    if !exact::in_closed_triangle(&a, &b, &c, &point) {
                        return None;
                    }
                    let [w, u, v] = barycentric(&triangle, &point);
                    return Some(TriangleHit {
                        t,
                        u,
                        v,
                        w,
                        front_face: det > 0.0,
                    });
                }
            } else if !(t_min <= t && t <= t_cap && finite(t)) {
                // No end can lie on this triangle: the rounded range test,
                // exactly as for triangles in leaves that hold no end.
                return None;
            }
        } else if !(t_min <= t && t <= t_cap && finite(t)) | tiny {
            if !tiny {
                return None;
            }
            t = t_in_f64();
            if !(t_min <= t && t <= t_cap && finite(t)) {
                return None;
            }
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

    /// [`WatertightRay::intersect_lanes`] (careful) with the ray and the
    /// triangle scaled by the power of two that brings their largest
    /// coordinate near 2⁴⁰, for coordinates so large that the sheared
    /// products overflow: scaling by a power of two changes no rounding
    /// (nor `t`, the weights or any sign), so the answer is the one
    /// `f32` with a wider exponent would give, watertight with neighbours
    /// tested unscaled. `None` where nothing is that large (the overflow
    /// came from NaN or infinite input).
    #[cold]
    #[inline(never)]
    fn intersect_rescaled(
        &self,
        tri: &TriangleLanes,
        t_min: Real,
        t_max: Real,
        t_cap: Real,
    ) -> Option<TriangleHit> {
        let triangle = tri.triangle();
        let largest = [triangle.a, triangle.b, triangle.c, self.origin]
            .iter()
            .chain(self.end.iter())
            .map(|p| p.coords.amax())
            .fold(0.0, Real::max);
        if !(largest.is_finite() && largest >= 1e18) {
            return None;
        }
        // 2^(40 − e) for 2^e ≤ largest < 2^(e + 1), made from bits.
        let exponent = ((largest.to_bits() >> 23) & 0xff) as i32 - 127;
        let scale = Real::from_bits(((127 + 40 - exponent) as u32) << 23);
        let ray = Ray::new(self.origin * scale, self.direction * scale);
        let (mut scaled, usable) = WatertightRay::prepare(&ray, self.end.map(|e| e * scale));
        scaled.culling = self.culling;
        let shrunk = Triangle::new(triangle.a * scale, triangle.b * scale, triangle.c * scale);
        usable
            .then(|| {
                scaled.intersect_lanes::<true>(&TriangleLanes::from(&shrunk), t_min, t_max, t_cap)
            })
            .flatten()
    }

    /// Whether the edge functions' signs are mixed (the line misses the
    /// closed triangle), and whether they put the crossing outside for this
    /// ray's culling.
    #[inline(always)]
    fn sides(&self, [wa, wb, wc]: [Real; 3]) -> (bool, bool) {
        let negative = (wa < 0.0) | (wb < 0.0) | (wc < 0.0);
        let positive = (wa > 0.0) | (wb > 0.0) | (wc > 0.0);
        let outside = match self.culling {
            FaceCulling::Off => negative & positive,
            FaceCulling::Back => negative,
            FaceCulling::Front => positive,
        };
        (negative & positive, outside)
    }
}

/// `u = 2⁻²⁴`, the unit roundoff of `f32`.
const UNIT_ROUNDOFF: Real = Real::EPSILON * 0.5;

/// Four lanes of `f32`, the width of one SSE register.
type Lanes = [Real; 4];

/// `p·q − r·s` evaluated in `f64`, where both products of `f32` values are
/// exact and so is the sign of the difference.
#[inline(always)]
fn edge_function_f64(p: Real, q: Real, r: Real, s: Real) -> f64 {
    f64::from(p) * f64::from(q) - f64::from(r) * f64::from(s)
}

/// Below this (2⁻¹⁰⁰) a determinant, the sum of the three edge functions,
/// means edge functions whose `f32` products may be subnormal or close to
/// it; in a triangle of ordinary size the sum is never this small unless
/// it cancels to exactly 0.
const TINY_DETERMINANT: Real = 7.888_609e-31;

/// A power of two that brings `largest` (an edge function's magnitude in
/// `f64`) to about 1 when it lies below `f32`'s normal range with room to
/// spare (2⁻⁶⁰); 1 otherwise, so that edge functions of ordinary size keep
/// their rounded `f32` values exactly.
#[inline(always)]
fn normalising_scale(largest: f64) -> f64 {
    // 2⁻⁶⁰; products of `f32` values are normal `f64` numbers, so the
    // exponent read from the bits is the binary logarithm's floor, and
    // 2^(−e) is made from bits too (no library call in the kernels).
    const BELOW: f64 = 8.673_617_379_884_035e-19;
    if largest > 0.0 && largest < BELOW {
        let exponent = ((largest.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        f64::from_bits(((1023 - exponent) as u64) << 52)
    } else {
        1.0
    }
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
    WatertightRay::from_segment(segment)?.intersect(tri, 0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's per-vertex transform, with explicit axis indices.
    fn paper_transform(ray: &Ray, p: &Point) -> [Real; 3] {
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
        let (sx, sy) = (d[kx] * sz, d[ky] * sz);
        let a = p - ray.origin;
        [a[kx] - sx * a[kz], a[ky] - sy * a[kz], sz * a[kz]]
    }

    /// Pseudo-random coordinates (xorshift): small integers (exact ties
    /// between components, zero edge functions) mixed with fractions at two
    /// scales and both signs.
    fn mixed_coordinates(seed: u64) -> impl FnMut() -> Real {
        let mut next = crate::test_support::xorshift(seed);
        move || {
            let bits = next();
            let x = crate::test_support::unit(bits) * 2.0 - 1.0;
            match bits % 5 {
                0 => (x * 4.0).round(),
                1 => x * 1000.0,
                _ => x,
            }
        }
    }

    /// The whole test in the paper's indexed, per-vertex scalar form
    /// (culling off, no degeneracy check): the reference the 4-lane
    /// version must match bit for bit.
    fn paper_intersect(ray: &Ray, tri: &Triangle) -> Option<TriangleHit> {
        let [ax, ay, az] = paper_transform(ray, &tri.a);
        let [bx, by, bz] = paper_transform(ray, &tri.b);
        let [cx, cy, cz] = paper_transform(ray, &tri.c);
        let mut wa = cx * by - cy * bx;
        let mut wb = ax * cy - ay * cx;
        let mut wc = bx * ay - by * ax;
        if wa == 0.0 || wb == 0.0 || wc == 0.0 {
            wa = edge_function_f64(cx, by, cy, bx) as Real;
            wb = edge_function_f64(ax, cy, ay, cx) as Real;
            wc = edge_function_f64(bx, ay, by, ax) as Real;
        }
        let negative = wa < 0.0 || wb < 0.0 || wc < 0.0;
        let positive = wa > 0.0 || wb > 0.0 || wc > 0.0;
        let det = wa + wb + wc;
        if (negative && positive) || det == 0.0 {
            return None;
        }
        let t = (wa * az + wb * bz + wc * cz) / det;
        let values = [ax, ay, bx, by, cx, cy, az, bz, cz, det, t];
        let in_range = (0.0..=Real::INFINITY).contains(&t);
        if !in_range || !values.iter().all(|v| v.is_finite()) {
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

    #[test]
    fn four_lane_test_matches_the_papers_scalar_form_exactly() {
        let mut next = mixed_coordinates(0x9e37_79b9_7f4a_7c15);
        let (mut hits, mut zero_edges) = (0, 0);
        for _ in 0..200_000 {
            let origin = Point::new(next(), next(), next());
            let tri = Triangle::new(
                Point::new(next(), next(), next()),
                Point::new(next(), next(), next()),
                Point::new(next(), next(), next()),
            );
            // Aim at a vertex, an edge midpoint or a random point.
            let target = match (next() * 1000.0).abs() as u32 % 3 {
                0 => tri.a,
                1 => Point::from((tri.b.coords + tri.c.coords) * 0.5),
                _ => Point::new(next(), next(), next()),
            };
            let ray = Ray::new(origin, target - origin);
            let Some(prepared) = WatertightRay::new(&ray) else {
                continue;
            };
            let ours = prepared.intersect_lanes::<false>(
                &TriangleLanes::from(&tri),
                0.0,
                Real::INFINITY,
                Real::INFINITY,
            );
            let paper = paper_intersect(&ray, &tri);
            assert_eq!(ours.is_some(), paper.is_some(), "{ray:?} {tri:?}");
            if let (Some(o), Some(p)) = (ours, paper) {
                // Equal values: bit for bit, except that a zero's sign may
                // differ (adding the rows' exact zeros), which never matters.
                let values = |h: &TriangleHit| [h.t, h.u, h.v, h.w];
                assert_eq!(values(&o), values(&p), "{ray:?} {tri:?}");
                assert_eq!(o.front_face, p.front_face);
                hits += 1;
                zero_edges += usize::from(o.u == 0.0 || o.v == 0.0 || o.w == 0.0);
            }
        }
        // The inputs reach both the hit path and the zero-edge fallback.
        assert!(
            hits > 10_000 && zero_edges > 100,
            "{hits} hits, {zero_edges} on an edge"
        );
    }

    #[test]
    fn folded_rows_round_exactly_like_the_papers_permutation() {
        let mut next = mixed_coordinates(0x2545_f491_4f6c_dd1d);
        for _ in 0..100_000 {
            let ray = Ray::new(
                Point::new(next(), next(), next()),
                Vector::new(next(), next(), next()),
            );
            let Some(prepared) = WatertightRay::new(&ray) else {
                continue;
            };
            let p = Point::new(next(), next(), next());
            let a = p - ray.origin;
            let ours = [
                prepared.row_x.dot(&a),
                prepared.row_y.dot(&a),
                prepared.row_z.dot(&a),
            ];
            let paper = paper_transform(&ray, &p);
            for k in 0..3 {
                // Equal values (a zero's sign may differ and never matters).
                assert!(ours[k] == paper[k], "{ray:?} {p}: {ours:?} vs {paper:?}");
            }
        }
    }
}
