//! Query and mesh shapes as plain data: [`Plane`], [`Ray`], [`Segment`],
//! [`Triangle`], [`Rectangle`], the [`TriangleId`] that names a triangle in its mesh, and
//! the borrowed [`TriangleSoup`] that trees read of a mesh.

mod id;
mod plane;
mod ray;
mod rectangle;
mod soup;
mod triangle;

pub use id::TriangleId;
pub use plane::{Plane, PlaneError};
pub use ray::{Ray, RaySpan, Segment};
pub use rectangle::Rectangle;
pub use soup::TriangleSoup;
pub use triangle::Triangle;
