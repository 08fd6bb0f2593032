//! Mesh-vs-mesh overlap: a turning bar sweeps through a ball.
//! `cargo run --release --example mesh_overlap`
//!
//! Each mesh gets its tree once, in its own frame; a query places both with
//! rigid poses (`MeshTree::placed`), so moving an object costs nothing.
//! `overlaps` stops at the first touching triangle pair; `touching_pairs`
//! lists them all (sorted, optionally only the first `k`); `contact` also
//! tells a mesh lying wholly inside a closed one.

use std::process::ExitCode;

use boxtree::{
    BuildOptions, Contact, Isometry, MeshTree, PackedObb, Point, Real, Rotation, TriMesh, Vector,
};

#[path = "shared/command_line.rs"]
mod command_line;

fn main() -> ExitCode {
    command_line::quiet_on_closed_pipe();
    let given = command_line::no_arguments(
        "usage: mesh_overlap: two meshes under a sweep of poses, which triangles touch (no arguments)",
    );
    match given.and_then(|help| if help { Ok(()) } else { run(&[]) }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Sweeps the bar through the ball and prints the contacts of each step.
pub fn run(_args: &[String]) -> Result<(), String> {
    let ball = MeshTree::<PackedObb>::build(
        TriMesh::icosphere(Point::origin(), 1.0, 4),
        &BuildOptions::gottschalk(),
    );
    let bar = MeshTree::<PackedObb>::build(
        TriMesh::cuboid(Point::new(-1.5, -0.1, -0.1), Point::new(1.5, 0.1, 0.1)),
        &BuildOptions::gottschalk(),
    );
    println!(
        "ball: {} triangles, bar: {} triangles",
        ball.mesh().len(),
        bar.mesh().len()
    );

    let ball_here = ball.placed(Isometry::identity());
    println!(
        "{:>5}  {:>6}  {:>8}  {:>14}  first pairs (ball triangle, bar triangle)",
        "x", "turn", "overlaps", "touching pairs"
    );
    for step in 0..=10 {
        // The bar slides along x from -3 to 3, turning about z as it goes.
        let x = -3.0 + 0.6 * step as Real;
        let turn = 0.3 * step as Real;
        let pose = Isometry::from_parts(
            Vector::new(x, 0.3, 0.0).into(),
            Rotation::from_axis_angle(&Vector::z_axis(), turn),
        );
        let bar_there = bar.placed(pose);
        let overlaps = ball_here.overlaps(&bar_there);
        let all = ball_here.touching_pairs(&bar_there, None, None);
        let first: Vec<String> = ball_here
            .touching_pairs(&bar_there, Some(2), None)
            .iter()
            .map(|p| format!("({}, {})", p.a.0, p.b.0))
            .collect();
        println!(
            "{x:>5.1}  {turn:>6.1}  {:>8}  {:>14}  {}",
            if overlaps { "yes" } else { "no" },
            all.len(),
            first.join(" ")
        );
    }

    // Surfaces that do not touch do not overlap, even with one mesh inside the other.
    let pebble = MeshTree::<PackedObb>::build(
        TriMesh::icosphere(Point::origin(), 0.2, 2),
        &BuildOptions::gottschalk(),
    );
    let inside = pebble.placed(Isometry::translation(0.1, 0.2, 0.0));
    println!(
        "a pebble inside the ball: overlaps = {}, contact = {:?}",
        ball_here.overlaps(&inside),
        ball_here.contact(&inside)
    );
    if !matches!(ball_here.contact(&inside), Contact::Contained { .. }) {
        return Err("the pebble should be reported inside the ball".into());
    }
    Ok(())
}
