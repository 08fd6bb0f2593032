//! The demo's scene generation and renderer, at a small size.
//!
//! Pictures are checked by their pixels, not by a file existing: a render of
//! the small town must show sky, terrain, buildings and both target colours;
//! a framed mesh must lie inside the picture; box overlays must draw lines.

#[allow(dead_code)]
#[path = "../../examples/demo/png_file.rs"]
mod png_file;
#[allow(dead_code)]
#[path = "../../examples/demo/render.rs"]
mod render;
#[allow(dead_code)]
#[path = "../../examples/demo/scene.rs"]
mod scene;
#[allow(dead_code)]
#[path = "../../examples/demo/world.rs"]
mod world;

use std::collections::HashSet;

use boxtree::{
    Aabb, BuildOptions, Filter, Isometry, MeshTree, Obb, Point, Ray, Real, SightOptions, Threads,
    TriMesh, TriangleId, Vector, Visibility,
};
use render::{
    BLOCKED, Camera, Image, Instance, Lighting, Rgb, VISIBLE, cut_at_depth, cut_by_label, draw_box,
    draw_targets, render, render_scene, subtree_triangles,
};
use scene::{Material, Scene, SceneSize};
use world::{BUILDINGS, DRONES, GROUND, Kind, TREES, World};

const WIDTH: u32 = 96;
const HEIGHT: u32 = 64;

fn town_color(scene: &Scene, id: TriangleId) -> [Real; 3] {
    match scene.material(id) {
        Material::Ground => [0.13, 0.26, 0.05],
        Material::Building => [0.50, 0.45, 0.40],
        Material::Dome => [0.12, 0.22, 0.60],
        Material::Model => [0.60, 0.45, 0.30],
    }
}

fn count(image: &Image, wanted: impl Fn(Rgb) -> bool) -> usize {
    image.pixels.iter().filter(|&&p| wanted(p)).count()
}

fn is_sky([r, g, b]: Rgb) -> bool {
    b > r && b > g && b >= 150
}

fn is_ground([r, g, b]: Rgb) -> bool {
    g > r && g > b
}

fn is_grey([r, g, b]: Rgb) -> bool {
    let (lo, hi) = (r.min(g).min(b), r.max(g).max(b));
    hi - lo <= 40 && hi >= 60
}

struct Town {
    scene: Scene,
    tree: MeshTree<Aabb>,
}

fn small_town() -> Town {
    let scene = Scene::town(&SceneSize::small());
    let tree = MeshTree::build(scene.mesh.clone(), &BuildOptions::sah());
    Town { scene, tree }
}

#[test]
fn small_town_picture_shows_sky_ground_buildings_and_both_target_colours() {
    let Town { scene, tree } = small_town();
    let targets = scene.scatter_targets(&tree, 400, 3);
    let view = scene.camera_path[0];
    let mut answers = Vec::new();
    let options = SightOptions::default();
    tree.line_of_sight_many(&view.eye, &targets, &options, Threads::All, &mut answers);
    assert!(answers.iter().any(|a| a.is_visible()));
    assert!(answers.iter().any(|a| matches!(a, Visibility::Blocked(_))));

    let camera = Camera::look_at(view.eye, view.look_at, scene.up, 50.0, WIDTH, HEIGHT);
    let mut image = render::<Aabb, Aabb>(
        &tree,
        |id| town_color(&scene, id),
        &[],
        &camera,
        &Lighting::daylight(scene.up),
    );
    assert_eq!(
        (image.width, image.height, image.pixels.len()),
        (WIDTH, HEIGHT, (WIDTH * HEIGHT) as usize)
    );
    let total = image.pixels.len();
    let sky = count(&image, is_sky);
    let ground = count(&image, is_ground);
    let grey = count(&image, is_grey);
    assert!(sky >= total / 20, "sky pixels: {sky} of {total}");
    assert!(ground >= total / 5, "ground pixels: {ground} of {total}");
    assert!(grey >= 10, "building pixels: {grey}");
    assert_eq!(
        count(&image, |p| p == VISIBLE || p == BLOCKED),
        0,
        "no target colours before the dots"
    );

    draw_targets(&mut image, &camera, &targets, &answers);
    let visible = count(&image, |p| p == VISIBLE);
    let blocked = count(&image, |p| p == BLOCKED);
    assert!(
        visible >= 9 && blocked >= 9,
        "visible dots {visible}, blocked dots {blocked}"
    );
    let distinct: HashSet<Rgb> = image.pixels.iter().copied().collect();
    assert!(distinct.len() >= 50, "only {} colours", distinct.len());
}

#[test]
fn top_row_is_sky_and_bottom_row_is_ground() {
    let Town { scene, tree } = small_town();
    let view = scene.camera_path[0];
    let camera = Camera::look_at(view.eye, view.look_at, scene.up, 50.0, WIDTH, HEIGHT);
    let image = render::<Aabb, Aabb>(
        &tree,
        |id| town_color(&scene, id),
        &[],
        &camera,
        &Lighting::daylight(scene.up),
    );
    let row = |y: u32| &image.pixels[(y * WIDTH) as usize..((y + 1) * WIDTH) as usize];
    assert!(row(0).iter().all(|&p| is_sky(p)));
    assert!(row(HEIGHT - 1).iter().filter(|&&p| is_ground(p)).count() > (WIDTH / 2) as usize);
}

#[test]
fn targets_stand_lift_above_the_first_surface_below_them() {
    let Town { scene, tree } = small_town();
    let targets = scene.scatter_targets(&tree, 200, 5);
    assert_eq!(targets.len(), 200);
    for target in &targets {
        let hit = tree
            .closest_hit((Ray::new(*target, -scene.up)).span(0.0, Real::INFINITY))
            .expect("ground below every target");
        assert!(
            (hit.t - 1.5).abs() < 1e-3,
            "target {target:?} stands {} above the surface",
            hit.t
        );
    }
}

#[test]
fn scatter_targets_is_deterministic() {
    let Town { scene, tree } = small_town();
    assert_eq!(
        scene.scatter_targets(&tree, 50, 9),
        scene.scatter_targets(&tree, 50, 9)
    );
    assert_ne!(
        scene.scatter_targets(&tree, 50, 9),
        scene.scatter_targets(&tree, 50, 10)
    );
}

#[test]
fn drone_flight_both_touches_and_clears_the_town() {
    let Town { scene, tree } = small_town();
    let drone = MeshTree::<Obb>::build(scene.mover.clone(), &BuildOptions::gottschalk());
    let world = tree.placed(Isometry::identity());
    let touching: Vec<bool> = scene
        .sweep
        .iter()
        .map(|pose| world.overlaps(&drone.placed(*pose)))
        .collect();
    assert_eq!(touching.len(), SceneSize::small().sweep_steps);
    assert!(
        touching.iter().any(|&t| t),
        "the drone flies through a building"
    );
    assert!(touching.iter().any(|&t| !t), "the drone starts in open air");
}

#[test]
fn cut_by_object_gives_single_object_subtrees_covering_each_triangle_at_most_once() {
    let Town { scene, tree } = small_town();
    let obb = MeshTree::<Obb>::build(scene.mesh.clone(), &BuildOptions::gottschalk());
    fn check<V: boxtree::BoundingVolume>(bvh: &boxtree::Bvh<V>, scene: &Scene) {
        let mut seen = vec![0u32; scene.mesh.len()];
        for id in cut_by_label(bvh, |t| scene.object(t)) {
            let triangles = subtree_triangles(bvh, id);
            let object = scene.object(triangles[0]);
            assert!(triangles.iter().all(|&t| scene.object(t) == object));
            for t in triangles {
                seen[t.index()] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n <= 1));
        // Only leaves that mix objects are left out: a few triangles where buildings meet the ground.
        let covered = seen.iter().filter(|&&n| n == 1).count();
        assert!(
            covered * 10 >= seen.len() * 9,
            "{covered} of {} triangles covered",
            seen.len()
        );
    }
    check(tree.bvh(), &scene);
    check(obb.bvh(), &scene);
}

#[test]
fn cut_at_depth_covers_every_triangle_once() {
    let Town { tree, .. } = small_town();
    for depth in [0, 1, 4, 100] {
        let mut seen = vec![0u32; tree.mesh().len()];
        for id in cut_at_depth(tree.bvh(), depth) {
            for t in subtree_triangles(tree.bvh(), id) {
                seen[t.index()] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "depth {depth}");
    }
    assert_eq!(cut_at_depth(tree.bvh(), 0).len(), 1);
}

#[test]
fn a_framed_mesh_lies_inside_the_picture() {
    let bunny = TriMesh::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj"))
        .expect("the bunny loads");
    let scene = Scene::from_mesh(bunny, "bunny", Vector::y(), &SceneSize::small());
    let tree = MeshTree::<Aabb>::build(scene.mesh.clone(), &BuildOptions::sah());
    for view in &scene.camera_path {
        let camera = Camera::look_at(view.eye, view.look_at, scene.up, 50.0, WIDTH, HEIGHT);
        let image = render::<Aabb, Aabb>(
            &tree,
            |_| [0.6, 0.45, 0.3],
            &[],
            &camera,
            &Lighting::daylight(scene.up),
        );
        let border = (0..WIDTH)
            .flat_map(|x| [(x, 0), (x, HEIGHT - 1)])
            .chain((0..HEIGHT).flat_map(|y| [(0, y), (WIDTH - 1, y)]));
        for (x, y) in border {
            let p = image.pixels[(y * WIDTH + x) as usize];
            assert!(
                is_sky(p) || p[2] > p[0],
                "pixel ({x}, {y}) on the border is {p:?}: the mesh is cut off"
            );
        }
        let model = count(&image, |[r, _, b]| r > b);
        assert!(
            model >= (WIDTH * HEIGHT / 20) as usize,
            "the mesh covers only {model} pixels"
        );
    }
}

#[test]
fn placed_instances_are_drawn_in_their_colour() {
    let Town { scene, tree } = small_town();
    let drone = MeshTree::<Aabb>::build(scene.mover.clone(), &BuildOptions::sah());
    let pose = scene.sweep[0];
    let at = Point::from(pose.translation.vector);
    // Look at the drone from close by, above and behind.
    let camera = Camera::look_at(
        at + Vector::new(-12.0, -12.0, 10.0),
        at,
        scene.up,
        50.0,
        WIDTH,
        HEIGHT,
    );
    let instance = Instance {
        placed: drone.placed(pose),
        color: [1.0, 0.0, 1.0],
    };
    let image = render(
        &tree,
        |id| town_color(&scene, id),
        &[instance],
        &camera,
        &Lighting::daylight(scene.up),
    );
    let magenta = count(&image, |[r, g, b]| {
        r > 80 && b > 80 && g < r / 2 && g < b / 2
    });
    assert!(magenta >= 20, "drone pixels: {magenta}");
}

#[test]
fn box_overlays_draw_lines_over_the_picture() {
    let Town { scene, tree } = small_town();
    let camera = Camera::look_at(
        scene.close_up.eye,
        scene.close_up.look_at,
        scene.up,
        50.0,
        WIDTH,
        HEIGHT,
    );
    let background = render::<Aabb, Aabb>(
        &tree,
        |id| town_color(&scene, id),
        &[],
        &camera,
        &Lighting::daylight(scene.up),
    )
    .muted();
    let mut image = background.clone();
    for id in cut_at_depth(tree.bvh(), 3) {
        draw_box(
            &mut image,
            &camera,
            &tree.bvh().node(id).volume,
            [255, 0, 255],
        );
    }
    let changed = image
        .pixels
        .iter()
        .zip(&background.pixels)
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed >= 100, "only {changed} pixels changed");
}

#[test]
fn boxes_behind_the_camera_draw_nothing_and_do_not_panic() {
    let camera = Camera::look_at(
        Point::origin(),
        Point::new(0.0, 1.0, 0.0),
        Vector::z(),
        50.0,
        WIDTH,
        HEIGHT,
    );
    let mut image = Image {
        width: WIDTH,
        height: HEIGHT,
        pixels: vec![[0, 0, 0]; (WIDTH * HEIGHT) as usize],
    };
    let behind = Aabb::new(Point::new(-1.0, -5.0, -1.0), Point::new(1.0, -3.0, 1.0));
    draw_box(&mut image, &camera, &behind, [255, 255, 255]);
    assert!(image.pixels.iter().all(|&p| p == [0, 0, 0]));
    // A long box from behind the eye to far in front crosses the near plane: clipped, not a panic.
    let around = Aabb::new(Point::new(-0.2, -1.0, -0.2), Point::new(0.2, 3.0, 0.2));
    draw_box(&mut image, &camera, &around, [255, 255, 255]);
    assert!(image.pixels.contains(&[255, 255, 255]));
    let nan = Aabb::new(Point::new(Real::NAN, 0.0, 0.0), Point::new(1.0, 1.0, 1.0));
    draw_box(&mut image, &camera, &nan, [1, 2, 3]);
}

#[test]
fn png_files_decode_to_the_same_pixels() {
    let Town { scene, tree } = small_town();
    let view = scene.camera_path[0];
    let camera = Camera::look_at(view.eye, view.look_at, scene.up, 50.0, WIDTH, HEIGHT);
    let image = render::<Aabb, Aabb>(
        &tree,
        |id| town_color(&scene, id),
        &[],
        &camera,
        &Lighting::daylight(scene.up),
    );
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo_round_trip.png");
    png_file::write_png(&path, &image).expect("the picture is written");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&path).expect("the file exists"),
    ));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buffer).expect("one frame");
    assert_eq!(
        (info.width, info.height, info.color_type),
        (WIDTH, HEIGHT, png::ColorType::Rgb)
    );
    assert_eq!(&buffer[..info.buffer_size()], image.pixels.as_flattened());
}

#[test]
fn writing_into_a_missing_directory_is_an_error_naming_the_file() {
    let image = Image {
        width: 2,
        height: 2,
        pixels: vec![[0, 0, 0]; 4],
    };
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("no such directory")
        .join("x.png");
    let message = png_file::write_png(&path, &image).expect_err("the directory does not exist");
    assert!(message.contains("x.png"), "{message}");
}

fn small_world() -> World {
    World::town(&SceneSize::small()).expect("the scene town builds")
}

#[test]
fn scene_town_places_a_few_shared_meshes_many_times() {
    let world = small_world();
    let scene = &world.scene;
    let size = SceneSize::small();
    assert_eq!(world.drones.len(), size.scene_drones);
    assert!(
        scene.len() >= 8 * world.distinct_meshes,
        "{} objects from {} meshes",
        scene.len(),
        world.distinct_meshes
    );
    let one_copy_each: usize = scene
        .ids()
        .map(|id| scene.mesh(id).expect("live").bytes())
        .sum();
    assert!(scene.mesh_bytes() * 3 < one_copy_each);
    let kinds: Vec<Kind> = scene.ids().map(|id| world.kind(id)).collect();
    assert_eq!(kinds.iter().filter(|&&k| k == Kind::Ground).count(), 1);
    assert!(
        kinds
            .iter()
            .filter(|k| matches!(k, Kind::Building(_)))
            .count()
            >= 10
    );
    assert!(kinds.iter().filter(|&&k| k == Kind::Tree).count() >= 10);
    for id in scene.ids() {
        let wanted = match world.kind(id) {
            Kind::Ground => GROUND,
            Kind::Tree => TREES,
            Kind::Drone => DRONES,
            _ => BUILDINGS,
        };
        assert_eq!(scene.layers(id), Some(wanted), "object {}", id.get());
    }
    // Every building, dome and tree stands in the ground.
    let pairs = scene.overlapping_pairs(
        &Filter::layers(BUILDINGS | TREES | GROUND),
        |_, _| false,
        Threads::All,
    );
    let standing = kinds
        .iter()
        .filter(|&&k| k != Kind::Ground && k != Kind::Drone)
        .count();
    let grounded = pairs
        .iter()
        .filter(|p| world.kind(p.a) == Kind::Ground || world.kind(p.b) == Kind::Ground)
        .count();
    assert_eq!(grounded, standing);
}

#[test]
fn scene_drones_fly_above_the_ground_and_touch_buildings_now_and_then() {
    let mut world = small_world();
    let mut touched = 0;
    for frame in 0..6 {
        world.move_drones(frame).expect("finite poses");
        world.scene.update();
        for &id in &world.drones {
            let at = world.position(id);
            let below = world
                .scene
                .closest_hit(
                    Ray::new(at, -world.up).span(0.0, Real::INFINITY),
                    &Filter::layers(GROUND),
                )
                .expect("ground below every drone");
            assert!(below.hit.t > 1.0, "drone {} skims the ground", id.get());
        }
        // Scene::touching per drone and Scene::overlapping_pairs agree.
        let pairs = world.scene.overlapping_pairs(
            &Filter::everything(),
            |a, b| !world.is_drone(a) && !world.is_drone(b),
            Threads::All,
        );
        for &id in &world.drones {
            let pose = world.scene.pose(id).expect("live");
            let mut touching = world
                .scene
                .touching(&world.drone_mesh.placed(pose), &Filter::layers(BUILDINGS));
            let mut from_pairs: Vec<_> = pairs
                .iter()
                .filter_map(|p| match (p.a == id, p.b == id) {
                    (true, _) => Some(p.b),
                    (_, true) => Some(p.a),
                    _ => None,
                })
                .filter(|&other| matches!(world.kind(other), Kind::Building(_) | Kind::Dome))
                .collect();
            touching.sort_unstable();
            from_pairs.sort_unstable();
            assert_eq!(touching, from_pairs, "drone {} at frame {frame}", id.get());
            touched += usize::from(!touching.is_empty());
        }
    }
    assert!(touched > 0, "no drone ever touched a building");
    assert!(touched < 6 * world.drones.len() / 2);
}

#[test]
fn a_drone_does_not_hide_itself_when_its_object_is_ignored() {
    let world = small_world();
    let sight = SightOptions::default();
    for &id in &world.drones {
        let at = world.position(id);
        // From just above the drone: its own body is in the way.
        let eye = at + world.up * 1.0;
        let own = world
            .scene
            .line_of_sight(&eye, &at, &sight, &Filter::everything());
        assert!(
            matches!(own, Visibility::Blocked(b) if b.object == id),
            "drone {}: {own:?}",
            id.get()
        );
        let past_itself = Filter::everything().ignoring([id]);
        assert!(
            world
                .scene
                .line_of_sight(&eye, &at, &sight, &past_itself)
                .is_visible()
        );
    }
}

#[test]
fn scene_picture_shows_sky_ground_buildings_and_drones() {
    let world = small_world();
    let town = Scene::town(&SceneSize::small());
    let view = town.camera_path[0];
    let camera = Camera::look_at(view.eye, view.look_at, world.up, 50.0, WIDTH, HEIGHT);
    let lighting = Lighting::daylight(world.up);
    let image = render_scene(
        &world.scene,
        |hit| world.color(hit, &[]),
        &camera,
        &lighting,
        world.radius,
    );
    assert_eq!(image.pixels.len(), (WIDTH * HEIGHT) as usize);
    let total = image.pixels.len();
    let sky = count(&image, is_sky);
    let ground = count(&image, is_ground);
    let grey = count(&image, is_grey);
    assert!(sky >= total / 20, "sky pixels: {sky} of {total}");
    assert!(ground >= total / 5, "ground pixels: {ground} of {total}");
    assert!(grey >= 10, "building and drone pixels: {grey}");

    // One drone seen from close by fills much of the picture, in its colour.
    let id = world.drones[0];
    let at = world.position(id);
    let camera = Camera::look_at(
        at + Vector::new(-4.0, -4.0, 3.0),
        at,
        world.up,
        50.0,
        WIDTH,
        HEIGHT,
    );
    let orange = |hit: &boxtree::SceneHit| world.color(hit, &[id]);
    let image = render_scene(&world.scene, orange, &camera, &lighting, world.radius);
    let drone = count(&image, |[r, g, b]| r > 150 && g < r && b < g);
    assert!(drone >= 20, "drone pixels: {drone}");
}
