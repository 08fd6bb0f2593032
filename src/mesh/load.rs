//! Reading meshes from files: the format is chosen by extension, else by
//! content, and handed to one of the three parsers ([`super::obj`],
//! [`super::stl`], [`super::ply`]), which share the error and tokenising
//! helpers of [`super::lex`].
//!
//! Error contract: every loader error is a [`MeshError::File`] naming the file
//! (the path, or the display name given to the in-memory functions) and, for
//! text, the 1-based line; binary errors name the byte offset and the
//! triangle, vertex or face instead. Non-finite coordinates are caught while
//! parsing, so they too carry their line or record number. The validation of
//! [`TriMesh::new`] still runs afterwards; what it can then still reject (no
//! triangles, more than 32-bit indices address) is wrapped into
//! [`MeshError::File`] with its message and no line.
//!
//! Malformed input never panics and never drives an allocation: counts read
//! from a file are checked against the bytes that follow before anything is
//! reserved.

use std::path::Path;

use super::lex::file_error;
use super::{MeshError, TriMesh, obj, ply, stl};

/// A mesh file format that [`TriMesh::load`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// Wavefront OBJ (text).
    Obj,
    /// STL, ASCII or binary.
    Stl,
    /// Stanford PLY: ASCII, binary little-endian or binary big-endian.
    Ply,
}

impl MeshFormat {
    /// The format named by the path's extension (`obj`, `stl`, `ply`, in any case).
    #[must_use]
    pub fn from_path(path: impl AsRef<Path>) -> Option<MeshFormat> {
        let extension = path.as_ref().extension()?.to_str()?;
        [
            ("obj", MeshFormat::Obj),
            ("stl", MeshFormat::Stl),
            ("ply", MeshFormat::Ply),
        ]
        .into_iter()
        .find(|(name, _)| extension.eq_ignore_ascii_case(name))
        .map(|(_, format)| format)
    }

    /// The format the bytes look like: a first line `ply`; a binary STL whose
    /// length matches its triangle count, or text starting with `solid`; or a
    /// first statement that is an OBJ keyword (or FCL's leading count line).
    #[must_use]
    pub fn sniff(bytes: &[u8]) -> Option<MeshFormat> {
        if ply::has_magic(bytes) {
            Some(MeshFormat::Ply)
        } else if stl::looks_like_stl(bytes) {
            Some(MeshFormat::Stl)
        } else if obj::looks_like_obj(bytes) {
            Some(MeshFormat::Obj)
        } else {
            None
        }
    }
}

impl TriMesh {
    /// Reads a mesh file; the format comes from the extension, or from the
    /// content when the extension is not `.obj`, `.stl` or `.ply`.
    ///
    /// A file that cannot be read is [`MeshError::Io`], keeping the
    /// operating system's error as its source. Every other error is a
    /// [`MeshError::File`] naming `path` and, for text, the
    /// 1-based line (binary errors name the record and byte offset instead);
    /// non-finite coordinates are reported there too, and what [`TriMesh::new`]
    /// still rejects afterwards (no triangles) is wrapped with no line.
    /// Malformed bytes never panic, and counts read from a header never drive
    /// an allocation larger than the file could fill. See
    /// [`TriMesh::from_obj_bytes`], [`TriMesh::from_stl_bytes`] and
    /// [`TriMesh::from_ply_bytes`] for what each format reads.
    pub fn load(path: impl AsRef<Path>) -> Result<TriMesh, MeshError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        TriMesh::from_bytes(path, &bytes)
    }

    /// Parses a mesh held in memory; `name` appears in errors, and its
    /// extension picks the format (the content is sniffed when it has none).
    pub fn from_bytes(name: impl AsRef<Path>, bytes: &[u8]) -> Result<TriMesh, MeshError> {
        let name = name.as_ref();
        match MeshFormat::from_path(name).or_else(|| MeshFormat::sniff(bytes)) {
            Some(MeshFormat::Obj) => obj::parse(name, bytes),
            Some(MeshFormat::Stl) => stl::parse(name, bytes),
            Some(MeshFormat::Ply) => ply::parse(name, bytes),
            None => Err(file_error(
                name,
                None,
                "unknown mesh format: the extension is not .obj, .stl or .ply \
                 and the content looks like none of them",
            )),
        }
    }
}
