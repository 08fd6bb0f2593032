//! Bounding volumes as plain data with their own small methods: [`Aabb`],
//! [`Obb`], [`Sphere`] and the k-DOPs.

mod aabb;
mod kdop;
mod obb;
mod sphere;

pub use aabb::{Aabb, CenterExtents};
pub use kdop::{Kdop, Kdop6, Kdop14, Kdop18, Kdop26, KdopDirections};
pub use obb::Obb;
pub use sphere::Sphere;
