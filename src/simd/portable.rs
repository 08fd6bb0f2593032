#![cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
//! The portable forms: plain Rust, written so the compiler can vectorise
//! it, on every target (and on x86-64 with the `portable` feature). The
//! x86-64 forms must answer exactly as these.

use super::{Slab8, SlabInput};
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
