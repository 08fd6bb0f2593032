//! A moving oriented box against a fixed triangle: the time of first
//! contact, the contact point and normal.
//!
//! Two convex polytopes overlap exactly when their projections overlap on
//! every candidate separating axis: here the box's three face normals, the
//! triangle's normal and the nine cross products of box and triangle edge
//! directions (Gottschalk 1996; Akenine-Möller, "Fast 3D Triangle-Box
//! Overlap Testing", 2001). Under a translation each projection moves
//! linearly, so each axis overlaps during one interval of time; the first
//! contact is the latest of the intervals' starts, if it comes before the
//! earliest of their ends (the moving separating-axis test, Ericson,
//! *Real-Time Collision Detection* §5.5.8; Gomez 1999 for two boxes). The
//! axis that closes last is the contact normal.
//!
//! Computed in `f64` from the `f32` inputs. Fixed with respect to the
//! usual listings: an axis along which the box does not move either never
//! separates (no division by zero) or rules contact out; cross products of
//! parallel edges are skipped (their directions are covered by the face
//! axes); touching counts; a degenerate triangle (a segment or a point)
//! contributes the axes it has. The contact point is the centre of the
//! region where the triangle meets the box at the contact time (the
//! triangle clipped by the box grown by a few ulps).

use crate::bounding_volume::Obb;
use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::Triangle;
use crate::sweep::TriangleContact;
use nalgebra::Vector3;

type V64 = Vector3<f64>;

/// The first time in the frame at which `obb`, moved by `motion` (no
/// rotation), touches the closed triangle `tri`. Same conventions as
/// [`crate::sweep::sweep_sphere_triangle`]: touching counts, a box touching
/// or overlapping the triangle at `u = 0` answers time 0, and non-finite
/// input or negative half-extents answer `None`.
#[must_use]
pub fn sweep_box_triangle(obb: &Obb, motion: &Vector, tri: &Triangle) -> Option<TriangleContact> {
    let valid = is_finite_point(&obb.center)
        && obb.axes.iter().all(|x| x.is_finite())
        && obb.half_extents.iter().all(|h| h.is_finite() && *h >= 0.0)
        && is_finite_vector(motion)
        && tri.vertices().iter().all(is_finite_point);
    if !valid {
        return None;
    }
    // A cheap rejection: the box's bounds over the motion against the
    // triangle's, padded by a few ulps so that the exact test decides touching.
    let start = obb.to_aabb();
    let [a, b, c] = tri.vertices();
    let (lo, hi) = (
        start.min.inf(&(start.min + motion)),
        start.max.sup(&(start.max + motion)),
    );
    let (t_lo, t_hi) = (a.inf(&b).inf(&c), a.sup(&b).sup(&c));
    let scale = lo
        .coords
        .amax()
        .max(hi.coords.amax())
        .max(t_lo.coords.amax())
        .max(t_hi.coords.amax());
    let pad = 8.0 * Real::EPSILON * scale;
    if (0..3).any(|i| lo[i] - pad > t_hi[i] || t_lo[i] > hi[i] + pad) {
        return None;
    }
    let wide = |v: &Vector| v.cast::<f64>();
    let centre = wide(&obb.center.coords);
    let axes: [V64; 3] = std::array::from_fn(|i| wide(&obb.axes.column(i).into_owned()));
    let half = wide(&obb.half_extents);
    let d = wide(motion);
    let corners = tri.vertices().map(|p| wide(&p.coords));
    let edges = [
        corners[1] - corners[0],
        corners[2] - corners[1],
        corners[0] - corners[2],
    ];
    // Each axis with the size it would have at right angles: an axis far
    // shorter than that comes from parallel edges (or a degenerate
    // triangle) and is dropped.
    let mut candidates = [(V64::zeros(), 0.0); 13];
    for (i, a) in axes.iter().enumerate() {
        candidates[i] = (*a, a.norm());
        for (j, e) in edges.iter().enumerate() {
            candidates[4 + 3 * i + j] = (a.cross(e), a.norm() * e.norm());
        }
    }
    candidates[3] = (edges[0].cross(&edges[1]), edges[0].norm() * edges[1].norm());
    // The latest start and earliest end of the axes' overlap intervals.
    let (mut enter, mut exit) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut normal = V64::zeros();
    for (axis, size) in &candidates {
        let length = axis.norm();
        if !(length > 1e-12 * size) {
            continue;
        }
        let l = axis / length;
        let reach: f64 = (0..3).map(|i| half[i] * axes[i].dot(&l).abs()).sum();
        let c = centre.dot(&l);
        let (lo, hi) = corners
            .iter()
            .map(|p| p.dot(&l))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
        let v = d.dot(&l);
        // Overlap while c + v t − reach ≤ hi and c + v t + reach ≥ lo.
        let (below, above) = (hi - (c - reach), lo - (c + reach));
        let (start, end, side) = if v == 0.0 {
            if above > 0.0 || below < 0.0 {
                return None;
            }
            (f64::NEG_INFINITY, f64::INFINITY, 0.0)
        } else {
            let (t1, t2) = (above / v, below / v);
            // Moving towards +l, the box meets the triangle's low side:
            // the normal from the triangle to the box is −l.
            if v > 0.0 {
                (t1, t2, -1.0)
            } else {
                (t2, t1, 1.0)
            }
        };
        if start > enter {
            enter = start;
            normal = l * side;
        }
        exit = exit.min(end);
        if enter > exit || exit < 0.0 || enter > 1.0 {
            return None;
        }
    }
    let time = enter.max(0.0);
    if time == 0.0 {
        normal = start_normal(&centre, &corners, &d);
    }
    let point = contact_point(&(centre + d * time), &axes, &half, &corners);
    Some(TriangleContact {
        time: (time as Real).clamp(0.0, 1.0),
        point: Point::from(point.cast::<Real>()),
        normal: normal.cast::<Real>(),
    })
}

/// The normal for a box already in contact: from the triangle's nearest
/// vertex-centroid towards the box centre, or against the motion.
fn start_normal(centre: &V64, corners: &[V64; 3], d: &V64) -> V64 {
    let n = (corners[1] - corners[0]).cross(&(corners[2] - corners[0]));
    let towards = centre - (corners[0] + corners[1] + corners[2]) / 3.0;
    if n.norm() > 0.0 {
        let n = n.normalize();
        return if n.dot(&towards) >= 0.0 { n } else { -n };
    }
    let fallback = if towards.norm() > 0.0 { towards } else { -d };
    if fallback.norm() > 0.0 {
        fallback.normalize()
    } else {
        V64::z()
    }
}

/// The centre of the part of the triangle inside the box (centre `c`, unit
/// `axes`, `half` extents), the box grown by a few ulps of the coordinates
/// so that a touching contact keeps a sliver; the triangle's vertex
/// nearest to the box centre if rounding empties it anyway.
fn contact_point(c: &V64, axes: &[V64; 3], half: &V64, corners: &[V64; 3]) -> V64 {
    let scale = c.amax() + half.amax() + corners.iter().map(|p| p.amax()).fold(0.0, f64::max);
    let grow = 64.0 * f64::from(Real::EPSILON) * scale;
    let mut polygon: Vec<V64> = corners.to_vec();
    for i in 0..3 {
        for sign in [1.0, -1.0] {
            // Keep the side where sign · (p − c)·aᵢ ≤ halfᵢ + grow.
            let limit = half[i] + grow;
            let inside = |p: &V64| sign * (p - c).dot(&axes[i]) - limit;
            let mut clipped = Vec::with_capacity(polygon.len() + 1);
            for k in 0..polygon.len() {
                let (p, q) = (polygon[k], polygon[(k + 1) % polygon.len()]);
                let (fp, fq) = (inside(&p), inside(&q));
                if fp <= 0.0 {
                    clipped.push(p);
                }
                if (fp < 0.0 && fq > 0.0) || (fp > 0.0 && fq < 0.0) {
                    clipped.push(p + (q - p) * (fp / (fp - fq)));
                }
            }
            polygon = clipped;
            if polygon.is_empty() {
                return *corners
                    .iter()
                    .min_by(|a, b| (*a - c).norm().total_cmp(&(*b - c).norm()))
                    .expect("three corners");
            }
        }
    }
    polygon.iter().sum::<V64>() / polygon.len() as f64
}
