//! The partition of a node's records into two halves, branch-free after
//! Edelkamp and Weiß ("BlockQuicksort", 2016): blocks classified from both
//! ends, misplaced records swapped pairwise. It summarises both halves as it
//! goes, so each child starts with its summary.
//!
//! It is an associated function of [`Halves`] (defined with the builder in
//! `mod.rs`) rather than a free function of this module: rustc places a
//! generic function's instances by the module of its `impl`'s type, so this
//! keeps them in the builder's codegen unit, where the SAH and mean splits
//! inline them as they did when everything was one file (as a free function
//! here, `partition` was compiled out of line).

use super::Halves;
use super::prim::{Bounds, NodeSummary, PrimRef};

/// Records classified per block by [`Halves::partition`].
const PARTITION_BLOCK: usize = 64;

impl Halves {
    /// Moves the records that satisfy `left` to the front and
    /// summarises both halves, without data-dependent branches.
    ///
    /// Hoare's two-ended partition moves only misplaced records but branches on
    /// each one; on meshes whose triangle order is not spatially coherent (as
    /// scanned and modelled meshes often are) those branches are close to
    /// coin flips (inferred from timings; this machine has no branch counters):
    /// a shuffled terrain built 1.8x slower than the same terrain in grid order
    /// (the build bench keeps that shuffled terrain; it now builds as fast).
    /// Here blocks of records are classified from both ends into lists of
    /// misplaced offsets without branching, and the lists are then swapped
    /// pairwise (Edelkamp and Weiß, "BlockQuicksort", 2016). The fewer than
    /// two blocks of records left go through `scratch`: each record is written
    /// to both free ends and only the matching end's cursor advances. Both halves are then
    /// summarised in streaming passes.
    pub(super) fn partition(
        ids: &mut [PrimRef],
        scratch: &mut Vec<PrimRef>,
        left: impl Fn(&PrimRef) -> bool,
    ) -> Halves {
        // `ids[..l]` belong left, `ids[r..]` right; `l .. r` is undecided,
        // apart from the misplaced offsets still listed for its end blocks.
        let (mut l, mut r) = (0, ids.len());
        let (mut off_l, mut off_r) = ([0u8; PARTITION_BLOCK], [0u8; PARTITION_BLOCK]);
        let (mut start_l, mut num_l, mut start_r, mut num_r) = (0, 0, 0, 0);
        while r - l >= 2 * PARTITION_BLOCK {
            if num_l == 0 {
                start_l = 0;
                for (i, p) in ids[l..l + PARTITION_BLOCK].iter().enumerate() {
                    off_l[num_l] = i as u8;
                    num_l += usize::from(!left(p));
                }
            }
            if num_r == 0 {
                start_r = 0;
                for (i, p) in ids[r - PARTITION_BLOCK..r].iter().rev().enumerate() {
                    off_r[num_r] = i as u8;
                    num_r += usize::from(left(p));
                }
            }
            let swaps = num_l.min(num_r);
            for k in 0..swaps {
                let i = l + usize::from(off_l[start_l + k]);
                let j = r - 1 - usize::from(off_r[start_r + k]);
                ids.swap(i, j);
            }
            (num_l, num_r) = (num_l - swaps, num_r - swaps);
            (start_l, start_r) = (start_l + swaps, start_r + swaps);
            if num_l == 0 {
                l += PARTITION_BLOCK;
            }
            if num_r == 0 {
                r -= PARTITION_BLOCK;
            }
        }
        let tail = &ids[l..r];
        if scratch.len() < tail.len() {
            scratch.resize(
                tail.len(),
                PrimRef {
                    bounds: Bounds::EMPTY,
                },
            );
        }
        let out = &mut scratch[..tail.len()];
        // Free slots of `out` are `lo .. hi`; before each record one is free.
        let (mut lo, mut hi) = (0, tail.len());
        for p in tail.iter() {
            let goes_left = left(p);
            out[lo] = *p;
            out[hi - 1] = *p;
            lo += usize::from(goes_left);
            hi -= usize::from(!goes_left);
        }
        let (head, rest) = ids.split_at_mut(l);
        let (tail, end) = rest.split_at_mut(r - l);
        let [mut left, mut right] = [NodeSummary::of(head), NodeSummary::of(end)];
        // Copied back while summarised: one pass over the tail instead of two
        // (and no call to `memmove`, which small nodes paid for).
        let (tail_left, tail_right) = tail.split_at_mut(lo);
        left.add_copies(tail_left, &out[..lo]);
        right.add_copies(tail_right, &out[lo..]);
        Halves {
            mid: l + lo,
            summaries: [left, right],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounding_volume::Aabb;
    use crate::math::{Point, Real, Vector};

    #[test]
    fn block_partition_splits_every_size_and_summarises_both_halves() {
        // Sizes around the block boundaries, with predicates that put all,
        // none, or a pseudo-random subset of the records on the left.
        let mut state = 0x9e37_79b9_u32;
        let mut scratch = Vec::new();
        for n in [0, 1, 2, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 4099] {
            let records: Vec<PrimRef> = (0..n as u32)
                .map(|id| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    let x = (state >> 8) as Real / (1 << 24) as Real;
                    let p = Point::new(x, 2.0 * x, -x);
                    PrimRef::new(&Aabb::new(p, p + Vector::new(0.5, 0.25, 0.125)), id, 1)
                })
                .collect();
            // Thresholds on the random keys, then layouts where whole blocks
            // are misplaced: every record on the wrong side (by id), and
            // alternating runs of 64.
            let by_key = [-1.0, 0.3, 0.5, 0.9, 2.0].map(|t| (t, 0));
            let by_id = [(0.0, 1), (0.0, 2)];
            for (threshold, layout) in by_key.into_iter().chain(by_id) {
                let mut ids = records.clone();
                let goes_left = |p: &PrimRef| match layout {
                    0 => p.centroid()[0] < threshold,
                    1 => p.id() as usize >= n / 2,
                    _ => p.id() / 64 % 2 == 1,
                };
                let halves = Halves::partition(&mut ids, &mut scratch, goes_left);
                let mid = halves.mid;
                let expected_left = records.iter().filter(|p| goes_left(p)).count();
                assert_eq!(
                    mid, expected_left,
                    "n {n} layout {layout} threshold {threshold}"
                );
                assert!(ids[..mid].iter().all(&goes_left));
                assert!(ids[mid..].iter().all(|p| !goes_left(p)));
                let mut seen: Vec<u32> = ids.iter().map(PrimRef::id).collect();
                seen.sort_unstable();
                assert!(
                    seen.iter().copied().eq(0..n as u32),
                    "records lost or repeated"
                );
                for (half, range) in [(0, &ids[..mid]), (1, &ids[mid..])] {
                    let (got, want) = (&halves.summaries[half], NodeSummary::of(range));
                    assert_eq!(got.node_box.to_aabb(), want.node_box.to_aabb());
                    assert_eq!(
                        got.centroid_bounds.to_aabb(),
                        want.centroid_bounds.to_aabb()
                    );
                }
            }
        }
    }
}
