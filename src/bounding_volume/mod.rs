//! Bounding volumes as plain data with their own small methods: [`Aabb`],
//! [`Obb`], [`Sphere`] and the k-DOPs.

mod aabb;
mod obb;
mod sphere;

pub use aabb::{Aabb, CenterExtents};
pub use obb::Obb;
pub use sphere::Sphere;
