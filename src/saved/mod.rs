//! Saved meshes, trees and scenes: bake a level's trees offline, load them
//! in a fraction of the build time.
//!
//! The form is boxtree's own, little-endian and versioned
//! ([`FORMAT_VERSION`]): a header naming the content and volume kind,
//! length-prefixed arrays, and a checksum. A tree is saved as its mesh,
//! its topology (links, leaf order, the 8-wide layout's links) and, for
//! OBB trees, its volumes: no collapse and no fit runs on load. What one
//! pass recomputes exactly is left out: the leaf-order triangles and
//! every AABB, made from the mesh on load (37 bytes per triangle for an
//! AABB tree, against 129 when they were saved in the first version).
//!
//! Loading treats the bytes as untrusted: a wrong magic, version, kind or
//! checksum, a truncation (whose last bytes then read as a wrong checksum:
//! `LoadError::Checksum`), a count larger than the bytes present, or any
//! link, index or leaf range that does not describe a valid tree is a
//! [`LoadError`] before a query can run; never a panic, never an
//! allocation beyond the file's size. The checksum catches damage, not
//! intent, and a file rewritten with a correct checksum (forged, or
//! written by a faulty tool) cannot give wrong answers either: its AABBs
//! and leaf triangles are its mesh's by construction, and saved OBBs must
//! be rotations (orthonormal frames, to `1e-5`) holding the triangles
//! below them, within
//! [`Bvh::validate`](crate::Bvh::validate)'s rounding tolerance (`1e-5` of
//! the mesh's size), as their fit rounds. The form needs no dependency;
//! the `serde` feature adds serde's traits for `TriMesh` and `MeshTree`
//! through it (one byte string), for use inside a caller's serde format.

mod format;
mod scene;
#[cfg(feature = "serde")]
mod serde_impls;
mod tree;
mod volume;

pub use volume::SavedVolume;

use crate::bvh::ValidationError;
use crate::mesh::MeshError;

/// The version this build writes and reads; other versions are refused.
pub const FORMAT_VERSION: u32 = 2;

/// Why saved bytes could not be loaded.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadError {
    /// Reading failed.
    Io(std::io::Error),
    /// The bytes do not start like a saved boxtree file.
    NotSaved,
    /// Saved by another version of the format.
    Version {
        /// The file's version.
        found: u32,
        /// The one this build reads.
        supported: u32,
    },
    /// The file holds another kind of content or volume.
    Kind {
        /// What the file holds.
        found: String,
        /// What the caller asked for.
        expected: String,
    },
    /// The file ends inside a section.
    Truncated {
        /// The section.
        section: &'static str,
    },
    /// The checksum does not match: the bytes were damaged.
    Checksum,
    /// A section holds a value no valid file has.
    Corrupt {
        /// The section.
        section: &'static str,
        /// The item (or byte offset, for `end`).
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The mesh is invalid (a non-finite vertex, an index out of range).
    Mesh(MeshError),
    /// The tree's links or leaf ranges are invalid.
    Tree(ValidationError),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "reading a saved tree: {e}"),
            LoadError::NotSaved => write!(f, "not a saved boxtree file (wrong magic bytes)"),
            LoadError::Version { found, supported } => write!(
                f,
                "saved with format version {found}; this build reads version {supported}"
            ),
            LoadError::Kind { found, expected } => {
                write!(f, "the file holds {found}, not {expected}")
            }
            LoadError::Truncated { section } => {
                write!(f, "the file ends inside its {section} section")
            }
            LoadError::Checksum => write!(f, "the checksum does not match: the file is damaged"),
            LoadError::Corrupt {
                section,
                index,
                reason,
            } => write!(f, "{section} item {index}: {reason}"),
            LoadError::Mesh(e) => write!(f, "saved mesh: {e}"),
            LoadError::Tree(e) => write!(f, "saved tree: {e}"),
        }
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoadError::Io(e) => Some(e),
            LoadError::Mesh(e) => Some(e),
            LoadError::Tree(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> Self {
        LoadError::Io(e)
    }
}

#[cfg(test)]
mod tests;
