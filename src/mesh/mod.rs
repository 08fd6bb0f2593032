//! Triangle-soup meshes: vertex positions and index triples, validated once at
//! construction so that every later query can trust them.

mod city;
mod error;
mod lex;
mod load;
mod obj;
mod ply;
mod procedural;
mod stl;

pub use error::MeshError;
pub use load::MeshFormat;

use crate::bounding_volume::Aabb;
use crate::math::{Point, Real};
pub use crate::shape::TriangleId;
use crate::shape::{Triangle, TriangleSoup};

/// A validated triangle soup: finite vertices, in-range indices, at least one triangle.
///
/// Zero-area triangles are kept (so triangle ids stay those of the input) but
/// counted in [`MeshReport`]. Rays never hit them, and region and overlap
/// queries never report them (a surface has no point there); distance
/// queries (nearest points, mesh distances and tolerances) and shape and
/// mesh casts take them as the segment or point they span, so a needle
/// touching a mesh is at distance 0 and within any tolerance while the
/// overlap query finds no contact.
#[derive(Clone, Debug, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
}

/// What validation found in a mesh that is nonetheless usable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshReport {
    /// Number of vertices.
    pub vertex_count: usize,
    /// Number of triangles.
    pub triangle_count: usize,
    /// Triangles with zero area (collinear or repeated vertices).
    pub degenerate_triangles: usize,
    /// Vertices that no triangle uses.
    pub unused_vertices: usize,
    /// Total surface area.
    pub surface_area: Real,
}

impl TriMesh {
    /// Validates and takes ownership of the buffers.
    ///
    /// Errors name the first offending vertex or triangle: a non-finite
    /// coordinate, an index out of range, an empty mesh, or more vertices than
    /// `u32` indices can address.
    pub fn new(vertices: Vec<Point>, indices: Vec<[u32; 3]>) -> Result<TriMesh, MeshError> {
        if indices.is_empty() {
            return Err(MeshError::Empty);
        }
        if u32::try_from(vertices.len()).is_err() || u32::try_from(indices.len()).is_err() {
            return Err(MeshError::TooLarge {
                vertices: vertices.len(),
                triangles: indices.len(),
            });
        }
        check_finite(&vertices)?;
        let count = vertices.len();
        // One pass without early exits first (it vectorises); the culprit
        // is looked for only when there is one.
        let limit = count as u32;
        if indices
            .as_flattened()
            .iter()
            .fold(false, |out, &i| out | (i >= limit))
        {
            for (triangle, tri) in indices.iter().enumerate() {
                if let Some(&index) = tri.iter().find(|&&i| i >= limit) {
                    return Err(MeshError::IndexOutOfRange {
                        triangle,
                        index,
                        vertex_count: count,
                    });
                }
            }
        }
        Ok(TriMesh { vertices, indices })
    }

    /// Validates copies of the caller's buffers (which stay untouched).
    pub fn from_slices(vertices: &[Point], indices: &[[u32; 3]]) -> Result<TriMesh, MeshError> {
        TriMesh::new(vertices.to_vec(), indices.to_vec())
    }

    /// The mesh as the borrowed soup that trees are built over.
    #[must_use]
    #[inline]
    pub fn soup(&self) -> TriangleSoup<'_> {
        TriangleSoup::new_unchecked(&self.vertices, &self.indices)
    }

    /// The vertex positions.
    #[must_use]
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// The index triples, one per triangle.
    #[must_use]
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// Number of triangles.
    #[must_use]
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Always false: a validated mesh has at least one triangle.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Triangle `id` as three points.
    #[must_use]
    #[inline]
    pub fn triangle(&self, id: TriangleId) -> Triangle {
        self.soup().triangle(id)
    }

    /// Every triangle, in id order.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = Triangle> + '_ {
        (0..self.indices.len() as u32).map(|i| self.triangle(TriangleId(i)))
    }

    /// The box around every vertex that a triangle uses.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        self.soup().aabb()
    }

    /// Replaces the vertex positions (same count, same triangles), for
    /// deforming meshes whose trees are then refitted.
    pub fn set_vertices(&mut self, vertices: Vec<Point>) -> Result<(), MeshError> {
        if vertices.len() != self.vertices.len() {
            return Err(MeshError::VertexCountChanged {
                expected: self.vertices.len(),
                found: vertices.len(),
            });
        }
        check_finite(&vertices)?;
        self.vertices = vertices;
        Ok(())
    }

    /// Counts of degenerate triangles and unused vertices, and the surface area.
    #[must_use]
    pub fn report(&self) -> MeshReport {
        let mut used = vec![false; self.vertices.len()];
        let mut degenerate_triangles = 0;
        let mut surface_area = 0.0;
        for (tri, idx) in self.triangles().zip(&self.indices) {
            for &i in idx {
                used[i as usize] = true;
            }
            if tri.is_degenerate() {
                degenerate_triangles += 1;
            }
            surface_area += tri.area();
        }
        MeshReport {
            vertex_count: self.vertices.len(),
            triangle_count: self.indices.len(),
            degenerate_triangles,
            unused_vertices: used.iter().filter(|u| !**u).count(),
            surface_area,
        }
    }
}

/// The first vertex with a NaN or infinite coordinate, as an error.
fn check_finite(vertices: &[Point]) -> Result<(), MeshError> {
    // Infinite or NaN exactly when the exponent bits are all set. One pass
    // without early exits first (it vectorises); the culprit is looked for
    // only when there is one.
    let non_finite = |c: Real| c.to_bits() & 0x7fff_ffff >= 0x7f80_0000;
    let any = vertices.iter().fold(false, |any, v| {
        any | non_finite(v.x) | non_finite(v.y) | non_finite(v.z)
    });
    if !any {
        return Ok(());
    }
    match vertices
        .iter()
        .position(|v| !v.coords.iter().all(|c| c.is_finite()))
    {
        Some(vertex) => Err(MeshError::NonFiniteVertex {
            vertex,
            position: [vertices[vertex].x, vertices[vertex].y, vertices[vertex].z],
        }),
        None => Ok(()),
    }
}

impl<'a> From<&'a TriMesh> for TriangleSoup<'a> {
    fn from(mesh: &'a TriMesh) -> Self {
        mesh.soup()
    }
}
