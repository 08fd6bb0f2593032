//! Derived meshes shared by tests and benches.

use boxtree::{Point, TriMesh};

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

/// The vertices of `mesh` twisted about the z axis (by 0.3 rad per unit of
/// height), stretched by 1.5 along y and sheared in z: a deformation for
/// refit tests, the same triangles over moved vertices.
pub fn twisted_vertices(mesh: &TriMesh) -> Vec<Point> {
    mesh.vertices()
        .iter()
        .map(|p| {
            let a = 0.3 * p.z;
            Point::new(
                p.x * a.cos() - p.y * a.sin(),
                1.5 * (p.x * a.sin() + p.y * a.cos()),
                p.z + 0.1 * p.x,
            )
        })
        .collect()
}
