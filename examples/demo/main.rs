//! The main job on a built-in scene, no files needed:
//! `cargo run --release --example demo` (`-- --help` for the options).
//!
//! 1. Generates a procedural town (or loads `--mesh FILE`) and builds an AABB
//!    tree (binned SAH) and an OBB tree (Gottschalk) over it.
//! 2. Moves a camera along a path and checks line of sight to thousands of
//!    targets per frame with both trees.
//! 3. Flies a drone through the scene and reports, per step, whether it
//!    overlaps the scene and how many triangle pairs touch.
//! 4. Writes pictures made by raycasting the trees: the scene with visible
//!    (green) and blocked (red) targets, and the OBB and AABB trees cut at one
//!    depth, drawn over the scene.
//! 5. Builds the town again as a `boxtree::Scene`: the terrain as one object,
//!    buildings, domes and trees instanced from a handful of shared meshes
//!    (each built once) and placed by rigid poses, and a swarm of drones as
//!    moving objects on their own layer. Every frame it moves the drones
//!    (`set_pose`, then `update`), checks line of sight from the moving
//!    camera to the targets and to every drone (ignoring the drone's own
//!    object), and finds which drones touch buildings (`touching`) and every
//!    overlapping pair (`overlapping_pairs`); then it writes a picture of the
//!    scene raycast through the scene's own queries. A mesh file becomes one
//!    object with the drones circling through it.

mod png_file;
mod progress;
mod render;
mod scene;
mod scene_pass;
mod world;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use boxtree::bvh::{BoundingVolume, Bvh, TreeStats};
use boxtree::{
    Aabb, BuildOptions, Filter, Isometry, MeshTree, ObjectId, ObjectPair, OverlapStats, PackedObb,
    Point, Real, SceneTriangle, SightOptions, Threads, TriMesh, Vector, Visibility,
};

use self::png_file::write_png;
use self::progress::{Bar, with_progress};
use self::render::{
    Camera, Corners, Image, Instance, Lighting, cut_at_depth, cut_by_label, draw_box, draw_targets,
    palette, render, render_scene, subtree_triangles,
};
use self::scene::{Material, Scene, SceneSize, TargetRegion, View};
use self::world::{BUILDINGS, GROUND, Kind, TREES, World};

const HELP: &str = "\
boxtree demo: line of sight, raycasts and mesh overlap on AABB and OBB trees.

Usage: cargo run --release --example demo -- [OPTIONS]

Without options it generates a procedural town (terrain, buildings, domes;
about 290,000 triangles), builds both trees, checks line of sight from a moving
camera to 4096 targets per frame, flies a drone through the town, and writes
pictures to target/demo/. Then it builds the town again as a boxtree::Scene
(buildings, domes and trees instanced from a few shared meshes, the terrain as
one object) with 200 moving drones, and for 30 frames moves the drones, checks
line of sight to the targets and to every drone, and finds the drones that
touch buildings and every overlapping pair; it writes a picture of the scene.

Options:
  --mesh FILE   use a mesh file (.obj, .stl, .ply) instead of the town: the
                camera circles it, targets fill its bounding box, the drone
                flies through its middle; in the scene it is one object that
                the drones circle through
  --up AXIS     the mesh's up axis: x, y or z (default: z for .stl, y otherwise)
  --out DIR     where to write the pictures (default: target/demo)
  --size WxH    picture size in pixels (default: 960x540)
  --depth N     draw the trees cut at this depth (default: 6 for a mesh file;
                the town's pictures show the boxes that hold one building each)
  --small       a small scene and workload (a few seconds, for CI): 16 drones,
                3 scene frames
  -h, --help    print this help";

/// The parsed command line.
struct Options {
    mesh: Option<PathBuf>,
    up: Option<Vector>,
    out: PathBuf,
    width: u32,
    height: u32,
    depth: Option<usize>,
    small: bool,
}

/// The widest mesh the demo places its camera and drone around.
const MESH_SPAN_LIMIT: Real = 1e18;

#[path = "../shared/command_line.rs"]
mod command_line;

fn main() -> ExitCode {
    command_line::quiet_on_closed_pipe();
    match command_line::arguments().and_then(|args| run(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the demo with these command-line arguments (without the program name).
pub fn run(args: &[String]) -> Result<(), String> {
    match parse_args(args).map_err(|e| format!("{e}\n(run with --help for the options)"))? {
        Some(options) => demo(&options),
        None => {
            // A closed pipe (`demo --help | head`) is not an error worth a panic.
            use std::io::Write;
            let _ = writeln!(std::io::stdout(), "{HELP}");
            Ok(())
        }
    }
}

/// `Ok(None)` means help was asked for.
fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    use lexopt::prelude::*;
    let mut options = Options {
        mesh: None,
        up: None,
        out: PathBuf::from("target/demo"),
        width: 960,
        height: 540,
        depth: None,
        small: false,
    };
    let mut parser = lexopt::Parser::from_args(args.iter());
    let text = |value: Result<std::ffi::OsString, lexopt::Error>| -> Result<String, String> {
        value
            .map_err(|e| e.to_string())?
            .string()
            .map_err(|e| e.to_string())
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => return Ok(None),
            Long("mesh") => options.mesh = Some(PathBuf::from(text(parser.value())?)),
            Long("out") => options.out = PathBuf::from(text(parser.value())?),
            Long("up") => {
                options.up = Some(match text(parser.value())?.as_str() {
                    "x" => Vector::x(),
                    "y" => Vector::y(),
                    "z" => Vector::z(),
                    other => return Err(format!("--up takes x, y or z, not {other:?}")),
                })
            }
            Long("size") => {
                let text = text(parser.value())?;
                let size = text
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
                match size {
                    Some((w, h)) if (16..=8192).contains(&w) && (16..=8192).contains(&h) => {
                        (options.width, options.height) = (w, h)
                    }
                    _ => {
                        return Err(format!(
                            "--size takes WIDTHxHEIGHT between 16 and 8192, not {text:?}"
                        ));
                    }
                }
            }
            Long("depth") => {
                let text = text(parser.value())?;
                options.depth = Some(
                    text.parse()
                        .map_err(|_| format!("--depth takes a whole number, not {text:?}"))?,
                );
            }
            Long("small") => options.small = true,
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(options))
}

fn demo(options: &Options) -> Result<(), String> {
    let size = if options.small {
        SceneSize::small()
    } else {
        SceneSize::full()
    };
    let scene = make_scene(options, &size)?;
    let trees = build_trees(&scene);
    let sight = check_line_of_sight(&scene, &trees, &size);
    let flight = fly_drone(&scene, &trees)?;
    write_pictures(options, &scene, &trees, &sight, &flight)?;
    scene_pass::scene_pass(options, &scene, &size)
}

/// The town, or the mesh file.
fn make_scene(options: &Options, size: &SceneSize) -> Result<Scene, String> {
    let start = Instant::now();
    let scene = match &options.mesh {
        None => with_progress("generating the town", || Scene::town(size)),
        Some(path) => {
            let mesh = with_progress("loading the mesh", || TriMesh::load(path))
                .map_err(|e| e.to_string())?;
            let stl = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("stl"));
            let up = options
                .up
                .unwrap_or(if stl { Vector::z() } else { Vector::y() });
            // The camera circles the mesh at 2.6 times its radius and the
            // drone is sized from it: beyond about 1e18 across, those
            // placements leave `f32`'s range (a mesh 1e20 across panicked
            // in the drone's boxes).
            let across = mesh.aabb().extents().amax();
            if across.is_nan() || across > MESH_SPAN_LIMIT {
                return Err(format!(
                    "{}: the mesh spans {across:e}, beyond the {MESH_SPAN_LIMIT:e} the demo's \
                     camera and drone can be placed around",
                    path.display()
                ));
            }
            Scene::from_mesh(mesh, &path.display().to_string(), up, size)
        }
    };
    let report = scene.mesh.report();
    println!("boxtree demo — {}", scene.description);
    println!(
        "  {} triangles, {} vertices, ready in {:.2} s",
        thousands(report.triangle_count),
        thousands(report.vertex_count),
        start.elapsed().as_secs_f64()
    );
    Ok(scene)
}

/// Both trees over the scene.
struct Trees {
    aabb: MeshTree<Aabb>,
    obb: MeshTree<PackedObb>,
}

fn build_trees(scene: &Scene) -> Trees {
    println!("\nTrees");
    println!(
        "  {:<36} {:>8} {:>9} {:>9} {:>6} {:>10} {:>9}",
        "", "build", "nodes", "leaves", "depth", "bytes/tri", "SAH cost"
    );
    let (aabb, time) = timed(|| {
        with_progress("building the AABB tree", || {
            MeshTree::<Aabb>::build(scene.mesh.clone(), &BuildOptions::sah())
        })
    });
    print_tree_row("AABB tree, BuildOptions::sah()", time, &aabb.bvh().stats());
    let (obb, time) = timed(|| {
        with_progress("building the OBB tree", || {
            MeshTree::<PackedObb>::build(scene.mesh.clone(), &BuildOptions::gottschalk())
        })
    });
    print_tree_row(
        "OBB tree, BuildOptions::gottschalk()",
        time,
        &obb.bvh().stats(),
    );

    let deepest = obb.bvh().depth().max(aabb.bvh().depth()) as usize;
    let depths: Vec<usize> = (0..=deepest).step_by(3).collect();
    let ratios = depths
        .iter()
        .map(|&d| cut_volume(obb.bvh(), d) / cut_volume(aabb.bvh(), d));
    println!("  total box volume of the tree cut at each depth, OBB tree / AABB tree:");
    println!(
        "    depth {}",
        depths.iter().map(|d| format!("{d:>6}")).collect::<String>()
    );
    println!(
        "    ratio {}",
        ratios.map(|r| format!("{r:>6.2}")).collect::<String>()
    );
    Trees { aabb, obb }
}

/// The targets and what the first camera position sees of them.
struct Sight {
    targets: Vec<Point>,
    first_frame: Vec<Visibility>,
}

/// Line of sight from every camera position to every target, with both trees.
fn check_line_of_sight(scene: &Scene, trees: &Trees, size: &SceneSize) -> Sight {
    let targets = scene.scatter_targets(&trees.aabb, size.targets, 99);
    // A target this close to a surface is not hidden by it.
    let sight = SightOptions::default().with_endpoint_margins(0.0, scene.radius() * 1e-3);
    println!(
        "\nLine of sight: {} targets, {} camera positions",
        thousands(targets.len()),
        scene.camera_path.len()
    );
    println!(
        "  {:>5}  {:>26}  {:>7}  {:>7}  {:>14}  {:>14}",
        "frame", "eye", "visible", "blocked", "AABB queries/s", "OBB queries/s"
    );
    let (mut aabb_time, mut obb_time) = (Duration::ZERO, Duration::ZERO);
    let mut agree = true;
    let mut first_frame = Vec::new();
    let bar = Bar::new("line of sight", scene.camera_path.len(), "frames");
    for (k, view) in scene.camera_path.iter().enumerate() {
        let (answers, ta) = timed(|| {
            let mut out = Vec::new();
            trees
                .aabb
                .line_of_sight_many(&view.eye, &targets, &sight, Threads::All, &mut out);
            out
        });
        let (obb_answers, to) = timed(|| {
            let mut out = Vec::new();
            trees
                .obb
                .line_of_sight_many(&view.eye, &targets, &sight, Threads::All, &mut out);
            out
        });
        agree &= answers
            .iter()
            .map(|a| a.is_visible())
            .eq(obb_answers.iter().map(|a| a.is_visible()));
        let visible = answers.iter().filter(|a| a.is_visible()).count();
        let blocked = answers
            .iter()
            .filter(|a| matches!(a, Visibility::Blocked(_)))
            .count();
        let e = view.eye;
        bar.row(format!(
            "  {k:>5}  {:>26}  {visible:>7}  {blocked:>7}  {:>14}  {:>14}",
            format!("({:.0}, {:.0}, {:.0})", e.x, e.y, e.z),
            rate(targets.len(), ta),
            rate(targets.len(), to)
        ));
        bar.step();
        (aabb_time, obb_time) = (aabb_time + ta, obb_time + to);
        if k == 0 {
            first_frame = answers;
        }
    }
    let total = targets.len() * scene.camera_path.len();
    println!(
        "  all frames: AABB {} queries/s, OBB {} queries/s; both trees agree on every target: {}",
        rate(total, aabb_time),
        rate(total, obb_time),
        if agree { "yes" } else { "NO" }
    );
    Sight {
        targets,
        first_frame,
    }
}

/// The drone's tree and whether it touched the scene at each step.
struct Flight {
    drone: MeshTree<Aabb>,
    touching: Vec<bool>,
}

/// Mesh-vs-mesh overlap at every step of the drone's flight, with OBB trees and with AABB trees.
fn fly_drone(scene: &Scene, trees: &Trees) -> Result<Flight, String> {
    let drone_aabb = MeshTree::<Aabb>::build(scene.mover.clone(), &BuildOptions::sah());
    let drone_obb = MeshTree::<PackedObb>::build(scene.mover.clone(), &BuildOptions::gottschalk());
    println!(
        "\nMesh overlap: a drone ({} triangles) flies through the scene in {} steps",
        scene.mover.len(),
        scene.sweep.len()
    );
    println!(
        "  {:>4}  {:>24}  {:>9}  {:>14}  {:>16}  {:>16}",
        "step", "position", "overlaps", "touching pairs", "OBB box tests", "AABB box tests"
    );
    let world = Isometry::identity();
    let (scene_obb, scene_aabb) = (trees.obb.placed(world), trees.aabb.placed(world));
    let mut touching = Vec::new();
    let (mut obb_time, mut aabb_time) = (Duration::ZERO, Duration::ZERO);
    for (k, pose) in scene.sweep.iter().enumerate() {
        let (drone_obb, drone_aabb) = (drone_obb.placed(*pose), drone_aabb.placed(*pose));
        let overlaps = scene_obb.overlaps(&drone_obb);
        let (mut obb_stats, mut aabb_stats) = (OverlapStats::default(), OverlapStats::default());
        let (pairs, t) = timed(|| scene_obb.touching_pairs(&drone_obb, None, Some(&mut obb_stats)));
        obb_time += t;
        let (aabb_pairs, t) =
            timed(|| scene_aabb.touching_pairs(&drone_aabb, None, Some(&mut aabb_stats)));
        aabb_time += t;
        if aabb_pairs != pairs || overlaps == pairs.is_empty() {
            return Err(format!(
                "step {k}: the OBB and AABB trees disagree on the touching pairs"
            ));
        }
        touching.push(overlaps);
        let p = pose.translation.vector;
        println!(
            "  {k:>4}  {:>24}  {:>9}  {:>14}  {:>16}  {:>16}",
            format!("({:.1}, {:.1}, {:.1})", p.x, p.y, p.z),
            if overlaps { "yes" } else { "no" },
            pairs.len(),
            thousands(obb_stats.volume_tests as usize),
            thousands(aabb_stats.volume_tests as usize)
        );
    }
    let steps = scene.sweep.len().max(1) as f64;
    println!(
        "  touching at {} of {} steps; all pairs per step: OBB trees {:.0} µs, AABB trees {:.0} µs (mean)",
        touching.iter().filter(|&&t| t).count(),
        scene.sweep.len(),
        obb_time.as_secs_f64() * 1e6 / steps,
        aabb_time.as_secs_f64() * 1e6 / steps
    );
    println!(
        "  (surfaces only: a drone wholly inside a closed mesh touches nothing; PlacedMesh::contact tells that case)"
    );
    Ok(Flight {
        drone: drone_aabb,
        touching,
    })
}

/// The scene with the first frame's targets, then the two trees' boxes over a close-up.
fn write_pictures(
    options: &Options,
    scene: &Scene,
    trees: &Trees,
    sight: &Sight,
    flight: &Flight,
) -> Result<(), String> {
    std::fs::create_dir_all(&options.out).map_err(|e| {
        format!(
            "{}: cannot create the directory: {e}",
            options.out.display()
        )
    })?;
    println!("\nPictures ({}x{})", options.width, options.height);
    let lighting = Lighting {
        haze_distance: 8.0 * scene.radius(),
        ..Lighting::daylight(scene.up)
    };
    let color_of = |id| material_color(scene.material(id));
    let camera = |view: &View| {
        Camera::look_at(
            view.eye,
            view.look_at,
            scene.up,
            50.0,
            options.width,
            options.height,
        )
    };

    // Every third drone pose, orange where it touches the scene.
    let drones: Vec<Instance<'_, Aabb>> = scene
        .sweep
        .iter()
        .zip(&flight.touching)
        .step_by(3)
        .map(|(pose, &touching)| Instance {
            placed: flight.drone.placed(*pose),
            color: if touching {
                [1.0, 0.35, 0.05]
            } else {
                [0.9, 0.9, 0.9]
            },
        })
        .collect();
    let first = camera(&scene.camera_path[0]);
    let (mut picture, time) = timed(|| {
        with_progress("rendering", || {
            render(&trees.aabb, color_of, &drones, &first, &lighting)
        })
    });
    draw_targets(&mut picture, &first, &sight.targets, &sight.first_frame);
    let path = options.out.join("render.png");
    write_png(&path, &picture)?;
    let pixels = (options.width * options.height) as usize;
    println!(
        "  {}  frame 0: targets green (visible) and red (blocked), drones orange where they touch; {:.2} s, {} primary rays/s",
        shown(&path),
        time.as_secs_f64(),
        rate(pixels, time)
    );

    let close = camera(&scene.close_up);
    let background = with_progress("rendering", || {
        render::<Aabb, Aabb>(&trees.aabb, color_of, &[], &close, &lighting)
    })
    .muted();
    // A file is one object: cut its trees at a depth. The town: where each box holds one building or dome.
    let depth = options.depth.or(options.mesh.is_some().then_some(6));
    let what = match depth {
        Some(depth) => format!("at depth {depth}"),
        None => "holding one building or dome each".to_string(),
    };
    let obb_boxes = picture_boxes(trees.obb.bvh(), scene, depth);
    let path = options.out.join("obb_tree.png");
    write_tree_picture(&path, &background, &close, &obb_boxes)?;
    println!(
        "  {}  OBB tree: {} boxes {what}, total volume {:.3e}",
        shown(&path),
        obb_boxes.len(),
        total_volume(&obb_boxes)
    );
    let aabb_boxes = picture_boxes(trees.aabb.bvh(), scene, depth);
    let path = options.out.join("aabb_tree.png");
    write_tree_picture(&path, &background, &close, &aabb_boxes)?;
    println!(
        "  {}  AABB tree: {} boxes {what}, total volume {:.3e}",
        shown(&path),
        aabb_boxes.len(),
        total_volume(&aabb_boxes)
    );
    Ok(())
}

fn print_tree_row(name: &str, time: Duration, stats: &TreeStats) {
    println!(
        "  {name:<36} {:>6.2} s {:>9} {:>9} {:>6} {:>10.1} {:>9.1}",
        time.as_secs_f64(),
        thousands(stats.nodes),
        thousands(stats.leaves),
        stats.depth,
        stats.bytes_per_triangle,
        stats.sah_cost
    );
}

fn material_color(material: Material) -> [Real; 3] {
    match material {
        Material::Ground => [0.13, 0.26, 0.05],
        Material::Building => [0.50, 0.45, 0.40],
        Material::Dome => [0.12, 0.22, 0.60],
        Material::Model => [0.45, 0.30, 0.18],
    }
}

/// The boxes of a tree picture, each with a colour number: the tree cut at
/// `depth`, or else where each box holds one object; only boxes near the
/// close-up's centre, and none that hold terrain alone.
fn picture_boxes<V: BoundingVolume>(
    bvh: &Bvh<V>,
    scene: &Scene,
    depth: Option<usize>,
) -> Vec<(V, usize)> {
    let cut = match depth {
        Some(depth) => cut_at_depth(bvh, depth),
        None => cut_by_label(bvh, |t| scene.object(t)),
    };
    cut.into_iter()
        .enumerate()
        .filter_map(|(k, id)| {
            let volume = bvh.node(id).volume;
            let triangles = subtree_triangles(bvh, id);
            let near =
                (volume.to_aabb().center() - scene.close_up.look_at).norm() <= scene.focus_radius;
            let terrain_only = triangles
                .iter()
                .all(|&t| scene.material(t) == Material::Ground);
            // One colour per object, so the pieces of one building match.
            let color = if depth.is_some() {
                k
            } else {
                scene.object(triangles[0])
            };
            (near && !terrain_only).then_some((volume, color))
        })
        .collect()
}

/// The boxes, each in its colour, over a copy of `background`.
fn write_tree_picture<V: Corners>(
    path: &Path,
    background: &Image,
    camera: &Camera,
    boxes: &[(V, usize)],
) -> Result<(), String> {
    let mut image = background.clone();
    for (volume, color) in boxes {
        draw_box(&mut image, camera, volume, palette(*color));
    }
    write_png(path, &image)
}

fn total_volume<V: BoundingVolume>(boxes: &[(V, usize)]) -> f64 {
    boxes.iter().map(|(v, _)| f64::from(v.volume())).sum()
}

/// Total volume of the boxes of the tree cut at `depth`.
fn cut_volume<V: BoundingVolume>(bvh: &Bvh<V>, depth: usize) -> f64 {
    cut_at_depth(bvh, depth)
        .iter()
        .map(|&id| f64::from(bvh.node(id).volume.volume()))
        .sum()
}

fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let result = work();
    (result, start.elapsed())
}

/// `count / time`, as `12.3 M` or `456 k`.
fn rate(count: usize, time: Duration) -> String {
    let per_second = count as f64 / time.as_secs_f64().max(1e-9);
    if per_second >= 1e6 {
        format!("{:.1} M", per_second / 1e6)
    } else {
        format!("{:.0} k", per_second / 1e3)
    }
}

/// A duration in microseconds, as `123 µs`.
fn micros(time: Duration) -> String {
    format!("{:.0} µs", time.as_secs_f64() * 1e6)
}

/// A size in bytes, as `12.3 MB` or `456 kB`.
fn bytes(n: usize) -> String {
    if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else {
        format!("{:.1} kB", n as f64 / 1e3)
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The path as the user can open it (absolute when possible).
fn shown(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}
