//! Bounding spheres of point sets, from cheap to exact.
//!
//! * [`sphere_from_aabb`]: the bounding box's centre, radius to the farthest point.
//! * [`ritter_sphere`]: J. Ritter, "An efficient bounding sphere", *Graphics
//!   Gems* (1990); Ericson, *Real-Time Collision Detection*, §4.3.2. Two
//!   passes; typically 5–20 % larger than the minimum.
//! * [`welzl_sphere`]: the minimum enclosing sphere (E. Welzl, "Smallest
//!   enclosing disks (balls and ellipsoids)", 1991), in the iterative form of
//!   the randomised incremental algorithm: the points are shuffled with a
//!   fixed seed and four nested loops replace the recursion, so the stack
//!   depth is constant and the expected time linear.
//!
//! All three compute in `f64` and round the centre to `f32` at the end. The
//! radius then comes from one final pass over the points: the larger of the
//! exact farthest distance from that centre (rounded up to `f32`) and the
//! smallest `f32` radius for which [`Sphere::contains_point`], with its own
//! `f32` rounding, accepts every point. So every point is contained both
//! exactly and as the crate tests containment; the price is a radius a few
//! `f32` ulps above the exact farthest distance, plus, against the true
//! minimum, the rounding of the centre (half an ulp per coordinate). A radius
//! beyond `f32::MAX` becomes `+inf`.
//!
//! Welzl's support spheres (through 2, 3 or 4 points) are computed in `f64`;
//! a support set that is degenerate up to rounding (collinear triple,
//! coplanar quadruple) — which exact arithmetic never produces — falls back
//! to the smallest sphere around that support set among its 2- and 3-point
//! spheres. A point counts as inside a candidate ball when its squared
//! distance exceeds the squared radius by at most the dimensionless factor
//! `1e-10`, far below `f32` resolution; the final pass restores exact
//! containment.

use crate::bounding_volume::Sphere;
use crate::math::{Point, Real, distance_squared_wide, is_finite_point};

type V64 = nalgebra::Vector3<f64>;

/// Why no sphere could be fitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SphereFitError {
    /// The input had no points.
    Empty,
    /// The point at `index` has a NaN or infinite coordinate.
    NonFinite {
        /// Index of the first offending point.
        index: usize,
    },
}

impl std::fmt::Display for SphereFitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SphereFitError::Empty => write!(f, "no points to bound"),
            SphereFitError::NonFinite { index } => write!(f, "point {index} is not finite"),
        }
    }
}

impl std::error::Error for SphereFitError {}

/// The sphere centred on the points' bounding box, through the farthest point.
///
/// # Errors
/// [`SphereFitError::Empty`] for no points, [`SphereFitError::NonFinite`] for
/// a NaN or infinite coordinate.
pub fn sphere_from_aabb(points: &[Point]) -> Result<Sphere, SphereFitError> {
    validate(points)?;
    let (lo, hi) = bounds(points);
    Ok(enclose(points, &((lo + hi) * 0.5)))
}

/// Ritter's approximate bounding sphere (Graphics Gems 1990; Ericson §4.3.2).
///
/// The initial sphere spans the most distant pair among the six axis-extreme
/// points; a second pass grows it just enough to reach each point outside it.
///
/// # Errors
/// As [`sphere_from_aabb`].
pub fn ritter_sphere(points: &[Point]) -> Result<Sphere, SphereFitError> {
    validate(points)?;
    let wide: Vec<V64> = points.iter().map(widen).collect();
    let mut extremes = Vec::with_capacity(6);
    for axis in 0..3 {
        let by_axis = |i: &usize, j: &usize| wide[*i][axis].total_cmp(&wide[*j][axis]);
        extremes.push((0..wide.len()).min_by(by_axis).unwrap_or(0));
        extremes.push((0..wide.len()).max_by(by_axis).unwrap_or(0));
    }
    let mut pair = (wide[0], wide[0]);
    for &i in &extremes {
        for &j in &extremes {
            if (wide[i] - wide[j]).norm_squared() > (pair.0 - pair.1).norm_squared() {
                pair = (wide[i], wide[j]);
            }
        }
    }
    let mut center = (pair.0 + pair.1) * 0.5;
    let mut radius = (pair.0 - pair.1).norm() * 0.5;
    for p in &wide {
        let distance = (p - center).norm();
        if distance > radius {
            let grown = 0.5 * (radius + distance);
            center += (p - center) * ((grown - radius) / distance);
            radius = grown;
        }
    }
    Ok(enclose(points, &center))
}

/// The minimum enclosing sphere (Welzl 1991), exact up to the rounding
/// described in the module documentation; expected linear time, constant stack.
///
/// # Errors
/// As [`sphere_from_aabb`].
pub fn welzl_sphere(points: &[Point]) -> Result<Sphere, SphereFitError> {
    validate(points)?;
    // Relative to the box centre, so that f64 rounding follows the cloud's size.
    let (lo, hi) = bounds(points);
    let origin = (lo + hi) * 0.5;
    let mut p: Vec<V64> = points.iter().map(|q| widen(q) - origin).collect();
    shuffle(&mut p);
    let mut ball = Ball::point(p[0]);
    for i in 1..p.len() {
        if ball.contains(&p[i]) {
            continue;
        }
        ball = Ball::point(p[i]);
        for j in 0..i {
            if ball.contains(&p[j]) {
                continue;
            }
            ball = Ball::diametral(p[i], p[j]);
            for k in 0..j {
                if ball.contains(&p[k]) {
                    continue;
                }
                ball = Ball::circumscribed_triangle([p[i], p[j], p[k]]);
                for l in 0..k {
                    if !ball.contains(&p[l]) {
                        ball = Ball::circumscribed_tetrahedron([p[i], p[j], p[k], p[l]]);
                    }
                }
            }
        }
    }
    Ok(enclose(points, &(ball.center + origin)))
}

fn validate(points: &[Point]) -> Result<(), SphereFitError> {
    if points.is_empty() {
        return Err(SphereFitError::Empty);
    }
    match points.iter().position(|p| !is_finite_point(p)) {
        Some(index) => Err(SphereFitError::NonFinite { index }),
        None => Ok(()),
    }
}

fn widen(p: &Point) -> V64 {
    p.coords.cast::<f64>()
}

/// The bounding box corners in `f64`, for a non-empty slice.
fn bounds(points: &[Point]) -> (V64, V64) {
    let first = widen(&points[0]);
    points
        .iter()
        .map(widen)
        .fold((first, first), |(lo, hi), p| (lo.inf(&p), hi.sup(&p)))
}

/// The sphere at `center` (rounded to `f32`) containing every point, with
/// the radius rule of the module documentation.
fn enclose(points: &[Point], center: &V64) -> Sphere {
    let center = Point::from(center.map(|c| c as Real));
    let wide_center = widen(&center);
    let farthest = points
        .iter()
        .map(|p| (widen(p) - wide_center).norm())
        .fold(0.0, f64::max);
    let mut radius = farthest as Real;
    if f64::from(radius) < farthest {
        radius = radius.next_up();
    }
    // Exactly the left-hand side of `Sphere::contains_point` (in `f64`, so
    // it never overflows: a set 2e20 across keeps a finite radius).
    let needed = points
        .iter()
        .map(|p| distance_squared_wide(p, &center))
        .fold(0.0, f64::max);
    // The exact farthest distance rounded up is at most an ulp or two
    // short of it; +inf (a radius beyond `f32::MAX`) ends the loop.
    while f64::from(radius) * f64::from(radius) < needed {
        radius = radius.next_up();
    }
    Sphere::new(center, radius)
}

/// Fisher–Yates with a fixed-seed SplitMix64, so results are reproducible.
fn shuffle(points: &mut [V64]) {
    let mut state: u64 = 0x5EED_B0C5_7EE5_0F17;
    for i in (1..points.len()).rev() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        points.swap(i, (z % (i as u64 + 1)) as usize);
    }
}

/// A candidate ball of Welzl's algorithm, in `f64`.
#[derive(Clone, Copy, Debug)]
struct Ball {
    center: V64,
    radius_squared: f64,
}

/// Dimensionless slack of [`Ball::contains`] on squared distances.
const CONTAINS_SLACK: f64 = 1e-10;

/// Below this squared sine of a triangle's angle (or the analogous normalised
/// volume of a tetrahedron) a support set counts as degenerate.
const DEGENERATE: f64 = 1e-24;

impl Ball {
    fn point(center: V64) -> Self {
        Self {
            center,
            radius_squared: 0.0,
        }
    }

    /// The smallest ball with `a` and `b` on its boundary.
    fn diametral(a: V64, b: V64) -> Self {
        Self {
            center: (a + b) * 0.5,
            radius_squared: (b - a).norm_squared() * 0.25,
        }
    }

    fn through(center: V64, on_boundary: &[V64]) -> Self {
        let radius_squared = on_boundary
            .iter()
            .map(|p| (p - center).norm_squared())
            .fold(0.0, f64::max);
        Self {
            center,
            radius_squared,
        }
    }

    fn contains(&self, p: &V64) -> bool {
        (p - self.center).norm_squared() <= self.radius_squared * (1.0 + CONTAINS_SLACK)
    }

    /// The smallest ball with all three points on its boundary: the
    /// circumcircle's centre `a + (|u|² (v × n) + |v|² (n × u)) / (2 |n|²)` with
    /// `u = b − a`, `v = c − a`, `n = u × v`.
    fn circumscribed_triangle(points: [V64; 3]) -> Self {
        let [a, b, c] = points;
        let (u, v) = (b - a, c - a);
        let n = u.cross(&v);
        let n2 = n.norm_squared();
        if n2 <= DEGENERATE * u.norm_squared() * v.norm_squared() {
            return Self::smallest_around(&points);
        }
        let offset = (v.cross(&n) * u.norm_squared() + n.cross(&u) * v.norm_squared()) / (2.0 * n2);
        Self::through(a + offset, &points)
    }

    /// The ball with all four points on its boundary: with `a` at the origin,
    /// the centre solves `2 [b; c; d] x = [|b|², |c|², |d|²]` (Cramer's rule).
    fn circumscribed_tetrahedron(points: [V64; 4]) -> Self {
        let [a, b, c, d] = points;
        let (u, v, w) = (b - a, c - a, d - a);
        let det = u.dot(&v.cross(&w));
        let scale = u.norm_squared() * v.norm_squared() * w.norm_squared();
        if det * det <= DEGENERATE * scale {
            return Self::smallest_around(&points);
        }
        let offset = (v.cross(&w) * u.norm_squared()
            + w.cross(&u) * v.norm_squared()
            + u.cross(&v) * w.norm_squared())
            / (2.0 * det);
        Self::through(a + offset, &points)
    }

    /// For a degenerate support set: among the balls through two or three of
    /// the points (non-degenerate triples only), the one whose farthest point
    /// is nearest.
    fn smallest_around(points: &[V64]) -> Self {
        let mut best = Self::through(points[0], points);
        let mut consider = |center: V64| {
            let ball = Self::through(center, points);
            if ball.radius_squared < best.radius_squared {
                best = ball;
            }
        };
        for i in 0..points.len() {
            for j in i + 1..points.len() {
                consider((points[i] + points[j]) * 0.5);
                for k in j + 1..points.len() {
                    let (u, v) = (points[j] - points[i], points[k] - points[i]);
                    let n = u.cross(&v);
                    let n2 = n.norm_squared();
                    if n2 > DEGENERATE * u.norm_squared() * v.norm_squared() {
                        consider(
                            points[i]
                                + (v.cross(&n) * u.norm_squared() + n.cross(&u) * v.norm_squared())
                                    / (2.0 * n2),
                        );
                    }
                }
            }
        }
        best
    }
}
