//! Discrete-orientation polytopes (k-DOPs): the intersection of `k/2` slabs
//! with fixed directions.
//!
//! A k-DOP stores, for each of its `N = k/2` fixed directions `dᵢ`, the
//! interval `[minᵢ, maxᵢ]` of `dᵢ · p` over the bounded points. Two k-DOPs
//! overlap exactly when all `N` intervals overlap, so the test costs `N` pairs
//! of comparisons and needs no rotation. The standard direction sets (6, 14,
//! 18 and 26) are those of Klosowski, Held, Mitchell, Sowizral, Zikan,
//! "Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs" (IEEE TVCG 1998) and Ericson, *Real-Time Collision Detection* §4.6:
//! the three axes, then the four corner diagonals `(±1, ±1, ±1)` (14) and/or
//! the six edge diagonals `(±1, ±1, 0)` (18). The directions are kept
//! unnormalised (integer components): the slab values are then exact for
//! integer coordinates, and normalising would only rescale each interval.
//!
//! The valid `N` are those with a [`KdopDirections`] implementation (3, 7, 9,
//! 13); any other `Kdop<N>` has no constructor, so it cannot be built:
//!
//! ```compile_fail,E0599
//! let empty = boxtree::bounding_volume::Kdop::<5>::EMPTY;
//! ```

use crate::bounding_volume::Aabb;
use crate::math::{Point, Real, Vector, is_finite_point};

/// A k-DOP with `N = k/2` slabs, `N ∈ {3, 7, 9, 13}` (see [`Kdop6`], [`Kdop14`], [`Kdop18`], [`Kdop26`]).
///
/// A k-DOP with `min > max` on some slab is *empty* ([`Kdop::EMPTY`]): it
/// overlaps nothing and is the identity of [`Kdop::union`]. All comparisons
/// are inclusive, so touching k-DOPs overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kdop<const N: usize> {
    min: [Real; N],
    max: [Real; N],
}

/// The 6-DOP: the axis-aligned box.
pub type Kdop6 = Kdop<3>;
/// The 14-DOP: axes and the four corner diagonals.
pub type Kdop14 = Kdop<7>;
/// The 18-DOP: axes and the six edge diagonals.
pub type Kdop18 = Kdop<9>;
/// The 26-DOP: axes, corner diagonals and edge diagonals.
pub type Kdop26 = Kdop<13>;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Kdop<3> {}
    impl Sealed for super::Kdop<7> {}
    impl Sealed for super::Kdop<9> {}
    impl Sealed for super::Kdop<13> {}
}

/// The fixed slab directions of a k-DOP; implemented (sealed) only for the four standard `N`.
pub trait KdopDirections<const N: usize>: sealed::Sealed {
    /// The `N` directions, the three coordinate axes first.
    const DIRECTIONS: [Vector; N];
}

const X: Vector = Vector::new(1.0, 0.0, 0.0);
const Y: Vector = Vector::new(0.0, 1.0, 0.0);
const Z: Vector = Vector::new(0.0, 0.0, 1.0);
const CORNERS: [Vector; 4] = [
    Vector::new(1.0, 1.0, 1.0),
    Vector::new(1.0, 1.0, -1.0),
    Vector::new(1.0, -1.0, 1.0),
    Vector::new(-1.0, 1.0, 1.0),
];
const EDGES: [Vector; 6] = [
    Vector::new(1.0, 1.0, 0.0),
    Vector::new(1.0, -1.0, 0.0),
    Vector::new(1.0, 0.0, 1.0),
    Vector::new(1.0, 0.0, -1.0),
    Vector::new(0.0, 1.0, 1.0),
    Vector::new(0.0, 1.0, -1.0),
];

impl KdopDirections<3> for Kdop<3> {
    const DIRECTIONS: [Vector; 3] = [X, Y, Z];
}

impl KdopDirections<7> for Kdop<7> {
    const DIRECTIONS: [Vector; 7] = [X, Y, Z, CORNERS[0], CORNERS[1], CORNERS[2], CORNERS[3]];
}

impl KdopDirections<9> for Kdop<9> {
    const DIRECTIONS: [Vector; 9] = [
        X, Y, Z, EDGES[0], EDGES[1], EDGES[2], EDGES[3], EDGES[4], EDGES[5],
    ];
}

impl KdopDirections<13> for Kdop<13> {
    const DIRECTIONS: [Vector; 13] = [
        X, Y, Z, CORNERS[0], CORNERS[1], CORNERS[2], CORNERS[3], EDGES[0], EDGES[1], EDGES[2],
        EDGES[3], EDGES[4], EDGES[5],
    ];
}

impl<const N: usize> Kdop<N>
where
    Kdop<N>: KdopDirections<N>,
{
    /// The empty k-DOP: every `min = +inf`, every `max = -inf`.
    pub const EMPTY: Self = Self {
        min: [Real::INFINITY; N],
        max: [Real::NEG_INFINITY; N],
    };

    /// The slab directions of this kind of k-DOP, the three coordinate axes first.
    #[must_use]
    pub fn directions() -> [Vector; N] {
        <Self as KdopDirections<N>>::DIRECTIONS
    }

    /// The smallest k-DOP containing every point; [`Kdop::EMPTY`] for no points.
    ///
    /// Points with a NaN or infinite coordinate are skipped.
    #[must_use]
    pub fn from_points<'a>(points: impl IntoIterator<Item = &'a Point>) -> Self {
        points
            .into_iter()
            .fold(Self::EMPTY, |k, p| k.including_point(p))
    }

    /// The smallest k-DOP containing every triangle, given by its three vertices
    /// (e.g. `triangles.iter().map(Triangle::vertices)`; non-finite vertices are skipped).
    ///
    /// Taking vertex arrays rather than [`crate::shape::Triangle`] keeps bounding
    /// volumes below shapes in the crate's layering.
    #[must_use]
    pub fn from_triangles(triangles: impl IntoIterator<Item = [Point; 3]>) -> Self {
        triangles
            .into_iter()
            .flatten()
            .fold(Self::EMPTY, |k, p| k.including_point(&p))
    }

    /// Lower slab values: `min()[i]` is the smallest `directions()[i] · p`.
    #[must_use]
    pub fn min(&self) -> &[Real; N] {
        &self.min
    }

    /// Upper slab values: `max()[i]` is the largest `directions()[i] · p`.
    #[must_use]
    pub fn max(&self) -> &[Real; N] {
        &self.max
    }

    /// True for the empty k-DOP (`min > max` on some slab).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(0..N).all(|i| self.min[i] <= self.max[i])
    }

    /// This k-DOP grown to contain `p` (unchanged when `p` is not finite).
    #[must_use]
    pub fn including_point(&self, p: &Point) -> Self {
        if !is_finite_point(p) {
            return *self;
        }
        let mut grown = *self;
        for (i, d) in Self::directions().iter().enumerate() {
            let s = d.dot(&p.coords);
            grown.min[i] = grown.min[i].min(s);
            grown.max[i] = grown.max[i].max(s);
        }
        grown
    }

    /// True when the k-DOPs share at least one point: every pair of slabs overlaps (touching counts).
    #[must_use]
    pub fn overlaps(&self, other: &Self) -> bool {
        (0..N).all(|i| self.min[i] <= other.max[i] && other.min[i] <= self.max[i])
    }

    /// True when `p` lies inside or on the boundary.
    #[must_use]
    pub fn contains_point(&self, p: &Point) -> bool {
        Self::directions().iter().enumerate().all(|(i, d)| {
            let s = d.dot(&p.coords);
            self.min[i] <= s && s <= self.max[i]
        })
    }

    /// True when every slab of `other` lies inside the matching slab of `self`.
    /// The empty k-DOP is contained in every k-DOP.
    #[must_use]
    pub fn contains(&self, other: &Self) -> bool {
        other.is_empty()
            || (0..N).all(|i| self.min[i] <= other.min[i] && other.max[i] <= self.max[i])
    }

    /// The smallest k-DOP containing both (slab-wise union).
    #[must_use]
    pub fn union(&self, other: &Self) -> Self {
        Self {
            min: std::array::from_fn(|i| self.min[i].min(other.min[i])),
            max: std::array::from_fn(|i| self.max[i].max(other.max[i])),
        }
    }

    /// The axis-aligned box of the three axis slabs (it contains the k-DOP;
    /// for k-DOPs built from points it is their exact bounding box).
    #[must_use]
    pub fn to_aabb(&self) -> Aabb {
        Aabb::new(
            Point::new(self.min[0], self.min[1], self.min[2]),
            Point::new(self.max[0], self.max[1], self.max[2]),
        )
    }
}
