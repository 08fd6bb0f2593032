//! Covariance of a surface or a point set, and the principal frame it defines.
//!
//! The statistical OBB fit of Gottschalk, Lin and Manocha ("OBBTree",
//! SIGGRAPH 1996; Gottschalk's thesis, 2000, §3.3; Akenine-Möller et al.,
//! *Real-Time Rendering* 4th ed. §22.13) orients a box by the eigenvectors of
//! a covariance matrix. Taking the covariance of the *vertices* makes the box
//! depend on how the surface is tessellated (many vertices in one region pull
//! the axes towards it); taking the covariance of the *surface*, each triangle
//! integrated with uniform density, does not. For triangles with vertices
//! `p, q, r`, area `Aᵢ` and centroid `mᵢ`, and `A_H = Σ Aᵢ`, `m_H = Σ Aᵢ mᵢ / A_H`:
//!
//! ```text
//! C_jk = (1 / A_H) Σᵢ (Aᵢ / 12) (9 mᵢⱼ mᵢₖ + pⱼ pₖ + qⱼ qₖ + rⱼ rₖ) − m_Hj m_Hk
//! ```
//!
//! [`CovarianceAccumulator`] computes exactly this, rearranged for accuracy
//! and merging: it keeps, per moment set, the total weight, the mean, and the
//! second moment *about the mean*. A triangle's own central moment is
//! `(A/12) Σ dᵢ dᵢᵀ` with `dᵢ = vᵢ − m` (the formula above with the mean moved
//! to the centroid), and two sets merge by the parallel-axis theorem (Chan,
//! Golub and LeVeque's pairwise update, 1979). This avoids the cancellation of
//! `E[xxᵀ] − m mᵀ` far from the origin, and lets a tree builder combine its
//! children's moments in O(1) per node. Everything accumulates in `f64`.

use crate::math::{Matrix, Point, Real};
use crate::shape::Triangle;
use nalgebra::{Matrix3, Point3, SymmetricEigen, Vector3};

type V64 = Vector3<f64>;
type M64 = Matrix3<f64>;

/// Weight, mean and central second moment of a weighted set (private building block).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Moments {
    weight: f64,
    mean: V64,
    central: M64,
}

impl Moments {
    const EMPTY: Moments = Moments {
        weight: 0.0,
        mean: V64::new(0.0, 0.0, 0.0),
        central: M64::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    };

    /// Adds a set of weight `weight`, mean `mean` and central moment `central`
    /// (parallel-axis theorem). Zero weights are ignored.
    fn add(&mut self, weight: f64, mean: &V64, central: &M64) {
        if weight == 0.0 {
            return;
        }
        let total = self.weight + weight;
        let delta = mean - self.mean;
        self.central += central + delta * delta.transpose() * (self.weight * weight / total);
        self.mean += delta * (weight / total);
        self.weight = total;
    }

    fn merge(&mut self, other: &Moments) {
        self.add(other.weight, &other.mean, &other.central);
    }

    fn is_finite(&self) -> bool {
        self.weight.is_finite()
            && self.mean.iter().all(|x| x.is_finite())
            && self.central.iter().all(|x| x.is_finite())
    }

    fn covariance(&self) -> M64 {
        self.central / self.weight
    }
}

/// Which moments a [`Covariance`] was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CovarianceSource {
    /// The area-weighted surface of the triangles (the usual case).
    Surface,
    /// The vertices, each weighted equally (no triangle had positive area, or only points were added).
    Vertices,
}

/// A covariance matrix with the mean it is taken about, both in `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Covariance {
    /// The (area- or count-weighted) mean.
    pub mean: Point3<f64>,
    /// The symmetric 3×3 covariance matrix.
    pub matrix: M64,
    /// Whether the surface or the vertices produced it.
    pub source: CovarianceSource,
}

impl Covariance {
    /// The principal frame of [`Covariance::matrix`]; see [`principal_frame`].
    #[must_use]
    pub fn frame(&self) -> Matrix {
        principal_frame(&self.matrix)
    }
}

/// Running surface and vertex moments of a set of triangles and points, mergeable in O(1).
///
/// Every added triangle feeds the *vertex* moments with its three corners
/// (shared mesh vertices count once per triangle); triangles of positive area
/// also feed the *surface* moments. Zero-area triangles never feed the
/// surface moments: they have no area to weigh with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CovarianceAccumulator {
    surface: Moments,
    vertices: Moments,
}

impl Default for CovarianceAccumulator {
    fn default() -> Self {
        Self::new()
    }
}

impl CovarianceAccumulator {
    /// An accumulator with nothing added.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            surface: Moments::EMPTY,
            vertices: Moments::EMPTY,
        }
    }

    /// The moments of every triangle in `triangles`.
    #[must_use]
    pub fn from_triangles(triangles: &[Triangle]) -> Self {
        let mut acc = Self::new();
        triangles.iter().for_each(|t| acc.add_triangle(t));
        acc
    }

    /// The vertex moments of every point in `points`.
    #[must_use]
    pub fn from_points(points: &[Point]) -> Self {
        let mut acc = Self::new();
        points.iter().for_each(|p| acc.add_point(p));
        acc
    }

    /// Adds one triangle: its surface (if its area is positive) and its three corners.
    pub fn add_triangle(&mut self, triangle: &Triangle) {
        let [a, b, c] = triangle.vertices().map(|p| p.coords.cast::<f64>());
        let area = 0.5 * (b - a).cross(&(c - a)).norm();
        let centroid = (a + b + c) / 3.0;
        let spread = [a, b, c]
            .iter()
            .map(|v| {
                let d = v - centroid;
                d * d.transpose()
            })
            .sum::<M64>();
        if area != 0.0 {
            self.surface.add(area, &centroid, &(spread * (area / 12.0)));
        }
        // The three corners as a point set of weight 3 about their centroid.
        self.vertices.add(3.0, &centroid, &spread);
    }

    /// Adds one point to the vertex moments only.
    pub fn add_point(&mut self, point: &Point) {
        self.vertices
            .add(1.0, &point.coords.cast::<f64>(), &M64::zeros());
    }

    /// Adds everything accumulated in `other` (the result equals accumulating both inputs in one).
    pub fn merge(&mut self, other: &CovarianceAccumulator) {
        self.surface.merge(&other.surface);
        self.vertices.merge(&other.vertices);
    }

    /// The union of two accumulators.
    #[must_use]
    pub fn merged(mut self, other: &CovarianceAccumulator) -> Self {
        self.merge(other);
        self
    }

    /// True when nothing has been added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.vertices.weight == 0.0
    }

    /// Total area of the added triangles.
    #[must_use]
    pub fn area(&self) -> f64 {
        self.surface.weight
    }

    /// Number of vertices added (three per triangle plus one per point).
    #[must_use]
    pub fn vertex_count(&self) -> u64 {
        // Exact: the weight is a sum of small integers, far below 2^53.
        self.vertices.weight as u64
    }

    /// The mean the covariance is taken about (area-weighted centroid, or the
    /// vertex mean when there is no area); `None` when empty or non-finite.
    #[must_use]
    pub fn mean(&self) -> Option<Point> {
        self.covariance().map(|c| c.mean.cast::<Real>())
    }

    /// The surface covariance when the total area is positive, else the vertex
    /// covariance; `None` when nothing was added or any input was non-finite.
    #[must_use]
    pub fn covariance(&self) -> Option<Covariance> {
        if self.is_empty() || !self.surface.is_finite() || !self.vertices.is_finite() {
            return None;
        }
        let (moments, source) = if self.surface.weight > 0.0 {
            (&self.surface, CovarianceSource::Surface)
        } else {
            (&self.vertices, CovarianceSource::Vertices)
        };
        let matrix = moments.covariance();
        matrix.iter().all(|x| x.is_finite()).then(|| Covariance {
            mean: Point3::from(moments.mean),
            matrix,
            source,
        })
    }

    /// The surface covariance only; `None` when the total area is zero or any input was non-finite.
    #[must_use]
    pub fn surface_covariance(&self) -> Option<Covariance> {
        self.covariance()
            .filter(|c| c.source == CovarianceSource::Surface)
    }

    /// The vertex covariance only; `None` when empty or any input was non-finite.
    #[must_use]
    pub fn vertex_covariance(&self) -> Option<Covariance> {
        if self.is_empty() || !self.surface.is_finite() || !self.vertices.is_finite() {
            return None;
        }
        Some(Covariance {
            mean: Point3::from(self.vertices.mean),
            matrix: self.vertices.covariance(),
            source: CovarianceSource::Vertices,
        })
    }
}

/// Area-weighted surface covariance of `triangles` (vertex covariance if all are degenerate).
///
/// `None` for no triangles or any non-finite coordinate. O(n).
#[must_use]
pub fn triangle_covariance(triangles: &[Triangle]) -> Option<Covariance> {
    CovarianceAccumulator::from_triangles(triangles).covariance()
}

/// The principal frame of the triangles' area-weighted surface covariance
/// from plain sums: one pass of about 80 flops a triangle instead of two
/// running merges ([`CovarianceAccumulator`]), for the OBB-tree builder,
/// which takes it at every node. Coordinates are taken relative to the
/// first vertex, so the sums' cancellation depends on the triangles' spread,
/// not on their distance from the origin; a frame that rounding bends only
/// loosens the box fitted in it. Nodes of more than [`FRAME_SAMPLE`]
/// triangles take every k-th of them: the top levels' frames matter least
/// to queries, and each level costs a pass over every triangle. `None`
/// when the total area is zero or the sums are not finite (the caller
/// falls back to the accumulator).
#[must_use]
pub(crate) fn surface_frame(triangles: &[Triangle]) -> Option<Matrix> {
    let origin = triangles.first()?.a.coords.cast::<f64>();
    let (mut area_sum, mut first, mut second) = (0.0, V64::zeros(), [0.0f64; 6]);
    for t in triangles
        .iter()
        .step_by(triangles.len().div_ceil(FRAME_SAMPLE))
    {
        let [a, b, c] = t.vertices().map(|p| p.coords.cast::<f64>() - origin);
        let area = 0.5 * (b - a).cross(&(c - a)).norm();
        let g = (a + b + c) / 3.0;
        // Second moment of a triangle about the origin (Eberly):
        // area · (¾ g gᵀ + (a aᵀ + b bᵀ + c cᵀ) / 12).
        let entry = |i: usize, j: usize| {
            0.75 * g[i] * g[j] + (a[i] * a[j] + b[i] * b[j] + c[i] * c[j]) / 12.0
        };
        let upper = [
            entry(0, 0),
            entry(0, 1),
            entry(0, 2),
            entry(1, 1),
            entry(1, 2),
            entry(2, 2),
        ];
        area_sum += area;
        first += g * area;
        for (sum, value) in second.iter_mut().zip(upper) {
            *sum += area * value;
        }
    }
    if !(area_sum > 0.0) {
        return None;
    }
    let mean = first / area_sum;
    let [xx, xy, xz, yy, yz, zz] = second.map(|s| s / area_sum);
    let matrix = M64::new(xx, xy, xz, xy, yy, yz, xz, yz, zz) - mean * mean.transpose();
    frame_from_eigen(&matrix)
}

/// The most triangles [`surface_frame`] sums for one frame.
const FRAME_SAMPLE: usize = 2048;

/// Covariance of `points`, each weighted equally (divided by n, not n − 1).
///
/// `None` for no points or any non-finite coordinate. O(n).
#[must_use]
pub fn point_covariance(points: &[Point]) -> Option<Covariance> {
    CovarianceAccumulator::from_points(points).covariance()
}

/// The eigenvectors of a symmetric matrix as the columns of a rotation,
/// sorted by decreasing eigenvalue.
///
/// Computed in `f64` with nalgebra's [`SymmetricEigen`], then cast. Repeated
/// eigenvalues (cubes, spheres, regular polyhedra) leave the eigenvectors free
/// within their eigenspace; whatever the solver returns is made orthonormal
/// by Gram–Schmidt on the first two sorted vectors (an arbitrary perpendicular
/// when the second collapses) and the third is their cross product, so the
/// frame is always right-handed. Each of the first two axes is signed so its
/// largest-magnitude component is positive (a deterministic choice). A matrix
/// with a non-finite entry, or one the solver cannot diagonalise, gives the
/// identity.
#[must_use]
pub fn principal_frame(matrix: &M64) -> Matrix {
    frame_from_eigen(matrix).unwrap_or_else(Matrix::identity)
}

fn frame_from_eigen(matrix: &M64) -> Option<Matrix> {
    if !matrix.iter().all(|x| x.is_finite()) {
        return None;
    }
    let (first, second) =
        separated_eigenvectors(matrix).or_else(|| iterative_eigenvectors(matrix))?;
    let frame = orthonormal_frame(&first, &second)?;
    let cast = frame.cast::<Real>();
    cast.iter().all(|x| x.is_finite()).then_some(cast)
}

/// The eigenvectors of the largest and middle eigenvalues, by nalgebra's
/// iterative [`SymmetricEigen`] (any symmetric matrix, repeated
/// eigenvalues included).
fn iterative_eigenvectors(matrix: &M64) -> Option<(V64, V64)> {
    let eigen = SymmetricEigen::try_new(*matrix, f64::EPSILON, 10_000)?;
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| eigen.eigenvalues[j].total_cmp(&eigen.eigenvalues[i]));
    let column = |k: usize| eigen.eigenvectors.column(order[k]).into_owned();
    Some((column(0), column(1)))
}

/// The eigenvectors of the largest and middle eigenvalues of a symmetric
/// matrix in closed form, when all three eigenvalues are well apart:
/// the eigenvalues from the trigonometric solution of the characteristic
/// cubic (Smith, "Eigenvalues of a symmetric 3 × 3 matrix", CACM 1961),
/// each eigenvector as the largest cross product of two rows of
/// `A − λI` (its null space). About a tenth of an iterative solver's time,
/// which an OBB tree pays at every node. `None` (the caller then iterates)
/// when two eigenvalues are within 1e-6 of the spread, or a null space is
/// not one direction to `f64` precision.
fn separated_eigenvectors(a: &M64) -> Option<(V64, V64)> {
    let off = a[(0, 1)].powi(2) + a[(0, 2)].powi(2) + a[(1, 2)].powi(2);
    let q = a.trace() / 3.0;
    let diagonal = (a[(0, 0)] - q).powi(2) + (a[(1, 1)] - q).powi(2) + (a[(2, 2)] - q).powi(2);
    let p = ((diagonal + 2.0 * off) / 6.0).sqrt();
    if !(p > 0.0) || !p.is_finite() {
        return None;
    }
    let b = (a - M64::identity() * q) / p;
    let r = (b.determinant() / 2.0).clamp(-1.0, 1.0);
    let phi = r.acos() / 3.0;
    let largest = q + 2.0 * p * phi.cos();
    let smallest = q + 2.0 * p * (phi + 2.0 * std::f64::consts::FRAC_PI_3).cos();
    let middle = 3.0 * q - largest - smallest;
    let spread = largest - smallest;
    if !(largest - middle > 1e-6 * spread && middle - smallest > 1e-6 * spread) {
        return None;
    }
    let null = |lambda: f64| -> Option<V64> {
        let m = a - M64::identity() * lambda;
        let rows = [
            m.row(0).transpose(),
            m.row(1).transpose(),
            m.row(2).transpose(),
        ];
        let crosses = [
            rows[0].cross(&rows[1]),
            rows[0].cross(&rows[2]),
            rows[1].cross(&rows[2]),
        ];
        let best = crosses
            .iter()
            .max_by(|x, y| x.norm_squared().total_cmp(&y.norm_squared()))?;
        // Rank two to f64 precision: the cross product of two rows is not
        // lost in their rounding.
        let scale = m.norm_squared();
        (best.norm_squared() > 1e-20 * scale * scale).then(|| best.normalize())
    };
    let (v1, v3) = (null(largest)?, null(smallest)?);
    let v2 = v3.cross(&v1);
    (v2.norm_squared() > 0.5).then_some((v1, v2))
}

/// A right-handed orthonormal frame whose first axis is along `first` and
/// whose second lies in the plane of `first` and `second` (any perpendicular
/// if `second` is parallel to `first`); `None` if `first` is zero or non-finite.
pub(crate) fn orthonormal_frame(first: &V64, second: &V64) -> Option<M64> {
    let e0 = canonical_sign(first.try_normalize(0.0)?);
    // Unit vectors: a residual below 1e-6 of unit length has lost its direction.
    let e1 = (second - e0 * e0.dot(second))
        .try_normalize(1e-6)
        .unwrap_or_else(|| any_perpendicular(&e0));
    let e1 = canonical_sign((e1 - e0 * e0.dot(&e1)).try_normalize(0.0)?);
    let e2 = e0.cross(&e1);
    let frame = M64::from_columns(&[e0, e1, e2]);
    frame.iter().all(|x| x.is_finite()).then_some(frame)
}

/// A unit vector perpendicular to the unit vector `v`.
pub(crate) fn any_perpendicular(v: &V64) -> V64 {
    // Cross with the coordinate axis least aligned with v: never near-parallel.
    let i = v.iamin();
    let mut axis = V64::zeros();
    axis[i] = 1.0;
    v.cross(&axis).normalize()
}

/// `v` or `−v`, whichever has a positive largest-magnitude component.
fn canonical_sign(v: V64) -> V64 {
    if v[v.iamax()] < 0.0 { -v } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::unit_floats;

    /// Up to sign, as `orthonormal_frame` then fixes it.
    fn same_axis(a: &V64, b: &V64) -> bool {
        (a - b).norm() < 1e-7 || (a + b).norm() < 1e-7
    }

    #[test]
    fn closed_form_eigenvectors_agree_with_the_iterative_solver() {
        let mut next = unit_floats(7);
        let mut closed = 0;
        for case in 0..3_000 {
            // A random rotation times random eigenvalues; every fourth case
            // with two of them equal or nearly so (the closed form declines).
            let q = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
                f64::from(next()) - 0.5,
                f64::from(next()) - 0.5,
                f64::from(next()) - 0.5,
                f64::from(next()) - 0.5,
            ));
            let r = q.to_rotation_matrix().into_inner();
            let scale = [1e-12, 1.0, 1e9][case % 3];
            let mut values = V64::new(
                f64::from(next()) * scale,
                f64::from(next()) * scale,
                f64::from(next()) * scale,
            );
            if case % 4 == 0 {
                values[1] = values[0] * (1.0 + 1e-9 * f64::from(next()));
            }
            let a = r * M64::from_diagonal(&values) * r.transpose();
            let a = (a + a.transpose()) * 0.5;
            let iterative = iterative_eigenvectors(&a).expect("symmetric");
            if let Some((v1, v2)) = separated_eigenvectors(&a) {
                closed += 1;
                assert!(
                    same_axis(&v1, &iterative.0),
                    "{a:?}: {v1:?} vs {:?}",
                    iterative.0
                );
                assert!(
                    same_axis(&v2, &iterative.1),
                    "{a:?}: {v2:?} vs {:?}",
                    iterative.1
                );
            } else {
                // Declined only for eigenvalues close together.
                let mut sorted = values.as_slice().to_vec();
                sorted.sort_by(f64::total_cmp);
                let spread = sorted[2] - sorted[0];
                let gap = (sorted[1] - sorted[0]).min(sorted[2] - sorted[1]);
                assert!(gap < 1e-4 * spread, "{values:?}");
            }
        }
        assert!(closed > 2_000, "{closed} of 3,000 in closed form");
    }
}
