//! Raycast a picture of any mesh file:
//! `cargo run --release --example render -- [FILE [OUT.png]]`
//! (default: the bunny, written to `target/render/bunny.png`).
//!
//! One closest-hit ray per pixel on an AABB tree, shaded by the hit normal,
//! with shadow rays toward the sun (see `demo/render.rs`). The up axis is z
//! for STL files (the CAD habit) and y otherwise.

#[path = "demo/cli.rs"]
mod cli;
#[path = "demo/png_file.rs"]
mod png_file;
#[path = "demo/render.rs"]
#[allow(dead_code)]
mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use boxtree::{Aabb, BuildOptions, MeshTree, TriMesh, Vector};

use self::render::{Camera, Lighting};

#[path = "shared/command_line.rs"]
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

const HELP: &str = "\
Raycasts a picture of a mesh file, shaded by the hit normal, with shadows.

Usage: render [FILE [OUT.png]]

  FILE          a mesh (.obj, .stl, .ply); default: the bunny
  OUT.png       the picture; default: target/render/NAME.png
  -h, --help    print this help";

/// Renders the file named on the command line (or the bunny) to the second
/// name (or `target/render/NAME.png`).
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(files) = cli::positional(args, 2)? else {
        cli::print_help(HELP);
        return Ok(());
    };
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj");
    let input = Path::new(files.first().map_or(bunny, String::as_str));
    let output = match files.get(1) {
        Some(out) => PathBuf::from(out),
        None => {
            let name = input.file_stem().unwrap_or_default().to_string_lossy();
            Path::new("target/render").join(format!("{name}.png"))
        }
    };

    let mesh = TriMesh::load(input).map_err(|e| e.to_string())?;
    let stl = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("stl"));
    let up = if stl { Vector::z() } else { Vector::y() };
    let tree = MeshTree::<Aabb>::build(mesh, &BuildOptions::sah());

    // Frame the bounding sphere of the box: distance r / sin(fov / 2), from the front-left and a little above.
    let bounds = tree.mesh().aabb();
    let radius = bounds.half_extents().norm();
    let fov: f32 = 40.0;
    let distance = radius / (fov.to_radians() / 2.0).sin() * 0.9;
    let side = if up.x.abs() < 0.9 {
        Vector::x()
    } else {
        Vector::y()
    };
    let toward = (side * 0.6 - up.cross(&side) * 0.8 + up * 0.45).normalize();
    let camera = Camera::look_at(
        bounds.center() + toward * distance,
        bounds.center(),
        up,
        fov,
        800,
        600,
    );

    let start = Instant::now();
    let image = render::render::<Aabb, Aabb>(
        &tree,
        |_| [0.45, 0.30, 0.18],
        &[],
        &camera,
        &Lighting::daylight(up),
    );
    let seconds = start.elapsed().as_secs_f64();
    if let Some(folder) = output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder)
            .map_err(|e| format!("{}: cannot create the directory: {e}", folder.display()))?;
    }
    png_file::write_png(&output, &image)?;
    println!(
        "{}: {} triangles, {}x{} pixels in {:.0} ms → {}",
        input.display(),
        tree.mesh().len(),
        image.width,
        image.height,
        seconds * 1e3,
        output.display()
    );
    Ok(())
}
