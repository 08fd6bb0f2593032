//! Planes in Hessian normal form `n · x = d` with a unit normal `n`.

use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector};

/// Why a plane could not be built from the given input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaneError {
    /// The three points are collinear (or coincident): they span no plane.
    CollinearPoints,
    /// The given normal has zero length.
    ZeroNormal,
    /// An input coordinate is NaN or infinite.
    NonFinite,
}

impl std::fmt::Display for PlaneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlaneError::CollinearPoints => "the three points are collinear and span no plane",
            PlaneError::ZeroNormal => "the plane normal has zero length",
            PlaneError::NonFinite => "a plane input coordinate is NaN or infinite",
        })
    }
}

impl std::error::Error for PlaneError {}

/// An oriented plane: the points `x` with `normal · x = offset`; `normal` has unit length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    normal: Vector,
    offset: Real,
}

impl Plane {
    /// The plane through `point` with normal direction `normal` (normalised here).
    pub fn from_point_normal(point: &Point, normal: &Vector) -> Result<Plane, PlaneError> {
        if !is_finite_point(point) || !is_finite_vector(normal) {
            return Err(PlaneError::NonFinite);
        }
        let n = normal
            .try_normalize(0.0)
            .filter(is_finite_vector)
            .ok_or(PlaneError::ZeroNormal)?;
        Ok(Plane {
            normal: n,
            offset: n.dot(&point.coords),
        })
    }

    /// The plane through `a`, `b`, `c`, oriented so that they wind counter-clockwise
    /// seen from the front (normal `(b − a) × (c − a)`).
    pub fn from_points(a: &Point, b: &Point, c: &Point) -> Result<Plane, PlaneError> {
        if ![a, b, c].iter().all(|p| is_finite_point(p)) {
            return Err(PlaneError::NonFinite);
        }
        let n = (b - a).cross(&(c - a));
        let n = n.try_normalize(0.0).ok_or(PlaneError::CollinearPoints)?;
        if !is_finite_vector(&n) {
            // The cross product overflowed (huge coordinates): fall back to a
            // scaled computation so the direction survives.
            let scale = [a, b, c]
                .iter()
                .flat_map(|p| p.coords.iter().map(|x| x.abs()))
                .fold(0.0, Real::max);
            let (sa, sb, sc) = (a.coords / scale, b.coords / scale, c.coords / scale);
            let n = (sb - sa).cross(&(sc - sa));
            let n = n.try_normalize(0.0).ok_or(PlaneError::CollinearPoints)?;
            return Ok(Plane {
                normal: n,
                offset: n.dot(&a.coords),
            });
        }
        Ok(Plane {
            normal: n,
            offset: n.dot(&a.coords),
        })
    }

    /// Unit normal.
    #[must_use]
    pub fn normal(&self) -> &Vector {
        &self.normal
    }

    /// Offset `d` of `n · x = d` (the signed distance of the origin, negated).
    #[must_use]
    pub fn offset(&self) -> Real {
        self.offset
    }

    /// Signed distance of `p`: positive on the side the normal points to.
    #[must_use]
    pub fn signed_distance(&self, p: &Point) -> Real {
        self.normal.dot(&p.coords) - self.offset
    }

    /// The orthogonal projection of `p` onto the plane.
    #[must_use]
    pub fn project(&self, p: &Point) -> Point {
        p - self.normal * self.signed_distance(p)
    }

    /// The same plane with the opposite orientation.
    #[must_use]
    pub fn flipped(&self) -> Plane {
        Plane {
            normal: -self.normal,
            offset: -self.offset,
        }
    }
}
