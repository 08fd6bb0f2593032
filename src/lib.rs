//! # boxtree
//!
//! Bounding-volume hierarchies over triangle meshes, and the exact primitive
//! tests they stand on.
//!
//! The crate is layered; each layer uses only the ones above it in this list:
//!
//! 1. [`math`]: the `f32` scalar alias and nalgebra types.
//! 2. [`bounding_volume`] and [`shape`]: plain data ([`Aabb`], [`Obb`],
//!    [`Sphere`], [`Plane`], [`Ray`], [`Segment`], [`Triangle`]).
//! 3. [`intersect`] and [`sweep`]: one pair test per file, each citing its source.
//! 4. [`fit`]: bounding-volume construction (hulls, spheres, OBBs).
//!
//! Types are re-exported at the crate root; the tests themselves are called
//! through their layer (`boxtree::intersect::segment_triangle`,
//! `boxtree::sweep::sweep_sphere_plane`), so a call names what it does.
#![deny(missing_docs)]
#![warn(clippy::all)]
// `!(a <= b)` is how this crate makes NaN fail a test: intentional throughout.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod bounding_volume;
pub mod bvh;
mod cpu;
mod exact;
pub mod fit;
pub mod intersect;
pub mod math;
mod memory;
pub mod mesh;
pub mod query;
pub mod shape;
pub mod sweep;

#[cfg(test)]
mod test_support;

pub use bounding_volume::{
    Aabb, CenterExtents, Kdop, Kdop6, Kdop14, Kdop18, Kdop26, Obb, PackedObb, Sphere,
};
pub use bvh::{AabbTree, BoundingVolume, BuildOptions, Bvh, KdopTree, ObbTree, SphereTree};
pub use math::{Isometry, Matrix, Point, Real, Rotation, Vector};
pub use mesh::{MeshError, MeshFormat, MeshReport, TriMesh, TriangleId};
pub use query::{
    Contact, MeshTree, OverlapStats, PlacedMesh, RayHit, Region, SightOptions, Threads,
    TrianglePair, Visibility, Which,
};
pub use shape::{Plane, PlaneError, Ray, RaySpan, Segment, Triangle, TriangleSoup};
pub use sweep::{SpherePlaneHit, SweepHit};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
