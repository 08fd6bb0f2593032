//! Triangle tests: watertight ray/segment–triangle, exact triangle–triangle,
//! triangle–box, triangle–sphere and closest point on a triangle, each against
//! an independent oracle (f64 Möller–Trumbore, the f64 generic SAT, an exact
//! `i128` SAT on integer coordinates, brute-force sampling).

use crate::common;

use boxtree::intersect::{
    ConvexPolytope, FaceCulling, WatertightRay, closest_point_on_triangle, polytopes_overlap,
    ray_triangle, segment_triangle, triangle_overlaps_aabb, triangle_overlaps_obb,
    triangle_overlaps_sphere, triangles_overlap,
};
use boxtree::math::nalgebra;
use boxtree::{Aabb, Isometry, Matrix, Obb, Point, Ray, Real, Segment, Sphere, Triangle, Vector};
use common::{SplitMix, isometry, matrix, point, rotation};
use proptest::prelude::*;

// ---------------------------------------------------------------- helpers

/// `n` seeded cases, or 50× as many when `BOXTREE_LONG_TESTS` is set.
fn seeded_cases(n: usize) -> usize {
    common::long_or(n * 50, n)
}

fn p(x: Real, y: Real, z: Real) -> Point {
    Point::new(x, y, z)
}

fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

fn tri(a: Point, b: Point, c: Point) -> Triangle {
    Triangle::new(a, b, c)
}

fn triangle_strategy(extent: Real) -> impl Strategy<Value = Triangle> {
    (point(extent), point(extent), point(extent)).prop_map(|(a, b, c)| tri(a, b, c))
}

fn random_triangle(rng: &mut SplitMix, extent: Real) -> Triangle {
    tri(rng.point(extent), rng.point(extent), rng.point(extent))
}

/// A random integer in `[-range, range]`.
fn int(rng: &mut SplitMix, range: i64) -> i64 {
    (rng.next_u64() % (2 * range as u64 + 1)) as i64 - range
}

fn int_point(rng: &mut SplitMix, range: i64) -> Point {
    p(
        int(rng, range) as Real,
        int(rng, range) as Real,
        int(rng, range) as Real,
    )
}

fn int_triangle(rng: &mut SplitMix, range: i64) -> Triangle {
    tri(
        int_point(rng, range),
        int_point(rng, range),
        int_point(rng, range),
    )
}

/// The triangle scaled by `f` about its centroid.
fn scaled_about_centroid(t: &Triangle, f: Real) -> Triangle {
    let c = t.centroid();
    let s = |x: Point| c + (x - c) * f;
    tri(s(t.a), s(t.b), s(t.c))
}

/// Applies `f` to every vertex.
fn map_triangle(t: &Triangle, f: impl Fn(Point) -> Point) -> Triangle {
    tri(f(t.a), f(t.b), f(t.c))
}

/// True when the vertices are exactly collinear: in `i128` for integer
/// coordinates, otherwise in `f64` (exact for the small values used there).
fn collinear(t: &Triangle) -> bool {
    let integral = t
        .vertices()
        .iter()
        .all(|x| x.coords.iter().all(|c| *c == c.round()));
    if integral {
        let v = t.vertices().map(|x| to_i3(&x));
        return cross(sub(v[1], v[0]), sub(v[2], v[0])) == [0; 3];
    }
    let w = |x: Point| x.coords.cast::<f64>();
    (w(t.b) - w(t.a)).cross(&(w(t.c) - w(t.a))) == nalgebra::Vector3::zeros()
}

/// The 24 rotations that permute and negate coordinate axes: exact in `f32`.
fn signed_permutations() -> Vec<Matrix> {
    let perms = [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 2, 1],
        [2, 1, 0],
        [1, 0, 2],
    ];
    let mut out = Vec::new();
    for perm in perms {
        for signs in 0..8u32 {
            let mut m = Matrix::zeros();
            for (col, &row) in perm.iter().enumerate() {
                m[(row, col)] = if signs & (1 << col) == 0 { 1.0 } else { -1.0 };
            }
            if m.determinant() == 1.0 {
                out.push(m);
            }
        }
    }
    assert_eq!(out.len(), 24);
    out
}

// ---------------------------------------------------------------- SAT oracles

/// A triangle described for the generic SAT: the normal, the in-plane edge
/// normals `n × e` (for coplanar pairs) and the three edges.
struct TriangleSat {
    vertices: [Point; 3],
    normals: [Vector; 4],
    edges: [Vector; 3],
}

impl TriangleSat {
    fn new(t: &Triangle) -> Self {
        let e = t.edges();
        let n = t.scaled_normal();
        Self {
            vertices: t.vertices(),
            normals: [n, n.cross(&e[0]), n.cross(&e[1]), n.cross(&e[2])],
            edges: e,
        }
    }

    fn polytope(&self) -> ConvexPolytope<'_> {
        ConvexPolytope {
            vertices: &self.vertices,
            face_normals: &self.normals,
            edge_directions: &self.edges,
        }
    }
}

fn tri_tri_oracle(a: &Triangle, b: &Triangle) -> bool {
    polytopes_overlap(
        &TriangleSat::new(a).polytope(),
        &TriangleSat::new(b).polytope(),
    )
}

fn tri_box_oracle(t: &Triangle, corners: &[Point; 8], axes: &[Vector; 3]) -> bool {
    let box_polytope = ConvexPolytope {
        vertices: corners,
        face_normals: axes,
        edge_directions: axes,
    };
    polytopes_overlap(&TriangleSat::new(t).polytope(), &box_polytope)
}

fn tri_aabb_oracle(t: &Triangle, b: &Aabb) -> bool {
    tri_box_oracle(t, &b.corners(), &[Vector::x(), Vector::y(), Vector::z()])
}

fn tri_obb_oracle(t: &Triangle, b: &Obb) -> bool {
    tri_box_oracle(t, &b.corners(), &[b.axis(0), b.axis(1), b.axis(2)])
}

type I3 = [i128; 3];

fn to_i3(x: &Point) -> I3 {
    x.coords
        .map(|c| {
            assert_eq!(c, c.round(), "the exact oracle needs integer coordinates");
            c as i128
        })
        .into()
}

fn sub(a: I3, b: I3) -> I3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: I3, b: I3) -> I3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: I3, b: I3) -> i128 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Exact SAT for triangles with integer coordinates up to about 2^20 (all
/// products fit in `i128`): normals, in-plane edge normals and edge crosses.
fn exact_tri_tri_oracle(t1: &Triangle, t2: &Triangle) -> bool {
    let v1 = t1.vertices().map(|x| to_i3(&x));
    let v2 = t2.vertices().map(|x| to_i3(&x));
    let edges = |v: &[I3; 3]| [sub(v[1], v[0]), sub(v[2], v[1]), sub(v[0], v[2])];
    let (e1, e2) = (edges(&v1), edges(&v2));
    let (n1, n2) = (cross(e1[0], e1[1]), cross(e2[0], e2[1]));
    let mut axes = vec![n1, n2];
    for i in 0..3 {
        axes.push(cross(n1, e1[i]));
        axes.push(cross(n2, e2[i]));
        axes.extend(e2.iter().map(|e| cross(e1[i], *e)));
    }
    let range = |v: &[I3; 3], a: I3| {
        let d = v.map(|x| dot(x, a));
        (
            d.iter().copied().min().unwrap(),
            d.iter().copied().max().unwrap(),
        )
    };
    !axes.iter().filter(|a| **a != [0; 3]).any(|a| {
        let (lo1, hi1) = range(&v1, *a);
        let (lo2, hi2) = range(&v2, *a);
        hi1 < lo2 || hi2 < lo1
    })
}

/// The oracle's answer when it is stable: the same for both triangles shrunk
/// and grown by 1 % about their centroids; `None` near touching.
fn stable_tri_tri(a: &Triangle, b: &Triangle) -> Option<bool> {
    let shrunk = tri_tri_oracle(
        &scaled_about_centroid(a, 0.99),
        &scaled_about_centroid(b, 0.99),
    );
    let grown = tri_tri_oracle(
        &scaled_about_centroid(a, 1.01),
        &scaled_about_centroid(b, 1.01),
    );
    (shrunk == grown).then_some(shrunk)
}

/// The oracle's answer for triangle–OBB when it is stable under growing and
/// shrinking the box by 0.1 % of its size.
fn stable_tri_obb(t: &Triangle, b: &Obb) -> Option<bool> {
    let margin = 1e-3 * b.half_extents.max().max(1e-3);
    let with = |m: Real| Obb::new(b.center, b.axes, b.half_extents.map(|h| (h + m).max(0.0)));
    let shrunk = tri_obb_oracle(t, &with(-margin));
    let grown = tri_obb_oracle(t, &with(margin));
    (shrunk == grown).then_some(shrunk)
}

// ---------------------------------------------------------------- ray–triangle oracle

/// Möller–Trumbore in `f64`: the line parameter and the weights of a, b, c.
struct OracleHit {
    t: f64,
    weights: [f64; 3],
    /// |sin| of the angle between the ray and the plane.
    incidence: f64,
}

fn oracle_ray_triangle(ray: &Ray, t: &Triangle) -> Option<OracleHit> {
    let w = |x: Point| x.coords.cast::<f64>();
    let (a, b, c, o) = (w(t.a), w(t.b), w(t.c), w(ray.origin));
    let d = ray.direction.cast::<f64>();
    let (e1, e2) = (b - a, c - a);
    let pvec = d.cross(&e2);
    let det = e1.dot(&pvec);
    if det == 0.0 {
        return None;
    }
    let tvec = o - a;
    let u = tvec.dot(&pvec) / det;
    let qvec = tvec.cross(&e1);
    let v = d.dot(&qvec) / det;
    let n = e1.cross(&e2);
    Some(OracleHit {
        t: e2.dot(&qvec) / det,
        weights: [1.0 - u - v, u, v],
        incidence: n.dot(&d).abs() / (n.norm() * d.norm()),
    })
}

// ================================================================ ray–triangle

#[test]
fn ray_triangle_agrees_with_f64_moller_trumbore_away_from_edges() {
    // "Away from edges" is measured by the conditioning of the f32 transform:
    // rounding the sheared vertices (ε · distance from the origin) moves the
    // weights by about `model_w` below, and t by `reach · model_w`.
    let mut rng = SplitMix(0x7269_6e67);
    let eps = f64::from(Real::EPSILON);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..seeded_cases(20_000) {
        let t = random_triangle(&mut rng, 1.0);
        let origin = rng.point(3.0);
        // Aim at a point of the triangle's plane, inside or outside it.
        let target = t.point_at(rng.range(-0.3, 1.0), rng.range(-0.3, 1.0));
        let ray = Ray::new(origin, (target - origin) * rng.range(0.2, 3.0));
        let ours = ray_triangle(&ray, 0.0, Real::INFINITY, &t);
        let Some(oracle) = oracle_ray_triangle(&ray, &t) else {
            continue;
        };
        let distance = t
            .vertices()
            .iter()
            .map(|x| f64::from((x - origin).norm()))
            .fold(0.0, f64::max);
        let reach = distance / f64::from(ray.direction.norm());
        let perimeter: f64 = t.edges().iter().map(|e| f64::from(e.norm())).sum();
        let twice_area = f64::from(t.scaled_normal().norm());
        let model_w = eps * distance * perimeter / (twice_area * oracle.incidence);
        let model_t = reach * model_w;
        let min_weight = oracle.weights.iter().copied().fold(f64::INFINITY, f64::min);
        if oracle.incidence < 1e-3
            || min_weight.abs() < 4.0 * model_w
            || oracle.t.abs() < 4.0 * model_t
        {
            continue;
        }
        if min_weight > 0.0 && oracle.t > 0.0 {
            let hit = ours.unwrap_or_else(|| panic!("missed {ray:?} {t:?}"));
            let t_error = (f64::from(hit.t) - oracle.t).abs();
            assert!(t_error <= model_t, "{hit:?} vs {}", oracle.t);
            if oracle.incidence >= 1e-2 {
                assert!(t_error <= 1e-5 * oracle.t, "{hit:?} vs {}", oracle.t);
            }
            let weights = [hit.w, hit.u, hit.v].map(f64::from);
            for (ours, theirs) in weights.iter().zip(&oracle.weights) {
                assert!(
                    (ours - theirs).abs() <= model_w,
                    "{weights:?} vs {:?}",
                    oracle.weights
                );
            }
            let facing_front = t.scaled_normal().dot(&ray.direction) < 0.0;
            assert_eq!(hit.front_face, facing_front);
            hits += 1;
        } else {
            assert!(ours.is_none(), "false hit {ours:?} for {ray:?} {t:?}");
            misses += 1;
        }
    }
    assert!(
        hits > 5_000 && misses > 10_000,
        "{hits} hits, {misses} misses"
    );
}

/// A closed triangle mesh: shared vertices by index.
struct Mesh {
    vertices: Vec<Point>,
    triangles: Vec<[usize; 3]>,
}

impl Mesh {
    fn triangle(&self, i: usize) -> Triangle {
        let [a, b, c] = self.triangles[i];
        tri(self.vertices[a], self.vertices[b], self.vertices[c])
    }

    fn edge_midpoints(&self) -> Vec<Point> {
        let mut edges: Vec<(usize, usize)> = self
            .triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        edges
            .iter()
            .map(|&(a, b)| nalgebra::center(&self.vertices[a], &self.vertices[b]))
            .collect()
    }

    /// Vertex index of `x`, added if new (exact match).
    fn vertex(&mut self, x: Point) -> usize {
        if let Some(i) = self.vertices.iter().position(|y| *y == x) {
            return i;
        }
        self.vertices.push(x);
        self.vertices.len() - 1
    }
}

/// The surface of the cube `[-2, 2]³`, each face a 4×4 grid of unit quads
/// split along alternating diagonals: integer coordinates.
fn cube_mesh() -> Mesh {
    let mut mesh = Mesh {
        vertices: Vec::new(),
        triangles: Vec::new(),
    };
    for axis in 0..3 {
        for side in [-2.0, 2.0] {
            for i in 0..4 {
                for j in 0..4 {
                    let corner = |di: i32, dj: i32| {
                        let mut c = [0.0; 3];
                        c[axis] = side;
                        c[(axis + 1) % 3] = (i + di - 2) as Real;
                        c[(axis + 2) % 3] = (j + dj - 2) as Real;
                        Point::from(c)
                    };
                    let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
                        .map(|x| mesh.vertex(x));
                    if (i + j) % 2 == 0 {
                        mesh.triangles.push([q[0], q[1], q[2]]);
                        mesh.triangles.push([q[0], q[2], q[3]]);
                    } else {
                        mesh.triangles.push([q[0], q[1], q[3]]);
                        mesh.triangles.push([q[1], q[2], q[3]]);
                    }
                }
            }
        }
    }
    mesh
}

/// An octahedron subdivided `levels` times and projected onto the unit sphere.
fn icosphere(levels: usize) -> Mesh {
    let mut mesh = Mesh {
        vertices: vec![
            p(1.0, 0.0, 0.0),
            p(-1.0, 0.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, -1.0, 0.0),
            p(0.0, 0.0, 1.0),
            p(0.0, 0.0, -1.0),
        ],
        triangles: vec![
            [0, 2, 4],
            [2, 1, 4],
            [1, 3, 4],
            [3, 0, 4],
            [2, 0, 5],
            [1, 2, 5],
            [3, 1, 5],
            [0, 3, 5],
        ],
    };
    for _ in 0..levels {
        let old = std::mem::take(&mut mesh.triangles);
        for [a, b, c] in old {
            let mut mid = |i: usize, j: usize| {
                let m = nalgebra::center(&mesh.vertices[i], &mesh.vertices[j]);
                mesh.vertex(Point::from(m.coords.normalize()))
            };
            let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
            mesh.triangles
                .extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
        }
    }
    mesh
}

/// Number of triangles of `mesh` the ray hits with `t ≥ 0`, and whether one
/// of them is at `t ≈ 1`.
fn count_hits(mesh: &Mesh, ray: &Ray) -> (usize, bool) {
    let r = WatertightRay::new(ray).expect("valid ray");
    let hits: Vec<_> = (0..mesh.triangles.len())
        .filter_map(|i| r.intersect(&mesh.triangle(i), 0.0, Real::INFINITY))
        .collect();
    (hits.len(), hits.iter().any(|h| (h.t - 1.0).abs() <= 1e-5))
}

#[test]
fn rays_from_inside_closed_meshes_at_every_vertex_and_edge_midpoint_hit() {
    let origins = [
        p(0.0, 0.0, 0.0),
        p(0.5, -0.25, 0.125),
        p(-0.375, 0.3125, -0.4375),
    ];
    for mesh in [cube_mesh(), icosphere(2)] {
        let targets: Vec<Point> = mesh
            .vertices
            .iter()
            .copied()
            .chain(mesh.edge_midpoints())
            .collect();
        for origin in origins {
            for target in &targets {
                let ray = Ray::new(origin, target - origin);
                let (count, at_target) = count_hits(&mesh, &ray);
                assert!(count >= 1, "ray {ray:?} escaped the closed mesh");
                assert!(at_target, "no hit at the aimed point for {ray:?}");
            }
        }
    }
}

#[test]
fn rays_through_shared_edges_and_diagonals_of_a_quad_grid_hit() {
    // Two grids of 4×4 quads (alternating diagonals): the plane z = 0 and the
    // tilted plane z = (x + 2y)/4. Every quarter-lattice point lies exactly on
    // the surface; many lie on shared edges, diagonals or vertices.
    let heights: [fn(Real, Real) -> Real; 2] = [|_, _| 0.0, |x, y| (x + 2.0 * y) / 4.0];
    let directions = [
        v(0.0, 0.0, -1.0),
        v(0.0, 0.0, 1.0),
        v(0.5, 0.25, -1.0),
        v(-1.0, 0.75, 0.5),
        v(1.0, 1.0, -0.125),
        v(-0.25, -2.0, 1.0),
    ];
    for height in heights {
        let mut mesh = Mesh {
            vertices: Vec::new(),
            triangles: Vec::new(),
        };
        for i in 0..4 {
            for j in 0..4 {
                let corner = |di: i32, dj: i32| {
                    let (x, y) = ((i + di) as Real, (j + dj) as Real);
                    p(x, y, height(x, y))
                };
                let q = [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
                    .map(|x| mesh.vertex(x));
                if (i + j) % 2 == 0 {
                    mesh.triangles
                        .extend([[q[0], q[1], q[2]], [q[0], q[2], q[3]]]);
                } else {
                    mesh.triangles
                        .extend([[q[0], q[1], q[3]], [q[1], q[2], q[3]]]);
                }
            }
        }
        for xi in 0..=16 {
            for yi in 0..=16 {
                let (x, y) = (xi as Real / 4.0, yi as Real / 4.0);
                let target = p(x, y, height(x, y));
                for d in directions {
                    let ray = Ray::new(target - d, d);
                    let (count, at_target) = count_hits(&mesh, &ray);
                    assert!(
                        count >= 1 && at_target,
                        "ray {ray:?} slipped through the grid"
                    );
                }
            }
        }
    }
}

fn flat_triangle() -> Triangle {
    tri(p(0.0, 0.0, 0.0), p(4.0, 0.0, 0.0), p(0.0, 4.0, 0.0))
}

#[test]
fn segment_ending_exactly_on_the_triangle_is_a_hit_at_t_one() {
    let t = flat_triangle();
    for end in [
        p(1.0, 1.0, 0.0),
        p(2.0, 0.0, 0.0),
        p(0.0, 0.0, 0.0),
        p(2.0, 2.0, 0.0),
    ] {
        let hit = segment_triangle(&Segment::new(end + v(0.5, 0.25, 1.0), end), &t).expect("hit");
        assert_eq!(hit.t, 1.0);
    }
    // A tilted triangle whose plane x + y + z = 3 contains (1, 1, 1).
    let tilted = tri(p(3.0, 0.0, 0.0), p(0.0, 3.0, 0.0), p(0.0, 0.0, 3.0));
    let hit =
        segment_triangle(&Segment::new(p(2.0, 2.0, 2.0), p(1.0, 1.0, 1.0)), &tilted).expect("hit");
    assert_eq!(hit.t, 1.0);
    assert!((hit.u - 1.0 / 3.0).abs() < 1e-6 && (hit.v - 1.0 / 3.0).abs() < 1e-6);
    // One step short of the surface is a miss.
    assert!(segment_triangle(&Segment::new(p(1.0, 1.0, 1.0), p(1.0, 1.0, 0.5)), &t).is_none());
}

#[test]
fn segment_starting_on_the_triangle_is_a_hit_at_t_zero() {
    let t = flat_triangle();
    for start in [p(1.0, 1.0, 0.0), p(0.0, 3.0, 0.0), p(4.0, 0.0, 0.0)] {
        for d in [v(0.0, 0.0, 1.0), v(0.25, -0.5, -1.0)] {
            let hit = segment_triangle(&Segment::new(start, start + d), &t).expect("hit");
            assert_eq!(hit.t, 0.0);
        }
    }
}

#[test]
fn zero_length_segment_never_hits() {
    let t = flat_triangle();
    for x in [p(1.0, 1.0, 0.0), p(1.0, 1.0, 1.0)] {
        assert!(segment_triangle(&Segment::new(x, x), &t).is_none());
    }
}

#[test]
fn ray_in_or_parallel_to_the_triangle_plane_misses() {
    let t = flat_triangle();
    // In the plane, straight through the triangle.
    assert!(
        ray_triangle(
            &Ray::new(p(-1.0, 1.0, 0.0), v(1.0, 0.0, 0.0)),
            0.0,
            Real::INFINITY,
            &t
        )
        .is_none()
    );
    assert!(
        ray_triangle(
            &Ray::new(p(1.0, 1.0, 0.0), v(1.0, 1.0, 0.0)),
            0.0,
            Real::INFINITY,
            &t
        )
        .is_none()
    );
    // Parallel, above it.
    assert!(
        ray_triangle(
            &Ray::new(p(-1.0, 1.0, 1.0), v(1.0, 0.0, 0.0)),
            0.0,
            Real::INFINITY,
            &t
        )
        .is_none()
    );
}

#[test]
fn degenerate_triangles_are_never_hit() {
    // Axis-aligned rays keep the 2-D determinant exactly zero; general rays
    // round the collinear vertices into a 2-D sliver, which the exact
    // collinearity check on the hit path must still reject.
    let a = p(1.0, 2.0, 3.0);
    let d = v(1.0, -2.0, 5.0);
    let degenerate = [
        tri(p(0.0, 0.0, 0.0), p(1.0, 1.0, 0.0), p(2.0, 2.0, 0.0)),
        tri(p(0.0, 0.0, 0.0), p(0.0, 0.0, 0.0), p(2.0, 0.0, 0.0)),
        tri(p(1.0, 1.0, 0.0), p(1.0, 1.0, 0.0), p(1.0, 1.0, 0.0)),
        tri(a, a + d, a + d * 3.0),
        tri(a + d * 0.25, a + d * 3.0, a),
    ];
    for t in &degenerate {
        for dir in [
            v(0.0, 0.0, -1.0),
            v(1.0, -1.0, 0.0),
            v(0.25, 0.5, -1.0),
            v(0.0, -2.0, 0.0),
        ] {
            let ray = Ray::new(t.b - dir, dir);
            assert!(
                ray_triangle(&ray, 0.0, Real::INFINITY, t).is_none(),
                "{t:?} {ray:?}"
            );
        }
    }
    let mut rng = SplitMix(0x6465_6768);
    for _ in 0..seeded_cases(5_000) {
        let t = &degenerate[(rng.next_u64() % 5) as usize];
        let target = t.a + (t.b - t.a) * rng.range(0.0, 1.0);
        let origin = rng.point(4.0);
        let ray = Ray::new(origin, target - origin);
        assert!(
            ray_triangle(&ray, 0.0, Real::INFINITY, t).is_none(),
            "{t:?} {ray:?}"
        );
    }
}

#[test]
fn ray_through_a_vertex_of_a_sliver_hits_via_the_f64_fallback() {
    // In the ray frame (x and y swapped for this ray) the edge function of bc
    // is (1 + 2⁻¹¹)·1 − (1 + 2⁻¹²)², exactly −2⁻²⁴, which f32 rounds to 0.
    // The ray passes through vertex a, so the other two are exactly 0: only
    // the f64 recomputation keeps det ≠ 0 and reports the touching hit.
    let e = 2f32.powi(-12);
    let t = tri(
        p(0.0, 0.0, 0.0),
        p(1.0, 1.0 + e, 0.0),
        p(1.0 + e, 1.0 + 2.0 * e, 0.0),
    );
    assert_eq!(t.scaled_normal(), Vector::zeros(), "f32 sees no area");
    let hit =
        ray_triangle(&Ray::new(p(0.0, 0.0, 1.0), v(0.0, 0.0, -1.0)), 0.0, 2.0, &t).expect("hit");
    assert_eq!((hit.t, hit.w, hit.u, hit.v), (1.0, 1.0, 0.0, 0.0));
    assert!(!hit.front_face, "the exact normal points down");
}

#[test]
fn nan_infinite_or_zero_direction_input_gives_none() {
    let t = flat_triangle();
    let good = Ray::new(p(1.0, 1.0, 1.0), v(0.0, 0.0, -1.0));
    assert!(ray_triangle(&good, 0.0, Real::INFINITY, &t).is_some());
    let bad_rays = [
        Ray::new(p(Real::NAN, 1.0, 1.0), v(0.0, 0.0, -1.0)),
        Ray::new(p(1.0, 1.0, 1.0), v(0.0, Real::NAN, -1.0)),
        Ray::new(p(1.0, 1.0, Real::INFINITY), v(0.0, 0.0, -1.0)),
        Ray::new(p(1.0, 1.0, 1.0), v(0.0, 0.0, Real::NEG_INFINITY)),
        Ray::new(p(1.0, 1.0, 1.0), Vector::zeros()),
        Ray::new(p(1.0, 1.0, 1.0), v(0.0, 0.0, -1e-45)),
    ];
    for ray in bad_rays {
        assert!(WatertightRay::new(&ray).is_none(), "{ray:?}");
        assert!(
            ray_triangle(&ray, 0.0, Real::INFINITY, &t).is_none(),
            "{ray:?}"
        );
    }
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        for k in 0..9 {
            let mut vs = t.vertices();
            vs[k / 3][k % 3] = bad;
            let bad_t = tri(vs[0], vs[1], vs[2]);
            assert!(
                ray_triangle(&good, 0.0, Real::INFINITY, &bad_t).is_none(),
                "{bad_t:?}"
            );
        }
    }
    assert!(ray_triangle(&good, Real::NAN, Real::INFINITY, &t).is_none());
    assert!(ray_triangle(&good, 0.0, Real::NAN, &t).is_none());
}

#[test]
fn face_culling_keeps_only_the_requested_side() {
    let t = flat_triangle(); // normal +z
    let down = Ray::new(p(1.0, 1.0, 1.0), v(0.0, 0.0, -1.0)); // arrives on the front
    let up = Ray::new(p(1.0, 1.0, -1.0), v(0.0, 0.0, 1.0)); // arrives on the back
    let hit = |ray: &Ray, c: FaceCulling| {
        WatertightRay::new(ray)
            .unwrap()
            .with_culling(c)
            .intersect(&t, 0.0, Real::INFINITY)
    };
    assert!(hit(&down, FaceCulling::Off).unwrap().front_face);
    assert!(!hit(&up, FaceCulling::Off).unwrap().front_face);
    assert!(hit(&down, FaceCulling::Back).is_some());
    assert!(hit(&up, FaceCulling::Back).is_none());
    assert!(hit(&down, FaceCulling::Front).is_none());
    assert!(hit(&up, FaceCulling::Front).is_some());
    // On an edge, culling still follows the face, not the edge.
    let on_edge = Ray::new(p(2.0, 0.0, 1.0), v(0.0, 0.0, -1.0));
    assert!(hit(&on_edge, FaceCulling::Back).is_some());
    assert!(hit(&on_edge, FaceCulling::Front).is_none());
}

#[test]
fn t_range_is_inclusive_and_respected() {
    let t = flat_triangle();
    let ray = Ray::new(p(1.0, 1.0, 2.0), v(0.0, 0.0, -1.0)); // hits at t = 2
    assert_eq!(ray_triangle(&ray, 0.0, 2.0, &t).unwrap().t, 2.0);
    assert_eq!(ray_triangle(&ray, 2.0, 3.0, &t).unwrap().t, 2.0);
    assert!(ray_triangle(&ray, 0.0, 1.5, &t).is_none());
    assert!(ray_triangle(&ray, 2.5, 3.0, &t).is_none());
    // Behind the origin.
    let away = Ray::new(p(1.0, 1.0, 2.0), v(0.0, 0.0, 1.0));
    assert!(ray_triangle(&away, 0.0, Real::INFINITY, &t).is_none());
    assert_eq!(ray_triangle(&away, -5.0, 0.0, &t).unwrap().t, -2.0);
}

proptest! {
    #[test]
    fn hit_point_is_on_the_ray_and_matches_the_barycentrics(
        t in triangle_strategy(2.0), origin in point(4.0), b in (0.0f32..1.0, 0.0f32..1.0)
    ) {
        let (u, w) = if b.0 + b.1 <= 1.0 { b } else { (1.0 - b.0, 1.0 - b.1) };
        let target = t.point_at(u, w);
        let ray = Ray::new(origin, target - origin);
        if let Some(hit) = ray_triangle(&ray, 0.0, Real::INFINITY, &t) {
            let on_ray = ray.point_at(hit.t);
            let on_triangle = t.point_at(hit.u, hit.v);
            let scale = 1.0 + (t.aabb().extents().norm() + (origin - target).norm());
            // A ray almost in the triangle's plane meets it along a line:
            // `t` and the barycentrics are ratios over a near-zero
            // determinant, so the two points agree only to about `ε / sin θ`
            // of the scale (a seed found sin θ = 1.6e-6, 2 mm apart).
            let normal = (t.b - t.a).cross(&(t.c - t.a));
            let sin = (normal.dot(&ray.direction) / (normal.norm() * ray.direction.norm())).abs();
            let grazing = (1e-3 / sin).max(1.0);
            prop_assert!(
                (on_ray - on_triangle).norm() <= 1e-4 * scale * grazing,
                "{on_ray:?} vs {on_triangle:?}, sin θ = {sin}"
            );
            prop_assert!((hit.u + hit.v + hit.w - 1.0).abs() <= 1e-5);
            prop_assert!(hit.u >= 0.0 && hit.v >= 0.0 && hit.w >= 0.0);
        }
    }

    #[test]
    fn ray_and_segment_agree_and_direction_scale_only_rescales_t(
        t in triangle_strategy(2.0), a in point(4.0), b in point(4.0)
    ) {
        let seg = Segment::new(a, b);
        let s = segment_triangle(&seg, &t);
        let r = ray_triangle(&Ray::new(a, (b - a) * 2.0), 0.0, 0.5, &t);
        prop_assert_eq!(s.is_some(), r.is_some());
        if let (Some(s), Some(r)) = (s, r) {
            prop_assert!((s.t - 2.0 * r.t).abs() <= 1e-6);
        }
    }
}

// ================================================================ triangle–triangle

#[test]
fn triangles_agree_with_sat_oracle_on_a_small_integer_grid() {
    // Coordinates in {-2, …, 2}: countless shared vertices and edges,
    // touching, coplanar and degenerate pairs; every oracle product is exact.
    let mut rng = SplitMix(0x7472_6974);
    let (mut overlapping, mut coplanar) = (0, 0);
    for _ in 0..seeded_cases(40_000) {
        let a = int_triangle(&mut rng, 2);
        let b = int_triangle(&mut rng, 2);
        let ours = triangles_overlap(&a, &b);
        if collinear(&a) || collinear(&b) {
            assert!(!ours, "degenerate {a:?} {b:?}");
            continue;
        }
        assert_eq!(ours, tri_tri_oracle(&a, &b), "{a:?} {b:?}");
        assert_eq!(ours, exact_tri_tri_oracle(&a, &b), "{a:?} {b:?}");
        assert_eq!(ours, triangles_overlap(&b, &a), "asymmetric {a:?} {b:?}");
        overlapping += usize::from(ours);
        coplanar += usize::from(a.scaled_normal().cross(&b.scaled_normal()) == Vector::zeros());
    }
    assert!(
        overlapping > 5_000 && coplanar > 200,
        "{overlapping} overlapping, {coplanar} coplanar"
    );
}

#[test]
fn triangles_agree_with_exact_oracle_on_near_coplanar_pairs() {
    // T2's vertices are lattice points of T1's plane moved by at most one unit
    // off it, with coordinates up to 2^20: the plane-side determinants are far
    // below the f64 rounding of their terms, so only exact predicates agree.
    let mut rng = SplitMix(0x6e65_6172);
    for _ in 0..seeded_cases(4_000) {
        let scale = 1 << 18;
        let a = int_point(&mut rng, scale);
        let e1 = int_point(&mut rng, 16).coords;
        let e2 = int_point(&mut rng, 16).coords;
        let t1 = tri(a, a + e1 * 64.0, a + e2 * 64.0);
        if collinear(&t1) {
            continue;
        }
        let mut in_plane = || {
            let (i, j) = (int(&mut rng, 80) as Real, int(&mut rng, 80) as Real);
            let nudge = Vector::from(
                [int(&mut rng, 1), int(&mut rng, 1), int(&mut rng, 1)].map(|x| x as Real),
            );
            a + e1 * i + e2 * j + nudge
        };
        let t2 = tri(in_plane(), in_plane(), in_plane());
        if collinear(&t2) {
            continue;
        }
        agrees_with_exact_oracle(&t1, &t2);
    }
}

/// Asserts `triangles_overlap` gives the exact oracle's answer in both
/// argument orders, and returns that answer.
fn agrees_with_exact_oracle(t1: &Triangle, t2: &Triangle) -> bool {
    let expected = exact_tri_tri_oracle(t1, t2);
    assert_eq!(triangles_overlap(t1, t2), expected, "{t1:?} {t2:?}");
    assert_eq!(triangles_overlap(t2, t1), expected, "{t2:?} {t1:?}");
    expected
}

#[test]
fn triangles_agree_with_sat_oracle_on_random_pairs() {
    let mut rng = SplitMix(0x7261_6e64);
    let mut checked = 0;
    for _ in 0..seeded_cases(20_000) {
        let a = random_triangle(&mut rng, 1.0);
        let b = random_triangle(&mut rng, 1.0);
        if let Some(expected) = stable_tri_tri(&a, &b) {
            assert_eq!(triangles_overlap(&a, &b), expected, "{a:?} {b:?}");
            checked += 1;
        }
    }
    assert!(checked > 18_000);
}

#[test]
fn triangle_overlap_is_exactly_invariant_under_lattice_motions() {
    // Axis permutations with sign flips, integer translations and power-of-two
    // scaling are exact in f32: the answer may not change, touching or not.
    let rotations = signed_permutations();
    let mut rng = SplitMix(0x6c61_7474);
    for _ in 0..seeded_cases(4_000) {
        let a = int_triangle(&mut rng, 2);
        let b = int_triangle(&mut rng, 2);
        let expected = triangles_overlap(&a, &b);
        let r = rotations[(rng.next_u64() % 24) as usize];
        let shift = int_point(&mut rng, 1000).coords;
        let scale =
            [2f32.powi(-30), 1.0, 2f32.powi(20), 2f32.powi(40)][(rng.next_u64() % 4) as usize];
        let motion = |x: Point| Point::from((r * x.coords + shift) * scale);
        let (ma, mb) = (map_triangle(&a, motion), map_triangle(&b, motion));
        assert_eq!(
            triangles_overlap(&ma, &mb),
            expected,
            "{a:?} {b:?} {r} {shift} {scale}"
        );
    }
}

#[test]
fn exact_predicates_decide_slivers_a_lattice_step_off_coplanar() {
    // T1 = 0, b, b − (1, 1, 1) with b = (2^23, 2^23 − 1, 2^23 − 2): a sliver
    // whose normal is only (1, −2, 1) while its edges are 2^23 long. The
    // lattice points i·b + j·(1, 1, 1) + k·x̂ lie exactly k units (times the
    // normal's x component) off its plane: plane-side determinants of ±1
    // against terms of 2^69, which no f64 evaluation gets right.
    let big = (1u32 << 23) as Real;
    let b = v(big, big - 1.0, big - 2.0);
    let ones = v(1.0, 1.0, 1.0);
    let t1 = tri(Point::origin(), Point::from(b), Point::from(b - ones));
    let mut rng = SplitMix(0x736c_6976);
    let (mut overlapping, mut disjoint) = (0, 0);
    for _ in 0..seeded_cases(3_000) {
        let mut lattice = || {
            let (i, j, k) = (int(&mut rng, 1), int(&mut rng, 3), int(&mut rng, 1));
            Point::from(b * i as Real + ones * j as Real + v(k as Real, 0.0, 0.0))
        };
        let t2 = tri(lattice(), lattice(), lattice());
        if collinear(&t2) {
            continue;
        }
        if agrees_with_exact_oracle(&t1, &t2) {
            overlapping += 1;
        } else {
            disjoint += 1;
        }
    }
    assert!(
        overlapping > 100 && disjoint > 100,
        "{overlapping} overlapping, {disjoint} disjoint"
    );
}

#[test]
fn exact_predicates_decide_mixed_scale_coplanar_and_near_coplanar_pairs() {
    // T1 has coarse vertices (multiples of 2^8 up to 2^30) and T2 fine ones
    // (small integers), all on the plane z = x + y or one unit off it. Their
    // differences carry 30 significant bits, so the f64 products round and a
    // plain f64 determinant gets exactly-zero and ±1 cases wrong.
    let mut rng = SplitMix(0x6d69_7864);
    let coarse = |rng: &mut SplitMix| (int(rng, 1 << 21) * 256) as Real;
    let (mut overlapping, mut disjoint) = (0, 0);
    for _ in 0..seeded_cases(3_000) {
        let on_plane = |x: Real, y: Real, k: Real| p(x, y, x + y + k);
        let t1 = tri(
            on_plane(coarse(&mut rng), coarse(&mut rng), 0.0),
            on_plane(coarse(&mut rng), coarse(&mut rng), 0.0),
            on_plane(coarse(&mut rng), coarse(&mut rng), 0.0),
        );
        let mut fine = || {
            let (x, y, k) = (int(&mut rng, 1000), int(&mut rng, 1000), int(&mut rng, 1));
            on_plane(x as Real, y as Real, k as Real)
        };
        let t2 = tri(fine(), fine(), fine());
        if collinear(&t1) || collinear(&t2) {
            continue;
        }
        if agrees_with_exact_oracle(&t1, &t2) {
            overlapping += 1;
        } else {
            disjoint += 1;
        }
    }
    assert!(
        overlapping > 100 && disjoint > 100,
        "{overlapping} overlapping, {disjoint} disjoint"
    );
}

proptest! {
    #[test]
    fn triangle_overlap_is_symmetric_and_ignores_vertex_order(a in triangle_strategy(1.0), b in triangle_strategy(1.0)) {
        let expected = triangles_overlap(&a, &b);
        prop_assert_eq!(triangles_overlap(&b, &a), expected);
        prop_assert_eq!(triangles_overlap(&tri(a.b, a.c, a.a), &b), expected);
        prop_assert_eq!(triangles_overlap(&tri(a.a, a.c, a.b), &tri(b.c, b.b, b.a)), expected);
    }

    #[test]
    fn triangle_overlap_agrees_with_sat_oracle(a in triangle_strategy(1.0), b in triangle_strategy(1.0)) {
        if let Some(expected) = stable_tri_tri(&a, &b) {
            prop_assert_eq!(triangles_overlap(&a, &b), expected);
        }
    }

    #[test]
    fn triangle_overlap_is_invariant_under_rigid_motion(
        a in triangle_strategy(1.0), b in triangle_strategy(1.0), iso in isometry(100.0)
    ) {
        if stable_tri_tri(&a, &b).is_some() {
            prop_assert_eq!(
                triangles_overlap(&a, &b),
                triangles_overlap(&a.transformed(&iso), &b.transformed(&iso))
            );
        }
    }
}

#[test]
fn triangles_sharing_an_edge_or_a_vertex_overlap() {
    let a = tri(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    // Shared edge, folded out of the plane and coplanar on the other side.
    assert!(triangles_overlap(
        &a,
        &tri(p(1.0, 0.0, 0.0), p(0.0, 0.0, 0.0), p(0.3, -0.2, 0.7))
    ));
    assert!(triangles_overlap(
        &a,
        &tri(p(1.0, 0.0, 0.0), p(0.0, 0.0, 0.0), p(0.5, -1.0, 0.0))
    ));
    // Shared vertex only, out of plane and in plane.
    assert!(triangles_overlap(
        &a,
        &tri(p(1.0, 0.0, 0.0), p(2.0, 0.5, 1.0), p(2.0, -0.5, 1.0))
    ));
    assert!(triangles_overlap(
        &a,
        &tri(p(1.0, 0.0, 0.0), p(2.0, 0.5, 0.0), p(2.0, -0.5, 0.0))
    ));
}

#[test]
fn vertex_touching_a_face_overlaps_and_a_hair_away_does_not() {
    let a = tri(p(0.0, 0.0, 0.0), p(4.0, 0.0, 0.0), p(0.0, 4.0, 0.0));
    let touching = tri(p(1.0, 1.0, 0.0), p(1.0, 2.0, 3.0), p(2.0, 1.0, 3.0));
    assert!(triangles_overlap(&a, &touching));
    let lifted = map_triangle(&touching, |x| x + v(0.0, 0.0, Real::EPSILON));
    assert!(!triangles_overlap(&a, &lifted));
    // The vertex exactly on an edge of `a`, and exactly on a vertex.
    assert!(triangles_overlap(
        &a,
        &tri(p(2.0, 0.0, 0.0), p(2.0, -1.0, 3.0), p(3.0, -1.0, 3.0))
    ));
    assert!(triangles_overlap(
        &a,
        &tri(p(4.0, 0.0, 0.0), p(5.0, 1.0, 3.0), p(5.0, -1.0, 3.0))
    ));
}

#[test]
fn crossing_and_touching_edges_overlap() {
    let a = tri(p(0.0, 0.0, 0.0), p(2.0, 0.0, 0.0), p(1.0, 0.0, 2.0)); // in y = 0
    // An edge of b crosses an edge of a (edge–edge contact, skew planes).
    let b = tri(p(1.0, -1.0, 0.0), p(1.0, 1.0, 0.0), p(1.0, 0.0, -2.0));
    assert!(triangles_overlap(&a, &b));
    let below = map_triangle(&b, |x| x - v(0.0, 0.0, 2f32.powi(-20)));
    assert!(!triangles_overlap(&a, &below));
    // Interpenetrating through the interior.
    let c = tri(p(1.0, -1.0, 0.5), p(1.0, 1.0, 0.5), p(1.2, 0.0, 3.0));
    assert!(triangles_overlap(&a, &c));
}

#[test]
fn coplanar_triangles_overlap_touch_or_separate_exactly() {
    let a = tri(p(0.0, 0.0, 0.0), p(4.0, 0.0, 0.0), p(0.0, 4.0, 0.0));
    let cases = [
        (
            tri(p(1.0, 1.0, 0.0), p(5.0, 1.0, 0.0), p(1.0, 5.0, 0.0)),
            true,
        ), // overlapping
        (
            tri(p(0.5, 0.5, 0.0), p(1.0, 0.5, 0.0), p(0.5, 1.0, 0.0)),
            true,
        ), // inside
        (
            tri(p(-1.0, -1.0, 0.0), p(9.0, -1.0, 0.0), p(-1.0, 9.0, 0.0)),
            true,
        ), // contains
        (
            tri(p(2.0, 2.0, 0.0), p(4.0, 4.0, 0.0), p(3.0, 5.0, 0.0)),
            true,
        ), // vertex on edge
        (
            tri(p(4.0, 0.0, 0.0), p(6.0, 0.0, 0.0), p(5.0, 1.0, 0.0)),
            true,
        ), // vertex on vertex
        (
            tri(p(4.0, 4.0, 0.0), p(2.0, 2.0, 0.0), p(4.0, 0.0, 0.0)),
            true,
        ), // shared edge part
        (
            tri(p(2.0, 2.125, 0.0), p(4.0, 4.0, 0.0), p(3.0, 5.0, 0.0)),
            false,
        ), // gap 1/8
        (
            tri(p(5.0, 0.0, 0.0), p(6.0, 0.0, 0.0), p(5.0, 1.0, 0.0)),
            false,
        ),
    ];
    for (b, expected) in cases {
        assert_eq!(triangles_overlap(&a, &b), expected, "{b:?}");
        assert_eq!(triangles_overlap(&b, &a), expected, "{b:?}");
        // The same in a tilted plane, x ↦ (x, y, x + 2y), exact for these values.
        let tilt = |x: Point| p(x.x, x.y, x.x + 2.0 * x.y);
        assert_eq!(
            triangles_overlap(&map_triangle(&a, tilt), &map_triangle(&b, tilt)),
            expected,
            "{b:?}"
        );
    }
}

#[test]
fn huge_and_tiny_coordinates_keep_exact_answers() {
    let a = tri(p(0.0, 0.0, 0.0), p(4.0, 0.0, 0.0), p(0.0, 4.0, 0.0));
    let touching = tri(p(1.0, 1.0, 0.0), p(1.0, 2.0, 3.0), p(2.0, 1.0, 3.0));
    let apart = tri(p(1.0, 1.0, 0.5), p(1.0, 2.0, 3.0), p(2.0, 1.0, 3.0));
    for scale in [2f32.powi(-40), 1e-6, 1.0, 1e6, 2f32.powi(40)] {
        let s = |t: &Triangle| map_triangle(t, |x| Point::from(x.coords * scale));
        assert!(triangles_overlap(&s(&a), &s(&touching)), "scale {scale}");
        assert!(!triangles_overlap(&s(&a), &s(&apart)), "scale {scale}");
    }
    // Far from the origin, with a one-ulp gap: 1e6 + 0.0625 vs 1e6.
    let off = v(1e6, 1e6, 1e6);
    let a_far = map_triangle(&a, |x| x + off);
    let t_far = map_triangle(&touching, |x| x + off);
    assert!(triangles_overlap(&a_far, &t_far));
    let gap = map_triangle(&t_far, |x| x + v(0.0, 0.0, 0.0625));
    assert!(!triangles_overlap(&a_far, &gap));
}

#[test]
fn degenerate_triangles_never_overlap() {
    let a = tri(p(0.0, 0.0, 0.0), p(4.0, 0.0, 0.0), p(0.0, 4.0, 0.0));
    let segment_through = tri(p(1.0, 1.0, -1.0), p(1.0, 1.0, 0.0), p(1.0, 1.0, 1.0));
    let segment_in_plane = tri(p(1.0, 1.0, 0.0), p(2.0, 1.0, 0.0), p(3.0, 1.0, 0.0));
    let point_on_face = tri(p(1.0, 1.0, 0.0), p(1.0, 1.0, 0.0), p(1.0, 1.0, 0.0));
    for d in [segment_through, segment_in_plane, point_on_face] {
        assert!(!triangles_overlap(&a, &d), "{d:?}");
        assert!(!triangles_overlap(&d, &a), "{d:?}");
        assert!(!triangles_overlap(&d, &d), "{d:?}");
    }
}

#[test]
fn non_finite_triangles_never_overlap() {
    let a = tri(p(0.0, 0.0, 0.0), p(4.0, 0.0, 0.0), p(0.0, 4.0, 0.0));
    assert!(triangles_overlap(&a, &a));
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        for k in 0..9 {
            let mut vs = a.vertices();
            vs[k / 3][k % 3] = bad;
            let b = tri(vs[0], vs[1], vs[2]);
            assert!(
                !triangles_overlap(&a, &b) && !triangles_overlap(&b, &a),
                "{b:?}"
            );
        }
    }
}

// ================================================================ triangle–box

#[test]
fn triangle_aabb_agrees_with_sat_oracle_on_an_integer_grid() {
    // Integer triangles against boxes with integer bounds: touching faces,
    // edges and corners everywhere, parallel edges, degenerate triangles.
    let mut rng = SplitMix(0x6161_6262);
    let mut overlapping = 0;
    for _ in 0..seeded_cases(30_000) {
        let t = int_triangle(&mut rng, 3);
        let b = Aabb::from_corners(int_point(&mut rng, 2), int_point(&mut rng, 2));
        let ours = triangle_overlaps_aabb(&t, &b);
        assert_eq!(ours, tri_aabb_oracle(&t, &b), "{t:?} {b:?}");
        assert_eq!(
            ours,
            triangle_overlaps_obb(&t, &Obb::from_aabb(&b)),
            "{t:?} {b:?}"
        );
        overlapping += usize::from(ours);
    }
    assert!(overlapping > 5_000, "{overlapping}");
}

#[test]
fn triangle_obb_equals_triangle_aabb_after_exact_lattice_motions() {
    let rotations = signed_permutations();
    let mut rng = SplitMix(0x6f62_6262);
    for _ in 0..seeded_cases(10_000) {
        let t = int_triangle(&mut rng, 3);
        let b = Aabb::from_corners(int_point(&mut rng, 2), int_point(&mut rng, 2));
        let r = rotations[(rng.next_u64() % 24) as usize];
        let shift = int_point(&mut rng, 100).coords;
        let motion = |x: Point| Point::from(r * x.coords + shift);
        let obb = Obb::new(motion(b.center()), r, b.half_extents());
        assert_eq!(
            triangle_overlaps_obb(&map_triangle(&t, motion), &obb),
            triangle_overlaps_aabb(&t, &b),
            "{t:?} {b:?} {r}"
        );
    }
}

proptest! {
    #[test]
    fn triangle_obb_agrees_with_sat_oracle(
        t in triangle_strategy(3.0), c in point(2.0), r in rotation(),
        h in (0.0f32..2.0, 0.0f32..2.0, 0.0f32..2.0)
    ) {
        let obb = Obb::new(c, matrix(&r), v(h.0, h.1, h.2));
        if let Some(expected) = stable_tri_obb(&t, &obb) {
            prop_assert_eq!(triangle_overlaps_obb(&t, &obb), expected);
        }
    }

    #[test]
    fn triangle_obb_equals_triangle_aabb_after_transforming_both(
        t in triangle_strategy(3.0), a in point(2.0), b in point(2.0), iso in isometry(50.0)
    ) {
        let aabb = Aabb::from_corners(a, b);
        let obb = Obb::from_aabb(&aabb).transformed(&iso);
        let moved = t.transformed(&iso);
        if stable_tri_obb(&t, &Obb::from_aabb(&aabb)).is_some() {
            prop_assert_eq!(triangle_overlaps_obb(&moved, &obb), triangle_overlaps_aabb(&t, &aabb));
        }
    }

    #[test]
    fn triangle_aabb_ignores_vertex_order(t in triangle_strategy(3.0), a in point(2.0), b in point(2.0)) {
        let aabb = Aabb::from_corners(a, b);
        let expected = triangle_overlaps_aabb(&t, &aabb);
        prop_assert_eq!(triangle_overlaps_aabb(&tri(t.c, t.a, t.b), &aabb), expected);
        prop_assert_eq!(triangle_overlaps_aabb(&tri(t.b, t.a, t.c), &aabb), expected);
    }
}

#[test]
fn triangle_inside_box_and_box_inside_triangle_span_overlap() {
    let b = Aabb::new(p(-1.0, -1.0, -1.0), p(1.0, 1.0, 1.0));
    assert!(triangle_overlaps_aabb(
        &tri(p(-0.5, 0.0, 0.0), p(0.5, 0.0, 0.0), p(0.0, 0.5, 0.2)),
        &b
    ));
    // A huge triangle whose interior slices the box; no vertex near it.
    let huge = tri(
        p(-100.0, -100.0, 0.25),
        p(100.0, -100.0, 0.25),
        p(0.0, 100.0, 0.25),
    );
    assert!(triangle_overlaps_aabb(&huge, &b));
    // Its plane passes just beside the box: only the normal axis separates.
    let beside = tri(
        p(-100.0, -100.0, 1.5),
        p(100.0, -100.0, 1.5),
        p(0.0, 100.0, 1.5),
    );
    assert!(!triangle_overlaps_aabb(&beside, &b));
    // Tilted plane x + y + z = 3 touches the corner (1, 1, 1) exactly.
    let corner = tri(
        p(30.0, -30.0, 3.0),
        p(-30.0, 3.0, 30.0),
        p(3.0, 30.0, -30.0),
    );
    assert!(triangle_overlaps_aabb(&corner, &b));
    let past = map_triangle(&corner, |x| x + v(0.0, 0.0, 0.125));
    assert!(!triangle_overlaps_aabb(&past, &b));
}

#[test]
fn triangle_touching_a_box_face_edge_or_corner_overlaps() {
    let b = Aabb::new(p(0.0, 0.0, 0.0), p(2.0, 2.0, 2.0));
    let cases = [
        tri(p(0.5, 0.5, 2.0), p(1.5, 0.5, 3.0), p(0.5, 1.5, 3.0)), // vertex on the top face
        tri(p(1.0, 2.0, 2.0), p(1.0, 3.0, 3.0), p(2.0, 3.0, 3.0)), // vertex on an edge
        tri(p(2.0, 2.0, 2.0), p(3.0, 2.0, 3.0), p(2.0, 3.0, 3.0)), // vertex on a corner
        tri(p(1.0, 3.0, 2.0), p(3.0, 1.0, 2.0), p(3.0, 3.0, 5.0)), // edge through a corner
        tri(p(0.0, 1.0, 4.0), p(4.0, -3.0, 0.0), p(4.0, 5.0, 0.0)), // face along an edge
    ];
    for t in &cases {
        assert!(triangle_overlaps_aabb(t, &b), "{t:?}");
        assert!(tri_aabb_oracle(t, &b), "{t:?}");
        let away = map_triangle(t, |x| x + v(0.0, 0.0, 2f32.powi(-16)));
        assert!(!triangle_overlaps_aabb(&away, &b), "{away:?}");
        assert!(!tri_aabb_oracle(&away, &b), "{away:?}");
    }
}

#[test]
fn edge_parallel_to_a_box_edge_touching_it_overlaps() {
    // The SAT parallel-edge case: the triangle edge runs along the box edge
    // y = 2, z = 2, so its cross product with the x axis is exactly zero.
    let b = Aabb::new(p(0.0, 0.0, 0.0), p(2.0, 2.0, 2.0));
    let along = tri(p(-1.0, 2.0, 2.0), p(3.0, 2.0, 2.0), p(1.0, 4.0, 3.0));
    assert!(triangle_overlaps_aabb(&along, &b));
    let apart = map_triangle(&along, |x| x + v(0.0, 2f32.powi(-20), 0.0));
    assert!(!triangle_overlaps_aabb(&apart, &b));
    // The same in an oriented box with a rounded rotation: the nearly parallel
    // edge must not be separated by rounding noise when it clearly overlaps.
    let r = Isometry::rotation(v(0.3, -0.7, 0.4));
    let obb = Obb::from_aabb(&b).transformed(&r);
    let inside = tri(p(-1.0, 1.0, 1.0), p(3.0, 1.0, 1.0), p(1.0, 4.0, 3.0)).transformed(&r);
    assert!(triangle_overlaps_obb(&inside, &obb));
}

#[test]
fn degenerate_triangles_are_tested_as_their_segment_or_point() {
    let b = Aabb::new(p(0.0, 0.0, 0.0), p(2.0, 2.0, 2.0));
    let crossing = tri(p(-1.0, 1.0, 1.0), p(1.0, 1.0, 1.0), p(3.0, 1.0, 1.0));
    let passing = tri(p(-1.0, 3.0, 1.0), p(1.0, 3.0, 1.0), p(3.0, 3.0, 1.0));
    let skew_miss = tri(p(-1.0, 0.0, 2.5), p(1.5, 2.5, 2.5), p(4.0, 5.0, 2.5));
    let point_in = tri(p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0), p(1.0, 1.0, 1.0));
    let point_out = tri(p(1.0, 1.0, 3.0), p(1.0, 1.0, 3.0), p(1.0, 1.0, 3.0));
    for (t, expected) in [
        (crossing, true),
        (passing, false),
        (skew_miss, false),
        (point_in, true),
        (point_out, false),
    ] {
        assert_eq!(triangle_overlaps_aabb(&t, &b), expected, "{t:?}");
        assert_eq!(tri_aabb_oracle(&t, &b), expected, "{t:?}");
        assert_eq!(
            triangle_overlaps_obb(&t, &Obb::from_aabb(&b)),
            expected,
            "{t:?}"
        );
    }
}

#[test]
fn triangle_box_with_empty_or_non_finite_input_is_false() {
    let t = tri(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    let b = Aabb::new(p(-1.0, -1.0, -1.0), p(1.0, 1.0, 1.0));
    assert!(triangle_overlaps_aabb(&t, &b));
    assert!(!triangle_overlaps_aabb(&t, &Aabb::EMPTY));
    assert!(!triangle_overlaps_aabb(
        &t,
        &Aabb::new(p(Real::NAN, -1.0, -1.0), p(1.0, 1.0, 1.0))
    ));
    let nan_t = tri(p(Real::NAN, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    assert!(!triangle_overlaps_aabb(&nan_t, &b));
    assert!(!triangle_overlaps_obb(&nan_t, &Obb::from_aabb(&b)));
    let inf_obb = Obb::new(
        p(0.0, 0.0, 0.0),
        Matrix::identity(),
        v(Real::INFINITY, 1.0, 1.0),
    );
    assert!(!triangle_overlaps_obb(&t, &inf_obb));
}

// ================================================================ closest point and sphere

/// Brute-force distance from `x` to the triangle: a dense barycentric grid
/// plus finely sampled edges, in f64. Also returns the grid spacing bound.
fn brute_force_distance(x: &Point, t: &Triangle) -> (f64, f64) {
    let w = |q: Point| q.coords.cast::<f64>();
    let (a, b, c, x) = (w(t.a), w(t.b), w(t.c), w(*x));
    let n = 120;
    let mut best = f64::INFINITY;
    for i in 0..=n {
        for j in 0..=(n - i) {
            let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
            let q = a + (b - a) * u + (c - a) * v;
            best = best.min((q - x).norm());
        }
    }
    let m = 2_000;
    for (s, e) in [(a, b), (b, c), (c, a)] {
        for i in 0..=m {
            let q = s + (e - s) * (i as f64 / m as f64);
            best = best.min((q - x).norm());
        }
    }
    let longest = [(b - a).norm(), (c - b).norm(), (a - c).norm()]
        .into_iter()
        .fold(0.0, f64::max);
    (best, longest / n as f64)
}

fn check_closest_point(x: &Point, t: &Triangle) {
    let cp = closest_point_on_triangle(x, t);
    let scale = 1.0 + t.aabb().extents().norm() + (x - t.a).norm();
    let tol = 1e-5 * scale;
    // The point is on the triangle: valid weights that reproduce it.
    assert!(cp.u >= 0.0 && cp.v >= 0.0 && cp.w >= 0.0, "{cp:?}");
    assert!((cp.u + cp.v + cp.w - 1.0).abs() <= 1e-5, "{cp:?}");
    let rebuilt = Point::from(t.a.coords * cp.w + t.b.coords * cp.u + t.c.coords * cp.v);
    assert!((rebuilt - cp.point).norm() <= tol, "{cp:?} vs {rebuilt:?}");
    // As close as the best sample, and not closer than the grid allows.
    let d = f64::from((cp.point - x).norm());
    let (best, spacing) = brute_force_distance(x, t);
    assert!(
        d <= best + f64::from(tol),
        "{d} > brute force {best} for {x:?} {t:?}"
    );
    assert!(
        d >= best - spacing - f64::from(tol),
        "{d} below brute force {best} for {x:?} {t:?}"
    );
}

#[test]
fn closest_point_matches_brute_force_on_random_triangles() {
    let mut rng = SplitMix(0x636c_6f73);
    for _ in 0..seeded_cases(150) {
        let t = random_triangle(&mut rng, 1.0);
        let x = rng.point(2.0);
        check_closest_point(&x, &t);
    }
}

#[test]
fn closest_point_on_degenerate_and_sliver_triangles_is_on_the_segment_without_nan() {
    let cases = [
        tri(p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0), p(3.0, 3.0, 3.0)), // collinear, b between
        tri(p(3.0, 3.0, 3.0), p(0.0, 0.0, 0.0), p(1.0, 1.0, 1.0)), // collinear, c between
        tri(p(0.0, 0.0, 0.0), p(0.0, 0.0, 0.0), p(2.0, 1.0, 0.0)), // two coincident
        tri(p(1.0, 2.0, 3.0), p(1.0, 2.0, 3.0), p(1.0, 2.0, 3.0)), // a point
        tri(p(0.0, 0.0, 0.0), p(1.0, 1e-6, 0.0), p(2.0, 0.0, 0.0)), // sliver
        tri(p(0.1, 0.2, 0.3), p(0.4, 0.5, 0.6), p(0.7, 0.8, 0.9)), // collinear up to rounding
    ];
    let mut rng = SplitMix(0x6465_6765);
    for t in &cases {
        for _ in 0..seeded_cases(40) {
            let x = rng.point(4.0);
            let cp = closest_point_on_triangle(&x, t);
            assert!(cp.point.coords.iter().all(|c| c.is_finite()), "{cp:?}");
            check_closest_point(&x, t);
        }
    }
}

#[test]
fn closest_point_regions_are_exact_for_simple_cases() {
    let t = flat_triangle();
    let at = |x: Point| closest_point_on_triangle(&x, &t);
    // Vertex regions.
    assert_eq!(at(p(-1.0, -1.0, 5.0)).point, t.a);
    assert_eq!(at(p(6.0, -1.0, 0.0)).point, t.b);
    assert_eq!(at(p(-1.0, 7.0, -2.0)).point, t.c);
    // Edge regions.
    let e = at(p(2.0, -3.0, 1.0));
    assert_eq!((e.point, e.w, e.u, e.v), (p(2.0, 0.0, 0.0), 0.5, 0.5, 0.0));
    assert_eq!(at(p(3.0, 3.0, 1.0)).point, p(2.0, 2.0, 0.0));
    assert_eq!(at(p(-2.0, 1.0, 0.0)).point, p(0.0, 1.0, 0.0));
    // Face region.
    let f = at(p(1.0, 2.0, -7.0));
    assert_eq!(
        (f.point, f.w, f.u, f.v),
        (p(1.0, 2.0, 0.0), 0.25, 0.25, 0.5)
    );
}

proptest! {
    #[test]
    fn triangle_sphere_agrees_with_the_brute_force_distance(
        t in triangle_strategy(1.0), c in point(2.0), r in 0.0f32..2.0
    ) {
        let (best, spacing) = brute_force_distance(&c, &t);
        let r64 = f64::from(r);
        let ours = triangle_overlaps_sphere(&t, &Sphere::new(c, r));
        if best <= r64 * (1.0 - 1e-5) {
            prop_assert!(ours);
        } else if best - spacing > r64 * (1.0 + 1e-5) {
            prop_assert!(!ours);
        }
    }

    #[test]
    fn closest_point_is_no_farther_than_any_vertex_or_the_plane_projection(
        t in triangle_strategy(1.0), x in point(2.0)
    ) {
        let cp = closest_point_on_triangle(&x, &t);
        let d = (cp.point - x).norm();
        for vertex in t.vertices() {
            prop_assert!(d <= (vertex - x).norm() * (1.0 + 1e-5) + 1e-6);
        }
        if let Some(n) = t.normal() {
            prop_assert!(d + 1e-5 >= n.dot(&(x - t.a)).abs());
        }
    }
}

#[test]
fn sphere_touching_a_triangle_face_edge_or_vertex_overlaps() {
    let t = flat_triangle();
    let cases = [
        (p(1.0, 1.0, 2.0), 2.0),   // face, from above
        (p(2.0, -3.0, 0.0), 3.0),  // edge ab, in plane
        (p(2.0, -3.0, 4.0), 5.0),  // edge ab, above (3-4-5)
        (p(-3.0, -4.0, 0.0), 5.0), // vertex a
    ];
    for (c, r) in cases {
        assert!(
            triangle_overlaps_sphere(&t, &Sphere::new(c, r)),
            "{c:?} {r}"
        );
        let smaller = r * (1.0 - Real::EPSILON);
        assert!(
            !triangle_overlaps_sphere(&t, &Sphere::new(c, smaller)),
            "{c:?} {smaller}"
        );
    }
    // A sphere containing the whole triangle, and one centred on it with radius 0.
    assert!(triangle_overlaps_sphere(
        &t,
        &Sphere::new(p(1.0, 1.0, 0.0), 100.0)
    ));
    assert!(triangle_overlaps_sphere(
        &t,
        &Sphere::new(p(1.0, 1.0, 0.0), 0.0)
    ));
}

#[test]
fn triangle_sphere_with_degenerate_or_non_finite_input() {
    let segment = tri(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(2.0, 0.0, 0.0));
    assert!(triangle_overlaps_sphere(
        &segment,
        &Sphere::new(p(2.0, 1.0, 0.0), 1.0)
    ));
    assert!(!triangle_overlaps_sphere(
        &segment,
        &Sphere::new(p(3.0, 1.0, 0.0), 1.0)
    ));
    let t = flat_triangle();
    assert!(!triangle_overlaps_sphere(
        &t,
        &Sphere::new(p(Real::NAN, 0.0, 0.0), 1.0)
    ));
    assert!(!triangle_overlaps_sphere(
        &t,
        &Sphere::new(p(0.0, 0.0, 0.0), Real::NAN)
    ));
    assert!(!triangle_overlaps_sphere(
        &t,
        &Sphere::new(p(0.0, 0.0, 0.0), Real::INFINITY)
    ));
    let inf_t = tri(
        p(Real::INFINITY, 0.0, 0.0),
        p(1.0, 0.0, 0.0),
        p(0.0, 1.0, 0.0),
    );
    assert!(!triangle_overlaps_sphere(
        &inf_t,
        &Sphere::new(p(0.0, 0.0, 0.0), 1.0)
    ));
}

/// A needle (two corners 1e-7 apart) crossing a proper triangle: their
/// common point lies on both. Tried with the proper triangle's edges
/// first, the crossing came from the needle's noise plane, anywhere along
/// the proper edge (5e-3 off the needle).
#[test]
fn needles_through_faces_meet_them_at_a_common_point() {
    use boxtree::intersect::triangle_distance;
    use common::exact64::{p64, point_triangle};
    let mut rng = SplitMix(23);
    for case in 0..2000 {
        let face = Triangle::new(rng.point(1.0), rng.point(1.0), rng.point(1.0));
        if face.scaled_normal().norm() < 0.1 {
            continue;
        }
        // Through the face, or through its edge ab (where the face's edge
        // crosses the needle's sliver of area).
        let through = if case % 2 == 0 {
            face.point_at(rng.range(0.1, 0.4), rng.range(0.1, 0.4))
        } else {
            face.point_at(rng.range(0.2, 0.8), 0.0)
        };
        let along = rng.vector(-1.0, 1.0);
        let (a, b) = (through - along, through + along * rng.range(0.5, 1.0));
        let needle = Triangle::new(a, b, b + rng.vector(-1e-7, 1e-7));
        for (t1, t2) in [(face, needle), (needle, face)] {
            let d = triangle_distance(&t1, &t2);
            // They meet, up to the rounding of the needle's corners; the
            // distance within the routine's `64 ε` of the coordinates.
            let tolerance = 64.0 * f64::from(Real::EPSILON) * 2.0;
            assert!(
                f64::from(d.distance) <= tolerance,
                "case {case}: {}",
                d.distance
            );
            for (t, p) in [(t1, d.p1), (t2, d.p2)] {
                let off = point_triangle(p64(&p), t.vertices().map(|v| p64(&v)));
                assert!(off <= tolerance, "case {case}: {p:?} is {off} off {t:?}");
            }
        }
    }
}

/// NaN or infinite input has no distance: a NaN vertex had answered 0, and
/// a NaN only in one `z` a finite 8.66.
#[test]
fn triangle_distance_of_non_finite_input_is_nan() {
    use boxtree::intersect::triangle_distance;
    let p = |x, y, z| Point::new(x, y, z);
    let unit = Triangle::new(p(0.0, 0.0, 0.0), p(1.0, 0.0, 0.0), p(0.0, 1.0, 0.0));
    for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
        for corner in 0..3 {
            for axis in 0..3 {
                let mut vertices = [p(5.0, 5.0, 5.0), p(6.0, 5.0, 5.0), p(5.0, 6.0, 5.0)];
                vertices[corner][axis] = bad;
                let other = Triangle::new(vertices[0], vertices[1], vertices[2]);
                for (t1, t2) in [(unit, other), (other, unit)] {
                    let d = triangle_distance(&t1, &t2);
                    assert!(d.distance.is_nan(), "{t1:?} {t2:?}: {d:?}");
                }
            }
        }
    }
}
