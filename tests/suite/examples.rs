//! Every example's main logic on small inputs, so `cargo test` runs them all:
//! the demo (small scene, tiny pictures, also on a mesh file), the focused
//! examples, and the error paths a user meets first (bad arguments, bad files).

// The demo and the render example share the renderer; here both live in one crate.
#![allow(clippy::duplicate_mod)]

#[allow(dead_code)]
#[path = "../../examples/demo/main.rs"]
mod demo;
#[allow(dead_code)]
#[path = "../../examples/line_of_sight.rs"]
mod line_of_sight;
#[allow(dead_code)]
#[path = "../../examples/load_and_build.rs"]
mod load_and_build;
#[allow(dead_code)]
#[path = "../../examples/mesh_overlap.rs"]
mod mesh_overlap;
#[allow(dead_code)]
#[path = "../../examples/render.rs"]
mod render_example;
#[allow(dead_code)]
#[path = "../../examples/scene.rs"]
mod scene_example;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const BUNNY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj");

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A fresh directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("examples")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch directory can be made");
    dir
}

/// Decodes an RGB PNG: (width, height, pixels).
fn read_png(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG header");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buffer).expect("one frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixels = buffer[..info.buffer_size()]
        .chunks_exact(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, pixels)
}

fn distinct_colors(pixels: &[[u8; 3]]) -> usize {
    pixels.iter().copied().collect::<HashSet<_>>().len()
}

#[test]
fn demo_small_run_writes_three_nonuniform_pictures() {
    let out = scratch("demo_small");
    demo::run(&args(&[
        "--small",
        "--size",
        "96x64",
        "--out",
        out.to_str().unwrap(),
    ]))
    .expect("the demo runs");
    for name in ["render.png", "obb_tree.png", "aabb_tree.png"] {
        let (w, h, pixels) = read_png(&out.join(name));
        assert_eq!((w, h), (96, 64), "{name}");
        assert!(distinct_colors(&pixels) >= 20, "{name} is nearly uniform");
    }
    let (_, _, render) = read_png(&out.join("render.png"));
    assert!(
        render.contains(&[40, 230, 70]) && render.contains(&[240, 40, 40]),
        "both target colours are drawn"
    );
}

#[test]
fn demo_runs_on_a_mesh_file() {
    let out = scratch("demo_mesh");
    // Values after `=` or as the next argument alike.
    let mesh = format!("--mesh={BUNNY}");
    demo::run(&args(&[
        &mesh,
        "--small",
        "--size=80x60",
        "--depth",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]))
    .expect("the demo runs on the bunny");
    let (_, _, pixels) = read_png(&out.join("obb_tree.png"));
    assert!(distinct_colors(&pixels) >= 20);
}

#[test]
fn demo_help_is_not_an_error() {
    demo::run(&args(&["--help"])).expect("help prints and succeeds");
}

#[test]
fn demo_rejects_bad_arguments_with_a_hint() {
    for bad in [
        &["--frobnicate"][..],
        &["--size", "12"],
        &["--size", "0x10"],
        &["--up", "w"],
        &["--depth", "-1"],
        &["--mesh"],
        &["--small=yes"],
        &["stray"],
    ] {
        let message = demo::run(&args(bad)).expect_err("a bad argument is an error");
        assert!(message.contains("--help"), "{bad:?}: {message}");
    }
}

#[test]
fn demo_reports_a_bad_mesh_file_with_its_name_and_line() {
    let dir = scratch("demo_bad_mesh");
    let bad = dir.join("broken.obj");
    std::fs::write(&bad, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 oops\n").unwrap();
    let message = demo::run(&args(&["--mesh", bad.to_str().unwrap(), "--small"]))
        .expect_err("the file is broken");
    assert!(message.contains("broken.obj:4"), "{message}");
    let missing = dir.join("missing.stl");
    let message =
        demo::run(&args(&["--mesh", missing.to_str().unwrap()])).expect_err("the file is missing");
    assert!(message.contains("missing.stl"), "{message}");
    // A valid mesh 1e20 across: the camera and drone placed around it left
    // f32's range (a hunt found the drone's boxes panicking).
    let huge = dir.join("huge.obj");
    let tetrahedron =
        "v 0 0 0\nv 1e20 0 0\nv 0 1e20 0\nv 0 0 1e20\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n";
    std::fs::write(&huge, tetrahedron).unwrap();
    let message = demo::run(&args(&["--mesh", huge.to_str().unwrap(), "--small"]))
        .expect_err("too wide to place a camera around");
    assert!(
        message.contains("huge.obj") && message.contains("spans"),
        "{message}"
    );
}

#[test]
fn load_and_build_runs_on_the_bunny_and_reports_missing_files() {
    load_and_build::run(&[]).expect("the default bunny loads");
    load_and_build::run(&args(&[BUNNY])).expect("the bunny loads by name");
    let message = load_and_build::run(&args(&["no/such/mesh.ply"])).expect_err("missing file");
    assert!(message.contains("no/such/mesh.ply"), "{message}");
}

#[test]
fn file_examples_print_help_and_name_bad_arguments() {
    load_and_build::run(&args(&["--help"])).expect("help is not an error");
    render_example::run(&args(&["-h"])).expect("help is not an error");
    let message = load_and_build::run(&args(&["--frobnicate"])).expect_err("unknown option");
    assert!(message.contains("--frobnicate"), "{message}");
    let message = load_and_build::run(&args(&[BUNNY, BUNNY])).expect_err("one file at most");
    assert!(message.contains("unexpected argument"), "{message}");
    let message = render_example::run(&args(&["a.obj", "b.png", "c"])).expect_err("two at most");
    assert!(message.contains("\"c\""), "{message}");
}

#[test]
fn line_of_sight_example_runs() {
    line_of_sight::run(&[]).expect("the example runs");
}

#[test]
fn mesh_overlap_example_runs() {
    mesh_overlap::run(&[]).expect("the example runs");
}

#[test]
fn render_example_writes_a_picture_of_the_mesh() {
    let out = scratch("render").join("bunny.png");
    render_example::run(&args(&[BUNNY, out.to_str().unwrap()])).expect("the example runs");
    let (w, h, pixels) = read_png(&out);
    assert_eq!((w, h), (800, 600));
    // Sky in the corners, the mesh (warm colours) in the middle.
    let at = |x: u32, y: u32| pixels[(y * w + x) as usize];
    for corner in [at(0, 0), at(w - 1, 0), at(0, h - 1), at(w - 1, h - 1)] {
        assert!(corner[2] > corner[0], "corner {corner:?} is not sky");
    }
    let warm = pixels.iter().filter(|p| p[0] > p[2]).count();
    assert!(warm > pixels.len() / 10, "the mesh covers {warm} pixels");
}

#[test]
fn scene_example_runs() {
    scene_example::tour().expect("the scene example runs");
}
