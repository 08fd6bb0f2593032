//! The demo's world as a `boxtree::Scene`: every distinct mesh built once as
//! a tree and placed many times by rigid poses, with drones that move.
//!
//! The flattened town of `scene.rs` is one mesh under one tree. Here the
//! same 400 × 400 terrain is one object, a street grid over the town's
//! extent gets a building in most cells around the flattened town's three
//! blocks and fewer between them (six building types, each one shared
//! mesh), trees (two shared meshes) stand in the empty cells, and the same
//! four domes stand where they did. Drones (one shared OBB tree) circle on
//! their own layer at their own heights above the ground, which a batch of
//! downward raycasts on the ground layer finds every frame: most roam the
//! town on wide circles, every fourth one circles a building close to its
//! walls. A mesh file becomes one object, and the drones circle through it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use boxtree::math::nalgebra;
use boxtree::{
    Aabb, Filter, Isometry, Matrix, MeshTree, ObjectId, PackedObb, Point, Ray, Real, Rotation,
    SceneHit, SceneMesh, Threads, TriMesh, Vector,
};

use super::scene::{
    Material, MeshBuilder, SceneSize, SplitMix, TOWN_BLOCKS, TOWN_DOMES, TargetRegion, drone,
    horizontal_frame, town_terrain,
};

/// Layer of the buildings and domes (and of a loaded mesh).
pub const BUILDINGS: u32 = 0b0001;
/// Layer of the drones.
pub const DRONES: u32 = 0b0010;
/// Layer of the terrain.
pub const GROUND: u32 = 0b0100;
/// Layer of the trees.
pub const TREES: u32 = 0b1000;

/// A full turn, in radians.
const TAU: Real = std::f32::consts::TAU;

/// Seconds of flight from one frame to the next.
const FRAME_TIME: Real = 0.25;

/// What an object is, for the counts and the colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The terrain.
    Ground,
    /// A building of this type (an index into [`building_types`]).
    Building(usize),
    /// A dome.
    Dome,
    /// A tree.
    Tree,
    /// A drone.
    Drone,
    /// A loaded mesh.
    Model,
}

/// A drone's flight: a circle around `center` (across `up`), at `height`
/// above the ground (the town) or above the centre (a mesh file), bobbing.
#[derive(Clone, Copy, Debug)]
struct Path {
    center: Point,
    radius: Real,
    phase: Real,
    /// +1 counter-clockwise seen from above, −1 clockwise.
    turn: Real,
    height: Real,
    bob: Real,
}

/// A building type: one mesh in its own frame (footprint centred on the
/// origin, ground floor at z = 0), placed by every building of the type.
pub struct BuildingType {
    /// The mesh.
    pub mesh: TriMesh,
    /// Half extents of the footprint's bounding rectangle.
    pub half: (Real, Real),
    /// Built near the blocks' centres (the tall types) rather than between them.
    pub downtown: bool,
    /// Triangles from this one on are roof.
    pub roof_from: u32,
}

/// The world: a scene, what each object is, and where the drones fly.
pub struct World {
    /// The scene.
    pub scene: boxtree::Scene,
    /// Unit up direction.
    pub up: Vector,
    /// Half the diagonal of the static world's bounds: its size.
    pub radius: Real,
    /// What the scene holds, for the printout.
    pub description: String,
    /// Distinct meshes (trees) the objects place.
    pub distinct_meshes: usize,
    /// The drones' objects, in path order.
    pub drones: Vec<ObjectId>,
    /// The mesh every drone places.
    pub drone_mesh: Arc<MeshTree<PackedObb>>,
    /// Time to build the distinct meshes' trees.
    pub mesh_time: Duration,
    /// Time of every `Scene::add` and `Scene::set_layers`.
    pub add_time: Duration,
    /// Time of the first `Scene::update` (the top-level build).
    pub update_time: Duration,
    /// By object id.
    kinds: Vec<Kind>,
    roofs: Vec<u32>,
    paths: Vec<Path>,
    /// Drone speed along its circle, in world units per second.
    speed: Real,
    /// The drones keep their height above the ground layer.
    follow_ground: bool,
}

/// The six building types: three low ones for between the blocks, three tall ones for downtown.
pub fn building_types() -> Vec<BuildingType> {
    let cuboid = |min: [Real; 3], max: [Real; 3]| {
        TriMesh::cuboid(
            Point::new(min[0], min[1], min[2]),
            Point::new(max[0], max[1], max[2]),
        )
    };
    let join = |parts: &[TriMesh], roofed: bool| {
        let mut builder = MeshBuilder::default();
        for part in parts {
            builder.add(part, Material::Building);
        }
        let (mesh, starts) = builder.finish();
        let roof_from = if roofed {
            starts.last().map_or(0, |&(first, _)| first)
        } else {
            mesh.len() as u32
        };
        (mesh, roof_from)
    };
    let kinds = [
        // A house with a gable roof.
        (
            vec![
                cuboid([-4.0, -3.5, 0.0], [4.0, 3.5, 7.0]),
                gable([-4.4, -3.9], [4.4, 3.9], 7.0, 10.0),
            ],
            true,
            (4.4, 3.9),
            false,
        ),
        // A plain block.
        (
            vec![cuboid([-6.0, -4.0, 0.0], [6.0, 4.0, 13.0])],
            false,
            (6.0, 4.0),
            false,
        ),
        // A low hall with a cupola.
        (
            vec![
                cuboid([-6.0, -5.0, 0.0], [6.0, 5.0, 7.0]),
                TriMesh::icosphere(Point::new(0.0, 0.0, 7.0), 4.0, 2),
            ],
            true,
            (6.0, 5.0),
            false,
        ),
        // An L-shaped block, one wing taller.
        (
            vec![
                cuboid([-6.0, -6.0, 0.0], [6.0, -1.0, 16.0]),
                cuboid([-6.0, -1.0, 0.0], [-1.0, 6.0, 10.0]),
            ],
            false,
            (6.0, 6.0),
            true,
        ),
        // A slab.
        (
            vec![cuboid([-6.5, -3.0, 0.0], [6.5, 3.0, 24.0])],
            false,
            (6.5, 3.0),
            true,
        ),
        // A tower on a podium.
        (
            vec![
                cuboid([-6.0, -6.0, 0.0], [6.0, 6.0, 10.0]),
                cuboid([-4.0, -4.0, 10.0], [4.0, 4.0, 34.0]),
            ],
            false,
            (6.0, 6.0),
            true,
        ),
    ];
    kinds
        .into_iter()
        .map(|(parts, roofed, half, downtown)| {
            let (mesh, roof_from) = join(&parts, roofed);
            BuildingType {
                mesh,
                half,
                downtown,
                roof_from,
            }
        })
        .collect()
}

/// A gable roof over the rectangle `min`–`max` from `eaves` up to a ridge along x at `ridge`.
fn gable(min: [Real; 2], max: [Real; 2], eaves: Real, ridge: Real) -> TriMesh {
    let middle = (min[1] + max[1]) / 2.0;
    let vertices = vec![
        Point::new(min[0], min[1], eaves),
        Point::new(max[0], min[1], eaves),
        Point::new(max[0], max[1], eaves),
        Point::new(min[0], max[1], eaves),
        Point::new(min[0], middle, ridge),
        Point::new(max[0], middle, ridge),
    ];
    let indices = vec![
        [0, 2, 1],
        [0, 3, 2],
        [0, 1, 5],
        [0, 5, 4],
        [3, 4, 5],
        [3, 5, 2],
        [0, 4, 3],
        [1, 2, 5],
    ];
    TriMesh::new(vertices, indices).expect("a roof is a valid mesh")
}

/// Two trees: a broadleaf (a trunk and a round crown) and a tall one (two
/// crowns). The trunk is the first 12 triangles, sunk 1 below the ground.
fn tree_meshes() -> [TriMesh; 2] {
    let trunk =
        |height: Real| TriMesh::cuboid(Point::new(-0.3, -0.3, -1.0), Point::new(0.3, 0.3, height));
    let round = trunk(3.5).merged(&TriMesh::icosphere(Point::new(0.0, 0.0, 4.8), 2.2, 1));
    let tall = trunk(3.0)
        .merged(&TriMesh::icosphere(Point::new(0.0, 0.0, 4.0), 1.6, 1))
        .merged(&TriMesh::icosphere(Point::new(0.0, 0.0, 6.2), 1.1, 1));
    [round, tall]
}

/// An object waiting to be added.
struct Placement {
    mesh: SceneMesh,
    pose: Isometry,
    layers: u32,
    kind: Kind,
}

impl World {
    /// The town: terrain, buildings, domes and trees, and `size.scene_drones` drones.
    pub fn town(size: &SceneSize) -> Result<World, String> {
        let up = Vector::z();
        let start = Instant::now();
        let terrain = Arc::new(MeshTree::<Aabb>::new(town_terrain(size)));
        let types = building_types();
        let buildings: Vec<Arc<MeshTree<Aabb>>> = types
            .iter()
            .map(|t| Arc::new(MeshTree::new(t.mesh.clone())))
            .collect();
        let domes: Vec<Arc<MeshTree<Aabb>>> = TOWN_DOMES
            .iter()
            .map(|&(_, _, r)| {
                Arc::new(MeshTree::new(TriMesh::icosphere(
                    Point::origin(),
                    r,
                    size.dome_subdivisions,
                )))
            })
            .collect();
        let trees = tree_meshes().map(|m| Arc::new(MeshTree::<Aabb>::new(m)));
        let drone_mesh = Arc::new(MeshTree::<PackedObb>::new(drone(4.0)));
        let mesh_time = start.elapsed();

        // The terrain's own tree, in its own frame (the world's), finds the ground.
        let ground_at = |x: Real, y: Real| {
            let ray = Ray::new(Point::new(x, y, 1000.0), -up);
            terrain
                .closest_hit(ray.span(0.0, Real::INFINITY))
                .map_or(0.0, |hit| ray.point_at(hit.t).z)
        };
        let yaw = |angle: Real| Rotation::from_axis_angle(&Vector::z_axis(), angle);
        let at = |x: Real, y: Real, z: Real, turn: Rotation| {
            Isometry::from_parts(Vector::new(x, y, z).into(), turn)
        };

        let mut placements = vec![Placement {
            mesh: terrain.clone().into(),
            pose: Isometry::identity(),
            layers: GROUND,
            kind: Kind::Ground,
        }];
        let mut rng = SplitMix(2027);
        // Each building's centre and the half diagonal of its footprint.
        let mut sites: Vec<(Point, Real)> = Vec::new();
        let cells = size.scene_grid.max(1);
        let spacing = 340.0 / cells as Real;
        for i in 0..cells {
            for j in 0..cells {
                let cx = -170.0 + spacing * (i as Real + 0.5);
                let cy = -170.0 + spacing * (j as Real + 0.5);
                let (x, y) = (cx + rng.range(-2.0, 2.0), cy + rng.range(-2.0, 2.0));
                let by_dome = TOWN_DOMES
                    .iter()
                    .any(|&(dx, dy, r)| (x - dx).hypot(y - dy) < r + 9.0);
                if by_dome {
                    continue;
                }
                let to_block = TOWN_BLOCKS
                    .iter()
                    .map(|&(bx, by)| (x - bx).hypot(y - by))
                    .fold(Real::INFINITY, Real::min);
                let downtown = (-(to_block / 60.0).powi(2)).exp();
                if rng.next() < 0.15 + 0.8 * downtown {
                    let tall = rng.next() < downtown;
                    let choices: Vec<usize> = (0..types.len())
                        .filter(|&t| types[t].downtown == tall)
                        .collect();
                    let t = choices[(rng.next() * choices.len() as Real) as usize];
                    let turn = yaw(rng.range(0.0, 1.5));
                    // Sink the footprint below the lowest ground under any corner.
                    let (hx, hy) = types[t].half;
                    let base = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                        .iter()
                        .map(|&(sx, sy)| {
                            let c = turn * Vector::new(sx * hx, sy * hy, 0.0);
                            ground_at(x + c.x, y + c.y)
                        })
                        .fold(Real::INFINITY, Real::min)
                        - 1.0;
                    sites.push((Point::new(x, y, 0.0), hx.hypot(hy)));
                    placements.push(Placement {
                        mesh: buildings[t].clone().into(),
                        pose: at(x, y, base, turn),
                        layers: BUILDINGS,
                        kind: Kind::Building(t),
                    });
                } else {
                    for _ in 0..1 + (rng.next() * 3.0) as usize {
                        let tx = cx + rng.range(-0.35, 0.35) * spacing;
                        let ty = cy + rng.range(-0.35, 0.35) * spacing;
                        let t = (rng.next() * 2.0) as usize;
                        placements.push(Placement {
                            mesh: trees[t].clone().into(),
                            pose: at(tx, ty, ground_at(tx, ty), yaw(rng.range(0.0, TAU))),
                            layers: TREES,
                            kind: Kind::Tree,
                        });
                    }
                }
            }
        }
        for (&(x, y, r), dome) in TOWN_DOMES.iter().zip(&domes) {
            placements.push(Placement {
                mesh: dome.clone().into(),
                pose: at(x, y, ground_at(x, y) - 0.3 * r, Rotation::identity()),
                layers: BUILDINGS,
                kind: Kind::Dome,
            });
        }

        // Most drones roam the town on wide circles; every fourth one
        // inspects a building, circling close to its walls.
        let paths = (0..size.scene_drones)
            .map(|k| {
                let phase = rng.range(0.0, TAU);
                let turn = if rng.next() < 0.5 { 1.0 } else { -1.0 };
                match sites.get((rng.next() * sites.len() as Real) as usize) {
                    Some(&(site, reach)) if k % 4 == 0 => Path {
                        center: site,
                        radius: reach * rng.range(0.8, 1.15),
                        phase,
                        turn,
                        height: rng.range(2.0, 8.0),
                        bob: 0.5,
                    },
                    _ => Path {
                        center: Point::new(rng.range(-150.0, 150.0), rng.range(-150.0, 150.0), 0.0),
                        radius: rng.range(15.0, 70.0),
                        phase,
                        turn,
                        height: rng.range(3.0, 30.0),
                        bob: rng.range(0.5, 2.5),
                    },
                }
            })
            .collect();
        let distinct = 1 + buildings.len() + domes.len() + trees.len() + 1;
        let roofs = types.iter().map(|t| t.roof_from).collect();
        World::assemble(
            placements, paths, drone_mesh, up, 16.0, true, distinct, roofs, mesh_time,
        )
    }

    /// A loaded mesh as one object, with `size.scene_drones` drones circling through it.
    pub fn from_mesh(mesh: TriMesh, up: Vector, size: &SceneSize) -> Result<World, String> {
        let start = Instant::now();
        let bounds = mesh.aabb();
        let center = bounds.center();
        let radius = bounds.half_extents().norm().max(Real::MIN_POSITIVE);
        let tall = bounds.half_extents().dot(&up.abs());
        let model = Arc::new(MeshTree::<Aabb>::new(mesh));
        let drone_mesh = Arc::new(MeshTree::<PackedObb>::new(drone(radius * 0.08)));
        let mesh_time = start.elapsed();
        let (u, v) = horizontal_frame(&up);
        let mut rng = SplitMix(2027);
        let paths = (0..size.scene_drones)
            .map(|_| Path {
                center: center
                    + u * (radius * rng.range(-0.3, 0.3))
                    + v * (radius * rng.range(-0.3, 0.3)),
                radius: radius * rng.range(0.3, 1.0),
                phase: rng.range(0.0, TAU),
                turn: if rng.next() < 0.5 { 1.0 } else { -1.0 },
                height: tall * rng.range(-0.8, 0.8),
                bob: radius * 0.03,
            })
            .collect();
        let placements = vec![Placement {
            mesh: model.into(),
            pose: Isometry::identity(),
            layers: BUILDINGS,
            kind: Kind::Model,
        }];
        World::assemble(
            placements,
            paths,
            drone_mesh,
            up,
            radius * 0.25,
            false,
            2,
            Vec::new(),
            mesh_time,
        )
    }

    /// Adds the placements and the drones (at their frame-0 poses), then
    /// builds the top level, timing the adds and the update.
    #[allow(clippy::too_many_arguments)]
    fn assemble(
        placements: Vec<Placement>,
        paths: Vec<Path>,
        drone_mesh: Arc<MeshTree<PackedObb>>,
        up: Vector,
        speed: Real,
        follow_ground: bool,
        distinct_meshes: usize,
        roofs: Vec<u32>,
        mesh_time: Duration,
    ) -> Result<World, String> {
        let error = |e: boxtree::SceneError| e.to_string();
        let mut world = World {
            scene: boxtree::Scene::new(),
            up,
            radius: 0.0,
            description: String::new(),
            distinct_meshes,
            drones: Vec::new(),
            drone_mesh,
            mesh_time,
            add_time: Duration::ZERO,
            update_time: Duration::ZERO,
            kinds: Vec::new(),
            roofs,
            paths,
            speed,
            follow_ground,
        };
        let start = Instant::now();
        let mut bounds = Aabb::EMPTY;
        for placement in placements {
            let id = world
                .scene
                .add(placement.mesh, placement.pose)
                .map_err(error)?;
            world
                .scene
                .set_layers(id, placement.layers)
                .map_err(error)?;
            world.kinds.push(placement.kind);
            if let Some(b) = world.scene.world_box(id) {
                bounds = bounds.union(&b);
            }
        }
        world.add_time = start.elapsed();
        world.radius = bounds.half_extents().norm();
        // Where the drones start: the static objects, not yet in the top
        // level, answer the ground raycasts one by one.
        let poses = world.drone_poses(0);
        let start = Instant::now();
        for pose in poses {
            let id = world
                .scene
                .add(world.drone_mesh.clone(), pose)
                .map_err(error)?;
            world.scene.set_layers(id, DRONES).map_err(error)?;
            world.kinds.push(Kind::Drone);
            world.drones.push(id);
        }
        world.add_time += start.elapsed();
        let start = Instant::now();
        world.scene.update();
        world.update_time = start.elapsed();

        let count = |wanted: fn(Kind) -> bool| world.kinds.iter().filter(|&&k| wanted(k)).count();
        let parts = [
            (count(|k| k == Kind::Ground), "terrain"),
            (count(|k| k == Kind::Model), "mesh"),
            (count(|k| matches!(k, Kind::Building(_))), "buildings"),
            (count(|k| k == Kind::Dome), "domes"),
            (count(|k| k == Kind::Tree), "trees"),
            (count(|k| k == Kind::Drone), "drones"),
        ];
        world.description = parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ");
        Ok(world)
    }

    /// What object `id` is.
    pub fn kind(&self, id: ObjectId) -> Kind {
        self.kinds[id.get() as usize]
    }

    /// True when object `id` is a drone.
    pub fn is_drone(&self, id: ObjectId) -> bool {
        self.kind(id) == Kind::Drone
    }

    /// Where the drone `id` is: its body's centre.
    pub fn position(&self, id: ObjectId) -> Point {
        let pose = self.scene.pose(id).expect("drones stay in the scene");
        Point::from(pose.translation.vector)
    }

    /// Every drone's pose at `frame`: on its circle, facing along it and
    /// banking into the turn, at its height above the ground (found by one
    /// batch of downward raycasts on the ground layer) or above its centre.
    pub fn drone_poses(&self, frame: usize) -> Vec<Isometry> {
        let time = frame as Real * FRAME_TIME;
        let (u, v) = horizontal_frame(&self.up);
        let spots: Vec<(Point, Vector)> = self
            .paths
            .iter()
            .map(|p| {
                let angle = p.phase + p.turn * self.speed * time / p.radius;
                let (sin, cos) = angle.sin_cos();
                let at = p.center + (u * cos + v * sin) * p.radius;
                (at, (v * cos - u * sin) * p.turn)
            })
            .collect();
        let bases: Vec<Point> = if self.follow_ground {
            let rays: Vec<Ray> = spots
                .iter()
                .map(|(at, _)| Ray::new(at + self.up * 1000.0, -self.up))
                .collect();
            let mut hits = Vec::new();
            self.scene.rays_closest_hit(
                &rays,
                Real::INFINITY,
                &Filter::layers(GROUND),
                Threads::All,
                &mut hits,
            );
            rays.iter()
                .zip(&hits)
                .zip(&spots)
                .map(|((ray, hit), (at, _))| hit.map_or(*at, |h| ray.point_at(h.hit.t)))
                .collect()
        } else {
            spots.iter().map(|(at, _)| *at).collect()
        };
        self.paths
            .iter()
            .zip(spots.iter().zip(bases))
            .map(|(p, ((_, forward), base))| {
                let lift = p.height + p.bob * (1.3 * time + p.phase).sin();
                let axes = Matrix::from_columns(&[*forward, self.up.cross(forward), self.up]);
                let upright = Rotation::from_rotation_matrix(
                    &nalgebra::Rotation3::from_matrix_unchecked(axes),
                );
                let bank = Rotation::from_axis_angle(&Vector::x_axis(), -0.3 * p.turn);
                Isometry::from_parts((base + self.up * lift).coords.into(), upright * bank)
            })
            .collect()
    }

    /// Moves every drone to its pose at `frame` (`Scene::set_pose`; call
    /// `Scene::update` after).
    pub fn move_drones(&mut self, frame: usize) -> Result<(), String> {
        let poses = self.drone_poses(frame);
        for (&id, pose) in self.drones.iter().zip(poses) {
            self.scene.set_pose(id, pose).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// `count` targets: uniform in a box, or dropped onto the static world
    /// (one batch of downward raycasts that leave the drones out) and lifted.
    pub fn scatter_targets(&self, region: &TargetRegion, count: usize, seed: u64) -> Vec<Point> {
        let mut rng = SplitMix(seed);
        match *region {
            TargetRegion::InBounds(bounds) => (0..count).map(|_| rng.point_in(&bounds)).collect(),
            TargetRegion::OnSurface { area, lift } => {
                let rays: Vec<Ray> = (0..count)
                    .map(|_| {
                        let p = rng.point_in(&area);
                        Ray::new(p + self.up * 1000.0, -self.up)
                    })
                    .collect();
                let mut hits = Vec::new();
                self.scene.rays_closest_hit(
                    &rays,
                    Real::INFINITY,
                    &Filter::layers(BUILDINGS | TREES | GROUND),
                    Threads::All,
                    &mut hits,
                );
                rays.iter()
                    .zip(hits)
                    .map(|(ray, hit)| match hit {
                        Some(hit) => ray.point_at(hit.hit.t) + self.up * lift,
                        None => ray.origin,
                    })
                    .collect()
            }
        }
    }

    /// The colour of a hit (linear RGB): drones orange when `touching` (sorted) holds them.
    pub fn color(&self, hit: &SceneHit, touching: &[ObjectId]) -> [Real; 3] {
        let triangle = hit.hit.triangle.0;
        match self.kind(hit.object) {
            Kind::Ground => [0.13, 0.26, 0.05],
            Kind::Building(t) if triangle >= self.roofs[t] => [0.45, 0.13, 0.08],
            Kind::Building(t) => {
                let shade = 0.04 * t as Real;
                [0.46 + shade, 0.43 + shade * 0.5, 0.40]
            }
            Kind::Dome => [0.12, 0.22, 0.60],
            Kind::Tree if triangle < 12 => [0.25, 0.15, 0.07],
            Kind::Tree => [0.05, 0.32, 0.07],
            Kind::Drone if touching.binary_search(&hit.object).is_ok() => [1.0, 0.35, 0.05],
            Kind::Drone => [0.9, 0.9, 0.9],
            Kind::Model => [0.45, 0.30, 0.18],
        }
    }
}
