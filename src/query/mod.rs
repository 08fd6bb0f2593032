//! The user-facing queries on a mesh and its tree: raycasts, line of
//! sight, regions, overlap, nearest points, distances and shape casts.

pub(crate) mod batch;
mod closest_point;
pub(crate) mod frame;
mod leaf_triangles;
pub(crate) mod line_of_sight;
mod mesh_cast;
mod mesh_distance;
mod mesh_overlap;
mod mesh_tree;
mod nearest_packets;
pub(crate) mod raycast;
mod raycast_stream;
mod raycast_wide;
mod region;
pub(crate) mod shape_cast;
mod signed_distance;

pub use batch::Threads;
pub use closest_point::{PointProjection, PointQuery};
pub(crate) use leaf_triangles::{leaf_triangles, run_box};
pub use line_of_sight::{SightOptions, Visibility};
pub use mesh_cast::MeshCastHit;
pub use mesh_distance::{ErrorBound, MeshDistance};
pub use mesh_overlap::{Contact, OverlapStats, TrianglePair, Which};
pub(crate) use mesh_tree::apart;
pub use mesh_tree::{MeshTree, PlacedMesh};
pub use raycast::RayHit;
pub use region::Region;
pub use shape_cast::{BoomStop, CameraBoom, CastHit, CastShape, ShapeCast};
pub use signed_distance::{ClosedMesh, SignedDistance, SurfaceError};
