//! The integration tests that CI runs twice, with the default features and
//! with the optional ones: the raycast, box and nearest-point kernels (whose
//! `portable` forms x86-64 otherwise never compiles), saved trees (`serde`),
//! glTF scenes (`gltf`) and the `glam`/`mint` conversions. A binary of their
//! own, so that the second build compiles only them.

#[path = "../common/mod.rs"]
mod common;

mod bvh;
mod distance;
mod endpoints;
mod grazing;
mod interop;
mod mesh_distance;
mod raycast;
mod saved;
#[cfg(feature = "gltf")]
mod scene_gltf;
