//! A moving triangle against a fixed one: the time of first contact, the
//! contact point and normal; the leaf test of mesh-against-mesh sweeps.
//!
//! The moving separating-axis test ([`super::moving_sat`]) over a complete
//! axis set for two triangles: both normals, the nine cross products of
//! their edges, and each normal crossed with its own edges (the in-plane
//! axes that separate coplanar triangles; Möller 1997 treats that case
//! apart), in `f64`. For a triangle without area (a segment or a point)
//! those axes are not complete: there the first zero of the distance,
//! convex in time, is found by search (to `f32` rounding). The contact point is the
//! fixed triangle's point nearest to the moving one at the contact time.

use crate::intersect::triangle_distance;
use crate::math::{Real, Vector, is_finite_point, is_finite_vector};
use crate::shape::Triangle;
use crate::sweep::TriangleContact;
use crate::sweep::moving_sat::{V64, first_overlap, interval};

/// The first time in the frame at which `moving`, moved by `motion`,
/// touches the closed triangle `fixed`. Same conventions as
/// [`crate::sweep::sweep_sphere_triangle`]: touching counts, a start in
/// contact answers time 0, non-finite input answers `None`. The normal
/// points from `fixed` towards `moving`.
#[must_use]
pub fn sweep_triangle_triangle(
    moving: &Triangle,
    motion: &Vector,
    fixed: &Triangle,
) -> Option<TriangleContact> {
    let valid = moving.vertices().iter().all(is_finite_point)
        && fixed.vertices().iter().all(is_finite_point)
        && is_finite_vector(motion);
    if !valid {
        return None;
    }
    let wide = |t: &Triangle| t.vertices().map(|p| p.coords.cast::<f64>());
    let (a, b, d) = (wide(moving), wide(fixed), motion.cast::<f64>());
    let edges = |p: &[V64; 3]| [p[1] - p[0], p[2] - p[1], p[0] - p[2]];
    let (ea, eb) = (edges(&a), edges(&b));
    let (na, nb) = (ea[0].cross(&ea[1]), eb[0].cross(&eb[1]));
    let size = |e: &[V64; 3]| e[0].norm() * e[1].norm();
    if !(na.norm() > 1e-12 * size(&ea)) || !(nb.norm() > 1e-12 * size(&eb)) {
        return sweep_degenerate(moving, motion, fixed);
    }
    let mut axes = [(V64::zeros(), 0.0); 17];
    axes[0] = (na, size(&ea));
    axes[1] = (nb, size(&eb));
    for i in 0..3 {
        for j in 0..3 {
            axes[2 + 3 * i + j] = (ea[i].cross(&eb[j]), ea[i].norm() * eb[j].norm());
        }
        axes[11 + i] = (na.cross(&ea[i]), na.norm() * ea[i].norm());
        axes[14 + i] = (nb.cross(&eb[i]), nb.norm() * eb[i].norm());
    }
    let (time, normal) = first_overlap(&axes, &d, 1.0, |l| interval(&a, l), |l| interval(&b, l))?;
    // Where they touch: the fixed triangle's point nearest to the moved one.
    let shift = (d * time).cast::<Real>();
    let moved = Triangle::new(moving.a + shift, moving.b + shift, moving.c + shift);
    let at = triangle_distance(fixed, &moved);
    let normal = if normal.norm() > 0.0 {
        normal.cast::<Real>()
    } else {
        start_normal(fixed, &moved, motion)
    };
    Some(TriangleContact {
        time: (time as Real).clamp(0.0, 1.0),
        point: at.p1,
        normal,
    })
}

/// The sweep when a triangle has no area (a segment or a point), where
/// the axis set above is not complete: the first zero of the triangles'
/// distance, which is convex in time, by a minimisation and a bisection
/// (to `f32` rounding of the distance).
fn sweep_degenerate(
    moving: &Triangle,
    motion: &Vector,
    fixed: &Triangle,
) -> Option<TriangleContact> {
    let moved = |t: Real| {
        let shift = motion * t;
        Triangle::new(moving.a + shift, moving.b + shift, moving.c + shift)
    };
    let gap = |t: Real| triangle_distance(&moved(t), fixed).distance;
    let contact = |time: Real| {
        let at = triangle_distance(fixed, &moved(time));
        Some(TriangleContact {
            time,
            point: at.p1,
            normal: start_normal(fixed, &moved(time), motion),
        })
    };
    if gap(0.0) <= 0.0 {
        return contact(0.0);
    }
    // Golden-section search for the least distance, stopping at the first
    // sample in contact (a flat run of zeros would otherwise draw it to
    // the run's edge), then bisection towards the start for the first zero.
    const PHI: Real = 0.618_034;
    let (mut lo, mut hi) = (0.0, 1.0);
    let mut touching = None;
    for _ in 0..40 {
        let (a, b) = (hi - PHI * (hi - lo), lo + PHI * (hi - lo));
        let (ga, gb) = (gap(a), gap(b));
        if ga <= 0.0 || gb <= 0.0 {
            touching = Some(if ga <= 0.0 { a } else { b });
            break;
        }
        if ga <= gb {
            hi = b;
        } else {
            lo = a;
        }
    }
    let at = touching.or_else(|| [lo, hi].into_iter().find(|&t| gap(t) <= 0.0))?;
    let (mut before, mut after) = (0.0, at);
    for _ in 0..40 {
        let mid = 0.5 * (before + after);
        if gap(mid) > 0.0 {
            before = mid;
        } else {
            after = mid;
        }
    }
    let mut result = contact(after)?;
    // The normal is the offset between the two just before the contact:
    // not at the bisection's last clear moment, where the gap is down to
    // rounding and its direction noise (a flipped normal in about 1 of
    // 130 degenerate sweeps), but at the first earlier moment whose gap
    // stands well clear of rounding.
    let scale = [moving, fixed]
        .iter()
        .flat_map(|t| t.vertices())
        .map(|v| v.coords.amax())
        .fold(motion.amax(), Real::max);
    let clear = [1e-4, 1e-3, 1e-2, 1e-1]
        .into_iter()
        .map(|back| triangle_distance(fixed, &moved((before - back).max(0.0))))
        .find(|gap| gap.distance > 1e-4 * scale)
        .unwrap_or_else(|| triangle_distance(fixed, &moved(before)));
    let offset = clear.p2 - clear.p1;
    if offset.norm() > 0.0 {
        result.normal = offset.normalize();
    }
    Some(result)
}

/// The normal for triangles already in contact: the fixed one's face
/// normal towards the moving one's side (against the motion when that is
/// unclear), or against the motion for a degenerate fixed triangle.
fn start_normal(fixed: &Triangle, moving: &Triangle, motion: &Vector) -> Vector {
    let n = fixed.scaled_normal();
    let towards = moving.centroid() - fixed.centroid();
    let unit = |v: Vector| {
        if v.norm() > 0.0 {
            v.normalize()
        } else {
            Vector::z()
        }
    };
    if n.norm() > 0.0 {
        let n = n.normalize();
        let side = n.dot(&towards);
        if side > 0.0 || (side == 0.0 && n.dot(motion) <= 0.0) {
            n
        } else {
            -n
        }
    } else {
        unit(-motion)
    }
}
