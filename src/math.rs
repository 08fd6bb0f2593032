//! Scalar and linear-algebra aliases used throughout the crate.
//!
//! The whole crate computes in [`Real`] = `f32`, as games and Embree do:
//! robustness comes from watertight and epsilon-guarded formulations, not from
//! wider floats. Changing this alias is the one place to switch precision.

pub use nalgebra;

/// The scalar type of every coordinate, time and distance.
pub type Real = f32;
/// A position in 3-D space.
pub type Point = nalgebra::Point3<Real>;
/// A direction or displacement in 3-D space.
pub type Vector = nalgebra::Vector3<Real>;
/// A 3×3 matrix; for oriented boxes its columns are the box axes.
pub type Matrix = nalgebra::Matrix3<Real>;
/// A rigid motion (rotation then translation).
pub type Isometry = nalgebra::Isometry3<Real>;
/// A unit quaternion rotation.
pub type Rotation = nalgebra::UnitQuaternion<Real>;

/// True when every component of the point is finite (neither NaN nor ±inf).
#[must_use]
pub fn is_finite_point(p: &Point) -> bool {
    p.coords.iter().all(|c| c.is_finite())
}

/// True when every component of the vector is finite (neither NaN nor ±inf).
#[must_use]
pub fn is_finite_vector(v: &Vector) -> bool {
    v.iter().all(|c| c.is_finite())
}
