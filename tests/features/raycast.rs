//! Ray and segment queries against brute force over every triangle, on
//! procedural meshes and the meshes in tests/data, with AABB and OBB trees.
//!
//! The oracle tests every triangle with the same watertight primitive, so
//! hit/miss and `t` must agree exactly: any difference is a traversal bug
//! (a box that wrongly culls, a stack entry wrongly dropped). Set
//! `BOXTREE_LONG_TESTS=1` for 10x more segments.

use crate::common;

use boxtree::bvh::{BoundingVolume, BuildOptions, SplitRule, SplitSearch};
use boxtree::intersect::{FaceCulling, WatertightRay, segment_triangle};
use boxtree::{
    Aabb, Isometry, MeshTree, Obb, PackedObb, Point, Ray, Real, Segment, SightOptions, Sphere,
    Threads, TriMesh, Triangle, TriangleId, Vector, Visibility,
};
use common::{SplitMix, collected, data_mesh, twisted_vertices};
use proptest::prelude::*;

/// The meshes every raycast oracle runs on, by name.
const MESHES: [&str; 7] = [
    "bunny",
    "env",
    "rob",
    "icosphere",
    "terrain",
    "soup",
    "city",
];

fn mesh(name: &str) -> TriMesh {
    match name {
        "bunny" | "env" | "rob" => data_mesh(&format!("{name}.obj")),
        "icosphere" => TriMesh::icosphere(Point::new(0.5, -0.25, 2.0), 3.0, 3),
        "terrain" => TriMesh::terrain(30, 50.0, 4.0, 11),
        "soup" => TriMesh::random_soup(2000, 5.0, 1.0, 12),
        // Thin walls, railings, long roof and ground triangles.
        "city" => TriMesh::city(1, 5),
        _ => panic!("no test mesh is named {name}"),
    }
}

fn meshes() -> Vec<(&'static str, TriMesh)> {
    MESHES.iter().map(|&name| (name, mesh(name))).collect()
}

fn segment_count() -> usize {
    common::long_or(1_000_000, 100_000)
}

/// A mesh's triangles beside their boxes, for the brute force: the box
/// filter reads six floats a triangle per segment, with no min/max to
/// compute (after the mesh's own box, recomputed per hit, went, the filter
/// held two thirds of the bunny oracle's samples).
struct BruteForce {
    triangles: Vec<Triangle>,
    boxes: Vec<[Real; 6]>,
}

impl BruteForce {
    fn new(mesh: &TriMesh) -> Self {
        let triangles: Vec<Triangle> = mesh.triangles().collect();
        let boxes = triangles
            .iter()
            .map(|t| {
                let (lo, hi) = (t.a.inf(&t.b).inf(&t.c), t.a.sup(&t.b).sup(&t.c));
                [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z]
            })
            .collect();
        BruteForce { triangles, boxes }
    }

    /// The closest hit over all non-degenerate triangles (lowest id on
    /// ties), the segment's end `b` being the exact point at `t = 1`.
    ///
    /// Triangles whose box lies clear of the segment's, both grown by far
    /// more than the test's rounding, are skipped: they cannot touch it.
    fn segment(&self, s: &Segment) -> Option<(Real, TriangleId)> {
        let prepared = WatertightRay::from_segment(s)?;
        let pad = 1e-4 * (1.0 + s.a.coords.amax().max(s.b.coords.amax()));
        let (lo, hi) = (s.a.inf(&s.b), s.b.sup(&s.a));
        let (lo, hi) = (lo.coords.add_scalar(-pad), hi.coords.add_scalar(pad));
        let near = |b: &[Real; 6]| {
            (b[0] <= hi.x)
                & (b[1] <= hi.y)
                & (b[2] <= hi.z)
                & (b[3] >= lo.x)
                & (b[4] >= lo.y)
                & (b[5] >= lo.z)
        };
        let candidates = self
            .boxes
            .iter()
            .enumerate()
            .filter(|(_, b)| near(b))
            .map(|(i, _)| (i, &self.triangles[i]));
        brute_closest_in(candidates, prepared, 0.0, 1.0)
    }
}

fn brute_closest_prepared(
    triangles: &[Triangle],
    prepared: WatertightRay,
    t_min: Real,
    t_max: Real,
) -> Option<(Real, TriangleId)> {
    brute_closest_in(triangles.iter().enumerate(), prepared, t_min, t_max)
}

/// The closest hit among `triangles` (with their ids), lowest id on ties.
fn brute_closest_in<'a>(
    triangles: impl Iterator<Item = (usize, &'a Triangle)>,
    prepared: WatertightRay,
    t_min: Real,
    t_max: Real,
) -> Option<(Real, TriangleId)> {
    let mut best: Option<(Real, TriangleId)> = None;
    for (i, tri) in triangles {
        if tri.is_degenerate() {
            continue;
        }
        if let Some(hit) = prepared.intersect(tri, t_min, t_max)
            && best.is_none_or(|(t, _)| hit.t < t)
        {
            best = Some((hit.t, TriangleId(i as u32)));
        }
    }
    best
}

fn random_segments(mesh: &TriMesh, count: usize, seed: u64) -> Vec<Segment> {
    let bounds = mesh.aabb();
    let (center, half) = (bounds.center(), bounds.half_extents() * 1.3);
    let mut rng = SplitMix(seed);
    let vertices = mesh.vertices();
    (0..count)
        .map(|k| {
            let mut pick = || center + rng.point(1.0).coords.component_mul(&half);
            match k % 4 {
                // Aimed exactly at a vertex: the adversarial case for shared edges and vertices.
                0 => Segment::new(
                    pick(),
                    vertices[(rng.next_u64() % vertices.len() as u64) as usize],
                ),
                // Axis-parallel segments: zero direction components.
                1 => {
                    let a = pick();
                    let mut b = a;
                    let axis = (rng.next_u64() % 3) as usize;
                    b[axis] = center[axis] + rng.range(-1.0, 1.0) * half[axis];
                    Segment::new(a, b)
                }
                _ => Segment::new(pick(), pick()),
            }
        })
        .collect()
}

/// One test per mesh, so that the brute forces share the cores.
#[test]
fn segment_queries_agree_with_brute_force_on_the_bunny() {
    segment_queries_agree_with_brute_force("bunny");
}

#[test]
fn segment_queries_agree_with_brute_force_on_env() {
    segment_queries_agree_with_brute_force("env");
}

#[test]
fn segment_queries_agree_with_brute_force_on_rob() {
    segment_queries_agree_with_brute_force("rob");
}

#[test]
fn segment_queries_agree_with_brute_force_on_an_icosphere() {
    segment_queries_agree_with_brute_force("icosphere");
}

#[test]
fn segment_queries_agree_with_brute_force_on_a_terrain() {
    segment_queries_agree_with_brute_force("terrain");
}

#[test]
fn segment_queries_agree_with_brute_force_on_a_soup() {
    segment_queries_agree_with_brute_force("soup");
}

#[test]
fn segment_queries_agree_with_brute_force_on_a_town() {
    segment_queries_agree_with_brute_force("city");
}

/// Any-hit and closest hit on AABB trees (both split searches) and OBB
/// trees against the brute force, on [`segment_count`] random segments.
fn segment_queries_agree_with_brute_force(name: &str) {
    let mesh = mesh(name);
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let thorough = MeshTree::<Aabb>::build(
        mesh.clone(),
        &BuildOptions::sah().with_split(SplitRule::Sah {
            bins: 32,
            search: SplitSearch::Thorough,
        }),
    );
    let obb = MeshTree::<Obb>::build(mesh.clone(), &BuildOptions::gottschalk());
    let segments = random_segments(&mesh, segment_count(), 0xB0 + name.len() as u64);
    let brute = BruteForce::new(&mesh);
    let scale = mesh.aabb().extents().amax();
    let mut blocked = 0;
    for s in &segments {
        let expected = brute.segment(s);
        blocked += usize::from(expected.is_some());
        for (kind, any, closest) in [
            ("AABB", aabb.any_hit(s), aabb.closest_hit(s)),
            (
                "AABB, thorough split search",
                thorough.any_hit(s),
                thorough.closest_hit(s),
            ),
            ("OBB", obb.any_hit(s), obb.closest_hit(s)),
        ] {
            assert_eq!(
                any.is_some(),
                expected.is_some(),
                "{name} {kind} any-hit on {s:?}"
            );
            if let Some(t) = any {
                assert!(
                    segment_triangle(s, &mesh.triangle(t)).is_some(),
                    "{name} {kind}: any-hit names a triangle the segment touches"
                );
            }
            match (closest, expected) {
                (Some(hit), Some((t, _))) => {
                    assert_eq!(hit.t, t, "{name} {kind} closest t on {s:?}");
                    let tri = mesh.triangle(hit.triangle);
                    let p = tri.a.coords * hit.barycentric[0]
                        + tri.b.coords * hit.barycentric[1]
                        + tri.c.coords * hit.barycentric[2];
                    assert!(
                        (p - s.point_at(hit.t).coords).norm() <= 1e-4 * scale,
                        "{name} {kind}: barycentrics reproduce the hit point"
                    );
                    assert!((hit.normal.norm() - 1.0).abs() < 1e-5);
                }
                (None, None) => {}
                (got, want) => {
                    panic!("{name} {kind} closest hit on {s:?}: got {got:?}, want {want:?}")
                }
            }
        }
    }
    assert!(
        blocked > segments.len() / 20 && blocked < segments.len(),
        "{name}: a useful mix of blocked ({blocked}) and clear segments"
    );
}

#[test]
fn trees_larger_than_the_caches_take_the_prefetching_kernels_and_agree() {
    // Enough triangles that the wide nodes exceed 1 MiB, so the kernels
    // that prefetch children run; fewer segments keep the brute force quick.
    let mesh = TriMesh::terrain(150, 100.0, 6.0, 5).merged(&TriMesh::icosphere(
        Point::new(0.0, 0.0, 4.0),
        5.0,
        3,
    ));
    let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    assert!(tree.wide_layout_bytes() > 1 << 20);
    let brute = BruteForce::new(&mesh);
    let segments = random_segments(&mesh, segment_count() / 25, 0x1A7);
    let mut blocked = 0;
    for s in &segments {
        let expected = brute.segment(s);
        blocked += usize::from(expected.is_some());
        assert_eq!(tree.any_hit(s).is_some(), expected.is_some(), "{s:?}");
        let closest = tree.closest_hit(s).map(|h| h.t);
        assert_eq!(closest, expected.map(|e| e.0), "{s:?}");
    }
    assert!(blocked > segments.len() / 20 && blocked < segments.len());
}

#[test]
fn all_hits_are_sorted_and_complete() {
    for (name, mesh) in meshes() {
        let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
        for s in random_segments(&mesh, 300, 77) {
            let hits = tree.all_hits(s);
            let ray = WatertightRay::from_segment(&s);
            let expected: Vec<(Real, u32)> = match ray {
                Some(ray) => {
                    let mut e: Vec<(Real, u32)> = mesh
                        .triangles()
                        .enumerate()
                        .filter(|(_, t)| !t.is_degenerate())
                        .filter_map(|(i, t)| ray.intersect(&t, 0.0, 1.0).map(|h| (h.t, i as u32)))
                        .collect();
                    e.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                    e
                }
                None => Vec::new(),
            };
            let got: Vec<(Real, u32)> = hits.iter().map(|h| (h.t, h.triangle.0)).collect();
            assert_eq!(got, expected, "{name}: all hits on {s:?}");
        }
    }
}

#[test]
fn rays_from_inside_a_closed_mesh_aimed_at_every_vertex_and_edge_midpoint_hit() {
    // Watertightness: no ray from inside escapes through a shared edge or vertex.
    for (name, mesh) in [
        ("bunny", data_mesh("bunny.obj")),
        (
            "icosphere",
            TriMesh::icosphere(Point::new(0.1, 0.2, 0.3), 2.0, 3),
        ),
    ] {
        let inside = if name == "bunny" {
            // A point well inside the bunny's body.
            let b = mesh.aabb();
            Point::new(b.center().x, b.min.y + 0.35 * b.extents().y, b.center().z)
        } else {
            Point::new(0.1, 0.2, 0.3)
        };
        for tree_kind in ["AABB", "OBB"] {
            let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
            let obb = MeshTree::<Obb>::build(mesh.clone(), &BuildOptions::gottschalk());
            let hit = |ray: &Ray| {
                if tree_kind == "AABB" {
                    aabb.any_hit(ray.span(0.0, Real::INFINITY))
                } else {
                    obb.any_hit(ray.span(0.0, Real::INFINITY))
                }
            };
            let mut targets: Vec<Point> = mesh.vertices().to_vec();
            for t in mesh.indices() {
                for k in 0..3 {
                    let (a, b) = (
                        mesh.vertices()[t[k] as usize],
                        mesh.vertices()[t[(k + 1) % 3] as usize],
                    );
                    targets.push(nalgebra_center(&a, &b));
                }
            }
            for target in targets {
                let ray = Ray::new(inside, target - inside);
                assert!(
                    hit(&ray).is_some(),
                    "{name} {tree_kind}: ray to {target:?} escaped"
                );
            }
        }
    }
}

fn nalgebra_center(a: &Point, b: &Point) -> Point {
    Point::from((a.coords + b.coords) * 0.5)
}

#[test]
fn segment_ending_exactly_on_a_surface_is_blocked_and_margins_ignore_it() {
    let mesh = TriMesh::cuboid(Point::new(-1.0, -1.0, -1.0), Point::new(1.0, 1.0, 1.0));
    let tree = MeshTree::<Aabb>::build(mesh, &BuildOptions::sah());
    let eye = Point::new(-5.0, 0.25, 0.5);
    let on_face = Point::new(-1.0, 0.25, 0.5);
    assert!(
        tree.any_hit(Segment::new(eye, on_face)).is_some(),
        "an endpoint on the surface counts as a hit"
    );
    assert_eq!(tree.closest_hit(Segment::new(eye, on_face)).unwrap().t, 1.0);
    let options = SightOptions::default().with_endpoint_margins(0.0, 1e-3);
    assert_eq!(
        tree.line_of_sight(&eye, &on_face, &options),
        Visibility::Visible,
        "a target on a surface does not hide itself"
    );
    let behind = Point::new(1.5, 0.25, 0.5);
    assert!(matches!(
        tree.line_of_sight(&eye, &behind, &options),
        Visibility::Blocked(_)
    ));
    // Ignoring the two triangles of the near face (x = -1) still leaves the far face.
    let near_face: Vec<TriangleId> = (0..12)
        .map(TriangleId)
        .filter(|&t| {
            tree.mesh()
                .triangle(t)
                .vertices()
                .iter()
                .all(|v| v.x == -1.0)
        })
        .collect();
    assert_eq!(near_face.len(), 2);
    let ignoring = options.clone().ignoring(near_face.iter().copied());
    match tree.line_of_sight(&eye, &behind, &ignoring) {
        Visibility::Blocked(t) => assert!(!near_face.contains(&t)),
        other => panic!("the far face still blocks: {other:?}"),
    }
    let inside = Point::new(0.0, 0.0, 0.0);
    assert!(
        tree.line_of_sight(&eye, &inside, &ignoring).is_visible(),
        "with the near face ignored, the interior is visible"
    );
}

#[test]
fn degenerate_queries_do_not_panic_and_answer_as_documented() {
    let tree = MeshTree::<Aabb>::build(
        TriMesh::icosphere(Point::origin(), 1.0, 2),
        &BuildOptions::sah(),
    );
    let p = Point::new(0.0, 0.0, 1.0); // a vertex of the icosphere? (on the sphere in any case)
    let zero = Segment::new(Point::new(3.0, 0.0, 0.0), Point::new(3.0, 0.0, 0.0));
    assert!(
        tree.any_hit(zero).is_none(),
        "zero-length segments never hit"
    );
    assert!(tree.closest_hit(zero).is_none());
    assert!(tree.all_hits(zero).is_empty());
    let nan = Point::new(Real::NAN, 0.0, 0.0);
    for s in [
        Segment::new(nan, p),
        Segment::new(p, nan),
        Segment::new(Point::new(Real::INFINITY, 0.0, 0.0), p),
    ] {
        assert!(tree.any_hit(s).is_none());
        assert!(tree.closest_hit(s).is_none());
        assert!(tree.all_hits(s).is_empty());
    }
    assert_eq!(
        tree.line_of_sight(&nan, &p, &SightOptions::default()),
        Visibility::Invalid
    );
    // A NaN margin is no margin of 0 (the clamp to 0 used to read it so).
    let eye = Point::new(3.0, 0.0, 0.0);
    for (near_eye, near_target) in [(Real::NAN, 0.0), (0.0, Real::NAN)] {
        let options = SightOptions::default().with_endpoint_margins(near_eye, near_target);
        assert_eq!(tree.line_of_sight(&eye, &p, &options), Visibility::Invalid);
    }
    assert!(
        tree.closest_hit((Ray::new(Point::origin(), Vector::x())).span(Real::NAN, 1.0))
            .is_none()
    );
    assert!(
        tree.closest_hit((Ray::new(Point::origin(), Vector::x())).span(2.0, 1.0))
            .is_none(),
        "empty t range"
    );
    assert_eq!(
        tree.line_of_sight(&p, &p, &SightOptions::default()),
        Visibility::Visible
    );
}

#[test]
fn zero_area_triangles_never_produce_hits() {
    // A quad plus degenerate slivers lying across it.
    let vertices = vec![
        Point::new(-1.0, -1.0, 0.0),
        Point::new(1.0, -1.0, 0.0),
        Point::new(1.0, 1.0, 0.0),
        Point::new(-1.0, 1.0, 0.0),
        Point::new(-2.0, 0.0, 1.0),
        Point::new(0.0, 0.0, 1.0),
        Point::new(2.0, 0.0, 1.0),
    ];
    let indices = vec![[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 4, 4]];
    let mesh = TriMesh::new(vertices, indices).unwrap();
    assert_eq!(mesh.report().degenerate_triangles, 2);
    let tree = MeshTree::<Aabb>::build(mesh, &BuildOptions::sah());
    let s = Segment::new(Point::new(0.0, 0.0, 2.0), Point::new(0.0, 0.0, -2.0));
    let hits = tree.all_hits(s);
    assert_eq!(
        hits.len(),
        2,
        "only the quad's two triangles (sharing the diagonal through the hit)"
    );
    assert!(hits.iter().all(|h| h.triangle.0 < 2));
    let along = Segment::new(Point::new(-3.0, 0.0, 1.0), Point::new(3.0, 0.0, 1.0));
    assert!(
        tree.any_hit(along).is_none(),
        "a segment along a degenerate sliver is not blocked"
    );
}

#[test]
fn placed_meshes_answer_in_world_space() {
    let mesh = data_mesh("bunny.obj");
    let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let mut rng = SplitMix(9);
    for _ in 0..50 {
        let pose = Isometry::from_parts(rng.point(5.0).coords.into(), rng.rotation());
        let moved: Vec<Point> = mesh.vertices().iter().map(|v| pose * v).collect();
        let world = MeshTree::<Aabb>::build(
            TriMesh::new(moved, mesh.indices().to_vec()).unwrap(),
            &BuildOptions::sah(),
        );
        let placed = tree.placed(pose);
        for s in random_segments(world.mesh(), 200, rng.next_u64()) {
            let (a, b) = (placed.closest_hit(s), world.closest_hit(s));
            let near_end = |t: Real| !(1e-3..=1.0 - 1e-3).contains(&t);
            match (a, b) {
                (Some(a), Some(b)) if (a.t - b.t).abs() <= 1e-4 => {
                    if a.triangle == b.triangle {
                        assert!((a.normal - b.normal).norm() < 1e-3);
                    }
                }
                (None, None) => {}
                // Grazing hits (along an edge, or at an endpoint) may change
                // under the rounding of the pose; everything else must agree.
                (a, b) => {
                    let t = a.or(b).unwrap().t;
                    assert!(
                        near_end(t) || grazing(&world, &s),
                        "placed {a:?} vs world {b:?} on {s:?}"
                    );
                }
            }
        }
    }
}

/// True when the segment passes within rounding of a triangle edge (hit flips there are expected).
fn grazing(tree: &MeshTree<Aabb>, s: &Segment) -> bool {
    let scale = 1e-4 * tree.mesh().aabb().extents().amax();
    let tilt = Vector::new(scale, -scale, scale);
    let nudged = Segment::new(s.a + tilt, s.b + tilt);
    tree.any_hit(s).is_some() != tree.any_hit(nudged).is_some()
}

#[test]
fn batch_answers_equal_serial_answers_in_order() {
    let mesh = data_mesh("bunny.obj");
    let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let segments = random_segments(&mesh, 5000, 4);
    let batch = collected(|o| tree.segments_any_hit(&segments, Threads::All, o));
    let serial: Vec<_> = segments.iter().map(|s| tree.any_hit(s)).collect();
    assert_eq!(batch, serial);
    let eye = Point::new(0.0, 0.1, 0.5);
    let targets: Vec<Point> = segments.iter().map(|s| s.b).collect();
    let options = SightOptions::default();
    let many = collected(|o| tree.line_of_sight_many(&eye, &targets, &options, Threads::All, o));
    let one_by_one: Vec<_> = targets
        .iter()
        .map(|t| tree.line_of_sight(&eye, t, &options))
        .collect();
    assert_eq!(many, one_by_one);
    let rays: Vec<Ray> = segments.iter().map(|s| s.to_ray()).collect();
    let closest = collected(|o| tree.rays_closest_hit(&rays, 1.0, Threads::All, o));
    let serial_closest: Vec<_> = rays
        .iter()
        .map(|r| tree.closest_hit(r.span(0.0, 1.0)))
        .collect();
    assert_eq!(closest, serial_closest);
}

/// A batch mixing ordinary segments with ones that give no descent (NaN,
/// infinite, zero length) or end exactly on a vertex, in irregular runs.
fn awkward_batch(mesh: &TriMesh, count: usize, seed: u64) -> Vec<Segment> {
    let mut segments = random_segments(mesh, count, seed);
    let vertex = mesh.vertices()[7];
    for (k, s) in segments.iter_mut().enumerate() {
        match k % 37 {
            3 => s.b.x = Real::NAN,
            11 => s.a.y = Real::INFINITY,
            19..=21 => s.b = s.a,
            29 => s.b = vertex,
            _ => {}
        }
    }
    segments
}

#[test]
fn batches_interleaved_on_one_thread_answer_exactly_as_one_query_at_a_time() {
    // The large AABB tree takes both interleaved kernels (its wide nodes
    // and leaf triangles exceed the 16 MiB threshold); a 45k-triangle tree,
    // the bunny's and OBB trees (no wide layout) answer one query at a time.
    let medium = TriMesh::terrain(150, 100.0, 6.0, 5);
    let large = TriMesh::terrain(360, 100.0, 6.0, 5).merged(&TriMesh::icosphere(
        Point::new(0.0, 0.0, 4.0),
        5.0,
        3,
    ));
    let bunny = data_mesh("bunny.obj");
    let packed = MeshTree::<PackedObb>::build(bunny.clone(), &BuildOptions::gottschalk());
    batches_match_single_queries(&packed, &bunny);
    for (mesh, interleaves) in [(large, true), (medium, false), (bunny, false)] {
        let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
        assert_eq!(tree.batches_interleave(), interleaves);
        batches_match_single_queries(&tree, &mesh);
    }
}

fn batches_match_single_queries<V: BoundingVolume>(tree: &MeshTree<V>, mesh: &TriMesh) {
    // Batch sizes below, at and above the 16 descents in flight.
    for (count, seed) in [(0, 1), (1, 2), (3, 3), (16, 4), (17, 5), (4001, 6)] {
        let segments = awkward_batch(mesh, count, seed);
        let one_by_one: Vec<_> = segments.iter().map(|s| tree.any_hit(s)).collect();
        // A reused buffer of the wrong length and contents is overwritten.
        let mut out = vec![Some(TriangleId(5)); 7];
        tree.segments_any_hit(&segments, Threads::Current, &mut out);
        assert_eq!(out, one_by_one);
        assert_eq!(
            collected(|o| tree.segments_any_hit(&segments, Threads::All, o)),
            one_by_one
        );

        let rays: Vec<Ray> = segments.iter().map(|s| s.to_ray()).collect();
        for t_max in [1.0, 0.5, Real::INFINITY] {
            let one_by_one: Vec<_> = rays
                .iter()
                .map(|r| tree.closest_hit(r.span(0.0, t_max)))
                .collect();
            let mut out = Vec::new();
            tree.rays_closest_hit(&rays, t_max, Threads::Current, &mut out);
            assert_eq!(out, one_by_one);
            assert_eq!(
                collected(|o| tree.rays_closest_hit(&rays, t_max, Threads::All, o)),
                one_by_one
            );
        }

        // Line of sight with margins and an ignore list that holds
        // some of the blockers the plain query finds.
        let eye = segments.first().map_or(Point::origin(), |s| s.a);
        // The eye itself among the targets: a zero-length segment, visible.
        let mut targets: Vec<Point> = segments.iter().map(|s| s.b).collect();
        if count > 2 {
            targets[2] = eye;
        }
        let blockers = targets
            .iter()
            .filter_map(|t| {
                tree.line_of_sight(&eye, t, &SightOptions::default())
                    .blocker()
            })
            .step_by(2);
        let options = SightOptions::default()
            .with_endpoint_margins(0.01, 0.02)
            .ignoring(blockers);
        let one_by_one: Vec<_> = targets
            .iter()
            .map(|t| tree.line_of_sight(&eye, t, &options))
            .collect();
        let mut out = vec![Visibility::Invalid; 3];
        tree.line_of_sight_many(&eye, &targets, &options, Threads::Current, &mut out);
        assert_eq!(out, one_by_one);
        assert_eq!(
            collected(|o| tree.line_of_sight_many(&eye, &targets, &options, Threads::All, o)),
            one_by_one
        );
        // Margins that leave nothing of any segment: nothing blocks.
        let nothing_left = SightOptions::default().with_endpoint_margins(1e9, 0.0);
        let expected: Vec<_> = targets
            .iter()
            .map(|t| tree.line_of_sight(&eye, t, &nothing_left))
            .collect();
        assert!(expected.iter().all(|v| v.blocker().is_none()));
        tree.line_of_sight_many(&eye, &targets, &nothing_left, Threads::Current, &mut out);
        assert_eq!(out, expected);
        // A NaN margin has no answer, on every path (the interleaved one had
        // answered `Visible` without a descent).
        for nan in [
            SightOptions::default().with_endpoint_margins(Real::NAN, 0.0),
            SightOptions::default().with_endpoint_margins(0.0, Real::NAN),
        ] {
            tree.line_of_sight_many(&eye, &targets, &nan, Threads::Current, &mut out);
            assert!(out.iter().all(|&v| v == Visibility::Invalid));
            assert_eq!(
                out,
                targets
                    .iter()
                    .map(|t| tree.line_of_sight(&eye, t, &nan))
                    .collect::<Vec<_>>()
            );
        }
        if count > 100 {
            let kinds = |v: Visibility| {
                one_by_one
                    .iter()
                    .filter(|&&a| std::mem::discriminant(&a) == std::mem::discriminant(&v))
                    .count()
            };
            assert!(kinds(Visibility::Visible) > 0);
            assert!(kinds(Visibility::Blocked(TriangleId(0))) > 0);
            assert!(kinds(Visibility::Invalid) > 0);
        }
    }
}

#[test]
fn tiny_and_huge_meshes_keep_their_hits() {
    // No absolute epsilon: the same scene at 1e-4 and 1e4 scale answers the same.
    let base = TriMesh::icosphere(Point::origin(), 1.0, 3);
    let segments = random_segments(&base, 3000, 21);
    let answers = |scale: Real| {
        let scaled: Vec<Point> = base
            .vertices()
            .iter()
            .map(|v| Point::from(v.coords * scale))
            .collect();
        let tree = MeshTree::<Aabb>::build(
            TriMesh::new(scaled, base.indices().to_vec()).unwrap(),
            &BuildOptions::sah(),
        );
        segments
            .iter()
            .map(|s| {
                tree.any_hit(Segment::new(
                    Point::from(s.a.coords * scale),
                    Point::from(s.b.coords * scale),
                ))
                .is_some()
            })
            .collect::<Vec<bool>>()
    };
    let unit = answers(1.0);
    // Powers of two scale exactly, so the answers must be identical. At
    // 2^-40 (about 1e-12) the normals' squared lengths underflow `f32`:
    // such triangles were flagged unhittable, and every ray missed.
    for exponent in [-40, -36, -14, 14, 40] {
        let scale = (2.0 as Real).powi(exponent);
        assert_eq!(answers(scale), unit, "scale 2^{exponent}");
    }
}

#[test]
fn tiny_triangles_have_unit_normals_and_areas() {
    for exponent in [-60, -40, -20, 0, 20, 40, 60] {
        let s = (2.0 as Real).powi(exponent);
        let tri = Triangle::new(
            Point::origin(),
            Point::new(s, 0.0, 0.0),
            Point::new(0.0, s, 0.0),
        );
        assert_eq!(tri.normal(), Some(Vector::z()), "2^{exponent}");
        let expected = 0.5 * f64::from(s) * f64::from(s);
        let area = f64::from(tri.area());
        assert!(
            (area - expected).abs() <= 1e-6 * expected,
            "2^{exponent}: {area} against {expected}"
        );
    }
}

#[test]
fn mesh_tree_bytes_count_the_tree_the_wide_layout_and_the_leaf_triangles() {
    // Each leaf position keeps a 48-byte copy of its triangle (stored by
    // axis for the ray test, with its id and hittable flag).
    let mesh = data_mesh("bunny.obj");
    let per_triangle = 48;
    let n = mesh.len();
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let wide = aabb.wide_layout_bytes();
    assert!(wide > 0);
    assert_eq!(
        aabb.bytes(),
        aabb.bvh().stats().bytes + wide + n * per_triangle
    );
    // An OBB tree keeps a wide AABB layout of its own topology for rays.
    let obb = MeshTree::<Obb>::build(mesh.clone(), &BuildOptions::gottschalk());
    let obb_wide = obb.wide_layout_bytes();
    assert!(obb_wide > 0);
    assert_eq!(
        obb.bytes(),
        obb.bvh().stats().bytes + obb_wide + n * per_triangle
    );
    let sphere = MeshTree::<Sphere>::build(mesh, &BuildOptions::gottschalk());
    assert_eq!(sphere.wide_layout_bytes(), 0);
    assert_eq!(
        sphere.bytes(),
        sphere.bvh().stats().bytes + n * per_triangle
    );
}

/// A small mesh of the given kind, scaled by `scale` (huge and tiny
/// coordinates), with a few zero-area triangles mixed in: a point, a
/// collinear one, and a copy of a real triangle (a shared face).
fn proptest_mesh(kind: u8, seed: u64, scale: Real) -> TriMesh {
    let base = match kind % 3 {
        0 => TriMesh::random_soup(60, 2.0, 0.8, seed),
        1 => TriMesh::terrain(6, 3.0, 1.0, seed),
        _ => TriMesh::icosphere(Point::new(0.1, -0.2, 0.3), 1.5, 1),
    };
    let mut vertices: Vec<Point> = base.vertices().iter().map(|v| v * scale).collect();
    let mut indices = base.indices().to_vec();
    let n = vertices.len() as u32;
    vertices.push(vertices[0]);
    vertices.push(Point::from((vertices[1].coords + vertices[2].coords) * 0.5));
    indices.extend([[0, 0, 0], [1, 2, n + 1], indices[0], [n, 1, 2]]);
    TriMesh::new(vertices, indices).expect("finite, in range")
}

/// Segments aimed at the hardest places: vertices, edge midpoints, along
/// edges (grazing), within a triangle's plane, axis-parallel, zero length.
fn adversarial_segments(mesh: &TriMesh, seed: u64, count: usize) -> Vec<Segment> {
    let mut rng = SplitMix(seed);
    let bounds = mesh.aabb();
    let (center, half) = (bounds.center(), bounds.half_extents() * 1.5);
    let pick = |rng: &mut SplitMix| center + rng.point(1.0).coords.component_mul(&half);
    let triangles: Vec<Triangle> = mesh.triangles().collect();
    (0..count)
        .map(|k| {
            let tri = triangles[(rng.next_u64() % triangles.len() as u64) as usize];
            let from = pick(&mut rng);
            match k % 6 {
                0 => Segment::new(from, tri.a),
                1 => Segment::new(from, Point::from((tri.a.coords + tri.b.coords) * 0.5)),
                // Along an edge, past both ends: grazes the two triangles sharing it.
                2 => Segment::new(tri.a + (tri.a - tri.b), tri.b + (tri.b - tri.a)),
                // Within the triangle's plane, across it.
                3 => Segment::new(tri.a * 2.0 - tri.c.coords, tri.c * 2.0 - tri.a.coords),
                4 => {
                    let mut to = from;
                    to[k % 3] = -to[k % 3];
                    Segment::new(from, to)
                }
                _ if k % 12 == 5 => Segment::new(from, from),
                _ => Segment::new(from, pick(&mut rng)),
            }
        })
        .collect()
}

fn check_against_brute_force<V: BoundingVolume>(
    tree: &MeshTree<V>,
    brute: &BruteForce,
    segments: &[Segment],
) -> Result<(), TestCaseError> {
    let mut hits = 0;
    for s in segments {
        let expected = brute.segment(s);
        hits += usize::from(expected.is_some());
        prop_assert_eq!(tree.any_hit(s).is_some(), expected.is_some(), "{:?}", s);
        let closest = tree.closest_hit(s).map(|h| (h.t, h.triangle));
        prop_assert_eq!(closest, expected, "{:?}", s);
    }
    // Segments ending on a vertex always hit; random ones mostly miss.
    prop_assert!(hits > segments.len() / 6 && hits < segments.len());
    let one_by_one: Vec<_> = segments.iter().map(|s| tree.any_hit(s)).collect();
    let mut batch = Vec::new();
    tree.segments_any_hit(segments, Threads::Current, &mut batch);
    prop_assert_eq!(batch, one_by_one);
    Ok(())
}

fn proptest_config() -> ProptestConfig {
    let long = common::long_tests();
    ProptestConfig::with_cases(if long { 2048 } else { 48 })
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Any-hit, closest hit and the one-thread batch against brute force
    /// on random small meshes at scales from 1e-4 to 1e4, AABB and OBB trees.
    #[test]
    fn adversarial_segments_agree_with_brute_force(
        kind in 0u8..3,
        seed in any::<u64>(),
        scale in prop::sample::select(vec![1e-4, 1.0, 3.7, 1e4]),
    ) {
        let mesh = proptest_mesh(kind, seed, scale);
        let brute = BruteForce::new(&mesh);
        let segments = adversarial_segments(&mesh, seed ^ 0x5EED, 240);
        let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
        check_against_brute_force(&aabb, &brute, &segments)?;
        let obb = MeshTree::<PackedObb>::build(mesh.clone(), &BuildOptions::gottschalk());
        check_against_brute_force(&obb, &brute, &segments)?;
        // Sphere trees keep no wide layout: the binary kernels.
        let sphere = MeshTree::<Sphere>::build(mesh, &BuildOptions::gottschalk());
        check_against_brute_force(&sphere, &brute, &segments)?;
    }
}

#[test]
fn each_tree_type_builds_with_its_own_preset() {
    let mesh = data_mesh("bunny.obj");
    let aabb = MeshTree::<Aabb>::new(mesh.clone());
    let sah = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    assert_eq!(aabb.bvh().nodes().len(), sah.bvh().nodes().len());
    let packed = MeshTree::<PackedObb>::new(mesh.clone());
    let gottschalk = MeshTree::<PackedObb>::build(mesh, &BuildOptions::gottschalk());
    assert_eq!(packed.bvh().nodes().len(), gottschalk.bvh().nodes().len());
    // One triangle per leaf: Gottschalk's preset, not SAH's leaves of up to four.
    assert_eq!(packed.bvh().nodes().len(), 2 * packed.mesh().len() - 1);
}

#[test]
fn trees_built_after_dropped_ones_still_land_on_huge_pages() {
    // A tree's big arrays (here 8.6 MB of leaf triangles and the wide
    // nodes) get mappings of their own, so a tree built where dropped
    // trees' pages were is backed as the first one was (issue 22).
    let offered = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|mode| !mode.contains("[never]"));
    let mesh = TriMesh::terrain(300, 100.0, 5.0, 4);
    let mut on_huge = Vec::new();
    for _ in 0..4 {
        let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
        on_huge.push(tree.huge_page_bytes());
    }
    if !offered {
        eprintln!("transparent huge pages are not offered here: statistic not checked");
        return;
    }
    // The kernel may refuse a page under fragmentation, and each array's
    // last partial 2 MiB page stays small: at least half of the leaf
    // triangles' 48 bytes each, in every one of the four trees.
    for huge in on_huge {
        let huge = huge.expect("Linux reports huge pages in /proc/self/smaps");
        assert!(2 * huge >= 48 * mesh.len(), "{huge} bytes on huge pages");
    }
}

/// `set_vertices` refits: the binary tree and the wide layout keep their
/// topology and take the moved triangles' boxes, and the leaf triangles
/// (with their hittable flags) are rewritten in place. A deformed tree must
/// answer exactly as a tree built afresh over the moved mesh, and as the
/// brute force, triangles that the motion made degenerate included.
#[test]
fn deformed_trees_answer_as_fresh_builds() {
    for (name, mesh) in [
        ("bunny", data_mesh("bunny.obj")),
        (
            "icosphere",
            TriMesh::icosphere(Point::new(0.5, -0.25, 2.0), 3.0, 3),
        ),
        ("terrain", TriMesh::terrain(30, 50.0, 4.0, 11)),
        // Above the size where the tree is refitted on one thread while
        // the leaf triangles are rewritten on another (parallel feature).
        ("large terrain", TriMesh::terrain(130, 50.0, 4.0, 11)),
    ] {
        // Segments against the brute force on the small meshes; on the
        // large one, fewer, against the fresh build only.
        let (segments, brute_force) = if mesh.len() < 10_000 {
            (20_000, true)
        } else {
            (4_000, false)
        };
        // Twist and stretch, then pull the second vertex of triangle 0 onto
        // its first, which makes every triangle using both degenerate.
        let mut moved = twisted_vertices(&mesh);
        let [first, second, _] = mesh.indices()[0];
        moved[second as usize] = moved[first as usize];
        let deformed =
            TriMesh::new(moved.clone(), mesh.indices().to_vec()).expect("same triangles");
        assert!(
            deformed.triangles().any(|t| t.is_degenerate()),
            "{name}: no degenerate triangle"
        );
        let mut aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
        let mut obb = MeshTree::<PackedObb>::build(mesh.clone(), &BuildOptions::gottschalk());
        aabb.set_vertices(moved.clone()).expect("same vertex count");
        obb.set_vertices(moved).expect("same vertex count");
        let fresh = MeshTree::<Aabb>::build(deformed.clone(), &BuildOptions::sah());
        let brute = BruteForce::new(&deformed);
        for s in random_segments(&deformed, segments, 0xdef0) {
            let expected = fresh.closest_hit(s);
            if brute_force {
                assert_eq!(
                    expected.map(|h| (h.t, h.triangle)),
                    brute.segment(&s),
                    "{name}: fresh tree against brute force, {s:?}"
                );
            }
            for (kind, got) in [("aabb", aabb.closest_hit(s)), ("obb", obb.closest_hit(s))] {
                assert_eq!(got, expected, "{name} {kind}: closest hit, {s:?}");
            }
            let blocked = expected.is_some();
            assert_eq!(aabb.any_hit(s).is_some(), blocked, "{name}: any-hit, {s:?}");
            assert_eq!(
                obb.any_hit(s).is_some(),
                blocked,
                "{name}: obb any-hit, {s:?}"
            );
        }
        for p in deformed.vertices().iter().step_by(7) {
            let q = Point::new(p.x + 0.3, p.y - 0.2, p.z + 0.1);
            assert_eq!(
                aabb.closest_point(q),
                fresh.closest_point(q),
                "{name}: nearest point"
            );
        }
    }
}

#[test]
fn spans_starting_before_their_origin_find_the_hits_behind_it() {
    // Box tests pad a slab's exit outwards; a negative exit scaled up
    // moved inwards instead, so the flat boxes of axis-aligned triangles
    // were missed behind the origin (a triangle at z = 0 seen from z = 5
    // over t in [-10, 10] gave nothing, while a sphere answered).
    let flat = common::triangle_soup(&[[[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, 0.0]]]);
    let cube = TriMesh::cuboid(Point::new(-0.5, -0.5, -0.5), Point::new(0.5, 0.5, 0.5));
    let ray = Ray::new(Point::new(0.1, -0.2, 5.0), Vector::z());
    for (mesh, first, hits) in [(&flat, -5.0, 1), (&cube, -5.5, 2)] {
        let aabb = MeshTree::<Aabb>::new(mesh.clone());
        let obb = MeshTree::<PackedObb>::new(mesh.clone());
        let mut scene = boxtree::Scene::new();
        scene
            .add(aabb.clone(), Isometry::identity())
            .expect("finite pose");
        scene.update();
        for span in [
            ray.span(-10.0, 10.0),
            ray.span(-10.0, -1.0),
            ray.span(Real::NEG_INFINITY, 0.0),
        ] {
            assert_eq!(aabb.closest_hit(span).map(|h| h.t), Some(first));
            assert_eq!(obb.closest_hit(span).map(|h| h.t), Some(first));
            assert!(aabb.any_hit(span).is_some() && obb.any_hit(span).is_some());
            assert_eq!(aabb.all_hits(span).len(), hits);
            let everything = boxtree::Filter::everything();
            assert_eq!(
                scene.closest_hit(span, &everything).map(|h| h.hit.t),
                Some(first)
            );
            assert!(scene.any_hit(span, &everything).is_some());
            assert_eq!(scene.all_hits(span, &everything).len(), hits);
        }
    }
    // Against the brute force, on every mesh kind, rays over [-4, 4].
    let mut rng = SplitMix(161);
    for (name, mesh) in meshes() {
        let triangles: Vec<Triangle> = mesh.triangles().collect();
        let tree = MeshTree::<Aabb>::new(mesh.clone());
        let obb = MeshTree::<PackedObb>::new(mesh.clone());
        let bounds = mesh.aabb();
        let (center, half) = (bounds.center(), bounds.half_extents());
        for _ in 0..2000 {
            let origin = center + rng.point(1.0).coords.component_mul(&half);
            let direction = rng.point(1.0).coords.component_mul(&half) * 0.5;
            let ray = Ray::new(origin, direction);
            let expected = WatertightRay::new(&ray)
                .and_then(|prepared| brute_closest_prepared(&triangles, prepared, -4.0, 4.0));
            let span = ray.span(-4.0, 4.0);
            let got = tree.closest_hit(span).map(|h| (h.t, h.triangle));
            assert_eq!(got, expected, "{name}: {span:?}");
            assert_eq!(
                obb.closest_hit(span).map(|h| (h.t, h.triangle)),
                expected,
                "{name}"
            );
            assert_eq!(tree.any_hit(span).is_some(), expected.is_some(), "{name}");
        }
    }
}

/// A span starting before its origin crosses the faces at the origin at
/// `t = -0.0`: `all_hits` sorted those before the hits at `0.0` whatever
/// their ids, so its first hit was not `closest_hit`'s.
#[test]
fn hits_at_the_origin_sort_by_triangle_id_from_either_side_of_zero() {
    let tree = MeshTree::<Aabb>::new(TriMesh::cuboid(Point::origin(), Point::new(1.0, 1.0, 1.0)));
    let span = Ray::new(Point::new(1.0, 1.0, 1.0), Vector::new(-1.0, 2.0, -3.0)).span(-0.5, 0.5);
    let hits = tree.all_hits(span);
    assert!(hits.len() > 1, "{hits:?}");
    assert!(
        hits.iter().all(|h| h.t.is_sign_positive() || h.t < 0.0),
        "{hits:?}"
    );
    assert!(
        hits.windows(2)
            .all(|w| (w[0].t, w[0].triangle) <= (w[1].t, w[1].triangle)),
        "{hits:?}"
    );
    let closest = tree.closest_hit(span).expect("a hit");
    assert_eq!((hits[0].t, hits[0].triangle), (closest.t, closest.triangle));
}

/// Triangles below about 1e-19, whose `f32` edge functions are subnormal:
/// they lost their precision (every weight infinite from 2⁻⁶² on, `t` and
/// the nearest triangle wrong from 2⁻⁶⁶, misses from 2⁻⁷⁵). Scaled by a
/// power of two, the same triangle and segment answer alike at every scale
/// down to where the `f32` normal itself underflows (about 2⁻⁷⁴).
#[test]
fn tiny_triangles_answer_as_their_unit_copies() {
    for k in [0, 20, 54, 62, 64, 66, 68, 70, 72, 74] {
        let s = (2.0 as Real).powi(-k);
        let p = |x: Real, y: Real, z: Real| Point::new(x * s, y * s, z * s);
        let tri = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
        let segment = Segment::new(p(0.25, 0.25, 1.0), p(0.25, 0.25, -1.0));
        let hit = segment_triangle(&segment, &tri).expect("crosses");
        assert_eq!(
            (hit.t, hit.w, hit.u, hit.v),
            (0.5, 0.5, 0.25, 0.25),
            "2^-{k}"
        );
        let tree = MeshTree::<Aabb>::new(
            TriMesh::new(tri.vertices().to_vec(), vec![[0, 1, 2]]).expect("valid"),
        );
        let found = tree.closest_hit(segment).expect("crosses");
        assert_eq!(
            (found.t, found.barycentric),
            (0.5, [0.5, 0.25, 0.25]),
            "2^-{k}"
        );
        // The `f64` edge functions keep the face culling: the segment comes
        // down onto the front face (normal +z), so culling fronts misses.
        let ray = WatertightRay::new(&segment.to_ray()).expect("finite");
        let culled = |culling| ray.with_culling(culling).intersect(&tri, 0.0, 1.0);
        assert!(culled(FaceCulling::Back).is_some(), "2^-{k}");
        assert!(culled(FaceCulling::Front).is_none(), "2^-{k}");
    }
    // The icosphere at 2^-70 hits what the unit one hits, at the same `t`
    // up to the rounding of the unit copy's `f32` edge functions (the tiny
    // copy's come from `f64` products, rounded once).
    let ball = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let s = (2.0 as Real).powi(-70);
    let tiny = TriMesh::new(
        ball.vertices()
            .iter()
            .map(|v| Point::from(v.coords * s))
            .collect(),
        ball.indices().to_vec(),
    )
    .expect("valid");
    let (unit, small) = (MeshTree::<Aabb>::new(ball), MeshTree::<Aabb>::new(tiny));
    let mut rng = SplitMix(70);
    let mut hits = 0;
    for _ in 0..2_000 {
        let (a, b) = (rng.point(2.0), rng.point(2.0));
        let big = unit.closest_hit(Segment::new(a, b));
        let little = small.closest_hit(Segment::new(a * s, b * s));
        assert_eq!(
            big.map(|h| h.triangle),
            little.map(|h| h.triangle),
            "{a:?} {b:?}"
        );
        if let (Some(big), Some(little)) = (big, little) {
            assert!((big.t - little.t).abs() <= 1e-6, "{big:?} {little:?}");
            assert!(
                little
                    .barycentric
                    .iter()
                    .all(|w| w.is_finite() && *w >= 0.0)
            );
            hits += 1;
        }
    }
    assert!(hits > 500, "{hits}");
}

/// Every volume type's raycasts (k-DOP, sphere and RSS trees on the binary
/// kernels, the others on their wide layouts) against brute force, from
/// segments near the mesh and from starts 1e3 to 1e7 away: in `f32` an
/// 18-DOP's projection of an origin 1e7 away rounded by about one unit, and
/// 2–4% of such segments missed a unit ball.
fn far_and_near_segments_agree<V: BoundingVolume>(kind: &str, mesh: &TriMesh, seed: u64) {
    let tree = MeshTree::<V>::build(mesh.clone(), &BuildOptions::sah());
    let brute = BruteForce::new(mesh);
    let mut rng = SplitMix(seed);
    let center = mesh.aabb().center();
    let radius = mesh.aabb().half_extents().norm();
    let mut blocked = 0;
    for i in 0..1_000 {
        let target = center + rng.point(radius).coords;
        let away = 10f32.powi(3 + i % 5) * radius;
        let start = if i % 6 == 0 {
            center + rng.point(radius).coords
        } else {
            center + rng.vector(-1.0, 1.0).normalize() * away
        };
        let s = Segment::new(start, target);
        let expected = brute.segment(&s);
        blocked += usize::from(expected.is_some());
        assert_eq!(
            tree.any_hit(s).is_some(),
            expected.is_some(),
            "{kind} any-hit on {s:?}"
        );
        let closest = tree.closest_hit(s).map(|h| (h.t, h.triangle));
        assert_eq!(closest, expected, "{kind} closest hit on {s:?}");
        assert_eq!(
            tree.all_hits(s).first().map(|h| (h.t, h.triangle)),
            expected,
            "{kind} first of all hits on {s:?}"
        );
    }
    assert!(blocked > 100, "{kind}: {blocked} blocked");
}

#[test]
fn every_volume_s_trees_agree_with_brute_force_near_and_far() {
    let ball = TriMesh::icosphere(Point::origin(), 1.0, 2);
    let rob = mesh("rob");
    for (name, mesh) in [("ball", &ball), ("rob", &rob)] {
        far_and_near_segments_agree::<boxtree::Kdop14>(&format!("{name} Kdop14"), mesh, 11);
        far_and_near_segments_agree::<boxtree::Kdop18>(&format!("{name} Kdop18"), mesh, 12);
        far_and_near_segments_agree::<boxtree::Kdop26>(&format!("{name} Kdop26"), mesh, 13);
        far_and_near_segments_agree::<Sphere>(&format!("{name} sphere"), mesh, 14);
        far_and_near_segments_agree::<boxtree::Rss>(&format!("{name} RSS"), mesh, 15);
        far_and_near_segments_agree::<Aabb>(&format!("{name} AABB"), mesh, 16);
        far_and_near_segments_agree::<Obb>(&format!("{name} OBB"), mesh, 17);
        far_and_near_segments_agree::<PackedObb>(&format!("{name} packed OBB"), mesh, 18);
    }
    // The hunt's segment.
    let tree = MeshTree::<boxtree::Kdop18>::build(ball.clone(), &BuildOptions::sah());
    let s = Segment::new(
        Point::new(-1119956.9, 7034248.5, 7018906.0),
        Point::new(0.038, 0.3365, 0.1655),
    );
    assert_eq!(
        tree.any_hit(s).is_some(),
        BruteForce::new(&ball).segment(&s).is_some()
    );
}

#[test]
fn line_of_sight_answers_for_ends_up_to_about_1e38_apart() {
    // The segment's length overflowed f32's square from 1.8e19 apart, and
    // the answer was Invalid while any-hit answered.
    let ball = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 1));
    let eye = Point::new(0.0, 0.0, -5.0);
    for far in [2e19, 1e30, 1e37] {
        let target = Point::new(0.0, 0.0, far);
        let sight = ball.line_of_sight(&eye, &target, &SightOptions::default());
        assert!(matches!(sight, Visibility::Blocked(_)), "{far}: {sight:?}");
        assert!(ball.any_hit(Segment::new(eye, target)).is_some());
    }
    let away = Point::new(0.0, 3e38, 0.0);
    let sight = ball.line_of_sight(
        &Point::new(0.0, -3e38, 0.0),
        &away,
        &SightOptions::default(),
    );
    assert_eq!(sight, Visibility::Invalid, "6e38 apart: no length");
}

/// Meshes with coordinates from 2^60 to 2^126 (about 1e18 to 8e37) answer
/// exactly as the same mesh and segments scaled down by that power of two
/// (which changes no rounding): hits, `t` and triangles. From about 1e19
/// the sheared coordinates' products overflow `f32`, and such meshes were
/// accepted and then missed by every ray, line of sight included (a
/// review's finding); they now take the binary kernels' careful test,
/// which rescales the triangles whose products overflow.
#[test]
fn huge_meshes_answer_as_their_scaled_down_copies() {
    let base = TriMesh::random_soup(1500, 4.0, 0.8, 17);
    let mut rng = SplitMix(0x9e3779b9);
    let segments: Vec<Segment> = (0..600)
        .map(|_| {
            Segment::new(
                Point::from(rng.vector(-3.0, 3.0)),
                Point::from(rng.vector(-3.0, 3.0)),
            )
        })
        .collect();
    let tree = MeshTree::<Aabb>::new(base.clone());
    let expected: Vec<_> = segments
        .iter()
        .map(|s| tree.closest_hit(s).map(|h| (h.t, h.triangle)))
        .collect();
    assert!(expected.iter().filter(|e| e.is_some()).count() > 100);
    for power in [60, 64, 70, 100, 125] {
        let scale = (2.0 as Real).powi(power);
        let vertices = base
            .vertices()
            .iter()
            .map(|v| Point::from(v.coords * scale))
            .collect();
        let huge = TriMesh::new(vertices, base.indices().to_vec()).expect("finite");
        let aabb = MeshTree::<Aabb>::new(huge.clone());
        let obb = MeshTree::<PackedObb>::new(huge);
        for (segment, want) in segments.iter().zip(&expected) {
            let big = Segment::new(
                Point::from(segment.a.coords * scale),
                Point::from(segment.b.coords * scale),
            );
            let got = aabb.closest_hit(big).map(|h| (h.t, h.triangle));
            assert_eq!(got, *want, "2^{power}: {segment:?}");
            let obb_got = obb.closest_hit(big).map(|h| (h.t, h.triangle));
            assert_eq!(obb_got, *want, "OBB 2^{power}: {segment:?}");
            assert_eq!(aabb.any_hit(big).is_some(), want.is_some(), "2^{power}");
            let sight = aabb.line_of_sight(&big.a, &big.b, &SightOptions::default());
            assert_eq!(sight.is_visible(), want.is_none(), "2^{power}: {sight:?}");
        }
    }
}
