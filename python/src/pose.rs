//! 4x4 homogeneous matrices in and out, checked to be the rigid motions the
//! crate's `Isometry` holds: the crate refuses scale by type (overlap's
//! separating-axis tests hold for rigid motions only), so a scaled or
//! sheared matrix is an error here rather than silently made rigid.

use boxtree::Isometry;
use boxtree::math::nalgebra::{Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};
use numpy::ndarray::ArrayView2;
use numpy::{
    PyArray2, PyArray3, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::arrays::{busy, ndarray, numeric};
use crate::errors::{PoseError, array_error};

/// Largest `|RᵀR − I|` entry accepted: float32 matrices carry rounding of
/// about 1e-7, so this only refuses real scale, shear and reflection.
const RIGID_TOLERANCE: f64 = 1e-4;

/// One pose: a `(4, 4)` array, or `None` for the identity.
pub(crate) fn pose(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Isometry> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Isometry::identity());
    };
    let array = float64(obj, name)?;
    if array.shape() != [4, 4] {
        return Err(array_error(format!(
            "{name} must be a (4, 4) matrix; got shape {:?}",
            array.shape()
        )));
    }
    matrix_of(&array, name)
}

/// A `(4, 4)` float64 array as a rigid motion.
fn matrix_of(array: &Bound<'_, PyUntypedArray>, name: &str) -> PyResult<Isometry> {
    let typed = array
        .cast::<PyArray2<f64>>()?
        .try_readonly()
        .map_err(busy(name))?;
    rigid(typed.as_array(), name)
}

/// Poses: `(N, 4, 4)` for many (`Many`), or `(4, 4)` for one (`One`).
pub(crate) enum Poses {
    One(Isometry),
    Many(Vec<Isometry>),
}

/// `obj` as one pose or a batch of poses, by its number of dimensions;
/// `None` is the identity, as for one pose.
pub(crate) fn poses(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Poses> {
    if obj.is_none() {
        return Ok(Poses::One(Isometry::identity()));
    }
    let array = float64(obj, name)?;
    match array.shape() {
        [4, 4] => matrix_of(&array, name).map(Poses::One),
        [n, 4, 4] => {
            crate::arrays::room_for_answers(*n, name)?;
            let typed = array
                .cast::<PyArray3<f64>>()?
                .try_readonly()
                .map_err(busy(name))?;
            let view = typed.as_array();
            view.outer_iter()
                .enumerate()
                .map(|(i, m)| rigid(m, &format!("{name}[{i}]")))
                .collect::<PyResult<Vec<_>>>()
                .map(Poses::Many)
        }
        shape => Err(array_error(format!(
            "{name} must be a (4, 4) matrix or an (N, 4, 4) stack of them; got shape {shape:?}"
        ))),
    }
}

/// The pose as a `(4, 4)` float64 matrix.
pub(crate) fn matrix<'py>(py: Python<'py>, pose: &Isometry) -> Bound<'py, PyArray2<f64>> {
    let m = pose.to_homogeneous().cast::<f64>();
    let rows: Vec<Vec<f64>> = (0..4)
        .map(|r| (0..4).map(|c| m[(r, c)]).collect())
        .collect();
    PyArray2::from_vec2(py, &rows).expect("four rows of four")
}

/// `obj` as a float64 array (poses are small: converting is free).
fn float64<'py>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyUntypedArray>> {
    let array = ndarray(obj, name)?;
    numeric(&array, name)?;
    let float64 = numpy::dtype::<f64>(obj.py());
    if array.dtype().is_equiv_to(&float64) {
        return Ok(array);
    }
    let converted = array.call_method1("astype", (float64,))?;
    Ok(converted.cast_into::<PyUntypedArray>()?)
}

/// A 4x4 matrix as a rigid motion, or a `PoseError` saying what is wrong.
fn rigid(m: ArrayView2<'_, f64>, name: &str) -> PyResult<Isometry> {
    if let Some(bad) = m.iter().find(|x| !x.is_finite()) {
        return Err(PoseError::new_err(format!(
            "{name} has a non-finite entry ({bad})"
        )));
    }
    let bottom = [m[[3, 0]], m[[3, 1]], m[[3, 2]], m[[3, 3]]];
    if bottom != [0.0, 0.0, 0.0, 1.0] {
        return Err(PoseError::new_err(format!(
            "{name} must have the bottom row [0, 0, 0, 1]; got {bottom:?}"
        )));
    }
    let r = Matrix3::from_fn(|i, j| m[[i, j]]);
    let drift = (r.transpose() * r - Matrix3::identity()).amax();
    if drift > RIGID_TOLERANCE || r.determinant() <= 0.0 {
        return Err(PoseError::new_err(format!(
            "{name} is not a rigid motion: its 3x3 part has a scale, shear or \
             reflection (largest |RᵀR − I| entry {drift:.3e}, determinant {:.6}); \
             place a scaled copy of the mesh instead",
            r.determinant()
        )));
    }
    let rotation = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r));
    let rotation = UnitQuaternion::new_normalize(rotation.into_inner().cast::<f32>());
    let t = Vector3::new(m[[0, 3]], m[[1, 3]], m[[2, 3]]).cast::<f32>();
    if !t.iter().all(|x| x.is_finite()) {
        return Err(PoseError::new_err(format!(
            "{name}'s translation overflows float32"
        )));
    }
    Ok(Isometry::from_parts(Translation3::from(t), rotation))
}
