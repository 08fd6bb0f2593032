//! The demo's world: a procedural town on rolling terrain, or any mesh file,
//! with a camera path, targets to look at and a drone that flies through it.
//!
//! Everything is deterministic (one seeded generator), so every run prints the
//! same counts. The town is built from the crate's procedural meshes:
//! `TriMesh::terrain`, rotated `TriMesh::cuboid` buildings set on the ground
//! by downward raycasts, and `TriMesh::icosphere` domes.

use boxtree::bvh::BoundingVolume;
use boxtree::math::nalgebra;
use boxtree::{
    Aabb, BuildOptions, Isometry, Matrix, MeshTree, Point, Ray, Real, Rotation, Threads, TriMesh,
    TriangleId, Vector,
};

/// Centres `(x, y)` of the town's three blocks of buildings.
pub const TOWN_BLOCKS: [(Real, Real); 3] = [(-90.0, -50.0), (60.0, -95.0), (20.0, 75.0)];

/// The town's domes: `(x, y, radius)`.
pub const TOWN_DOMES: [(Real, Real, Real); 4] = [
    (-25.0, -5.0, 14.0),
    (120.0, 30.0, 18.0),
    (-130.0, 90.0, 11.0),
    (95.0, 150.0, 15.0),
];

/// The town's terrain: rolling hills over `[-200, 200]²`, up along z.
pub fn town_terrain(size: &SceneSize) -> TriMesh {
    TriMesh::terrain(size.terrain_cells, 400.0, 14.0, 7)
}

/// How big a scene and workload to make.
#[derive(Clone, Copy, Debug)]
pub struct SceneSize {
    /// Terrain quads per side (2 triangles each).
    pub terrain_cells: u32,
    /// Buildings per side of each of the three town blocks.
    pub block_side: u32,
    /// Subdivisions of the dome icospheres (20 · 4ⁿ triangles each).
    pub dome_subdivisions: u32,
    /// Targets whose line of sight is checked every frame.
    pub targets: usize,
    /// Camera positions along the path.
    pub frames: usize,
    /// Drone poses along its flight.
    pub sweep_steps: usize,
    /// Street-grid cells per side of the town as a `boxtree::Scene` (one building or a few trees each).
    pub scene_grid: u32,
    /// Drones flying through the scene as moving objects.
    pub scene_drones: usize,
    /// Frames of the scene pass.
    pub scene_frames: usize,
}

impl SceneSize {
    /// The demo's default: about 290,000 triangles.
    pub fn full() -> Self {
        SceneSize {
            terrain_cells: 320,
            block_side: 5,
            dome_subdivisions: 5,
            targets: 4096,
            frames: 12,
            sweep_steps: 24,
            scene_grid: 20,
            scene_drones: 200,
            scene_frames: 30,
        }
    }

    /// A few thousand triangles, for tests and CI.
    pub fn small() -> Self {
        SceneSize {
            terrain_cells: 40,
            block_side: 2,
            dome_subdivisions: 2,
            targets: 400,
            frames: 3,
            sweep_steps: 8,
            scene_grid: 8,
            scene_drones: 16,
            scene_frames: 3,
        }
    }
}

/// What a triangle belongs to, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Material {
    /// The terrain.
    Ground,
    /// A building.
    Building,
    /// A dome.
    Dome,
    /// A loaded mesh.
    Model,
}

/// Where a camera stands and what it looks at.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// The eye.
    pub eye: Point,
    /// The point at the centre of the picture.
    pub look_at: Point,
}

/// Where targets are scattered.
#[derive(Clone, Copy, Debug)]
pub enum TargetRegion {
    /// Dropped onto the first surface below random points of `area`, then lifted by `lift` along the up axis.
    OnSurface {
        /// The area (its extent along the up axis is ignored).
        area: Aabb,
        /// Height above the surface.
        lift: Real,
    },
    /// Uniform in the box.
    InBounds(Aabb),
}

/// A mesh with everything the demo does to it.
pub struct Scene {
    /// What the scene is, for the printout.
    pub description: String,
    /// All static geometry as one mesh.
    pub mesh: TriMesh,
    /// `(first triangle, material)` of each object, sorted by first triangle.
    parts: Vec<(u32, Material)>,
    /// Unit up direction.
    pub up: Vector,
    /// Camera positions, one per frame.
    pub camera_path: Vec<View>,
    /// A closer view for the tree pictures.
    pub close_up: View,
    /// The tree pictures draw the boxes whose centres lie this close to `close_up.look_at`.
    pub focus_radius: Real,
    /// Where the targets go.
    pub targets: TargetRegion,
    /// The mesh that flies through the scene.
    pub mover: TriMesh,
    /// Its poses (mover frame → world), one per step.
    pub sweep: Vec<Isometry>,
}

impl Scene {
    /// Half the diagonal of the mesh's bounding box: the scene's size.
    pub fn radius(&self) -> Real {
        self.mesh.aabb().half_extents().norm()
    }

    /// The object triangle `id` belongs to (the terrain, one building, one dome, ...), numbered from 0.
    pub fn object(&self, id: TriangleId) -> usize {
        self.parts
            .partition_point(|&(first, _)| first <= id.0)
            .saturating_sub(1)
    }

    /// The material of triangle `id`.
    pub fn material(&self, id: TriangleId) -> Material {
        self.parts[self.object(id)].1
    }

    /// `count` target points, placed by raycasts on `tree` (a tree over [`Scene::mesh`]) where needed.
    pub fn scatter_targets<V: BoundingVolume>(
        &self,
        tree: &MeshTree<V>,
        count: usize,
        seed: u64,
    ) -> Vec<Point> {
        let mut rng = SplitMix(seed);
        match self.targets {
            TargetRegion::InBounds(bounds) => (0..count).map(|_| rng.point_in(&bounds)).collect(),
            TargetRegion::OnSurface { area, lift } => {
                // Start above everything and look straight down: one batch of closest hits.
                let top = self.mesh.aabb().max.coords.dot(&self.up) + 1.0;
                let rays: Vec<Ray> = (0..count)
                    .map(|_| {
                        let p = rng.point_in(&area);
                        let above = p + self.up * (top - p.coords.dot(&self.up));
                        Ray::new(above, -self.up)
                    })
                    .collect();
                let mut hits = Vec::new();
                tree.rays_closest_hit(&rays, Real::INFINITY, Threads::All, &mut hits);
                rays.iter()
                    .zip(hits)
                    .map(|(ray, hit)| match hit {
                        Some(hit) => ray.point_at(hit.t) + self.up * lift,
                        None => ray.origin,
                    })
                    .collect()
            }
        }
    }

    /// The procedural town: terrain, three blocks of rotated buildings, four domes.
    pub fn town(size: &SceneSize) -> Scene {
        let mut rng = SplitMix(2026);
        let up = Vector::z();
        let terrain = town_terrain(size);
        // A tree over the terrain alone places every building and dome on the ground.
        let ground = MeshTree::<Aabb>::build(terrain.clone(), &BuildOptions::sah());
        let ground_at = |x: Real, y: Real| {
            let ray = Ray::new(Point::new(x, y, 1000.0), -up);
            ground
                .closest_hit(ray.span(0.0, Real::INFINITY))
                .map_or(0.0, |hit| ray.point_at(hit.t).z)
        };

        let mut scene = MeshBuilder::default();
        scene.add(&terrain, Material::Ground);

        let mut tallest: Option<(Point, Real)> = None;
        let n = size.block_side;
        for (x, y) in TOWN_BLOCKS {
            let block = Point::new(x, y, 0.0);
            for i in 0..n {
                for j in 0..n {
                    let offset = (n as Real - 1.0) / 2.0;
                    let x = block.x + (i as Real - offset) * 17.0 + rng.range(-2.0, 2.0);
                    let y = block.y + (j as Real - offset) * 17.0 + rng.range(-2.0, 2.0);
                    let half = Vector::new(rng.range(3.0, 6.5), rng.range(3.0, 6.5), 0.0);
                    let height = rng.range(8.0, 34.0);
                    let turn = Rotation::from_axis_angle(&Vector::z_axis(), rng.range(0.0, 1.5));
                    // Sink the footprint below the lowest ground under any corner.
                    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
                    let base = corners
                        .iter()
                        .map(|&(sx, sy)| {
                            let c = turn * Vector::new(sx * half.x, sy * half.y, 0.0);
                            ground_at(x + c.x, y + c.y)
                        })
                        .fold(Real::INFINITY, Real::min)
                        - 1.0;
                    let cuboid = TriMesh::cuboid(
                        Point::new(-half.x, -half.y, 0.0),
                        Point::new(half.x, half.y, height),
                    );
                    let pose = Isometry::from_parts(Vector::new(x, y, base).into(), turn);
                    scene.add(&transformed(&cuboid, &pose), Material::Building);
                    let middle = Point::new(x, y, base + height / 2.0);
                    if tallest.is_none_or(|(_, h)| height > h) {
                        tallest = Some((middle, height));
                    }
                }
            }
        }

        let mut domes = Vec::new();
        for (x, y, radius) in TOWN_DOMES {
            let center = Point::new(x, y, ground_at(x, y) - radius * 0.3);
            scene.add(
                &TriMesh::icosphere(center, radius, size.dome_subdivisions),
                Material::Dome,
            );
            domes.push((center, radius));
        }

        // The drone follows the terrain, 8 units up, through the tallest building of the first block and the first dome.
        let (building, _) = tallest.expect("every block has buildings");
        let (dome, _) = domes[0];
        let start = building + (building - dome).normalize() * 70.0;
        let end = dome + (dome - building).normalize() * 60.0;
        let sweep = flight(start, end, &up, size.sweep_steps, |p| {
            Point::new(p.x, p.y, ground_at(p.x, p.y) + 8.0)
        });

        let center = Point::new(0.0, 0.0, 0.0);
        let camera_path = (0..size.frames)
            .map(|k| {
                let azimuth = -100.0 + 50.0 * k as Real / (size.frames.max(2) - 1) as Real;
                orbit(center, &up, 300.0, 28.0, azimuth)
            })
            .collect();
        let first_block = Point::new(-90.0, -50.0, ground_at(-90.0, -50.0) + 8.0);
        let close_up = orbit(first_block, &up, 100.0, 55.0, -110.0);

        let (mesh, parts) = scene.finish();
        Scene {
            description: format!(
                "procedural town: terrain, {} buildings, {} domes",
                3 * n * n,
                domes.len()
            ),
            mesh,
            parts,
            up,
            camera_path,
            close_up,
            focus_radius: 48.0,
            targets: TargetRegion::OnSurface {
                area: Aabb::new(
                    Point::new(-170.0, -170.0, 0.0),
                    Point::new(170.0, 170.0, 0.0),
                ),
                lift: 1.5,
            },
            mover: drone(8.0),
            sweep,
        }
    }

    /// A loaded mesh: the camera circles it, targets fill its bounds, the
    /// drone flies straight through its middle. `up` is the mesh's up axis.
    pub fn from_mesh(mesh: TriMesh, name: &str, up: Vector, size: &SceneSize) -> Scene {
        let bounds = mesh.aabb();
        let center = bounds.center();
        let radius = bounds.half_extents().norm().max(Real::MIN_POSITIVE);
        let camera_path = (0..size.frames)
            .map(|k| {
                orbit(
                    center,
                    &up,
                    radius * 2.6,
                    25.0,
                    -120.0 + 60.0 * k as Real / (size.frames.max(2) - 1) as Real,
                )
            })
            .collect();
        let close_up = orbit(center, &up, radius * 2.2, 25.0, -90.0);
        let (across, _) = horizontal_frame(&up);
        let sweep = flight(
            center - across * (radius * 1.3),
            center + across * (radius * 1.3),
            &up,
            size.sweep_steps,
            |p| p,
        );
        Scene {
            description: format!("{name} ({} triangles)", mesh.len()),
            parts: vec![(0, Material::Model)],
            targets: TargetRegion::InBounds(bounds),
            mesh,
            up,
            camera_path,
            close_up,
            focus_radius: Real::INFINITY,
            mover: drone(radius * 0.3),
            sweep,
        }
    }
}

/// `steps` poses from `start` to `end` (each position passed through `place`), upright along `up`,
/// facing along the flight and banking a little.
fn flight(
    start: Point,
    end: Point,
    up: &Vector,
    steps: usize,
    place: impl Fn(Point) -> Point,
) -> Vec<Isometry> {
    let travel = end - start;
    let level = travel - up * travel.dot(up);
    let forward = if level.norm() > 0.0 {
        level.normalize()
    } else {
        horizontal_frame(up).0
    };
    let axes = Matrix::from_columns(&[forward, up.cross(&forward), *up]);
    let upright = Rotation::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(axes));
    (0..steps)
        .map(|k| {
            let s = k as Real / (steps.max(2) - 1) as Real;
            let bank = Rotation::from_axis_angle(&Vector::x_axis(), 0.25 * (s * 9.0).sin());
            Isometry::from_parts(place(start + travel * s).coords.into(), upright * bank)
        })
        .collect()
}

/// A small quadcopter of about `span` across: a box body, four rotor pods and a camera ball.
pub fn drone(span: Real) -> TriMesh {
    let s = span / 2.0;
    let mut parts = MeshBuilder::default();
    parts.add(
        &TriMesh::cuboid(
            Point::new(-0.35 * s, -0.35 * s, -0.12 * s),
            Point::new(0.35 * s, 0.35 * s, 0.12 * s),
        ),
        Material::Model,
    );
    parts.add(
        &TriMesh::cuboid(
            Point::new(-0.8 * s, -0.06 * s, -0.04 * s),
            Point::new(0.8 * s, 0.06 * s, 0.04 * s),
        ),
        Material::Model,
    );
    parts.add(
        &TriMesh::cuboid(
            Point::new(-0.06 * s, -0.8 * s, -0.04 * s),
            Point::new(0.06 * s, 0.8 * s, 0.04 * s),
        ),
        Material::Model,
    );
    for (x, y) in [(0.8, 0.0), (-0.8, 0.0), (0.0, 0.8), (0.0, -0.8)] {
        parts.add(
            &TriMesh::icosphere(Point::new(x * s, y * s, 0.05 * s), 0.2 * s, 2),
            Material::Model,
        );
    }
    parts.add(
        &TriMesh::icosphere(Point::new(0.25 * s, 0.0, -0.2 * s), 0.12 * s, 2),
        Material::Model,
    );
    parts.finish().0
}

/// A copy of `mesh` moved by `pose`.
pub fn transformed(mesh: &TriMesh, pose: &Isometry) -> TriMesh {
    let vertices = mesh.vertices().iter().map(|v| pose * v).collect();
    TriMesh::new(vertices, mesh.indices().to_vec())
        .expect("a rigid motion keeps a valid mesh valid")
}

/// The view from `distance` away, `elevation` degrees above the horizon, at `azimuth` degrees around `up`.
fn orbit(center: Point, up: &Vector, distance: Real, elevation: Real, azimuth: Real) -> View {
    let (u, v) = horizontal_frame(up);
    let (e, a) = (elevation.to_radians(), azimuth.to_radians());
    let eye =
        center + (u * a.cos() + v * a.sin()) * (distance * e.cos()) + up * (distance * e.sin());
    View {
        eye,
        look_at: center,
    }
}

/// Two unit vectors completing `up` to a right-handed frame.
pub fn horizontal_frame(up: &Vector) -> (Vector, Vector) {
    let helper = if up.x.abs() < 0.9 {
        Vector::x()
    } else {
        Vector::y()
    };
    let u = (helper - up * helper.dot(up)).normalize();
    (u, up.cross(&u))
}

/// Concatenates meshes without the quadratic cost of repeated merges, remembering where each one starts.
#[derive(Default)]
pub struct MeshBuilder {
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
    parts: Vec<(u32, Material)>,
}

impl MeshBuilder {
    /// Appends `mesh`, its triangles tagged with `material`.
    pub fn add(&mut self, mesh: &TriMesh, material: Material) {
        let offset = self.vertices.len() as u32;
        self.parts.push((self.indices.len() as u32, material));
        self.vertices.extend_from_slice(mesh.vertices());
        self.indices
            .extend(mesh.indices().iter().map(|t| t.map(|i| i + offset)));
    }

    /// The mesh, and `(first triangle, material)` of each part.
    pub fn finish(self) -> (TriMesh, Vec<(u32, Material)>) {
        let mesh = TriMesh::new(self.vertices, self.indices).expect("the parts are valid meshes");
        (mesh, self.parts)
    }
}

/// SplitMix64: a tiny seeded generator, so every run is the same.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Uniform in `[0, 1)`.
    pub fn next(&mut self) -> Real {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as Real / (1u64 << 24) as Real
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.next()
    }

    /// Uniform in the box.
    pub fn point_in(&mut self, bounds: &Aabb) -> Point {
        Point::new(
            self.range(bounds.min.x, bounds.max.x),
            self.range(bounds.min.y, bounds.max.y),
            self.range(bounds.min.z, bounds.max.z),
        )
    }
}
