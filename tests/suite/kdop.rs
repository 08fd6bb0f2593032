//! k-DOPs (k = 6, 14, 18, 26) against independent oracles: exact projection
//! intervals of the point sets on the k-DOP directions via the f64 generic SAT
//! (`polytopes_overlap` with the directions as face normals), full SAT of the
//! convex hulls (tetrahedra) for conservativeness, and `Aabb` for k = 6.
//!
//! Integer coordinates make every f32 dot product with the integer directions
//! exact, so those tests demand exact agreement, touching included; random
//! real coordinates are compared only away from touching.

use crate::common;

use boxtree::bounding_volume::{Aabb, Kdop, Kdop6, Kdop14, Kdop18, Kdop26, KdopDirections};
use boxtree::intersect::{ConvexPolytope, polytopes_overlap};
use boxtree::math::{Point, Real, Vector, nalgebra};
use common::point;
use proptest::prelude::*;

type V64 = nalgebra::Vector3<f64>;

/// The oracle: the projections of both point sets overlap on every direction.
fn projections_overlap(a: &[Point], b: &[Point], directions: &[Vector]) -> bool {
    polytopes_overlap(
        &ConvexPolytope {
            vertices: a,
            face_normals: directions,
            edge_directions: &[],
        },
        &ConvexPolytope {
            vertices: b,
            face_normals: &[],
            edge_directions: &[],
        },
    )
}

/// Smallest distance from touching over all directions (in units of each
/// unit direction), computed in f64: positive when separated, negative when overlapping.
fn signed_gap(a: &[Point], b: &[Point], directions: &[Vector]) -> f64 {
    let interval = |points: &[Point], d: &V64| {
        points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                let s = p.coords.cast::<f64>().dot(d);
                (lo.min(s), hi.max(s))
            })
    };
    directions
        .iter()
        .map(|d| {
            let d = d.cast::<f64>().normalize();
            let ((alo, ahi), (blo, bhi)) = (interval(a, &d), interval(b, &d));
            (alo - bhi).max(blo - ahi)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Every k-DOP check on one pair of point sets, for one `N`.
fn check_pair<const N: usize>(a: &[Point], b: &[Point], exact: bool)
where
    Kdop<N>: KdopDirections<N>,
{
    let (ka, kb) = (Kdop::<N>::from_points(a), Kdop::<N>::from_points(b));
    let directions = Kdop::<N>::directions();
    let got = ka.overlaps(&kb);
    assert_eq!(got, kb.overlaps(&ka), "symmetry");
    if exact || signed_gap(a, b, &directions).abs() > 1e-3 {
        assert_eq!(
            got,
            projections_overlap(a, b, &directions),
            "k = {}: {a:?} vs {b:?}",
            2 * N
        );
    }
}

fn check_all(a: &[Point], b: &[Point], exact: bool) {
    check_pair::<3>(a, b, exact);
    check_pair::<7>(a, b, exact);
    check_pair::<9>(a, b, exact);
    check_pair::<13>(a, b, exact);
}

fn int_point(extent: i32) -> impl Strategy<Value = Point> {
    (-extent..=extent, -extent..=extent, -extent..=extent)
        .prop_map(|(x, y, z)| Point::new(x as Real, y as Real, z as Real))
}

fn int_points(extent: i32) -> impl Strategy<Value = Vec<Point>> {
    prop::collection::vec(int_point(extent), 1..8)
}

fn real_points() -> impl Strategy<Value = Vec<Point>> {
    prop::collection::vec(point(4.0), 1..10)
}

fn translated(points: &[Point], offset: &Vector) -> Vec<Point> {
    points.iter().map(|p| p + offset).collect()
}

/// Face normals and edges of the tetrahedron `t`, for the full SAT of its hull.
fn tetrahedron(t: &[Point; 4]) -> ([Vector; 4], [Vector; 6]) {
    let faces = [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
        .map(|[i, j, k]| (t[j] - t[i]).cross(&(t[k] - t[i])));
    let edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)].map(|(i, j)| t[j] - t[i]);
    (faces, edges)
}

fn hulls_overlap(a: &[Point; 4], b: &[Point; 4]) -> bool {
    let ((fa, ea), (fb, eb)) = (tetrahedron(a), tetrahedron(b));
    polytopes_overlap(
        &ConvexPolytope {
            vertices: a,
            face_normals: &fa,
            edge_directions: &ea,
        },
        &ConvexPolytope {
            vertices: b,
            face_normals: &fb,
            edge_directions: &eb,
        },
    )
}

fn contains_all<const N: usize>(k: &Kdop<N>, points: &[Point]) -> bool
where
    Kdop<N>: KdopDirections<N>,
{
    points.iter().all(|p| k.contains_point(p))
}

proptest! {
    #[test]
    fn overlap_matches_projection_oracle_on_integer_points(a in int_points(4), b in int_points(4)) {
        check_all(&a, &b, true);
    }

    #[test]
    fn overlap_matches_projection_oracle_away_from_touching(a in real_points(), b in real_points()) {
        check_all(&a, &b, false);
    }

    #[test]
    fn overlap_is_conservative_for_convex_hulls_and_nested_by_direction_set(
        a in prop::array::uniform4(int_point(4)),
        b in prop::array::uniform4(int_point(4)),
    ) {
        // Full-dimensional tetrahedra only: then face normals and edge cross
        // products are a complete set of separating axes for the oracle.
        let volume = |t: &[Point; 4]| (t[1] - t[0]).cross(&(t[2] - t[0])).dot(&(t[3] - t[0]));
        prop_assume!(volume(&a) != 0.0 && volume(&b) != 0.0);
        let k6 = Kdop6::from_points(&a).overlaps(&Kdop6::from_points(&b));
        let k14 = Kdop14::from_points(&a).overlaps(&Kdop14::from_points(&b));
        let k18 = Kdop18::from_points(&a).overlaps(&Kdop18::from_points(&b));
        let k26 = Kdop26::from_points(&a).overlaps(&Kdop26::from_points(&b));
        if hulls_overlap(&a, &b) {
            prop_assert!(k6 && k14 && k18 && k26);
        }
        // More directions can only separate more: 26 ⊇ 14, 18 ⊇ 6.
        prop_assert!(!k26 || (k14 && k18));
        prop_assert!(!k14 || k6);
        prop_assert!(!k18 || k6);
    }

    #[test]
    fn overlap_is_invariant_under_integer_translation(
        a in int_points(4),
        b in int_points(4),
        offset in int_point(1000),
    ) {
        let (ta, tb) = (translated(&a, &offset.coords), translated(&b, &offset.coords));
        let same = |x: &[Point], y: &[Point]| Kdop26::from_points(x).overlaps(&Kdop26::from_points(y));
        prop_assert_eq!(same(&a, &b), same(&ta, &tb));
        let same14 = |x: &[Point], y: &[Point]| Kdop14::from_points(x).overlaps(&Kdop14::from_points(y));
        prop_assert_eq!(same14(&a, &b), same14(&ta, &tb));
    }

    #[test]
    fn kdop6_overlap_equals_aabb_overlap(a in real_points(), b in real_points()) {
        let (ka, kb) = (Kdop6::from_points(&a), Kdop6::from_points(&b));
        let (ba, bb) = (Aabb::from_points(&a), Aabb::from_points(&b));
        prop_assert_eq!(ka.to_aabb(), ba);
        prop_assert_eq!(ka.overlaps(&kb), ba.overlaps(&bb));
    }

    #[test]
    fn from_points_contains_every_point_and_is_tight(points in real_points()) {
        fn check<const N: usize>(points: &[Point]) -> Result<(), TestCaseError>
        where
            Kdop<N>: KdopDirections<N>,
        {
            let k = Kdop::<N>::from_points(points);
            prop_assert!(!k.is_empty());
            for (i, d) in Kdop::<N>::directions().iter().enumerate() {
                let projections: Vec<Real> = points.iter().map(|p| d.dot(&p.coords)).collect();
                prop_assert!(projections.iter().all(|s| k.min()[i] <= *s && *s <= k.max()[i]));
                prop_assert!(projections.contains(&k.min()[i]) && projections.contains(&k.max()[i]));
            }
            prop_assert!(contains_all(&k, points));
            prop_assert_eq!(k.to_aabb(), Aabb::from_points(points));
            Ok(())
        }
        check::<3>(&points)?;
        check::<7>(&points)?;
        check::<9>(&points)?;
        check::<13>(&points)?;
    }

    #[test]
    fn contains_point_matches_projection_oracle(points in int_points(4), query in int_point(5)) {
        let k = Kdop26::from_points(&points);
        let project = |p: &Point, d: &Vector| p.coords.cast::<f64>().dot(&d.cast::<f64>());
        let inside = Kdop26::directions().iter().all(|d| {
            let q = project(&query, d);
            let lowest = points.iter().map(|p| project(p, d)).fold(f64::INFINITY, f64::min);
            let highest = points.iter().map(|p| project(p, d)).fold(f64::NEG_INFINITY, f64::max);
            lowest <= q && q <= highest
        });
        prop_assert_eq!(k.contains_point(&query), inside);
        prop_assert_eq!(k.contains_point(&query), projections_overlap(&points, &[query], &Kdop26::directions()));
    }

    #[test]
    fn union_contains_both_and_equals_the_kdop_of_all_points(a in real_points(), b in real_points()) {
        let (ka, kb) = (Kdop18::from_points(&a), Kdop18::from_points(&b));
        let merged = ka.union(&kb);
        prop_assert!(merged.contains(&ka) && merged.contains(&kb));
        prop_assert!(contains_all(&merged, &a) && contains_all(&merged, &b));
        prop_assert_eq!(merged, Kdop18::from_points(a.iter().chain(&b)));
        prop_assert_eq!(merged, kb.union(&ka));
    }

    #[test]
    fn from_triangles_equals_from_points_of_the_vertices(points in prop::collection::vec(point(4.0), 3..=12)) {
        let triangles: Vec<[Point; 3]> = points.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        let vertices: Vec<Point> = triangles.iter().flatten().copied().collect();
        prop_assert_eq!(Kdop26::from_triangles(triangles.iter().copied()), Kdop26::from_points(&vertices));
    }
}

#[test]
fn directions_are_the_standard_sets() {
    let axes = [Vector::x(), Vector::y(), Vector::z()];
    assert_eq!(Kdop6::directions(), axes);
    assert_eq!(&Kdop14::directions()[..3], &axes);
    assert_eq!(&Kdop18::directions()[..3], &axes);
    assert_eq!(&Kdop26::directions()[..3], &axes);
    let k26 = Kdop26::directions();
    for d in Kdop14::directions().iter().chain(&Kdop18::directions()) {
        assert!(k26.contains(d), "{d:?} missing from the 26-DOP");
    }
    for d in &Kdop14::directions()[3..] {
        assert!(d.iter().all(|c| c.abs() == 1.0), "corner diagonal {d:?}");
    }
    for d in &Kdop18::directions()[3..] {
        assert_eq!(
            d.iter().filter(|c| c.abs() == 1.0).count(),
            2,
            "edge diagonal {d:?}"
        );
    }
    // No direction repeats in any set, not even with the opposite sign: with the
    // counts and shapes above, these are exactly the standard sets.
    assert_distinct(&Kdop6::directions());
    assert_distinct(&Kdop14::directions());
    assert_distinct(&Kdop18::directions());
    assert_distinct(&k26);
}

fn assert_distinct(directions: &[Vector]) {
    for (i, d) in directions.iter().enumerate() {
        for e in &directions[i + 1..] {
            assert!(d != e && *d != -e, "{d:?} repeats");
        }
    }
}

#[test]
fn touching_kdops_overlap() {
    let cube =
        |o: Real| Aabb::new(Point::new(o, 0.0, 0.0), Point::new(o + 1.0, 1.0, 1.0)).corners();
    let (a, b) = (
        Kdop26::from_points(&cube(0.0)),
        Kdop26::from_points(&cube(1.0)),
    );
    assert!(a.overlaps(&b) && b.overlaps(&a));
    assert!(!a.overlaps(&Kdop26::from_points(&cube(1.5))));
    // A point on the boundary is contained.
    assert!(a.contains_point(&Point::new(1.0, 1.0, 1.0)));
}

/// The corner tetrahedron `x, y, z ≥ 0, x + y + z ≤ 1`, and a triangle with
/// `x + y + z = s` whose bounding box overlaps it.
fn diagonal_pair(s: Real) -> ([Point; 4], [Point; 3]) {
    let corner = [
        Point::origin(),
        Point::new(1.0, 0.0, 0.0),
        Point::new(0.0, 1.0, 0.0),
        Point::new(0.0, 0.0, 1.0),
    ];
    let t = s - 1.0;
    let triangle = [
        Point::new(1.0 + t, 1.0, -1.0),
        Point::new(1.0, -1.0, 1.0 + t),
        Point::new(-1.0, 1.0 + t, 1.0),
    ];
    (corner, triangle)
}

#[test]
fn diagonal_slab_separates_what_the_aabb_cannot() {
    let (a, b) = diagonal_pair(2.0);
    assert!(Kdop6::from_points(&a).overlaps(&Kdop6::from_points(&b)));
    assert!(!Kdop14::from_points(&a).overlaps(&Kdop14::from_points(&b)));
    assert!(!Kdop26::from_points(&a).overlaps(&Kdop26::from_points(&b)));
    assert!(!projections_overlap(&a, &b, &Kdop14::directions()));
}

#[test]
fn touching_on_a_diagonal_slab_only_counts_as_overlap() {
    let (a, b) = diagonal_pair(1.0);
    let (ka, kb) = (Kdop14::from_points(&a), Kdop14::from_points(&b));
    assert_eq!(ka.max()[3], 1.0);
    assert_eq!(kb.min()[3], 1.0);
    assert!(ka.overlaps(&kb) && kb.overlaps(&ka));
    assert!(projections_overlap(&a, &b, &Kdop14::directions()));
}

#[test]
fn edge_diagonal_slab_separates_what_the_aabb_cannot() {
    // The diagonal of the unit square against a segment on x + y = 2.5, tilted
    // in z so that no corner diagonal separates them either.
    let a = [Point::origin(), Point::new(1.0, 1.0, 0.0)];
    let b = [Point::new(2.5, 0.0, -2.0), Point::new(0.0, 2.5, 2.0)];
    assert!(Kdop6::from_points(&a).overlaps(&Kdop6::from_points(&b)));
    assert!(Kdop14::from_points(&a).overlaps(&Kdop14::from_points(&b)));
    assert!(!Kdop18::from_points(&a).overlaps(&Kdop18::from_points(&b)));
    assert!(!Kdop26::from_points(&a).overlaps(&Kdop26::from_points(&b)));
}

#[test]
fn empty_kdop_overlaps_nothing_and_is_the_union_identity() {
    let none: [Point; 0] = [];
    assert_eq!(Kdop26::from_points(&none), Kdop26::EMPTY);
    assert_eq!(Kdop26::from_triangles([]), Kdop26::EMPTY);
    assert!(Kdop26::EMPTY.is_empty());
    assert!(Kdop26::EMPTY.to_aabb().is_empty());
    let some = Kdop26::from_points(&[Point::origin(), Point::new(1.0, 2.0, 3.0)]);
    assert!(!some.is_empty());
    assert!(!some.overlaps(&Kdop26::EMPTY) && !Kdop26::EMPTY.overlaps(&some));
    assert!(!Kdop26::EMPTY.overlaps(&Kdop26::EMPTY));
    assert!(!Kdop26::EMPTY.contains_point(&Point::origin()));
    assert_eq!(some.union(&Kdop26::EMPTY), some);
    assert_eq!(Kdop26::EMPTY.union(&some), some);
    assert!(some.contains(&Kdop26::EMPTY));
}

#[test]
fn single_point_kdop_overlaps_itself() {
    let p = [Point::new(0.1, -0.2, 0.3)];
    let k = Kdop26::from_points(&p);
    assert!(!k.is_empty() && k.overlaps(&k) && k.contains_point(&p[0]));
}

#[test]
fn non_finite_points_are_skipped() {
    let good = [Point::new(1.0, 2.0, 3.0), Point::new(-1.0, 0.0, 2.0)];
    let mut with_bad = good.to_vec();
    with_bad.push(Point::new(Real::NAN, 0.0, 0.0));
    with_bad.push(Point::new(Real::INFINITY, Real::NEG_INFINITY, 0.0));
    assert_eq!(Kdop26::from_points(&with_bad), Kdop26::from_points(&good));
    assert!(!Kdop26::from_points(&good).contains_point(&Point::new(Real::NAN, 2.0, 3.0)));
}

#[test]
fn huge_and_tiny_coordinates_keep_exact_overlap() {
    // Power-of-two scales keep integer-derived coordinates exact.
    for scale in [2f32.powi(40), 2f32.powi(-40)] {
        let s = |p: &[Point]| {
            p.iter()
                .map(|q| Point::from(q.coords * scale))
                .collect::<Vec<_>>()
        };
        let (a, b) = diagonal_pair(1.0);
        let (a, b) = (s(&a), s(&b));
        assert!(Kdop26::from_points(&a).overlaps(&Kdop26::from_points(&b)));
        let (a2, b2) = diagonal_pair(2.0);
        assert!(!Kdop26::from_points(&s(&a2)).overlaps(&Kdop26::from_points(&s(&b2))));
    }
}
