//! The 15-axis separating-axis test for two oriented boxes.
//!
//! Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996) §4; Ericson,
//! *Real-Time Collision Detection* §4.4.1. Box B is expressed in A's frame by
//! a rotation `R` (column `j` = B's axis `j` in A's coordinates) and a
//! translation `t`; the candidate axes are A's 3 axes, B's 3 axes and the 9
//! cross products `Aᵢ × Bⱼ`.
//!
//! The listing bug this fixes: when an edge of A is (nearly) parallel to an
//! edge of B, `Aᵢ × Bⱼ` is (nearly) the zero vector, both the projected radii
//! and the projected distance become rounding noise, and noise can "separate"
//! overlapping boxes. Adding [`PARALLEL_EPSILON`] to every `|Rᵢⱼ|` makes the
//! projected radii dominate that noise; the extra margin is relative to the
//! box sizes, so it never makes the test miss a real overlap and only admits
//! boxes that are within `1e-6` of their sizes of touching.

use crate::bounding_volume::Obb;
use crate::math::{Matrix, Real, Vector};
use crate::simd;

/// Added to each entry of `|R|`: a dimensionless guard (rotation entries lie in
/// `[-1, 1]`) against false separation on near-parallel edge pairs.
pub const PARALLEL_EPSILON: Real = 1e-6;

/// True when two boxes overlap (touching counts).
///
/// `a_half` and `b_half` are half-extents; `rotation` maps B's axes into A's
/// frame (`rotation = Aᵀ B`), `translation` is B's centre in A's frame. Tree
/// descent calls this with the relative transform computed once per query.
/// NaN in any input yields `true` (conservative: a NaN pose never prunes a
/// subtree silently; the leaf tests then reject NaN geometry).
#[must_use]
#[inline]
pub fn boxes_overlap(
    a_half: &Vector,
    b_half: &Vector,
    rotation: &Matrix,
    translation: &Vector,
) -> bool {
    let r = rotation;
    let abs_r = r.map(|x| x.abs() + PARALLEL_EPSILON);
    let (a, b, t) = (a_half, b_half, translation);

    // A's face axes.
    for i in 0..3 {
        let rb = b[0] * abs_r[(i, 0)] + b[1] * abs_r[(i, 1)] + b[2] * abs_r[(i, 2)];
        if t[i].abs() > a[i] + rb {
            return false;
        }
    }
    // B's face axes.
    for j in 0..3 {
        let ra = a[0] * abs_r[(0, j)] + a[1] * abs_r[(1, j)] + a[2] * abs_r[(2, j)];
        let dist = t[0] * r[(0, j)] + t[1] * r[(1, j)] + t[2] * r[(2, j)];
        if dist.abs() > ra + b[j] {
            return false;
        }
    }
    // Edge-edge axes Aᵢ × Bⱼ, with (i1, i2) and (j1, j2) the other two indices.
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let ra = a[i1] * abs_r[(i2, j)] + a[i2] * abs_r[(i1, j)];
            let rb = b[j1] * abs_r[(i, j2)] + b[j2] * abs_r[(i, j1)];
            let dist = t[i2] * r[(i1, j)] - t[i1] * r[(i2, j)];
            if dist.abs() > ra + rb {
                return false;
            }
        }
    }
    true
}

/// A 3×3 matrix's rows in lanes, `[m_k0, m_k1, m_k2, 0]`.
pub(crate) type Rows = [[Real; 4]; 3];

/// `m`'s rows in lanes.
#[inline(always)]
pub(crate) fn rows_of(m: &Matrix) -> Rows {
    std::array::from_fn(|k| [m[(k, 0)], m[(k, 1)], m[(k, 2)], 0.0])
}

/// [`boxes_overlap`] with `R` given by its rows: the same sums in the
/// same order, so the same answer, three axes per vector operation and no
/// early exits (`simd::boxes_overlap_rows`). In tree descents about half
/// the box pairs overlap and need all 15 axes anyway, and the exits'
/// branches mispredict for the others.
#[must_use]
#[inline(always)]
pub(crate) fn boxes_overlap_rows(a: &Vector, b: &Vector, rows: &Rows, t: &Vector) -> bool {
    let lanes = |v: &Vector| [v[0], v[1], v[2], 0.0];
    simd::boxes_overlap_rows(&lanes(a), &lanes(b), rows, &lanes(t), PARALLEL_EPSILON)
}

impl Obb {
    /// True when the two boxes overlap (touching counts); see [`boxes_overlap`].
    #[must_use]
    pub fn overlaps(&self, other: &Obb) -> bool {
        let rotation = self.axes.tr_mul(&other.axes);
        let translation = self.axes.tr_mul(&(other.center - self.center));
        boxes_overlap(
            &self.half_extents,
            &other.half_extents,
            &rotation,
            &translation,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rotation;
    use crate::test_support::{unit, xorshift};

    /// The rows form decides every pair as the scalar listing does: random
    /// boxes about to touch, near-parallel edges, NaN.
    #[test]
    fn rows_form_answers_as_the_scalar_test() {
        let (mut overlapping, mut checked) = (0, 0);
        for seed in 1..20_000u64 {
            let mut next = xorshift(seed);
            let mut value = move || unit(next()) * 2.0 - 1.0;
            let mut vector = |scale: Real| Vector::new(value(), value(), value()) * scale;
            let (a, b, t, turn) = (
                vector(1.0).abs(),
                vector(1.0).abs(),
                vector(2.0),
                vector(3.0),
            );
            let mut rotation = *Rotation::new(turn).to_rotation_matrix().matrix();
            match seed % 5 {
                // Near-parallel edges: a rotation about a coordinate axis.
                0 => {
                    rotation = *Rotation::new(Vector::z() * turn.x)
                        .to_rotation_matrix()
                        .matrix();
                }
                1 => rotation[(1, 2)] = Real::NAN,
                _ => {}
            }
            let expected = boxes_overlap(&a, &b, &rotation, &t);
            assert_eq!(
                boxes_overlap_rows(&a, &b, &rows_of(&rotation), &t),
                expected,
                "seed {seed}: {a:?} {b:?} {rotation:?} {t:?}"
            );
            overlapping += usize::from(expected);
            checked += 1;
        }
        assert!(
            overlapping > checked / 5 && overlapping < checked * 4 / 5,
            "{overlapping}"
        );
    }
}
