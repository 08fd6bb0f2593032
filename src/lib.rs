//! # boxtree
//!
//! Bounding-volume hierarchies over triangle meshes, and the exact primitive
//! tests they stand on: line of sight, first hits and mesh overlap.
//!
//! ```
//! use boxtree::{Aabb, MeshTree, Point, Segment, TriMesh};
//!
//! // A mesh (or `TriMesh::load("level.obj")?`), a tree with its volume's preset.
//! let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 2));
//! // Is the segment blocked, and where does it first hit?
//! let sight = Segment::new(Point::new(-3.0, 0.0, 0.0), Point::new(3.0, 0.0, 0.0));
//! assert!(tree.any_hit(&sight).is_some());
//! let hit = tree.closest_hit(&sight).expect("it crosses the ball");
//! assert!(hit.t > 0.3 && hit.t < 0.4 && hit.normal.x < 0.0);
//! ```
//!
//! The crate is layered; each layer uses only the ones before it:
//!
//! 1. [`math`]: the `f32` scalar alias and nalgebra types (with the private
//!    platform helpers: huge pages, CPU detection).
//! 2. Exact predicates (private): orientation signs exact for `f32` input.
//! 3. [`bounding_volume`] and [`shape`]: plain data ([`Aabb`], [`Obb`],
//!    [`Sphere`], [`Plane`], [`Ray`], [`RaySpan`], [`Segment`], [`Triangle`],
//!    [`TriangleId`], [`TriangleSoup`]).
//! 4. [`intersect`] and [`sweep`]: one pair test per file, each citing its source.
//! 5. [`fit`]: bounding-volume construction (hulls, spheres, OBBs).
//! 6. [`bvh`]: one tree generic over its volume, built over a [`TriangleSoup`].
//! 7. [`mesh`]: validated triangle soups ([`TriMesh`]) and their file loaders.
//! 8. [`query`]: [`MeshTree`] and [`PlacedMesh`], joining a mesh and its tree:
//!    raycasts, line of sight, batches, mesh-vs-mesh overlap, region queries.
//! 9. [`scene`]: [`Scene`], many placed, moving and instanced mesh trees
//!    under a top-level tree, with the same queries over the whole world.
//!
//! Types are re-exported at the crate root; the tests themselves are called
//! through their layer (`boxtree::intersect::segment_triangle`,
//! `boxtree::sweep::sweep_sphere_plane`), so a call names what it does.
#![deny(missing_docs)]
// Unsafe code lives in three modules only, each allowing it with a reason:
// `simd` (intrinsics and CPU dispatch), `memory` (huge-page mappings) and
// `bvh::stack` (the uninitialised traversal stack).
#![deny(unsafe_code)]
#![warn(clippy::all)]
// `!(a <= b)` is how this crate makes NaN fail a test: intentional throughout.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod bounding_volume;
pub mod bvh;
mod exact;
pub mod fit;
pub mod intersect;
pub mod math;
mod memory;
pub mod mesh;
mod parallel;
pub mod query;
pub mod saved;
pub mod scene;
pub mod shape;
mod simd;
pub mod sweep;

#[cfg(test)]
mod test_support;

pub use bounding_volume::{
    Aabb, CenterExtents, Kdop, Kdop6, Kdop14, Kdop18, Kdop26, Obb, PackedObb, Rss, Sphere,
};
pub use bvh::{AabbTree, BoundingVolume, BuildOptions, Bvh, KdopTree, ObbTree, SphereTree};
pub use math::{Isometry, Matrix, Point, Real, Rotation, Vector};
pub use mesh::{MeshError, MeshFormat, MeshReport, TriMesh, TriangleId};
pub use query::{
    BoomStop, CameraBoom, CastHit, CastShape, ClosedMesh, Contact, ErrorBound, MeshCastHit,
    MeshDistance, MeshTree, OverlapStats, PlacedMesh, PointProjection, PointQuery, RayHit, Region,
    ShapeCast, SightOptions, SignedDistance, SurfaceError, Threads, TrianglePair, Visibility,
    Which,
};
pub use scene::{
    Filter, ObjectId, ObjectPair, PairSet, Scene, SceneCastHit, SceneError, SceneHit, SceneMesh,
    SceneMeshCastHit, ScenePoint, SceneTriangle, UpdateReport,
};
#[cfg(feature = "gltf")]
pub use scene::{GltfError, GltfScene};
pub use shape::{Plane, PlaneError, Ray, RaySpan, Rectangle, Segment, Triangle, TriangleSoup};
pub use sweep::{SpherePlaneHit, SweepHit};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
