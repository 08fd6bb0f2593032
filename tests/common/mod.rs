//! Seeded generators and proptest strategies shared by the integration tests.
#![allow(dead_code)]

#[path = "splitmix.rs"]
mod splitmix;

use boxtree::TriMesh;
use boxtree::math::{Isometry, Matrix, Point, Real, Rotation, Vector, nalgebra};
use proptest::prelude::*;

/// A point with coordinates in `[-extent, extent]`.
pub fn point(extent: Real) -> impl Strategy<Value = Point> {
    (-extent..=extent, -extent..=extent, -extent..=extent).prop_map(|(x, y, z)| Point::new(x, y, z))
}

/// A vector with components in `[-extent, extent]`.
pub fn vector(extent: Real) -> impl Strategy<Value = Vector> {
    point(extent).prop_map(|p| p.coords)
}

/// A uniformly distributed rotation (from a normalised random quaternion),
/// mixed with exact axis-aligned quarter turns, the adversarial case for SAT.
pub fn rotation() -> impl Strategy<Value = Rotation> {
    prop_oneof![
        4 => (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_filter_map(
            "degenerate quaternion",
            |(w, i, j, k)| {
                let q = nalgebra::Quaternion::new(w, i, j, k);
                (q.norm() > 0.1).then(|| Rotation::from_quaternion(q))
            }
        ),
        1 => (0u8..4, 0u8..3).prop_map(|(turns, axis)| {
            let a = [Vector::x_axis(), Vector::y_axis(), Vector::z_axis()][axis as usize];
            Rotation::from_axis_angle(&a, turns as Real * std::f32::consts::FRAC_PI_2)
        }),
        1 => Just(Rotation::identity()),
    ]
}

/// The rotation as a 3×3 matrix of column axes.
pub fn matrix(rotation: &Rotation) -> Matrix {
    *rotation.to_rotation_matrix().matrix()
}

/// A rigid motion with translation in `[-extent, extent]³`.
pub fn isometry(extent: Real) -> impl Strategy<Value = Isometry> {
    (vector(extent), rotation()).prop_map(|(t, r)| Isometry::from_parts(t.into(), r))
}

#[allow(unused_imports)]
pub use splitmix::SplitMix;
mod meshes;
#[allow(unused_imports)]
pub use meshes::{half_size, octahedron, twisted_vertices, winding_number};

#[allow(dead_code)]
pub mod bands;

#[allow(dead_code)]
pub mod exact64;

/// A mesh from `tests/data` (origins in `tests/data/README.md`), by file name.
pub fn data_mesh(file: &str) -> TriMesh {
    TriMesh::load(format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR")))
        .expect("test mesh loads")
}

/// A triangle soup with one mesh triangle per given triangle (nothing shared).
pub fn triangle_soup(triangles: &[[[Real; 3]; 3]]) -> TriMesh {
    let vertices = triangles
        .iter()
        .flatten()
        .map(|v| Point::new(v[0], v[1], v[2]))
        .collect();
    let indices = (0..triangles.len() as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    TriMesh::new(vertices, indices).expect("valid triangles")
}

/// The answers a batch method writes into its buffer, as a new vector.
pub fn collected<T>(batch: impl FnOnce(&mut Vec<T>)) -> Vec<T> {
    let mut out = Vec::new();
    batch(&mut out);
    out
}

/// True with `BOXTREE_LONG_TESTS` set: property and sampling tests then run
/// many more cases (not in CI).
#[allow(dead_code)]
pub fn long_tests() -> bool {
    std::env::var_os("BOXTREE_LONG_TESTS").is_some()
}

/// `long` cases with `BOXTREE_LONG_TESTS` set, else `short`.
#[allow(dead_code)]
pub fn long_or<T>(long: T, short: T) -> T {
    if long_tests() { long } else { short }
}
