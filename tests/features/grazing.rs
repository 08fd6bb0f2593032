//! Grazing segments that end exactly in a triangle's plane beside it: the
//! rounded test may see the line pass within rounding of the triangle
//! beyond the end, and the exact end decision had then reported a hit at
//! the end, up to the triangle's size away from it (a differential hunt's
//! finding). An end in the plane now hits only where it lies on the closed
//! triangle.

use crate::common;

use boxtree::bvh::BuildOptions;
use boxtree::intersect::segment_triangle;
use boxtree::{Aabb, MeshTree, PackedObb, Point, Real, Segment, Triangle};
use common::{SplitMix, triangle_soup};

/// Every raycast form on one triangle: the primitive, and both tree kinds'
/// any-hit and closest hit.
fn hits_anywhere(tri: &Triangle, segment: &Segment) -> [bool; 5] {
    let mesh = triangle_soup(&[[tri.a, tri.b, tri.c].map(|p| [p.x, p.y, p.z])]);
    let aabb = MeshTree::<Aabb>::build(mesh.clone(), &BuildOptions::sah());
    let obb = MeshTree::<PackedObb>::build(mesh, &BuildOptions::gottschalk());
    [
        segment_triangle(segment, tri).is_some(),
        aabb.any_hit(*segment).is_some(),
        aabb.closest_hit(*segment).is_some(),
        obb.any_hit(*segment).is_some(),
        obb.closest_hit(*segment).is_some(),
    ]
}

/// A dyadic number in `[-range, range]` with `bits` fractional bits.
fn dyadic(rng: &mut SplitMix, range: i64, bits: u32) -> Real {
    let steps = range << bits;
    ((rng.next_u64() % (2 * steps as u64 + 1)) as i64 - steps) as Real / (1u64 << bits) as Real
}

#[test]
fn grazing_segments_ending_in_the_plane_beside_a_triangle_miss_it() {
    let mut rng = SplitMix(20_261_127);
    for case in 0..3_000 {
        // The plane z = p x + q y through dyadic points, so every point
        // with dyadic x, y (few bits) lies exactly in it.
        let (p, q) = (dyadic(&mut rng, 1, 3), dyadic(&mut rng, 1, 3));
        let on = |x: Real, y: Real| Point::new(x, y, p * x + q * y);
        let tri = Triangle::new(on(0.0, 0.0), on(1.0, 0.0), on(0.0, 1.0));
        // The end: in the plane, beside the triangle (x + y ≥ 1.25, or a
        // negative coordinate), within a few sizes.
        let (x, y) = loop {
            let (x, y) = (dyadic(&mut rng, 3, 4), dyadic(&mut rng, 3, 4));
            if x + y >= 1.25 || x <= -0.25 || y <= -0.25 {
                break (x, y);
            }
        };
        let end = on(x, y);
        // The start: back from the end, away from the triangle's centroid,
        // so that the line beyond the end runs over the triangle; lifted
        // off the plane by a grazing amount (2^-30 to 2^-20 of the length).
        let centroid = (tri.a.coords + tri.b.coords + tri.c.coords) / 3.0;
        let back = (end.coords - centroid).normalize();
        let length = 0.25 + rng.range(0.0, 2.0);
        let lift = length * (2.0 as Real).powi(-20 - case % 11);
        let normal = boxtree::Vector::new(-p, -q, 1.0).normalize();
        let start = Point::from(end.coords + back * length + normal * lift);
        let segment = Segment::new(start, end);
        let hits = hits_anywhere(&tri, &segment);
        assert_eq!(hits, [false; 5], "case {case}: {segment:?} beside {tri:?}");
        // Reversed: the segment starts in the plane beside the triangle.
        let reversed = Segment::new(end, start);
        assert_eq!(
            hits_anywhere(&tri, &reversed),
            [false; 5],
            "case {case} reversed"
        );
    }
}
