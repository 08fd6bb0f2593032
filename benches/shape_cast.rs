//! Shape casts through a mesh, boxtree beside parry3d (`query::cast_shapes`
//! of a `Ball`, `Capsule` or `Cuboid` against a `TriMesh`, the time of
//! impact capped at 1) on the same meshes and casts: spheres of three
//! sizes (0.2–0.5%, 0.5–3% and 3–10% of the box diagonal), capsules and
//! boxes, moved between random points around the mesh's box, on
//! `bunny.obj` (20,000 casts) and a million-triangle heightfield (2,000),
//! checked against each other before timing.
//!
//! Run in `benches/` with `cargo bench --bench shape_cast`. Each row prints µs per cast
//! and the speed-up over parry3d.

mod common;

use std::hint::black_box;

use boxtree::bvh::BoundingVolume;
use boxtree::math::{Isometry, Real, Rotation};
use boxtree::{Aabb, CastShape, ErrorBound, MeshTree, Obb, PackedObb, Segment, ShapeCast, TriMesh};
use common::{SplitMix, bench_items, parry_mesh, parry_pose, pp, pv};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use parry3d::query::{ShapeCastOptions, cast_shapes};

const CASTS: usize = 20_000;
const SAMPLES: usize = 10;

/// Which shapes a set of bench rows casts.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Spheres of this radius range, as fractions of the box diagonal.
    Spheres(Real, Real),
    Capsules,
    Boxes,
}

/// `count` casts from points around the mesh's box to others.
fn casts(mesh: &TriMesh, count: usize, seed: u64, kind: Kind) -> Vec<ShapeCast> {
    let bounds = mesh.aabb();
    let (centre, half) = (bounds.center(), bounds.half_extents());
    let diagonal = 2.0 * half.norm();
    let mut rng = SplitMix(seed);
    let mut at = move || centre + rng.vector(-1.2, 1.2).component_mul(&half);
    let mut sizes = SplitMix(seed + 1);
    (0..count)
        .map(|_| {
            let (start, end) = (at(), at());
            match kind {
                Kind::Spheres(lo, hi) => {
                    let radius = sizes.range(lo, hi) * diagonal;
                    ShapeCast::sphere_along(&Segment::new(start, end), radius)
                }
                Kind::Capsules => {
                    let radius = sizes.range(0.005, 0.02) * diagonal;
                    let axis = Segment::new(start, start + sizes.vector(-0.03, 0.03) * diagonal);
                    ShapeCast::capsule(axis, radius, end - start)
                }
                Kind::Boxes => {
                    let turn = *sizes.rotation().to_rotation_matrix().matrix();
                    let half = sizes.vector(0.005, 0.02) * diagonal;
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

/// One set of rows: parry3d's `cast_shapes` (its time of impact capped at
/// 1), then boxtree's closest and any hit on AABB and packed OBB trees.
fn bench_set(
    c: &mut Criterion,
    name: &str,
    mesh: &TriMesh,
    casts: &[ShapeCast],
    parry: &parry3d::shape::TriMesh,
) {
    let aabb = MeshTree::<Aabb>::new(mesh.clone());
    let obb = MeshTree::<PackedObb>::new(mesh.clone());
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
    // Both find the same first contacts, to the iterative solver's
    // tolerance. Where they differ by more, each side's contact is checked
    // with boxtree's exact mesh distance: how far apart the shape and the
    // mesh still are at that side's time.
    let (mut worst, mut disagree, mut hits): (Real, usize, usize) = (0.0, 0, 0);
    let (mut early, mut their_gap, mut our_gap): (usize, Real, Real) = (0, 0.0, 0.0);
    for (k, cast) in casts.iter().enumerate() {
        match (aabb.cast_closest_hit(cast), theirs(k)) {
            (Some(a), Some(b)) => {
                let difference = (a.time - b.time_of_impact).abs();
                worst = worst.max(difference);
                hits += 1;
                if difference > 1e-3
                    && let (Some(ours), Some(parry)) = (
                        gap_at(&aabb, cast, a.time),
                        gap_at(&aabb, cast, b.time_of_impact),
                    )
                {
                    our_gap = our_gap.max(ours);
                    if parry > 1e-4 {
                        early += 1;
                        their_gap = their_gap.max(parry);
                    }
                }
            }
            (None, None) => {}
            _ => disagree += 1,
        }
    }
    println!(
        "shape cast {name}: {} triangles, {} casts ({hits} hit); largest time difference from \
         parry3d {worst:.2e}, {disagree} verdicts differ; where the times differ by over 1e-3, \
         parry3d's contact leaves a gap at {early} casts (largest {their_gap:.2e}), boxtree's \
         at most {our_gap:.2e}",
        mesh.len(),
        casts.len()
    );
    type Run<'a> = Box<dyn FnMut() -> usize + 'a>;
    let runs: Vec<(&str, Run)> = vec![
        (
            "parry3d cast_shapes",
            Box::new(|| {
                (0..casts.len())
                    .filter(|&k| black_box(theirs(black_box(k))).is_some())
                    .count()
            }),
        ),
        ("aabb closest", cast_run(&aabb, casts, false)),
        ("aabb any", cast_run(&aabb, casts, true)),
        ("obb closest", cast_run(&obb, casts, false)),
        ("obb any", cast_run(&obb, casts, true)),
    ];
    let mut group = c.benchmark_group(format!("shape cast/{name}"));
    group
        .sample_size(SAMPLES)
        .throughput(Throughput::Elements(casts.len() as u64));
    let mut parry_ns = 0.0;
    for (label, mut run) in runs {
        let Some(ns) = bench_items(&mut group, SAMPLES, label, casts.len(), &mut run) else {
            continue;
        };
        if label.starts_with("parry3d") {
            parry_ns = ns;
            println!("shape cast {name} {label}: {:.2} us/cast", ns / 1e3);
        } else {
            println!(
                "shape cast {name} {label}: {:.2} us/cast, speed-up over parry3d {:.2}x",
                ns / 1e3,
                parry_ns / ns
            );
        }
    }
    group.finish();
}

/// How far a sphere's or capsule's surface still is from the mesh at
/// `time` of its cast (negative: overlapping), by boxtree's exact mesh
/// distance to the shape's core; `None` for boxes.
fn gap_at(tree: &MeshTree<Aabb>, cast: &ShapeCast, time: Real) -> Option<Real> {
    let shift = cast.motion * time;
    let (a, b, radius) = match cast.shape {
        CastShape::Sphere(s) => (s.center, s.center, s.radius),
        CastShape::Capsule { axis, radius } => (axis.a, axis.b, radius),
        _ => return None,
    };
    let core = TriMesh::new(vec![a + shift, b + shift, b + shift], vec![[0, 1, 2]]).ok()?;
    let core = MeshTree::<Aabb>::new(core);
    let at = Isometry::identity();
    let d = tree
        .placed(at)
        .distance(&core.placed(at), ErrorBound::EXACT)?;
    Some(d.distance - radius)
}

/// A row of boxtree casts, closest or any hit, counting the hits.
fn cast_run<'a, V: BoundingVolume>(
    tree: &'a MeshTree<V>,
    casts: &'a [ShapeCast],
    any: bool,
) -> Box<dyn FnMut() -> usize + 'a> {
    Box::new(move || {
        casts
            .iter()
            .filter(|cast| {
                let cast = black_box(*cast);
                if any {
                    black_box(tree.cast_any_hit(cast)).is_some()
                } else {
                    black_box(tree.cast_closest_hit(cast)).is_some()
                }
            })
            .count()
    })
}

fn shape_cast(c: &mut Criterion) {
    let bunny = TriMesh::load(common::data("bunny.obj")).expect("bunny loads");
    let parry = parry_mesh(&bunny);
    let sets = [
        ("bunny small spheres", Kind::Spheres(0.002, 0.005)),
        ("bunny medium spheres", Kind::Spheres(0.005, 0.03)),
        ("bunny large spheres", Kind::Spheres(0.03, 0.1)),
        ("bunny capsules", Kind::Capsules),
        ("bunny boxes", Kind::Boxes),
    ];
    for (name, kind) in sets {
        bench_set(c, name, &bunny, &casts(&bunny, CASTS, 7, kind), &parry);
    }
    // About a million triangles: fewer casts, parry3d taking up to a
    // millisecond for some.
    let terrain = TriMesh::terrain(707, 1000.0, 30.0, 5);
    let parry = parry_mesh(&terrain);
    for (name, kind) in [
        ("heightfield medium spheres", Kind::Spheres(0.005, 0.03)),
        ("heightfield capsules", Kind::Capsules),
    ] {
        bench_set(
            c,
            name,
            &terrain,
            &casts(&terrain, CASTS / 10, 9, kind),
            &parry,
        );
    }
}

criterion_group!(benches, shape_cast);
criterion_main!(benches);
