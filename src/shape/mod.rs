//! Query and mesh shapes as plain data: [`Plane`], [`Ray`], [`Segment`],
//! [`Triangle`], the [`TriangleId`] that names a triangle in its mesh, and
//! the borrowed [`TriangleSoup`] that trees read of a mesh.

mod id;
mod plane;
mod ray;
mod soup;
mod triangle;

pub use id::TriangleId;
pub use plane::{Plane, PlaneError};
pub use ray::{Ray, RaySpan, Segment};
pub use soup::TriangleSoup;
pub use triangle::Triangle;
