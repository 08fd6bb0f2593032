//! Fitting oriented bounding boxes to triangles and point sets.
//!
//! Three statistical fits orient the box by the principal axes of a
//! covariance ([`super::covariance`]) and then size it by projecting every
//! input point on those axes (Gottschalk, Lin, Manocha, "OBBTree",
//! SIGGRAPH 1996; Ericson, *Real-Time Collision Detection* §4.4.3;
//! Akenine-Möller et al., *Real-Time Rendering* 4th ed. §22.13):
//!
//! - [`obb_from_triangles_covariance`]: the covariance of the triangles'
//!   own surface, no hull — the cheap per-node fit of an OBB tree;
//! - [`obb_from_points_hull_covariance`]: Gottschalk's fit, the surface
//!   covariance of the convex hull, which ignores interior points and
//!   tessellation density;
//! - [`obb_from_points_covariance`]: the vertex covariance, as FCL and PQP do,
//!   kept for comparison.
//!
//! [`obb_from_points_min_volume`] searches for a near-minimum-volume box for
//! one-off fits: candidates flush with hull faces (O'Rourke, "Finding minimal
//! enclosing boxes", 1985, shows the optimum has two adjacent faces flush
//! with hull edges; a face-flush box is often optimal and always a good start)
//! with the in-plane rectangle of minimum area by rotating calipers
//! (Freeman and Shapira, 1975; Toussaint, 1983), then a local minimisation
//! over rotations (Eberly, *Minimum-Volume Box* notes).
//!
//! **Containment.** Every fit contains every input point, twice over: each
//! half-extent is at least the largest `|Obb::to_local(p)|` over the inputs,
//! computed with the same `f32` arithmetic as [`Obb::contains_point`] (so that
//! test passes for every input), and at least the exact local coordinate
//! `|axesᵀ (p − center)|` of the box's own `f32` centre and axes, computed in
//! `f64`, padded by `16 ε₆₄ · max‖p − center‖∞` (ε₆₄ = `f64::EPSILON`, about
//! 4·10⁻¹⁵ of the box size) and rounded up to `f32`. The only slack is that
//! of `f32` itself, about `ε₃₂` times the box size on each axis; it matters
//! only for the volume of very thin boxes. OBB-tree nodes are fitted by
//! `node_boxes` instead, which keeps both guarantees by error bounds rather
//! than by evaluation, for about `1e-6` of the box's reach.
//!
//! **Invalid input.** Empty input, or any NaN or infinite coordinate, gives `None`.

use super::covariance::{CovarianceAccumulator, orthonormal_frame, point_covariance};
use super::hull::{ConvexHull, Hull, convex_hull};
use crate::bounding_volume::{Obb, PackedObb};
use crate::math::{Matrix, Point, Real, Vector, is_finite_point};
use crate::shape::Triangle;
use crate::simd;
use nalgebra::{Matrix3, Rotation3, Vector2, Vector3};

type V64 = Vector3<f64>;
type M64 = Matrix3<f64>;
type V2 = Vector2<f64>;

/// Padding of the exact half-extents, in units of the box's reach (see the module doc).
const PADDING: f64 = 16.0 * f64::EPSILON;
/// At most this many distinct hull face normals are tried, largest faces first.
const MAX_FACE_NORMALS: usize = 64;
/// The best candidates (distinct frames) that go through local refinement.
const REFINED_CANDIDATES: usize = 3;
/// Rounds of (axis-wise calipers, Nelder–Mead) in one refinement.
const MAX_REFINE_ROUNDS: usize = 4;
/// Objective evaluations per Nelder–Mead run.
const MAX_SIMPLEX_EVALUATIONS: usize = 150;

/// The box with the given `axes` (columns, a rotation) that tightly contains `points`.
///
/// Centre and half-extents come from the minimum and maximum projections of
/// the points on each axis (in `f64`), then sized as the module doc's
/// containment guarantee says. `None` for no points or any non-finite input. O(n).
#[must_use]
pub fn obb_with_axes(points: &[Point], axes: &Matrix) -> Option<Obb> {
    if points.is_empty()
        || !points.iter().all(is_finite_point)
        || !axes.iter().all(|x| x.is_finite())
    {
        return None;
    }
    if *axes == Matrix::identity() {
        return Some(aligned_with_axes(points));
    }
    Some(general_with_axes(points, axes))
}

/// [`obb_with_axes`] in the world frame, from the extremes alone: every
/// projection is then a coordinate, computed exactly, and the largest
/// `|p − c|` on an axis (exact or rounded, both monotonic) is at one of
/// that axis's extremes. One pass of `f32` minima and maxima instead of two
/// of `f64` projections, with the same bits as [`general_with_axes`]
/// (tested): half of an OBB tree's fitting is this candidate frame.
fn aligned_with_axes(points: &[Point]) -> Obb {
    let (lo, hi) = points
        .iter()
        .fold((points[0], points[0]), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    aligned_from_extremes(lo, hi)
}

/// [`aligned_with_axes`] from the points' coordinate extremes.
fn aligned_from_extremes(lo: Point, hi: Point) -> Obb {
    let (lo64, hi64) = (lo.coords.cast::<f64>(), hi.coords.cast::<f64>());
    let center = Point::from(((lo64 + hi64) * 0.5).cast::<Real>());
    let c64 = center.coords.cast::<f64>();
    let exact = (lo64 - c64).abs().sup(&(hi64 - c64).abs());
    let rounded = (lo - center).abs().sup(&(hi - center).abs());
    let padded = exact.add_scalar(PADDING * exact.max());
    let half_extents = rounded.zip_map(&padded, |r, e| r.max(round_up(e)));
    Obb::new(center, Matrix::identity(), half_extents)
}

/// [`obb_with_axes`] for any frame: projections in `f64`, then a second
/// pass for the containment guarantee. `points` are finite and non-empty.
fn general_with_axes(points: &[Point], axes: &Matrix) -> Obb {
    let frame = axes.cast::<f64>();
    let (lo, hi) = points.iter().fold(
        (V64::repeat(f64::INFINITY), V64::repeat(f64::NEG_INFINITY)),
        |(lo, hi), p| {
            let local = frame.tr_mul(&p.coords.cast::<f64>());
            (lo.inf(&local), hi.sup(&local))
        },
    );
    let center = Point::from((frame * ((lo + hi) * 0.5)).cast::<Real>());
    let center64 = center.coords.cast::<f64>();
    let mut obb = Obb::new(center, *axes, Vector::zeros());
    let mut rounded = Vector::zeros();
    let mut exact = V64::zeros();
    let mut reach: f64 = 0.0;
    for p in points {
        rounded = rounded.sup(&obb.to_local(p).abs());
        let offset = p.coords.cast::<f64>() - center64;
        exact = exact.sup(&frame.tr_mul(&offset).abs());
        reach = reach.max(offset.amax());
    }
    let padded = exact.add_scalar(PADDING * reach);
    obb.half_extents = rounded.zip_map(&padded, |r, e| r.max(round_up(e)));
    obb
}

/// The frame of the smallest rectangle around a triangle in its plane, with
/// the plane's normal as third axis: a minimum-area rectangle around a
/// convex polygon has a side along one of its edges (Freeman and Shapira
/// 1975), so of the three edge-flush rectangles the smallest wins. The OBB
/// tree's one-triangle leaves take it instead of a covariance frame: the
/// same or a smaller box, without an eigen-solve. `None` for degenerate or
/// non-finite triangles.
#[must_use]
pub fn triangle_frame(triangle: &Triangle) -> Option<Matrix> {
    let [a, b, c] = triangle.vertices().map(|p| p.coords.cast::<f64>());
    let twice_area = (b - a).cross(&(c - a)).norm();
    if !(twice_area > 0.0) || !twice_area.is_finite() {
        return None;
    }
    let corners = [a, b, c];
    let rectangle = |k: usize| {
        let (start, end, apex) = (corners[k], corners[(k + 1) % 3], corners[(k + 2) % 3]);
        let edge = end - start;
        let length = edge.norm();
        // Width along the edge: the apex may project beyond either end.
        let along = (apex - start).dot(&edge) / length;
        let width = along.max(length) - along.min(0.0);
        (width * twice_area / length, edge, apex - start)
    };
    let (_, edge, apex) = (0..3).map(rectangle).min_by(|p, q| p.0.total_cmp(&q.0))?;
    let along = edge.normalize();
    // A sliver's cross product cancels: the normal it gives can lean off
    // the edge by 1e-3, and a frame that is not orthonormal does not hold
    // what it was fitted around once a refit takes its corners (an `Obb`
    // tree after `set_vertices` missed a touching pair). The normal is
    // made perpendicular to the edge again (Gram–Schmidt).
    let leaning = edge.cross(&apex);
    let normal = (leaning - along * along.dot(&leaning)).try_normalize(0.0)?;
    let frame = M64::from_columns(&[along, normal.cross(&along), normal]).cast::<Real>();
    frame.iter().all(|x| x.is_finite()).then_some(frame)
}

/// The two boxes an OBB-tree node chooses between, the box in `axes` and
/// the world-frame box ([`aligned_with_axes`], made on demand), from one
/// pass over the triangles' vertices: a builder visits every triangle once
/// per tree level, and this fit is most of its time. `None` for no
/// triangles or non-finite input.
///
/// The box in `axes` takes its containment from error bounds instead of
/// [`general_with_axes`]'s second `f64` pass: the projections are made in
/// `f32` lanes (one SSE step per vertex, `simd::include_point`), of each
/// vertex's offset `d = p − r` from the first vertex `r`, so their error
/// scales with the node, not with its distance from the origin. `fl(p − r)` and three products with two sums are off by at
/// most `4u ‖p − r‖₁` (`u = 2⁻²⁴`; Higham's `γ₃`), and `Obb::to_local`'s
/// `f32` result differs from the exact local coordinate by at most
/// `4u ‖p − c‖₁` likewise. Half-extents padded by `5u` times both reaches
/// (the spare `u` covers the `f64` arithmetic of the centre) and rounded
/// up keep every input inside, exactly and by `Obb::contains_point`, for
/// about `1e-6` of the box's reach; an absolute `3 · 2⁻¹⁴⁹` covers products
/// that underflow, and nodes reaching past `2¹²⁵` take the `f64` fit (both
/// checked on random clouds at scales from `1e-44` to `3e38`).
pub(crate) fn node_boxes(triangles: &[Triangle], axes: &Matrix) -> Option<NodeBoxes> {
    let origin = triangles.first()?.a;
    if !axes.iter().all(|x| x.is_finite()) {
        return None;
    }
    let lanes = |p: &Point| [p.x, p.y, p.z, 0.0];
    // Row k: [a_k0, a_k1, a_k2, 0], so local = d_x row_0 + d_y row_1 + d_z row_2.
    let rows: simd::Rows3 =
        std::array::from_fn(|k| [axes[(k, 0)], axes[(k, 1)], axes[(k, 2)], 0.0]);
    let start = lanes(&origin);
    let mut extremes = simd::FrameExtremes::EMPTY;
    for t in triangles {
        for p in [&t.a, &t.b, &t.c] {
            simd::include_point(&mut extremes, &lanes(p), &start, &rows);
        }
    }
    if !extremes.nan_if_not_finite.iter().all(|x| *x == 0.0) {
        return None;
    }
    let simd::FrameExtremes {
        lo,
        hi,
        world_lo,
        world_hi,
        ..
    } = extremes;
    let point = |v: [Real; 4]| Point::new(v[0], v[1], v[2]);
    let (world_lo, world_hi) = (point(world_lo), point(world_hi));
    let frame = axes.cast::<f64>();
    let r64 = origin.coords.cast::<f64>();
    let (lo64, hi64) = (
        V64::new(lo[0].into(), lo[1].into(), lo[2].into()),
        V64::new(hi[0].into(), hi[1].into(), hi[2].into()),
    );
    let center = Point::from((r64 + frame * ((lo64 + hi64) * 0.5)).cast::<Real>());
    let c64 = center.coords.cast::<f64>();
    let middle = frame.tr_mul(&(c64 - r64));
    let exact = (hi64 - middle).abs().sup(&(lo64 - middle).abs());
    // ‖p − r‖₁ and ‖p − c‖₁ bounded over all points from the coordinate extremes.
    let (world_lo64, world_hi64) = (world_lo.coords.cast::<f64>(), world_hi.coords.cast::<f64>());
    let reach = |from: &V64| {
        (world_lo64 - from)
            .abs()
            .sup(&(world_hi64 - from).abs())
            .sum()
    };
    let (from_first, from_center) = (reach(&r64), reach(&c64));
    let framed = if from_first < F32_SAFE_REACH && from_center < F32_SAFE_REACH {
        const U32: f64 = f32::EPSILON as f64 * 0.5;
        // Each of the two bounds' three products may also lose up to half
        // the smallest subnormal to underflow.
        let underflow = 3.0 * f64::from(f32::from_bits(1));
        let pad = 5.0 * U32 * (from_first + from_center) + underflow;
        Obb::new(center, *axes, exact.add_scalar(pad).map(round_up))
    } else {
        far_reaching_box(triangles, axes)
    };
    Some(NodeBoxes {
        framed,
        world_lo,
        world_hi,
    })
}

/// The two-pass `f64` fit of [`node_boxes`]' triangles: offsets near
/// `f32::MAX` overflow the `f32` pass (an infinite offset times a zero
/// axis entry is NaN, which the extremes skip).
#[cold]
#[inline(never)]
fn far_reaching_box(triangles: &[Triangle], axes: &Matrix) -> Obb {
    let vertices: Vec<Point> = triangles.iter().flat_map(Triangle::vertices).collect();
    general_with_axes(&vertices, axes)
}

/// Below this reach (`2¹²⁵`) no offset, product or sum of three in
/// [`node_boxes`]' `f32` pass can overflow (frame entries are at most about
/// 1).
const F32_SAFE_REACH: f64 = (1u128 << 125) as f64;

/// What [`node_boxes`] fitted: the box in the given axes, and the world
/// extremes the axis-aligned box comes from, made only when asked for.
pub(crate) struct NodeBoxes {
    pub(crate) framed: Obb,
    world_lo: Point,
    world_hi: Point,
}

impl NodeBoxes {
    /// The world-frame box, as [`aligned_with_axes`] fits it.
    pub(crate) fn aligned(&self) -> Obb {
        aligned_from_extremes(self.world_lo, self.world_hi)
    }
}

/// The smallest [`PackedObb`] with the packed frame `rotation` around
/// `points`: [`obb_with_axes`] in the frame that decoding yields, so the
/// stored box contains the points exactly as an [`Obb`] would. `None` if
/// `points` is empty or holds a non-finite coordinate.
#[must_use]
pub fn packed_obb_with_axes(rotation: [Real; 3], points: &[Point]) -> Option<PackedObb> {
    let obb = obb_with_axes(points, &PackedObb::decode_axes(&rotation))?;
    Some(PackedObb::new(obb.center, obb.half_extents, rotation))
}

/// A [`PackedObb`] containing `obb`: its frame is the packed rounding of
/// `obb`'s, and the box grows (by about that rounding) to contain `obb`.
#[must_use]
pub fn pack_obb(obb: &Obb) -> PackedObb {
    let rotation = PackedObb::encode_axes(&obb.axes);
    packed_obb_with_axes(rotation, &obb.corners())
        .unwrap_or_else(|| PackedObb::new(obb.center, obb.half_extents, rotation))
}

/// The smallest `f32` not below `x`.
fn round_up(x: f64) -> Real {
    let nearest = x as Real;
    if f64::from(nearest) < x {
        nearest.next_up()
    } else {
        nearest
    }
}

/// The box oriented by the area-weighted covariance of the triangles
/// themselves (no hull), sized by all their vertices.
///
/// The fast per-node fit for OBB trees (Gottschalk 1996): O(n) for n
/// triangles, and the covariance can come from merged child moments
/// ([`CovarianceAccumulator`]). Zero-area triangles do not orient the box
/// but are contained; if every triangle is degenerate the vertex covariance
/// orients it. `None` for no triangles or any non-finite coordinate.
#[must_use]
pub fn obb_from_triangles_covariance(triangles: &[Triangle]) -> Option<Obb> {
    let covariance = CovarianceAccumulator::from_triangles(triangles).covariance()?;
    let vertices: Vec<Point> = triangles.iter().flat_map(Triangle::vertices).collect();
    obb_with_axes(&vertices, &covariance.frame())
}

/// The box oriented by the covariance of the points themselves (each point
/// weighted equally), as FCL and PQP fit their OBBs.
///
/// Sensitive to sampling density: kept for comparison. O(n). `None` for no
/// points or any non-finite coordinate.
#[must_use]
pub fn obb_from_points_covariance(points: &[Point]) -> Option<Obb> {
    let covariance = point_covariance(points)?;
    obb_with_axes(points, &covariance.frame())
}

/// Gottschalk's statistical fit: the box oriented by the area-weighted
/// covariance of the convex hull's surface.
///
/// A flat hull uses its triangles (the normal gets the smallest variance, so
/// it becomes the third axis); a collinear set gets its direction as first
/// axis and a point the identity frame, each with a zero-thickness box.
/// Cost: one convex hull (O(n log n) expected) plus O(n). `None` for no
/// points or any non-finite coordinate.
#[must_use]
pub fn obb_from_points_hull_covariance(points: &[Point]) -> Option<Obb> {
    if !points.iter().all(is_finite_point) {
        return None;
    }
    let hull = convex_hull(points).ok()?;
    obb_with_axes(points, &hull_covariance_frame(&hull))
}

/// A near-minimum-volume box, for one-off fits where quality matters more than time.
///
/// Method: build the convex hull; take as candidate frames the hull-surface
/// covariance frame, the vertex covariance frame, the axis-aligned frame and,
/// for each distinct hull face normal (those of the 64 largest distinct
/// faces on big hulls), the frame whose third axis is that normal and
/// whose other two span the minimum-area rectangle around the hull's
/// projection (rotating calipers on its 2-D hull). The 3 best distinct
/// candidates are refined by alternating exact axis-wise steps (the
/// minimum-area rectangle about each current axis, which never increases the
/// volume) with Nelder–Mead over a rotation vector, which reaches
/// optimal boxes that are flush with hull edges rather than faces. The result
/// is the smallest of the refined box and the three statistical fits, so it
/// is never larger than [`obb_from_points_hull_covariance`],
/// [`obb_from_points_covariance`] or the axis-aligned box. Axes are ordered
/// by decreasing extent.
///
/// Coplanar input gets the box flush with the plane whose in-plane rectangle
/// has minimum area (exact, Freeman–Shapira), the better of it and the
/// covariance box by surface area; collinear and single-point input get the
/// boxes of [`obb_from_points_hull_covariance`].
///
/// Cost, for n points and h hull vertices: the hull, O(min(F, 64) · h log h)
/// for the face candidates, O(3 · 4 · (300 + 3 log h) · h) at most for the
/// refinement, and O(n) per final box. Exact (up to rounding) whenever the
/// optimum is flush with a hull face, as for points on a box's surface.
/// `None` for no points or any non-finite coordinate.
#[must_use]
pub fn obb_from_points_min_volume(points: &[Point]) -> Option<Obb> {
    if !points.iter().all(is_finite_point) {
        return None;
    }
    let hull = convex_hull(points).ok()?;
    let covariance_frame = hull_covariance_frame(&hull);
    let frames = match &hull {
        Hull::Point(_) | Hull::Segment(_) => return obb_with_axes(points, &covariance_frame),
        Hull::Flat(flat) => {
            let search = BoxSearch::new(flat);
            let normal = largest_face_normal(flat)
                .unwrap_or_else(|| covariance_frame.column(2).into_owned().cast::<f64>());
            let flush = search
                .flush_frame(&normal)
                .unwrap_or_else(|| covariance_frame.cast::<f64>());
            let best = to_frame(&search.sorted_by_extent(&flush));
            let boxes = [best, covariance_frame].map(|f| obb_with_axes(points, &f));
            return boxes
                .into_iter()
                .flatten()
                .min_by(|a, b| wide_surface_area(a).total_cmp(&wide_surface_area(b)));
        }
        Hull::Solid(solid) => {
            let search = BoxSearch::new(solid);
            let vertex_frame = point_covariance(points)?.frame();
            let mut candidates: Vec<Candidate> =
                [covariance_frame, vertex_frame, Matrix::identity()]
                    .iter()
                    .map(|f| search.candidate(f.cast::<f64>()))
                    .collect();
            candidates.extend(search.face_candidates(solid));
            candidates.sort_by(|a, b| a.volume.total_cmp(&b.volume));
            let mut starts: Vec<M64> = Vec::new();
            for c in &candidates {
                if starts.len() == REFINED_CANDIDATES {
                    break;
                }
                if !starts.iter().any(|s| same_box_axes(s, &c.frame)) {
                    starts.push(c.frame);
                }
            }
            let refined = starts
                .iter()
                .map(|s| search.refine(*s))
                .min_by(|a, b| a.volume.total_cmp(&b.volume))?;
            let best = to_frame(&search.sorted_by_extent(&refined.frame));
            [best, covariance_frame, vertex_frame, Matrix::identity()]
        }
    };
    frames
        .iter()
        .filter_map(|f| obb_with_axes(points, f))
        .min_by(|a, b| wide_volume(a).total_cmp(&wide_volume(b)))
}

/// The box's volume in `f64`: in `f32` it overflows for boxes about 1e13
/// across (and underflows for tiny ones), and `min_by` then kept the first
/// of several infinite volumes.
fn wide_volume(obb: &Obb) -> f64 {
    obb.half_extents
        .iter()
        .map(|&h| 2.0 * f64::from(h))
        .product()
}

/// The box's surface area in `f64` (see [`wide_volume`]).
fn wide_surface_area(obb: &Obb) -> f64 {
    let [x, y, z] = [0, 1, 2].map(|i| f64::from(obb.half_extents[i]));
    8.0 * (x * y + y * z + z * x)
}

/// The covariance frame of a hull (see [`obb_from_points_hull_covariance`]).
fn hull_covariance_frame(hull: &Hull) -> Matrix {
    match hull {
        Hull::Solid(_) | Hull::Flat(_) => CovarianceAccumulator::from_triangles(&hull.triangles())
            .covariance()
            .map_or_else(Matrix::identity, |c| c.frame()),
        Hull::Segment([a, b]) => {
            let direction = (b - a).cast::<f64>();
            orthonormal_frame(&direction, &V64::zeros())
                .map_or_else(Matrix::identity, |f| to_frame(&f))
        }
        Hull::Point(_) => Matrix::identity(),
    }
}

/// The unit normal of the hull's largest triangle.
fn largest_face_normal(hull: &ConvexHull) -> Option<V64> {
    let vertices: Vec<V64> = hull
        .vertices
        .iter()
        .map(|p| p.coords.cast::<f64>())
        .collect();
    hull.triangles
        .iter()
        .map(|t| scaled_normal(&vertices, t))
        .max_by(|a, b| a.norm_squared().total_cmp(&b.norm_squared()))?
        .try_normalize(0.0)
}

fn scaled_normal(vertices: &[V64], t: &[u32; 3]) -> V64 {
    let [a, b, c] = t.map(|i| vertices[i as usize]);
    (b - a).cross(&(c - a))
}

/// An `f64` rotation cast to the crate's scalar, re-orthonormalised first.
fn to_frame(frame: &M64) -> Matrix {
    orthonormal_frame(&frame.column(0).into_owned(), &frame.column(1).into_owned())
        .map_or_else(Matrix::identity, |f| f.cast::<Real>())
}

/// True when the two frames have the same axes up to order and sign.
fn same_box_axes(a: &M64, b: &M64) -> bool {
    // Unit vectors: cosines within 1e-9 of ±1 are the same direction.
    (0..3).all(|i| (0..3).any(|j| a.column(i).dot(&b.column(j)).abs() > 1.0 - 1e-9))
}

/// A candidate frame with the volume of the hull's box in it.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    frame: M64,
    volume: f64,
}

/// The hull vertices in `f64`, against which candidate frames are scored.
struct BoxSearch {
    vertices: Vec<V64>,
}

impl BoxSearch {
    fn new(hull: &ConvexHull) -> Self {
        Self {
            vertices: hull
                .vertices
                .iter()
                .map(|p| p.coords.cast::<f64>())
                .collect(),
        }
    }

    /// Extent (max − min projection) of the hull along each column of `frame`.
    fn extents(&self, frame: &M64) -> V64 {
        let (lo, hi) = self.vertices.iter().fold(
            (V64::repeat(f64::INFINITY), V64::repeat(f64::NEG_INFINITY)),
            |(lo, hi), v| {
                let local = frame.tr_mul(v);
                (lo.inf(&local), hi.sup(&local))
            },
        );
        hi - lo
    }

    fn candidate(&self, frame: M64) -> Candidate {
        let e = self.extents(&frame);
        let volume = e.x * e.y * e.z;
        // A non-finite score (cannot happen for finite input) must never win.
        Candidate {
            frame,
            volume: if volume.is_finite() {
                volume
            } else {
                f64::INFINITY
            },
        }
    }

    /// The frame with the same axes, reordered by decreasing extent (still right-handed).
    fn sorted_by_extent(&self, frame: &M64) -> M64 {
        let e = self.extents(frame);
        let mut order = [0usize, 1, 2];
        order.sort_by(|&i, &j| e[j].total_cmp(&e[i]));
        let first = frame.column(order[0]).into_owned();
        let second = frame.column(order[1]).into_owned();
        orthonormal_frame(&first, &second).unwrap_or(*frame)
    }

    /// One candidate per distinct face normal, largest faces first.
    fn face_candidates(&self, hull: &ConvexHull) -> Vec<Candidate> {
        let mut faces: Vec<(f64, V64)> = hull
            .triangles
            .iter()
            .map(|t| {
                let n = scaled_normal(&self.vertices, t);
                (n.norm(), n)
            })
            .filter(|(area, _)| *area > 0.0 && area.is_finite())
            .collect();
        faces.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut normals: Vec<V64> = Vec::new();
        for (area, n) in faces {
            if normals.len() == MAX_FACE_NORMALS {
                break;
            }
            let unit = n / area;
            // Unit vectors: cosines within 1e-9 of ±1 are the same direction.
            if normals.iter().all(|m| m.dot(&unit).abs() < 1.0 - 1e-9) {
                normals.push(unit);
            }
        }
        normals
            .iter()
            .filter_map(|n| self.flush_frame(n))
            .map(|f| self.candidate(f))
            .collect()
    }

    /// The frame with third axis `normal` whose first two axes bound the
    /// minimum-area rectangle around the hull projected on the plane ⟂ `normal`.
    fn flush_frame(&self, normal: &V64) -> Option<M64> {
        let n = normal.try_normalize(0.0)?;
        let basis = orthonormal_frame(&n, &V64::zeros())?;
        let (e1, e2) = (basis.column(1).into_owned(), basis.column(2).into_owned());
        let projected: Vec<V2> = self
            .vertices
            .iter()
            .map(|v| V2::new(v.dot(&e1), v.dot(&e2)))
            .collect();
        let direction = min_area_rectangle_direction(&convex_hull_2d(projected));
        let a = e1 * direction.x + e2 * direction.y;
        let b = n.cross(&a);
        Some(M64::from_columns(&[a, b, n]))
    }

    /// Local minimisation from `start`: alternate exact axis-wise calipers steps and Nelder–Mead.
    fn refine(&self, start: M64) -> Candidate {
        let mut best = self.candidate(start);
        for _ in 0..MAX_REFINE_ROUNDS {
            let before = best.volume;
            for i in 0..3 {
                if let Some(frame) = self.flush_frame(&best.frame.column(i).into_owned()) {
                    best = better(best, self.candidate(frame));
                }
            }
            for step in [0.1, 0.01] {
                best = better(best, self.nelder_mead(&best, step));
            }
            // Relative progress below 1e-9 of the volume is not worth another round.
            if best.volume >= before * (1.0 - 1e-9) {
                break;
            }
        }
        best
    }

    /// Nelder–Mead (standard coefficients 1, 2, ½, ½) over the rotation vector
    /// `ω` of `Rotation3::new(ω) · start.frame`, with initial simplex edge `step` radians.
    fn nelder_mead(&self, start: &Candidate, step: f64) -> Candidate {
        let at = |w: &V64| self.candidate(Rotation3::new(*w).matrix() * start.frame);
        let mut simplex: Vec<(V64, Candidate)> = vec![(V64::zeros(), *start)];
        for k in 0..3 {
            let mut w = V64::zeros();
            w[k] = step;
            simplex.push((w, at(&w)));
        }
        let mut evaluations = 3;
        while evaluations < MAX_SIMPLEX_EVALUATIONS {
            simplex.sort_by(|a, b| a.1.volume.total_cmp(&b.1.volume));
            let size = simplex[1..]
                .iter()
                .map(|(w, _)| (w - simplex[0].0).amax())
                .fold(0.0, f64::max);
            // Radians: a simplex narrower than 1e-9 rad cannot move a box measurably.
            if size < 1e-9 {
                break;
            }
            let centroid = (simplex[0].0 + simplex[1].0 + simplex[2].0) / 3.0;
            let worst = simplex[3];
            let reflected_w = centroid * 2.0 - worst.0;
            let reflected = at(&reflected_w);
            evaluations += 1;
            if reflected.volume < simplex[0].1.volume {
                let expanded_w = centroid * 3.0 - worst.0 * 2.0;
                let expanded = at(&expanded_w);
                evaluations += 1;
                simplex[3] = if expanded.volume < reflected.volume {
                    (expanded_w, expanded)
                } else {
                    (reflected_w, reflected)
                };
            } else if reflected.volume < simplex[2].1.volume {
                simplex[3] = (reflected_w, reflected);
            } else {
                let contracted_w = if reflected.volume < worst.1.volume {
                    (centroid + reflected_w) * 0.5
                } else {
                    (centroid + worst.0) * 0.5
                };
                let contracted = at(&contracted_w);
                evaluations += 1;
                if contracted.volume < reflected.volume.min(worst.1.volume) {
                    simplex[3] = (contracted_w, contracted);
                } else {
                    let best_w = simplex[0].0;
                    for vertex in &mut simplex[1..] {
                        let w = (best_w + vertex.0) * 0.5;
                        *vertex = (w, at(&w));
                    }
                    evaluations += 3;
                }
            }
        }
        simplex.into_iter().map(|(_, c)| c).fold(*start, better)
    }
}

fn better(a: Candidate, b: Candidate) -> Candidate {
    if b.volume < a.volume { b } else { a }
}

/// Counter-clockwise convex hull of 2-D points without collinear vertices
/// (Andrew's monotone chain, 1979). One point for coincident input, two for collinear.
fn convex_hull_2d(mut points: Vec<V2>) -> Vec<V2> {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: &V2, a: &V2, b: &V2| (a - o).perp(&(b - o));
    let mut hull: Vec<V2> = Vec::with_capacity(2 * points.len());
    for pass in 0..2 {
        let start = hull.len();
        let chain: Box<dyn Iterator<Item = &V2>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for p in chain {
            while hull.len() >= start + 2
                && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    hull
}

/// Unit direction of one side of the minimum-area rectangle enclosing the
/// convex polygon `hull` (counter-clockwise, no repeated vertices).
///
/// Freeman and Shapira (1975): some side of the optimal rectangle is collinear
/// with a polygon edge; rotating calipers (Toussaint 1983) visit every edge
/// with the three other extreme vertices in O(m).
fn min_area_rectangle_direction(hull: &[V2]) -> V2 {
    let m = hull.len();
    if m < 3 {
        return match hull {
            [a, b] => (b - a).try_normalize(0.0).unwrap_or_else(V2::x),
            _ => V2::x(),
        };
    }
    let edge = |i: usize| (hull[(i + 1) % m] - hull[i]).normalize();
    let perp = |u: &V2| V2::new(-u.y, u.x);
    let argmax = |f: &dyn Fn(&V2) -> f64| {
        (0..m)
            .max_by(|&i, &j| f(&hull[i]).total_cmp(&f(&hull[j])))
            .unwrap_or(0)
    };
    // Advances a caliper counter-clockwise while `f` does not decrease.
    let advance = |mut k: usize, f: &dyn Fn(&V2) -> f64| {
        for _ in 0..m {
            if f(&hull[(k + 1) % m]) >= f(&hull[k]) {
                k = (k + 1) % m;
            } else {
                break;
            }
        }
        k
    };
    let u0 = edge(0);
    let (mut right, mut left, mut top) = (
        argmax(&|p| u0.dot(p)),
        argmax(&|p| -u0.dot(p)),
        argmax(&|p| perp(&u0).dot(p)),
    );
    let mut best = (f64::INFINITY, u0);
    for i in 0..m {
        let u = edge(i);
        let n = perp(&u);
        right = advance(right, &|p| u.dot(p));
        left = advance(left, &|p| -u.dot(p));
        top = advance(top, &|p| n.dot(p));
        let area = u.dot(&(hull[right] - hull[left])) * n.dot(&(hull[top] - hull[i]));
        if area < best.0 {
            best = (area, u);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::unit_floats;

    /// Every input inside both node boxes, by `Obb::contains_point` and
    /// exactly (`f64` local coordinates of the `f32` centre and axes): random
    /// clouds at many scales (subnormal to near `f32::MAX`), far from the
    /// origin, flat and single points, in random frames and in frames with
    /// zero entries (where an overflowed offset turns into NaN).
    #[test]
    fn node_boxes_contain_every_point() {
        let mut next = unit_floats(43);
        for case in 0..6_000 {
            let scale = [1e-44, 1e-40, 1e-30, 1e-6, 1.0, 3.7, 1e6, 1e30, 1.5e38, 3e38][case % 10];
            let offset = [0.0, 1.0, -1e3, 5e7][case % 4] as Real;
            let count = 1 + case % 13;
            let flat = case % 5 == 0;
            let points: Vec<Point> = (0..count)
                .map(|_| {
                    let z = if flat {
                        0.25 * scale
                    } else {
                        (next() * 2.0 - 1.0) * scale
                    };
                    Point::new(
                        (next() * 2.0 - 1.0) * scale + offset,
                        (next() * 2.0 - 1.0) * scale,
                        z - offset,
                    )
                })
                .collect();
            let turn = Vector::new(next() * 4.0, next() * 4.0, next() * 4.0);
            let axes = match case % 3 {
                0 => Matrix::identity(),
                1 => Matrix::new(0.0, -1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0),
                _ => *crate::math::Rotation::new(turn)
                    .to_rotation_matrix()
                    .matrix(),
            };
            // Triangles of consecutive points (the fit reads vertices only).
            let triangles: Vec<Triangle> = (0..points.len())
                .map(|i| {
                    let at = |k: usize| points[(i + k) % points.len()];
                    Triangle::new(at(0), at(1), at(2))
                })
                .collect();
            let fitted = node_boxes(&triangles, &axes).expect("finite points");
            let boxes = [fitted.framed, fitted.aligned()];
            for obb in &boxes {
                let frame = obb.axes.cast::<f64>();
                for p in &points {
                    assert!(obb.contains_point(p), "case {case}: {p:?} outside {obb:?}");
                    let local =
                        frame.tr_mul(&(p.coords.cast::<f64>() - obb.center.coords.cast::<f64>()));
                    let half = obb.half_extents.cast::<f64>();
                    assert!(
                        (0..3).all(|i| local[i].abs() <= half[i]),
                        "case {case}: {p:?} outside {obb:?} exactly"
                    );
                }
            }
            // Tight up to the padding, about 1e-6 of the reach, beyond the
            // two-pass fit, and the rounding of either centre to `f32`.
            // (Subnormal boxes may be a few subnormal steps larger.)
            let two_pass = general_with_axes(&points, &axes);
            let largest = points.iter().map(|p| p.coords.amax()).fold(0.0, Real::max);
            let allowed = 1e-5 * two_pass.half_extents.amax()
                + 2.0 * Real::EPSILON * largest
                + 8.0 * Real::from_bits(1);
            let excess = (boxes[0].half_extents - two_pass.half_extents).max();
            if two_pass.half_extents.iter().all(|h| h.is_finite()) {
                assert!(excess <= allowed, "case {case}: {excess} over {two_pass:?}");
            }
        }
    }

    #[test]
    fn the_world_frame_fit_has_the_bits_of_the_general_one() {
        // Random clouds at many scales and offsets, some with repeated
        // points, negative zeros and single points.
        let mut next = unit_floats(41);
        for case in 0..2_000 {
            let scale = [1e-30, 1e-6, 1.0, 3.7, 1e6, 1e30][case % 6];
            let offset = [0.0, 1.0, -1e3, 5e7][case % 4] as Real;
            let count = 1 + case % 13;
            let mut points: Vec<Point> = (0..count)
                .map(|_| {
                    Point::new(
                        (next() * 2.0 - 1.0) * scale + offset,
                        (next() * 2.0 - 1.0) * scale,
                        (next() * 2.0 - 1.0) * scale - offset,
                    )
                })
                .collect();
            if case % 7 == 0 {
                points.push(points[0]);
                points.push(Point::new(-0.0, 0.0, -0.0));
            }
            let fast = aligned_with_axes(&points);
            let general = general_with_axes(&points, &Matrix::identity());
            assert_eq!(fast.center, general.center, "{points:?}");
            assert_eq!(fast.half_extents, general.half_extents, "{points:?}");
            assert_eq!(fast.axes, general.axes);
        }
    }

    /// Brute force: every edge direction, every vertex projected.
    fn brute_force_min_area(hull: &[V2]) -> f64 {
        let m = hull.len();
        (0..m)
            .map(|i| {
                let u = (hull[(i + 1) % m] - hull[i]).normalize();
                let n = V2::new(-u.y, u.x);
                let span = |d: &V2| {
                    let values = hull.iter().map(|p| d.dot(p));
                    values.clone().fold(f64::NEG_INFINITY, f64::max)
                        - values.fold(f64::INFINITY, f64::min)
                };
                span(&u) * span(&n)
            })
            .fold(f64::INFINITY, f64::min)
    }

    fn rectangle_area(points: &[V2], u: &V2) -> f64 {
        let n = V2::new(-u.y, u.x);
        let span = |d: &V2| {
            let values = points.iter().map(|p| d.dot(p));
            values.clone().fold(f64::NEG_INFINITY, f64::max) - values.fold(f64::INFINITY, f64::min)
        };
        span(u) * span(&n)
    }

    #[test]
    fn rotating_calipers_match_brute_force_rectangles() {
        let mut state = 0x1234_5678_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for count in [3usize, 4, 5, 8, 20, 100] {
            for _ in 0..50 {
                let points: Vec<V2> = (0..count).map(|_| V2::new(next() * 3.0, next())).collect();
                let hull = convex_hull_2d(points.clone());
                let u = min_area_rectangle_direction(&hull);
                let expected = brute_force_min_area(&hull);
                let got = rectangle_area(&points, &u);
                assert!(
                    got <= expected * (1.0 + 1e-9) + 1e-15,
                    "{got} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn convex_hull_2d_drops_collinear_and_interior_points() {
        let square = [
            (0.0, 0.0),
            (1.0, 0.0),
            (2.0, 0.0),
            (2.0, 2.0),
            (0.0, 2.0),
            (1.0, 1.0),
            (0.0, 1.0),
        ];
        let hull = convex_hull_2d(square.iter().map(|&(x, y)| V2::new(x, y)).collect());
        assert_eq!(hull.len(), 4);
        let area: f64 = (0..4)
            .map(|i| hull[i].perp(&hull[(i + 1) % 4]))
            .sum::<f64>()
            / 2.0;
        assert_eq!(area, 4.0, "counter-clockwise square of side 2");
    }
}
