//! Scenes against two oracles: the flattened world (every instance's
//! triangles moved into world space and put into one `MeshTree`), exact on
//! poses whose transforms are exact; and the brute force over every object
//! (each object's own query on the span the scene hands it), exact on any
//! pose, which pins the top-level pruning and the merging of answers.

use crate::common;

use std::sync::Arc;

use boxtree::math::nalgebra::Translation3;
use boxtree::math::{Isometry, Point, Real, Rotation, Vector};
type Translation = Translation3<Real>;
use boxtree::{
    Aabb, CameraBoom, CastShape, Filter, MeshTree, Obb, ObjectId, ObjectPair, PackedObb, PairSet,
    PointQuery, RayHit, Region, Scene, SceneCastHit, SceneError, SceneHit, SceneMesh,
    SceneMeshCastHit, ScenePoint, SceneTriangle, Segment, ShapeCast, SightOptions, Sphere, Threads,
    TriMesh, TriangleId, Visibility,
};
use common::{SplitMix, collected};
use proptest::prelude::*;

/// `mesh` with every vertex rounded to a multiple of `2^-12`, so that
/// translations by multiples of `1/4` and half turns move it exactly.
fn on_grid(mesh: &TriMesh) -> TriMesh {
    let snap = |x: Real| (x * 4096.0).round() / 4096.0;
    let vertices = mesh
        .vertices()
        .iter()
        .map(|p| Point::new(snap(p.x), snap(p.y), snap(p.z)))
        .collect();
    TriMesh::new(vertices, mesh.indices().to_vec()).expect("valid")
}

/// A handful of distinct meshes: closed and open, smooth and spiky.
fn meshes() -> Vec<TriMesh> {
    [
        TriMesh::icosphere(Point::origin(), 1.0, 2),
        TriMesh::cuboid(Point::new(-0.5, -1.0, -0.25), Point::new(0.5, 1.0, 0.25)),
        TriMesh::random_soup(150, 1.0, 0.4, 7),
        TriMesh::terrain(6, 3.0, 0.5, 3),
    ]
    .iter()
    .map(on_grid)
    .collect()
}

/// Each mesh as an AABB tree and as an OBB tree, shared by every instance.
fn trees(meshes: &[TriMesh]) -> Vec<SceneMesh> {
    meshes
        .iter()
        .flat_map(|m| {
            [
                SceneMesh::Aabb(Arc::new(MeshTree::<Aabb>::new(m.clone()))),
                SceneMesh::Obb(Arc::new(MeshTree::<PackedObb>::new(m.clone()))),
            ]
        })
        .collect()
}

/// A pose whose transform is exact on grid meshes: a translation by
/// multiples of 1/4 and the identity or a half turn about an axis.
fn exact_pose(rng: &mut SplitMix, extent: Real) -> Isometry {
    let mut step = || (rng.range(-extent, extent) * 4.0).round() / 4.0;
    let t = Vector::new(step(), step(), step());
    let rotation = match rng.next_u64() % 4 {
        0 => Rotation::identity(),
        k => Rotation::from_axis_angle(
            &[Vector::x_axis(), Vector::y_axis(), Vector::z_axis()][k as usize - 1],
            std::f32::consts::PI,
        ),
    };
    Isometry::from_parts(Translation::from(t), exact_half_turn(rotation))
}

/// The half-turn quaternion with its components rounded to 0 and ±1
/// (`from_axis_angle` leaves `cos(π/2)` as `-4e-8`).
fn exact_half_turn(r: Rotation) -> Rotation {
    let q = r.quaternion();
    let round = |x: Real| x.round();
    Rotation::new_unchecked(boxtree::math::nalgebra::Quaternion::new(
        round(q.w),
        round(q.i),
        round(q.j),
        round(q.k),
    ))
}

/// Any rigid pose.
fn random_pose(rng: &mut SplitMix, extent: Real) -> Isometry {
    let t = Vector::new(
        rng.range(-extent, extent),
        rng.range(-extent, extent),
        rng.range(-extent, extent),
    );
    let q = boxtree::math::nalgebra::Quaternion::new(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    );
    Isometry::from_parts(Translation::from(t), Rotation::from_quaternion(q))
}

/// A scene of `count` instances of `trees`, posed by `pose`, on random layers.
fn scene(
    trees: &[SceneMesh],
    count: usize,
    seed: u64,
    pose: impl Fn(&mut SplitMix) -> Isometry,
) -> Scene {
    let mut rng = SplitMix(seed);
    let mut scene = Scene::new();
    for _ in 0..count {
        let mesh = trees[rng.next_u64() as usize % trees.len()].clone();
        let id = scene.add(mesh, pose(&mut rng)).expect("finite pose");
        scene
            .set_layers(id, 1 << (rng.next_u64() % 3))
            .expect("live");
    }
    scene.update();
    scene
}

/// The flattened world: every object's triangles in world space, in object
/// order, with the (object, triangle) of each flattened triangle.
fn flattened(scene: &Scene) -> (MeshTree<Aabb>, Vec<SceneTriangle>) {
    let (mut vertices, mut indices, mut names) = (Vec::new(), Vec::new(), Vec::new());
    for id in scene.ids() {
        let mesh = scene.mesh(id).expect("live").mesh();
        let pose = scene.pose(id).expect("live");
        let base = vertices.len() as u32;
        vertices.extend(mesh.vertices().iter().map(|v| pose * v));
        indices.extend(mesh.indices().iter().map(|t| t.map(|i| i + base)));
        names.extend((0..mesh.len() as u32).map(|t| SceneTriangle {
            object: id,
            triangle: TriangleId(t),
        }));
    }
    let mesh = TriMesh::new(vertices, indices).expect("valid world");
    (MeshTree::new(mesh), names)
}

/// Segments between points of a grid of step `2^-8` (exact under the
/// exact poses), a third of them aimed at an object's centre.
fn segments(scene: &Scene, count: usize, seed: u64, extent: Real) -> Vec<Segment> {
    let mut rng = SplitMix(seed);
    let ids: Vec<ObjectId> = scene.ids().collect();
    let snap = |x: Real| (x * 256.0).round() / 256.0;
    let point = |rng: &mut SplitMix| {
        Point::new(
            snap(rng.range(-extent, extent)),
            snap(rng.range(-extent, extent)),
            snap(rng.range(-extent, extent)),
        )
    };
    (0..count)
        .map(|k| {
            let a = point(&mut rng);
            let b = if k % 3 == 0 && !ids.is_empty() {
                let id = ids[rng.next_u64() as usize % ids.len()];
                let c = scene.world_box(id).expect("live").center();
                let d = (c - a) * 1.5;
                Point::new(snap(a.x + d.x), snap(a.y + d.y), snap(a.z + d.z))
            } else {
                point(&mut rng)
            };
            Segment::new(a, b)
        })
        .collect()
}

/// The brute force over objects: each accepted object's own closest hit on
/// the span the scene hands it, the best by `(t, object, triangle)`.
fn closest_by_objects(scene: &Scene, segment: &Segment, filter: &Filter) -> Option<SceneHit> {
    let mut best: Option<SceneHit> = None;
    for id in scene.ids() {
        if !filter.accepts(id, scene.layers(id).expect("live")) {
            continue;
        }
        let local = scene.local_span(id, segment).expect("live");
        let hit = match scene.mesh(id).expect("live") {
            SceneMesh::Aabb(t) => t.closest_hit(local),
            SceneMesh::Obb(t) => t.closest_hit(local),
        };
        if let Some(hit) = hit {
            let key = (hit.t, id, hit.triangle);
            if best.is_none_or(|b| key < (b.hit.t, b.object, b.hit.triangle)) {
                let rotation = scene.pose(id).expect("live").rotation;
                best = Some(SceneHit {
                    object: id,
                    hit: RayHit {
                        normal: rotation * hit.normal,
                        ..hit
                    },
                });
            }
        }
    }
    best
}

fn any_by_objects(scene: &Scene, segment: &Segment, filter: &Filter) -> bool {
    scene.ids().any(|id| {
        filter.accepts(id, scene.layers(id).expect("live")) && {
            let local = scene.local_span(id, segment).expect("live");
            match scene.mesh(id).expect("live") {
                SceneMesh::Aabb(t) => t.any_hit(local).is_some(),
                SceneMesh::Obb(t) => t.any_hit(local).is_some(),
            }
        }
    })
}

#[test]
fn exact_poses_answer_as_the_flattened_world() {
    let trees = trees(&meshes());
    let scene = scene(&trees, 24, 1, |rng| exact_pose(rng, 6.0));
    let (world, names) = flattened(&scene);
    let everything = Filter::everything();
    let (mut hits, mut checked) = (0, 0);
    for segment in segments(&scene, 100_000, 2, 8.0) {
        let ours = scene.closest_hit(segment, &everything);
        let theirs = world.closest_hit(segment);
        assert_eq!(
            ours.map(|h| (h.hit.t, h.triangle())),
            theirs.map(|h| (h.t, names[h.triangle.index()])),
            "{segment:?}"
        );
        if let (Some(o), Some(t)) = (ours, theirs) {
            assert!((o.hit.normal - t.normal).norm() < 1e-5);
            assert_eq!(o.hit.barycentric, t.barycentric);
            hits += 1;
        }
        assert_eq!(
            scene.any_hit(segment, &everything).is_some(),
            theirs.is_some()
        );
        if checked % 10 == 0 {
            let all: Vec<_> = scene
                .all_hits(segment, &everything)
                .iter()
                .map(|h| (h.hit.t, h.triangle()))
                .collect();
            let expected: Vec<_> = world
                .all_hits(segment)
                .iter()
                .map(|h| (h.t, names[h.triangle.index()]))
                .collect();
            assert_eq!(all, expected, "{segment:?}");
        }
        checked += 1;
    }
    assert!(hits > 15_000, "only {hits} hits");
}

#[test]
fn any_pose_answers_as_the_brute_force_over_objects() {
    let trees = trees(&meshes());
    let scene = scene(&trees, 40, 3, |rng| random_pose(rng, 8.0));
    let filters = [
        Filter::everything(),
        Filter::layers(0b101),
        Filter::everything().ignoring(scene.ids().step_by(3)),
    ];
    let mut hits = 0;
    for (k, segment) in segments(&scene, 100_000, 4, 10.0).iter().enumerate() {
        let filter = &filters[k % filters.len()];
        let ours = scene.closest_hit(segment, filter);
        assert_eq!(
            ours,
            closest_by_objects(&scene, segment, filter),
            "{segment:?}"
        );
        assert_eq!(
            scene.any_hit(segment, filter).is_some(),
            ours.is_some(),
            "{segment:?}"
        );
        if k % 10 == 0 {
            assert_eq!(
                any_by_objects(&scene, segment, filter),
                ours.is_some(),
                "{segment:?}"
            );
        }
        if let Some(found) = scene.any_hit(segment, filter) {
            assert!(filter.accepts(found.object, scene.layers(found.object).unwrap()));
        }
        hits += usize::from(ours.is_some());
    }
    assert!(hits > 15_000, "only {hits} hits");
}

#[test]
fn any_pose_stays_close_to_the_flattened_world() {
    // Rounded differently (the world moved into each object's frame, or the
    // object's vertices into the world): hits may differ only at grazing
    // incidence and near edges, and `t` by a few ulps of the coordinates.
    let trees = trees(&meshes());
    let scene = scene(&trees, 30, 5, |rng| random_pose(rng, 8.0));
    let (world, names) = flattened(&scene);
    let everything = Filter::everything();
    let (mut both, mut differ) = (0, 0);
    for segment in segments(&scene, 20_000, 6, 10.0) {
        match (
            scene.closest_hit(segment, &everything),
            world.closest_hit(segment),
        ) {
            (Some(o), Some(t)) => {
                both += 1;
                assert!(
                    (o.hit.t - t.t).abs() * segment.length() < 1e-4,
                    "{o:?} {t:?}"
                );
                differ += usize::from(o.triangle() != names[t.triangle.index()]);
            }
            (None, None) => {}
            _ => differ += 1,
        }
    }
    assert!(both > 3_000);
    assert!(differ * 1000 < both, "{differ} of {both} differ");
}

#[test]
fn batches_answer_as_single_queries_in_order() {
    let trees = trees(&meshes());
    let scene = scene(&trees, 30, 7, |rng| random_pose(rng, 8.0));
    let segments = segments(&scene, 3_000, 8, 10.0);
    let filter = Filter::layers(0b011);
    for threads in [Threads::All, Threads::Current] {
        let any = collected(|out| scene.segments_any_hit(&segments, &filter, threads, out));
        let single: Vec<_> = segments.iter().map(|s| scene.any_hit(s, &filter)).collect();
        assert_eq!(any, single);
        let rays: Vec<_> = segments.iter().map(Segment::to_ray).collect();
        let closest = collected(|out| scene.rays_closest_hit(&rays, 1.0, &filter, threads, out));
        let single: Vec<_> = segments
            .iter()
            .map(|s| scene.closest_hit(s.to_ray().span(0.0, 1.0), &filter))
            .collect();
        assert_eq!(closest, single);
        let eye = Point::new(0.5, 9.0, 0.25);
        let targets: Vec<Point> = segments.iter().map(|s| s.b).collect();
        let options = SightOptions::default().with_endpoint_margins(0.0, 0.01);
        let sight = collected(|out| {
            scene.line_of_sight_many(&eye, &targets, &options, &filter, threads, out)
        });
        let single: Vec<_> = targets
            .iter()
            .map(|t| scene.line_of_sight(&eye, t, &options, &filter))
            .collect();
        assert_eq!(sight, single);
        assert!(
            sight.iter().any(|v| v.is_visible()) && sight.iter().any(|v| v.blocker().is_some())
        );
    }
}

#[test]
fn line_of_sight_ignores_the_targets_own_object() {
    let ball = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 2));
    let mut scene = Scene::new();
    let target_ball = scene
        .add(ball.clone(), Isometry::translation(5.0, 0.0, 0.0))
        .unwrap();
    let wall = scene
        .add(ball, Isometry::translation(2.5, 0.0, 0.0))
        .unwrap();
    scene.update();
    let eye = Point::origin();
    let target = Point::new(5.0, 0.0, 0.0);
    let options = SightOptions::default();
    let blocked = scene.line_of_sight(
        &eye,
        &target,
        &options,
        &Filter::everything().ignoring([target_ball]),
    );
    assert_eq!(blocked.blocker().map(|b| b.object), Some(wall));
    let clear = Filter::everything().ignoring([target_ball, wall]);
    assert_eq!(
        scene.line_of_sight(&eye, &target, &options, &clear),
        Visibility::Visible
    );
    let nan = Point::new(Real::NAN, 0.0, 0.0);
    assert_eq!(
        scene.line_of_sight(&eye, &nan, &options, &clear),
        Visibility::Invalid
    );
    let nan_margin = SightOptions::default().with_endpoint_margins(0.0, Real::NAN);
    assert_eq!(
        scene.line_of_sight(&eye, &target, &nan_margin, &clear),
        Visibility::Invalid
    );
}

/// Random regions of every kind around the objects.
fn regions(count: usize, seed: u64, extent: Real) -> Vec<Region> {
    let mut rng = SplitMix(seed);
    (0..count)
        .map(|k| {
            let c = Point::new(
                rng.range(-extent, extent),
                rng.range(-extent, extent),
                rng.range(-extent, extent),
            );
            let h = Vector::new(
                rng.range(0.0, 1.5),
                rng.range(0.0, 1.5),
                rng.range(0.0, 1.5),
            );
            match k % 3 {
                0 => Region::Aabb(Aabb::new(c - h, c + h)),
                1 => Region::Obb(Obb::from_rotation(
                    c,
                    &random_pose(&mut rng, 0.0).rotation,
                    h,
                )),
                _ => Region::Sphere(Sphere::new(c, h.x)),
            }
        })
        .collect()
}

#[test]
fn region_queries_answer_as_every_object_and_the_flattened_world() {
    let trees = trees(&meshes());
    let posed = scene(&trees, 40, 9, |rng| random_pose(rng, 8.0));
    let exact = scene(&trees, 24, 10, |rng| exact_pose(rng, 6.0));
    let (world, names) = flattened(&exact);
    let filter = Filter::layers(0b110);
    let mut found = 0;
    for region in regions(2_000, 11, 8.0) {
        let ours = posed.triangles_overlapping(region, &filter);
        let mut expected = Vec::new();
        for id in posed
            .ids()
            .filter(|&id| filter.accepts(id, posed.layers(id).unwrap()))
        {
            let pose = posed.pose(id).unwrap();
            let triangles = match posed.mesh(id).unwrap() {
                SceneMesh::Aabb(t) => t.placed(pose).triangles_overlapping(region),
                SceneMesh::Obb(t) => t.placed(pose).triangles_overlapping(region),
            };
            expected.extend(triangles.into_iter().map(|triangle| SceneTriangle {
                object: id,
                triangle,
            }));
        }
        assert_eq!(ours, expected, "{region:?}");
        let mut objects: Vec<ObjectId> = expected.iter().map(|t| t.object).collect();
        objects.dedup();
        assert_eq!(posed.objects_overlapping(region, &filter), objects);
        found += ours.len();

        let flat: Vec<SceneTriangle> = world
            .triangles_overlapping(region)
            .into_iter()
            .map(|t| names[t.index()])
            .collect();
        assert_eq!(
            exact.triangles_overlapping(region, &Filter::everything()),
            flat,
            "{region:?}"
        );
    }
    assert!(found > 5_000, "only {found}");
}

fn touch(scene: &Scene, a: ObjectId, b: ObjectId) -> bool {
    let (pa, pb) = (scene.pose(a).unwrap(), scene.pose(b).unwrap());
    match (scene.mesh(a).unwrap(), scene.mesh(b).unwrap()) {
        (SceneMesh::Aabb(x), SceneMesh::Aabb(y)) => x.placed(pa).overlaps(&y.placed(pb)),
        (SceneMesh::Aabb(x), SceneMesh::Obb(y)) => x.placed(pa).overlaps(&y.placed(pb)),
        (SceneMesh::Obb(x), SceneMesh::Aabb(y)) => x.placed(pa).overlaps(&y.placed(pb)),
        (SceneMesh::Obb(x), SceneMesh::Obb(y)) => x.placed(pa).overlaps(&y.placed(pb)),
    }
}

#[test]
fn overlap_answers_as_every_object_and_every_pair() {
    let trees = trees(&meshes());
    let mut scene = scene(&trees, 60, 12, |rng| random_pose(rng, 5.0));
    let drone = MeshTree::<PackedObb>::new(TriMesh::icosphere(Point::origin(), 0.7, 1));
    let mut rng = SplitMix(13);
    let filter = Filter::layers(0b011);
    let mut touching = 0;
    for _ in 0..2_000 {
        let placed = drone.placed(random_pose(&mut rng, 6.0));
        let ours = scene.touching(&placed, &filter);
        let expected: Vec<ObjectId> = scene
            .ids()
            .filter(|&id| filter.accepts(id, scene.layers(id).unwrap()))
            .filter(|&id| {
                let pose = scene.pose(id).unwrap();
                match scene.mesh(id).unwrap() {
                    SceneMesh::Aabb(t) => placed.overlaps(&t.placed(pose)),
                    SceneMesh::Obb(t) => placed.overlaps(&t.placed(pose)),
                }
            })
            .collect();
        assert_eq!(ours, expected);
        touching += ours.len();
        let pairs = scene.touching_pairs(&placed, &filter, Some(3));
        let mut objects: Vec<ObjectId> = pairs.iter().map(|p| p.0).collect();
        objects.dedup();
        assert_eq!(objects, expected);
        for &(id, pair) in &pairs {
            let pose = scene.pose(id).unwrap();
            let first = match scene.mesh(id).unwrap() {
                SceneMesh::Aabb(t) => placed.touching_pairs(&t.placed(pose), Some(3), None),
                SceneMesh::Obb(t) => placed.touching_pairs(&t.placed(pose), Some(3), None),
            };
            assert!(first.contains(&pair));
        }
    }
    assert!(touching > 500, "only {touching}");

    let ids: Vec<ObjectId> = scene.ids().collect();
    for (k, &id) in ids.iter().enumerate() {
        scene.set_group(id, (k % 5 == 0).then_some(1)).unwrap();
    }
    let skip = |a: ObjectId, b: ObjectId| (a.get() + b.get()).is_multiple_of(7);
    let mut expected = Vec::new();
    for (i, &a) in ids.iter().enumerate() {
        for &b in &ids[i + 1..] {
            let accepted = filter.accepts(a, scene.layers(a).unwrap())
                && filter.accepts(b, scene.layers(b).unwrap());
            let grouped = scene.group(a).unwrap().is_some() && scene.group(a) == scene.group(b);
            if accepted && !grouped && !skip(a, b) && touch(&scene, a, b) {
                expected.push(ObjectPair { a, b });
            }
        }
    }
    assert!(expected.len() > 10, "only {} pairs", expected.len());
    for threads in [Threads::All, Threads::Current] {
        assert_eq!(scene.overlapping_pairs(&filter, skip, threads), expected);
    }
    // Without exclusions: every touching pair of the scene.
    for &id in &ids {
        scene.set_group(id, None).unwrap();
    }
    let mut every = Vec::new();
    for (i, &a) in ids.iter().enumerate() {
        every.extend(
            ids[i + 1..]
                .iter()
                .filter(|&&b| touch(&scene, a, b))
                .map(|&b| ObjectPair { a, b }),
        );
    }
    assert!(every.len() > 40, "only {} pairs", every.len());

    assert_eq!(
        scene.overlapping_pairs(&Filter::everything(), |_, _| false, Threads::All),
        every
    );

    // Kept from frame to frame: only moved objects are tested again.
    let mut kept = PairSet::new();
    scene.update_pairs(&mut kept, &filter, skip, Threads::Current);
    let mut rng = SplitMix(14);
    for frame in 0..20 {
        for _ in 0..6 {
            let id = ids[rng.next_u64() as usize % ids.len()];
            let pose = scene.pose(id).unwrap();
            let step = Vector::new(
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5),
            );
            scene
                .set_pose(
                    id,
                    Isometry::from_parts((pose.translation.vector + step).into(), pose.rotation),
                )
                .unwrap();
        }
        if frame % 3 == 0 {
            scene.update();
        }
        scene.update_pairs(&mut kept, &filter, skip, Threads::All);
        assert_eq!(
            kept.pairs(),
            scene.overlapping_pairs(&filter, skip, Threads::Current),
            "frame {frame}"
        );
    }
}

/// A pair touching within the rounding of a quarter turn: `overlaps`
/// answers it differently each way round, and an incremental pass that
/// tests the new object from its own (higher) id must still equal the full
/// pass, which tests from the lower id.
#[test]
fn incremental_pairs_equal_the_full_pass_for_pairs_touching_within_rounding() {
    let cube = Arc::new(MeshTree::<Aabb>::new(TriMesh::cuboid(
        Point::new(-1.0, -1.0, -1.0),
        Point::new(1.0, 1.0, 1.0),
    )));
    // A vertex at (0, 0, 1), turned onto the cube's face y = -1.
    let ball = Arc::new(MeshTree::<Aabb>::new(TriMesh::icosphere(
        Point::origin(),
        1.0,
        1,
    )));
    let turned = Isometry::rotation(Vector::new(std::f32::consts::FRAC_PI_2, 0.0, 0.0));
    let (at_cube, at_ball) = (cube.placed(Isometry::identity()), ball.placed(turned));
    assert_ne!(
        at_cube.overlaps(&at_ball),
        at_ball.overlaps(&at_cube),
        "the case no longer touches within rounding"
    );
    let mut scene = Scene::new();
    scene.add(cube.clone(), Isometry::identity()).unwrap();
    scene.update();
    let mut kept = PairSet::new();
    let everything = Filter::everything();
    scene.update_pairs(&mut kept, &everything, |_, _| false, Threads::Current);
    scene.add(ball.clone(), turned).unwrap();
    scene.update_pairs(&mut kept, &everything, |_, _| false, Threads::Current);
    let full = scene.overlapping_pairs(&everything, |_, _| false, Threads::Current);
    assert_eq!(kept.pairs(), &full[..]);
    assert_eq!(full.is_empty(), !at_cube.overlaps(&at_ball));
}

/// What `Scene::any_hit`'s docs advise for segments aimed at a point `p`
/// on a turned object's surface: the start mapped by `Scene::local_span`,
/// the end `p` itself, asked of the object's tree. It never misses (the
/// world segment to `pose * p` may, as documented).
#[test]
fn segments_ended_at_the_local_point_hit_turned_objects() {
    let cube = Arc::new(MeshTree::<Aabb>::new(TriMesh::cuboid(
        Point::new(-1.0, -1.0, -1.0),
        Point::new(1.0, 1.0, 1.0),
    )));
    let mut rng = SplitMix(41);
    for case in 0..2000 {
        let turn = Rotation::from_quaternion(boxtree::math::nalgebra::Quaternion::new(
            rng.range(-0.5, 0.5),
            rng.range(-0.5, 0.5),
            rng.range(-0.5, 0.5),
            rng.range(-0.5, 0.5),
        ));
        let shift = Vector::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0), 0.0);
        let pose = Isometry::from_parts(shift.into(), turn);
        let mut scene = Scene::new();
        let id = scene.add(cube.clone(), pose).unwrap();
        scene.update();
        // On the +x face, seen from outside it.
        let p = Point::new(1.0, rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        let world = Segment::new(pose * Point::new(4.0, 0.3, -0.2), pose * p);
        let local = scene.local_span(id, world).unwrap();
        let aimed = Segment::new(local.ray.origin, p);
        assert!(cube.any_hit(aimed).is_some(), "case {case}");
        assert_eq!(
            cube.closest_hit(aimed).map(|h| h.t),
            Some(1.0),
            "case {case}"
        );
    }
}

#[test]
fn edge_cases() {
    let ball = Arc::new(MeshTree::<Aabb>::new(TriMesh::icosphere(
        Point::origin(),
        1.0,
        1,
    )));
    let everything = Filter::everything();
    let through = Segment::new(Point::new(-5.0, 0.0, 0.0), Point::new(5.0, 0.0, 0.0));

    // Empty, before and after an update.
    let mut scene = Scene::new();
    assert!(scene.is_empty() && scene.closest_hit(through, &everything).is_none());
    scene.update();
    assert!(scene.any_hit(through, &everything).is_none());
    assert!(
        scene
            .overlapping_pairs(&everything, |_, _| false, Threads::Current)
            .is_empty()
    );

    // Found before the update that indexes it, and after.
    let one = scene.add(ball.clone(), Isometry::identity()).unwrap();
    assert_eq!(
        scene.any_hit(through, &everything).map(|h| h.object),
        Some(one)
    );
    assert!(scene.update().rebuilt);
    assert_eq!(
        scene.closest_hit(through, &everything).map(|h| h.object),
        Some(one)
    );

    // Removed: never hit, never named, its id not reused.
    let two = scene
        .add(ball.clone(), Isometry::translation(-2.5, 0.0, 0.0))
        .unwrap();
    scene.update();
    assert_eq!(
        scene.closest_hit(through, &everything).map(|h| h.object),
        Some(two)
    );
    scene.remove(two).unwrap();
    assert_eq!(
        scene.closest_hit(through, &everything).map(|h| h.object),
        Some(one)
    );
    assert!(
        scene
            .all_hits(through, &everything)
            .iter()
            .all(|h| h.object == one)
    );
    assert!(matches!(scene.remove(two), Err(SceneError::UnknownObject(id)) if id == two));
    let three = scene.add(ball.clone(), Isometry::identity()).unwrap();
    assert!(three != two && three != one);

    // NaN poses and queries.
    let nan = Isometry::translation(Real::NAN, 0.0, 0.0);
    assert!(matches!(
        scene.add(ball.clone(), nan),
        Err(SceneError::NonFinitePose { object: None })
    ));
    assert!(
        matches!(scene.set_pose(one, nan), Err(SceneError::NonFinitePose { object: Some(id) }) if id == one)
    );
    let bad = Segment::new(Point::new(Real::NAN, 0.0, 0.0), Point::origin());
    assert!(
        scene.any_hit(bad, &everything).is_none() && scene.closest_hit(bad, &everything).is_none()
    );
    assert!(scene.all_hits(bad, &everything).is_empty());

    // Deforming one instance leaves the other instances of its mesh alone.
    let scaled: Vec<Point> = ball.mesh().vertices().iter().map(|p| p * 0.5).collect();
    scene.set_vertices(one, scaled).unwrap();
    let t_one = scene.all_hits(through, &Filter::everything().ignoring([three]))[0]
        .hit
        .t;
    let t_three = scene.all_hits(through, &Filter::everything().ignoring([one]))[0]
        .hit
        .t;
    assert!(
        (t_one - 0.45).abs() < 1e-3 && (t_three - 0.4).abs() < 1e-2,
        "{t_one} {t_three}"
    );
    assert!(matches!(
        scene.set_vertices(one, vec![]),
        Err(SceneError::Mesh { .. })
    ));
}

#[test]
fn far_objects_with_small_triangles_are_hit_exactly_once_per_object() {
    // Centimetre triangles at 1e5 m: in world `f32` their vertices would be
    // 8 mm apart at best; in their own frames they keep full precision.
    let pebble = Arc::new(MeshTree::<Aabb>::new(TriMesh::icosphere(
        Point::origin(),
        0.01,
        2,
    )));
    let mut scene = Scene::new();
    let far = Vector::new(1.0e5, -1.0e5, 3.0e4);
    let ids: Vec<ObjectId> = (0..50)
        .map(|k| {
            let at = far + Vector::new(0.05 * k as Real, 0.0, 0.0);
            scene
                .add(
                    pebble.clone(),
                    Isometry::from_parts(at.into(), Rotation::identity()),
                )
                .unwrap()
        })
        .collect();
    scene.update();
    for (k, &id) in ids.iter().enumerate() {
        let c = far + Vector::new(0.05 * k as Real, 0.0, 0.0);
        let ray = boxtree::Ray::new(Point::from(c + Vector::new(0.0, 0.0, 1.0)), -Vector::z());
        let hit = scene
            .closest_hit(ray.span(0.0, 2.0), &Filter::everything())
            .expect("the pebble below");
        assert_eq!(hit.object, id);
        assert!((hit.hit.t - 0.99).abs() < 2e-3, "{}", hit.hit.t);
        assert!(hit.hit.normal.z > 0.9);
    }
}

#[test]
fn thousands_of_copies_at_one_spot() {
    let ball = Arc::new(MeshTree::<PackedObb>::new(TriMesh::icosphere(
        Point::origin(),
        1.0,
        1,
    )));
    let mut scene = Scene::new();
    for _ in 0..3_000 {
        scene.add(ball.clone(), Isometry::identity()).unwrap();
    }
    scene.update();
    // Off the icosphere's vertices, so each copy is crossed twice.
    let through = Segment::new(Point::new(-5.0, 0.1, 0.13), Point::new(5.0, 0.1, 0.13));
    let hit = scene.closest_hit(through, &Filter::everything()).unwrap();
    assert_eq!(hit.object.get(), 0, "ties go to the lowest object");
    assert_eq!(scene.all_hits(through, &Filter::everything()).len(), 6_000);
    assert!(
        scene.mesh_bytes() < 2 * ball.bytes() + 100_000,
        "stored once"
    );
    let pairs = scene.overlapping_pairs(
        &Filter::layers(1),
        |a, b| a.get() > 40 || b.get() > 40,
        Threads::All,
    );
    assert_eq!(pairs.len(), 41 * 40 / 2);
}

#[test]
fn a_scene_keeps_at_most_128_bytes_per_object_beside_its_meshes() {
    // The bench's town: 2,180 of 21 blocks 6–14 m wide and 8–30 m tall,
    // one per 20 m lot of a 47 × 47 grid, each turned about the vertical.
    // (The top level's fill, hence its size, depends on the layout: a
    // jittered grid of equal small props measures 140 bytes.)
    let mut rng = SplitMix(77);
    let blocks: Vec<Arc<MeshTree<Aabb>>> = (0..21)
        .map(|_| {
            let (w, d, h) = (
                rng.range(6.0, 14.0),
                rng.range(6.0, 14.0),
                rng.range(8.0, 30.0),
            );
            let min = Point::new(-w / 2.0, -d / 2.0, 0.0);
            Arc::new(MeshTree::new(TriMesh::cuboid(
                min,
                Point::new(w / 2.0, d / 2.0, h),
            )))
        })
        .collect();
    let mut scene = Scene::new();
    for k in 0..2_180u32 {
        let (i, j) = (k % 47, k / 47);
        let turn = Rotation::from_axis_angle(&Vector::z_axis(), rng.range(0.0, 6.3));
        let at = Vector::new(i as Real * 20.0, j as Real * 20.0, 0.0);
        let mesh = blocks[rng.next_u64() as usize % blocks.len()].clone();
        scene
            .add(mesh, Isometry::from_parts(at.into(), turn))
            .unwrap();
    }
    scene.update();
    let per_object = scene.bytes() as f64 / scene.len() as f64;
    assert!(
        per_object <= 128.0,
        "{} objects: {per_object:.1} bytes each",
        scene.len()
    );
}

/// One step of a scene's life.
#[derive(Clone, Debug)]
enum Step {
    Add { mesh: usize, seed: u64 },
    Remove(usize),
    Move { object: usize, seed: u64 },
    Deform { object: usize, scale: Real },
    Update,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0usize..8, any::<u64>()).prop_map(|(mesh, seed)| Step::Add { mesh, seed }),
        1 => (0usize..64).prop_map(Step::Remove),
        4 => (0usize..64, any::<u64>()).prop_map(|(object, seed)| Step::Move { object, seed }),
        1 => (0usize..64, 0.5f32..1.5).prop_map(|(object, scale)| Step::Deform { object, scale }),
        2 => Just(Step::Update),
    ]
}

/// The same objects, under the same ids, added to a new scene and built once.
fn rebuilt(scene: &Scene) -> Scene {
    let mut fresh = Scene::new();
    for id in scene.ids() {
        let (mesh, pose) = (scene.mesh(id).unwrap(), scene.pose(id).unwrap());
        // Ids are handed out in order: add and drop until this one's comes up.
        loop {
            let new = fresh.add(mesh.clone(), pose).unwrap();
            if new == id {
                fresh.set_layers(new, scene.layers(id).unwrap()).unwrap();
                break;
            }
            fresh.remove(new).unwrap();
        }
    }
    fresh.update();
    fresh
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_history_answers_as_a_scene_built_from_scratch(steps in proptest::collection::vec(step(), 1..40)) {
        let trees = trees(&meshes());
        let mut scene = Scene::new();
        // Kept across every step, updated incrementally.
        let mut kept = PairSet::new();
        let probe = {
            let mut rng = SplitMix(99);
            (0..300)
                .map(|_| Segment::new(
                    Point::new(rng.range(-9.0, 9.0), rng.range(-9.0, 9.0), rng.range(-9.0, 9.0)),
                    Point::new(rng.range(-9.0, 9.0), rng.range(-9.0, 9.0), rng.range(-9.0, 9.0)),
                ))
                .collect::<Vec<_>>()
        };
        for step in steps {
            let ids: Vec<ObjectId> = scene.ids().collect();
            let pick = |k: usize| (!ids.is_empty()).then(|| ids[k % ids.len()]);
            match step {
                Step::Add { mesh, seed } => {
                    scene.add(trees[mesh].clone(), random_pose(&mut SplitMix(seed), 6.0)).unwrap();
                }
                Step::Remove(k) => if let Some(id) = pick(k) { scene.remove(id).unwrap(); },
                Step::Move { object, seed } => if let Some(id) = pick(object) {
                    scene.set_pose(id, random_pose(&mut SplitMix(seed), 6.0)).unwrap();
                },
                Step::Deform { object, scale } => if let Some(id) = pick(object) {
                    let vertices = scene.mesh(id).unwrap().mesh().vertices().iter().map(|p| p * scale).collect();
                    scene.set_vertices(id, vertices).unwrap();
                },
                Step::Update => { scene.update(); }
            }
            let fresh = rebuilt(&scene);
            let everything = Filter::everything();
            for segment in &probe {
                prop_assert_eq!(scene.closest_hit(segment, &everything), fresh.closest_hit(segment, &everything));
                prop_assert_eq!(scene.any_hit(segment, &everything).is_some(), fresh.any_hit(segment, &everything).is_some());
            }
            let full = scene.overlapping_pairs(&everything, |_, _| false, Threads::Current);
            prop_assert_eq!(&full, &fresh.overlapping_pairs(&everything, |_, _| false, Threads::Current));
            scene.update_pairs(&mut kept, &everything, |_, _| false, Threads::All);
            prop_assert_eq!(kept.pairs(), &full[..]);
        }
    }
}

#[test]
fn scenes_are_shared_between_threads() {
    fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<Scene>();
    send_and_sync::<SceneMesh>();
}

/// Grazing rays (0.06° to 0.6°) on a 100 m square 2 km from the origin:
/// against the `f64` intersection of the given ray with the square's
/// plane, the scene's hit `t` is no worse than the same query on a single
/// mesh built in world space, and at least twice as good as an all-`f32`
/// change of frame (measured: 0.22 mm, 0.86 mm, 1.4 mm). `PlacedMesh`
/// answers exactly as the scene.
#[test]
fn grazing_hits_on_far_objects_keep_single_mesh_accuracy() {
    let square = TriMesh::new(
        vec![
            Point::new(-50.0, -50.0, 0.0),
            Point::new(50.0, -50.0, 0.0),
            Point::new(50.0, 50.0, 0.0),
            Point::new(-50.0, 50.0, 0.0),
        ],
        vec![[0, 1, 2], [0, 2, 3]],
    )
    .expect("valid");
    let mut rng = SplitMix(2026);
    let pose = Isometry::from_parts(Translation::new(1000.0, -2000.0, 500.0), rng.rotation());
    let tree = MeshTree::<Aabb>::new(square.clone());
    let mut scene = Scene::new();
    scene.add(tree.clone(), pose).unwrap();
    scene.update();
    let world: Vec<Point> = square.vertices().iter().map(|v| pose * v).collect();
    let flat = MeshTree::<Aabb>::new(TriMesh::new(world, square.indices().to_vec()).unwrap());

    // The square's plane in world space, in f64 from the f32 pose.
    let f64v = |v: Vector| [f64::from(v.x), f64::from(v.y), f64::from(v.z)];
    let normal = f64v(pose.rotation * Vector::z());
    let origin = f64v(pose.translation.vector);
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let (mut ours, mut single, mut composed) = (0.0f64, 0.0f64, 0.0f64);
    let mut count = 0;
    for _ in 0..2_000 {
        let angle = rng.range(1e-3, 1e-2);
        let heading = rng.range(0.0, std::f32::consts::TAU);
        let local_dir = Vector::new(
            angle.cos() * heading.cos(),
            angle.cos() * heading.sin(),
            -angle.sin(),
        );
        let local_hit = Point::new(rng.range(-40.0, 40.0), rng.range(-40.0, 40.0), 0.0);
        let ray = boxtree::Ray::new(
            pose * (local_hit - local_dir * 200.0),
            pose.rotation * local_dir,
        );
        let (o, d) = (f64v(ray.origin.coords), f64v(ray.direction));
        let t_exact = (dot(normal, origin) - dot(normal, o)) / dot(normal, d);
        let error = |t: Option<Real>| (f64::from(t.expect("hits")) - t_exact).abs();
        let span = ray.span(0.0, 1e4);
        let (Some(a), Some(b), Some(c)) = (
            scene
                .closest_hit(span, &Filter::everything())
                .map(|h| h.hit.t),
            flat.closest_hit(span).map(|h| h.t),
            // The all-`f32` change of frame, for comparison.
            tree.closest_hit(
                boxtree::Ray::new(
                    pose.inverse_transform_point(&ray.origin),
                    pose.inverse_transform_vector(&ray.direction),
                )
                .span(0.0, 1e4),
            )
            .map(|h| h.t),
        ) else {
            continue; // a ray that grazes past a corner
        };
        // A placed mesh changes frame as the scene does.
        assert_eq!(tree.placed(pose).closest_hit(span).map(|h| h.t), Some(a));
        ours += error(Some(a));
        single += error(Some(b));
        composed += error(Some(c));
        count += 1;
    }
    assert!(count > 1_500, "{count}");
    let mean = |sum: f64| sum / f64::from(count);
    println!(
        "mean t error: scene {:.3e}, single world mesh {:.3e}, f32 change of frame {:.3e}",
        mean(ours),
        mean(single),
        mean(composed)
    );
    assert!(
        mean(ours) <= mean(single) && 2.0 * mean(ours) <= mean(composed),
        "mean t error: scene {:.3e}, single world mesh {:.3e}, f32 change of frame {:.3e}",
        mean(ours),
        mean(single),
        mean(composed)
    );
}

#[test]
fn moves_before_an_update_are_seen_by_every_query() {
    // After moves and before `update`, queries see the path refits of the
    // top level (and `update` finds nothing to rebuild yet): answers must
    // equal the brute force over every object.
    let trees = trees(&meshes());
    let mut scene = scene(&trees, 40, 21, |rng| random_pose(rng, 8.0));
    let mut rng = SplitMix(22);
    let ids: Vec<ObjectId> = scene.ids().collect();
    for &id in ids.iter().step_by(4) {
        scene.set_pose(id, random_pose(&mut rng, 8.0)).unwrap();
    }
    let everything = Filter::everything();
    let mut hits = 0;
    for segment in segments(&scene, 20_000, 23, 10.0) {
        let ours = scene.closest_hit(segment, &everything);
        assert_eq!(
            ours,
            closest_by_objects(&scene, &segment, &everything),
            "{segment:?}"
        );
        assert_eq!(
            scene.any_hit(segment, &everything).is_some(),
            ours.is_some()
        );
        hits += usize::from(ours.is_some());
    }
    assert!(hits > 3_000, "only {hits}");
    // And after the update.
    scene.update();
    for segment in segments(&scene, 20_000, 24, 10.0) {
        let ours = scene.closest_hit(segment, &everything);
        assert_eq!(
            ours,
            closest_by_objects(&scene, &segment, &everything),
            "{segment:?}"
        );
    }
}

#[test]
fn segments_clipping_an_outermost_vertex_are_not_pruned_by_the_top_level() {
    // A segment that only clips the corner of a far, turned cuboid at its
    // extreme vertex (a chord a few ulps deep) must reach the object: the
    // world boxes of the top level are rounded in `f32`, and their padding
    // must cover that rounding (shrinking them by one ulp of their
    // coordinates fails this test). Chords just outside the corner miss.
    // Oracle: each object asked on its own.
    let cuboid = TriMesh::cuboid(Point::new(-0.5, -0.75, -1.0), Point::new(0.5, 0.75, 1.0));
    let tree = SceneMesh::Aabb(Arc::new(MeshTree::<Aabb>::new(cuboid.clone())));
    let mut rng = SplitMix(31);
    let mut scene = Scene::new();
    for _ in 0..200 {
        let mut pose = random_pose(&mut rng, 4.0);
        pose.translation.vector += Vector::new(3000.0, -2000.0, 1000.0);
        scene.add(tree.clone(), pose).expect("finite");
    }
    scene.update();
    let everything = Filter::everything();
    let (mut hits, mut segments) = (0, 0);
    for id in scene.ids().collect::<Vec<_>>() {
        let pose = scene.pose(id).expect("live").cast::<f64>();
        let world: Vec<_> = cuboid
            .vertices()
            .iter()
            .map(|v| pose * v.cast::<f64>())
            .collect();
        let centre = pose * Point::origin().cast::<f64>();
        for axis in 0..3 {
            for sign in [1.0, -1.0] {
                let v = world
                    .iter()
                    .max_by(|a, b| (sign * a[axis]).total_cmp(&(sign * b[axis])))
                    .expect("eight corners");
                let inward = (centre - v).normalize();
                let across = inward
                    .cross(&Vector::new(0.3, -0.5, 0.8).cast::<f64>())
                    .normalize();
                let ulp = f64::from(f32::EPSILON) * v.coords.amax();
                for depth in [-4.0, -1.0, 1.0, 2.0, 4.0, 8.0, 16.0] {
                    let p = v + inward * depth * ulp;
                    let a = (p - across * 0.01).cast::<Real>();
                    let b = (p + across * 0.01).cast::<Real>();
                    let segment = Segment::new(a, b);
                    let expected = any_by_objects(&scene, &segment, &everything);
                    assert_eq!(
                        scene.any_hit(segment, &everything).is_some(),
                        expected,
                        "{id:?} {segment:?}"
                    );
                    assert_eq!(
                        scene.closest_hit(segment, &everything),
                        closest_by_objects(&scene, &segment, &everything),
                        "{id:?} {segment:?}"
                    );
                    hits += usize::from(expected);
                    segments += 1;
                }
            }
        }
    }
    assert!(
        hits > segments / 4,
        "only {hits} of {segments} clip a corner"
    );
}

/// The nearest point over every object the filter accepts, each asked as a
/// placed mesh: ties to the lower object id.
fn closest_point_by_objects(
    scene: &Scene,
    query: PointQuery,
    filter: &Filter,
) -> Option<ScenePoint> {
    let mut best: Option<ScenePoint> = None;
    for id in scene.ids() {
        if !filter.accepts(id, scene.layers(id).expect("live")) {
            continue;
        }
        let pose = scene.pose(id).expect("live");
        let found = match scene.mesh(id).expect("live") {
            SceneMesh::Aabb(t) => t.placed(pose).closest_point(query),
            SceneMesh::Obb(t) => t.placed(pose).closest_point(query),
        };
        if let Some(projection) = found
            && best.is_none_or(|b| (projection.distance, id) < (b.projection.distance, b.object))
        {
            best = Some(ScenePoint {
                object: id,
                projection,
            });
        }
    }
    best
}

/// Rotations whose quaternions drifted from unit length (composed `f32`
/// rotations do) scale what an object answers in its frame by the drift,
/// where its world box does not, beyond the rounding the top level's
/// pruning allows for: a cuboid turned by a quaternion `(0.9999, 0, 0, 0)`
/// answered 1000.8 on its own, 0.1 nearer than a second cuboid the scene
/// then kept (its box 1001 away was pruned). The scene keeps such rotations
/// normalised, and its answers equal every object's own under the poses it
/// reports, also at the edge of the reach.
#[test]
fn drifted_rotations_are_kept_rigid() {
    let cuboid = SceneMesh::Aabb(Arc::new(MeshTree::new(TriMesh::cuboid(
        Point::new(-0.5, -0.1, -0.3),
        Point::new(0.5, 0.1, 0.3),
    ))));
    let drifted = |w: Real| {
        Rotation::new_unchecked(boxtree::math::nalgebra::Quaternion::new(w, 0.0, 0.0, 0.0))
    };
    for w in [0.999_999, 0.999_9, 1.000_1] {
        let mut scene = Scene::new();
        let turned = scene
            .add(
                cuboid.clone(),
                Isometry::from_parts(Translation::identity(), drifted(w)),
            )
            .unwrap();
        scene
            .add(cuboid.clone(), Isometry::translation(-2002.9, 0.0, 0.0))
            .unwrap();
        scene.update();
        let norm = scene.pose(turned).unwrap().rotation.quaternion().norm();
        assert!((norm - 1.0).abs() <= 4.0 * Real::EPSILON, "{w}: {norm}");
        let p = PointQuery::from(Point::new(-1001.5, 0.0, 0.0));
        let everything = Filter::everything();
        let found = scene.closest_point(p, &everything).expect("near");
        assert_eq!(
            Some(found),
            closest_point_by_objects(&scene, p, &everything),
            "{w}"
        );
    }
    // Random drifted poses, moved by `set_pose` too, against every object.
    let trees = trees(&meshes());
    let mut rng = SplitMix(77);
    let drift = |rng: &mut SplitMix, pose: Isometry| {
        let q = *pose.rotation.quaternion() * (1.0 + rng.range(-2e-4, 2e-4));
        Isometry::from_parts(pose.translation, Rotation::new_unchecked(q))
    };
    let mut scene = Scene::new();
    for k in 0..60 {
        let pose = random_pose(&mut rng, 10.0);
        scene
            .add(trees[k % trees.len()].clone(), drift(&mut rng, pose))
            .unwrap();
    }
    scene.update();
    let ids: Vec<ObjectId> = scene.ids().collect();
    for round in 0..2 {
        for _ in 0..2_000 {
            let everything = Filter::everything();
            let p = PointQuery::from(rng.point(15.0));
            let by_objects = closest_point_by_objects(&scene, p, &everything);
            assert_eq!(
                scene.closest_point(p, &everything),
                by_objects,
                "round {round} {p:?}"
            );
            // At the edge of the reach: the maximum distance is the answer.
            let Some(answer) = by_objects else { continue };
            let edge = PointQuery::within(p.point, answer.projection.distance);
            assert_eq!(
                scene.closest_point(edge, &everything),
                closest_point_by_objects(&scene, edge, &everything),
                "round {round} {edge:?}"
            );
        }
        for &id in ids.iter().step_by(3) {
            let pose = random_pose(&mut rng, 10.0);
            scene.set_pose(id, drift(&mut rng, pose)).unwrap();
        }
    }
}

#[test]
fn nearest_points_answer_as_every_object() {
    let trees = trees(&meshes());
    let mut scene = scene(&trees, 120, 41, |rng| random_pose(rng, 20.0));
    let mut rng = SplitMix(42);
    let filters = [
        Filter::everything(),
        Filter::layers(0b101),
        Filter::everything().ignoring(scene.ids().step_by(3).collect::<Vec<_>>()),
    ];
    for round in 0..2 {
        for k in 0..3_000 {
            let p = rng.point(30.0);
            let max_distance = if k % 3 == 0 {
                rng.range(0.0, 3.0)
            } else {
                Real::INFINITY
            };
            let query = PointQuery::within(p, max_distance);
            let filter = &filters[k % filters.len()];
            assert_eq!(
                scene.closest_point(query, filter),
                closest_point_by_objects(&scene, query, filter),
                "round {round} {query:?}"
            );
        }
        // Moves (queries between them and `update`), a removal, an addition.
        let ids: Vec<ObjectId> = scene.ids().collect();
        for &id in ids.iter().step_by(5) {
            scene.set_pose(id, random_pose(&mut rng, 20.0)).unwrap();
        }
        scene.remove(ids[7]).unwrap();
        scene
            .add(trees[0].clone(), random_pose(&mut rng, 20.0))
            .unwrap();
    }
    assert_eq!(
        scene.closest_point(Point::new(Real::NAN, 0.0, 0.0), &Filter::everything()),
        None
    );
    // Batches answer as single queries, in order.
    let points: Vec<Point> = (0..500).map(|_| rng.point(30.0)).collect();
    for threads in [Threads::All, Threads::Current] {
        let batch = collected(|out| scene.closest_points(&points, 5.0, &filters[1], threads, out));
        let single: Vec<_> = points
            .iter()
            .map(|p| scene.closest_point(PointQuery::within(*p, 5.0), &filters[1]))
            .collect();
        assert_eq!(batch, single);
        assert!(batch.iter().any(Option::is_some) && batch.iter().any(Option::is_none));
    }
    // Copies at one spot tie at every point: the lowest id answers.
    let mut copies = Scene::new();
    let pose = random_pose(&mut rng, 2.0);
    let ids: Vec<ObjectId> = (0..50)
        .map(|_| copies.add(trees[1].clone(), pose).unwrap())
        .collect();
    copies.update();
    for _ in 0..200 {
        let p = rng.point(4.0);
        let answer = copies
            .closest_point(p, &Filter::everything())
            .expect("near");
        assert_eq!(answer.object, ids[0]);
    }
    assert_eq!(
        Scene::new().closest_point(Point::origin(), &Filter::everything()),
        None
    );
}

/// The brute force over objects for casts: each accepted object's own
/// placed cast, the best by `(time, object, triangle)`.
fn cast_by_objects(scene: &Scene, cast: &ShapeCast, filter: &Filter) -> Option<SceneCastHit> {
    let mut best: Option<SceneCastHit> = None;
    for id in scene.ids() {
        if !filter.accepts(id, scene.layers(id).expect("live")) {
            continue;
        }
        let pose = scene.pose(id).expect("live");
        let hit = match scene.mesh(id).expect("live") {
            SceneMesh::Aabb(t) => t.placed(pose).cast_closest_hit(cast),
            SceneMesh::Obb(t) => t.placed(pose).cast_closest_hit(cast),
        };
        if let Some(hit) = hit {
            let key = (hit.time, id, hit.triangle);
            if best.is_none_or(|b| key < (b.hit.time, b.object, b.hit.triangle)) {
                best = Some(SceneCastHit { object: id, hit });
            }
        }
    }
    best
}

#[test]
fn casts_and_camera_booms_answer_as_every_object() {
    let trees = trees(&meshes());
    let mut scene = scene(&trees, 80, 91, |rng| random_pose(rng, 6.0));
    // One object added after the build: tested outside the top level.
    scene
        .add(trees[0].clone(), Isometry::translation(0.5, 0.25, 0.0))
        .expect("finite");
    let filters = [Filter::everything(), Filter::layers(0b011)];
    let mut rng = SplitMix(92);
    let (mut hits, mut starts) = (0, 0);
    let mut booms = Vec::new();
    for k in 0..600 {
        let start = Point::from(rng.vector(-7.0, 7.0));
        let motion = if k % 7 == 0 {
            Vector::zeros()
        } else {
            rng.vector(-8.0, 8.0)
        };
        let radius = rng.range(0.0, 0.8);
        let cast = if k % 3 == 0 {
            let axis = Segment::new(start, start + rng.vector(-1.0, 1.0));
            ShapeCast::capsule(axis, radius, motion)
        } else if k % 3 == 1 && k % 2 == 1 {
            let turn = *rng.rotation().to_rotation_matrix().matrix();
            ShapeCast::obb(Obb::new(start, turn, rng.vector(0.0, 0.6)), motion)
        } else {
            ShapeCast::sphere(start, radius, motion)
        };
        let filter = &filters[k % 2];
        let expected = cast_by_objects(&scene, &cast, filter);
        assert_eq!(scene.cast_closest_hit(&cast, filter), expected, "{cast:?}");
        let any = scene.cast_any_hit(&cast, filter);
        assert_eq!(any.is_some(), expected.is_some(), "{cast:?}");
        hits += usize::from(expected.is_some());
        starts += usize::from(expected.is_some_and(|h| h.hit.time == 0.0));
        if let ShapeCast {
            shape: CastShape::Sphere(s),
            ..
        } = cast
        {
            booms.push(CameraBoom {
                pivot: s.center,
                desired: s.center + motion,
                radius: s.radius,
            });
        }
    }
    assert!(hits > 150 && hits < 550, "{hits} of 600 hit");
    assert!(starts > 20 && starts < hits, "{starts} start in contact");
    // Booms: the cast's first contact, and the batch equals single calls.
    let filter = Filter::everything();
    let mut out = Vec::new();
    scene.camera_booms(&booms, &filter, Threads::All, &mut out);
    for (boom, stop) in booms.iter().zip(&out) {
        let stop = stop.expect("valid boom");
        assert_eq!(Some(stop), scene.camera_boom(boom, &filter));
        match scene.cast_closest_hit(&boom.cast(), &filter) {
            None => assert_eq!(
                (stop.position, stop.free, stop.blocker),
                (boom.desired, 1.0, None)
            ),
            Some(hit) => {
                assert_eq!(stop.free, hit.hit.time);
                assert_eq!(stop.blocker, Some(hit.triangle()));
                let expected = boom.pivot + (boom.desired - boom.pivot) * hit.hit.time;
                assert!((stop.position - expected).norm() <= 1e-6);
            }
        }
    }
    // Bad input answers nothing.
    let nan = ShapeCast::sphere(Point::new(Real::NAN, 0.0, 0.0), 0.5, Vector::x());
    assert_eq!(scene.cast_closest_hit(&nan, &filter), None);
    assert_eq!(scene.cast_any_hit(&nan, &filter), None);
    let bad_boom = CameraBoom {
        pivot: Point::origin(),
        desired: Point::new(1.0, 0.0, 0.0),
        radius: -1.0,
    };
    assert_eq!(scene.camera_boom(&bad_boom, &filter), None);
}

#[test]
fn moving_meshes_touch_the_scene_as_every_object() {
    let trees = trees(&meshes());
    let scene = scene(&trees, 40, 93, |rng| random_pose(rng, 6.0));
    let drone = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 0.4, 1));
    let filter = Filter::layers(0b101);
    let mut rng = SplitMix(94);
    let mut hits = 0;
    for _ in 0..150 {
        let pose = Isometry::from_parts(rng.vector(-7.0, 7.0).into(), rng.rotation());
        let motion = rng.vector(-8.0, 8.0);
        let placed = drone.placed(pose);
        // Each accepted object's own mesh sweep, the best by (time, object, pair).
        let mut expected: Option<SceneMeshCastHit> = None;
        for id in scene.ids() {
            if !filter.accepts(id, scene.layers(id).expect("live")) {
                continue;
            }
            let at = scene.pose(id).expect("live");
            let hit = match scene.mesh(id).expect("live") {
                SceneMesh::Aabb(t) => placed.cast_against(&motion, &t.placed(at)),
                SceneMesh::Obb(t) => placed.cast_against(&motion, &t.placed(at)),
            };
            if let Some(hit) = hit {
                let key = (hit.time, id, hit.triangles);
                if expected.is_none_or(|b| key < (b.hit.time, b.object, b.hit.triangles)) {
                    expected = Some(SceneMeshCastHit { object: id, hit });
                }
            }
        }
        assert_eq!(scene.cast_placed(&placed, &motion, &filter), expected);
        hits += usize::from(expected.is_some());
    }
    assert!(hits > 30 && hits < 140, "{hits} of 150 hit");
    let nan = Vector::new(0.0, Real::NAN, 0.0);
    assert_eq!(
        scene.cast_placed(&drone.placed(Isometry::identity()), &nan, &filter),
        None
    );
}

/// Objects farther than about 1.8e19 from the point: their boxes' squared
/// distances overflow `f32`, which left every box out of reach once one
/// object had answered, and the farther of two objects won. Before and
/// after the top level is built, and with a maximum distance between them.
#[test]
fn the_nearer_of_two_very_far_objects_is_the_closest() {
    let ball = SceneMesh::Aabb(std::sync::Arc::new(MeshTree::new(TriMesh::icosphere(
        Point::origin(),
        1.0,
        0,
    ))));
    let mut scene = Scene::new();
    let far = scene
        .add(ball.clone(), Isometry::translation(3e19, 0.0, 0.0))
        .expect("finite pose");
    let near = scene
        .add(ball, Isometry::translation(2e19, 0.0, 0.0))
        .expect("finite pose");
    for update in [false, true] {
        if update {
            scene.update();
        }
        let found = scene
            .closest_point(Point::origin(), &Filter::default())
            .expect("two objects");
        assert_eq!(found.object, near, "updated: {update}");
        assert!((found.projection.distance - 2e19).abs() <= 1e14);
        let within = scene.closest_point(
            PointQuery::within(Point::origin(), 2.5e19),
            &Filter::default(),
        );
        assert_eq!(within.map(|p| p.object), Some(near));
        assert_ne!(far, near);
    }
}

/// Objects whose coordinates reach 3e38: their world boxes' arithmetic
/// overflows to infinite bounds, which the top level's unused lanes (empty
/// boxes, +∞ to −∞) had met, so a pair pass read an object index of
/// 2^31 − 1 and panicked (found through the Python bindings).
#[test]
fn objects_near_the_largest_coordinates_never_panic_the_pair_passes() {
    for far in [1.7e38, 2e38, 3e38, 3.4e38] {
        let mesh = TriMesh::new(
            vec![
                Point::new(0.0, 0.0, 0.0),
                Point::new(far, 0.0, 0.0),
                Point::new(0.0, far, 0.0),
            ],
            vec![[0, 1, 2]],
        )
        .expect("finite");
        let tree = MeshTree::<Aabb>::new(mesh);
        let at = tree.placed(Isometry::identity());
        assert!(at.overlaps(&at), "{far}");
        assert!(!at.touching_pairs(&at, None, None).is_empty(), "{far}");
        let tree = SceneMesh::from(tree);
        let mut scene = Scene::new();
        let a = scene.add(tree.clone(), Isometry::identity()).unwrap();
        scene.add(tree, Isometry::identity()).unwrap();
        scene.update();
        scene.set_pose(a, Isometry::identity()).unwrap();
        let everything = Filter::everything();
        for threads in [Threads::Current, Threads::All] {
            let pairs = scene.overlapping_pairs(&everything, |_, _| false, threads);
            assert_eq!(pairs.len(), 1, "{far}: {pairs:?}");
            let mut kept = PairSet::new();
            scene.update_pairs(&mut kept, &everything, |_, _| false, threads);
        }
    }
}

/// Quaternions of any finite length are normalised (a norm of 1e20 or
/// 1e-25 squared out of `f32`'s normal range and was kept as given: its
/// NaN world box then hid other objects after an update, a review's
/// finding); a zero quaternion and placements beyond `f32`'s reach are
/// refused with typed errors, leaving the scene as it was.
#[test]
fn any_finite_rotation_is_normalised_and_unplaceable_poses_refused() {
    use boxtree::math::nalgebra::Quaternion;
    let ball = Arc::new(MeshTree::<Aabb>::new(TriMesh::icosphere(
        Point::origin(),
        1.0,
        1,
    )));
    let turned = |w: Real| {
        Isometry::from_parts(
            Translation3::new(0.0, 0.0, 0.0),
            Rotation::new_unchecked(Quaternion::new(w, 0.0, 0.0, 0.0)),
        )
    };
    for w in [1e20, 1e-25, Real::MAX, 3.0] {
        let mut scene = Scene::new();
        let (mut ids, mut odd_id) = (Vec::new(), None);
        for i in 0..9usize {
            if i == 5 {
                let odd = scene
                    .add(ball.clone(), turned(w))
                    .expect("finite, non-zero");
                odd_id = Some(odd);
                let q = scene.pose(odd).expect("live").rotation;
                assert!((q.quaternion().norm() - 1.0).abs() < 1e-6, "{w}: {q:?}");
            }
            let c = Point::new(
                ((i * 7) % 13) as Real * 3.0,
                ((i * 5) % 11) as Real * 3.0,
                ((i * 3) % 7) as Real * 3.0,
            );
            ids.push(
                scene
                    .add(ball.clone(), Isometry::translation(c.x, c.y, c.z))
                    .unwrap(),
            );
        }
        scene.update();
        let down = Segment::new(Point::new(0.0, 0.0, 1.5), Point::new(0.0, 0.0, -1.5));
        let others = Filter::everything().ignoring(odd_id);
        let hit = scene.closest_hit(down, &others);
        assert_eq!(hit.map(|h| h.object), Some(ids[0]), "{w}");
        let near = scene.closest_point(Point::new(0.0, 0.0, 1.5), &others);
        assert!(
            near.is_some_and(|n| (n.projection.distance - 0.5).abs() < 0.05),
            "{w}: {near:?}"
        );
    }
    let mut scene = Scene::new();
    assert!(matches!(
        scene.add(ball.clone(), turned(0.0)),
        Err(SceneError::ZeroRotation { object: None })
    ));
    let id = scene.add(ball.clone(), Isometry::identity()).unwrap();
    assert!(matches!(
        scene.set_pose(id, turned(0.0)),
        Err(SceneError::ZeroRotation { object: Some(_) })
    ));
    // A mesh reaching 3e38 placed 3e38 out: its world box's centre and
    // reach overflow, and a NaN bound spoiled the top level for every
    // other object; it is unbounded instead.
    let far_mesh = TriMesh::new(
        vec![
            Point::new(3e38, 0.0, 0.0),
            Point::new(0.0, 1.0, 0.0),
            Point::new(0.0, 0.0, 1.0),
        ],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let far = Arc::new(MeshTree::<Aabb>::new(far_mesh));
    let placed_far = scene
        .add(far, Isometry::translation(3e38, 0.0, 0.0))
        .unwrap();
    let placed = scene
        .add(ball.clone(), Isometry::translation(9.0, 0.0, 0.0))
        .unwrap();
    scene.update();
    let around = |c: Point| Region::from(Sphere::new(c, 1.001));
    let found = scene.objects_overlapping(around(Point::new(9.0, 0.0, 0.0)), &Filter::everything());
    assert!(found.contains(&placed), "{found:?}");
    let found = scene.objects_overlapping(around(Point::origin()), &Filter::everything());
    assert!(found.contains(&id), "{found:?}");
    let ball_hit = scene.closest_hit(
        Segment::new(Point::new(9.0, 0.0, 5.0), Point::new(9.0, 0.0, -5.0)),
        &Filter::everything().ignoring([placed_far]),
    );
    assert_eq!(ball_hit.map(|h| h.object), Some(placed));
}
