//! A procedural architectural scene: what makes real levels hard for
//! binned SAH over centroids, built without files.
//!
//! Thin walls and floor slabs, railings of slender posts, gable roofs of
//! long triangles, window sills and annexes that pierce the walls they sit
//! on, fences of long rails, and one ground quad of two huge triangles.
//! Long thin triangles have centroids far from most of their area, and
//! interpenetrating parts make sibling boxes overlap: both defeat a split
//! that only sorts centroids (Stich et al. 2009 motivate spatial splits
//! with such scenes).

use crate::math::{Isometry, Point, Real, Vector};
use crate::mesh::TriMesh;
use crate::mesh::procedural::{CUBOID_FACES, Dice};

/// Street grid spacing in metres: one building and its fence per cell.
const CELL: Real = 40.0;
/// Storey height in metres.
const STOREY: Real = 3.0;

impl TriMesh {
    /// A town of `blocks × blocks` buildings on one ground quad, seeded by
    /// `seed`: about 1,700 triangles per building (`city(10, _)` has
    /// about 170,000). Each building is turned by its own yaw and has thin
    /// walls, floor slabs that cross them, window sills piercing them, an
    /// annex overlapping the main body, a gable roof of long triangles or a
    /// flat roof behind a railing, and a fence of long rails around its lot.
    /// The axis is z up; the buildings stand in `[-blocks·20, blocks·20]²`
    /// metres, on a ground quad 40 m wider on every side.
    #[must_use]
    pub fn city(blocks: u32, seed: u64) -> TriMesh {
        let blocks = blocks.max(1);
        let mut town = Town::default();
        let mut dice = Dice::new(seed);
        let half = blocks as Real * CELL * 0.5;
        // The ground: two triangles the size of the town and its margin.
        let g = half + CELL;
        town.quad([
            Point::new(-g, -g, 0.0),
            Point::new(g, -g, 0.0),
            Point::new(g, g, 0.0),
            Point::new(-g, g, 0.0),
        ]);
        for j in 0..blocks {
            for i in 0..blocks {
                let centre = Vector::new(
                    (i as Real + 0.5) * CELL - half,
                    (j as Real + 0.5) * CELL - half,
                    0.0,
                );
                town.building(centre, &mut dice);
            }
        }
        TriMesh::new(town.vertices, town.indices)
            .expect("city vertices are finite and indices in range")
    }
}

#[derive(Default)]
struct Town {
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
}

impl Town {
    /// An oriented box: `min..max` in the frame `pose` (12 triangles).
    fn cuboid(&mut self, pose: &Isometry, min: Point, max: Point) {
        let base = self.vertices.len() as u32;
        self.vertices.extend((0..8).map(|i| {
            pose * Point::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        }));
        self.indices
            .extend(CUBOID_FACES.iter().map(|f| f.map(|k| base + k)));
    }

    /// A quadrilateral `a b c d` as two triangles.
    fn quad(&mut self, [a, b, c, d]: [Point; 4]) {
        let base = self.vertices.len() as u32;
        self.vertices.extend([a, b, c, d]);
        self.indices
            .extend([[base, base + 1, base + 2], [base, base + 2, base + 3]]);
    }

    fn triangle(&mut self, a: Point, b: Point, c: Point) {
        let base = self.vertices.len() as u32;
        self.vertices.extend([a, b, c]);
        self.indices.push([base, base + 1, base + 2]);
    }

    /// One lot: the building about `centre` (turned by a random yaw), its
    /// annex, roof and the fence around the lot.
    fn building(&mut self, centre: Vector, dice: &mut Dice) {
        let yaw = dice.range(-0.6, 0.6);
        let pose = Isometry::new(centre, Vector::z() * yaw);
        let (hx, hy) = (dice.range(6.0, 12.0), dice.range(5.0, 9.0));
        let storeys = 2 + (dice.unit() * 6.0) as u32;
        let height = storeys as Real * STOREY;
        self.shell(&pose, hx, hy, storeys);
        // The annex: a lower box pushed half into the main body's side.
        let annex = Isometry::new(
            centre + pose.rotation * Vector::new(hx, dice.range(-hy, hy) * 0.5, 0.0),
            Vector::z() * yaw,
        );
        self.shell(&annex, 4.0, 3.5, 1 + storeys / 3);
        if dice.unit() < 0.5 {
            self.gable_roof(&pose, hx, hy, height);
        } else {
            self.railing(&pose, hx, hy, height);
        }
        // The fence around the lot, in the street grid's frame.
        let lot = Isometry::translation(centre.x, centre.y, 0.0);
        self.fence(&lot, CELL * 0.5 - 1.0);
    }

    /// Walls 0.25 m thick that overlap at the corners, a slab per storey
    /// that crosses them, and window sills that pierce them.
    fn shell(&mut self, pose: &Isometry, hx: Real, hy: Real, storeys: u32) {
        let (t, height) = (0.25, storeys as Real * STOREY);
        for (min, max) in [
            ((-hx - t, -hy - t), (hx + t, -hy + t)),
            ((-hx - t, hy - t), (hx + t, hy + t)),
            ((-hx - t, -hy - t), (-hx + t, hy + t)),
            ((hx - t, -hy - t), (hx + t, hy + t)),
        ] {
            self.cuboid(
                pose,
                Point::new(min.0, min.1, 0.0),
                Point::new(max.0, max.1, height),
            );
        }
        for s in 1..=storeys {
            let z = s as Real * STOREY;
            self.cuboid(
                pose,
                Point::new(-hx - 0.4, -hy - 0.4, z - 0.2),
                Point::new(hx + 0.4, hy + 0.4, z),
            );
        }
        // Sills every 4 m along the long walls, 1 m above each floor.
        let windows = (2.0 * hx / 4.0) as u32;
        for s in 0..storeys {
            let z = s as Real * STOREY + 1.0;
            for w in 0..windows {
                let x = -hx + (w as Real + 0.5) * 2.0 * hx / windows as Real;
                for y in [-hy, hy] {
                    self.cuboid(
                        pose,
                        Point::new(x - 0.6, y - 0.35, z - 0.08),
                        Point::new(x + 0.6, y + 0.35, z),
                    );
                }
            }
        }
    }

    /// A gable roof over the long axis: two slopes of two long triangles
    /// each, overhanging the walls, and a triangle closing each gable.
    fn gable_roof(&mut self, pose: &Isometry, hx: Real, hy: Real, height: Real) {
        let (ox, oy, ridge) = (hx + 0.8, hy + 0.8, height + 0.6 * hy);
        let p = |x: Real, y: Real, z: Real| pose * Point::new(x, y, z);
        self.quad([
            p(-ox, -oy, height),
            p(ox, -oy, height),
            p(ox, 0.0, ridge),
            p(-ox, 0.0, ridge),
        ]);
        self.quad([
            p(ox, oy, height),
            p(-ox, oy, height),
            p(-ox, 0.0, ridge),
            p(ox, 0.0, ridge),
        ]);
        self.triangle(p(-hx, -hy, height), p(-hx, hy, height), p(-hx, 0.0, ridge));
        self.triangle(p(hx, hy, height), p(hx, -hy, height), p(hx, 0.0, ridge));
    }

    /// A flat roof's railing: slender posts every 0.8 m, and a top
    /// rail and a middle rail that run through them.
    fn railing(&mut self, pose: &Isometry, hx: Real, hy: Real, height: Real) {
        let (post, top) = (0.03, height + 1.1);
        let corners = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)];
        for k in 0..4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            let length = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
            let posts = (length / 0.8) as u32;
            for n in 0..posts {
                let f = n as Real / posts as Real;
                let (x, y) = (a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1));
                self.cuboid(
                    pose,
                    Point::new(x - post, y - post, height),
                    Point::new(x + post, y + post, top),
                );
            }
            for z in [top - 0.05, height + 0.5] {
                self.cuboid(
                    pose,
                    Point::new(a.0.min(b.0) - 0.04, a.1.min(b.1) - 0.04, z - 0.04),
                    Point::new(a.0.max(b.0) + 0.04, a.1.max(b.1) + 0.04, z + 0.02),
                );
            }
        }
    }

    /// A fence around the square of half side `h`: posts every 4 m and
    /// two rails 2 cm thick along each side.
    fn fence(&mut self, pose: &Isometry, h: Real) {
        let posts = (2.0 * h / 4.0) as u32;
        for side in 0..4 {
            let turn = Isometry::rotation(Vector::z() * side as Real * std::f32::consts::FRAC_PI_2);
            let frame = pose * turn;
            for n in 0..posts {
                let x = -h + n as Real * 2.0 * h / posts as Real;
                self.cuboid(
                    &frame,
                    Point::new(x - 0.05, -h - 0.05, 0.0),
                    Point::new(x + 0.05, -h + 0.05, 1.2),
                );
            }
            for z in [0.5, 1.0] {
                self.cuboid(
                    &frame,
                    Point::new(-h, -h - 0.01, z),
                    Point::new(h, -h + 0.01, z + 0.1),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn city_has_the_promised_size_and_is_deterministic() {
        let city = TriMesh::city(10, 7);
        assert!(
            (100_000..=200_000).contains(&city.len()),
            "{} triangles",
            city.len()
        );
        assert_eq!(city, TriMesh::city(10, 7));
        assert_ne!(city, TriMesh::city(10, 8));
        // The ground spans the town: its two triangles reach the corners.
        let bounds = city.aabb();
        assert_eq!(bounds.min.z, 0.0);
        assert_eq!(bounds.max.x, 10.0 * 20.0 + 40.0);
        assert_eq!(city.report().degenerate_triangles, 0);
    }
}
