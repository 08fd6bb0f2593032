//! Load a mesh file and build both trees over it:
//! `cargo run --release --example load_and_build -- [FILE]` (default: the bunny).
//!
//! Loading validates the mesh once (errors name the file and line), so every
//! later query can trust it. The AABB tree (binned SAH) is the one for
//! rays; the OBB tree (Gottschalk's mean split, one triangle per leaf) is
//! the classic for mesh-vs-mesh overlap. Last, the AABB tree is saved and
//! loaded back (`to_saved_bytes`, `from_saved_bytes`), as a game bakes its
//! level's trees offline.

#[path = "demo/cli.rs"]
mod cli;

use std::process::ExitCode;
use std::time::Instant;

use boxtree::bvh::TreeStats;
use boxtree::{Aabb, BuildOptions, MeshTree, PackedObb, TriMesh};

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
Loads a mesh file and builds both trees over it.

Usage: load_and_build [FILE]

  FILE          a mesh (.obj, .stl, .ply); default: the bunny
  -h, --help    print this help";

/// Loads the file named on the command line (or the bunny) and prints what
/// the mesh and its trees look like.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(files) = cli::positional(args, 1)? else {
        cli::print_help(HELP);
        return Ok(());
    };
    let bunny = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj");
    let path = files.first().map_or(bunny, String::as_str);

    let mesh = TriMesh::load(path).map_err(|e| e.to_string())?;
    let report = mesh.report();
    println!("{path}");
    println!(
        "  {} triangles ({} degenerate), {} vertices ({} unused), surface area {:.4}",
        report.triangle_count,
        report.degenerate_triangles,
        report.vertex_count,
        report.unused_vertices,
        report.surface_area
    );
    let bounds = mesh.aabb();
    println!(
        "  bounds {:?} .. {:?}",
        bounds.min.coords.as_slice(),
        bounds.max.coords.as_slice()
    );

    let start = Instant::now();
    let aabb_tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    print_stats(
        "AABB tree (BuildOptions::sah())",
        start.elapsed().as_secs_f64(),
        &aabb_tree.bvh().stats(),
    );

    let start = Instant::now();
    let obb_tree = MeshTree::<PackedObb>::build(mesh, &BuildOptions::gottschalk());
    print_stats(
        "OBB tree (BuildOptions::gottschalk())",
        start.elapsed().as_secs_f64(),
        &obb_tree.bvh().stats(),
    );

    // Every box bounds its triangles, every triangle is in exactly one leaf.
    aabb_tree
        .bvh()
        .validate(aabb_tree.mesh())
        .map_err(|e| format!("AABB tree: {e:?}"))?;
    obb_tree
        .bvh()
        .validate(obb_tree.mesh())
        .map_err(|e| format!("OBB tree: {e:?}"))?;
    println!("both trees validated");

    // Bake once, load many times: the saved form holds the query-ready
    // tree, so loading copies and checks instead of building.
    let bytes = aabb_tree.to_saved_bytes();
    let start = Instant::now();
    let loaded = MeshTree::<Aabb>::from_saved_bytes(&bytes).map_err(|e| e.to_string())?;
    println!(
        "saved AABB tree: {:.1} bytes per triangle, loaded and checked in {:.1} ms",
        bytes.len() as f64 / loaded.mesh().len() as f64,
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}

fn print_stats(name: &str, seconds: f64, stats: &TreeStats) {
    println!("{name}: built in {:.1} ms", seconds * 1e3);
    println!(
        "  {} nodes, {} leaves, depth {}, {:.1} bytes per triangle, SAH cost {:.1}",
        stats.nodes, stats.leaves, stats.depth, stats.bytes_per_triangle, stats.sah_cost
    );
    let sizes: Vec<String> = stats
        .leaf_sizes
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{n}×{k}"))
        .collect();
    println!("  leaves by triangle count: {}", sizes.join(", "));
}
