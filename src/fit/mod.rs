//! Bounding-volume fitting: building hulls, spheres and boxes around point sets.
//!
//! This layer sits between the primitive tests and the hierarchy: it turns raw
//! points (a mesh's vertices, a node's primitives) into the tightest or the
//! cheapest bounding volume of each kind.

mod covariance;
mod hull;
mod obb;
mod rss;
mod sphere;

pub(crate) use covariance::surface_frame;
pub use covariance::{
    Covariance, CovarianceAccumulator, CovarianceSource, point_covariance, principal_frame,
    triangle_covariance,
};
pub use hull::{ConvexHull, Hull, HullError, convex_hull};
pub(crate) use obb::{NodeBoxes, node_boxes};
pub use obb::{
    obb_from_points_covariance, obb_from_points_hull_covariance, obb_from_points_min_volume,
    obb_from_triangles_covariance, obb_with_axes, pack_obb, packed_obb_with_axes, triangle_frame,
};
pub use rss::rss_with_axes;
pub use sphere::{SphereFitError, ritter_sphere, sphere_from_aabb, welzl_sphere};
