//! An oriented box in 36 bytes, for trees with millions of them.
//!
//! An [`Obb`] spends 36 of its 60 bytes on the rotation matrix. A unit
//! quaternion carries the same rotation in four numbers, and since `q` and
//! `-q` are the same rotation, one with a non-negative scalar part can drop
//! it: `w = sqrt(1 - x² - y² - z²)`. An OBB tree node then takes 44 bytes
//! instead of 68 (Gottschalk's OBBTree and PQP store the full matrix).
//!
//! Recovering `w` loses precision when it is small (a rotation near 180°):
//! up to `sqrt(ε) ≈ 3e-4` radians. The box is therefore always fitted in the
//! frame that decoding yields, never in the frame it was encoded from, so it
//! contains its points exactly as an [`Obb`] fitted in that frame would; the
//! angle error only costs tightness, and a negligible amount. Decoding is
//! the usual quaternion-to-matrix formula (Shoemake, "Animating rotation with
//! quaternion curves", SIGGRAPH 1985), with the `2 / |q|²` scale so a
//! slightly non-unit quaternion still yields a rotation.

use crate::bounding_volume::Obb;
use crate::math::{Matrix, Point, Real, Rotation, Vector};

/// An oriented box with its rotation stored as a quaternion's vector part.
/// Unpack it with [`PackedObb::unpack`] for the box tests; fit one with
/// [`crate::fit::packed_obb_with_axes`] or [`crate::fit::pack_obb`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PackedObb {
    /// Centre of the box.
    pub center: Point,
    /// Half the box size along each of its own axes.
    pub half_extents: Vector,
    /// `x`, `y`, `z` of the unit quaternion of the axes; `w ≥ 0` is implied.
    rotation: [Real; 3],
}

impl PackedObb {
    /// The packed frame nearest to `axes` (a rotation, columns the box axes).
    #[must_use]
    pub fn encode_axes(axes: &Matrix) -> [Real; 3] {
        let matrix = nalgebra::Rotation3::from_matrix_unchecked(*axes);
        let q = Rotation::from_rotation_matrix(&matrix);
        let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
        [sign * q.i, sign * q.j, sign * q.k]
    }

    /// The rotation matrix of a packed frame (columns are the box axes).
    #[must_use]
    #[inline]
    pub fn decode_axes(rotation: &[Real; 3]) -> Matrix {
        let [x, y, z] = *rotation;
        let vector_norm2 = x * x + y * y + z * z;
        let w = (1.0 - vector_norm2).max(0.0).sqrt();
        let s = 2.0 / (vector_norm2 + w * w);
        let (xx, yy, zz) = (s * x * x, s * y * y, s * z * z);
        let (xy, xz, yz) = (s * x * y, s * x * z, s * y * z);
        let (wx, wy, wz) = (s * w * x, s * w * y, s * w * z);
        Matrix::new(
            1.0 - (yy + zz),
            xy - wz,
            xz + wy,
            xy + wz,
            1.0 - (xx + zz),
            yz - wx,
            xz - wy,
            yz + wx,
            1.0 - (xx + yy),
        )
    }

    /// A box from its parts; `rotation` as from [`PackedObb::encode_axes`].
    #[must_use]
    pub fn new(center: Point, half_extents: Vector, rotation: [Real; 3]) -> Self {
        PackedObb {
            center,
            half_extents,
            rotation,
        }
    }

    /// The packed frame.
    #[must_use]
    pub fn rotation(&self) -> [Real; 3] {
        self.rotation
    }

    /// The box's axes as matrix columns.
    #[must_use]
    #[inline]
    pub fn axes(&self) -> Matrix {
        Self::decode_axes(&self.rotation)
    }

    /// The box as an [`Obb`], for the box tests.
    #[must_use]
    #[inline]
    pub fn unpack(&self) -> Obb {
        Obb::new(self.center, self.axes(), self.half_extents)
    }

    /// Enclosed volume.
    #[must_use]
    pub fn volume(&self) -> Real {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }

    /// Surface area.
    #[must_use]
    pub fn surface_area(&self) -> Real {
        let e = &self.half_extents;
        8.0 * (e.x * e.y + e.y * e.z + e.z * e.x)
    }
}
