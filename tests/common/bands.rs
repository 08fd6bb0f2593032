//! Query points around a mesh in the distance benches' and tests' bands.

use boxtree::math::{Point, Real};
use boxtree::{TriMesh, TriangleId};

use super::SplitMix;

/// The bands, as fractions of the mesh's box diagonal: on the surface,
/// within 1%, 1–10% and 10–100% of it.
pub const BANDS: [(Real, Real); 4] = [(0.0, 0.0), (0.0, 0.01), (0.01, 0.1), (0.1, 1.0)];

/// `count` points, each a uniform point of a random triangle moved in a
/// random direction by a distance drawn from `band` (of [`BANDS`]).
pub fn points_in_band(mesh: &TriMesh, count: usize, seed: u64, band: usize) -> Vec<Point> {
    let diagonal = mesh.aabb().half_extents().norm() * 2.0;
    let (lo, hi) = BANDS[band];
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|_| {
            let tri = mesh.triangle(TriangleId((rng.next_u64() % mesh.len() as u64) as u32));
            let (u, v) = (rng.range(0.0, 1.0), rng.range(0.0, 1.0));
            let (u, v) = if u + v > 1.0 {
                (1.0 - u, 1.0 - v)
            } else {
                (u, v)
            };
            let on = tri.a + (tri.b - tri.a) * u + (tri.c - tri.a) * v;
            let direction = rng.vector(-1.0, 1.0).normalize();
            on + direction * diagonal * rng.range(lo, hi.max(lo))
        })
        .collect()
}
