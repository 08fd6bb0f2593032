#![cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
//! The portable forms: plain Rust, written so the compiler can vectorise
//! it, on every target (and on x86-64 with the `portable` feature). The
//! x86-64 forms must answer exactly as these.

use super::{BoxDistanceInput, BoxDistances8, Slab8, SlabInput};
use crate::math::Real;

/// `a < b ? a : b` per lane, as `minps` computes it (NaN keeps `b`).
#[inline(always)]
fn min(a: Real, b: Real) -> Real {
    if a < b { a } else { b }
}

/// `a > b ? a : b` per lane, as `maxps` computes it (NaN keeps `b`).
#[inline(always)]
fn max(a: Real, b: Real) -> Real {
    if a > b { a } else { b }
}

/// See [`super::Isa::slab8`].
#[inline(always)]
pub(super) fn slab8(input: &SlabInput<'_>) -> Slab8 {
    let SlabInput {
        t_min,
        t_max,
        ends,
        padding,
        ..
    } = *input;
    let mut enter = [t_min; 8];
    let mut exit = [t_max; 8];
    let mut reach = [Real::INFINITY; 8];
    for axis in 0..3 {
        let (o, inv) = (input.origin[axis], input.inverse[axis]);
        for lane in 0..8 {
            let t_near = (input.near[axis][lane] - o) * inv;
            let t_far = (input.far[axis][lane] - o) * inv;
            enter[lane] = max(t_near, enter[lane]);
            exit[lane] = min(t_far, exit[lane]);
            reach[lane] = min(t_far, reach[lane]);
        }
    }
    let (mut entered, mut at_ends) = (0, 0);
    for lane in 0..8 {
        entered |= u32::from(enter[lane] <= exit[lane] * padding) << lane;
        at_ends |= u32::from((enter[lane] <= ends[0]) | (reach[lane] >= ends[1])) << lane;
    }
    Slab8 {
        enter,
        entered,
        at_ends,
    }
}

/// See [`super::union4`].
#[inline(always)]
pub(super) fn union4(
    a: (&[Real; 4], &[Real; 4]),
    b: (&[Real; 4], &[Real; 4]),
) -> ([Real; 4], [Real; 4]) {
    (
        std::array::from_fn(|k| min(a.0[k], b.0[k])),
        std::array::from_fn(|k| max(a.1[k], b.1[k])),
    )
}

/// See [`super::bins4`].
#[inline(always)]
pub(super) fn bins4(
    min_corner: &[Real; 4],
    max_corner: &[Real; 4],
    origin: &[Real; 4],
    scale: &[Real; 4],
    last: Real,
) -> [usize; 4] {
    std::array::from_fn(|k| {
        let x = (min_corner[k] + max_corner[k] - origin[k]) * scale[k];
        // As the vector form: below 0 (and NaN) to 0, above `last` to `last`.
        let clamped = min(max(x, 0.0), last);
        clamped as i32 as usize
    })
}

/// See [`super::Isa::box_distances8`].
#[inline(always)]
pub(super) fn box_distances8(input: &BoxDistanceInput<'_>) -> BoxDistances8 {
    let mut squared = [0.0; 8];
    for axis in 0..3 {
        let c = input.point[axis];
        let rows = input.min[axis].iter().zip(input.max[axis]);
        for (sum, (lo, hi)) in squared.iter_mut().zip(rows) {
            let out = max(max(lo - c, c - hi), 0.0);
            *sum += out * out;
        }
    }
    // The least distance by halving, as the vector forms reduce it.
    let mut least = squared;
    for width in [4, 2, 1] {
        for lane in 0..width {
            least[lane] = min(least[lane + width], least[lane]);
        }
    }
    let (mut within, mut at_least) = (0, 0);
    for (lane, &d) in squared.iter().enumerate() {
        within |= u32::from(d <= input.reach_squared) << lane;
        at_least |= u32::from(d == least[0]) << lane;
    }
    BoxDistances8 {
        squared,
        within,
        least: at_least,
    }
}

/// See [`super::Isa::top_bits8`].
#[inline(always)]
pub(super) fn top_bits8(words: &[u32; 8]) -> u32 {
    let mut bits = 0;
    for (i, w) in words.iter().enumerate() {
        bits |= (w >> 31) << i;
    }
    bits
}
