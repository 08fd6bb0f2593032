//! The integration tests that do not depend on the crate's features, as
//! modules of one binary: as 25 crates, each compiled the library's
//! generic kernels again, about 310 of a cold `cargo test` build's 680
//! CPU seconds. Those that do depend on them are in `tests/features`.

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
mod scale_and_touching;
mod scene;
mod shape_cast;
mod signed_distance;
mod sweep;
mod triangle;
