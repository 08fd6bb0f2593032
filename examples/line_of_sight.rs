//! Line of sight: which targets can the eye see past hills and a wall?
//! `cargo run --release --example line_of_sight`
//!
//! One eye, many targets: `line_of_sight_many` answers them all (in parallel
//! with the default `parallel` feature) in the targets' order.
//! `SightOptions` says what may be ignored: hits right at the target (a
//! target standing on the ground must not hide itself) or a set of triangles.

use std::process::ExitCode;

use boxtree::{
    Aabb, BuildOptions, MeshTree, Point, Ray, Real, Segment, SightOptions, Threads, TriMesh,
    TriangleId, Visibility,
};

#[path = "shared/command_line.rs"]
mod command_line;

fn main() -> ExitCode {
    command_line::quiet_on_closed_pipe();
    let given = command_line::no_arguments(
        "usage: line_of_sight: which targets one eye sees past hills and a wall (no arguments)",
    );
    match given.and_then(|help| if help { Ok(()) } else { run(&[]) }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Builds the little scene and prints what the eye sees.
pub fn run(_args: &[String]) -> Result<(), String> {
    // Rolling ground, 100 × 100, and a wall across it at x = 10.
    let ground = TriMesh::terrain(64, 100.0, 4.0, 1);
    let wall = TriMesh::cuboid(Point::new(10.0, -20.0, -10.0), Point::new(11.0, 20.0, 12.0));
    let wall_ids = (ground.len()..ground.len() + wall.len()).map(|i| TriangleId(i as u32));
    let tree = MeshTree::<Aabb>::build(ground.merged(&wall), &BuildOptions::sah());

    // Targets on the ground every 5 units: drop a ray onto the surface for each.
    let on_ground = |x: Real, y: Real| {
        let ray = Ray::new(Point::new(x, y, 100.0), -boxtree::Vector::z());
        tree.closest_hit(ray.span(0.0, Real::INFINITY))
            .map(|hit| ray.point_at(hit.t))
    };
    let targets: Vec<Point> = (-9..=9)
        .flat_map(|i| (-9..=9).map(move |j| (i as Real * 5.0, j as Real * 5.0)))
        .filter_map(|(x, y)| on_ground(x, y))
        .collect();
    let eye = Point::new(-45.0, 0.0, 12.0);

    // One target behind the wall: blocked, and by which triangle, and where.
    let behind = on_ground(30.0, 0.0).ok_or("no ground at (30, 0)")?;
    let margins = SightOptions::default().with_endpoint_margins(0.0, 0.01);
    match tree.line_of_sight(&eye, &behind, &margins) {
        Visibility::Blocked(triangle) => {
            let hit = tree
                .closest_hit(Segment::new(eye, behind))
                .ok_or("blocked, so there is a hit")?;
            let at = Segment::new(eye, behind).point_at(hit.t);
            println!(
                "target {behind:.1?}: blocked by triangle {} (first hit at {at:.1?})",
                triangle.0
            );
        }
        other => println!("target {behind:.1?}: {other:?}"),
    }

    // All targets at once, three ways.
    let count = |options: &SightOptions| {
        let mut answers = Vec::new();
        tree.line_of_sight_many(&eye, &targets, options, Threads::All, &mut answers);
        answers.iter().filter(|a| a.is_visible()).count()
    };
    let n = targets.len();
    println!("{n} targets lying on the ground, seen from {eye:.1?}; visible:");
    // A target computed on the surface sits within rounding of it, so the ground may "block" it.
    println!("  {:>3}  with no margins", count(&SightOptions::default()));
    println!(
        "  {:>3}  ignoring hits within 0.01 of the target",
        count(&margins)
    );
    let through_wall = margins.clone().ignoring(wall_ids);
    println!(
        "  {:>3}  ... and seeing through the wall",
        count(&through_wall)
    );
    Ok(())
}
