//! A moving triangle against a fixed one: the time of first contact, the
//! contact point and normal; the leaf test of mesh-against-mesh sweeps.
//!
//! The moving separating-axis test ([`super::moving_sat`]) over a complete
//! axis set for two triangles: both normals, the nine cross products of
//! their edges, and each normal crossed with its own edges (the in-plane
//! axes that separate coplanar triangles; Möller 1997 treats that case
//! apart), in `f64`. For a triangle without area (a segment or a point)
//! those axes are not complete, and the directions that separate flat
//! and one-dimensional sets are added (`degenerate_axes`). The contact point is the
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
    let (pa, pb) = (|l: &V64| interval(&a, l), |l: &V64| interval(&b, l));
    let (time, normal) = if !(na.norm() > 1e-12 * size(&ea)) || !(nb.norm() > 1e-12 * size(&eb)) {
        let mut all = [(V64::zeros(), 0.0); 17 + DEGENERATE_AXES];
        all[..17].copy_from_slice(&axes);
        all[17..].copy_from_slice(&degenerate_axes(&ea, &eb, &na, &nb, &d));
        first_overlap(&all, &d, 1.0, pa, pb)?
    } else {
        first_overlap(&axes, &d, 1.0, pa, pb)?
    };
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

/// Axes that complete the set above when a triangle has no area (a
/// segment or a point): the two sets' difference is then flat, a segment
/// or a point, whose separating directions are not all face normals or
/// edge products. Each triangle's normal crossed with the other's edges
/// (a segment in the other's plane); for a segment the direction itself,
/// and the two directions at right angles to it in and across the plane
/// it spans with the motion (any two when they are parallel); for points
/// the motion and two directions at right angles to it, and the world
/// axes (two points and no motion). A superset of a
/// complete set proves no false separation, so these serve every
/// degenerate pair. (A search for the distance's first zero had stood
/// here: a point crossing a face touches it for an instant, which no
/// sample found, and 15% of such sweeps were missed.)
fn degenerate_axes(
    ea: &[V64; 3],
    eb: &[V64; 3],
    na: &V64,
    nb: &V64,
    d: &V64,
) -> [(V64, f64); DEGENERATE_AXES] {
    let mut axes = [(V64::zeros(), 0.0); DEGENERATE_AXES];
    for i in 0..3 {
        axes[2 * i] = (nb.cross(&ea[i]), nb.norm() * ea[i].norm());
        axes[2 * i + 1] = (na.cross(&eb[i]), na.norm() * eb[i].norm());
    }
    let longest = |e: &[V64; 3]| {
        (e.iter().copied())
            .max_by(|x, y| x.norm_squared().total_cmp(&y.norm_squared()))
            .unwrap_or_else(V64::zeros)
    };
    // The unit axis least aligned with `v`, for a direction at right
    // angles to it whatever else is parallel.
    let across = |v: &V64| {
        let k = v.iamin();
        let mut u = V64::zeros();
        u[k] = 1.0;
        u
    };
    for (k, e) in [longest(ea), longest(eb), *d].into_iter().enumerate() {
        let (le, ld) = (e.norm(), d.norm());
        let (plane, u) = (e.cross(d), across(&e));
        let side = e.cross(&u);
        axes[6 + 5 * k..11 + 5 * k].copy_from_slice(&[
            (e, le),
            (plane, le * ld),
            (plane.cross(&e), le * le * ld),
            (side, le),
            (side.cross(&e), le * le),
        ]);
    }
    // The world axes span every direction where all of the above vanish
    // (two points, no motion).
    for (k, axis) in [V64::x(), V64::y(), V64::z()].into_iter().enumerate() {
        axes[21 + k] = (axis, 1.0);
    }
    axes
}

/// How many axes [`degenerate_axes`] adds.
const DEGENERATE_AXES: usize = 24;

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
