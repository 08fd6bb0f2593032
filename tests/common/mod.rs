//! Seeded generators and proptest strategies shared by the integration tests.
#![allow(dead_code)]

use boxtree::math::{Isometry, Matrix, Point, Real, Rotation, Vector, nalgebra};
use proptest::prelude::*;

/// A point with coordinates in `[-extent, extent]`.
pub fn point(extent: Real) -> impl Strategy<Value = Point> {
    (-extent..=extent, -extent..=extent, -extent..=extent).prop_map(|(x, y, z)| Point::new(x, y, z))
}

/// A vector with components in `[-extent, extent]`.
pub fn vector(extent: Real) -> impl Strategy<Value = Vector> {
    point(extent).prop_map(|p| p.coords)
}

/// A uniformly distributed rotation (from a normalised random quaternion),
/// mixed with exact axis-aligned quarter turns, the adversarial case for SAT.
pub fn rotation() -> impl Strategy<Value = Rotation> {
    prop_oneof![
        4 => (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_filter_map(
            "degenerate quaternion",
            |(w, i, j, k)| {
                let q = nalgebra::Quaternion::new(w, i, j, k);
                (q.norm() > 0.1).then(|| Rotation::from_quaternion(q))
            }
        ),
        1 => (0u8..4, 0u8..3).prop_map(|(turns, axis)| {
            let a = [Vector::x_axis(), Vector::y_axis(), Vector::z_axis()][axis as usize];
            Rotation::from_axis_angle(&a, turns as Real * std::f32::consts::FRAC_PI_2)
        }),
        1 => Just(Rotation::identity()),
    ]
}

/// The rotation as a 3×3 matrix of column axes.
pub fn matrix(rotation: &Rotation) -> Matrix {
    *rotation.to_rotation_matrix().matrix()
}

/// A rigid motion with translation in `[-extent, extent]³`.
pub fn isometry(extent: Real) -> impl Strategy<Value = Isometry> {
    (vector(extent), rotation()).prop_map(|(t, r)| Isometry::from_parts(t.into(), r))
}

/// A tiny deterministic generator (SplitMix64) for oracle sweeps outside proptest.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        let unit = (self.next_u64() >> 40) as Real / (1u64 << 24) as Real;
        lo + (hi - lo) * unit
    }

    /// A point uniform in `[-extent, extent]³`.
    pub fn point(&mut self, extent: Real) -> Point {
        Point::new(
            self.range(-extent, extent),
            self.range(-extent, extent),
            self.range(-extent, extent),
        )
    }

    /// A uniformly distributed rotation.
    pub fn rotation(&mut self) -> Rotation {
        loop {
            let q = nalgebra::Quaternion::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if q.norm() > 0.1 {
                return Rotation::from_quaternion(q);
            }
        }
    }
}
