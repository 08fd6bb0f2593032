//! Static intersection tests, one pair of shapes per file, named in argument order.

mod box_plane;
mod obb_obb;
mod point_triangle;
mod polytope_sat;
mod ray_triangle;
mod rectangle_distance;
mod segment_aabb;
mod segment_obb;
mod sphere_box;
mod triangle_box;
mod triangle_distance;
mod triangle_sphere;
pub(crate) mod triangle_triangle;

pub use box_plane::{PlaneSide, aabb_plane_side, obb_plane_side};
pub use obb_obb::boxes_overlap;
pub(crate) use obb_obb::{Rows, boxes_overlap_rows, rows_of};
pub use point_triangle::{TriangleClosestPoint, closest_point_on_triangle};
pub use polytope_sat::{ConvexPolytope, polytopes_overlap};
pub use ray_triangle::{FaceCulling, TriangleHit, WatertightRay, ray_triangle, segment_triangle};
pub(crate) use ray_triangle::{TriangleLanes, end_thresholds};
pub use rectangle_distance::{rectangle_distance, rss_distance};
pub use segment_aabb::{RayBoxHit, ray_aabb, segment_aabb, segment_overlaps_aabb};
pub use segment_obb::{ray_obb, segment_obb, segment_overlaps_obb};
pub use sphere_box::{sphere_overlaps_aabb, sphere_overlaps_obb};
pub use triangle_box::{triangle_overlaps_aabb, triangle_overlaps_obb};
pub use triangle_distance::{
    SegmentClosestPoints, TriangleDistance, closest_points_segments, triangle_distance,
};
pub(crate) use triangle_distance::{segment_parameters, triangle_distance_knowing};
pub use triangle_sphere::triangle_overlaps_sphere;
pub use triangle_triangle::triangles_overlap;
