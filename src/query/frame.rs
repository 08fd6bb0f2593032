//! Queries brought into a mesh's own frame: the inverse of a pose,
//! evaluated in `f64` and rounded once per coordinate.

use crate::math::{Isometry, Matrix, Point, Real, Vector};
use crate::shape::{Ray, RaySpan, Segment};

/// The world → mesh mapping of a pose, kept in `f64` so that a query
/// brought into a mesh's frame is rounded once per coordinate (a
/// composed `f32` transform rounds at every step, and at grazing incidence
/// those errors move the hit along the surface).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalFrame {
    /// Rows of `Rᵀ`.
    inverse: [[f64; 3]; 3],
    translation: [f64; 3],
}

impl LocalFrame {
    #[inline(always)]
    pub(crate) fn new(pose: &Isometry) -> Self {
        let r = pose.rotation.to_rotation_matrix();
        let m = r.matrix();
        let t = &pose.translation.vector;
        LocalFrame {
            inverse: std::array::from_fn(|row| std::array::from_fn(|col| f64::from(m[(col, row)]))),
            translation: [f64::from(t.x), f64::from(t.y), f64::from(t.z)],
        }
    }

    #[inline(always)]
    fn apply(&self, v: [f64; 3]) -> [Real; 3] {
        let m = &self.inverse;
        std::array::from_fn(|row| (m[row][0] * v[0] + m[row][1] * v[1] + m[row][2] * v[2]) as Real)
    }

    /// A world point in the object's frame.
    #[inline(always)]
    pub(crate) fn point(&self, p: &Point) -> Point {
        let t = &self.translation;
        let [x, y, z] = self.apply([
            f64::from(p.x) - t[0],
            f64::from(p.y) - t[1],
            f64::from(p.z) - t[2],
        ]);
        Point::new(x, y, z)
    }

    /// A world point given in `f64` (such as a box's centre, computed
    /// without rounding) in the object's frame.
    #[inline(always)]
    pub(crate) fn point_wide(&self, p: [f64; 3]) -> Point {
        let t = &self.translation;
        let [x, y, z] = self.apply([p[0] - t[0], p[1] - t[1], p[2] - t[2]]);
        Point::new(x, y, z)
    }

    /// A world direction in the object's frame.
    #[inline(always)]
    pub(crate) fn vector(&self, v: &Vector) -> Vector {
        let [x, y, z] = self.apply([f64::from(v.x), f64::from(v.y), f64::from(v.z)]);
        Vector::new(x, y, z)
    }

    /// A world matrix's columns (an oriented box's axes) in the object's frame.
    #[inline(always)]
    pub(crate) fn matrix(&self, m: &Matrix) -> Matrix {
        let column = |i: usize| self.vector(&m.column(i).into_owned());
        Matrix::from_columns(&[column(0), column(1), column(2)])
    }

    /// A world span in the object's frame, with the same parameter range:
    /// an affine map keeps the parameter of every point, so `t` needs no
    /// conversion. A segment's ends are mapped as points.
    #[inline(always)]
    pub(crate) fn span(&self, span: &RaySpan) -> RaySpan {
        match span.end {
            Some(b) => RaySpan {
                t_min: span.t_min,
                t_max: span.t_max,
                ..RaySpan::segment(&Segment::new(self.point(&span.ray.origin), self.point(&b)))
            },
            None => Ray::new(
                self.point(&span.ray.origin),
                self.vector(&span.ray.direction),
            )
            .span(span.t_min, span.t_max),
        }
    }
}
