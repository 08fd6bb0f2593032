//! Derived meshes shared by tests and benches.

use boxtree::TriMesh;

/// `mesh` scaled by one half about its box centre: the half-size copy of
/// the bunny in the overlap and distance goals (issues 20 and 23).
pub fn half_size(mesh: &TriMesh) -> TriMesh {
    let centre = mesh.aabb().center();
    let vertices = mesh
        .vertices()
        .iter()
        .map(|v| centre + (v - centre) * 0.5)
        .collect();
    TriMesh::new(vertices, mesh.indices().to_vec()).expect("a scaled copy of a valid mesh")
}
