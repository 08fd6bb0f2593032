//! A rectangle in space: the core of a rectangle swept sphere
//! ([`crate::bounding_volume::Rss`], convertible with `From`).

use crate::bounding_volume::Rss;
use crate::math::{Point, Real, Vector};
use crate::shape::Segment;

/// A rectangle: a centre, two orthonormal in-plane axes and the half
/// lengths of its sides along them (non-negative; zero gives a segment or
/// a point).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rectangle {
    /// Centre of the rectangle.
    pub center: Point,
    /// Unit in-plane axes, orthogonal to each other.
    pub axes: [Vector; 2],
    /// Half the side lengths along `axes`.
    pub half_lengths: [Real; 2],
}

impl Rectangle {
    /// A rectangle from its centre, orthonormal axes and half side lengths.
    #[must_use]
    pub fn new(center: Point, axes: [Vector; 2], half_lengths: [Real; 2]) -> Self {
        debug_assert!(half_lengths.iter().all(|h| *h >= 0.0 || h.is_nan()));
        Rectangle {
            center,
            axes,
            half_lengths,
        }
    }

    /// The unit normal `axes[0] × axes[1]`.
    #[must_use]
    pub fn normal(&self) -> Vector {
        self.axes[0].cross(&self.axes[1])
    }

    /// The four corners, in order around the rectangle.
    #[must_use]
    pub fn corners(&self) -> [Point; 4] {
        let u = self.axes[0] * self.half_lengths[0];
        let v = self.axes[1] * self.half_lengths[1];
        let c = self.center;
        [c - u - v, c + u - v, c + u + v, c - u + v]
    }

    /// The four sides, each from a corner to the next.
    #[must_use]
    pub fn edges(&self) -> [Segment; 4] {
        let k = self.corners();
        std::array::from_fn(|i| Segment::new(k[i], k[(i + 1) % 4]))
    }

    /// The point of the rectangle nearest to `p`: `p`'s in-plane
    /// coordinates clamped to the sides.
    #[must_use]
    pub fn closest_point(&self, p: &Point) -> Point {
        let offset = p - self.center;
        let [u, v] = self.axes;
        let [hu, hv] = self.half_lengths;
        self.center + u * offset.dot(&u).clamp(-hu, hu) + v * offset.dot(&v).clamp(-hv, hv)
    }

    /// The distance from `p` to the rectangle.
    #[must_use]
    pub fn distance(&self, p: &Point) -> Real {
        (p - self.closest_point(p)).norm()
    }
}

/// The core rectangle of a swept rectangle.
impl From<&Rss> for Rectangle {
    fn from(rss: &Rss) -> Self {
        Rectangle::new(rss.center, rss.axes, rss.half_lengths)
    }
}
