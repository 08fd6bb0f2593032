//! The exact endpoint decisions of the watertight test: whether a range's
//! end (the origin, or a segment's end point) lies on a triangle, decided
//! by exact orientation where the rounded crossing lies within its rounding
//! of that end. Run only for triangles the mesh trees flag as possibly
//! holding an end (`CAREFUL` in [`WatertightRay::intersect_lanes`]), so the
//! common case pays nothing for them.

use super::lanes::{abs4, max3, max4};
use super::{FaceCulling, Lanes, TriangleHit, TriangleLanes, UNIT_ROUNDOFF, WatertightRay};
use crate::exact;
use crate::math::{Point, Real, is_finite_point, nalgebra};
use crate::shape::Triangle;

impl WatertightRay {
    /// True when the triangle's bounding box may hold an end of the range:
    /// the slab test of the mesh trees' wide nodes (`WideNode::ray_entries`),
    /// with the same formula and thresholds, applied to the triangle's own
    /// box. A leaf's box contains its triangles' boxes, so the rounded slab
    /// parameters are monotone between them: a triangle that qualifies here
    /// always lies in a leaf the descent flagged, and the careful and the
    /// rounded tests never disagree over which triangles are decided how.
    #[inline(never)]
    pub(super) fn box_may_hold_end(&self, tri: &TriangleLanes, t_min: Real, t_max: Real) -> bool {
        let ends = end_thresholds(t_min, t_max);
        let (mut enter, mut exit) = (t_min, Real::INFINITY);
        for (axis, lanes) in [tri.x, tri.y, tri.z].iter().enumerate() {
            let lo = lanes[0].min(lanes[1]).min(lanes[2]);
            let hi = lanes[0].max(lanes[1]).max(lanes[2]);
            let inverse = 1.0 / self.direction[axis];
            let (near, far) = if inverse < 0.0 { (hi, lo) } else { (lo, hi) };
            let t_near = (near - self.origin[axis]) * inverse;
            let t_far = (far - self.origin[axis]) * inverse;
            enter = if t_near > enter { t_near } else { enter };
            exit = if t_far < exit { t_far } else { exit };
        }
        (enter <= ends[0]) | (exit >= ends[1])
    }

    /// True when the depths `z` of a triangle's vertices reach an end of the
    /// range that is an input point: the origin (`t_min = 0`) or a
    /// segment's end (`t_max = 1`). Each `z` is `(v − o)_kz / d_kz` with a
    /// relative error of a few `u`, so its sign is exact (depth 0 is decided
    /// without margin) and `z` near 1 is off by at most `4u`.
    #[inline(always)]
    pub(super) fn may_touch_an_end(&self, z: &Lanes, t_min: Real, t_max: Real) -> bool {
        let straddles = |lo: Real, hi: Real| {
            let below = (z[0] <= hi) | (z[1] <= hi) | (z[2] <= hi);
            let above = (z[0] >= lo) | (z[1] >= lo) | (z[2] >= lo);
            below & above
        };
        const SLACK: Real = 16.0 * UNIT_ROUNDOFF;
        ((t_min == 0.0) & straddles(0.0, 0.0))
            | (self.end.is_some() & (t_max == 1.0) & straddles(1.0 - SLACK, 1.0 + SLACK))
    }

    /// An upper bound on the rounding error of the edge functions `w`.
    ///
    /// The sheared 2-D coordinates are off by at most `5u (S + L)`, where
    /// `S` bounds `|x|, |y|` and `L` the vertices' coordinates relative to
    /// the origin (which the shear multiplies by factors up to 1); each edge
    /// function `x₂y₁ − y₂x₁` adds its own rounding, so
    /// `|δw| ≤ u (26 S² + 20 L S) + O(u² L²)`. Doubled for safety: a wider
    /// bound only sends more misses to the exact end check.
    #[inline(always)]
    pub(super) fn edge_rounding_bound(
        &self,
        px: &Lanes,
        py: &Lanes,
        pz: &Lanes,
        x: &Lanes,
        y: &Lanes,
    ) -> Real {
        let l = max3(&max4(&max4(&abs4(px), &abs4(py)), &abs4(pz)));
        let s = max3(&max4(&abs4(x), &abs4(y)));
        UNIT_ROUNDOFF * (64.0 * s * (s + l) + 256.0 * UNIT_ROUNDOFF * l * l)
    }

    /// The hit of a range end lying exactly on the closed triangle, for a
    /// line that the rounded test found to pass outside it (within
    /// rounding of an edge or a vertex) or within its plane. Only ends that
    /// are input points are checked: the origin (`t_min = 0`) and a
    /// segment's end `b` (`t_max = 1`); a computed end `origin + t·direction`
    /// is left to the rounded test. A range lying in the triangle's plane
    /// never hits (edge-on), as everywhere else.
    #[cold]
    #[inline(never)]
    pub(super) fn end_on_triangle(
        &self,
        tri: &TriangleLanes,
        t_min: Real,
        t_max: Real,
        t_cap: Real,
    ) -> Option<TriangleHit> {
        #[cfg(test)]
        crate::test_support::count(crate::test_support::Work::ExactEndDecision);
        let finite = |p: &Point| is_finite_point(p);
        let triangle = tri.triangle();
        if !triangle.vertices().iter().all(finite) || !finite(&self.origin) {
            return None;
        }
        let [a, b, c] = triangle.vertices();
        let side = |p: &Point| exact::sign(exact::orient3d(&a, &b, &c, p));
        let direction_side = exact::orient3d_on_line(&a, &b, &c, &a, &self.direction, 1.0);
        // The side of the end at `param` other than the touching one.
        let other_side = |param: Real| -> i8 {
            if param == 1.0
                && let Some(end) = &self.end
            {
                side(end)
            } else if param.is_finite() {
                exact::orient3d_on_line(&a, &b, &c, &self.origin, &self.direction, param)
            } else if param > 0.0 {
                direction_side
            } else {
                -direction_side
            }
        };
        let start = (t_min == 0.0).then_some((self.origin, t_min, t_max));
        let end = self
            .end
            .filter(|_| t_max == 1.0)
            .map(|end| (end, t_max, t_min));
        for (point, t, other) in start.into_iter().chain(end) {
            if side(&point) != 0 || !exact::in_closed_triangle(&a, &b, &c, &point) {
                continue;
            }
            // A range of one point (`t_min = t_max`) has no other end: the
            // side the direction leads to stands in for it.
            let other = if t_min == t_max {
                if t == t_min {
                    direction_side
                } else {
                    -direction_side
                }
            } else {
                other_side(other)
            };
            if other == 0 || !(t <= t_cap) {
                // Edge-on, or beyond the caller's bound.
                continue;
            }
            // Arriving against the normal: from the front side at the end,
            // leaving towards the back at the start.
            let front_face = if t == t_min { other < 0 } else { other > 0 };
            let culled = match self.culling {
                FaceCulling::Off => false,
                FaceCulling::Back => !front_face,
                FaceCulling::Front => front_face,
            };
            if culled {
                continue;
            }
            let [w, u, v] = barycentric(&triangle, &point);
            return Some(TriangleHit {
                t,
                u,
                v,
                w,
                front_face,
            });
        }
        None
    }

    /// The exact verdict for a crossing whose triangle's depths reach
    /// `t_min` or `t_max`: the side of the triangle's plane of
    /// each end of the range, by exact orientation. Returns the `t` to
    /// report, or `None` when the exact crossing lies outside the range,
    /// and the end itself when it is an input point (the origin, or a
    /// segment's `b`) lying exactly in the plane: the crossing is then
    /// that point, whose barycentric weights the caller takes in `f64`
    /// (the rounded edge functions of a grazing line can be off by far
    /// more near a vertex).
    #[cold]
    #[inline(never)]
    pub(super) fn decide_range(
        &self,
        tri: &TriangleLanes,
        t: Real,
        t_min: Real,
        t_max: Real,
    ) -> Option<(Real, Option<Point>)> {
        #[cfg(test)]
        crate::test_support::count(crate::test_support::Work::ExactEndDecision);
        let [a, b, c] = tri.triangle().vertices();
        let (o, d) = (&self.origin, &self.direction);
        // The side, relative to the triangle's normal, of the range end at `param`.
        let side = |param: Real| -> i8 {
            if param == 0.0 {
                exact::sign(exact::orient3d(&a, &b, &c, o))
            } else if param == 1.0
                && let Some(end) = &self.end
            {
                exact::sign(exact::orient3d(&a, &b, &c, end))
            } else if param.is_finite() {
                exact::orient3d_on_line(&a, &b, &c, o, d, param)
            } else {
                // Infinitely far along the ray: the side the direction points
                // to, or the origin's side for a ray parallel to the plane.
                match exact::orient3d_on_line(&a, &b, &c, &a, d, 1.0) {
                    0 => exact::sign(exact::orient3d(&a, &b, &c, o)),
                    s if param > 0.0 => s,
                    s => -s,
                }
            }
        };
        let (start, end) = (side(t_min), side(t_max));
        let start_point = (t_min == 0.0).then_some(*o);
        let end_point = self.end.filter(|_| t_max == 1.0);
        match (start, end) {
            // A range of one point in the plane: that point (the rounded
            // test found the line through it to cross the triangle).
            (0, 0) if t_min == t_max => Some((t_min, start_point.or(end_point))),
            // The range lies in the plane: an edge-on ray, which never hits.
            (0, 0) => None,
            (0, _) => Some((t_min, start_point)),
            (_, 0) => Some((t_max, end_point)),
            _ if start == end => None,
            _ => Some((t.clamp(t_min, t_max), None)),
        }
    }
}

/// Barycentric weights `[w_a, w_b, w_c]` of a point in the triangle's plane,
/// in `f64` and clamped to `[0, 1]`: for hits decided by exact predicates,
/// where the rounded edge functions may be slightly negative.
pub(super) fn barycentric(tri: &Triangle, p: &Point) -> [Real; 3] {
    let w = |q: &Point| q.coords.map(f64::from);
    let (a, b, c, p) = (w(&tri.a), w(&tri.b), w(&tri.c), w(p));
    let n = (b - a).cross(&(c - a));
    let area = n.norm_squared();
    let weight = |u: &nalgebra::Vector3<f64>, v: &nalgebra::Vector3<f64>| {
        ((v - u).cross(&(p - u)).dot(&n) / area).clamp(0.0, 1.0) as Real
    };
    [weight(&b, &c), weight(&c, &a), weight(&a, &b)]
}

/// The smallest and largest of a triangle's vertex depths `z` (lanes 0 to
/// 2), each widened by `8u |z|max`: the depths are rounded by a few `u`
/// (the vertex minus the origin, the scale by `1/d_kz`, and the direction
/// itself when it is a segment's rounded `b − a`), and a computed `t`,
/// their weighted average, by a few more.
#[inline(always)]
pub(super) fn depth_hull(z: &Lanes) -> (Real, Real) {
    let lo = if z[0] < z[1] { z[0] } else { z[1] };
    let lo = if lo < z[2] { lo } else { z[2] };
    let hi = if z[0] > z[1] { z[0] } else { z[1] };
    let hi = if hi > z[2] { hi } else { z[2] };
    let margin = 8.0 * UNIT_ROUNDOFF * (if -lo > hi { -lo } else { hi });
    (lo - margin, hi + margin)
}

/// `t_min` and `t_max` widened by `8u` of their size: a box entered at or
/// before the first, or left at or after the second, may hold an end of
/// the range (the slab parameters of a point inside a box are off by a few
/// `u`), so its triangles take the exact endpoint decisions. Infinite ends
/// give NaN, which flags no box: nothing lies there.
#[must_use]
#[inline(always)]
pub(crate) fn end_thresholds(t_min: Real, t_max: Real) -> [Real; 2] {
    const WIDEN: Real = 8.0 * UNIT_ROUNDOFF;
    [t_min + WIDEN * t_min.abs(), t_max - WIDEN * t_max.abs()]
}
