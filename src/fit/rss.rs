//! Fitting rectangle swept spheres ([`Rss`]) around points and balls.
//!
//! As PQP does (Larsen et al. 1999): in a given frame, the rectangle lies
//! across the two directions of largest spread and the radius covers the
//! third. The radius is half the spread along the normal, so the slab of
//! the inputs is exactly covered; each side of the rectangle is then pulled
//! in as far as every input still lies within the radius of it (an input at
//! depth `z` off the mid-plane reaches `√(r² − z²)` beyond the side), and a
//! last pass grows the radius for inputs near a corner, which the sides
//! alone do not account for. All in `f64`, and the radius is padded by a few
//! `f32` ulps of the coordinates so that the `f32` volume contains every
//! input as [`Rss::contains_point_within`] computes it.

use crate::bounding_volume::Rss;
use crate::math::{Matrix, Point, Real, Vector, is_finite_point};
use nalgebra::Vector3;

type V64 = Vector3<f64>;

/// Radius padding, in `f32` ulps of the largest coordinate involved.
const PADDING_ULPS: f64 = 8.0;

/// The swept rectangle in the frame `axes` (columns, orthonormal) around
/// balls `(centre, radius)` (points have radius 0): the rectangle spans
/// the two axes along which the balls spread most. `None` for no balls or
/// any non-finite input.
#[must_use]
pub fn rss_with_axes(balls: &[(Point, Real)], axes: &Matrix) -> Option<Rss> {
    if balls.is_empty()
        || !balls
            .iter()
            .all(|(p, r)| is_finite_point(p) && r.is_finite() && *r >= 0.0)
        || !axes.iter().all(|x| x.is_finite())
    {
        return None;
    }
    let frame = axes.cast::<f64>();
    let local: Vec<(V64, f64)> = balls
        .iter()
        .map(|(p, r)| (frame.tr_mul(&p.coords.cast::<f64>()), f64::from(*r)))
        .collect();
    let (lo, hi) = local.iter().fold(
        (V64::repeat(f64::INFINITY), V64::repeat(f64::NEG_INFINITY)),
        |(lo, hi), (p, r)| (lo.inf(&p.add_scalar(-r)), hi.sup(&p.add_scalar(*r))),
    );
    let spread = hi - lo;
    // The normal is the axis of least spread; the rectangle's first axis
    // the one of most.
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| spread[j].total_cmp(&spread[i]));
    let [first, second, normal] = order;
    let mut radius = 0.5 * spread[normal];
    let depth_mid = 0.5 * (lo[normal] + hi[normal]);
    // How far beyond each side a ball may reach and still lie inside.
    let reach = |(p, r): &(V64, f64)| {
        let depth = p[normal] - depth_mid;
        ((radius - r).powi(2) - depth * depth).max(0.0).sqrt()
    };
    let mut sides = [[0.0f64; 2]; 2];
    for (k, &axis) in [first, second].iter().enumerate() {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for ball in &local {
            let x = ball.0[axis];
            let slack = reach(ball);
            low = low.min(x + slack);
            high = high.max(x - slack);
        }
        if low > high {
            let mid = 0.5 * (low + high);
            (low, high) = (mid, mid);
        }
        sides[k] = [low, high];
    }
    // Balls near a corner may stick out where both sides were pulled in.
    for (p, r) in &local {
        let outside =
            |axis: usize, [low, high]: [f64; 2]| (low - p[axis]).max(p[axis] - high).max(0.0);
        let (du, dv) = (outside(first, sides[0]), outside(second, sides[1]));
        let dz = p[normal] - depth_mid;
        radius = radius.max((du * du + dv * dv + dz * dz).sqrt() + r);
    }
    let mut center = V64::zeros();
    center[first] = 0.5 * (sides[0][0] + sides[0][1]);
    center[second] = 0.5 * (sides[1][0] + sides[1][1]);
    center[normal] = depth_mid;
    let center_world = frame * center;
    let scale = local
        .iter()
        .map(|(p, r)| p.amax() + r)
        .fold(center_world.amax(), f64::max);
    let pad = PADDING_ULPS * f64::from(Real::EPSILON) * scale;
    let half = |[low, high]: [f64; 2]| (0.5 * (high - low)) as Real;
    let column = |i: usize| -> Vector { axes.column(i).into_owned() };
    Some(Rss::new(
        Point::from(center_world.cast::<Real>()),
        [column(first), column(second)],
        [half(sides[0]), half(sides[1])],
        (radius + pad) as Real,
    ))
}
