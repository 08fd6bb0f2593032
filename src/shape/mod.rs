//! Query and mesh shapes as plain data: [`Plane`], [`Ray`], [`Segment`], [`Triangle`].

mod plane;
mod ray;
mod triangle;

pub use plane::{Plane, PlaneError};
pub use ray::{Ray, Segment};
pub use triangle::Triangle;
