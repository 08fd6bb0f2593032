//! Deterministic pseudo-random numbers for the unit tests: one xorshift64
//! generator (Marsaglia 2003) that every module's tests share.

use crate::math::Real;

/// The xorshift64 sequence from `seed` (which must not be 0).
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Uniform floats in `[0, 1)` with 24 random bits each.
pub(crate) fn unit_floats(seed: u64) -> impl FnMut() -> Real {
    let mut next = xorshift(seed);
    move || unit(next())
}

/// The top 24 bits of `bits` as a float in `[0, 1)`.
pub(crate) fn unit(bits: u64) -> Real {
    (bits >> 40) as Real / (1u64 << 24) as Real
}
