//! The moving separating-axis test: when a translating convex set first
//! touches a fixed one.
//!
//! Two convex sets overlap exactly when their projections overlap on every
//! axis of a complete candidate set (face normals and edge-pair cross
//! products for polytopes). Under a translation each projection moves
//! linearly, so each axis overlaps during one interval of time; the first
//! contact is the latest start of those intervals, if no interval has
//! ended by then (Ericson, *Real-Time Collision Detection* §5.5.8; Gomez
//! 1999 for two boxes). The axis that closes last is the contact normal.
//! In `f64`; an axis along which the set does not move either never
//! separates (no division) or rules contact out; candidate axes far
//! shorter than their size at right angles (parallel edges, degenerate
//! faces) are skipped, their directions being covered by the others.
//! Axes are not normalised: each time is a ratio of two projections on
//! the same axis, so its length cancels, and only the winning axis, the
//! contact normal, is made a unit vector (a square root and a division
//! per axis were most of a box–triangle sweep's time).

use nalgebra::Vector3;

pub(crate) type V64 = Vector3<f64>;

/// The first contact within `[0, t_max]` of a set `A` moving by `d` with a
/// fixed set `B`: its time (0 when they overlap at the start) and the unit
/// normal from `B` towards `A` of the axis that closed last (zero at a
/// start in contact). `axes` pairs each candidate with its size at right
/// angles; `a` and `b` give the sets' projection intervals (`A` at its
/// start) on an axis as given, which need not be a unit vector: any
/// padding must scale with its length. `None` when they stay apart.
#[inline]
pub(crate) fn first_overlap(
    axes: &[(V64, f64)],
    d: &V64,
    t_max: f64,
    a: impl Fn(&V64) -> (f64, f64),
    b: impl Fn(&V64) -> (f64, f64),
) -> Option<(f64, V64)> {
    let (mut enter, mut exit) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut normal = V64::zeros();
    for (l, size) in axes {
        if !(l.norm_squared() > (1e-12 * size).powi(2)) {
            continue;
        }
        let ((a_lo, a_hi), (b_lo, b_hi)) = (a(l), b(l));
        let v = d.dot(l);
        // Overlap while a_lo + v t ≤ b_hi and a_hi + v t ≥ b_lo.
        let (until, from) = (b_hi - a_lo, b_lo - a_hi);
        let (start, end, side) = if v == 0.0 {
            if from > 0.0 || until < 0.0 {
                return None;
            }
            (f64::NEG_INFINITY, f64::INFINITY, 0.0)
        } else if v > 0.0 {
            // Moving towards +l: A's high end reaches B's low end first, A
            // coming from B's −l side.
            (from / v, until / v, -1.0)
        } else {
            (until / v, from / v, 1.0)
        };
        if start > enter {
            enter = start;
            normal = l * side;
        }
        exit = exit.min(end);
        if enter > exit || exit < 0.0 || enter > t_max {
            return None;
        }
    }
    if enter <= 0.0 {
        return Some((0.0, V64::zeros()));
    }
    Some((enter, normal.normalize()))
}

/// The projection interval of `points` on `l`.
pub(crate) fn interval(points: &[V64], l: &V64) -> (f64, f64) {
    points
        .iter()
        .map(|p| p.dot(l))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        })
}
