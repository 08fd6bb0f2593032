//! The x86-64 forms: SSE2 (part of every x86-64 CPU) and AVX2 (detected at
//! run time). Vectors come from and go to arrays through `bytemuck` casts;
//! with the target feature enabled the intrinsics themselves are safe.

use std::arch::x86_64::{
    __m128, __m128i, __m256, __m256i, _CMP_EQ_OQ, _CMP_GE_OQ, _CMP_GT_OQ, _CMP_LE_OQ, _CMP_LT_OQ,
    _MM_HINT_T0, _mm_add_ps, _mm_and_ps, _mm_castsi128_ps, _mm_cmpge_ps, _mm_cmpgt_ps,
    _mm_cmple_ps, _mm_cvtsi128_si32, _mm_cvtss_f32, _mm_cvttps_epi32, _mm_max_ps, _mm_min_ps,
    _mm_movehl_ps, _mm_movelh_ps, _mm_movemask_ps, _mm_mul_ps, _mm_or_ps, _mm_or_si128,
    _mm_prefetch, _mm_set_ps, _mm_set1_epi32, _mm_set1_ps, _mm_setzero_ps, _mm_shuffle_epi32,
    _mm_shuffle_ps, _mm_sub_ps, _mm_unpackhi_ps, _mm_unpacklo_ps, _mm256_add_ps, _mm256_and_ps,
    _mm256_andnot_ps, _mm256_blend_ps, _mm256_blendv_ps, _mm256_castps_si256,
    _mm256_castps256_ps128, _mm256_castsi256_ps, _mm256_castsi256_si128, _mm256_cmp_ps,
    _mm256_div_ps, _mm256_extractf128_ps, _mm256_extracti128_si256, _mm256_max_ps, _mm256_min_ps,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_or_ps, _mm256_permutevar8x32_epi32,
    _mm256_permutevar8x32_ps, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setr_epi32,
    _mm256_setzero_ps, _mm256_sllv_epi32, _mm256_sub_epi32, _mm256_sub_ps,
};
use std::sync::atomic::{AtomicU8, Ordering};

use super::{
    BoxDistanceInput, BoxDistances8, CollapseRow8, FrameExtremes, Isa, LOWER_BOUND_LARGEST_SCALE,
    LOWER_BOUND_LEAST_PAIR, LOWER_BOUND_MARGIN, LOWER_BOUND_SIN_SQUARED, Rows3, Slab8, SlabInput,
    TriangleRows8,
};
use crate::math::{Matrix, Real};

/// 0: not checked yet; 1: no; 2: yes.
static AVX2: AtomicU8 = AtomicU8::new(0);

/// True when the CPU has AVX2 and the companions every AVX2 CPU ships
/// (FMA, BMI1, BMI2, LZCNT), which `avx2_fn!` compiles for.
#[inline(always)]
pub(super) fn has_avx2() -> bool {
    match AVX2.load(Ordering::Relaxed) {
        0 => {
            let found = std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("lzcnt");
            AVX2.store(1 + u8::from(found), Ordering::Relaxed);
            found
        }
        known => known == 2,
    }
}

/// Defines `fn $name(...) -> R` whose body is compiled with SSE2 named as a
/// target feature: the intrinsics' safe-call check looks at the function's
/// own features only, not at the target's baseline, which on x86-64
/// always includes SSE2 (asserted below at compile time).
macro_rules! sse2_fn {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block
    ) => {
        $(#[$attr])*
        #[inline(always)]
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[target_feature(enable = "sse2")]
            #[inline]
            fn compiled_for_sse2($($arg: $ty),*) -> $ret $body
            const _: () = assert!(cfg!(target_feature = "sse2"));
            // SAFETY: the whole crate is compiled for SSE2 (asserted above),
            // so every CPU that runs this code has it.
            unsafe { compiled_for_sse2($($arg),*) }
        }
    };
}

/// The x86-64 baseline: SSE2, four lanes at a time.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sse2;

impl Isa for Sse2 {
    #[inline(always)]
    fn slab8(self, input: &SlabInput<'_>) -> Slab8 {
        slab8_sse(input)
    }

    #[inline(always)]
    fn box_distances8(self, input: &BoxDistanceInput<'_>) -> BoxDistances8 {
        super::portable::box_distances8(input)
    }

    #[inline(always)]
    fn top_bits8(self, words: &[u32; 8]) -> u32 {
        super::portable::top_bits8(words)
    }

    #[inline(always)]
    fn collapse_row8(self, left: &[Real; 8], right: &[Real; 8], area: Real) -> CollapseRow8 {
        super::portable::collapse_row::<8>(left, right, area)
    }

    #[inline(always)]
    fn triangle_lower_bounds8(self, p: &[Real; 3], v: &TriangleRows8) -> [Real; 8] {
        super::portable::triangle_lower_bounds8(p, v)
    }
}

sse2_fn! {
/// [`Isa::slab8`] in SSE registers, four lanes per instruction.
fn slab8_sse(input: &SlabInput<'_>) -> Slab8 {
    let SlabInput {
        t_min,
        t_max,
        ends,
        ..
    } = *input;
    {
        let mut out = Slab8 {
            enter: [0.0; 8],
            entered: 0,
            at_ends: 0,
        };
        for half in [0, 4] {
            let lanes = |row: &[Real; 8]| -> __m128 {
                let four: [Real; 4] = std::array::from_fn(|k| row[half + k]);
                bytemuck::cast(four)
            };
            let mut enter = _mm_set1_ps(t_min);
            let mut exit = _mm_set1_ps(t_max);
            let mut reach = _mm_set1_ps(Real::INFINITY);
            for axis in 0..3 {
                let o = _mm_set1_ps(input.origin[axis]);
                let inv = _mm_set1_ps(input.inverse[axis]);
                let far_inv = _mm_set1_ps(input.far_inverse[axis]);
                let t_near = _mm_mul_ps(_mm_sub_ps(lanes(input.near(axis)), o), inv);
                let t_far = _mm_mul_ps(_mm_sub_ps(lanes(input.far(axis)), o), far_inv);
                enter = _mm_max_ps(t_near, enter);
                exit = _mm_min_ps(t_far, exit);
                reach = _mm_min_ps(t_far, reach);
            }
            let at_ends = _mm_or_ps(
                _mm_cmple_ps(enter, _mm_set1_ps(ends[0])),
                _mm_cmpge_ps(reach, _mm_set1_ps(ends[1])),
            );
            out.entered |= (_mm_movemask_ps(_mm_cmple_ps(enter, exit)) as u32) << half;
            out.at_ends |= (_mm_movemask_ps(at_ends) as u32) << half;
            let enter: [Real; 4] = bytemuck::cast(enter);
            out.enter[half..half + 4].copy_from_slice(&enter);
        }
        out
    }
}
}

/// [`Isa::slab8`] in AVX registers, all eight lanes per instruction.
///
/// Safe to call only from code compiled for AVX; elsewhere the caller
/// proves the CPU has it.
#[target_feature(enable = "avx")]
#[inline]
pub(super) fn slab8_avx(input: &SlabInput<'_>) -> Slab8 {
    let SlabInput {
        t_min, t_max, ends, ..
    } = *input;
    let lanes = |row: &[Real; 8]| -> __m256 { bytemuck::cast(*row) };
    let mut enter = _mm256_set1_ps(t_min);
    let mut exit = _mm256_set1_ps(t_max);
    let mut reach = _mm256_set1_ps(Real::INFINITY);
    for axis in 0..3 {
        let o = _mm256_set1_ps(input.origin[axis]);
        let inv = _mm256_set1_ps(input.inverse[axis]);
        let far_inv = _mm256_set1_ps(input.far_inverse[axis]);
        let t_near = _mm256_mul_ps(_mm256_sub_ps(lanes(input.near(axis)), o), inv);
        let t_far = _mm256_mul_ps(_mm256_sub_ps(lanes(input.far(axis)), o), far_inv);
        enter = _mm256_max_ps(t_near, enter);
        exit = _mm256_min_ps(t_far, exit);
        reach = _mm256_min_ps(t_far, reach);
    }
    let entered = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(enter, exit)) as u32;
    let at_ends = _mm256_or_ps(
        _mm256_cmp_ps::<_CMP_LE_OQ>(enter, _mm256_set1_ps(ends[0])),
        _mm256_cmp_ps::<_CMP_GE_OQ>(reach, _mm256_set1_ps(ends[1])),
    );
    Slab8 {
        enter: bytemuck::cast(enter),
        entered,
        at_ends: _mm256_movemask_ps(at_ends) as u32,
    }
}

sse2_fn! {
/// See [`super::triangle_box_distance_squared`].
pub(super) fn triangle_box_distance_squared(rows: &Rows3, p: &[Real; 4]) -> Real {
    let load = |v: &[Real; 4]| -> __m128 { bytemuck::cast(*v) };
    let (x, y, z) = (load(&rows[0]), load(&rows[1]), load(&rows[2]));
    // Rows to vertices (the fourth row, the id lanes, is not formed):
    // a = [ax, ay, az, 0], and so on.
    let zero = _mm_setzero_ps();
    let (xy_low, xy_high) = (_mm_unpacklo_ps(x, y), _mm_unpackhi_ps(x, y));
    let (z0_low, z0_high) = (_mm_unpacklo_ps(z, zero), _mm_unpackhi_ps(z, zero));
    let a = _mm_movelh_ps(xy_low, z0_low);
    let b = _mm_movehl_ps(z0_low, xy_low);
    let c = _mm_movelh_ps(xy_high, z0_high);
    let lo = _mm_min_ps(_mm_min_ps(a, b), c);
    let hi = _mm_max_ps(_mm_max_ps(a, b), c);
    let point = load(p);
    let out = _mm_max_ps(
        _mm_max_ps(_mm_sub_ps(lo, point), _mm_sub_ps(point, hi)),
        zero,
    );
    let squared = _mm_mul_ps(out, out);
    let xy = _mm_add_ps(squared, _mm_shuffle_ps::<0b01>(squared, squared));
    _mm_cvtss_f32(_mm_add_ps(xy, _mm_movehl_ps(squared, squared)))
}
}

sse2_fn! {
/// See [`super::union4`]: `minps`/`maxps`.
pub(super) fn union4(
    a: (&[Real; 4], &[Real; 4]),
    b: (&[Real; 4], &[Real; 4]),
) -> ([Real; 4], [Real; 4]) {
    let v = |x: &[Real; 4]| -> __m128 { bytemuck::cast(*x) };
    (
        bytemuck::cast(_mm_min_ps(v(a.0), v(b.0))),
        bytemuck::cast(_mm_max_ps(v(a.1), v(b.1))),
    )
}
}

sse2_fn! {
/// See [`super::bins4`]: one vector conversion for the four lanes.
pub(super) fn bins4(
    min: &[Real; 4],
    max: &[Real; 4],
    origin: &[Real; 4],
    scale: &[Real; 4],
    last: Real,
) -> [usize; 4] {
    let v = |x: &[Real; 4]| -> __m128 { bytemuck::cast(*x) };
    let x = _mm_mul_ps(_mm_sub_ps(_mm_add_ps(v(min), v(max)), v(origin)), v(scale));
    let x = _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), _mm_set1_ps(last));
    let indices: [i32; 4] = bytemuck::cast::<__m128i, _>(_mm_cvttps_epi32(x));
    indices.map(|i| i as usize)
}
}

sse2_fn! {
/// Prefetches the 64-byte lines `0..=lines` from `start` (a hint: it
/// never faults and reads nothing the program can observe).
pub(super) fn prefetch_lines(start: *const i8, lines: usize) -> () {
    for line in 0..=lines {
        _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(64 * line));
    }
}
}

/// [`super::Isa::box_distances8`] in one AVX register per row: the
/// excess per axis, squared and summed in the portable form's order, the
/// least distance by the same halving, and two compare masks.
///
/// Safe to call only from code compiled for AVX; elsewhere the caller
/// proves the CPU has it. A plain `#[target_feature]` function, so that it
/// inlines into the AVX2 descents (an `avx2_fn!` body stays a call: the
/// nearest-point descent spent a third of its time in it, passing eight
/// lanes through memory).
#[target_feature(enable = "avx")]
#[inline]
pub(super) fn box_distances8_avx(input: &BoxDistanceInput<'_>) -> BoxDistances8 {
    {
        let lanes = |row: &[Real; 8]| -> __m256 { bytemuck::cast(*row) };
        let mut squared = _mm256_setzero_ps();
        for axis in 0..3 {
            let c = _mm256_set1_ps(input.point[axis]);
            let below = _mm256_sub_ps(lanes(input.min[axis]), c);
            let above = _mm256_sub_ps(c, lanes(input.max[axis]));
            let out = _mm256_max_ps(_mm256_max_ps(below, above), _mm256_setzero_ps());
            squared = _mm256_add_ps(squared, _mm256_mul_ps(out, out));
        }
        // Halving: lanes 0-3 against 4-7, then 0-1 against 2-3, then 0 against 1.
        let half = _mm_min_ps(
            _mm256_extractf128_ps::<1>(squared),
            _mm256_castps256_ps128(squared),
        );
        let quarter = _mm_min_ps(_mm_movehl_ps(half, half), half);
        let least = _mm_min_ps(_mm_shuffle_ps::<0b01>(quarter, quarter), quarter);
        let least = _mm256_set1_ps(_mm_cvtss_f32(least));
        let reach = _mm256_set1_ps(input.reach_squared);
        BoxDistances8 {
            squared: bytemuck::cast(squared),
            within: _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(squared, reach)) as u32,
            least: _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(squared, least)) as u32,
        }
    }
}

/// [`super::Isa::top_bits8`]: the sign bits of eight lanes, one
/// `vmovmskps`. Safe to call only from code compiled for AVX (see
/// [`box_distances8_avx`]).
#[target_feature(enable = "avx")]
#[inline]
pub(super) fn top_bits8_avx(words: &[u32; 8]) -> u32 {
    _mm256_movemask_ps(bytemuck::cast::<[u32; 8], __m256>(*words)) as u32
}

/// Lane `i` reads lane `i − k` (the low three bits of the index wrap the
/// lanes below `k`, which [`LANES_FROM`] masks off) …
const LANES_UP: [[i32; 8]; 8] = {
    let mut table = [[0; 8]; 8];
    let mut k = 0;
    while k < 8 {
        let mut i = 0;
        while i < 8 {
            table[k][i] = ((i + 8 - k) % 8) as i32;
            i += 1;
        }
        k += 1;
    }
    table
};

/// … and only lanes `i ≥ k` have such a lane.
const LANES_FROM: [[u32; 8]; 8] = {
    let mut table = [[0; 8]; 8];
    let mut k = 0;
    while k < 8 {
        let mut i = k;
        while i < 8 {
            table[k][i] = u32::MAX;
            i += 1;
        }
        k += 1;
    }
    table
};

/// [`super::Isa::collapse_row8`]. The split search: per share `k`, the
/// eight sums at once (the left cost broadcast, the right row moved up `k`
/// lanes; NaN and the lanes below `k` as `+∞`), then the least by a tree
/// of pairwise choices, a later share taken only when strictly less: so
/// the smallest share wins ties, as in the scalar form's running choice
/// (both are the least `(sum, k)` in lexicographic order once NaN reads as
/// `+∞`), in three steps of latency instead of seven. The costs by slots:
/// a prefix scan (Hillis and Steele 1986) of "the later lane unless it is
/// dearer". That choice is not associative once NaN is among its
/// operands, but only lane 0 can be NaN (the opened costs never are), and
/// the scan only ever pairs lane 0's prefix as the earlier operand, where
/// NaN absorbs as it does in the running form. Safe to call only where
/// the CPU has AVX2 (see [`box_distances8_avx`]).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn collapse_row8_avx(left: &[Real; 8], right: &[Real; 8], area: Real) -> CollapseRow8 {
    let infinity = _mm256_set1_ps(Real::INFINITY);
    let right: __m256 = bytemuck::cast(*right);
    let sums: [(__m256, __m256i); 7] = std::array::from_fn(|i| {
        let k = i + 1;
        let moved = _mm256_permutevar8x32_ps(right, bytemuck::cast(LANES_UP[k]));
        // `minps` keeps its second operand for NaN.
        let sum = _mm256_min_ps(_mm256_add_ps(_mm256_set1_ps(left[i]), moved), infinity);
        let sum = _mm256_blendv_ps(infinity, sum, bytemuck::cast(LANES_FROM[k]));
        (sum, _mm256_set1_epi32(k as i32))
    });
    let least = |(a, ka): (__m256, __m256i), (b, kb): (__m256, __m256i)| {
        let later = _mm256_cmp_ps::<_CMP_LT_OQ>(b, a);
        (_mm256_blendv_ps(a, b, later), blend_words(ka, kb, later))
    };
    let (opened, share) = least(
        least(least(sums[0], sums[1]), least(sums[2], sums[3])),
        least(least(sums[4], sums[5]), sums[6]),
    );
    let widest = _mm256_extractf128_ps::<1>(opened);
    let widest = _mm_cvtss_f32(_mm_shuffle_ps::<0xFF>(widest, widest));
    let mut cost = _mm256_blend_ps::<1>(opened, _mm256_set1_ps(area + widest));
    // Lane `j − 1` fills `j` slots when opened, kept less one as packed.
    let mut fills = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for step in [1, 2, 4] {
        let up: __m256i = bytemuck::cast(LANES_UP[step]);
        let earlier = _mm256_permutevar8x32_ps(cost, up);
        let keep_earlier = _mm256_andnot_ps(
            _mm256_cmp_ps::<_CMP_LE_OQ>(cost, earlier),
            bytemuck::cast(LANES_FROM[step]),
        );
        cost = _mm256_blendv_ps(cost, earlier, keep_earlier);
        fills = blend_words(fills, _mm256_permutevar8x32_epi32(fills, up), keep_earlier);
    }
    // Lane 0's share is 1: no bits, whatever its shift.
    let share = _mm256_sub_epi32(share, _mm256_set1_epi32(1));
    let share = _mm256_sllv_epi32(share, _mm256_setr_epi32(0, 0, 3, 6, 9, 12, 15, 18));
    let fills = _mm256_sllv_epi32(fills, _mm256_setr_epi32(0, 3, 6, 9, 12, 15, 18, 21));
    CollapseRow8 {
        cost: bytemuck::cast(cost),
        left_slots: or_lanes(share),
        fills: or_lanes(fills),
    }
}

/// The bitwise or of eight words.
#[target_feature(enable = "avx2")]
#[inline]
fn or_lanes(v: __m256i) -> u32 {
    let v = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let v = _mm_or_si128(v, _mm_shuffle_epi32::<0x4E>(v));
    let v = _mm_or_si128(v, _mm_shuffle_epi32::<0xB1>(v));
    _mm_cvtsi128_si32(v) as u32
}

/// `mask ? b : a` on integer lanes, by the float blend.
#[target_feature(enable = "avx2")]
#[inline]
fn blend_words(a: __m256i, b: __m256i, mask: __m256) -> __m256i {
    _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(a),
        _mm256_castsi256_ps(b),
        mask,
    ))
}

sse2_fn! {
/// See [`super::boxes_overlap_rows`]: the portable form's sums, three axes
/// per instruction, `|R|`'s columns by one 4×4 transpose.
pub(super) fn boxes_overlap_rows(
    a: &[Real; 4],
    b: &[Real; 4],
    rows: &Rows3,
    t: &[Real; 4],
    epsilon: Real,
) -> bool {
    let load = |v: &[Real; 4]| -> __m128 { bytemuck::cast(*v) };
    let abs = |v: __m128| _mm_and_ps(v, _mm_castsi128_ps(_mm_set1_epi32(0x7fff_ffff)));
    // Lane k of `v`, on all four lanes.
    macro_rules! splat {
        ($v:expr, $k:literal) => {
            _mm_shuffle_ps::<{ $k * 0b0101_0101 }>($v, $v)
        };
    }
    // `[v1, v2, v0, v3]` and `[v2, v0, v1, v3]`.
    let next = |v: __m128| _mm_shuffle_ps::<0b11_00_10_01>(v, v);
    let after = |v: __m128| _mm_shuffle_ps::<0b11_01_00_10>(v, v);
    let (a, b, t) = (load(a), load(b), load(t));
    let r = [load(&rows[0]), load(&rows[1]), load(&rows[2])];
    let e = _mm_set_ps(0.0, epsilon, epsilon, epsilon);
    let q = r.map(|row| _mm_add_ps(abs(row), e));
    // `|d| > ra + rb`, lane by lane.
    let test = |d: __m128, ra: __m128, rb: __m128| _mm_cmpgt_ps(abs(d), _mm_add_ps(ra, rb));
    // |R|'s columns: the transpose of its rows and a zero row.
    let zero = _mm_setzero_ps();
    let (low01, low2) = (_mm_unpacklo_ps(q[0], q[1]), _mm_unpacklo_ps(q[2], zero));
    let (high01, high2) = (_mm_unpackhi_ps(q[0], q[1]), _mm_unpackhi_ps(q[2], zero));
    let c = [
        _mm_movelh_ps(low01, low2),
        _mm_movehl_ps(low2, low01),
        _mm_movelh_ps(high01, high2),
    ];
    // A's face axes, lane i.
    let rb = _mm_add_ps(
        _mm_add_ps(_mm_mul_ps(splat!(b, 0), c[0]), _mm_mul_ps(splat!(b, 1), c[1])),
        _mm_mul_ps(splat!(b, 2), c[2]),
    );
    let mut separated = test(t, a, rb);
    // B's face axes, lane j.
    let weigh = |w: __m128, v: &[__m128; 3]| {
        _mm_add_ps(
            _mm_add_ps(_mm_mul_ps(splat!(w, 0), v[0]), _mm_mul_ps(splat!(w, 1), v[1])),
            _mm_mul_ps(splat!(w, 2), v[2]),
        )
    };
    separated = _mm_or_ps(separated, test(weigh(t, &r), weigh(a, &q), b));
    // Edge axes Aᵢ × Bⱼ, lane j, for each i.
    let (b_next, b_after) = (next(b), after(b));
    let (t_lanes, a_lanes) = (
        [splat!(t, 0), splat!(t, 1), splat!(t, 2)],
        [splat!(a, 0), splat!(a, 1), splat!(a, 2)],
    );
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let dist = _mm_sub_ps(
            _mm_mul_ps(t_lanes[i2], r[i1]),
            _mm_mul_ps(t_lanes[i1], r[i2]),
        );
        let ra = _mm_add_ps(
            _mm_mul_ps(a_lanes[i1], q[i2]),
            _mm_mul_ps(a_lanes[i2], q[i1]),
        );
        let rb = _mm_add_ps(
            _mm_mul_ps(b_next, after(q[i])),
            _mm_mul_ps(b_after, next(q[i])),
        );
        separated = _mm_or_ps(separated, test(dist, ra, rb));
    }
    _mm_movemask_ps(separated) == 0
}
}

sse2_fn! {
/// See [`super::product_rows`]: row `i` from three broadcasts of `n`'s
/// row `i`.
pub(super) fn product_rows(n: &Matrix, m: &Rows3) -> Rows3 {
    let m = [
        bytemuck::cast::<[Real; 4], __m128>(m[0]),
        bytemuck::cast(m[1]),
        bytemuck::cast(m[2]),
    ];
    std::array::from_fn(|i| {
        let row = _mm_add_ps(
            _mm_add_ps(
                _mm_mul_ps(_mm_set1_ps(n[(i, 0)]), m[0]),
                _mm_mul_ps(_mm_set1_ps(n[(i, 1)]), m[1]),
            ),
            _mm_mul_ps(_mm_set1_ps(n[(i, 2)]), m[2]),
        );
        bytemuck::cast(row)
    })
}
}

sse2_fn! {
/// See [`super::include_point`]: the portable form's sums, four lanes per
/// instruction (`minps`/`maxps` keep the portable selects' NaN rule).
pub(super) fn include_point(
    extremes: &mut FrameExtremes,
    p: &[Real; 4],
    origin: &[Real; 4],
    rows: &Rows3,
) -> () {
    let load = |v: &[Real; 4]| -> __m128 { bytemuck::cast(*v) };
    let point = load(p);
    let d = _mm_sub_ps(point, load(origin));
    let local = _mm_add_ps(
        _mm_add_ps(
            _mm_mul_ps(_mm_shuffle_ps::<0b00_00_00_00>(d, d), load(&rows[0])),
            _mm_mul_ps(_mm_shuffle_ps::<0b01_01_01_01>(d, d), load(&rows[1])),
        ),
        _mm_mul_ps(_mm_shuffle_ps::<0b10_10_10_10>(d, d), load(&rows[2])),
    );
    let store = |v: __m128| -> [Real; 4] { bytemuck::cast(v) };
    extremes.lo = store(_mm_min_ps(local, load(&extremes.lo)));
    extremes.hi = store(_mm_max_ps(local, load(&extremes.hi)));
    extremes.world_lo = store(_mm_min_ps(point, load(&extremes.world_lo)));
    extremes.world_hi = store(_mm_max_ps(point, load(&extremes.world_hi)));
    extremes.nan_if_not_finite = store(_mm_add_ps(
        load(&extremes.nan_if_not_finite),
        _mm_mul_ps(point, _mm_setzero_ps()),
    ));
}
}

/// [`super::Isa::triangle_lower_bounds8`] in AVX registers, each operation
/// the portable form's, in its order.
///
/// Safe to call only from code compiled for AVX; elsewhere the caller
/// proves the CPU has it (inlined into the AVX2 descents, as
/// [`box_distances8_avx`]).
#[target_feature(enable = "avx")]
#[inline]
pub(super) fn triangle_lower_bounds8_avx(p: &[Real; 3], v: &TriangleRows8) -> [Real; 8] {
    type V = [__m256; 3];
    let row = |vertex: usize, axis: usize| -> __m256 { bytemuck::cast(v[vertex][axis]) };
    let vertex = |i: usize| -> V { [row(i, 0), row(i, 1), row(i, 2)] };
    let (a, b, c) = (vertex(0), vertex(1), vertex(2));
    let pt: V = [
        _mm256_set1_ps(p[0]),
        _mm256_set1_ps(p[1]),
        _mm256_set1_ps(p[2]),
    ];
    let sub = |u: V, w: V| -> V {
        [
            _mm256_sub_ps(u[0], w[0]),
            _mm256_sub_ps(u[1], w[1]),
            _mm256_sub_ps(u[2], w[2]),
        ]
    };
    let dot = |u: V, w: V| -> __m256 {
        _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(u[0], w[0]), _mm256_mul_ps(u[1], w[1])),
            _mm256_mul_ps(u[2], w[2]),
        )
    };
    let cross = |u: V, w: V| -> V {
        [
            _mm256_sub_ps(_mm256_mul_ps(u[1], w[2]), _mm256_mul_ps(u[2], w[1])),
            _mm256_sub_ps(_mm256_mul_ps(u[2], w[0]), _mm256_mul_ps(u[0], w[2])),
            _mm256_sub_ps(_mm256_mul_ps(u[0], w[1]), _mm256_mul_ps(u[1], w[0])),
        ]
    };
    let zero = _mm256_setzero_ps();
    let one = _mm256_set1_ps(1.0);
    let (ab, ac, bc, ca) = (sub(b, a), sub(c, a), sub(c, b), sub(a, c));
    let (ap, bp, cp) = (sub(pt, a), sub(pt, b), sub(pt, c));
    let n = cross(ab, ac);
    let nn = dot(n, n);
    let (lab, lbc, lca) = (dot(ab, ab), dot(bc, bc), dot(ca, ca));
    let segment = |v: V, e: V, ee: __m256| -> __m256 {
        let t = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(dot(v, e), ee), zero), one);
        let r = [
            _mm256_sub_ps(v[0], _mm256_mul_ps(e[0], t)),
            _mm256_sub_ps(v[1], _mm256_mul_ps(e[1], t)),
            _mm256_sub_ps(v[2], _mm256_mul_ps(e[2], t)),
        ];
        dot(r, r)
    };
    let edges = _mm256_min_ps(
        _mm256_min_ps(segment(ap, ab, lab), segment(bp, bc, lbc)),
        segment(cp, ca, lca),
    );
    let side = |e: V, v: V| _mm256_cmp_ps::<_CMP_GE_OQ>(dot(n, cross(e, v)), zero);
    let inside = _mm256_and_ps(_mm256_and_ps(side(ab, ap), side(bc, bp)), side(ca, cp));
    let h = dot(n, ap);
    let plane = _mm256_mul_ps(h, _mm256_div_ps(h, nn));
    let pair = _mm256_mul_ps(lab, lca);
    let scale = _mm256_add_ps(dot(ap, ap), _mm256_max_ps(_mm256_max_ps(lab, lbc), lca));
    let trusted = _mm256_and_ps(
        _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_GT_OQ>(
                nn,
                _mm256_mul_ps(pair, _mm256_set1_ps(LOWER_BOUND_SIN_SQUARED)),
            ),
            _mm256_cmp_ps::<_CMP_GE_OQ>(pair, _mm256_set1_ps(LOWER_BOUND_LEAST_PAIR)),
        ),
        _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_LE_OQ>(pair, _mm256_set1_ps(Real::MAX)),
            _mm256_cmp_ps::<_CMP_LE_OQ>(scale, _mm256_set1_ps(LOWER_BOUND_LARGEST_SCALE)),
        ),
    );
    let exact = _mm256_blendv_ps(edges, plane, inside);
    let bound = _mm256_sub_ps(
        exact,
        _mm256_mul_ps(_mm256_set1_ps(LOWER_BOUND_MARGIN), scale),
    );
    let mut boxed = zero;
    for axis in 0..3 {
        let lo = _mm256_min_ps(_mm256_min_ps(a[axis], b[axis]), c[axis]);
        let hi = _mm256_max_ps(_mm256_max_ps(a[axis], b[axis]), c[axis]);
        let out = _mm256_max_ps(
            _mm256_max_ps(_mm256_sub_ps(lo, pt[axis]), _mm256_sub_ps(pt[axis], hi)),
            zero,
        );
        boxed = _mm256_add_ps(boxed, _mm256_mul_ps(out, out));
    }
    let bounded = _mm256_blendv_ps(boxed, _mm256_max_ps(bound, boxed), trusted);
    bytemuck::cast(bounded)
}
