//! A moving oriented box against a fixed triangle: the time of first
//! contact, the contact point and normal.
//!
//! The moving separating-axis test ([`super::moving_sat`]) over the box's
//! three face normals, the triangle's normal and the nine cross products
//! of box and triangle edge directions (Gottschalk 1996; Akenine-Möller,
//! "Fast 3D Triangle-Box Overlap Testing", 2001), in `f64`. Touching
//! counts; a degenerate triangle (a segment or a point) contributes the
//! axes it has. The contact point is the centre of the
//! region where the triangle meets the box at the contact time (the
//! triangle clipped by the box grown by 64 `f32` ulps of the largest
//! coordinate involved: far from the origin that is much more than the
//! box's own rounding, about 0.2 at 3e4 around a unit box).

use crate::bounding_volume::Obb;
use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::Triangle;
use crate::sweep::moving_sat::{V64, first_overlap, interval};
use crate::sweep::{TriangleContact, swept_box_meets};

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
    if !valid || !swept_box_meets(&obb.to_aabb(), 0.0, motion, tri) {
        return None;
    }
    let (time, mut normal) = box_first(obb, motion, tri, 1.0)?;
    let wide = |v: &Vector| v.cast::<f64>();
    let centre = wide(&obb.center.coords);
    let axes: [V64; 3] = std::array::from_fn(|i| wide(&obb.axes.column(i).into_owned()));
    let (half, d) = (wide(&obb.half_extents), wide(motion));
    let corners = tri.vertices().map(|p| wide(&p.coords));
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

/// [`sweep_box_triangle`]'s time alone, when it is at most `t_max`: for
/// descents that keep only the earliest contact, which have checked the
/// cast and the triangle's box.
pub(crate) fn box_triangle_time(
    obb: &Obb,
    motion: &Vector,
    tri: &Triangle,
    t_max: Real,
) -> Option<Real> {
    box_first(obb, motion, tri, f64::from(t_max)).map(|(t, _)| (t as Real).clamp(0.0, 1.0))
}

/// The first contact time in `[0, t_max]` (in `f64`) and the normal of
/// the axis that closed last (zero at a start in contact), for valid input.
fn box_first(obb: &Obb, motion: &Vector, tri: &Triangle, t_max: f64) -> Option<(f64, V64)> {
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
    // Each axis with the size it would have at right angles (see
    // `moving_sat`): the box's faces, the triangle's, the edge pairs.
    let mut candidates = [(V64::zeros(), 0.0); 13];
    for (i, a) in axes.iter().enumerate() {
        candidates[i] = (*a, a.norm());
        for (j, e) in edges.iter().enumerate() {
            candidates[4 + 3 * i + j] = (a.cross(e), a.norm() * e.norm());
        }
    }
    candidates[3] = (edges[0].cross(&edges[1]), edges[0].norm() * edges[1].norm());
    let box_interval = |l: &V64| {
        let reach: f64 = (0..3).map(|i| half[i] * axes[i].dot(l).abs()).sum();
        let c = centre.dot(l);
        (c - reach, c + reach)
    };
    first_overlap(&candidates, &d, t_max, box_interval, |l| {
        interval(&corners, l)
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
/// `axes`, `half` extents), the box grown by 64 `f32` ulps of the largest
/// coordinate so that a touching contact keeps a sliver (the contact time
/// is an `f32`, and positions at it carry that rounding); the triangle's vertex
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
