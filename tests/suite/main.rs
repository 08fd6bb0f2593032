//! The integration tests, one binary: every module below was its own test
//! crate once, and each compiled the library's generic kernels again (a
//! cold `cargo test` spent two thirds of its build on them).

#[path = "../common/mod.rs"]
mod common;

mod boxes;
mod bvh;
mod demo;
mod distance;
mod endpoints;
mod examples;
mod fit_hull;
mod fit_obb;
mod fit_sphere;
mod fitting_table;
mod interop;
mod kdop;
mod mesh_distance;
mod mesh_io;
mod mesh_overlap;
mod raycast;
mod region;
mod rss;
mod saved;
mod scene;
#[cfg(feature = "gltf")]
mod scene_gltf;
mod shape_cast;
mod signed_distance;
mod sweep;
mod triangle;
