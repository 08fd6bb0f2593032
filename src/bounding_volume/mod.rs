//! Bounding volumes as plain data with their own small methods: [`Aabb`],
//! [`Obb`] (and its 36-byte [`PackedObb`] for large trees), [`Sphere`], the
//! k-DOPs and the rectangle swept sphere [`Rss`] of distance queries.

mod aabb;
mod kdop;
mod obb;
mod packed_obb;
mod rss;
mod sphere;

pub use aabb::{Aabb, CenterExtents};
pub use kdop::{Kdop, Kdop6, Kdop14, Kdop18, Kdop26, KdopDirections};
pub use obb::Obb;
pub use packed_obb::PackedObb;
pub use rss::Rss;
pub use sphere::Sphere;
