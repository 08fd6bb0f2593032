//! Step 5 of the demo: the town again as a `boxtree::Scene` of instanced
//! meshes with moving drones, and per frame the line-of-sight and overlap
//! passes over the whole scene, then a picture drawn through the scene's
//! own queries.

use super::*;

/// The town (or the mesh file) as a `boxtree::Scene` with moving drones:
/// every frame the drones move, then line of sight and overlap over the
/// whole scene; last, a picture of the scene.
pub(super) fn scene_pass(options: &Options, scene: &Scene, size: &SceneSize) -> Result<(), String> {
    let mut world = with_progress("building the scene", || match &options.mesh {
        None => World::town(size),
        Some(_) => World::from_mesh(scene.mesh.clone(), scene.up, size),
    })?;
    let town = options.mesh.is_none();
    println!(
        "\nScene: {}, with moving drones",
        if town {
            "the town again, as a boxtree::Scene of instanced meshes"
        } else {
            "the mesh as one object of a boxtree::Scene"
        }
    );
    println!(
        "  {} objects ({}) placing {} distinct meshes",
        thousands(world.scene.len()),
        world.description,
        world.distinct_meshes
    );
    println!(
        "  built in {:.2} ms: {} adds {:.2} ms, update {:.2} ms (the distinct meshes' trees, each built once: {:.2} s)",
        (world.add_time + world.update_time).as_secs_f64() * 1e3,
        thousands(world.scene.len()),
        world.add_time.as_secs_f64() * 1e3,
        world.update_time.as_secs_f64() * 1e3,
        world.mesh_time.as_secs_f64()
    );
    let one_copy_each: usize = world
        .scene
        .ids()
        .filter_map(|id| world.scene.mesh(id).map(|m| m.bytes()))
        .sum();
    println!(
        "  memory: scene {} (objects, top-level tree), meshes {} (each once; {} with a copy per object)",
        bytes(world.scene.bytes()),
        bytes(world.scene.mesh_bytes()),
        bytes(one_copy_each)
    );
    if town {
        // The fixed objects never move: their pairs are asked once.
        let (fixed, time) = timed(|| {
            world.scene.overlapping_pairs(
                &Filter::layers(BUILDINGS | TREES | GROUND),
                |_, _| false,
                Threads::All,
            )
        });
        let grounded = fixed
            .iter()
            .filter(|p| world.kind(p.a) == Kind::Ground || world.kind(p.b) == Kind::Ground)
            .count();
        println!(
            "  static overlapping pairs, once: {} ({} objects standing in the ground, {} among buildings and trees), {:.2} ms",
            thousands(fixed.len()),
            thousands(grounded),
            thousands(fixed.len() - grounded),
            time.as_secs_f64() * 1e3
        );
    }
    let (targets, time) = timed(|| world.scatter_targets(&scene.targets, size.targets, 99));
    let placed = match scene.targets {
        TargetRegion::OnSurface { .. } => {
            "dropped on the scene by one Scene::rays_closest_hit batch"
        }
        TargetRegion::InBounds(_) => "in the mesh's bounds",
    };
    println!(
        "  {} targets {placed}, {:.2} ms",
        thousands(targets.len()),
        time.as_secs_f64() * 1e3
    );

    let frames = size.scene_frames;
    let drones = world.drones.len();
    println!(
        "\n  {frames} frames: move {drones} drones (set_pose, update), line of sight to {} targets and {drones} drones, overlap",
        thousands(targets.len()),
    );
    println!(
        "  {:>5}  {:>9}  {:>12}  {:>9}  {:>11}  {:>9}  {:>12}  {:>3}  {:>6}  {:>6}  {:>8}  {:>9}",
        "frame",
        "update",
        "targets seen",
        "by drones",
        "drones seen",
        "queries/s",
        "on buildings",
        "d-d",
        "d-bldg",
        "d-tree",
        "d-ground",
        "overlap"
    );
    // A target this close to a surface is not hidden by it.
    let sight = SightOptions::default().with_endpoint_margins(0.0, world.radius * 1e-3);
    let everything = Filter::everything();
    let fixed_only = Filter::layers(BUILDINGS | TREES | GROUND);
    let mut totals = SceneTotals::default();
    let mut answers: Vec<Visibility<SceneTriangle>> = Vec::new();
    let mut last = None;
    let bar = Bar::new("scene", frames, "frames");
    for frame in 0..frames {
        let (moved, t) = timed(|| world.move_drones(frame));
        moved?;
        totals.moving += t;
        let (report, t) = timed(|| world.scene.update());
        totals.update += t;
        totals.rebuilds += usize::from(report.rebuilt);
        let update_time = t;
        let world = &world;
        let view = view_along(
            &scene.camera_path,
            frame as Real / (frames.max(2) - 1) as Real,
        );

        // Line of sight to the targets past everything (drones too), then to each
        // drone past everything but itself.
        let ((), t_targets) = timed(|| {
            world.scene.line_of_sight_many(
                &view.eye,
                &targets,
                &sight,
                &everything,
                Threads::All,
                &mut answers,
            )
        });
        let (drones_seen, t_drones) = timed(|| {
            world
                .drones
                .iter()
                .filter(|&&id| {
                    let filter = Filter::everything().ignoring([id]);
                    world
                        .scene
                        .line_of_sight(&view.eye, &world.position(id), &sight, &filter)
                        .is_visible()
                })
                .count()
        });
        let targets_seen = answers.iter().filter(|a| a.is_visible()).count();
        // Blocked by a drone, and visible past the fixed world: hidden by drones alone.
        let by_drones = answers
            .iter()
            .zip(&targets)
            .filter(|(answer, target)| {
                matches!(answer, Visibility::Blocked(b) if world.is_drone(b.object))
                    && world
                        .scene
                        .line_of_sight(&view.eye, target, &sight, &fixed_only)
                        .is_visible()
            })
            .count();
        let sight_time = t_targets + t_drones;
        totals.sight += sight_time;
        totals.queries += targets.len() + drones;
        totals.targets_seen += targets_seen;
        totals.drones_seen += drones_seen;

        // Overlap: each drone against the buildings, then every pair with a drone in it.
        let (on_buildings, t_touching) = timed(|| {
            world
                .drones
                .iter()
                .map(|&id| {
                    let pose = world.scene.pose(id).expect("drones stay in the scene");
                    let touched = world
                        .scene
                        .touching(&world.drone_mesh.placed(pose), &Filter::layers(BUILDINGS));
                    (id, touched)
                })
                .collect::<Vec<_>>()
        });
        let (pairs, t_pairs) = timed(|| {
            world.scene.overlapping_pairs(
                &everything,
                |a, b| !world.is_drone(a) && !world.is_drone(b),
                Threads::All,
            )
        });
        totals.touching += t_touching;
        totals.pairs += t_pairs;
        let counts = PairCounts::of(world, &pairs);
        // Both queries must find the same drone–building contacts.
        let from_touching: Vec<(ObjectId, ObjectId)> = on_buildings
            .iter()
            .flat_map(|(drone, touched)| touched.iter().map(move |&b| (*drone, b)))
            .collect();
        let mut from_pairs: Vec<(ObjectId, ObjectId)> = pairs
            .iter()
            .filter_map(|p| match (world.is_drone(p.a), world.is_drone(p.b)) {
                (true, false) => Some((p.a, p.b)),
                (false, true) => Some((p.b, p.a)),
                _ => None,
            })
            .filter(|&(_, other)| {
                matches!(
                    world.kind(other),
                    Kind::Building(_) | Kind::Dome | Kind::Model
                )
            })
            .collect();
        from_pairs.sort_unstable();
        totals.agree &= from_touching == from_pairs;
        let drones_on_buildings = on_buildings.iter().filter(|(_, t)| !t.is_empty()).count();

        bar.row(format!(
            "  {frame:>5}  {:>9}  {:>12}  {by_drones:>9}  {:>11}  {:>9}  {drones_on_buildings:>12}  {:>3}  {:>6}  {:>6}  {:>8}  {:>9}",
            format!(
                "{}{}",
                micros(update_time),
                if report.rebuilt { "*" } else { " " }
            ),
            format!("{targets_seen}/{}", targets.len()),
            format!("{drones_seen}/{drones}"),
            rate(targets.len() + drones, sight_time),
            counts.drone_drone,
            counts.drone_building,
            counts.drone_tree,
            counts.drone_ground,
            micros(t_touching + t_pairs),
        ));
        bar.step();
        if frame + 1 == frames {
            let mut touching: Vec<ObjectId> = pairs
                .iter()
                .flat_map(|p| [p.a, p.b])
                .filter(|&id| world.is_drone(id))
                .collect();
            touching.sort_unstable();
            touching.dedup();
            last = Some(touching);
        }
    }
    let per_frame = |d: Duration| micros(d / frames.max(1) as u32);
    println!(
        "  update: Scene::update after the moves (* the top level was rebuilt: refits had made it worse than a rebuild)"
    );
    println!(
        "  by drones: targets hidden by drones alone (visible past everything else); queries/s: both line-of-sight passes"
    );
    println!(
        "  on buildings: drones touching a building or dome{} (Scene::touching per drone); d-d, d-bldg, d-tree, d-ground:",
        if town { "" } else { " (the mesh)" }
    );
    println!(
        "  the overlapping pairs with a drone in them (Scene::overlapping_pairs); overlap: the time of both"
    );
    println!(
        "  mean per frame: moving the drones {} (ground raycasts, set_pose), update {} (rebuilt in {} of {frames} frames)",
        per_frame(totals.moving),
        per_frame(totals.update),
        totals.rebuilds
    );
    println!(
        "  line of sight: {} queries/s ({:.2} µs each); visible: {:.1}% of the targets, {:.1}% of the drones",
        rate(totals.queries, totals.sight),
        totals.sight.as_secs_f64() * 1e6 / totals.queries.max(1) as f64,
        100.0 * totals.targets_seen as f64 / (targets.len() * frames).max(1) as f64,
        100.0 * totals.drones_seen as f64 / (drones * frames).max(1) as f64
    );
    println!(
        "  overlap: touching for each drone {}, overlapping_pairs {} per frame; both find the same drone-building contacts: {}",
        per_frame(totals.touching),
        per_frame(totals.pairs),
        if totals.agree { "yes" } else { "NO" }
    );
    if !totals.agree {
        return Err("Scene::touching and Scene::overlapping_pairs disagree".to_string());
    }

    // The close-up of the tree pictures, at the last frame.
    let Some(touching) = last else {
        return Ok(());
    };
    let camera = Camera::look_at(
        scene.close_up.eye,
        scene.close_up.look_at,
        world.up,
        50.0,
        options.width,
        options.height,
    );
    let lighting = Lighting {
        haze_distance: 8.0 * world.radius,
        ..Lighting::daylight(world.up)
    };
    let (picture, time) = timed(|| {
        with_progress("rendering the scene", || {
            render_scene(
                &world.scene,
                |hit| world.color(hit, &touching),
                &camera,
                &lighting,
                world.radius,
            )
        })
    });
    let path = options.out.join("scene.png");
    write_png(&path, &picture)?;
    println!(
        "  {}  close-up at frame {}: Scene::rays_closest_hit and Scene::segments_any_hit (shadows), drones orange where they touch something; {:.2} s, {} primary rays/s",
        shown(&path),
        frames - 1,
        time.as_secs_f64(),
        rate((options.width * options.height) as usize, time)
    );
    Ok(())
}

/// Sums over the frames of the scene pass.
struct SceneTotals {
    moving: Duration,
    update: Duration,
    rebuilds: usize,
    sight: Duration,
    queries: usize,
    targets_seen: usize,
    drones_seen: usize,
    touching: Duration,
    pairs: Duration,
    agree: bool,
}

impl Default for SceneTotals {
    fn default() -> Self {
        SceneTotals {
            moving: Duration::ZERO,
            update: Duration::ZERO,
            rebuilds: 0,
            sight: Duration::ZERO,
            queries: 0,
            targets_seen: 0,
            drones_seen: 0,
            touching: Duration::ZERO,
            pairs: Duration::ZERO,
            agree: true,
        }
    }
}

/// Overlapping pairs with a drone in them, by what the other object is.
#[derive(Default)]
struct PairCounts {
    drone_drone: usize,
    drone_building: usize,
    drone_tree: usize,
    drone_ground: usize,
}

impl PairCounts {
    fn of(world: &World, pairs: &[ObjectPair]) -> PairCounts {
        let mut counts = PairCounts::default();
        for pair in pairs {
            let other = match (world.is_drone(pair.a), world.is_drone(pair.b)) {
                (true, true) => {
                    counts.drone_drone += 1;
                    continue;
                }
                (true, false) => pair.b,
                (false, true) => pair.a,
                (false, false) => continue,
            };
            match world.kind(other) {
                Kind::Tree => counts.drone_tree += 1,
                Kind::Ground => counts.drone_ground += 1,
                _ => counts.drone_building += 1,
            }
        }
        counts
    }
}

/// The view a fraction `s` (0 to 1) of the way along the camera path.
fn view_along(path: &[View], s: Real) -> View {
    let last = path.len().saturating_sub(1);
    let x = s.clamp(0.0, 1.0) * last as Real;
    let k = (x.floor() as usize).min(last.saturating_sub(1));
    let (a, b) = (path[k], path[(k + 1).min(last)]);
    let f = x - k as Real;
    View {
        eye: a.eye + (b.eye - a.eye) * f,
        look_at: a.look_at + (b.look_at - a.look_at) * f,
    }
}
