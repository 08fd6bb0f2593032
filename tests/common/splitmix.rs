//! The seeded generator shared by tests and benches (SplitMix64, Steele et
//! al. 2014): tiny, deterministic, and independent of any crate's versioned
//! stream, so recorded cases stay reproducible.

use boxtree::math::{Point, Real, Rotation, Vector, nalgebra};

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

    /// A vector with components uniform in `[lo, hi)`.
    pub fn vector(&mut self, lo: Real, hi: Real) -> Vector {
        Vector::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
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
