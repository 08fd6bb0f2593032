//! Segments that start or end exactly on a triangle: the endpoint contract.
//!
//! Every case is exact by construction: vertices, points on faces, edges and
//! shared vertices, and the far ends of the segments are dyadic rationals
//! with few bits, so every input is exactly representable in `f32` and every
//! orientation the oracle needs is exact in `f64`. The tilted meshes are
//! heightfields of random dyadic heights, turned into every orientation by
//! exact axis permutations and sign flips and scaled by powers of two (huge
//! and tiny coordinates). An endpoint on the closed surface must hit with
//! `t` exactly 0 or 1; one ulp short of the surface must miss; on every
//! tree kind, kernel (the 8-wide SIMD kernels of AABB trees, the binary
//! scalar kernels of OBB trees), single queries and batches alike. Set
//! `BOXTREE_LONG_TESTS=1` for 20x more cases.

use crate::common;

use boxtree::bvh::{BoundingVolume, BuildOptions};
use boxtree::intersect::segment_triangle;
use boxtree::{
    Aabb, Isometry, MeshTree, PackedObb, Point, Ray, RaySpan, Real, Segment, SightOptions, Sphere,
    Threads, TriMesh, Triangle, TriangleId, Vector, Visibility,
};
use common::{SplitMix, collected};
use proptest::prelude::*;

/// A dyadic value `k / 2^bits` with `|k| < range · 2^bits`.
fn dyadic(rng: &mut SplitMix, range: i64, bits: u32) -> Real {
    let steps = range << bits;
    let k = (rng.next_u64() % (2 * steps as u64)) as i64 - steps;
    k as Real / (1u64 << bits) as Real
}

/// An exact change of frame: an axis permutation, sign flips and a power-of-two scale.
#[derive(Clone, Copy, Debug)]
struct Frame {
    axes: [usize; 3],
    signs: [Real; 3],
    scale: Real,
}

impl Frame {
    fn random(rng: &mut SplitMix) -> Frame {
        const PERMUTATIONS: [[usize; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let mut sign = || {
            if rng.next_u64().is_multiple_of(2) {
                1.0
            } else {
                -1.0
            }
        };
        let signs = [sign(), sign(), sign()];
        let axes = PERMUTATIONS[(rng.next_u64() % 6) as usize];
        let scale = [2f32.powi(-20), 1.0, 0.5, 2f32.powi(24)][(rng.next_u64() % 4) as usize];
        Frame { axes, signs, scale }
    }

    fn apply(&self, p: &Point) -> Point {
        Point::from(Vector::from_fn(|i, _| {
            p[self.axes[i]] * self.signs[i] * self.scale
        }))
    }
}

/// A heightfield of `n × n` cells over `[0, n/2]²` with heights in
/// multiples of 1/8, two triangles per cell (split along a random diagonal),
/// placed by `frame`. Ids: cell `(i, j)` holds `2 (i n + j)` and the next.
fn tilted_grid(rng: &mut SplitMix, n: usize, frame: &Frame) -> TriMesh {
    let side = n + 1;
    let vertices: Vec<Point> = (0..side * side)
        .map(|k| {
            let (i, j) = (k / side, k % side);
            let h = dyadic(rng, 2, 3);
            frame.apply(&Point::new(i as Real * 0.5, j as Real * 0.5, h))
        })
        .collect();
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let v = |di: usize, dj: usize| ((i + di) * side + j + dj) as u32;
            if rng.next_u64().is_multiple_of(2) {
                indices.push([v(0, 0), v(1, 0), v(1, 1)]);
                indices.push([v(0, 0), v(1, 1), v(0, 1)]);
            } else {
                indices.push([v(0, 0), v(1, 0), v(0, 1)]);
                indices.push([v(1, 0), v(1, 1), v(0, 1)]);
            }
        }
    }
    TriMesh::new(vertices, indices).expect("valid grid")
}

/// Where on the surface the endpoint lies.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Face,
    Edge,
    Vertex,
}

/// A point exactly on the mesh, and the triangles that contain it.
struct OnSurface {
    point: Point,
    incident: Vec<TriangleId>,
    place: Place,
}

/// `(b − a) × (c − a) · (p − a)` in `f64`: exact for the few-bit dyadic
/// coordinates of these tests (at most 26 significant bits per product).
fn orient(tri: &Triangle, p: &Point) -> f64 {
    let w = |q: &Point| q.coords.map(f64::from);
    let (a, b, c, p) = (w(&tri.a), w(&tri.b), w(&tri.c), w(p));
    (b - a).cross(&(c - a)).dot(&(p - a))
}

fn contains_exactly(tri: &Triangle, p: &Point) -> bool {
    if orient(tri, p) != 0.0 {
        return false;
    }
    // In the plane: the three sub-triangles p-edge agree with the
    // triangle's normal (closed triangle: zero allowed).
    let w = |q: &Point| q.coords.map(f64::from);
    let (a, b, c, p) = (w(&tri.a), w(&tri.b), w(&tri.c), w(p));
    let n = (b - a).cross(&(c - a));
    [(a, b), (b, c), (c, a)]
        .iter()
        .all(|(u, v)| (v - u).cross(&(p - u)).dot(&n) >= 0.0)
}

fn point_on_surface(rng: &mut SplitMix, mesh: &TriMesh, place: Place) -> OnSurface {
    let pick = |rng: &mut SplitMix| {
        let id = TriangleId((rng.next_u64() % mesh.len() as u64) as u32);
        (id, mesh.triangle(id))
    };
    let point = match place {
        Place::Face => {
            let (_, t) = pick(rng);
            let i = 1 + rng.next_u64() % 14;
            let j = 1 + rng.next_u64() % (15 - i);
            let (u, v) = (i as Real / 16.0, j as Real / 16.0);
            t.a + (t.b - t.a) * u + (t.c - t.a) * v
        }
        Place::Edge => {
            let (_, t) = pick(rng);
            let [p, q] = [[t.a, t.b], [t.b, t.c], [t.c, t.a]][(rng.next_u64() % 3) as usize];
            p + (q - p) * ((1 + rng.next_u64() % 15) as Real / 16.0)
        }
        Place::Vertex => pick(rng).1.vertices()[(rng.next_u64() % 3) as usize],
    };
    let incident = (0..mesh.len() as u32)
        .map(TriangleId)
        .filter(|&id| {
            // The box test first: it is exact (minima and maxima are
            // corners), and the exact test is the suite's slowest step.
            let t = mesh.triangle(id);
            t.aabb().contains_point(&point) && contains_exactly(&t, &point)
        })
        .collect();
    OnSurface {
        point,
        incident,
        place,
    }
}

/// A far end for a segment to `on`: a dyadic point around the mesh, off
/// the plane of at least one incident triangle (a segment lying in the
/// planes of all of them is edge-on and may not hit).
fn far_end(rng: &mut SplitMix, mesh: &TriMesh, bounds: &Aabb, on: &OnSurface) -> Point {
    let (lo, hi) = (bounds.min, bounds.max);
    loop {
        // A dyadic point in the box grown by half its size on each side:
        // the box's corners are dyadic, and so are the fractions.
        let p = Point::from(Vector::from_fn(|i, _| {
            let f = (rng.next_u64() % 257) as Real / 128.0 - 0.5;
            lo[i] + (hi[i] - lo[i]) * f
        }));
        if on
            .incident
            .iter()
            .any(|&id| orient(&mesh.triangle(id), &p) != 0.0)
        {
            return p;
        }
    }
}

/// The point one ulp from `on` along one axis towards `towards`, chosen so
/// that it lies strictly on `towards`'s side of every incident plane it is
/// off... of the one triangle `tri`: `n_k (towards_k − on_k)` has the sign
/// of `n · (towards − on)`, so the moved point's orientation is that sign.
fn just_short(tri: &Triangle, on: &Point, towards: &Point) -> Option<Point> {
    let w = |q: &Point| q.coords.map(f64::from);
    let n = (w(&tri.b) - w(&tri.a)).cross(&(w(&tri.c) - w(&tri.a)));
    let d = w(towards) - w(on);
    let side = n.dot(&d).signum();
    let k = (0..3)
        .filter(|&k| n[k] * d[k] * side > 0.0)
        .max_by(|&i, &j| (n[i] * d[i]).abs().total_cmp(&(n[j] * d[j]).abs()))?;
    let mut p = *on;
    p[k] = if towards[k] > on[k] {
        p[k].next_up()
    } else {
        p[k].next_down()
    };
    Some(p)
}

/// One set of trees over one mesh: every kernel the answer can come from
/// (AABB and OBB trees descend 8-wide layouts, sphere trees the binary tree).
struct Trees {
    aabb: MeshTree<Aabb>,
    packed: MeshTree<PackedObb>,
    sphere: MeshTree<Sphere>,
}

impl Trees {
    fn new(mesh: &TriMesh) -> Trees {
        Trees {
            aabb: MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah()),
            packed: MeshTree::<PackedObb>::build(mesh.clone(), &BuildOptions::gottschalk()),
            sphere: MeshTree::<Sphere>::build(mesh.clone(), &BuildOptions::gottschalk()),
        }
    }
}

/// Checks one segment that touches the surface at one end (`t_end` is 0
/// or 1) on one tree: every query form hits there.
fn check_touching<V: BoundingVolume>(
    tree: &MeshTree<V>,
    s: &Segment,
    on: &OnSurface,
    t_end: Real,
) -> Result<(), String> {
    let describe = |what: &str| format!("{what}: {:?} on {:?} {s:?}", on.place, on.incident);
    let Some(any) = tree.any_hit(s) else {
        return Err(describe("any-hit missed"));
    };
    if segment_triangle(s, &tree.triangle(any)).is_none() {
        return Err(describe("any-hit named a triangle the segment misses"));
    }
    let all = tree.all_hits(s);
    let at_end: Vec<_> = all.iter().filter(|h| h.t == t_end).collect();
    if !at_end.iter().any(|h| on.incident.contains(&h.triangle)) {
        return Err(describe(&format!("no hit at t = {t_end} in {all:?}")));
    }
    if at_end.iter().any(|h| !on.incident.contains(&h.triangle)) {
        return Err(describe("a triangle not containing the end hit at its t"));
    }
    let closest = tree
        .closest_hit(s)
        .ok_or_else(|| describe("closest missed"))?;
    if (closest.t, closest.triangle) != (all[0].t, all[0].triangle) {
        return Err(describe("closest hit differs from the first of all hits"));
    }
    if t_end == 0.0 && closest.t != 0.0 {
        return Err(describe("a start on the surface is not the closest hit"));
    }
    let placed = tree.placed(Isometry::identity());
    if placed.closest_hit(s).map(|h| (h.t, h.triangle)) != Some((closest.t, closest.triangle))
        || placed.any_hit(s).is_none()
    {
        return Err(describe("placed mesh answered differently"));
    }
    Ok(())
}

/// Checks one segment that stops one ulp short of the surface and lies
/// strictly on one side of `tri`: it may not hit `tri`.
fn check_short<V: BoundingVolume>(
    tree: &MeshTree<V>,
    s: &Segment,
    tri: TriangleId,
) -> Result<(), String> {
    if tree.all_hits(s).iter().any(|h| h.triangle == tri) {
        return Err(format!("a segment one ulp short hit {tri:?}: {s:?}"));
    }
    Ok(())
}

/// One random case: a tilted grid, a point on a face, an edge or a vertex,
/// segments ending and starting there and ones stopping one ulp short,
/// checked on both trees, singly and in batches.
fn check_case(seed: u64, place: Place) -> Result<(), String> {
    let mut rng = SplitMix(seed);
    let frame = Frame::random(&mut rng);
    let mesh = tilted_grid(&mut rng, 4, &frame);
    let trees = Trees::new(&mesh);
    let mut ending = Vec::new();
    let mut starting = Vec::new();
    let mut incident = Vec::new();
    let bounds = mesh.aabb();
    for _ in 0..8 {
        let on = point_on_surface(&mut rng, &mesh, place);
        assert!(!on.incident.is_empty(), "the point lies on the surface");
        let far = far_end(&mut rng, &mesh, &bounds, &on);
        let (end, start) = (Segment::new(far, on.point), Segment::new(on.point, far));
        for tree_check in [
            check_touching(&trees.aabb, &end, &on, 1.0),
            check_touching(&trees.packed, &end, &on, 1.0),
            check_touching(&trees.aabb, &start, &on, 0.0),
            check_touching(&trees.packed, &start, &on, 0.0),
            check_touching(&trees.sphere, &end, &on, 1.0),
            check_touching(&trees.sphere, &start, &on, 0.0),
        ] {
            tree_check?;
        }
        // The ray form starting on the surface hits at t = 0 too.
        for hit in [
            trees
                .aabb
                .closest_hit((start.to_ray()).span(0.0, Real::INFINITY)),
            trees
                .packed
                .closest_hit((start.to_ray()).span(0.0, Real::INFINITY)),
            trees
                .sphere
                .closest_hit((start.to_ray()).span(0.0, Real::INFINITY)),
        ] {
            if hit.map(|h| h.t) != Some(0.0) {
                return Err(format!("ray from the surface: {hit:?} for {start:?}"));
            }
        }
        // Line of sight to a target on the surface is blocked (endpoints
        // count); a margin at the target lets it through the end's triangles.
        let sight = trees
            .aabb
            .line_of_sight(&far, &on.point, &SightOptions::default());
        if !matches!(sight, Visibility::Blocked(_)) {
            return Err(format!("line of sight to a surface point: {sight:?}"));
        }
        // One ulp short of each incident triangle that the segment is off.
        for &id in &on.incident {
            let tri = mesh.triangle(id);
            if orient(&tri, &far) == 0.0 {
                continue;
            }
            if let Some(short_end) = just_short(&tri, &on.point, &far) {
                let s = Segment::new(far, short_end);
                check_short(&trees.aabb, &s, id)?;
                check_short(&trees.packed, &s, id)?;
                check_short(&trees.sphere, &s, id)?;
                let s = Segment::new(short_end, far);
                check_short(&trees.aabb, &s, id)?;
                check_short(&trees.packed, &s, id)?;
                check_short(&trees.sphere, &s, id)?;
            }
        }
        ending.push(end);
        starting.push(start);
        incident.push(on.incident);
    }
    // Batches (parallel and on one thread) answer as single queries.
    for segments in [&ending, &starting] {
        let single: Vec<_> = segments.iter().map(|s| trees.aabb.any_hit(s)).collect();
        if single.iter().any(Option::is_none) {
            return Err("a touching segment missed".into());
        }
        let mut serial = Vec::new();
        trees
            .aabb
            .segments_any_hit(segments, Threads::Current, &mut serial);
        let pooled = collected(|o| trees.aabb.segments_any_hit(segments, Threads::All, o));
        if pooled != single || serial != single {
            return Err("batches differ from single queries".into());
        }
    }
    let eye = ending[0].a;
    let targets: Vec<Point> = ending.iter().map(|s| s.b).collect();
    let options = SightOptions::default();
    let many = collected(|o| {
        trees
            .aabb
            .line_of_sight_many(&eye, &targets, &options, Threads::All, o)
    });
    for ((answer, target), incident) in many.iter().zip(&targets).zip(&incident) {
        // Blocked whenever the eye lies off the plane of a triangle the
        // target lies on (in all of their planes, the segment is edge-on).
        let off_plane = incident
            .iter()
            .any(|&id| orient(&mesh.triangle(id), &eye) != 0.0);
        if *answer != trees.aabb.line_of_sight(&eye, target, &options)
            || (off_plane && answer.is_visible())
        {
            return Err(format!(
                "line of sight to surface point {target:?}: {answer:?}"
            ));
        }
    }
    let rays: Vec<Ray> = starting.iter().map(Segment::to_ray).collect();
    for (answers, tree) in [(
        collected(|o| trees.aabb.rays_closest_hit(&rays, 1.0, Threads::All, o)),
        "AABB",
    )] {
        if answers.iter().any(|h| h.map(|h| h.t) != Some(0.0)) {
            return Err(format!("{tree} ray batch from the surface: {answers:?}"));
        }
    }
    Ok(())
}

fn case_count() -> u32 {
    common::long_or(2000, 100)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(case_count()))]

    #[test]
    fn segments_ending_or_starting_inside_a_tilted_face_hit_exactly_there(seed in any::<u64>()) {
        check_case(seed, Place::Face).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn segments_ending_or_starting_on_a_shared_edge_hit_exactly_there(seed in any::<u64>()) {
        check_case(seed, Place::Edge).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn segments_ending_or_starting_on_a_shared_vertex_hit_exactly_there(seed in any::<u64>()) {
        check_case(seed, Place::Vertex).map_err(TestCaseError::fail)?;
    }
}

/// The reproducer of the issue that found the fault: an end exactly on a
/// tilted triangle computed `t = 1.0000001` and was rejected by `t ≤ 1`.
#[test]
fn the_reported_segment_ends_on_its_triangle() {
    let tri = [
        [0.25, -0.5, 0.125],
        [1.5, -0.25, 0.875],
        [0.5, 1.25, -0.375],
    ];
    let mesh = common::triangle_soup(&[tri]);
    let s = Segment::new(
        Point::new(0.058_593_75, 0.148_437_5, 0.980_468_75),
        Point::new(0.394_531_25, -0.152_343_75, 0.089_843_75),
    );
    assert!(contains_exactly(&mesh.triangle(TriangleId(0)), &s.b));
    let trees = Trees::new(&mesh);
    for hit in [trees.aabb.closest_hit(s), trees.packed.closest_hit(s)] {
        assert_eq!(hit.map(|h| h.t), Some(1.0));
    }
    assert!(trees.aabb.any_hit(s).is_some());
    assert!(trees.packed.any_hit(s).is_some());
    assert_eq!(
        segment_triangle(&s, &mesh.triangle(TriangleId(0))).map(|h| h.t),
        Some(1.0)
    );
    // Reversed: a start exactly on the face, t = 0 for the segment and the ray.
    let r = Segment::new(s.b, s.a);
    assert_eq!(trees.aabb.closest_hit(r).map(|h| h.t), Some(0.0));
    let ray = Ray::new(r.a, r.b - r.a);
    assert_eq!(
        trees
            .aabb
            .closest_hit(ray.span(0.0, Real::INFINITY))
            .map(|h| h.t),
        Some(0.0)
    );
}

/// A grazing segment ending exactly on a vertex (found by the long run of
/// `tests/features/raycast.rs`, on the scaled bunny): its end decides the hit, and
/// the barycentric weights are those of that vertex. Taken from the rounded
/// edge functions they were off by 0.4% of the triangle (1.2e-3 here).
#[test]
fn an_end_on_a_vertex_reports_that_vertex_s_weights() {
    let tri = [
        [-0.561_079, 2.652_382, 3.152_463],
        [-0.374_58, 2.609_447, 3.379_253],
        [-0.511_153, 2.871_046, 3.379_749],
    ];
    let mesh = common::triangle_soup(&[tri]);
    let s = Segment::new(
        Point::new(-3.834_926_4, 10.196_83, 4.083_44),
        Point::new(-0.511_153, 2.871_046, 3.379_749),
    );
    let trees = Trees::new(&mesh);
    for (kind, hit) in [
        ("AABB", trees.aabb.closest_hit(s)),
        ("packed OBB", trees.packed.closest_hit(s)),
    ] {
        let hit = hit.unwrap_or_else(|| panic!("{kind}: the end touches the vertex"));
        assert_eq!(hit.t, 1.0, "{kind}");
        assert_eq!(hit.barycentric, [0.0, 0.0, 1.0], "{kind}");
    }
    // The same at the start: t = 0 at the vertex.
    let r = Segment::new(s.b, s.a);
    let hit = trees
        .aabb
        .closest_hit(r)
        .expect("the start touches the vertex");
    assert_eq!((hit.t, hit.barycentric), (0.0, [0.0, 0.0, 1.0]));
}

/// On a tree larger than half a shared cache, batches interleave several
/// descents (`raycast_stream.rs`): touching segments hit there too.
#[test]
fn interleaved_batches_keep_the_endpoint_contract() {
    let mut rng = SplitMix(0xE17D);
    let frame = Frame::random(&mut rng);
    let mesh = tilted_grid(&mut rng, 360, &frame);
    let tree = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    assert!(tree.batches_interleave());
    let mut ending = Vec::new();
    let bounds = mesh.aabb();
    for k in 0..600 {
        let place = [Place::Face, Place::Edge, Place::Vertex][k % 3];
        let on = point_on_surface(&mut rng, &mesh, place);
        let far = far_end(&mut rng, &mesh, &bounds, &on);
        ending.push(Segment::new(far, on.point));
    }
    let starting: Vec<Segment> = ending.iter().map(|s| Segment::new(s.b, s.a)).collect();
    for segments in [&ending, &starting] {
        let mut serial = Vec::new();
        tree.segments_any_hit(segments, Threads::Current, &mut serial);
        assert!(serial.iter().all(Option::is_some));
        assert_eq!(
            collected(|o| tree.segments_any_hit(segments, Threads::All, o)),
            serial
        );
    }
    let rays: Vec<Ray> = starting.iter().map(Segment::to_ray).collect();
    let mut closest = Vec::new();
    tree.rays_closest_hit(&rays, 1.0, Threads::Current, &mut closest);
    assert!(closest.iter().all(|h| h.is_some_and(|h| h.t == 0.0)));
}

/// A vertex shared by 40 tilted triangles lies in more leaf boxes than a
/// descent sets aside for the exact decisions: the query is then answered
/// again on the binary tree, and still hits exactly at the end.
#[test]
fn a_vertex_in_more_leaf_boxes_than_the_slots_still_counts() {
    let apex = Point::new(0.5, 0.25, 0.125);
    let mut vertices = vec![apex];
    let mut indices = Vec::new();
    let n = 40u32;
    for k in 0..n {
        // A ring of dyadic points around the apex at varying heights.
        let (x, y) = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][(k % 4) as usize];
        let r = 0.5 + (k / 4) as Real * 0.0625;
        let z = 0.125 + 0.0625 * (k % 3) as Real;
        vertices.push(apex + Vector::new(x * r + 0.125 * (k % 5) as Real * y, y * r, z));
    }
    for k in 0..n {
        indices.push([0, 1 + k, 1 + (k + 1) % n]);
    }
    let mesh = TriMesh::new(vertices, indices).expect("valid fan");
    let trees = Trees::new(&mesh);
    let mut rng = SplitMix(0xFA4);
    let mut checked = 0;
    let bounds = mesh.aabb();
    for _ in 0..200 {
        let on = OnSurface {
            point: apex,
            incident: (0..n)
                .map(TriangleId)
                .filter(|&id| contains_exactly(&mesh.triangle(id), &apex))
                .collect(),
            place: Place::Vertex,
        };
        let far = far_end(&mut rng, &mesh, &bounds, &on);
        for (s, t_end) in [
            (Segment::new(far, apex), 1.0),
            (Segment::new(apex, far), 0.0),
        ] {
            check_touching(&trees.aabb, &s, &on, t_end).unwrap();
            check_touching(&trees.packed, &s, &on, t_end).unwrap();
            checked += 1;
        }
    }
    assert_eq!(checked, 400);
}

#[test]
fn a_range_of_one_point_on_a_triangle_hits_it_at_that_point() {
    // `t_min = t_max = 0` with the origin on the triangle: the range is
    // that point, which touches the triangle (a hunt found it reported as
    // an edge-on range that never hits). Interior, edge and vertex points,
    // both tree kinds, single queries and batches; a point off the
    // triangle or off its plane misses.
    let mesh = TriMesh::new(
        vec![
            Point::new(0.0, 0.0, 0.0),
            Point::new(4.0, 0.0, 1.0),
            Point::new(0.0, 4.0, 2.0),
        ],
        vec![[0, 1, 2]],
    )
    .expect("one triangle");
    let on = |x: Real, y: Real| Point::new(x, y, 0.25 * x + 0.5 * y);
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let obb = MeshTree::<PackedObb>::build(mesh, &BuildOptions::gottschalk());
    let direction = Vector::new(0.25, -0.5, -1.0);
    for (origin, hits) in [
        (on(1.0, 1.0), true),
        (on(2.0, 0.0), true),
        (on(0.0, 0.0), true),
        (on(2.0, 2.0), true),
        (on(3.0, 3.0), false),
        (Point::new(1.0, 1.0, 0.75 + 0.125), false),
    ] {
        let ray = Ray::new(origin, direction);
        let span = RaySpan {
            t_min: 0.0,
            t_max: 0.0,
            ..RaySpan::from(&ray)
        };
        for (kind, closest, any) in [
            ("AABB", aabb.closest_hit(span), aabb.any_hit(span)),
            ("OBB", obb.closest_hit(span), obb.any_hit(span)),
        ] {
            assert_eq!(closest.is_some(), hits, "{kind} {origin:?}");
            assert_eq!(any.is_some(), hits, "{kind} {origin:?}");
            if let Some(hit) = closest {
                assert_eq!(hit.t, 0.0);
            }
        }
        let mut out = Vec::new();
        aabb.rays_closest_hit(&[ray], 0.0, Threads::Current, &mut out);
        assert_eq!(out[0].is_some(), hits, "batch {origin:?}");
    }
}
