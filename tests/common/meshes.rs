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

/// The octahedron `|x| + |y| + |z| = 1`: closed, wound outwards, its faces
/// on the corner-diagonal planes (dyadic points summing to 1 lie on them
/// exactly).
pub fn octahedron() -> TriMesh {
    let corners = vec![
        Point::new(1.0, 0.0, 0.0),
        Point::new(-1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
        Point::new(0.0, -1.0, 0.0),
        Point::new(0.0, 0.0, 1.0),
        Point::new(0.0, 0.0, -1.0),
    ];
    let mut faces = Vec::new();
    for (x, y, z) in [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4)] {
        faces.push([x, y, z]);
        faces.push([y, x, 5]);
    }
    TriMesh::new(corners, faces).expect("a valid octahedron")
}

/// The generalised winding number of `mesh` at `p`, in `f64`: the sum of
/// its triangles' solid angles (van Oosterom and Strackee's formula) over
/// 4π; 1 inside a closed surface wound outwards, 0 outside.
pub fn winding_number(mesh: &TriMesh, p: &Point) -> f64 {
    let p = p.cast::<f64>();
    let mut total = 0.0;
    for t in mesh.triangles() {
        let [a, b, c] = [t.a, t.b, t.c].map(|v| v.cast::<f64>() - p);
        let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
        let numerator = a.dot(&b.cross(&c));
        let denominator = la * lb * lc + a.dot(&b) * lc + b.dot(&c) * la + c.dot(&a) * lb;
        total += 2.0 * numerator.atan2(denominator);
    }
    total / (4.0 * std::f64::consts::PI)
}
