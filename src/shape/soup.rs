//! A borrowed triangle soup: what the tree layer reads of a mesh. Trees are
//! built, refitted and validated over vertex positions and index triples,
//! not over the mesh type, so the hierarchy does not depend on how meshes
//! are stored, loaded or validated.

use crate::bounding_volume::Aabb;
use crate::math::Point;
use crate::shape::{Triangle, TriangleId};

/// Vertex positions and index triples, borrowed from a validated mesh.
///
/// Only the mesh layer makes one (`From<&TriMesh>`), after checking that
/// every index is in range and every coordinate finite, so reading a
/// triangle never fails.
#[derive(Clone, Copy, Debug)]
pub struct TriangleSoup<'a> {
    vertices: &'a [Point],
    indices: &'a [[u32; 3]],
}

impl<'a> TriangleSoup<'a> {
    /// Borrows already validated buffers (every index below `vertices.len()`:
    /// `TriMesh::new` checked them, and this runs on every `TriMesh::triangle`,
    /// so it checks nothing again).
    #[must_use]
    #[inline]
    pub(crate) fn new_unchecked(vertices: &'a [Point], indices: &'a [[u32; 3]]) -> Self {
        TriangleSoup { vertices, indices }
    }

    /// The number of triangles.
    #[must_use]
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// True when there are no triangles.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The vertex positions.
    #[must_use]
    pub fn vertices(&self) -> &'a [Point] {
        self.vertices
    }

    /// The index triples, one per triangle.
    #[must_use]
    pub fn indices(&self) -> &'a [[u32; 3]] {
        self.indices
    }

    /// The triangle `id`. Panics when `id` is out of range.
    #[must_use]
    #[inline]
    pub fn triangle(&self, id: TriangleId) -> Triangle {
        let [a, b, c] = self.indices[id.index()];
        let vertex = |i: u32| self.vertices[i as usize];
        Triangle::new(vertex(a), vertex(b), vertex(c))
    }

    /// The box around every vertex that a triangle uses.
    #[must_use]
    pub fn aabb(&self) -> Aabb {
        (0..self.len() as u32).fold(Aabb::EMPTY, |b, i| {
            b.union(&self.triangle(TriangleId(i)).aabb())
        })
    }
}
