//! Signed distances and inside tests against the generalised winding
//! number in `f64` (Jacobson et al. 2013: ±1 inside a closed surface, 0
//! outside), on convex and bumpy (non-convex) closed meshes, with points
//! near faces, edges and vertices; and the refusal of surfaces without an
//! inside.

use crate::common;

use boxtree::math::{Point, Real, Vector};
use boxtree::{Aabb, MeshTree, PackedObb, PointQuery, SurfaceError, TriMesh, TriangleId};
use common::bands::points_in_band;
use common::{SplitMix, octahedron, winding_number};

/// An icosphere whose vertices are pushed in and out: closed and
/// non-convex, with concave edges and vertices.
fn bumpy_ball() -> TriMesh {
    let ball = TriMesh::icosphere(Point::new(0.3, -0.2, 0.1), 1.0, 3);
    let centre = Vector::new(0.3, -0.2, 0.1);
    let vertices = ball
        .vertices()
        .iter()
        .map(|v| {
            let d = v.coords - centre;
            let bump = 1.0 + 0.25 * (5.0 * d.x).sin() * (4.0 * d.y).cos() + 0.1 * (7.0 * d.z).sin();
            Point::from(centre + d * bump)
        })
        .collect();
    TriMesh::new(vertices, ball.indices().to_vec()).expect("valid")
}

/// A coarse icosphere with every other vertex pulled halfway in: sharp
/// concave edges and vertices, where a face's normal alone gives the
/// wrong sign.
fn spiky_ball() -> TriMesh {
    let ball = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let vertices = ball
        .vertices()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if i % 2 == 0 {
                *v
            } else {
                Point::from(v.coords * 0.45)
            }
        })
        .collect();
    TriMesh::new(vertices, ball.indices().to_vec()).expect("valid")
}

/// `mesh` with uneven fans: in every other triangle a point is
/// put near its first corner and the triangle split in three there, so
/// that corner sees its face through two thin triangles and the others
/// through one. Angle weights sum to the face's angle either way; counting
/// triangles alike would tilt the corner's pseudo-normal towards the split
/// face, which flips signs near saddle vertices.
fn uneven(ball: TriMesh) -> TriMesh {
    let mut vertices = ball.vertices().to_vec();
    let mut indices = Vec::new();
    for (k, &[a, b, c]) in ball.indices().iter().enumerate() {
        if k % 2 == 1 {
            indices.push([a, b, c]);
            continue;
        }
        let [pa, pb, pc] = [a, b, c].map(|i| ball.vertices()[i as usize]);
        let near = pa + (pb - pa) * 0.1 + (pc - pa) * 0.1;
        let m = vertices.len() as u32;
        vertices.push(near);
        indices.extend([[a, b, m], [b, c, m], [c, a, m]]);
    }
    TriMesh::new(vertices, indices).expect("valid")
}

fn closed_meshes() -> Vec<(&'static str, TriMesh)> {
    vec![
        ("spiky ball", spiky_ball()),
        ("icosphere", TriMesh::icosphere(Point::origin(), 2.0, 2)),
        (
            "cuboid",
            TriMesh::cuboid(Point::new(-1.0, -0.5, 0.0), Point::new(2.0, 0.5, 0.25)),
        ),
        ("bumpy ball", bumpy_ball()),
        ("uneven spiky ball", uneven(spiky_ball())),
    ]
}

#[test]
fn signs_agree_with_the_winding_number_near_and_far() {
    for (name, mesh) in closed_meshes() {
        let tree = MeshTree::<Aabb>::new(mesh.clone());
        let obb = MeshTree::<PackedObb>::new(mesh.clone());
        let closed = tree.closed().expect("closed");
        let closed_obb = obb.closed().expect("closed");
        let diagonal = mesh.aabb().half_extents().norm() * 2.0;
        let mut rng = SplitMix(21);
        let mut points: Vec<Point> = (1..4)
            .flat_map(|band| points_in_band(&mesh, 1_500, 30 + band as u64, band))
            .collect();
        // Around every vertex and edge midpoint, where the nearest point
        // is a vertex or an edge and the pseudo-normal decides.
        for t in mesh.triangles() {
            for q in [t.a, Point::from((t.a.coords + t.b.coords) * 0.5)] {
                for _ in 0..4 {
                    points.push(q + rng.vector(-1.0, 1.0) * diagonal * 0.03);
                }
            }
        }
        points.extend(
            (0..1_500).map(|_| mesh.aabb().center() + rng.vector(-1.0, 1.0) * diagonal * 0.6),
        );
        let (mut inside, mut checked) = (0, 0);
        for p in &points {
            let d = closed.signed_distance(p).expect("finite");
            assert_eq!(
                d.signed.abs(),
                tree.closest_point(p).expect("finite").distance
            );
            assert_eq!(closed_obb.signed_distance(p), Some(d), "{name}");
            // Away from the surface (beyond rounding), the sign is the solid's.
            if d.signed.abs() > 1e-4 * diagonal {
                let w = winding_number(&mesh, p);
                assert_eq!(
                    d.signed < 0.0,
                    w.abs() > 0.5,
                    "{name} {p:?}: {d:?}, winding {w}"
                );
                assert_eq!(closed.contains(p), d.signed < 0.0);
                inside += usize::from(d.signed < 0.0);
                checked += 1;
            }
        }
        assert!(
            inside > checked / 5 && inside < checked * 4 / 5,
            "{name}: {inside} of {checked}"
        );
    }
}

#[test]
fn points_on_vertices_edges_and_faces_are_on_the_surface() {
    for (name, mesh) in closed_meshes() {
        let tree = MeshTree::<Aabb>::new(mesh.clone());
        let closed = tree.closed().expect("closed");
        for t in mesh.triangles().take(200) {
            // A vertex is its own nearest point: exactly 0, and inside (the
            // surface belongs to the solid).
            let d = closed.signed_distance(t.a).expect("finite");
            assert_eq!(d.signed, 0.0, "{name} {:?}: {d:?}", t.a);
            assert!(closed.contains(&t.a), "{name}");
            let midpoint = Point::from((t.a.coords + t.b.coords) * 0.5);
            let d = closed.signed_distance(midpoint).expect("finite");
            assert!(d.signed.abs() <= 1e-6, "{name} {midpoint:?}: {d:?}");
            // Just inside and just outside along the face normal.
            let n = t.scaled_normal().normalize();
            let c = t.centroid();
            assert!(closed.contains(&(c - n * 1e-3)), "{name}");
            assert!(!closed.contains(&(c + n * 1e-3)), "{name}");
        }
    }
}

#[test]
fn points_exactly_on_a_face_are_on_the_surface() {
    // Points whose `f32` coordinates lie exactly on a face: their computed
    // nearest point is about one ulp beside them, along the face, so the
    // pseudo-normal alone signed a third of them as outside (+4e-8).
    let cube = MeshTree::<Aabb>::new(TriMesh::cuboid(
        Point::new(-1.0, -1.0, -1.0),
        Point::new(1.0, 1.0, 1.0),
    ));
    // Tilted faces that dyadic points (multiples of 2^-12 summing to 1)
    // meet exactly.
    let octahedron = MeshTree::<Aabb>::new(octahedron());
    let (cube, octahedron) = (
        cube.closed().expect("closed"),
        octahedron.closed().expect("closed"),
    );
    let mut rng = SplitMix(17);
    for _ in 0..2000 {
        let on_cube = Point::new(1.0, rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
        let cells = 4096.0;
        let (i, j) = (
            (rng.range(0.0, 1.0) * cells).floor(),
            (rng.range(0.0, 1.0) * cells).floor(),
        );
        let (i, j) = (i.min(cells - j), j);
        let sign = |b: bool| if b { 1.0 } else { -1.0 };
        let (sx, sy, sz) = (
            sign(rng.range(0.0, 1.0) < 0.5),
            sign(rng.range(0.0, 1.0) < 0.5),
            sign(rng.range(0.0, 1.0) < 0.5),
        );
        let on_octahedron =
            Point::new(sx * i / cells, sy * j / cells, sz * (cells - i - j) / cells);
        for (closed, p) in [(&cube, on_cube), (&octahedron, on_octahedron)] {
            let d = closed.signed_distance(p).expect("finite");
            assert_eq!(d.signed, 0.0, "{p:?}: {d:?}");
            assert_eq!((d.projection.point, d.projection.distance), (p, 0.0));
            assert!(closed.contains(&p), "{p:?}");
        }
    }
}

/// A prism along y over the polygon (x, z) = (-1, 2), (0, 0), (1, 1),
/// (1, -1), (0, -1), (-1, -1), wound outwards: a groove whose faces
/// `z = x` and `z = -2x` meet at a concave edge along the y axis.
fn groove() -> TriMesh {
    let polygon: [[Real; 2]; 6] = [
        [-1.0, 2.0],
        [0.0, 0.0],
        [1.0, 1.0],
        [1.0, -1.0],
        [0.0, -1.0],
        [-1.0, -1.0],
    ];
    let n = polygon.len() as u32;
    let vertices: Vec<Point> = [0.0, 1.0]
        .iter()
        .flat_map(|&y| polygon.iter().map(move |p| Point::new(p[0], y, p[1])))
        .collect();
    // The polygon runs clockwise seen from +y; caps and sides wound to
    // face away from the solid.
    let mut faces = Vec::new();
    for [a, b, c] in [[0, 1, 4], [0, 4, 5], [1, 2, 3], [1, 3, 4]] {
        faces.push([a, b, c]);
        faces.push([a + n, c + n, b + n]);
    }
    for i in 0..n {
        let j = (i + 1) % n;
        faces.push([i, j + n, j]);
        faces.push([i, i + n, j + n]);
    }
    TriMesh::new(vertices, faces).expect("a valid prism")
}

#[test]
fn points_on_a_face_beside_a_concave_edge_are_on_the_surface() {
    // Points exactly on the face z = x within 1e-10 to 1e-3 of the concave
    // edge: the neighbouring face's rounded nearest point can beat the
    // face's own, and a third of them had read as outside.
    let tree = MeshTree::<Aabb>::new(groove());
    let closed = tree.closed().expect("closed");
    assert!(closed.contains(&Point::new(0.5, 0.5, -0.5)));
    assert!(!closed.contains(&Point::new(0.0, 0.5, 0.5)));
    let mut rng = SplitMix(31);
    for k in 0..20_000 {
        let e = rng.range(0.5, 1.0) * (2.0 as Real).powi(-(10 + (k % 25)));
        let p = Point::new(e, rng.range(0.05, 0.95), e);
        let d = closed.signed_distance(p).expect("finite");
        assert_eq!(
            (d.signed, d.projection.distance),
            (0.0, 0.0),
            "{p:?}: {d:?}"
        );
        assert!(closed.contains(&p), "{p:?}");
    }
}

#[test]
fn inward_wound_surfaces_keep_their_inside() {
    // The same surfaces with every triangle wound the other way (normals
    // pointing in): the bounded side is still inside, and every signed
    // distance is the outward-wound one's.
    for (name, mesh) in closed_meshes() {
        let flipped = TriMesh::new(
            mesh.vertices().to_vec(),
            mesh.indices().iter().map(|&[a, b, c]| [a, c, b]).collect(),
        )
        .expect("valid");
        let (outward, inward) = (
            MeshTree::<Aabb>::new(mesh.clone()),
            MeshTree::<Aabb>::new(flipped),
        );
        let (outward, inward) = (
            outward.closed().expect("closed"),
            inward.closed().expect("closed"),
        );
        // Off the surface by more than its rounding: the winding changes
        // the `f32` nearest points, and with them a surface point's sign.
        let diagonal = mesh.aabb().half_extents().norm() * 2.0;
        let points = (1..4).flat_map(|band| points_in_band(&mesh, 100, 5, band));
        for p in points
            .filter(|p| outward.signed_distance(*p).expect("finite").signed.abs() > 1e-4 * diagonal)
        {
            let (o, i) = (
                outward.signed_distance(p).expect("finite"),
                inward.signed_distance(p).expect("finite"),
            );
            assert_eq!(o.signed.signum(), i.signed.signum(), "{name} {p:?}");
            assert!(
                (o.signed - i.signed).abs() <= 1e-6 * diagonal,
                "{name} {p:?}"
            );
            assert_eq!(outward.contains(&p), inward.contains(&p), "{name} {p:?}");
        }
    }
}

#[test]
fn surfaces_without_an_inside_are_refused_with_the_edge() {
    let open = MeshTree::<Aabb>::new(TriMesh::terrain(4, 1.0, 0.2, 1));
    assert!(matches!(open.closed(), Err(SurfaceError::OpenEdge { .. })));

    let ball = TriMesh::icosphere(Point::origin(), 1.0, 1);
    let mut flipped = ball.indices().to_vec();
    flipped[7].swap(1, 2);
    let flipped =
        MeshTree::<Aabb>::new(TriMesh::new(ball.vertices().to_vec(), flipped).expect("valid"));
    let error = flipped.closed().expect_err("inconsistent");
    assert!(
        matches!(error, SurfaceError::InconsistentOrientation { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("oriented alike"));

    let mut doubled = ball.indices().to_vec();
    doubled.push(doubled[3]);
    let doubled =
        MeshTree::<Aabb>::new(TriMesh::new(ball.vertices().to_vec(), doubled).expect("valid"));
    assert!(matches!(
        doubled.closed(),
        Err(SurfaceError::NonManifoldEdge { triangles: 3, .. })
    ));
}

/// A tetrahedron whose edge PQ is split at M on one side only, the
/// T-junction closed by the zero-area triangle Q-P-M: topologically closed,
/// but the edge PQ's pseudo-normal would miss the faces beyond M, and the
/// point below was read as inside (it is outside: winding number 0).
#[test]
fn a_zero_area_triangle_is_refused_rather_than_signing_wrongly() {
    let vertices = vec![
        Point::new(0.0, 0.0, 0.0), // P
        Point::new(2.0, 0.0, 0.0), // Q
        Point::new(1.0, 1.7, 0.3), // R
        Point::new(1.0, 0.3, 1.7), // S
        Point::new(1.0, 0.0, 0.0), // M, on PQ
    ];
    let faces = vec![
        [1, 3, 0],
        [0, 2, 4],
        [4, 2, 1],
        [0, 3, 2],
        [1, 2, 3],
        [1, 0, 4],
    ];
    let mesh = TriMesh::new(vertices.clone(), faces).expect("valid");
    let outside = Point::new(0.5, -0.007_821_702, -0.049_384_423);
    assert!(winding_number(&mesh, &outside).abs() < 0.5);
    let tree = MeshTree::<Aabb>::new(mesh);
    let error = tree.closed().expect_err("a zero-area triangle");
    assert_eq!(
        error,
        SurfaceError::DegenerateTriangle {
            triangle: TriangleId(5)
        }
    );
    assert!(
        error.to_string().contains("triangle 5 has zero area"),
        "{error}"
    );

    // Without the split the same point is outside.
    let whole =
        TriMesh::new(vertices, vec![[1, 3, 0], [0, 2, 1], [0, 3, 2], [1, 2, 3]]).expect("valid");
    let whole = MeshTree::<Aabb>::new(whole);
    let closed = whole.closed().expect("closed");
    assert!(closed.signed_distance(outside).expect("finite").signed > 0.0);
    assert!(!closed.contains(&outside));
}

/// Normals come from an `f64` cross product: a closed surface of tiny or
/// huge triangles, whose `f32` normals under- or overflow, keeps its inside.
#[test]
fn tiny_and_huge_closed_surfaces_keep_their_inside() {
    for scale in [1e-20, 1e15] {
        let ball = TriMesh::icosphere(Point::origin(), scale, 1);
        let tree = MeshTree::<Aabb>::new(ball);
        let closed = tree.closed().expect("closed");
        assert!(closed.contains(&Point::origin()), "{scale}");
        assert!(
            !closed.contains(&Point::new(2.0 * scale, 0.0, 0.0)),
            "{scale}"
        );
    }
}

#[test]
fn bad_input_and_limits() {
    let tree = MeshTree::<Aabb>::new(TriMesh::icosphere(Point::origin(), 1.0, 2));
    let closed = tree.closed().expect("closed");
    assert_eq!(
        closed.signed_distance(Point::new(Real::NAN, 0.0, 0.0)),
        None
    );
    assert!(!closed.contains(&Point::new(0.0, Real::INFINITY, 0.0)));
    // Nothing within the maximum: no answer, even inside.
    assert_eq!(
        closed.signed_distance(PointQuery::within(Point::origin(), 0.5)),
        None
    );
    let d = closed.signed_distance(Point::origin()).expect("finite");
    assert!(d.signed < -0.9, "{d:?}");
}
