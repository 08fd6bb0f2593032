//! Shape casts through a mesh, boxtree beside parry3d (`query::cast_shapes`
//! of a `Ball`, `Capsule` or `Cuboid` against a `TriMesh`, with the time of impact
//! capped at 1) on the same meshes and casts: spheres, capsules and boxes of 1–5%
//! of the box diagonal moved across the mesh's box (camera booms and
//! projectiles), checked against each other before timing.
//!
//! Run with `cargo bench --bench shape_cast`. Each configuration prints a
//! `side-by-side` line with ns per cast and the speed-up over parry3d.

mod common;

use std::hint::black_box;

use boxtree::bvh::BoundingVolume;
use boxtree::math::{Isometry, Real, Rotation};
use boxtree::{Aabb, CastShape, MeshTree, Obb, PackedObb, Segment, ShapeCast, TriMesh};
use common::{SplitMix, parry_mesh, parry_pose, pp, pv, side_by_side};
use criterion::{Criterion, criterion_group, criterion_main};
use parry3d::query::{ShapeCastOptions, cast_shapes};

const CASTS: usize = 5_000;

/// Which shape a bench row casts.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Spheres,
    Capsules,
    Boxes,
}

/// Casts from points around the mesh's box to others, the shapes' sizes
/// 1–5% of the diagonal.
fn casts(mesh: &TriMesh, seed: u64, kind: Kind) -> Vec<ShapeCast> {
    let bounds = mesh.aabb();
    let (centre, half) = (bounds.center(), bounds.half_extents());
    let diagonal = 2.0 * half.norm();
    let mut rng = SplitMix(seed);
    let mut at = move || centre + rng.vector(-1.2, 1.2).component_mul(&half);
    let mut sizes = SplitMix(seed + 1);
    (0..CASTS)
        .map(|_| {
            let (start, end) = (at(), at());
            let radius = sizes.range(0.01, 0.05) * diagonal;
            match kind {
                Kind::Spheres => ShapeCast::sphere(start, radius, end - start),
                Kind::Capsules => {
                    let axis = Segment::new(start, start + sizes.vector(-0.05, 0.05) * diagonal);
                    ShapeCast::capsule(axis, radius, end - start)
                }
                Kind::Boxes => {
                    let turn = *sizes.rotation().to_rotation_matrix().matrix();
                    let half = sizes.vector(0.01, 0.05) * diagonal;
                    ShapeCast::obb(Obb::new(start, turn, half), end - start)
                }
            }
        })
        .collect()
}

/// parry3d's shape and pose for a cast, the shape in its own frame.
fn parry_cast(cast: &ShapeCast) -> (Box<dyn parry3d::shape::Shape>, parry3d::math::Pose) {
    match cast.shape {
        CastShape::Sphere(s) => (
            Box::new(parry3d::shape::Ball::new(s.radius)),
            parry3d::math::Pose::from_translation(pp(&s.center)),
        ),
        CastShape::Capsule { axis, radius } => (
            Box::new(parry3d::shape::Capsule::new(
                pp(&axis.a),
                pp(&axis.b),
                radius,
            )),
            parry3d::math::Pose::IDENTITY,
        ),
        CastShape::Box(b) => {
            let turn = Rotation::from_matrix(&b.axes);
            let pose = Isometry::from_parts(b.center.coords.into(), turn);
            (
                Box::new(parry3d::shape::Cuboid::new(pv(&b.half_extents))),
                parry_pose(&pose),
            )
        }
        _ => unreachable!("the bench casts spheres, capsules and boxes"),
    }
}

fn bench_kind<V: BoundingVolume>(
    c: &mut Criterion,
    name: &str,
    mesh: &TriMesh,
    casts: &[ShapeCast],
    parry: &parry3d::shape::TriMesh,
) {
    let tree = MeshTree::<V>::new(mesh.clone());
    let shapes: Vec<_> = casts.iter().map(parry_cast).collect();
    let options = ShapeCastOptions::with_max_time_of_impact(1.0);
    let identity = parry3d::math::Pose::IDENTITY;
    let theirs = |k: usize| {
        let (shape, pose) = &shapes[k];
        cast_shapes(
            pose,
            pv(&casts[k].motion),
            shape.as_ref(),
            &identity,
            parry3d::math::Vector::ZERO,
            parry,
            options,
        )
        .expect("supported")
    };
    // Both find the same first contacts, to the iterative solver's tolerance.
    let (mut worst, mut disagree): (Real, usize) = (0.0, 0);
    for (k, cast) in casts.iter().enumerate() {
        match (tree.cast_closest_hit(cast), theirs(k)) {
            (Some(a), Some(b)) => worst = worst.max((a.time - b.time_of_impact).abs()),
            (None, None) => {}
            _ => disagree += 1,
        }
    }
    println!(
        "shape cast {name}: {} triangles, {} casts; largest time difference from parry3d {worst:.2e}, \
         {disagree} verdicts differ",
        mesh.len(),
        casts.len()
    );
    side_by_side(
        c,
        &format!("shape cast/{name}/closest"),
        casts.len(),
        || {
            casts
                .iter()
                .filter(|cast| black_box(tree.cast_closest_hit(black_box(cast))).is_some())
                .count()
        },
        || {
            (0..casts.len())
                .filter(|&k| black_box(theirs(black_box(k))).is_some())
                .count()
        },
    );
    side_by_side(
        c,
        &format!("shape cast/{name}/any"),
        casts.len(),
        || {
            casts
                .iter()
                .filter(|cast| black_box(tree.cast_any_hit(black_box(cast))).is_some())
                .count()
        },
        || {
            (0..casts.len())
                .filter(|&k| black_box(theirs(black_box(k))).is_some())
                .count()
        },
    );
}

fn shape_cast(c: &mut Criterion) {
    let meshes = [
        (
            "bunny",
            TriMesh::load(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bunny.obj"))
                .expect("bunny loads"),
        ),
        ("terrain 80k", TriMesh::terrain(200, 100.0, 8.0, 5)),
    ];
    for (name, mesh) in &meshes {
        let parry = parry_mesh(mesh);
        for (kind, label) in [
            (Kind::Spheres, "spheres"),
            (Kind::Capsules, "capsules"),
            (Kind::Boxes, "boxes"),
        ] {
            let casts = casts(mesh, 7, kind);
            bench_kind::<Aabb>(c, &format!("{name} {label} aabb"), mesh, &casts, &parry);
            bench_kind::<PackedObb>(c, &format!("{name} {label} obb"), mesh, &casts, &parry);
        }
    }
}

criterion_group!(benches, shape_cast);
criterion_main!(benches);
