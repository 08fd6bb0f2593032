//! A scene in one page: instance a few meshes many times, move some of them
//! each frame, and ask the three questions of the whole world (and where a
//! camera on a boom may stand).
//!
//! `cargo run --release --example scene`

use std::sync::Arc;

use boxtree::math::{Isometry, Point, Vector};
use boxtree::{
    Aabb, CameraBoom, Filter, MeshTree, PackedObb, Scene, Segment, SightOptions, Threads, TriMesh,
};

#[path = "shared/command_line.rs"]
mod command_line;

#[allow(dead_code)] // The tests run `tour` itself.
fn main() -> Result<(), boxtree::SceneError> {
    command_line::quiet_on_closed_pipe();
    match command_line::no_arguments("usage: scene (no arguments): a town, drones, three questions")
    {
        Ok(false) => tour(),
        Ok(true) => Ok(()),
        Err(message) => {
            eprintln!("error: {message}");
            std::process::exit(2);
        }
    }
}

/// The whole flow.
pub fn tour() -> Result<(), boxtree::SceneError> {
    // Each distinct mesh is built once and shared by every copy (`Arc`).
    let house = Arc::new(MeshTree::<Aabb>::new(TriMesh::cuboid(
        Point::new(-4.0, -4.0, 0.0),
        Point::new(4.0, 4.0, 9.0),
    )));
    let drone = Arc::new(MeshTree::<PackedObb>::new(TriMesh::icosphere(
        Point::origin(),
        0.5,
        2,
    )));

    let mut scene = Scene::new();
    for i in 0..10 {
        for j in 0..10 {
            let at = Isometry::translation(20.0 * i as f32, 20.0 * j as f32, 0.0);
            scene.add(house.clone(), at)?;
        }
    }
    // Drones on their own layer, so queries can leave them out.
    let drones: Vec<_> = (0..20)
        .map(|k| {
            let id = scene.add(
                drone.clone(),
                Isometry::translation(10.0 * k as f32, 5.0, 8.0),
            )?;
            scene.set_layers(id, 0b10)?;
            Ok(id)
        })
        .collect::<Result<_, boxtree::SceneError>>()?;
    scene.update();

    for frame in 0..3 {
        // Move the drones (closer to the houses each frame), then let the
        // scene restore its top-level tree.
        for (k, &id) in drones.iter().enumerate() {
            let x = 10.0 * k as f32 + frame as f32;
            scene.set_pose(id, Isometry::translation(x, 4.8 - 0.5 * frame as f32, 8.0))?;
        }
        let report = scene.update();

        // 1. Line of sight from a street to each drone, past the buildings
        //    (the target drone must not hide itself: ignore its object).
        let eye = Point::new(10.0, -10.0, 1.7);
        let visible = drones
            .iter()
            .filter(|&&id| {
                let target = Point::from(scene.pose(id).expect("live").translation.vector);
                let filter = Filter::everything().ignoring([id]);
                scene
                    .line_of_sight(&eye, &target, &SightOptions::default(), &filter)
                    .is_visible()
            })
            .count();

        // 2. Where does a ray from the eye first hit a building (layer 1)?
        let look = Segment::new(eye, eye + Vector::new(60.0, 80.0, 5.0));
        let hit = scene.closest_hit(look, &Filter::layers(0b01));

        // 3. Which objects overlap, and which buildings does drone 0 touch?
        let pairs = scene.overlapping_pairs(&Filter::everything(), |_, _| false, Threads::All);
        let placed = drone.placed(scene.pose(drones[0]).expect("live"));
        let touched = scene.touching(&placed, &Filter::layers(0b01));

        // 4. A third-person camera on a boom from the eye, swung towards the
        //    nearest house: how far out may it stand before its 0.3 m lens
        //    touches a building?
        let boom = CameraBoom {
            pivot: eye,
            desired: eye + Vector::new(-8.0, 8.0, 2.0),
            radius: 0.3,
        };
        let stop = scene
            .camera_boom(&boom, &Filter::layers(0b01))
            .expect("finite boom");

        println!(
            "frame {frame}: rebuilt {}, {visible}/{} drones visible, first hit {:?}, {} overlapping pairs, drone 0 touches {}, camera boom {:.0}% free",
            report.rebuilt,
            drones.len(),
            hit.map(|h| (h.object.get(), h.hit.t)),
            pairs.len(),
            touched.len(),
            100.0 * stop.free
        );
    }
    Ok(())
}
