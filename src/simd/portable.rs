#![cfg_attr(
    all(target_arch = "x86_64", not(feature = "portable"), not(test)),
    allow(dead_code)
)]
//! The portable forms: plain Rust, written so the compiler can vectorise
//! it, on every target (and on x86-64 with the `portable` feature). The
//! x86-64 forms must answer exactly as these.

use super::{
    BoxDistanceInput, BoxDistances8, CollapseRow8, FrameExtremes, Rows3, Slab8, SlabInput,
};
use crate::math::{Matrix, Real};

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
        t_min, t_max, ends, ..
    } = *input;
    let mut enter = [t_min; 8];
    let mut exit = [t_max; 8];
    let mut reach = [Real::INFINITY; 8];
    for axis in 0..3 {
        let (o, inv, far_inv) = (
            input.origin[axis],
            input.inverse[axis],
            input.far_inverse[axis],
        );
        for lane in 0..8 {
            let t_near = (input.near(axis)[lane] - o) * inv;
            let t_far = (input.far(axis)[lane] - o) * far_inv;
            enter[lane] = max(t_near, enter[lane]);
            exit[lane] = min(t_far, exit[lane]);
            reach[lane] = min(t_far, reach[lane]);
        }
    }
    let (mut entered, mut at_ends) = (0, 0);
    for lane in 0..8 {
        entered |= u32::from(enter[lane] <= exit[lane]) << lane;
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

/// See [`super::triangle_box_distance_squared`].
#[inline(always)]
pub(super) fn triangle_box_distance_squared(rows: &super::Rows3, p: &[Real; 4]) -> Real {
    let axis = |lanes: &[Real; 4], c: Real| {
        let lo = min(min(lanes[0], lanes[1]), lanes[2]);
        let hi = max(max(lanes[0], lanes[1]), lanes[2]);
        let out = max(max(lo - c, c - hi), 0.0);
        out * out
    };
    (axis(&rows[0], p[0]) + axis(&rows[1], p[1])) + axis(&rows[2], p[2])
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

/// See [`super::collapse_row`]: the sums one at a time, smaller shares
/// first, a sum replacing the best only when strictly less; then the
/// node's costs by slots, a larger representation taken when no dearer.
#[inline(always)]
pub(super) fn collapse_row<const W: usize>(
    left: &[Real; 8],
    right: &[Real; 8],
    area: Real,
) -> CollapseRow8 {
    let mut row = CollapseRow8 {
        cost: [Real::INFINITY; 8],
        left_slots: 0,
        fills: 0,
    };
    // `opened[j - 1]`: the least cost of the children sharing `j` slots.
    let mut opened = [Real::INFINITY; 8];
    for j in 2..=W {
        // One slot to the left child is always a valid split (costs can be
        // +∞ for boxes whose area overflows, and then no split is cheaper).
        // Selects rather than branches: which split wins is close to random.
        let (mut best, mut share) = (Real::INFINITY, 1);
        for k in 1..j {
            let c = left[k - 1] + right[j - k - 1];
            let better = c < best;
            best = if better { c } else { best };
            share = if better { k as u32 } else { share };
        }
        opened[j - 1] = best;
        row.left_slots |= (share - 1) << (3 * (j - 2));
    }
    let (mut cost, mut fills) = (area + opened[W - 1], 1);
    row.cost[0] = cost;
    for j in 2..=W {
        // Ties open the node: more boxes per visit for the same cost (and
        // +∞ costs still fill the slots).
        let open = opened[j - 1] <= cost;
        cost = if open { opened[j - 1] } else { cost };
        fills = if open { j as u32 } else { fills };
        row.cost[j - 1] = cost;
        row.fills |= (fills - 1) << (3 * (j - 1));
    }
    row
}

/// See [`super::boxes_overlap_rows`]: the same sums lane by lane.
#[inline(always)]
pub(super) fn boxes_overlap_rows(
    a: &[Real; 4],
    b: &[Real; 4],
    r: &Rows3,
    t: &[Real; 4],
    epsilon: Real,
) -> bool {
    type Lanes = [Real; 4];
    let q: Rows3 = r.map(|row| {
        let mut q = row.map(|x| x.abs() + epsilon);
        q[3] = row[3].abs();
        q
    });
    let mut separated = false;
    let mut test = |d: Lanes, ra: Lanes, rb: Lanes| {
        for k in 0..4 {
            separated |= d[k].abs() > ra[k] + rb[k];
        }
    };
    // A's face axes, lane i: |t_i| > a_i + Σ_j b_j |R_ij|.
    let column = |j: usize| -> Lanes { [q[0][j], q[1][j], q[2][j], 0.0] };
    let (c0, c1, c2) = (column(0), column(1), column(2));
    test(
        *t,
        *a,
        std::array::from_fn(|i| b[0] * c0[i] + b[1] * c1[i] + b[2] * c2[i]),
    );
    // B's face axes, lane j: |Σ_i t_i R_ij| > Σ_i a_i |R_ij| + b_j.
    test(
        std::array::from_fn(|j| t[0] * r[0][j] + t[1] * r[1][j] + t[2] * r[2][j]),
        std::array::from_fn(|j| a[0] * q[0][j] + a[1] * q[1][j] + a[2] * q[2][j]),
        *b,
    );
    // Edge axes Aᵢ × Bⱼ, lane j, for each i.
    let next = |v: &Lanes| -> Lanes { [v[1], v[2], v[0], v[3]] };
    let after = |v: &Lanes| -> Lanes { [v[2], v[0], v[1], v[3]] };
    let (b_next, b_after) = (next(b), after(b));
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let (q_next, q_after) = (next(&q[i]), after(&q[i]));
        test(
            std::array::from_fn(|j| t[i2] * r[i1][j] - t[i1] * r[i2][j]),
            std::array::from_fn(|j| a[i1] * q[i2][j] + a[i2] * q[i1][j]),
            std::array::from_fn(|j| b_next[j] * q_after[j] + b_after[j] * q_next[j]),
        );
    }
    !separated
}

/// See [`super::product_rows`].
#[inline(always)]
pub(super) fn product_rows(n: &Matrix, m: &Rows3) -> Rows3 {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| n[(i, 0)] * m[0][j] + n[(i, 1)] * m[1][j] + n[(i, 2)] * m[2][j])
    })
}

/// See [`super::include_point`].
#[inline(always)]
pub(super) fn include_point(
    extremes: &mut FrameExtremes,
    p: &[Real; 4],
    origin: &[Real; 4],
    rows: &Rows3,
) {
    let d: [Real; 4] = std::array::from_fn(|k| p[k] - origin[k]);
    for i in 0..4 {
        let local = d[0] * rows[0][i] + d[1] * rows[1][i] + d[2] * rows[2][i];
        extremes.lo[i] = min(local, extremes.lo[i]);
        extremes.hi[i] = max(local, extremes.hi[i]);
        extremes.world_lo[i] = min(p[i], extremes.world_lo[i]);
        extremes.world_hi[i] = max(p[i], extremes.world_hi[i]);
        extremes.nan_if_not_finite[i] += p[i] * 0.0;
    }
}

/// See [`super::Isa::triangle_lower_bounds8`]: the eight lanes one by one,
/// each in [`triangle_lower_bound`]'s order of operations.
#[inline(always)]
pub(super) fn triangle_lower_bounds8(p: &[Real; 3], v: &super::TriangleRows8) -> [Real; 8] {
    std::array::from_fn(|lane| {
        let vertex = |i: usize| [v[i][0][lane], v[i][1][lane], v[i][2][lane]];
        triangle_lower_bound(p, vertex(0), vertex(1), vertex(2))
    })
}

/// One lane of [`super::Isa::triangle_lower_bounds8`]. Every operation is
/// one the 8-lane forms take in the same order (no fused multiply-adds),
/// so all forms answer alike, to the bit.
#[inline(always)]
pub(super) fn triangle_lower_bound(
    p: &[Real; 3],
    a: [Real; 3],
    b: [Real; 3],
    c: [Real; 3],
) -> Real {
    type V = [Real; 3];
    let sub = |u: V, w: V| [u[0] - w[0], u[1] - w[1], u[2] - w[2]];
    let dot = |u: V, w: V| u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
    let cross = |u: V, w: V| {
        [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ]
    };
    let (ab, ac, bc, ca) = (sub(b, a), sub(c, a), sub(c, b), sub(a, c));
    let (ap, bp, cp) = (sub(*p, a), sub(*p, b), sub(*p, c));
    let n = cross(ab, ac);
    let nn = dot(n, n);
    let (lab, lbc, lca) = (dot(ab, ab), dot(bc, bc), dot(ca, ca));
    // The nearest point of each edge, from its clamped parameter (a
    // zero-length edge gives NaN, which the clamp makes 0).
    let segment = |v: V, e: V, ee: Real| {
        let t = min(max(dot(v, e) / ee, 0.0), 1.0);
        let r = [v[0] - e[0] * t, v[1] - e[1] * t, v[2] - e[2] * t];
        dot(r, r)
    };
    let edges = min(
        min(segment(ap, ab, lab), segment(bp, bc, lbc)),
        segment(cp, ca, lca),
    );
    let inside = (dot(n, cross(ab, ap)) >= 0.0)
        & (dot(n, cross(bc, bp)) >= 0.0)
        & (dot(n, cross(ca, cp)) >= 0.0);
    let h = dot(n, ap);
    let plane = h * (h / nn);
    let pair = lab * lca;
    let scale = dot(ap, ap) + max(max(lab, lbc), lca);
    let trusted = (nn > pair * super::LOWER_BOUND_SIN_SQUARED)
        & (super::LOWER_BOUND_LEAST_PAIR..=Real::MAX).contains(&pair)
        & (scale <= super::LOWER_BOUND_LARGEST_SCALE);
    let exact = if inside { plane } else { edges };
    let bound = exact - super::LOWER_BOUND_MARGIN * scale;
    let mut boxed: Real = 0.0;
    for axis in 0..3 {
        let lo = min(min(a[axis], b[axis]), c[axis]);
        let hi = max(max(a[axis], b[axis]), c[axis]);
        let out = max(max(lo - p[axis], p[axis] - hi), 0.0);
        boxed += out * out;
    }
    if trusted { max(bound, boxed) } else { boxed }
}
