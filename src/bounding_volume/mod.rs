//! Bounding volumes as plain data with their own small methods: [`Aabb`],
//! [`Obb`] (and its 36-byte [`PackedObb`] for large trees), [`Sphere`] and
//! the k-DOPs.

mod aabb;
mod kdop;
mod obb;
mod packed_obb;
mod sphere;

pub use aabb::{Aabb, CenterExtents};
pub use kdop::{Kdop, Kdop6, Kdop14, Kdop18, Kdop26, KdopDirections};
pub use obb::Obb;
pub use packed_obb::PackedObb;
pub use sphere::Sphere;
