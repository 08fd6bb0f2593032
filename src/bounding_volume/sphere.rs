//! Bounding spheres: a centre and a radius.

use crate::bounding_volume::Aabb;
use crate::math::{Isometry, Point, Real, Vector, distance_squared_wide};

/// A solid sphere. Touching spheres overlap (all comparisons are inclusive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Centre of the sphere.
    pub center: Point,
    /// Radius, non-negative; 0 is a point.
    pub radius: Real,
}

impl Sphere {
    /// A sphere from its centre and radius.
    #[must_use]
    pub const fn new(center: Point, radius: Real) -> Self {
        Self { center, radius }
    }

    /// True when the spheres share at least one point: `|c₁ − c₂|² ≤ (r₁ + r₂)²`,
    /// in `f64` (see [`Sphere::contains_point`]).
    #[must_use]
    pub fn overlaps(&self, other: &Sphere) -> bool {
        let r = f64::from(self.radius) + f64::from(other.radius);
        distance_squared_wide(&self.center, &other.center) <= r * r
    }

    /// True when `p` lies inside or on the sphere: `|p − c|² ≤ r²`, squared
    /// in `f64`. In `f32` the squares overflow from
    /// about 1.8e19 (two spheres 1e25 apart overlapped, `∞ ≤ ∞`) and round
    /// above 2²⁴ (a touching pair of integer spheres counted as apart).
    #[must_use]
    pub fn contains_point(&self, p: &Point) -> bool {
        let r = f64::from(self.radius);
        distance_squared_wide(p, &self.center) <= r * r
    }

    /// True when `other` lies wholly inside this sphere (in `f64`).
    #[must_use]
    pub fn contains(&self, other: &Sphere) -> bool {
        distance_squared_wide(&other.center, &self.center).sqrt() + f64::from(other.radius)
            <= f64::from(self.radius)
    }

    /// The smallest sphere containing both spheres (Ericson §4.3.2).
    #[must_use]
    pub fn merged(&self, other: &Sphere) -> Sphere {
        let d = other.center - self.center;
        let dist = d.norm();
        if dist + other.radius <= self.radius {
            return *self;
        }
        if dist + self.radius <= other.radius {
            return *other;
        }
        let radius = 0.5 * (dist + self.radius + other.radius);
        // dist > 0 here: equal centres are handled by the containment cases.
        let center = self.center + d * ((radius - self.radius) / dist);
        Sphere::new(center, radius)
    }

    /// The axis-aligned box around the sphere.
    #[must_use]
    pub fn to_aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(self.center, Vector::repeat(self.radius))
    }

    /// This sphere moved by a rigid motion.
    #[must_use]
    pub fn transformed(&self, iso: &Isometry) -> Sphere {
        Sphere::new(iso * self.center, self.radius)
    }

    /// Surface area `4πr²`.
    #[must_use]
    pub fn surface_area(&self) -> Real {
        4.0 * std::f32::consts::PI * self.radius * self.radius
    }

    /// Volume `4/3 πr³`.
    #[must_use]
    pub fn volume(&self) -> Real {
        4.0 / 3.0 * std::f32::consts::PI * self.radius.powi(3)
    }
}
