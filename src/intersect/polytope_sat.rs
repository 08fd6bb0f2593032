//! A generic separating-axis test for small convex polytopes.
//!
//! Two convex sets are disjoint exactly when some axis separates their
//! projections; for polytopes it suffices to try the face normals of both and
//! the cross products of every pair of edge directions (Gottschalk 1996;
//! Ericson §5.2.1). This routine is slow and general on purpose: the
//! specialised tests (OBB–OBB, triangle–box, triangle–triangle, segment–box)
//! are cross-checked against it. It computes in `f64` so that, as an oracle,
//! it does not share the rounding of the `f32` tests it checks.

use crate::math::{Point, Vector};

/// A convex polytope described for the separating-axis test.
///
/// `face_normals` are the outward (or inward; sign does not matter) normals of
/// its faces. For flat or lower-dimensional shapes (a triangle, a segment) the
/// "faces" must include the in-plane edge normals, so that coplanar pairs are
/// separated in their plane; `edge_directions` are the directions of its edges.
#[derive(Clone, Copy, Debug)]
pub struct ConvexPolytope<'a> {
    /// Every vertex of the polytope.
    pub vertices: &'a [Point],
    /// Candidate axes from faces (see the type documentation for flat shapes).
    pub face_normals: &'a [Vector],
    /// Edge directions; their pairwise cross products are candidate axes.
    pub edge_directions: &'a [Vector],
}

type V64 = nalgebra::Vector3<f64>;

fn widen(v: &Vector) -> V64 {
    v.cast::<f64>()
}

/// True when the projections of both vertex sets onto `axis` are disjoint
/// (touching projections do not separate).
fn separated_on(a: &[V64], b: &[V64], axis: &V64) -> bool {
    let (amin, amax) = projection(a, axis);
    let (bmin, bmax) = projection(b, axis);
    amax < bmin || bmax < amin
}

fn projection(points: &[V64], axis: &V64) -> (f64, f64) {
    points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            let d = p.dot(axis);
            (lo.min(d), hi.max(d))
        })
}

/// True when the two convex polytopes share at least one point (touching counts).
///
/// Candidate axes that are exactly zero (parallel edges) are skipped: they
/// carry no information, and the face normals cover those configurations.
/// Empty vertex sets overlap nothing.
#[must_use]
pub fn polytopes_overlap(a: &ConvexPolytope<'_>, b: &ConvexPolytope<'_>) -> bool {
    if a.vertices.is_empty() || b.vertices.is_empty() {
        return false;
    }
    let va: Vec<V64> = a.vertices.iter().map(|p| widen(&p.coords)).collect();
    let vb: Vec<V64> = b.vertices.iter().map(|p| widen(&p.coords)).collect();
    let faces = a.face_normals.iter().chain(b.face_normals).map(widen);
    let edges = a.edge_directions.iter().flat_map(|ea| {
        let ea = widen(ea);
        b.edge_directions.iter().map(move |eb| ea.cross(&widen(eb)))
    });
    !faces
        .chain(edges)
        .filter(|axis| *axis != V64::zeros())
        .any(|axis| separated_on(&va, &vb, &axis))
}
