//! The integration tests that do not depend on the crate's features, as
//! modules of one binary: a test crate each compiled the library's generic
//! kernels again (two thirds of a cold `cargo test` build went on that).
//! Those that do are in `tests/features`.

#[path = "../common/mod.rs"]
mod common;

mod boxes;
mod demo;
mod examples;
mod fit_hull;
mod fit_obb;
mod fit_sphere;
mod fitting_table;
mod kdop;
mod mesh_io;
mod mesh_overlap;
mod region;
mod rss;
mod scene;
mod shape_cast;
mod signed_distance;
mod sweep;
mod triangle;
