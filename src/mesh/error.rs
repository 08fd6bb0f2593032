//! Why a mesh was rejected: what was wrong and where.

use std::path::PathBuf;

/// A mesh that cannot be used, with the place of the first problem.
///
/// New kinds of problems may be added: match with a wildcard arm.
#[derive(Debug)]
#[non_exhaustive]
pub enum MeshError {
    /// The mesh has no triangles.
    Empty,
    /// A vertex coordinate is NaN or infinite.
    NonFiniteVertex {
        /// Index of the vertex.
        vertex: usize,
        /// Its coordinates as given.
        position: [f32; 3],
    },
    /// A triangle refers to a vertex that does not exist.
    IndexOutOfRange {
        /// Index of the triangle.
        triangle: usize,
        /// The offending vertex index.
        index: u32,
        /// How many vertices the mesh has.
        vertex_count: usize,
    },
    /// More vertices or triangles than 32-bit indices address.
    TooLarge {
        /// Number of vertices given.
        vertices: usize,
        /// Number of triangles given.
        triangles: usize,
    },
    /// A vertex update changed the number of vertices.
    VertexCountChanged {
        /// Vertices the mesh has.
        expected: usize,
        /// Vertices given.
        found: usize,
    },
    /// A mesh file could not be read; the operating system's error is the
    /// [`source`](std::error::Error::source).
    Io {
        /// The file.
        path: PathBuf,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// A mesh file could not be parsed.
    File {
        /// The file.
        path: PathBuf,
        /// The 1-based line, for line-based formats, when known.
        line: Option<usize>,
        /// What was wrong.
        message: String,
    },
}

impl std::fmt::Display for MeshError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MeshError::Empty => write!(f, "the mesh has no triangles"),
            MeshError::NonFiniteVertex { vertex, position } => {
                write!(
                    f,
                    "vertex {vertex} has a non-finite coordinate {position:?}"
                )
            }
            MeshError::IndexOutOfRange {
                triangle,
                index,
                vertex_count,
            } => write!(
                f,
                "triangle {triangle} refers to vertex {index}, but the mesh has {vertex_count} vertices"
            ),
            MeshError::TooLarge {
                vertices,
                triangles,
            } => write!(
                f,
                "{vertices} vertices and {triangles} triangles exceed 32-bit indexing"
            ),
            MeshError::VertexCountChanged { expected, found } => {
                write!(f, "expected {expected} vertices, got {found}")
            }
            MeshError::Io { path, source } => {
                write!(f, "{}: cannot read the file: {source}", path.display())
            }
            MeshError::File {
                path,
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            MeshError::File {
                path,
                line: None,
                message,
            } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for MeshError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MeshError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
