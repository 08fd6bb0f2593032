//! Bounding volumes as words in a saved file.

use crate::bounding_volume::{Aabb, Obb, PackedObb};
use crate::bvh::BoundingVolume;
use crate::math::{Matrix, Point, Vector};
use crate::saved::format::real;

mod sealed {
    pub trait Sealed {}
}

/// A volume whose trees can be saved: AABBs and both OBB forms. Sealed:
/// the file format names each kind.
pub trait SavedVolume: BoundingVolume + sealed::Sealed {
    /// The kind's number in a file's header.
    #[doc(hidden)]
    const KIND: u32;
    /// The kind's name, for errors.
    #[doc(hidden)]
    const NAME: &'static str;
    /// Words per volume.
    #[doc(hidden)]
    const WORDS: usize;
    /// Appends the volume's words.
    #[doc(hidden)]
    fn words(&self, out: &mut Vec<u32>);
    /// The volume from `WORDS` words, or `None` when they describe no
    /// volume a build makes (non-finite, inverted, negative extents). A
    /// well-formed but forged volume can make a query wrong, never unsafe.
    #[doc(hidden)]
    fn from_words(w: &[u32]) -> Option<Self>;
}

fn finite(w: &[u32]) -> bool {
    w.iter().all(|&b| real(b).is_finite())
}

/// Half-extents a build makes: not negative, not NaN, and possibly `+∞`,
/// which the fit's rounding pad reaches for coordinates near `f32::MAX`
/// (such a box holds every finite point, so queries stay conservative).
fn extents(half_extents: &Vector) -> bool {
    half_extents.iter().all(|&h| h >= 0.0)
}

fn point(w: &[u32]) -> Point {
    Point::new(real(w[0]), real(w[1]), real(w[2]))
}

fn vector(w: &[u32]) -> Vector {
    Vector::new(real(w[0]), real(w[1]), real(w[2]))
}

impl sealed::Sealed for Aabb {}
impl SavedVolume for Aabb {
    const KIND: u32 = 1;
    const NAME: &'static str = "Aabb";
    const WORDS: usize = 6;

    fn words(&self, out: &mut Vec<u32>) {
        out.extend(self.min.iter().chain(self.max.iter()).map(|v| v.to_bits()));
    }

    fn from_words(w: &[u32]) -> Option<Self> {
        let (min, max) = (point(&w[0..3]), point(&w[3..6]));
        let ordered = (0..3).all(|i| min[i] <= max[i]);
        (finite(w) && ordered).then(|| Aabb::new(min, max))
    }
}

impl sealed::Sealed for Obb {}
impl SavedVolume for Obb {
    const KIND: u32 = 2;
    const NAME: &'static str = "Obb";
    const WORDS: usize = 15;

    fn words(&self, out: &mut Vec<u32>) {
        out.extend(
            self.center
                .iter()
                .chain(self.axes.iter())
                .chain(self.half_extents.iter())
                .map(|v| v.to_bits()),
        );
    }

    fn from_words(w: &[u32]) -> Option<Self> {
        let half_extents = vector(&w[12..15]);
        (finite(&w[..12]) && extents(&half_extents)).then(|| Obb {
            center: point(&w[0..3]),
            axes: Matrix::from_iterator(w[3..12].iter().map(|&b| real(b))),
            half_extents,
        })
    }
}

impl sealed::Sealed for PackedObb {}
impl SavedVolume for PackedObb {
    const KIND: u32 = 3;
    const NAME: &'static str = "PackedObb";
    const WORDS: usize = 9;

    fn words(&self, out: &mut Vec<u32>) {
        out.extend(
            self.center
                .iter()
                .chain(self.half_extents.iter())
                .chain(self.rotation().iter())
                .map(|v| v.to_bits()),
        );
    }

    fn from_words(w: &[u32]) -> Option<Self> {
        let half_extents = vector(&w[3..6]);
        let rotation = [real(w[6]), real(w[7]), real(w[8])];
        let unit = rotation.iter().map(|r| r * r).sum::<f32>() <= 1.0 + 1e-5;
        let placed = finite(&w[0..3]) && finite(&w[6..9]);
        (placed && unit && extents(&half_extents))
            .then(|| PackedObb::new(point(&w[0..3]), half_extents, rotation))
    }
}
