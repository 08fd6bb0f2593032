//! A mesh tree's triangles in leaf order, as the ray kernels read them.
//!
//! Each triangle is kept by axis for the 4-lane watertight test
//! ([`TriangleLanes`], 48 bytes), with its id and whether rays can hit it
//! in the fourth lanes that test never reads: a hit then touches no other
//! memory than the triangle's own lines, and the degeneracy check runs
//! once per tree instead of on the hit path.

use crate::bounding_volume::Aabb;
use crate::intersect::TriangleLanes;
use crate::intersect::triangle_triangle::is_degenerate;
use crate::math::{Real, id_from_lanes, id_to_lanes};
use crate::memory::PageArray;
use crate::mesh::TriMesh;
use crate::shape::{Triangle, TriangleId};

impl TriangleLanes {
    /// `tri` with `id` and its hittable flag in the fourth lanes, as normal
    /// floats (see [`crate::math::id_to_lanes`]): `x` and `y` carry the id,
    /// `z` is `+1` for a triangle rays can hit and `−1` otherwise.
    #[must_use]
    #[inline(always)]
    pub(crate) fn tagged(tri: &Triangle, id: TriangleId, hittable: bool) -> Self {
        let [low, high] = id_to_lanes(id.0);
        TriangleLanes::with_fourth_lanes(tri, [low, high, if hittable { 1.0 } else { -1.0 }])
    }

    /// The id stored by [`TriangleLanes::tagged`].
    #[must_use]
    #[inline(always)]
    pub(crate) fn id(&self) -> TriangleId {
        let [low, high, _] = self.fourth_lanes();
        TriangleId(id_from_lanes(low, high))
    }

    /// The flag stored by [`TriangleLanes::tagged`]: false when rays can
    /// never hit the triangle.
    #[must_use]
    #[inline(always)]
    pub(crate) fn hittable(&self) -> bool {
        self.fourth_lanes()[2] > 0.0
    }
}

/// The mesh's triangles in a tree's leaf order `order`, tagged (for a
/// build, and for a load, which makes them rather than reading them).
pub(crate) fn leaf_triangles(mesh: &TriMesh, order: &[u32]) -> PageArray<TriangleLanes> {
    // Rays read them at random: on huge pages when large.
    let mut triangles = PageArray::with_capacity(order.len());
    let (indices, vertices) = (mesh.indices(), mesh.vertices());
    let mut corners = [[0u32; 3]; GATHER];
    for chunk in order.chunks(GATHER) {
        // The corner indices first, in a loop of loads alone: the leaf
        // order reads the index array out of order, and with the triangle
        // set-up in the same loop too few of those loads were in flight
        // (1M-triangle terrain: 16–17 → 14–15 ms for this pass; also
        // prefetching the next chunk's indices and this chunk's vertices
        // made it 18 ms).
        for (c, &t) in corners.iter_mut().zip(chunk) {
            *c = indices[t as usize];
        }
        for (&t, &[a, b, c]) in chunk.iter().zip(&corners) {
            let tri = Triangle::new(
                vertices[a as usize],
                vertices[b as usize],
                vertices[c as usize],
            );
            triangles.push(TriangleLanes::tagged(&tri, TriangleId(t), hittable(&tri)));
        }
    }
    triangles
}

/// The box of a run of leaf triangles (a leaf's, in refits). A loop by
/// component measured the same as this fold (1M terrain `set_vertices`,
/// alternated criterion runs: 54.5–56.5 against 54.4–54.9 ms).
#[inline(always)]
pub(crate) fn run_box(run: &[TriangleLanes]) -> Aabb {
    run.iter().fold(Aabb::EMPTY, |b, t| b.union(&t.aabb()))
}

/// Triangles whose corner indices [`leaf_triangles`] gathers ahead.
const GATHER: usize = 256;

/// Rewrites `triangles` (made by [`leaf_triangles`] for a tree with leaf
/// order `order`) for the mesh's current vertices, in place: a deformed
/// mesh keeps its arrays, which are not faulted in afresh, and every flag
/// is decided again (a triangle may have become degenerate, or stopped
/// being so).
pub(crate) fn refresh_leaf_triangles(
    mesh: &TriMesh,
    order: &[u32],
    triangles: &mut PageArray<TriangleLanes>,
) {
    for (lanes, &t) in triangles.iter_mut().zip(order) {
        *lanes = tagged(mesh, t);
    }
}

/// Triangle `t` of the mesh, tagged with its id and flag.
#[inline(always)]
fn tagged(mesh: &TriMesh, t: u32) -> TriangleLanes {
    let id = TriangleId(t);
    let tri = mesh.triangle(id);
    TriangleLanes::tagged(&tri, id, hittable(&tri))
}

/// Whether rays can hit `tri`: exact area and a representable normal.
///
/// The `f32` cross product decides almost every triangle without the exact
/// test: each computed edge is within `u` of the exact one per component,
/// and the products and the difference add `2u` more, so a component of
/// the normal is off by at most `2γ₄ |e₁|∞ |e₂|∞ ≈ 8u |e₁|∞ |e₂|∞`
/// (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1). One
/// larger than twice that means the exact normal is not zero, so the
/// vertices are not collinear. The argument holds where rounding is
/// relative: the bound must be a normal number, and the product of the
/// edge sizes is taken first, so that it does not pass through subnormals
/// and overflows to `∞` whenever a product in the normal does (one product
/// at `∞` beside a finite one would otherwise pass for a large normal).
/// The rest go to the exact test (it took a tenth of the leaf-triangle
/// pass on a 1M-triangle terrain).
#[inline(always)]
fn hittable(tri: &Triangle) -> bool {
    // In scalars: with nalgebra's vectors the compiler stored the triangle
    // in pieces and read it back wider, and waited on every such load.
    let (a, b, c) = (&tri.a, &tri.b, &tri.c);
    let e1 = [b.x - a.x, b.y - a.y, b.z - a.z];
    let e2 = [c.x - a.x, c.y - a.y, c.z - a.z];
    // `Triangle::normal`'s cross product and test.
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let amax = |v: [Real; 3]| v[0].abs().max(v[1].abs()).max(v[2].abs());
    // A zero `f32` normal is a degenerate triangle as `Triangle::is_degenerate`
    // decides it (its square is not tested: that underflows for edges
    // below about 1e-10, whose normals `Triangle::normal` finds in `f64`).
    if n == [0.0; 3] {
        return false;
    }
    let bound = 8.0 * Real::EPSILON * (amax(e1) * amax(e2));
    let clear = bound >= Real::MIN_POSITIVE && amax(n) > bound;
    clear || hittable_cold(*tri)
}

/// The exact rule for the triangles the `f32` bound leaves open: not
/// collinear ([`is_degenerate`]) and with a normal (which [`Triangle::normal`]
/// finds in `f64` where the `f32` square underflows, so tiny triangles are
/// hit). Out of line, on a copy made only here: a reference to the
/// caller's triangle kept it in memory on the hot path, written in pieces
/// and read back wider, which stalled each iteration on the stores.
#[cold]
#[inline(never)]
fn hittable_cold(tri: Triangle) -> bool {
    !is_degenerate(&tri) && tri.normal().is_some()
}

#[cfg(test)]
mod tests {
    use super::hittable;
    use crate::intersect::triangle_triangle::is_degenerate;
    use crate::math::{Point, Real};
    use crate::shape::Triangle;
    use crate::test_support::unit_floats;

    /// The exact rule that the fast path shortcuts.
    fn exact_rule(tri: &Triangle) -> bool {
        tri.normal().is_some() && !is_degenerate(tri)
    }

    #[test]
    fn the_fast_path_agrees_with_the_exact_rule() {
        // Integer grid points times a power of two, so that a point a
        // dyadic fraction of the way from a to b is exactly on their line;
        // with coordinates up to 2^13 the products round, and the rounded
        // cross product of collinear points need not be zero.
        let mut rand = unit_floats(0x4a7);
        let mut decided = [0usize; 2];
        // Collinear triples whose rounded cross product is not zero: the
        // cases where a bound too small would answer wrongly.
        let mut rounded_off_line = 0;
        for scale in [-100, -60, -20, 0, 20, 60].map(|e: i32| (2.0 as Real).powi(e)) {
            for case in 0..4000 {
                let mut point = || {
                    let mut grid = || (rand() * 1024.0).floor() * 8.0;
                    Point::new(grid(), grid(), grid()) * scale
                };
                let (a, b) = (point(), point());
                let c = match case % 4 {
                    0 => point(),
                    // Three points of one line, exactly, whose edges round
                    // differently per component (multiples of (1, 3, 5)
                    // with 22-bit integer and small fractional parts), so
                    // that the rounded cross product is not zero.
                    1 => {
                        let mut whole = |bits: Real| (rand() * bits).floor();
                        let ks = [
                            whole(524_288.0) + 524_288.5,
                            whole(8.0) / 8.0,
                            -whole(262_144.0) - 0.25,
                        ];
                        let [p, q, r] = ks.map(|k| {
                            let on = [1.0, 3.0, 5.0].map(|d: f64| d * f64::from(k));
                            assert!(on.iter().all(|&x| f64::from(x as Real) == x));
                            Point::new(on[0] as Real, on[1] as Real, on[2] as Real) * scale
                        });
                        let line = Triangle::new(p, q, r);
                        let (e1, e2) = (line.b - line.a, line.c - line.a);
                        rounded_off_line += usize::from(e1.cross(&e2).amax() > 0.0);
                        let expected = exact_rule(&line);
                        assert_eq!(hittable(&line), expected, "scale {scale}: {line:?}");
                        decided[usize::from(expected)] += 1;
                        a + (b - a) * 0.375
                    }
                    // A hair off it.
                    2 => {
                        let on = a + (b - a) * 0.625;
                        Point::new(on.x, on.y, on.z.next_up())
                    }
                    // Coincident vertices.
                    _ => a,
                };
                let tri = Triangle::new(a, b, c);
                let expected = exact_rule(&tri);
                assert_eq!(
                    hittable(&tri),
                    expected,
                    "scale {scale}, case {case}: {tri:?}"
                );
                decided[usize::from(expected)] += 1;
            }
        }
        // Both answers occur, so the test sees both sides of the bound.
        assert!(decided[0] > 10000 && decided[1] > 5000, "{decided:?}");
        assert!(rounded_off_line > 1000, "{rounded_off_line}");
    }

    #[test]
    fn a_product_overflowing_beside_a_finite_one_is_not_a_normal() {
        // Exactly collinear (b = −22369620 a, both on the line through the
        // origin along (0, 1, 3)): the edge products round to f32::MAX and
        // 2^128 = ∞, so the rounded normal has an infinite component.
        let s = (2.0 as Real).powi(51);
        let tri = Triangle::new(
            Point::new(0.0, -s, -3.0 * s),
            Point::new(0.0, 22_369_620.0 * s, 67_108_860.0 * s),
            Point::origin(),
        );
        let (e1, e2) = (tri.b - tri.a, tri.c - tri.a);
        assert_eq!(e1.cross(&e2).amax(), Real::INFINITY);
        assert!(!exact_rule(&tri));
        assert!(!hittable(&tri));
    }

    #[test]
    fn thin_but_proper_triangles_stay_hittable() {
        // A sliver whose normal is far below the edges' product but exact.
        let unit: Real = 1.0;
        let tri = Triangle::new(
            Point::new(0.0, 0.0, 0.0),
            Point::new(unit, 0.0, 0.0),
            Point::new(0.5, f32::EPSILON * 0.25, 0.0),
        );
        assert!(hittable(&tri));
        assert!(exact_rule(&tri));
    }
}
