//! All architecture-specific code, and the `unsafe` it needs, in one place.
//!
//! - CPU detection, and [`Avx2`]: a token that only detection can make, so
//!   holding one proves the CPU runs AVX2 code; [`avx2_fn!`] defines a
//!   function that takes the token and runs its body compiled for AVX2, so
//!   callers elsewhere write no `unsafe` and no target features.
//! - [`Isa`]: the instruction sets the raycast kernels are generic over
//!   ([`Portable`], SSE2 as the x86-64 baseline, [`Avx2`]), in place of a
//!   `const AVX: bool` that made every kernel an `unsafe fn`.
//! - The vector operations the tree builder uses (box unions, bin indices)
//!   and cache prefetches.
//!
//! Loads and stores go through `bytemuck` casts between arrays and vector
//! types, so the intrinsics themselves need no `unsafe`. The `portable`
//! feature forces the portable forms on x86-64 too, so that CI compiles
//! and tests them; the unit tests below check every form against the
//! portable one on the same input.
#![allow(unsafe_code)]

use crate::math::{Matrix, Real};

mod portable;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod x86;

/// Where a ray's near and far planes lie among a wide node's 48 bounds
/// (minima then maxima, per axis eight lanes, flattened): chosen once per
/// ray by the signs of its direction, so that a slab test loads its six
/// rows at fixed offsets instead of choosing them again at every node
/// (the closest-hit descent recomputed the six offsets per node).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SlabRows {
    /// Bit `axis` set when the direction is negative along `axis`: the
    /// index of the ray's offsets in [`SLAB_ROWS`] (one byte, so that
    /// preparing a ray costs next to nothing where no slab test of eight
    /// lanes follows).
    signs: u8,
}

/// Per sign mask of [`SlabRows`], the near rows' offsets per axis, then
/// the far rows'; each at most 40, so a row of eight always lies inside
/// the 48 bounds.
const SLAB_ROWS: [[u8; 8]; 8] = {
    let mut table = [[0; 8]; 8];
    let mut mask = 0;
    while mask < 8 {
        let mut axis = 0;
        while axis < 3 {
            let negative = (mask >> axis) & 1;
            table[mask][axis] = (8 * (3 * negative + axis)) as u8;
            table[mask][3 + axis] = (8 * (3 * (1 - negative) + axis)) as u8;
            axis += 1;
        }
        mask += 1;
    }
    table
};

impl SlabRows {
    /// The rows for a ray whose direction is negative along the axes
    /// `negative` (the near plane is then the maximum).
    #[inline(always)]
    pub(crate) fn new(negative: [bool; 3]) -> SlabRows {
        SlabRows {
            signs: u8::from(negative[0]) | u8::from(negative[1]) << 1 | u8::from(negative[2]) << 2,
        }
    }

    /// Row `axis` of `side` (0 near, 1 far) among `bounds`.
    #[inline(always)]
    fn row<'a>(&self, bounds: &'a [Real; 48], side: usize, axis: usize) -> &'a [Real; 8] {
        let offset = usize::from(SLAB_ROWS[usize::from(self.signs & 7)][3 * side + axis]);
        debug_assert!(offset <= 40);
        // SAFETY: every offset in `SLAB_ROWS` is at most 8 · 5 = 40, so the
        // eight values from it lie inside the 48 bounds.
        unsafe { &*bounds.as_ptr().add(offset).cast::<[Real; 8]>() }
    }
}

/// A slab test of eight child boxes: their 48 bounds and which rows are
/// the ray's near and far planes, the ray's origin and reciprocal
/// direction, the range, the range's ends widened by their rounding, and
/// the factor the exits are padded by. The ray's values are borrowed from
/// the prepared ray, so a descent loads them where they stay instead of
/// storing copies at every node.
pub(crate) struct SlabInput<'a> {
    pub(crate) bounds: &'a [Real; 48],
    pub(crate) rows: &'a SlabRows,
    pub(crate) origin: &'a [Real; 3],
    pub(crate) inverse: &'a [Real; 3],
    /// The reciprocals far planes are measured with, padded (Ize's exit
    /// padding, see `bvh::TraversalRay::far_inverse`).
    pub(crate) far_inverse: &'a [Real; 3],
    pub(crate) t_min: Real,
    /// The range's end, already padded.
    pub(crate) t_max: Real,
    pub(crate) ends: [Real; 2],
}

impl SlabInput<'_> {
    /// The eight near planes along `axis`.
    #[inline(always)]
    pub(crate) fn near(&self, axis: usize) -> &[Real; 8] {
        self.rows.row(self.bounds, 0, axis)
    }

    /// The eight far planes along `axis`.
    #[inline(always)]
    pub(crate) fn far(&self, axis: usize) -> &[Real; 8] {
        self.rows.row(self.bounds, 1, axis)
    }
}

/// The slab test of eight child boxes (Kay & Kajiya 1986, with Ize's exit
/// padding): entry parameters clamped to `t_min`, the mask of boxes
/// entered within `[t_min, t_max]`, and the mask of boxes entered at or
/// before `ends[0]` or left (unclamped) at or after `ends[1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slab8 {
    pub(crate) enter: [Real; 8],
    pub(crate) entered: u32,
    pub(crate) at_ends: u32,
}

/// One binary node's step of the cost-optimal collapse into wide nodes
/// (`bvh::wide::collapse` has the recurrence and its source), for up to
/// eight slots; lane `i` stands for `i + 1` slots. From the least costs of
/// the left and right children's subtrees in `1..=8` slots and the node's
/// surface area: per `j = 1..=8` the node's least cost in at most `j`
/// slots (`cost`); per `j = 2..=8` the cheapest share of `j` slots for the
/// left child when the children share them (the smallest share on ties,
/// 1 when every sum is NaN or `+∞`), less one, in bits `3 (j − 2)` of
/// `left_slots`; and per `j = 1..=8` the slots the node's cheapest
/// representation fills (1 is the node itself; ties open it), less one,
/// in bits `3 (j − 1)` of `fills`. The collapse runs this on every inner
/// node; the scalar form's 28 sums in a chain were much of that pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CollapseRow8 {
    pub(crate) cost: [Real; 8],
    pub(crate) left_slots: u32,
    pub(crate) fills: u32,
}

/// [`CollapseRow8`] for nodes of `W ≤ 8` slots (lanes from `W` on are
/// unused), in scalar code: the reference the vector form must equal.
#[inline(always)]
pub(crate) fn collapse_row<const W: usize>(
    left: &[Real; 8],
    right: &[Real; 8],
    area: Real,
) -> CollapseRow8 {
    portable::collapse_row::<W>(left, right, area)
}

/// Squared distances from a point to eight child boxes: per axis, the
/// boxes' minima and maxima, the point, and the reach a descent keeps.
pub(crate) struct BoxDistanceInput<'a> {
    pub(crate) min: [&'a [Real; 8]; 3],
    pub(crate) max: [&'a [Real; 8]; 3],
    pub(crate) point: [Real; 3],
    pub(crate) reach_squared: Real,
}

/// Eight box distances (Arvo 1990: per axis the excess beyond the slab,
/// squared and summed; 0 inside, infinite for unused lanes), the mask of
/// those within the reach, and the mask of those at the least distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BoxDistances8 {
    pub(crate) squared: [Real; 8],
    pub(crate) within: u32,
    pub(crate) least: u32,
}

/// Eight triangles by vertex (`a`, `b`, `c`), axis and lane: a packet of
/// a nearest-point descent's leaf triangles ([`Isa::triangle_lower_bounds8`]).
pub(crate) type TriangleRows8 = [[[Real; 8]; 3]; 3];

/// `sin²` of the least angle at a triangle's first vertex for which
/// [`Isa::triangle_lower_bounds8`] trusts its normal (below it, the box
/// bound alone): the normal's direction is off by about `u / sin α`.
pub(crate) const LOWER_BOUND_SIN_SQUARED: Real = 1.0 / 64.0;

/// Below this product of squared edge lengths the normal's products leave
/// `f32`'s normal range: the box bound alone.
pub(crate) const LOWER_BOUND_LEAST_PAIR: Real = Real::MIN_POSITIVE / LOWER_BOUND_SIN_SQUARED;

/// Above this squared scale (`|p − a|²` plus the longest edge squared) the
/// edge distances' squares may overflow: the box bound alone.
pub(crate) const LOWER_BOUND_LARGEST_SCALE: Real = Real::MAX / 16.0;

/// What [`Isa::triangle_lower_bounds8`] takes off its rounded distance, in
/// units of its scale `|p − a|² + L²` (`L` the longest edge): `128u`. The
/// rounded offsets and edges put the edge points off by about `21u` of
/// `|p − v|² + |e|²` (with `|p − b|² ≤ 2|p − a|² + 2L²`: `63u` of the
/// scale), and the plane's distance, with a normal off by at most `16u`
/// of itself where it is trusted, by about `90u` of `|p − a|²`; which
/// side of an edge the projection falls on can be wrong only within a
/// rounding of it, where both answers agree to second order.
pub(crate) const LOWER_BOUND_MARGIN: Real = 64.0 * Real::EPSILON;

/// An instruction set the raycast kernels can run on.
pub(crate) trait Isa: Copy {
    /// The slab test of eight boxes (see [`Slab8`]).
    fn slab8(self, input: &SlabInput<'_>) -> Slab8;

    /// The distances from a point to eight boxes (see [`BoxDistances8`]).
    fn box_distances8(self, input: &BoxDistanceInput<'_>) -> BoxDistances8;

    /// Bit `i` set when word `i` has its top bit set (`movmskps`).
    fn top_bits8(self, words: &[u32; 8]) -> u32;

    /// One node's step of the 8-wide collapse (see [`CollapseRow8`]).
    fn collapse_row8(self, left: &[Real; 8], right: &[Real; 8], area: Real) -> CollapseRow8;

    /// Per lane, a lower bound of the squared distance from `p` to the
    /// triangle, never above the true one: its distance as Ericson's
    /// regions define it (the plane where `p` projects inside, else the
    /// nearest edge point; *Real-Time Collision Detection* §5.1.5) without
    /// branches, less [`LOWER_BOUND_MARGIN`] of its rounding scale, and
    /// never below the distance to the triangle's box; the box distance
    /// alone where the normal cannot be trusted (slivers, degenerate,
    /// tiny and huge triangles). Lanes of `+∞` vertices give `+∞`.
    fn triangle_lower_bounds8(self, p: &[Real; 3], v: &TriangleRows8) -> [Real; 8];
}

/// Plain Rust the compiler vectorises as it can: every target.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
pub(crate) struct Portable;

impl Isa for Portable {
    #[inline(always)]
    fn slab8(self, input: &SlabInput<'_>) -> Slab8 {
        portable::slab8(input)
    }

    #[inline(always)]
    fn box_distances8(self, input: &BoxDistanceInput<'_>) -> BoxDistances8 {
        portable::box_distances8(input)
    }

    #[inline(always)]
    fn top_bits8(self, words: &[u32; 8]) -> u32 {
        portable::top_bits8(words)
    }

    #[inline(always)]
    fn collapse_row8(self, left: &[Real; 8], right: &[Real; 8], area: Real) -> CollapseRow8 {
        portable::collapse_row::<8>(left, right, area)
    }

    #[inline(always)]
    fn triangle_lower_bounds8(self, p: &[Real; 3], v: &TriangleRows8) -> [Real; 8] {
        portable::triangle_lower_bounds8(p, v)
    }
}

/// The best instruction set every CPU of the target has: SSE2 on x86-64
/// (unless the `portable` feature is on), the portable forms elsewhere.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
pub(crate) type Baseline = x86::Sse2;
/// The best instruction set every CPU of the target has.
#[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
pub(crate) type Baseline = Portable;

/// Proof that this CPU runs AVX2 and the instructions every AVX2 CPU ships
/// with (FMA, BMI1, BMI2, LZCNT): only [`Avx2::detect`] makes one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2 {
    _detected: (),
}

impl Avx2 {
    /// The token when the CPU has AVX2 (checked once per process; later
    /// calls are one relaxed load). Never on other targets, nor with the
    /// `portable` feature.
    #[inline(always)]
    pub(crate) fn detect() -> Option<Avx2> {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if x86::has_avx2() {
            return Some(Avx2 { _detected: () });
        }
        None
    }
}

impl Isa for Avx2 {
    #[inline(always)]
    fn slab8(self, input: &SlabInput<'_>) -> Slab8 {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            // SAFETY: `self` proves the CPU has AVX (see `Avx2::detect`).
            unsafe { x86::slab8_avx(input) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
        portable::slab8(input)
    }

    #[inline(always)]
    fn box_distances8(self, input: &BoxDistanceInput<'_>) -> BoxDistances8 {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            // SAFETY: `self` proves the CPU has AVX (see `Avx2::detect`).
            unsafe { x86::box_distances8_avx(input) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
        portable::box_distances8(input)
    }

    #[inline(always)]
    fn top_bits8(self, words: &[u32; 8]) -> u32 {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            // SAFETY: `self` proves the CPU has AVX (see `Avx2::detect`).
            unsafe { x86::top_bits8_avx(words) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
        portable::top_bits8(words)
    }

    #[inline(always)]
    fn collapse_row8(self, left: &[Real; 8], right: &[Real; 8], area: Real) -> CollapseRow8 {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            // SAFETY: `self` proves the CPU has AVX2 (see `Avx2::detect`).
            unsafe { x86::collapse_row8_avx(left, right, area) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
        portable::collapse_row::<8>(left, right, area)
    }

    #[inline(always)]
    fn triangle_lower_bounds8(self, p: &[Real; 3], v: &TriangleRows8) -> [Real; 8] {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            // SAFETY: `self` proves the CPU has AVX (see `Avx2::detect`).
            unsafe { x86::triangle_lower_bounds8_avx(p, v) }
        }
        #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
        portable::triangle_lower_bounds8(p, v)
    }
}

/// Defines `fn $name(avx2: Avx2, ...) -> R` that runs its body compiled for
/// AVX2 (and its companions FMA, BMI1, BMI2, LZCNT), set-up included:
///
/// ```text
/// avx2_fn! {
///     fn any_hit_avx2[V: BoundingVolume](avx2: Avx2, tree: &MeshTree<V>) -> bool { ... }
/// }
/// ```
///
/// The body goes into a `#[target_feature]` function of its own, called
/// directly: through a generic runner taking a closure, the same descent
/// measured 15% slower (the same instructions, laid out worse). Generic
/// parameters go in brackets. On other targets, and with the `portable`
/// feature, the body runs as it is.
macro_rules! avx2_fn {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident [$($generics:tt)*]
            ($avx2:ident: Avx2 $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty $body:block
    ) => {
        $(#[$attr])*
        #[inline(always)]
        $vis fn $name<$($generics)*>($avx2: $crate::simd::Avx2 $(, $arg: $ty)*) -> $ret {
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            {
                #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt")]
                #[allow(clippy::too_many_arguments)]
                fn compiled_for_avx2<$($generics)*>(
                    $avx2: $crate::simd::Avx2 $(, $arg: $ty)*
                ) -> $ret $body
                #[allow(unsafe_code)]
                // SAFETY: an `Avx2` exists only after detection found every
                // feature `compiled_for_avx2` is compiled for.
                return unsafe { compiled_for_avx2($avx2 $(, $arg)*) };
            }
            #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
            $body
        }
    };
}
pub(crate) use avx2_fn;

/// Lane-wise minimum of the `min` corners and maximum of the `max` corners
/// of two boxes in four-lane form: the builder's box union. On x86-64 as
/// `minps`/`maxps`: compiled for AVX2, the portable selects became masked
/// stores (`vmaskmovps`, microcoded on AMD) and whole builds 1.8x slower.
#[inline(always)]
pub(crate) fn union4(
    a: (&[Real; 4], &[Real; 4]),
    b: (&[Real; 4], &[Real; 4]),
) -> ([Real; 4], [Real; 4]) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        x86::union4(a, b)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    portable::union4(a, b)
}

/// The bin of a record on all four lanes at once: `(min + max − origin) ·
/// scale`, clamped to `0..=last` and truncated (NaN to 0). On x86-64 one
/// vector conversion instead of three scalar ones.
#[inline(always)]
pub(crate) fn bins4(
    min: &[Real; 4],
    max: &[Real; 4],
    origin: &[Real; 4],
    scale: &[Real; 4],
    last: Real,
) -> [usize; 4] {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        x86::bins4(min, max, origin, scale, last)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    portable::bins4(min, max, origin, scale, last)
}

/// Rows of a 3×3 matrix in lanes, fourth lanes 0.
pub(crate) type Rows3 = [[Real; 4]; 3];

/// The 15-axis separating-axis test of two boxes with `R` (B's axes in A's
/// frame) by rows and every vector's fourth lane 0:
/// `intersect::boxes_overlap`'s sums in the same order, with `epsilon`
/// added to each `|R_ij|`; all axes are evaluated and combined once.
#[inline(always)]
pub(crate) fn boxes_overlap_rows(
    a: &[Real; 4],
    b: &[Real; 4],
    rows: &Rows3,
    t: &[Real; 4],
    epsilon: Real,
) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        x86::boxes_overlap_rows(a, b, rows, t, epsilon)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    portable::boxes_overlap_rows(a, b, rows, t, epsilon)
}

/// The rows of `aᵀ · m` from `m`'s rows: row `i` is
/// `a_0i m_0 + a_1i m_1 + a_2i m_2`.
#[inline(always)]
pub(crate) fn transposed_product_rows(a: &Matrix, m: &Rows3) -> Rows3 {
    product_rows(&a.transpose(), m)
}

/// The rows of `n · m` from `m`'s rows: row `i` is
/// `n_i0 m_0 + n_i1 m_1 + n_i2 m_2`.
#[inline(always)]
pub(crate) fn product_rows(n: &Matrix, m: &Rows3) -> Rows3 {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        x86::product_rows(n, m)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    portable::product_rows(n, m)
}

/// Running lane-wise extremes of points in a rotated frame and in the world
/// frame, for fitting an OBB-tree node in one pass (`fit::node_boxes`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FrameExtremes {
    /// Least and greatest `rows`-frame coordinates of `p − origin`.
    pub(crate) lo: [Real; 4],
    pub(crate) hi: [Real; 4],
    /// Least and greatest world coordinates.
    pub(crate) world_lo: [Real; 4],
    pub(crate) world_hi: [Real; 4],
    /// `Σ 0 · p`: NaN exactly when some coordinate was not finite.
    pub(crate) nan_if_not_finite: [Real; 4],
}

impl FrameExtremes {
    /// Nothing included yet.
    pub(crate) const EMPTY: FrameExtremes = FrameExtremes {
        lo: [Real::INFINITY; 4],
        hi: [Real::NEG_INFINITY; 4],
        world_lo: [Real::INFINITY; 4],
        world_hi: [Real::NEG_INFINITY; 4],
        nan_if_not_finite: [0.0; 4],
    };
}

/// Includes `p` (fourth lane 0) in `extremes`: its offset `d = p − origin`
/// in the frame whose rows are `rows` (`d_x row_0 + d_y row_1 + d_z row_2`,
/// summed in that order) and `p` itself. For finite input every form
/// answers alike.
#[inline(always)]
pub(crate) fn include_point(
    extremes: &mut FrameExtremes,
    p: &[Real; 4],
    origin: &[Real; 4],
    rows: &Rows3,
) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        x86::include_point(extremes, p, origin, rows);
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    portable::include_point(extremes, p, origin, rows);
}

/// Squared distance from `p` to the bounding box of a triangle stored by
/// axis (`x = [a.x, b.x, c.x, ·]`, fourth lanes ignored; Arvo 1990): per
/// axis the excess beyond the vertices' extent, squared, summed as
/// `(x + y) + z`. On x86-64 the three rows are transposed into vertices
/// in SSE registers, so the extents take four `minps`/`maxps` instead of
/// twelve scalar selects. For finite input every form answers alike, to
/// the bit.
#[inline(always)]
pub(crate) fn triangle_box_distance_squared(rows: &Rows3, p: &[Real; 4]) -> Real {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        x86::triangle_box_distance_squared(rows, p)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    portable::triangle_box_distance_squared(rows, p)
}

/// Asks the cache for every 64-byte line that `items` touches (a hint
/// only; nothing on targets without a prefetch instruction).
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T]) {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        let Some(last) = std::mem::size_of_val(items).checked_sub(1) else {
            return;
        };
        let start: *const i8 = items.as_ptr().cast();
        x86::prefetch_lines(start, ((start as usize & 63) + last) / 64);
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    let _ = items;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random rows with ties, zeros, infinities and NaN-producing `0 · ∞`.
    fn rows_and_ray(seed: u64) -> ([[[Real; 8]; 3]; 2], [Real; 3], [Real; 3]) {
        let mut next = crate::test_support::xorshift(seed);
        let mut value = move || {
            let bits = next();
            let x = crate::test_support::unit(bits) * 8.0 - 4.0;
            match bits % 7 {
                0 => 0.0,
                1 => x.round(),
                _ => x,
            }
        };
        let mut bounds = [[[0.0; 8]; 3]; 2];
        let [low, high] = &mut bounds;
        for (low_row, high_row) in low.iter_mut().zip(high.iter_mut()) {
            for (lo, hi) in low_row.iter_mut().zip(high_row.iter_mut()) {
                let (a, b) = (value(), value());
                (*lo, *hi) = (a.min(b), a.max(b));
            }
        }
        let origin = [value(), value(), value()];
        let inverse = [value(), value(), value()].map(|d| 1.0 / d);
        (bounds, origin, inverse)
    }

    #[test]
    fn triangle_box_distances_answer_as_the_portable_form_and_the_box() {
        let mut outside = 0;
        for seed in 1..20_000u64 {
            let mut next = crate::test_support::xorshift(seed);
            let mut value = move || {
                let bits = next();
                let x = crate::test_support::unit(bits) * 8.0 - 4.0;
                match bits % 5 {
                    0 => x.round(),
                    1 => x * 1e-20,
                    2 => x * 1e18,
                    _ => x,
                }
            };
            // Fourth lanes hold ids and flags in mesh trees: any bits.
            let mut row = || [value(), value(), value(), Real::from_bits(seed as u32)];
            let rows = [row(), row(), row()];
            let p = [value(), value(), value(), 0.0];
            let ours = triangle_box_distance_squared(&rows, &p);
            assert_eq!(
                ours.to_bits(),
                portable::triangle_box_distance_squared(&rows, &p).to_bits(),
                "seed {seed}"
            );
            // The box's own distance, summed in the same order.
            let axis = |r: &[Real; 4], c: Real| {
                let (lo, hi) = (r[0].min(r[1]).min(r[2]), r[0].max(r[1]).max(r[2]));
                let out = (lo - c).max(c - hi).max(0.0);
                out * out
            };
            let expected = (axis(&rows[0], p[0]) + axis(&rows[1], p[1])) + axis(&rows[2], p[2]);
            assert_eq!(ours.to_bits(), expected.to_bits(), "seed {seed}");
            outside += usize::from(ours > 0.0);
        }
        assert!(outside > 10_000);
    }

    /// The 8-lane lower bounds of point–triangle distances: every form
    /// answers as the portable one, to the bit, and no bound lies above
    /// what a nearest-point descent may prune at for that triangle (the
    /// exact closest point's distance with the descent's slack: `4ε` of
    /// itself and `64ε` of the coordinates), on well-shaped triangles,
    /// slivers, needles, degenerate ones, and at scales from 1e-20 to 1e30;
    /// far from well-shaped triangles the bound is the distance to within
    /// a few ulps (so it prunes), and padding lanes of `+∞` give `+∞`.
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn triangle_lower_bounds_stay_below_the_distance_and_answer_alike() {
        use crate::intersect::closest_point_on_triangle;
        use crate::math::{Point, distance_squared_wide, squared_reach};
        use crate::shape::Triangle;
        let (mut tight, mut far_well_shaped) = (0, 0);
        for seed in 1..6_000u64 {
            let mut next = crate::test_support::xorshift(seed);
            let mut unit = move || crate::test_support::unit(next()) * 2.0 - 1.0;
            let scale = [1.0, 1e-20, 1e-5, 1e5, 1e18, 1e30][seed as usize % 6];
            let mut rows: TriangleRows8 = [[[Real::INFINITY; 8]; 3]; 3];
            let mut triangles = Vec::new();
            // Lane 7 stays padding.
            for lane in 0..7 {
                let a = Point::new(unit(), unit(), unit());
                let b = Point::new(unit(), unit(), unit());
                let c = match lane % 4 {
                    // A sliver: `c` near the segment `ab`.
                    1 => a + (b - a) * unit().abs() + (b - a).cross(&a.coords) * 1e-4,
                    // Degenerate: a repeated vertex.
                    2 => a,
                    _ => Point::new(unit(), unit(), unit()),
                };
                let tri = Triangle::new(a * scale, b * scale, c * scale);
                for (v, point) in [tri.a, tri.b, tri.c].iter().enumerate() {
                    for axis in 0..3 {
                        rows[v][axis][lane] = point[axis];
                    }
                }
                triangles.push(tri);
            }
            let far = if seed % 3 == 0 { 50.0 } else { 1.5 };
            let p = [
                unit() * far * scale,
                unit() * far * scale,
                unit() * far * scale,
            ];
            let bounds = portable::triangle_lower_bounds8(&p, &rows);
            if let Some(avx2) = Avx2::detect() {
                let fast = avx2.triangle_lower_bounds8(&p, &rows);
                assert_eq!(
                    fast.map(Real::to_bits),
                    bounds.map(Real::to_bits),
                    "seed {seed}"
                );
            }
            assert_eq!(bounds[7], Real::INFINITY, "seed {seed}: padding");
            let point = Point::new(p[0], p[1], p[2]);
            for (lane, tri) in triangles.iter().enumerate() {
                let closest = closest_point_on_triangle(&point, tri);
                let d = distance_squared_wide(&closest.point, &point).sqrt() as Real;
                let s = [tri.a, tri.b, tri.c]
                    .iter()
                    .map(|v| v.coords.amax())
                    .fold(0.0, Real::max);
                let prunes_at =
                    squared_reach(d * (1.0 + 4.0 * Real::EPSILON) + 64.0 * Real::EPSILON * s);
                assert!(
                    bounds[lane] <= prunes_at,
                    "seed {seed} lane {lane}: bound {} above {prunes_at} ({tri:?}, {p:?})",
                    bounds[lane]
                );
                if lane % 4 != 1 && lane % 4 != 2 && seed % 3 == 0 && (1e-5..=1e18).contains(&scale)
                {
                    far_well_shaped += 1;
                    tight += usize::from(bounds[lane] >= d * d * (1.0 - 1e-4));
                }
            }
        }
        assert!(
            tight * 10 >= far_well_shaped * 9,
            "{tight} of {far_well_shaped} tight"
        );
    }

    #[test]
    fn box_tests_and_row_products_answer_as_the_portable_ones() {
        let mut overlapping = 0;
        for seed in 1..20_000u64 {
            let mut next = crate::test_support::xorshift(seed);
            let mut value = move || {
                let bits = next();
                let x = crate::test_support::unit(bits) * 2.0 - 1.0;
                match bits % 23 {
                    0 => 0.0,
                    1 => Real::NAN,
                    2 => Real::INFINITY,
                    _ => x,
                }
            };
            let mut lanes = |scale: Real| [value() * scale, value() * scale, value() * scale, 0.0];
            let (a, b, t) = (
                lanes(1.0).map(Real::abs),
                lanes(1.0).map(Real::abs),
                lanes(1.5),
            );
            let rows = [lanes(1.0), lanes(1.0), lanes(1.0)];
            let expected = portable::boxes_overlap_rows(&a, &b, &rows, &t, 1e-6);
            assert_eq!(
                boxes_overlap_rows(&a, &b, &rows, &t, 1e-6),
                expected,
                "seed {seed}"
            );
            overlapping += usize::from(expected);
            let n = Matrix::from_fn(|_, _| value());
            let same = |x: &Rows3, y: &Rows3| {
                x.iter()
                    .flatten()
                    .zip(y.iter().flatten())
                    .all(|(p, q)| p.to_bits() == q.to_bits())
            };
            assert!(
                same(&product_rows(&n, &rows), &portable::product_rows(&n, &rows)),
                "seed {seed}"
            );
        }
        // Both answers occur often.
        assert!((2_000..18_000).contains(&overlapping), "{overlapping}");
    }

    #[test]
    fn frame_extremes_answer_as_the_portable_form() {
        let mut next = crate::test_support::unit_floats(11);
        let mut lanes = |scale: Real| [next() * scale, next() * scale, next() * scale, 0.0];
        for case in 0..500 {
            let scale = [1e-20, 1.0, 3e4, 1e20][case % 4];
            let (origin, rows) = (lanes(scale), [lanes(1.0), lanes(1.0), lanes(1.0)]);
            let (mut ours, mut expected) = (FrameExtremes::EMPTY, FrameExtremes::EMPTY);
            for _ in 0..case % 9 {
                let mut p = lanes(scale);
                if case % 50 == 7 {
                    p[1] = Real::INFINITY;
                }
                include_point(&mut ours, &p, &origin, &rows);
                portable::include_point(&mut expected, &p, &origin, &rows);
            }
            let bits = |e: &FrameExtremes| {
                [e.lo, e.hi, e.world_lo, e.world_hi, e.nan_if_not_finite]
                    .map(|v| v.map(Real::to_bits))
            };
            assert_eq!(bits(&ours), bits(&expected), "case {case}");
        }
    }

    #[test]
    fn every_slab_form_answers_as_the_portable_one() {
        const PADDING: Real = 1.000_000_4;
        let mut checked = 0;
        for seed in 1..2000u64 {
            let (bounds, origin, inverse) = rows_and_ray(seed);
            let rows = SlabRows::new(inverse.map(|v| v < 0.0));
            let flat: &[Real; 48] = bounds.as_flattened().as_flattened().try_into().unwrap();
            for axis in 0..3 {
                let side = usize::from(inverse[axis] < 0.0);
                assert_eq!(rows.row(flat, 0, axis), &bounds[side][axis]);
                assert_eq!(rows.row(flat, 1, axis), &bounds[1 - side][axis]);
            }
            for (t_min, t_max) in [(0.0, 1.0), (0.25, 3.0), (0.0, Real::INFINITY)] {
                let input = SlabInput {
                    bounds: flat,
                    rows: &rows,
                    origin: &origin,
                    inverse: &inverse,
                    far_inverse: &inverse.map(|v| v * PADDING),
                    t_min,
                    t_max: t_max * PADDING,
                    ends: crate::intersect::end_thresholds(t_min, t_max),
                };
                let expected = Portable.slab8(&input);
                assert_eq!(Baseline::default().slab8(&input), expected, "seed {seed}");
                if let Some(avx2) = Avx2::detect() {
                    assert_eq!(avx2.slab8(&input), expected, "seed {seed}");
                }
                checked += 1;
            }
        }
        assert!(checked > 5000);
    }

    #[test]
    fn box_distances_and_top_bits_answer_as_the_portable_ones() {
        let mut checked = 0;
        for seed in 1..2000u64 {
            let (mut bounds, point, _) = rows_and_ray(seed);
            // Unused lanes (empty boxes) and ties of distance.
            if seed % 3 == 0 {
                let [low, high] = &mut bounds;
                for (lo, hi) in low.iter_mut().zip(high.iter_mut()) {
                    lo[seed as usize % 8] = Real::INFINITY;
                    hi[seed as usize % 8] = Real::NEG_INFINITY;
                }
            }
            for reach_squared in [0.0, 1.0, 16.0, Real::INFINITY] {
                let input = BoxDistanceInput {
                    min: std::array::from_fn(|axis| &bounds[0][axis]),
                    max: std::array::from_fn(|axis| &bounds[1][axis]),
                    point,
                    reach_squared,
                };
                let expected = Portable.box_distances8(&input);
                assert_eq!(
                    Baseline::default().box_distances8(&input),
                    expected,
                    "seed {seed}"
                );
                if let Some(avx2) = Avx2::detect() {
                    assert_eq!(avx2.box_distances8(&input), expected, "seed {seed}");
                }
                assert_ne!(expected.least, 0);
                checked += 1;
            }
            let words: [u32; 8] = std::array::from_fn(|i| (seed as u32).rotate_left(i as u32 * 5));
            let expected = Portable.top_bits8(&words);
            assert_eq!(Baseline::default().top_bits8(&words), expected);
            if let Some(avx2) = Avx2::detect() {
                assert_eq!(avx2.top_bits8(&words), expected);
            }
        }
        assert!(checked > 5000);
    }

    #[test]
    fn collapse_rows_answer_as_the_portable_form() {
        let mut next = crate::test_support::xorshift(0xC011_A95E);
        // Quarter steps up to 16 (many ties), the infinities, NaN, −0 and
        // tiny values; real rows never grow with more slots, arbitrary
        // rows test the forms' agreement beyond what trees produce.
        let value = move |bits: u64| match bits % 16 {
            0 => Real::INFINITY,
            1 => Real::NAN,
            2 => -0.0,
            3 => Real::NEG_INFINITY,
            4 => Real::MIN_POSITIVE,
            _ => ((bits >> 8) % 64) as Real * 0.25,
        };
        let (mut shared, mut opened) = (0, 0);
        for case in 0..60_000 {
            let mut row = || -> [Real; 8] {
                let mut row: [Real; 8] = std::array::from_fn(|_| value(next()));
                if case % 2 == 0 {
                    // Non-increasing, as the collapse's rows are.
                    for i in 1..8 {
                        row[i] = if row[i] < row[i - 1] {
                            row[i]
                        } else {
                            row[i - 1]
                        };
                    }
                }
                row
            };
            let (left, right) = (row(), row());
            let area = if case % 5 == 0 {
                value(next())
            } else {
                ((next() >> 8) % 64) as Real * 0.25
            };
            let expected = Portable.collapse_row8(&left, &right, area);
            let bits = |s: CollapseRow8| (s.cost.map(Real::to_bits), s.left_slots, s.fills);
            let baseline = Baseline::default().collapse_row8(&left, &right, area);
            assert_eq!(bits(baseline), bits(expected), "case {case}");
            if let Some(avx2) = Avx2::detect() {
                let vector = avx2.collapse_row8(&left, &right, area);
                assert_eq!(
                    bits(vector),
                    bits(expected),
                    "case {case}: {left:?} {right:?} {area}"
                );
            }
            shared += usize::from(expected.left_slots != 0);
            opened += usize::from(expected.fills != 0);
        }
        // The cases reach the choices, not only the defaults.
        assert!(shared > 10_000 && opened > 10_000, "{shared} {opened}");
    }

    #[test]
    fn box_unions_and_bins_answer_as_the_portable_ones() {
        let mut next = crate::test_support::xorshift(0xB1A5);
        let mut lanes = move || {
            std::array::from_fn::<Real, 4, _>(|_| {
                let bits = next();
                match bits % 9 {
                    0 => Real::NAN,
                    1 => Real::INFINITY,
                    _ => crate::test_support::unit(bits) * 40.0 - 20.0,
                }
            })
        };
        for _ in 0..20_000 {
            let (a0, a1, b0, b1) = (lanes(), lanes(), lanes(), lanes());
            let ours = union4((&a0, &a1), (&b0, &b1));
            let reference = portable::union4((&a0, &a1), (&b0, &b1));
            // Both forms keep the second operand on NaN: equal bit for bit.
            let bits = |v: [Real; 4]| v.map(Real::to_bits);
            assert_eq!(bits(ours.0), bits(reference.0));
            assert_eq!(bits(ours.1), bits(reference.1));
            let (origin, scale) = (lanes().map(Real::abs), lanes().map(|s| s.abs() * 0.5));
            if origin.iter().chain(&scale).all(|v| v.is_finite()) {
                let bins = bins4(&a0, &a1, &origin, &scale, 15.0);
                assert_eq!(bins, portable::bins4(&a0, &a1, &origin, &scale, 15.0));
                assert!(bins.iter().all(|&b| b <= 15));
            }
        }
    }
}
