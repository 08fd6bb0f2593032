//! Signed distance and the inside test for closed meshes.
//!
//! A point lies inside a closed, consistently oriented surface exactly when
//! its offset from its nearest surface point points against the
//! angle-weighted pseudo-normal of the feature (face, edge or vertex) that
//! nearest point lies on (Bærentzen & Aanæs, "Signed Distance Computation
//! Using the Angle Weighted Pseudonormal", IEEE TVCG 2005). A face's
//! pseudo-normal is its normal, an edge's the sum of its two faces' unit
//! normals, a vertex's the sum of its faces' unit normals weighted by their
//! angles at it. Where the sign is undefined (a boundary edge, an edge of
//! three faces, two faces running the same way along an edge) the surface
//! is refused when it is prepared, with the offending edge named; so is a
//! surface with a zero-area triangle, whose missing normal would leave the
//! edges it shares without their other side (a T-junction closed by a
//! collinear triangle then reads points beside it as inside).

use std::collections::HashMap;
use std::fmt;

use crate::bounding_volume::Aabb;
use crate::bvh::BoundingVolume;
use crate::exact;
use crate::intersect::closest_point_on_triangle;
use crate::math::{Point, Real, Vector};
use crate::mesh::TriangleId;
use crate::query::{MeshTree, PointProjection, PointQuery};

/// Why a mesh has no inside: the first edge (as vertex indices, in their
/// order) that is not shared by exactly two triangles running opposite
/// ways, or, when every edge is, the first triangle without a normal.
/// Edges are checked first, so a triangle naming a vertex twice (`[0, 0,
/// 1]`) is reported by its edge `[0, 0]`, which no other triangle shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SurfaceError {
    /// An edge of one triangle only: the surface has a hole there.
    OpenEdge {
        /// The edge's vertices.
        edge: [u32; 2],
    },
    /// An edge of three or more triangles.
    NonManifoldEdge {
        /// The edge's vertices.
        edge: [u32; 2],
        /// How many triangles share it.
        triangles: u32,
    },
    /// Two triangles run the same way along a shared edge: their normals
    /// disagree about which side is out.
    InconsistentOrientation {
        /// The edge's vertices.
        edge: [u32; 2],
    },
    /// A triangle of zero area (collinear or coincident corners): it has no
    /// normal, so the pseudo-normals of the edges it shares lack one side.
    DegenerateTriangle {
        /// The triangle.
        triangle: TriangleId,
    },
}

impl fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SurfaceError::OpenEdge { edge } => {
                write!(
                    f,
                    "the edge {}-{} belongs to one triangle only (the surface is open)",
                    edge[0], edge[1]
                )
            }
            SurfaceError::NonManifoldEdge { edge, triangles } => write!(
                f,
                "the edge {}-{} belongs to {triangles} triangles (not a manifold)",
                edge[0], edge[1]
            ),
            SurfaceError::InconsistentOrientation { edge } => write!(
                f,
                "the two triangles at edge {}-{} are oriented alike (inside and outside disagree)",
                edge[0], edge[1]
            ),
            SurfaceError::DegenerateTriangle { triangle } => write!(
                f,
                "triangle {} has zero area (no normal, so the sides of its edges are undefined)",
                triangle.index()
            ),
        }
    }
}

impl std::error::Error for SurfaceError {}

/// A point's signed distance from a closed surface: negative inside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedDistance {
    /// The distance, negative for points inside; 0 on the surface.
    pub signed: Real,
    /// The nearest surface point, its triangle and weights.
    pub projection: PointProjection,
}

/// A mesh tree whose surface is closed and consistently oriented, with the
/// pseudo-normals its signed distances need (about 48 bytes per triangle).
#[derive(Clone, Debug)]
pub struct ClosedMesh<'a, V> {
    tree: &'a MeshTree<V>,
    /// Per triangle: the face normal, then the pseudo-normals of its edges
    /// `ab`, `bc`, `ca`.
    faces: Vec<[Vector; 4]>,
    /// Per vertex: the angle-weighted pseudo-normal.
    vertices: Vec<Vector>,
    /// True when the triangles wind clockwise seen from outside (their
    /// normals point in): the enclosed volume by their winding is negative.
    inward: bool,
}

impl<V: BoundingVolume> MeshTree<V> {
    /// The closed surface of this mesh, ready for signed distances and
    /// inside tests, or the first edge that makes it open, non-manifold or
    /// inconsistently oriented, or the first triangle of zero area (remove
    /// such triangles and merge their vertices first). Topology is by
    /// vertex index: a triangle soup whose copies of a vertex are not
    /// merged is open. Either winding is accepted, as the whole mesh's: a
    /// surface whose normals all point in (clockwise seen from outside)
    /// encloses a negative volume by its winding, and its inside is still
    /// the bounded side. The winding is the sum over all components, so
    /// separate components must be wound alike (a hollow solid's cavity,
    /// wound the other way as it should be, is inside its shell): a small
    /// outward box beside a large inward one reads inside out.
    pub fn closed(&self) -> Result<ClosedMesh<'_, V>, SurfaceError> {
        let mesh = self.mesh();
        let indices = mesh.indices();
        // Every undirected edge: its triangles' directed uses, +1 for a→b
        // with a < b, −1 for the other way, and how many.
        let mut edges: HashMap<(u32, u32), (i32, u32)> = HashMap::with_capacity(indices.len() * 2);
        for t in indices {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                let entry = edges.entry((a.min(b), a.max(b))).or_insert((0, 0));
                entry.0 += if a < b { 1 } else { -1 };
                entry.1 += 1;
            }
        }
        let mut sorted: Vec<_> = edges.iter().collect();
        sorted.sort_unstable_by_key(|(edge, _)| **edge);
        for (&(a, b), &(direction, count)) in sorted {
            let edge = [a, b];
            match count {
                1 => return Err(SurfaceError::OpenEdge { edge }),
                2 if direction != 0 => return Err(SurfaceError::InconsistentOrientation { edge }),
                2 => {}
                triangles => return Err(SurfaceError::NonManifoldEdge { edge, triangles }),
            }
        }
        // Unit normals from the `f64` cross product, so that tiny and huge
        // triangles keep theirs; zero only for collinear corners (up to the
        // rounding of the edges' differences).
        let mut face_normals = Vec::with_capacity(indices.len());
        for (index, t) in mesh.triangles().enumerate() {
            match t.scaled_normal_wide().try_normalize(0.0) {
                Some(n) => face_normals.push(n.cast::<Real>()),
                None => {
                    let triangle = TriangleId(index as u32);
                    return Err(SurfaceError::DegenerateTriangle { triangle });
                }
            }
        }
        let mut edge_sums: HashMap<(u32, u32), Vector> = HashMap::with_capacity(edges.len());
        let mut vertices = vec![Vector::zeros(); mesh.vertices().len()];
        for (t, n) in indices.iter().zip(&face_normals) {
            let corners = t.map(|i| mesh.vertices()[i as usize]);
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *edge_sums
                    .entry((a.min(b), a.max(b)))
                    .or_insert_with(Vector::zeros) += n;
                // The angle at corner k.
                let p = corners[k];
                let (e1, e2) = (corners[(k + 1) % 3] - p, corners[(k + 2) % 3] - p);
                let angle = e1.angle(&e2);
                if angle.is_finite() {
                    vertices[t[k] as usize] += n * angle;
                }
            }
        }
        let faces = indices
            .iter()
            .zip(&face_normals)
            .map(|(t, n)| {
                let edge = |k: usize| {
                    let (a, b) = (t[k], t[(k + 1) % 3]);
                    edge_sums[&(a.min(b), a.max(b))]
                };
                [*n, edge(0), edge(1), edge(2)]
            })
            .collect();
        Ok(ClosedMesh {
            tree: self,
            faces,
            vertices,
            inward: enclosed_volume(mesh) < 0.0,
        })
    }
}

impl<V: BoundingVolume> ClosedMesh<'_, V> {
    /// The signed distance of `query`'s point (negative inside, 0 on the
    /// surface) with its nearest surface point; `None` as for
    /// [`MeshTree::closest_point`] (NaN input, nothing within the maximum,
    /// which for a point on the surface must allow the nearest point's
    /// rounding). A point lying exactly on a triangle (exact predicates)
    /// is its own nearest point: distance and sign 0.
    #[must_use]
    pub fn signed_distance(&self, query: impl Into<PointQuery>) -> Option<SignedDistance> {
        let query = query.into();
        let projection = self.tree.closest_point(query)?;
        if let Some(projection) = self.on_surface(&query.point, &projection) {
            return Some(SignedDistance {
                signed: 0.0,
                projection,
            });
        }
        let normal = self.pseudo_normal(&projection);
        let outward = normal.dot(&(query.point - projection.point));
        // 0 reads outside whichever way the surface is wound.
        let inside = if self.inward {
            outward > 0.0
        } else {
            outward < 0.0
        };
        let signed = if inside {
            -projection.distance
        } else {
            projection.distance
        };
        Some(SignedDistance { signed, projection })
    }

    /// True when the point lies inside the closed surface or on it; false
    /// for NaN or infinite input.
    #[must_use]
    pub fn contains(&self, point: &Point) -> bool {
        self.signed_distance(point).is_some_and(|d| d.signed <= 0.0)
    }

    /// The point itself as its nearest surface point (distance 0) when it
    /// lies exactly on a triangle (exact predicates), asked only when the
    /// nearest point found is within the rounding of a closest point: a
    /// point on a face comes out about one ulp beside itself, along the
    /// face, and that offset is at right angles to the pseudo-normal, so
    /// its sign would be noise (a third of the points on a cube's face read
    /// as outside). The nearest triangle found is tried first; next to a
    /// concave edge the face holding the point may not be that one (its
    /// rounded closest point lost to the neighbour's), so every triangle
    /// within the rounding is tried, the lowest id first.
    fn on_surface(&self, point: &Point, projection: &PointProjection) -> Option<PointProjection> {
        let rounding = self.tree.closest_point_rounding();
        if !(projection.distance <= rounding) {
            return None;
        }
        let mesh = self.tree.mesh();
        let holds = |triangle: TriangleId| {
            let [a, b, c] = mesh.triangle(triangle).vertices();
            exact::orient3d(&a, &b, &c, point) == 0.0
                && exact::in_closed_triangle(&a, &b, &c, point)
        };
        let on = |triangle: TriangleId| {
            let weights = closest_point_on_triangle(point, &mesh.triangle(triangle));
            PointProjection {
                point: *point,
                distance: 0.0,
                triangle,
                u: weights.u,
                v: weights.v,
                w: weights.w,
            }
        };
        if holds(projection.triangle) {
            return Some(on(projection.triangle));
        }
        let reach = Vector::repeat(rounding);
        let near = Aabb::new(point - reach, point + reach);
        self.tree
            .triangles_overlapping(near)
            .into_iter()
            .find(|&t| holds(t))
            .map(on)
    }

    /// The pseudo-normal of the feature the nearest point lies on: a
    /// vertex where two weights are 0, an edge where one is, else the face.
    fn pseudo_normal(&self, p: &PointProjection) -> Vector {
        let t = p.triangle.index();
        let [face, ab, bc, ca] = self.faces[t];
        let corners = self.tree.mesh().indices()[t];
        // Weights: w of a, u of b, v of c.
        match (p.w == 0.0, p.u == 0.0, p.v == 0.0) {
            (false, false, false) => face,
            (true, false, false) => bc,
            (false, true, false) => ca,
            (false, false, true) => ab,
            (false, true, true) => self.vertices[corners[0] as usize],
            (true, false, true) => self.vertices[corners[1] as usize],
            (true, true, false) => self.vertices[corners[2] as usize],
            (true, true, true) => face,
        }
    }
}

/// Six times the volume the triangles enclose, signed by their winding
/// (positive for normals pointing out), by the divergence theorem: the sum
/// of `a · (b × c)` over the triangles, in `f64` about the mesh's box
/// centre (so that the terms stay near the volume's size).
fn enclosed_volume(mesh: &crate::mesh::TriMesh) -> f64 {
    let centre = mesh.aabb().center().coords.cast::<f64>();
    mesh.triangles()
        .map(|t| {
            let [a, b, c] = t.vertices().map(|v| v.coords.cast::<f64>() - centre);
            a.dot(&b.cross(&c))
        })
        .sum()
}
