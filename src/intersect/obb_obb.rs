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
