//! Where a node splits: the dispatch between the split rules, binned SAH
//! (see `sah`) or Gottschalk's plane through the mean centroid (Gottschalk,
//! Lin and Manocha, "OBBTree", 1996), and the median split both fall back to
//! when no plane separates the centroids.

use super::prim::{Lanes, NodeSummary, PrimRef, triangle_count};
use super::sah::{MAX_BINS, SMALL_BINS, SMALL_NODE_MAX};
use super::{Builder, Halves};
use crate::bvh::{BoundingVolume, SplitRule};
use crate::math::{Real, Vector};

impl Builder<'_> {
    /// Reorders `ids` into two non-empty halves, or returns `None` to make a leaf.
    pub(super) fn split<V: BoundingVolume>(
        &mut self,
        volume: &V,
        ids: &mut [PrimRef],
        summary: &NodeSummary,
    ) -> Option<Halves> {
        let n = ids.len();
        let max_leaf = self.options.max_leaf_size.max(1) as usize;
        if n <= 1 {
            return None;
        }
        let mid = match self.options.split {
            SplitRule::Sah { bins, search } => {
                let bins = (bins as usize).clamp(2, MAX_BINS);
                // Small enough nodes become leaves when SAH says a leaf is
                // cheaper; larger ones take the best plane regardless. A
                // node has at least as many triangles as records. (Nodes
                // of 2 to EXHAUSTIVE_MAX records are built whole by
                // `build_small` and do not come here.)
                let forced = n > max_leaf || triangle_count(ids) > max_leaf;
                // Nodes of a few records fill about as many planes in 8
                // bins as in 16 (SAH cost within ±0.06% on the bench
                // meshes), and the shorter sweeps and resets build 1–3%
                // faster (16 records or fewer), the icosphere another 2.4%
                // (32 or fewer; 64 or fewer: 4%, but SAH up to +0.25%).
                let bins = if n <= SMALL_NODE_MAX {
                    bins.min(SMALL_BINS)
                } else {
                    bins
                };
                // Two copies: reading run lengths made the bunny, which has
                // no runs, 2–5% slower.
                let halves = if self.runs {
                    self.sah_split::<true>(ids, summary, bins, search, forced)
                } else {
                    self.sah_split::<false>(ids, summary, bins, search, forced)
                };
                match halves {
                    Some(mid) => Some(mid),
                    None if !forced => return None,
                    None => None,
                }
            }
            SplitRule::MeanAlongLongestAxis => {
                if n <= max_leaf {
                    return None;
                }
                self.mean_split(volume, ids)
            }
        };
        Some(mid.unwrap_or_else(|| self.median_split(volume, ids)))
    }

    /// Gottschalk: the plane through the mean centroid, across the longest
    /// axis of the node's volume, then the next axes.
    fn mean_split<V: BoundingVolume>(&mut self, volume: &V, ids: &mut [PrimRef]) -> Option<Halves> {
        for axis in volume.split_axes() {
            let mean = ids
                .iter()
                .map(|p| f64::from(dot(&p.centroid(), &axis)))
                .sum::<f64>()
                / ids.len() as f64;
            let halves = Halves::partition(ids, &mut self.records, |p| {
                f64::from(dot(&p.centroid(), &axis)) < mean
            });
            if halves.mid > 0 && halves.mid < ids.len() {
                return Some(halves);
            }
        }
        None
    }

    /// The fallback when no plane separates the centroids: order along the
    /// longest axis (ties by id, so the result is deterministic) and halve.
    fn median_split<V: BoundingVolume>(&self, volume: &V, ids: &mut [PrimRef]) -> Halves {
        let axis = volume.split_axes()[0];
        let mid = ids.len() / 2;
        ids.select_nth_unstable_by(mid, |a, b| {
            let (pa, pb) = (dot(&a.centroid(), &axis), dot(&b.centroid(), &axis));
            pa.total_cmp(&pb).then(a.id().cmp(&b.id()))
        });
        Halves {
            mid,
            summaries: [NodeSummary::of(&ids[..mid]), NodeSummary::of(&ids[mid..])],
        }
    }
}

fn dot(c: &Lanes, axis: &Vector) -> Real {
    c[0] * axis.x + c[1] * axis.y + c[2] * axis.z
}
