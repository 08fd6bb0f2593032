//! Ids that name a triangle by its place in its mesh: a plain index, kept
//! in the shape layer so that trees and tests below the mesh layer can
//! speak of triangles without depending on how meshes are stored or read.

/// Index of a triangle in its mesh (the order the caller gave).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TriangleId(pub u32);

impl TriangleId {
    /// The index as `usize`.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
