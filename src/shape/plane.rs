//! Planes in Hessian normal form `n · x = d` with a unit normal `n`.

use crate::math::{Point, Real, Vector, is_finite_point, is_finite_vector, nalgebra};

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
    /// The plane through `point` with normal direction `normal` (normalised
    /// here, in `f64`: any finite non-zero `f32` vector has a direction,
    /// 1e20 and 1e-30 long alike).
    pub fn from_point_normal(point: &Point, normal: &Vector) -> Result<Plane, PlaneError> {
        if !is_finite_point(point) || !is_finite_vector(normal) {
            return Err(PlaneError::NonFinite);
        }
        let n = normal
            .cast::<f64>()
            .try_normalize(0.0)
            .ok_or(PlaneError::ZeroNormal)?;
        Ok(Plane::through(point, n))
    }

    /// The plane through `a`, `b`, `c`, oriented so that they wind counter-clockwise
    /// seen from the front (normal `(b − a) × (c − a)`). In `f64`, where the
    /// products of `f32` differences neither overflow nor underflow: points
    /// 1e18 apart keep their normal, and only collinear points (up to the
    /// rounding of those products) are refused, 1e-20 apart or not.
    pub fn from_points(a: &Point, b: &Point, c: &Point) -> Result<Plane, PlaneError> {
        if ![a, b, c].iter().all(|p| is_finite_point(p)) {
            return Err(PlaneError::NonFinite);
        }
        let n = crate::shape::Triangle::new(*a, *b, *c)
            .scaled_normal_wide()
            .try_normalize(0.0)
            .ok_or(PlaneError::CollinearPoints)?;
        Ok(Plane::through(a, n))
    }

    /// The plane through `point` with the unit normal `n`, rounded once.
    fn through(point: &Point, n: nalgebra::Vector3<f64>) -> Plane {
        Plane {
            normal: n.cast::<Real>(),
            offset: n.dot(&point.coords.cast::<f64>()) as Real,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(plane: &Plane) -> bool {
        (plane.normal().norm() - 1.0).abs() <= 2.0 * Real::EPSILON
    }

    #[test]
    fn planes_of_huge_and_tiny_input_have_unit_normals() {
        let p = |x, y, z| Point::new(x, y, z);
        for scale in [1e-30, 1e-20, 1e-15, 1e-10, 1.0, 1e10, 1e18, 1e30] {
            let plane =
                Plane::from_points(&p(0.0, 0.0, 0.0), &p(scale, 0.0, 0.0), &p(0.0, scale, 0.0))
                    .expect("not collinear");
            assert!(unit(&plane), "{scale}: {plane:?}");
            assert_eq!(*plane.normal(), Vector::z(), "{scale}");
            let plane = Plane::from_point_normal(&p(1.0, 2.0, 3.0), &Vector::new(scale, 0.0, 0.0))
                .expect("non-zero");
            assert!(unit(&plane), "{scale}: {plane:?}");
            assert_eq!(plane.offset(), 1.0, "{scale}");
        }
        assert_eq!(
            Plane::from_points(
                &p(0.0, 0.0, 0.0),
                &p(1e-20, 1e-20, 0.0),
                &p(3e-20, 3e-20, 0.0)
            ),
            Err(PlaneError::CollinearPoints)
        );
        assert_eq!(
            Plane::from_point_normal(&p(0.0, 0.0, 0.0), &Vector::zeros()),
            Err(PlaneError::ZeroNormal)
        );
    }
}
