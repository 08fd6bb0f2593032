//! Scalar and linear-algebra aliases used throughout the crate.
//!
//! The whole crate computes in [`Real`] = `f32`, as games and Embree do:
//! robustness comes from watertight and epsilon-guarded formulations, not from
//! wider floats. Changing this alias is the one place to switch precision.

pub use nalgebra;

/// The scalar type of every coordinate, time and distance.
pub type Real = f32;
/// A position in 3-D space.
pub type Point = nalgebra::Point3<Real>;
/// A direction or displacement in 3-D space.
pub type Vector = nalgebra::Vector3<Real>;
/// A 3×3 matrix; for oriented boxes its columns are the box axes.
pub type Matrix = nalgebra::Matrix3<Real>;
/// A rigid motion (rotation then translation).
pub type Isometry = nalgebra::Isometry3<Real>;
/// A unit quaternion rotation.
pub type Rotation = nalgebra::UnitQuaternion<Real>;

/// True when every component of the point is finite (neither NaN nor ±inf).
#[must_use]
#[inline]
pub fn is_finite_point(p: &Point) -> bool {
    p.coords.iter().all(|c| c.is_finite())
}

/// True when every component of the vector is finite (neither NaN nor ±inf).
#[must_use]
#[inline]
pub fn is_finite_vector(v: &Vector) -> bool {
    v.iter().all(|c| c.is_finite())
}

/// `|a − b|²` of the `f32` difference, squared and summed in `f64`: in
/// `f32` it rounds to 0 below about 1e-22 and overflows above about 1.8e19,
/// so comparisons of tiny or huge distances need it.
#[must_use]
#[inline(always)]
pub(crate) fn distance_squared_wide(a: &Point, b: &Point) -> f64 {
    (a - b).cast::<f64>().norm_squared()
}

/// `r²` raised by the least normal `f32` number: squares of lengths below
/// about 1e-19 are subnormal (or 0), rounded by an absolute amount rather
/// than a relative one, so a pruning test `d² ≤ r²` among them must not
/// trust the last bits. Every nearest-point and sphere descent prunes
/// against this reach.
#[must_use]
#[inline(always)]
pub(crate) fn squared_reach(r: Real) -> Real {
    r * r + Real::MIN_POSITIVE
}

/// `|v|`, squared and summed in `f32` where that sum is a normal number
/// (or 0), else in `f64`: beyond about 1.8e19 the `f32` square is infinite,
/// and below about 1e-19 it is subnormal and rounds coarsely, and a bound
/// taken from it could prune what lies within reach.
#[must_use]
#[inline(always)]
pub(crate) fn length_wide(v: &Vector) -> Real {
    let squared = v.norm_squared();
    if squared.is_normal() || squared == 0.0 {
        squared.sqrt()
    } else {
        v.cast::<f64>().norm() as Real
    }
}

/// Bits of an id carried per float by [`id_to_lanes`].
const ID_BITS_PER_LANE: u32 = 23;
/// Bits of the high float's mantissa that [`id_to_lanes`] leaves at zero
/// (and [`id_from_lanes`] ignores) start here.
pub(crate) const ID_LANES_FREE_BIT: u32 = 32 - ID_BITS_PER_LANE;
/// The bits of `1.0`: every carrier float lies in `[1, 2)`.
const ONE_BITS: u32 = 0x3f80_0000;

/// A 32-bit id carried in the mantissas of two floats of `[1, 2)`, so that
/// a SIMD lane storing it holds a normal number, never a NaN, an infinity
/// or a denormal (whose operands are slow on x86). What the lane arithmetic
/// then computes there depends on the other operands and must not be read.
#[must_use]
#[inline(always)]
pub(crate) fn id_to_lanes(id: u32) -> [Real; 2] {
    let mantissa = (1 << ID_BITS_PER_LANE) - 1;
    [
        Real::from_bits(ONE_BITS | (id & mantissa)),
        Real::from_bits(ONE_BITS | (id >> ID_BITS_PER_LANE)),
    ]
}

/// The id that [`id_to_lanes`] stored in `low` and `high`.
#[must_use]
#[inline(always)]
pub(crate) fn id_from_lanes(low: Real, high: Real) -> u32 {
    let mantissa = (1 << ID_BITS_PER_LANE) - 1;
    (low.to_bits() & mantissa) | (high.to_bits() & mantissa) << ID_BITS_PER_LANE
}

/// The rigid pose of a glam affine transform, or `None` when it has a
/// scale, shear or reflection beyond `f32` rounding (relative 1e-4), or is
/// not finite: boxtree's poses are rigid motions (`Isometry`), and a
/// silently dropped scale would move every answer.
///
/// ```
/// # use boxtree::math::pose_from_affine;
/// let turn = glam::Affine3A::from_rotation_translation(
///     glam::Quat::from_rotation_z(0.5),
///     glam::Vec3::new(1.0, 2.0, 3.0),
/// );
/// let pose = pose_from_affine(&turn).expect("rigid");
/// assert_eq!(pose.translation.vector.y, 2.0);
/// assert!(pose_from_affine(&glam::Affine3A::from_scale(glam::Vec3::splat(2.0))).is_none());
/// ```
#[cfg(feature = "glam")]
#[must_use]
pub fn pose_from_affine(affine: &glam::Affine3A) -> Option<Isometry> {
    let m = glam::Mat3::from(affine.matrix3);
    let orthonormal = (m.transpose() * m).abs_diff_eq(glam::Mat3::IDENTITY, 1e-4);
    if !affine.is_finite() || !orthonormal || m.determinant() <= 0.0 {
        return None;
    }
    let rotation = glam::Quat::from_mat3(&m).normalize();
    Some(Isometry::from((
        glam::Vec3::from(affine.translation),
        rotation,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_survive_the_trip_through_two_normal_floats() {
        for id in [
            0,
            1,
            5,
            (1 << 23) - 1,
            1 << 23,
            123_456_789,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let lanes = id_to_lanes(id);
            assert!(
                lanes
                    .iter()
                    .all(|v| v.is_normal() && (1.0..2.0).contains(v))
            );
            assert_eq!(id_from_lanes(lanes[0], lanes[1]), id);
        }
    }
}
