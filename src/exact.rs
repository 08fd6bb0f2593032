//! Exact signs of orientation determinants for `f32` input.
//!
//! Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
//! Geometric Predicates" (1997): each predicate is first evaluated in `f64`
//! with a bound on its rounding error, which decides almost every case; the
//! rest are summed exactly as floating-point expansions. Products of up to
//! four `f32` values neither overflow nor underflow in `f64`, so the signs are
//! the exact signs for the given coordinates at any scale.
//!
//! Used where a decision must not depend on how a formula rounds: the
//! triangle–triangle test, degenerate-triangle detection, and the endpoints of
//! segments that start or end exactly on a triangle.

use crate::math::{Point, Real, Vector};
use smallvec::SmallVec;

/// -1, 0 or 1: the sign of `x` (0 for NaN).
#[must_use]
pub(crate) fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Shewchuk's `ε`: half an ulp of 1 in `f64`.
const EPSILON: f64 = f64::EPSILON / 2.0;
/// Relative error bound of the `f64` evaluation of [`orient3d`] (Shewchuk's `o3derrboundA`).
const ORIENT3D_BOUND: f64 = (7.0 + 56.0 * EPSILON) * EPSILON;
/// Relative error bound of the `f64` evaluation of [`orient2d`] (Shewchuk's `ccwerrboundA`).
const ORIENT2D_BOUND: f64 = (3.0 + 16.0 * EPSILON) * EPSILON;
/// A generous relative bound for [`orient3d_on_line`]'s `f64` evaluation:
/// each part is a few roundings deep (differences, two products, a sum, a
/// scale by `t`, the final sum), so 16 ε over the sums of absolute terms
/// covers it with room to spare.
const ON_LINE_BOUND: f64 = 16.0 * EPSILON;

/// `((b − a) × (c − a)) · (d − a)`, positive when `d` lies on the side the
/// normal of the counter-clockwise triangle `a b c` points to. Only the sign
/// is exact; the magnitude is approximate.
#[must_use]
pub(crate) fn orient3d(a: &Point, b: &Point, c: &Point, d: &Point) -> f64 {
    let w = |p: &Point| p.coords.map(f64::from);
    let (a64, b64, c64, d64) = (w(a), w(b), w(c), w(d));
    // Shewchuk's evaluation order, which computes det[a−d, b−d, c−d] = −orient.
    let ad = a64 - d64;
    let bd = b64 - d64;
    let cd = c64 - d64;
    let bdxcdy = bd.x * cd.y;
    let cdxbdy = cd.x * bd.y;
    let cdxady = cd.x * ad.y;
    let adxcdy = ad.x * cd.y;
    let adxbdy = ad.x * bd.y;
    let bdxady = bd.x * ad.y;
    let det = ad.z * (bdxcdy - cdxbdy) + bd.z * (cdxady - adxcdy) + cd.z * (adxbdy - bdxady);
    let permanent = (bdxcdy.abs() + cdxbdy.abs()) * ad.z.abs()
        + (cdxady.abs() + adxcdy.abs()) * bd.z.abs()
        + (adxbdy.abs() + bdxady.abs()) * cd.z.abs();
    if permanent == 0.0 {
        // Every product is exactly zero (no f64 underflow from f32 input).
        return 0.0;
    }
    let bound = ORIENT3D_BOUND * permanent;
    if det > bound || -det > bound {
        return -det;
    }
    let mut sum = Expansion::new();
    add_orient3d_terms(&mut sum, a, b, c, d);
    sum.sign()
}

/// The sign of [`orient3d`]`(a, b, c, o + t·d)` for the exact point
/// `o + t·d`, which `f32` arithmetic could only round: by linearity it is
/// `orient3d(a, b, c, o) + t · (d · n)` with `n = a×b + b×c + c×a`, the
/// triangle's unnormalised normal. Finite input only.
#[must_use]
pub(crate) fn orient3d_on_line(
    a: &Point,
    b: &Point,
    c: &Point,
    o: &Point,
    d: &Vector,
    t: Real,
) -> i8 {
    // Filter: both parts in f64 with their sums of absolute terms.
    let w = |p: &Vector| p.map(f64::from);
    let (a64, b64, c64, o64, d64) = (w(&a.coords), w(&b.coords), w(&c.coords), w(&o.coords), w(d));
    let (u, v, x) = (b64 - a64, c64 - a64, o64 - a64);
    let n = u.cross(&v);
    let n_abs = Vector3d::new(
        (u.y * v.z).abs() + (u.z * v.y).abs(),
        (u.z * v.x).abs() + (u.x * v.z).abs(),
        (u.x * v.y).abs() + (u.y * v.x).abs(),
    );
    let t64 = f64::from(t);
    let value = n.dot(&x) + t64 * n.dot(&d64);
    let permanent = n_abs.dot(&x.abs()) + t64.abs() * n_abs.dot(&d64.abs());
    if permanent == 0.0 {
        return 0;
    }
    if value.abs() > ON_LINE_BOUND * permanent {
        return sign(value);
    }
    let mut sum = Expansion::new();
    add_orient3d_terms(&mut sum, a, b, c, o);
    // t · d · (b×c − a×c + a×b), each term a product of four f32 values.
    for (s, p, q) in [(1.0, b, c), (-1.0, a, c), (1.0, a, b)] {
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            sum.add_product(s, &[t, d[i], p[j], q[k]]);
            sum.add_product(-s, &[t, d[i], p[k], q[j]]);
        }
    }
    sign(sum.sign())
}

type Vector3d = nalgebra::Vector3<f64>;

/// Adds `det[b,c,d] − det[a,c,d] + det[a,b,d] − det[a,b,c]` (the expansion of
/// `((b − a) × (c − a)) · (d − a)`): 24 products of three `f32` coordinates.
fn add_orient3d_terms(sum: &mut Expansion, a: &Point, b: &Point, c: &Point, d: &Point) {
    for (sign, x, y, z) in [
        (1.0, b, c, d),
        (-1.0, a, c, d),
        (1.0, a, b, d),
        (-1.0, a, b, c),
    ] {
        // x · (y × z), each term a product of three coordinates.
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            sum.add_product(sign, &[x[i], y[j], z[k]]);
            sum.add_product(-sign, &[x[i], y[k], z[j]]);
        }
    }
}

/// `(b − a) × (c − a)`, positive when `a b c` turn counter-clockwise. Only the
/// sign is exact.
#[must_use]
pub(crate) fn orient2d(a: &[Real; 2], b: &[Real; 2], c: &[Real; 2]) -> f64 {
    let w = |p: &[Real; 2]| [f64::from(p[0]), f64::from(p[1])];
    let (a, b, c) = (w(a), w(b), w(c));
    let left = (a[0] - c[0]) * (b[1] - c[1]);
    let right = (a[1] - c[1]) * (b[0] - c[0]);
    let det = left - right;
    let permanent = left.abs() + right.abs();
    if permanent == 0.0 {
        return 0.0;
    }
    let bound = ORIENT2D_BOUND * permanent;
    if det > bound || -det > bound {
        return det;
    }
    // a × b + b × c + c × a; each product of two f32 values is exact in f64.
    let mut sum = Expansion::new();
    for (p, q) in [(a, b), (b, c), (c, a)] {
        sum.add(p[0] * q[1]);
        sum.add(-(p[1] * q[0]));
    }
    sum.sign()
}

/// True when `p`, lying exactly in the plane of the proper triangle `a b c`,
/// lies in the closed triangle (edges and vertices included): decided in
/// the coordinate plane onto which the triangle projects one-to-one, where
/// `p` may not be strictly outside any edge. `false` for degenerate
/// triangles.
#[must_use]
pub(crate) fn in_closed_triangle(a: &Point, b: &Point, c: &Point, p: &Point) -> bool {
    let project = |q: &Point, axis: usize| [q[(axis + 1) % 3], q[(axis + 2) % 3]];
    for axis in [2, 0, 1] {
        let [a2, b2, c2, p2] = [a, b, c, p].map(|q| project(q, axis));
        let orientation = sign(orient2d(&a2, &b2, &c2));
        if orientation != 0 {
            return [(a2, b2), (b2, c2), (c2, a2)]
                .iter()
                .all(|(u, v)| sign(orient2d(u, v, &p2)) != -orientation);
        }
    }
    false
}

/// An exact sum of `f64` values: a non-overlapping expansion in increasing
/// magnitude without zeros (Shewchuk's `grow_expansion_zeroelim`).
struct Expansion {
    parts: SmallVec<[f64; 32]>,
}

impl Expansion {
    fn new() -> Self {
        Self {
            parts: SmallVec::new(),
        }
    }

    /// Adds `x` exactly.
    fn add(&mut self, x: f64) {
        let mut q = x;
        let mut kept = 0;
        for i in 0..self.parts.len() {
            let (s, err) = two_sum(q, self.parts[i]);
            q = s;
            if err != 0.0 {
                self.parts[kept] = err;
                kept += 1;
            }
        }
        self.parts.truncate(kept);
        if q != 0.0 {
            self.parts.push(q);
        }
    }

    /// Adds `sign · Π factors` exactly for two to four `f32` factors. The
    /// product of two is exact in `f64`; each further factor splits every
    /// term into halves of at most 26 bits (Veltkamp), whose products with a
    /// 24-bit factor are exact again.
    fn add_product(&mut self, sign: f64, factors: &[Real]) {
        let mut terms: SmallVec<[f64; 4]> = SmallVec::new();
        terms.push(sign * f64::from(factors[0]) * f64::from(factors[1]));
        for &factor in &factors[2..] {
            let factor = f64::from(factor);
            let mut next = SmallVec::new();
            for term in terms {
                let (hi, lo) = split(term);
                next.push(hi * factor);
                next.push(lo * factor);
            }
            terms = next;
        }
        for term in terms {
            self.add(term);
        }
    }

    /// The sign of the sum: that of its largest component.
    fn sign(&self) -> f64 {
        self.parts.last().copied().unwrap_or(0.0)
    }
}

/// `a + b` as the rounded sum and its exact error (Knuth's two-sum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bv = s - a;
    let av = s - bv;
    (s, (a - av) + (b - bv))
}

/// Veltkamp's split of `a` into `hi + lo`, each with at most 26 significant bits.
fn split(a: f64) -> (f64, f64) {
    const SPLITTER: f64 = 134_217_729.0; // 2^27 + 1
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact rational check: coordinates that are small multiples of a power
    /// of two, so that the `f64` determinant of integers is exact.
    #[test]
    fn orientation_on_a_line_matches_integer_arithmetic() {
        let mut next = crate::test_support::xorshift(0x1234_5678_9abc_def1);
        let mut small = move || ((next() % 33) as i64 - 16) as Real;
        for _ in 0..20_000 {
            let mut p = || Point::new(small(), small(), small());
            let (a, b, c, o) = (p(), p(), p(), p());
            let d = Vector::new(small(), small(), small());
            let t = small() * 0.25;
            let exact = {
                let e = o + d * t; // exact: small integers times a quarter
                let n = (b - a).cross(&(c - a));
                let s = n.map(f64::from).dot(&(e - a).map(f64::from));
                sign(s)
            };
            assert_eq!(orient3d_on_line(&a, &b, &c, &o, &d, t), exact);
        }
    }

    #[test]
    fn tiny_differences_at_huge_scale_keep_their_sign() {
        // The point lies one ulp of 2^40 off the plane z = 2^40 through a
        // huge triangle: every f64 evaluation of the naive formula cancels.
        let big = (1u64 << 40) as Real;
        let (a, b, c) = (
            Point::new(0.0, 0.0, big),
            Point::new(big, 0.0, big),
            Point::new(0.0, big, big),
        );
        let above = Point::new(3.0, 5.0, big + 2f32.powi(17));
        assert_eq!(sign(orient3d(&a, &b, &c, &above)), 1);
        // The same point reached as o + t·d from far below.
        let o = Point::new(3.0, 5.0, 0.0);
        let d = Vector::new(0.0, 0.0, big + 2f32.powi(17));
        assert_eq!(orient3d_on_line(&a, &b, &c, &o, &d, 1.0), 1);
        assert_eq!(orient3d_on_line(&a, &b, &c, &o, &d, 0.5), -1);
        let on = Vector::new(0.0, 0.0, big);
        assert_eq!(orient3d_on_line(&a, &b, &c, &o, &on, 1.0), 0);
    }
}
