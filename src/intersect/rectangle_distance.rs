//! The distance between two rectangles in space: what bounds a pair of
//! rectangle swept spheres ([`crate::bounding_volume::Rss`]) in mesh
//! distance queries (Larsen, Gottschalk, Lin, Manocha, "Fast Proximity
//! Queries with Swept Sphere Volumes", 1999).
//!
//! Two convex polygons that do not meet come nearest at a side of each
//! (segment–segment, Ericson, *Real-Time Collision Detection* §5.1.9) or at
//! a corner of one and the face of the other (point–rectangle, §5.1.4):
//! whichever point of the pair lies inside its polygon can slide towards
//! the other until it meets a side, unless the offset is normal to that
//! polygon. They meet exactly when a side of one passes through the other
//! (crossing), or, lying in one plane, a corner of one lies in the other or
//! two sides cross; those cases answer 0 through the same candidates.

use crate::bounding_volume::Rss;
use crate::intersect::closest_points_segments;
use crate::math::{Point, Real, Vector};
use crate::shape::{Rectangle, Segment};

/// The distance between two rectangles, 0 when they touch or cross.
/// Rounded like any `f32` distance (a few ulps of the coordinates); a side
/// passing within rounding of the other rectangle's rim may answer that
/// small distance instead of 0.
///
/// Computed in `a`'s frame, where its sides are axis-parallel: the
/// corner–face candidates are clamps, and a side pair is solved only when
/// the sides' boxes lie nearer than the best candidate so far.
#[must_use]
pub fn rectangle_distance(a: &Rectangle, b: &Rectangle) -> Real {
    let [ax, ay] = a.axes;
    let az = ax.cross(&ay);
    let to_a = |v: &Vector| Vector::new(v.dot(&ax), v.dot(&ay), v.dot(&az));
    let [ha, ka] = a.half_lengths;
    let [hb, kb] = b.half_lengths;
    // B in A's frame: its centre, unit axes and normal.
    let c = to_a(&(b.center - a.center));
    let (bu, bv) = (to_a(&b.axes[0]), to_a(&b.axes[1]));
    let bn = bu.cross(&bv);
    let (p, q) = (bu * hb, bv * kb);
    let corners_b = [c - p - q, c + p - q, c + p + q, c - p + q];
    let corners_a = [
        Vector::new(-ha, -ka, 0.0),
        Vector::new(ha, -ka, 0.0),
        Vector::new(ha, ka, 0.0),
        Vector::new(-ha, ka, 0.0),
    ];
    // A's corners in B's frame.
    let in_b = corners_a.map(|k| {
        let r = k - c;
        Vector::new(r.dot(&bu), r.dot(&bv), r.dot(&bn))
    });
    if sides_cross(&corners_b, [ha, ka]) || sides_cross(&in_b, [hb, kb]) {
        return 0.0;
    }
    let outside = |x: Real, h: Real| (x.abs() - h).max(0.0);
    let to_face = |k: &Vector, [h, g]: [Real; 2]| {
        let (dx, dy) = (outside(k.x, h), outside(k.y, g));
        dx * dx + dy * dy + k.z * k.z
    };
    let mut least = Real::INFINITY;
    for k in &corners_b {
        least = least.min(to_face(k, [ha, ka]));
    }
    for k in &in_b {
        least = least.min(to_face(k, [hb, kb]));
    }
    // A side pair whose boxes lie at least as far apart as the best so far
    // cannot do better: skipped without the segment–segment solve.
    let side = |k: &[Vector; 4], i: usize| (Point::from(k[i]), Point::from(k[(i + 1) % 4]));
    for j in 0..4 {
        let (b0, b1) = side(&corners_b, j);
        let (lo_b, hi_b) = (b0.inf(&b1), b0.sup(&b1));
        for i in 0..4 {
            let (a0, a1) = side(&corners_a, i);
            let (lo, hi) = (a0.inf(&a1), a0.sup(&a1));
            let apart = (lo_b - hi).sup(&(lo - hi_b)).sup(&Vector::zeros());
            if apart.norm_squared() >= least {
                continue;
            }
            let pair = closest_points_segments(&Segment::new(a0, a1), &Segment::new(b0, b1));
            least = least.min((pair.c1 - pair.c2).norm_squared());
        }
    }
    least.sqrt()
}

/// The distance between two rectangle swept spheres: their core
/// rectangles' distance less both radii, 0 when they touch.
#[must_use]
pub fn rss_distance(a: &Rss, b: &Rss) -> Real {
    let core = rectangle_distance(&Rectangle::from(a), &Rectangle::from(b));
    (core - a.radius - b.radius).max(0.0)
}

/// True when a side of the polygon `corners` (in order, in the frame of a
/// rectangle of half lengths `half` in the plane `z = 0`) passes through
/// that rectangle: its ends lie on opposite sides of the plane, or one on
/// it, and the crossing point lies within the rectangle. A side in the
/// plane is left to the corner and side-pair candidates.
#[inline(always)]
fn sides_cross(corners: &[Vector; 4], [h, g]: [Real; 2]) -> bool {
    (0..4).any(|i| {
        let (p, q) = (corners[i], corners[(i + 1) % 4]);
        let (d0, d1) = (p.z, q.z);
        if (d0 > 0.0 && d1 > 0.0) || (d0 < 0.0 && d1 < 0.0) || d0 == d1 {
            return false;
        }
        let at = p + (q - p) * (d0 / (d0 - d1));
        at.x.abs() <= h && at.y.abs() <= g
    })
}
