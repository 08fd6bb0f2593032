//! Procedural meshes: built-in scenes for the demo, tests and benches, so
//! nothing needs a file. Every generator is deterministic.
//!
//! They are conveniences for fixed, sensible arguments: one given a NaN or
//! infinite size or position, or whose vertices overflow `f32` (sizes near
//! 1e38), panics with the mesh error it met (each says so under *Panics*);
//! counts of cells, blocks or subdivisions below their least are raised to
//! it (`terrain(0, ..)` is one cell), except `random_soup(0, ..)`, which
//! has no triangle to make and panics. Meshes from data go through
//! [`TriMesh::new`], which returns that error instead.

use std::collections::HashMap;

use crate::math::{Point, Real, Vector};
use crate::mesh::TriMesh;

impl TriMesh {
    /// A closed, outward-oriented icosphere: an icosahedron whose faces are
    /// split `subdivisions` times (20 · 4ⁿ triangles), vertices shared.
    ///
    /// # Panics
    ///
    /// When an argument is NaN or infinite, or the vertices overflow `f32`.
    #[must_use]
    pub fn icosphere(center: Point, radius: Real, subdivisions: u32) -> TriMesh {
        let t = (1.0 + (5.0 as Real).sqrt()) / 2.0;
        let mut vertices: Vec<Vector> = [
            (-1.0, t, 0.0),
            (1.0, t, 0.0),
            (-1.0, -t, 0.0),
            (1.0, -t, 0.0),
            (0.0, -1.0, t),
            (0.0, 1.0, t),
            (0.0, -1.0, -t),
            (0.0, 1.0, -t),
            (t, 0.0, -1.0),
            (t, 0.0, 1.0),
            (-t, 0.0, -1.0),
            (-t, 0.0, 1.0),
        ]
        .iter()
        .map(|&(x, y, z)| Vector::new(x, y, z).normalize())
        .collect();
        let mut faces: Vec<[u32; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        for _ in 0..subdivisions {
            let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
            let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<Vector>| {
                *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    vertices
                        .push(((vertices[a as usize] + vertices[b as usize]) * 0.5).normalize());
                    vertices.len() as u32 - 1
                })
            };
            faces = faces
                .iter()
                .flat_map(|&[a, b, c]| {
                    let ab = midpoint(a, b, &mut vertices);
                    let bc = midpoint(b, c, &mut vertices);
                    let ca = midpoint(c, a, &mut vertices);
                    [[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]
                })
                .collect();
        }
        let vertices = vertices.iter().map(|v| center + v * radius).collect();
        TriMesh::new(vertices, faces).expect("icosphere vertices are finite and indices in range")
    }

    /// A height-field terrain of `cells × cells` quads (2 triangles each) over
    /// `[-size/2, size/2]²`, rolling hills from a few sine waves seeded by `seed`.
    ///
    /// # Panics
    ///
    /// When an argument is NaN or infinite, or the vertices overflow `f32`.
    #[must_use]
    pub fn terrain(cells: u32, size: Real, height: Real, seed: u64) -> TriMesh {
        let cells = cells.max(1);
        let n = cells + 1;
        let phase = (seed % 1000) as Real * 0.001 * std::f32::consts::TAU;
        let mut vertices = Vec::with_capacity((n * n) as usize);
        for j in 0..n {
            for i in 0..n {
                let x = (i as Real / cells as Real - 0.5) * size;
                let y = (j as Real / cells as Real - 0.5) * size;
                let u = x / size * std::f32::consts::TAU;
                let v = y / size * std::f32::consts::TAU;
                let z = height
                    * (0.5 * (2.0 * u + phase).sin() * (1.5 * v).cos()
                        + 0.3 * (5.0 * v - phase).sin()
                        + 0.2 * (7.0 * u + 3.0 * v).cos());
                vertices.push(Point::new(x, y, z));
            }
        }
        let mut indices = Vec::with_capacity((2 * cells * cells) as usize);
        for j in 0..cells {
            for i in 0..cells {
                let a = j * n + i;
                let (b, c, d) = (a + 1, a + n + 1, a + n);
                indices.push([a, b, c]);
                indices.push([a, c, d]);
            }
        }
        TriMesh::new(vertices, indices).expect("terrain vertices are finite and indices in range")
    }

    /// A closed box with the given corners (12 triangles, outward-facing).
    ///
    /// # Panics
    ///
    /// When an argument is NaN or infinite, or the vertices overflow `f32`.
    #[must_use]
    pub fn cuboid(min: Point, max: Point) -> TriMesh {
        let vertices = (0..8)
            .map(|i| {
                Point::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                )
            })
            .collect();
        let indices = CUBOID_FACES.to_vec();
        TriMesh::new(vertices, indices).expect("cuboid vertices are finite and indices in range")
    }

    /// `count` independent random triangles in `[-extent, extent]³`, each with
    /// edges up to `size`, from a fixed seed (a triangle soup: nothing shared).
    ///
    /// # Panics
    ///
    /// When `count` is 0 (an empty mesh), or an argument is NaN or
    /// infinite, or the vertices overflow `f32`.
    #[must_use]
    pub fn random_soup(count: u32, extent: Real, size: Real, seed: u64) -> TriMesh {
        let mut dice = Dice::new(seed);
        let mut next = move || dice.unit() * 2.0 - 1.0;
        let mut vertices = Vec::with_capacity(3 * count as usize);
        for _ in 0..count {
            let c = Point::new(next() * extent, next() * extent, next() * extent);
            for _ in 0..3 {
                vertices.push(c + Vector::new(next(), next(), next()) * (size * 0.5));
            }
        }
        let indices = (0..count).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
        TriMesh::new(vertices, indices).expect("soup vertices are finite and indices in range")
    }

    /// This mesh and `other` as one mesh (other's triangle ids follow this one's).
    #[must_use]
    pub fn merged(&self, other: &TriMesh) -> TriMesh {
        let offset = self.vertices().len() as u32;
        let vertices = self
            .vertices()
            .iter()
            .chain(other.vertices())
            .copied()
            .collect();
        let indices = self
            .indices()
            .iter()
            .copied()
            .chain(other.indices().iter().map(|t| t.map(|i| i + offset)))
            .collect();
        TriMesh::new(vertices, indices).expect("merging two valid meshes gives a valid mesh")
    }
}

/// The 12 outward-facing triangles of a box whose corner `i` has the
/// maximum x where bit 0 is set, y where bit 1 is, z where bit 2 is.
pub(crate) const CUBOID_FACES: [[u32; 3]; 12] = [
    [0, 2, 3],
    [0, 3, 1], // z = min
    [4, 5, 7],
    [4, 7, 6], // z = max
    [0, 1, 5],
    [0, 5, 4], // y = min
    [2, 6, 7],
    [2, 7, 3], // y = max
    [0, 4, 6],
    [0, 6, 2], // x = min
    [1, 3, 7],
    [1, 7, 5], // x = max
];

/// Deterministic uniform numbers for the generators (SplitMix64, Steele
/// et al. 2014): the same seed gives the same scene on every machine.
pub(crate) struct Dice(u64);

impl Dice {
    pub(crate) fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    /// Uniform in `[0, 1)`, on a 2⁻²⁴ grid.
    pub(crate) fn unit(&mut self) -> Real {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as Real / (1u64 << 24) as Real
    }

    /// Uniform in `[lo, hi)`.
    pub(crate) fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.unit()
    }
}
