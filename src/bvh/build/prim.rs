//! The builder's records: one 32-byte [`PrimRef`] per triangle, or per run of
//! consecutive triangles with one box ([`prim_refs`]), the four-lane
//! [`Bounds`] that records and bins are made of, and the [`NodeSummary`] one
//! pass over a node gathers. Records are partitioned themselves, so every
//! pass over a node reads contiguous memory (Wald 2007; Embree's `PrimRef`).

use crate::bounding_volume::Aabb;
use crate::math::{ID_LANES_FREE_BIT, Point, Real, id_from_lanes, id_to_lanes};
use crate::shape::TriangleSoup;

/// Longest run of triangles one record stands for (a power of two, within
/// the mantissa bits [`id_to_lanes`] leaves free); the runs are also
/// bounded by the leaf size.
pub(super) const MAX_RUN: u32 = 1 << 8;

/// One triangle as the builder sees it, its box and its id, or a run of
/// consecutive triangles with one identical box (see [`prim_refs`]). The
/// builder partitions these records themselves (not ids into side arrays),
/// so every pass over a node reads contiguous memory (Wald 2007; Embree's
/// `PrimRef`).
///
/// The id rides in the boxes' unused fourth lanes, as Embree's `PrimRef`
/// does, which keeps a record at 32 aligned bytes (one cache line holds
/// two): encoded by [`id_to_lanes`] as two normal floats in `[1, 2)`, low
/// bits in `min[3]`, high bits in `max[3]`; the run's length less one sits
/// in the high float's free mantissa bits.
#[derive(Clone, Copy, Debug)]
pub(super) struct PrimRef {
    pub(super) bounds: Bounds,
}

impl PrimRef {
    /// The triangles `first .. first + run`, which all have the box `aabb`.
    #[cfg(test)]
    pub(super) fn new(aabb: &Aabb, first: u32, run: u32) -> Self {
        let (a, b) = (&aabb.min, &aabb.max);
        let bounds = Bounds {
            min: [a.x, a.y, a.z, 0.0],
            max: [b.x, b.y, b.z, 0.0],
        };
        PrimRef::with_bounds(bounds, first, run)
    }

    /// The triangles `first .. first + run`, which all have the box
    /// `bounds` (whose fourth lanes are overwritten).
    #[inline(always)]
    fn with_bounds(mut bounds: Bounds, first: u32, run: u32) -> Self {
        debug_assert!((1..=MAX_RUN).contains(&run));
        let [low, high] = id_to_lanes(first);
        bounds.min[3] = low;
        bounds.max[3] = Real::from_bits(high.to_bits() | (run - 1) << ID_LANES_FREE_BIT);
        PrimRef { bounds }
    }

    /// The first triangle of the record.
    #[inline(always)]
    pub(super) fn id(&self) -> u32 {
        id_from_lanes(self.bounds.min[3], self.bounds.max[3])
    }

    /// How many triangles the record stands for.
    #[inline(always)]
    pub(super) fn run(&self) -> u32 {
        (self.bounds.max[3].to_bits() >> ID_LANES_FREE_BIT & (MAX_RUN - 1)) + 1
    }

    /// Whether both records have the same box. Every lane is compared,
    /// without the early exits of a slice comparison (unpredictable on
    /// meshes with runs).
    #[inline(always)]
    fn same_box(&self, other: &PrimRef) -> bool {
        let (a, b) = (&self.bounds, &other.bounds);
        (0..3).fold(true, |same, k| {
            same & (a.min[k] == b.min[k]) & (a.max[k] == b.max[k])
        })
    }

    /// The record's triangles.
    pub(super) fn ids(&self) -> std::ops::Range<u32> {
        self.id()..self.id() + self.run()
    }

    /// The box centre, which the SAH bins and the split planes use.
    #[inline(always)]
    pub(super) fn centroid(&self) -> Lanes {
        let (a, b) = (&self.bounds.min, &self.bounds.max);
        [
            0.5 * (a[0] + b[0]),
            0.5 * (a[1] + b[1]),
            0.5 * (a[2] + b[2]),
            0.5 * (a[3] + b[3]),
        ]
    }
}

/// x, y, z and an unused fourth lane.
pub(super) type Lanes = [Real; 4];

/// An axis-aligned box as two four-lane corners: the builder's hot type.
/// The fourth lanes carry no geometry (see [`PrimRef`]).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub(super) struct Bounds {
    pub(super) min: Lanes,
    pub(super) max: Lanes,
}

impl Bounds {
    pub(super) const EMPTY: Bounds = Bounds {
        min: [Real::INFINITY; 4],
        max: [Real::NEG_INFINITY; 4],
    };

    /// Lane-wise min and max (`crate::simd::union4`: `minps`/`maxps` on
    /// x86-64, where portable selects compiled for AVX2 became masked
    /// stores and made whole builds 1.8x slower).
    #[inline(always)]
    pub(super) fn union(&self, other: &Bounds) -> Bounds {
        let (min, max) = crate::simd::union4((&self.min, &self.max), (&other.min, &other.max));
        Bounds { min, max }
    }

    #[inline(always)]
    fn including(&self, p: &Lanes) -> Bounds {
        self.union(&Bounds { min: *p, max: *p })
    }

    pub(super) fn to_aabb(self) -> Aabb {
        Aabb::new(
            Point::new(self.min[0], self.min[1], self.min[2]),
            Point::new(self.max[0], self.max[1], self.max[2]),
        )
    }

    /// Surface area; 0 when empty.
    #[inline(always)]
    pub(super) fn surface_area(&self) -> Real {
        let e: Lanes = std::array::from_fn(|k| self.max[k] - self.min[k]);
        if e[0] < 0.0 {
            return 0.0;
        }
        2.0 * (e[0] * e[1] + e[1] * e[2] + e[2] * e[0])
    }
}

/// What one pass over a node's triangles learns: the box around them and
/// the box around their centroids (the SAH bins span the latter).
/// [`Halves::partition`](super::Halves::partition) summarises both halves it
/// leaves, so a child starts with its summary.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeSummary {
    pub(super) node_box: Bounds,
    pub(super) centroid_bounds: Bounds,
}

impl NodeSummary {
    const EMPTY: NodeSummary = NodeSummary {
        node_box: Bounds::EMPTY,
        centroid_bounds: Bounds::EMPTY,
    };

    #[inline(always)]
    fn add(&mut self, p: &PrimRef, centroid: &Lanes) {
        self.node_box = self.node_box.union(&p.bounds);
        self.centroid_bounds = self.centroid_bounds.including(centroid);
    }

    /// Copies `records` into `to` and adds them.
    #[inline(always)]
    pub(super) fn add_copies(&mut self, to: &mut [PrimRef], records: &[PrimRef]) {
        for (slot, p) in to.iter_mut().zip(records) {
            *slot = *p;
            self.add(p, &p.centroid());
        }
    }

    pub(super) fn of(ids: &[PrimRef]) -> NodeSummary {
        let mut summary = NodeSummary::EMPTY;
        for p in ids {
            summary.add(p, &p.centroid());
        }
        summary
    }
}

/// The build records of `mesh`: one per triangle, except that consecutive
/// triangles with identical boxes (the two halves of an axis-aligned
/// rectangle, as CAD and architectural meshes are made of) share one, up
/// to `max_run` of them. Such triangles always land in the same bin, and a
/// leaf is cheaper than separating them, so the tree hardly changes (FCL's
/// env: SAH cost 17.615 before, 17.612 after), but every pass over a node
/// reads fewer records (env: 2,180 triangles, 1,110 records).
pub(super) fn prim_refs(mesh: &TriangleSoup<'_>, max_run: u32) -> Vec<PrimRef> {
    let vertices = mesh.vertices();
    let lanes = |i: u32| {
        let p = &vertices[i as usize];
        [p.x, p.y, p.z, 0.0]
    };
    let mut prims: Vec<PrimRef> = Vec::with_capacity(mesh.len());
    for (id, &[a, b, c]) in mesh.indices().iter().enumerate() {
        // Four-lane minima and maxima (nalgebra's `inf`/`sup` compiled to
        // compares and branches per coordinate).
        let (a, b, c) = (lanes(a), lanes(b), lanes(c));
        let bounds = Bounds { min: a, max: a }.including(&b).including(&c);
        let record = PrimRef::with_bounds(bounds, id as u32, 1);
        match prims.last_mut() {
            Some(last) if max_run > 1 && last.run() < max_run && last.same_box(&record) => {
                *last = PrimRef::with_bounds(last.bounds, last.id(), last.run() + 1);
            }
            _ => prims.push(record),
        }
    }
    prims
}

/// The triangles of `records`.
#[inline(always)]
pub(super) fn triangle_count(records: &[PrimRef]) -> usize {
    records.iter().map(|p| p.run() as usize).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitive_ids_and_runs_survive_packing_into_the_fourth_lanes() {
        let aabb = Aabb::new(Point::new(-1.0, 2.0, -3.0), Point::new(4.0, 5.0, 6.0));
        let ids = [
            0,
            1,
            (1 << 23) - 1,
            (1 << 23) + 1,
            1 << 23,
            123_456_789,
            u32::MAX - MAX_RUN,
            u32::MAX - 1,
            u32::MAX,
        ];
        for (id, run) in ids
            .into_iter()
            .flat_map(|id| [1, 2, 3, MAX_RUN].map(|run| (id, run)))
        {
            if id.checked_add(run).is_none() {
                continue;
            }
            let p = PrimRef::new(&aabb, id, run);
            assert_eq!((p.id(), p.run()), (id, run));
            assert!(p.ids().eq(id..id + run));
            assert_eq!(p.bounds.to_aabb(), aabb);
            // The id lanes are normal floats in [1, 2), harmless to vector arithmetic.
            for lane in [p.bounds.min[3], p.bounds.max[3], p.centroid()[3]] {
                assert!(lane.is_normal() && (1.0..2.0).contains(&lane), "{lane}");
            }
        }
    }
}
