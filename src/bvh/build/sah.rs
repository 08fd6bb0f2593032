//! Binned SAH (Wald, "On fast construction of SAH-based bounding volume
//! hierarchies", 2007): the grid of bins over a node's centroids, the binning
//! pass (sampled in large nodes, into two alternating bin sets), and the
//! sweep over the filled bins that picks the cheapest plane.

use super::prim::{Bounds, Lanes, NodeSummary, PrimRef, triangle_count};
use super::{Builder, Halves};
use crate::bvh::{SplitSearch, set_bits};
use crate::math::Real;

/// Nodes of at least this many triangles bin into two alternating sets (see
/// [`Builder::sah_split`]); smaller ones have short read-modify-write chains
/// and one set spares them folding the second into the first. Bunny 8%,
/// icosphere 4% faster than two sets everywhere; 32 and 128 did less.
const TWO_BIN_SETS_MIN: usize = 64;
/// Nodes of at most this many records bin into at most [`SMALL_BINS`].
pub(super) const SMALL_NODE_MAX: usize = 32;
/// Most bins per axis for nodes of at most [`SMALL_NODE_MAX`] records.
pub(super) const SMALL_BINS: usize = 8;
/// Most bins the SAH builder uses per axis.
pub(super) const MAX_BINS: usize = 64;
/// The SAH builder bins only the axes whose centroid extent is at least this
/// fraction of the longest one. Measured on the bench meshes: 0.5 built
/// 15–20 % faster than binning all three axes, SAH cost within 1 % (one
/// mesh improved); 0.6 another 3–4 % faster (binning is the largest part
/// of the build), SAH +0.05 % (terrains) to +0.5 % (bunny, env), rob
/// −0.6 %, all still below parry3d's; 0.75 was 6–10 % faster, but SAH
/// +5.3 % on env and +3.7 % on rob.
const MIN_BINNED_EXTENT: Real = 0.6;
/// SAH cost of one traversal step relative to one triangle test.
pub(super) const TRAVERSAL_COST: Real = 1.0;
/// Nodes of at least twice this many triangles bin an evenly strided sample
/// of this to 1.5 times this many (the stride is `n / BIN_SAMPLE` rounded
/// down) to choose their plane (the partition still
/// moves all of them): the SAH estimate of a plane converges long before
/// every triangle is counted, and binning is the largest part of each
/// level's work. 512 had been chosen on scans and terrains (3-10% faster
/// builds than 4096, SAH cost within ±0.2%), but on the architectural
/// `TriMesh::city(10, 3)` its sampled planes cost 7% in SAH and 8% in
/// node visits per raycast: 2048 gives back nearly all of it (4096 no
/// more) for builds 2% (1M terrain) to 5% (bunny) slower, raycasts on the
/// city 6-8% faster in criterion.
const BIN_SAMPLE: usize = 2048;

/// Per axis, the box and triangle count of each SAH bin.
pub(super) type AxisBins = [[(Bounds, u32); MAX_BINS]; 3];

impl Builder<'_> {
    /// Binned SAH (Wald 2007) over the centroid bounds of `ids`: the size of
    /// the left part after partitioning, or `None` when no plane separates
    /// the centroids or (unless `forced`) a leaf is cheaper than any split.
    /// One pass bins every axis [`BinGrid`] keeps; the partition is the other.
    pub(super) fn sah_split<const RUNS: bool>(
        &mut self,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
        bin_count: usize,
        search: SplitSearch,
        forced: bool,
    ) -> Option<Halves> {
        let (min_binned_extent, stride) = match search {
            SplitSearch::Fast => (MIN_BINNED_EXTENT, (ids.len() / BIN_SAMPLE).max(1)),
            SplitSearch::Thorough => (0.0, 1),
        };
        let grid = BinGrid::new(&summary.centroid_bounds, bin_count, min_binned_extent);
        // Which bins each set filled per axis, as bit sets (bin count ≤ 64).
        // The bins are empty on entry; the sweep below empties them again.
        let mut filled = [[0u64; 3]; 2];
        let bins = self
            .bins
            .as_deref_mut()
            .expect("a builder keeps its bins until it is dropped");
        grid.add_all::<RUNS>(bins, &mut filled, ids, stride);
        let [all_bins, odd] = bins;
        let [filled_all, filled_odd] = &mut filled;
        let right_cost = &mut self.right_cost;
        // (cost, axis, bin right of the plane) of the cheapest plane so far.
        let mut best: Option<(Real, usize, usize)> = None;
        for axis in 0..3 {
            // The second set folded into the first and emptied.
            let (main, other) = (&mut all_bins[axis], &mut odd[axis]);
            for b in set_bits(filled_odd[axis]) {
                let (bin, spare) = (&mut main[b], &mut other[b]);
                *bin = (bin.0.union(&spare.0), bin.1 + spare.1);
                *spare = (Bounds::EMPTY, 0);
            }
            let mask = filled_all[axis] | filled_odd[axis];
            // Only planes between non-empty bins differ, and a small node has
            // few of those: sweeping just them keeps the per-node cost
            // proportional to the node's size rather than to the bin count.
            // Right to left: area·count of the filled bins from each on.
            let (mut acc_box, mut acc_count) = (Bounds::EMPTY, 0u32);
            let mut rest = mask;
            while rest != 0 {
                let b = (u64::BITS - 1 - rest.leading_zeros()) as usize;
                rest ^= 1 << b;
                let bin = &main[b];
                acc_box = acc_box.union(&bin.0);
                acc_count += bin.1;
                right_cost[b] = area(&acc_box) * acc_count as Real;
            }
            let (mut acc_box, mut acc_count) = (Bounds::EMPTY, 0u32);
            for b in set_bits(mask) {
                if acc_count > 0 {
                    let cost = area(&acc_box) * acc_count as Real + right_cost[b];
                    if best.is_none_or(|(c, _, _)| cost < c) {
                        best = Some((cost, axis, b));
                    }
                }
                let bin = &mut main[b];
                acc_box = acc_box.union(&bin.0);
                acc_count += bin.1;
                *bin = (Bounds::EMPTY, 0);
            }
        }
        let (cost, axis, split_bin) = best?;
        // Sampled counts stand for `stride` triangles each.
        let cost = cost * stride as Real;
        let node_area = summary.node_box.surface_area();
        if !forced {
            let leaf_cost = node_area * triangle_count(ids) as Real;
            if leaf_cost <= TRAVERSAL_COST * node_area + cost {
                return None;
            }
        }
        let plane = split_bin as Real;
        let halves = Halves::partition(ids, &mut self.records, |p| grid.below(p, axis, plane));
        (halves.mid > 0 && halves.mid < ids.len()).then_some(halves)
    }
}

/// Surface area of a non-empty box.
#[inline(always)]
pub(super) fn area(b: &Bounds) -> Real {
    let e: Lanes = std::array::from_fn(|k| b.max[k] - b.min[k]);
    2.0 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0])
}

/// Where a node's centroids fall in its SAH bins. The grid works on the
/// sums `min + max` of the boxes' corners, twice their centres, which saves
/// halving them and gives the same bins (unless the centroid extent exceeds
/// `Real::MAX / 2`, where the sums overflow and records move to the last
/// bin; the bins and [`BinGrid::below`] still agree, since both read
/// [`BinGrid::scaled`]).
struct BinGrid {
    /// Twice the node's least centroid.
    origin: Lanes,
    /// Bins per unit of corner sum.
    scale: Lanes,
    last: Real,
    /// Axes much shorter than the longest rarely hold the best plane; only
    /// the others are binned (the largest saving left in the binning pass).
    binned: [bool; 3],
}

impl BinGrid {
    /// Bins over `centroid_bounds`, on the axes whose extent is positive and
    /// at least `min_binned_extent` times the longest.
    fn new(centroid_bounds: &Bounds, bin_count: usize, min_binned_extent: Real) -> Self {
        let (min, max) = (centroid_bounds.min, centroid_bounds.max);
        let extent: Lanes = std::array::from_fn(|k| max[k] - min[k]);
        // Axes without extent get scale 0: every triangle lands in bin 0 and
        // the sweep finds no plane there.
        let scale = extent.map(|e| {
            if e > 0.0 {
                0.5 * (bin_count as Real / e)
            } else {
                0.0
            }
        });
        let longest = extent[0].max(extent[1]).max(extent[2]);
        BinGrid {
            origin: min.map(|m| 2.0 * m),
            scale,
            last: (bin_count - 1) as Real,
            binned: std::array::from_fn(|k| {
                extent[k] > 0.0 && extent[k] >= min_binned_extent * longest
            }),
        }
    }

    /// `p`'s position on axis `k` in bins (before clamping and truncation).
    #[inline(always)]
    fn scaled(&self, p: &PrimRef, k: usize) -> Real {
        let (a, b) = (&p.bounds.min, &p.bounds.max);
        (a[k] + b[k] - self.origin[k]) * self.scale[k]
    }

    /// The bin of `p` on axis `k` (the scalar form of `bins_of`, for tests).
    #[cfg(test)]
    #[inline(always)]
    fn bin_on(&self, p: &PrimRef, k: usize) -> usize {
        bin_index(self.scaled(p, k), self.last)
    }

    /// Whether `p`'s bin on axis `k` is below `plane`, a bin number in
    /// `1..=last`: the same answer as the bins without the clamp and the
    /// conversion (a NaN, like bin 0, is below).
    #[inline(always)]
    fn below(&self, p: &PrimRef, k: usize, plane: Real) -> bool {
        !(self.scaled(p, k) >= plane)
    }

    /// The bins of `p` on all four lanes at once (the fourth is ignored):
    /// one vector conversion instead of three scalar ones on x86-64
    /// (`crate::simd::bins4`). The compiler keeps them scalar unless told.
    #[inline(always)]
    fn bins_of(&self, p: &PrimRef) -> [usize; 4] {
        crate::simd::bins4(
            &p.bounds.min,
            &p.bounds.max,
            &self.origin,
            &self.scale,
            self.last,
        )
    }

    /// Adds every `stride`th record of `ids` to `sets`, marking the bins it
    /// fills in `filled`. `RUNS` says whether records may stand for several
    /// triangles.
    #[inline(always)]
    fn add_all<const RUNS: bool>(
        &self,
        sets: &mut [AxisBins; 2],
        filled: &mut [[u64; 3]; 2],
        ids: &[PrimRef],
        stride: usize,
    ) {
        // Neighbouring triangles usually share bins; alternating two sets
        // breaks the chain of read-modify-writes through the same bin.
        let [all_bins, odd] = sets;
        let [filled_all, filled_odd] = filled;
        if ids.len() < TWO_BIN_SETS_MIN {
            for p in ids.iter() {
                self.add::<RUNS>(all_bins, p, filled_all);
            }
        } else if stride == 1 {
            let mut pairs = ids.chunks_exact(2);
            for pair in &mut pairs {
                self.add::<RUNS>(all_bins, &pair[0], filled_all);
                self.add::<RUNS>(odd, &pair[1], filled_odd);
            }
            for p in pairs.remainder() {
                self.add::<RUNS>(all_bins, p, filled_all);
            }
        } else {
            let mut sample = ids.iter().step_by(stride);
            while let (Some(a), b) = (sample.next(), sample.next()) {
                self.add::<RUNS>(all_bins, a, filled_all);
                if let Some(b) = b {
                    self.add::<RUNS>(odd, b, filled_odd);
                }
            }
        }
    }

    /// Adds `p` to its bin on every binned axis of `set`.
    #[inline(always)]
    fn add<const RUNS: bool>(&self, set: &mut AxisBins, p: &PrimRef, filled: &mut [u64; 3]) {
        let bins = self.bins_of(p);
        let run = if RUNS { p.run() } else { 1 };
        for axis in 0..3 {
            if !self.binned[axis] {
                continue;
            }
            // `bins_of` stays below `MAX_BINS`; the mask lets the compiler see it.
            let b = bins[axis] & (MAX_BINS - 1);
            let bin = &mut set[axis][b];
            bin.0 = bin.0.union(&p.bounds);
            bin.1 += run;
            filled[axis] |= 1 << b;
        }
    }
}

/// The bin of a scaled centroid coordinate `x`: its integer part, clamped
/// to `0..=last` (a NaN lands in bin 0): the scalar reference for tests.
#[cfg(test)]
fn bin_index(x: Real, last: Real) -> usize {
    // `max`/`min` return the non-NaN operand, so a NaN lands in bin 0.
    x.max(0.0).min(last) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounding_volume::Aabb;
    use crate::math::{Point, Vector};

    #[test]
    fn vector_bins_and_plane_tests_equal_scalar_bins() {
        let mut next = crate::test_support::unit_floats(0x1234_5678);
        let centroids = Bounds {
            min: [-2.0, 0.5, 3.0, 1.0],
            max: [6.0, 0.5, 3.5, 2.0],
        };
        let grid = BinGrid::new(&centroids, 16, MIN_BINNED_EXTENT);
        for id in 0..10_000 {
            // Boxes reaching past the grid too, so the clamps are exercised.
            let p = Point::new(next() * 12.0 - 4.0, 0.5, next() + 2.75);
            let size = Vector::new(next(), 0.0, next()) * 0.5;
            let p = PrimRef::new(&Aabb::new(p - size, p + size), id, 1);
            assert_bins_agree(&grid, &p);
        }
        // Corner sums landing on whole bins and one ulp either side, and
        // values the clamps must catch: NaN, ±inf, ±MAX (axis 1 has no
        // extent, so its scale is 0 and inf · 0 is NaN there).
        let mut edges: Vec<Real> = vec![Real::NAN, Real::INFINITY, -Real::INFINITY];
        edges.extend([Real::MAX, -Real::MAX, 1e38, -1e-40]);
        for whole in -1..=17 {
            let v = whole as Real;
            edges.extend([v, v.next_up(), v.next_down()]);
        }
        for &v in &edges {
            // Axis 0: scaled = (min + max + 4) · 1, so max = v − 4 puts it near v.
            let corner = [0.0, 0.0, 0.0, 1.0];
            let p = PrimRef {
                bounds: Bounds {
                    min: corner,
                    max: [v - 4.0, v, v, 1.0],
                },
            };
            assert_bins_agree(&grid, &p);
        }
    }

    /// `bins_of` (vector), `bin_on` (scalar) and `below` agree on every axis.
    fn assert_bins_agree(grid: &BinGrid, p: &PrimRef) {
        for (k, &bin) in grid.bins_of(p)[..3].iter().enumerate() {
            assert_eq!(bin, grid.bin_on(p, k), "{p:?} axis {k}");
            assert!(bin < 16);
            for plane in 1..16 {
                assert_eq!(
                    grid.below(p, k, plane as Real),
                    bin < plane,
                    "{p:?} axis {k}"
                );
            }
        }
    }

    #[test]
    fn bin_index_clamps_to_the_grid() {
        assert_eq!(bin_index(-3.0, 15.0), 0);
        assert_eq!(bin_index(Real::NAN, 15.0), 0);
        assert_eq!(bin_index(Real::INFINITY, 15.0), 15);
        assert_eq!(bin_index(7.9, 15.0), 7);
        assert_eq!(bin_index(63.0, 63.0), 63);
    }
}
